/**
 * The dashboard's step rows: one row per step of a workflow run, built from the run's messages.
 *
 * A run is stored as messages (see store.ts): each workflow message carries the result of one
 * step back to the endpoint, and delivering it runs the *next* step. So a step's name, type and
 * output come from the message that records its result, while its attempts, timing and errors
 * come from the delivery of the message before it ("ran by"). A `context.call` step adds a
 * `call` message (the third-party request) and a `wait` step a `wait` message (its timeout);
 * those fold into the step's row. A step still in progress (sleeping, waiting, being retried,
 * failed) gets a row too, so the page shows where a run is stuck and why.
 */
import { REDACTED, redactBody, redactHeaderLists } from './redact.js'
import type { AttemptLog, MessageRecord, RunRecord } from './store.js'

/** The kinds of step the page distinguishes. @public */
export type StepRowType = 'run' | 'sleep' | 'call' | 'wait' | 'invoke' | 'notify' | 'step'

/** Where a step is. @public */
export type StepRowStatus = 'succeeded' | 'sleeping' | 'waiting' | 'running' | 'retrying' | 'failed' | 'canceled'

/** One failed attempt of a step, with the endpoint's own error text. @public */
export interface StepAttemptError {
  readonly attempt: number
  readonly at: number
  readonly status?: number
  /** The error the step threw (the SDK's `message`), or the response text, or the transport error. */
  readonly error: string
}

/** One step of a run as the dashboard shows it. @public */
export interface StepRow {
  /** The step's position in the run (the SDK's `stepId`). */
  readonly stepId?: number
  readonly name: string
  readonly type: StepRowType
  /** The SDK's own step type (`Run`, `SleepFor`, `Call` …). */
  readonly sdkType?: string
  readonly status: StepRowStatus
  /** Deliveries it took (the attempts of the message whose delivery ran it; a call's own attempts). */
  readonly attempts: number
  /** When the step started, ms since the epoch. */
  readonly startedAt?: number
  /** When it ended (for a sleep: when the sleep is over), ms since the epoch; absent while running. */
  readonly endedAt?: number
  /** What the step was given (a call's request, a sleep's duration, an event id), decoded. */
  readonly input?: unknown
  /** What the step returned, decoded once from the JSON text it travels as. */
  readonly output?: unknown
  /** Headers of the delivery that ran the step. */
  readonly headers: Record<string, string>
  /** Failed attempts, oldest first. */
  readonly errors: StepAttemptError[]
  /** Messages that make up the step (result, call, wait timeout), for the message page. */
  readonly messageIds: string[]
  /** For a step waiting for an event: the event id to notify. */
  readonly eventId?: string
}

const TYPES: Record<string, StepRowType> = { Run: 'run', SleepFor: 'sleep', SleepUntil: 'sleep', Call: 'call', Wait: 'wait', Invoke: 'invoke', Notify: 'notify' }
const decoder = new TextDecoder()

/** JSON text parsed once; text that is not JSON stays text. */
export function decodeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}

function fromBase64(text: string): string | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) return undefined
  const bytes = Buffer.from(text, 'base64')
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    return undefined
  }
}

/** A body field that may itself be JSON text, decoded. */
function decodeBodyField(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || !('body' in value)) return value
  const body = (value as { body: unknown }).body
  return typeof body === 'string' ? { ...value, body: decodeJson(body) } : value
}

/** A step record's `out`, decoded: a wait's event data travels base64, a call's and an invoke's answer body as JSON text. */
function decodeOutput(step: Record<string, unknown>): unknown {
  const out = step.out
  if (step.stepType === 'Wait') {
    const data = typeof out === 'string' ? (fromBase64(out) ?? out) : out
    return { eventData: typeof data === 'string' ? decodeJson(data) : data, timeout: step.waitTimeout === true }
  }
  if (typeof out !== 'string') return out
  const value = decodeJson(out)
  return step.stepType === 'Call' || step.stepType === 'Invoke' ? decodeBodyField(value) : value
}

function inputOf(step: Record<string, unknown>, call: MessageRecord | undefined): unknown {
  switch (step.stepType) {
    case 'SleepFor':
      return { sleepFor: step.sleepFor }
    case 'SleepUntil':
      return { sleepUntil: step.sleepUntil }
    case 'Wait':
      return { eventId: step.waitEventId, ...(step.timeout === undefined ? {} : { timeout: step.timeout }) }
    case 'Call':
      return call ? { method: call.method, url: call.url, body: decodeJson(decoder.decode(call.body)) } : undefined
    default:
      return undefined
  }
}

/** The error text of a failed attempt: the SDK's error message when the answer carries one. */
export function attemptErrorText(entry: AttemptLog): string {
  if (entry.responseBody) {
    const body = decodeJson(entry.responseBody)
    if (body !== null && typeof body === 'object') {
      const { message, error } = body as { message?: unknown; error?: unknown }
      if (typeof message === 'string' && message !== '') return message
      if (typeof error === 'string' && error !== '') return error
    }
    return entry.responseBody.slice(0, 2000)
  }
  return entry.error ?? (entry.status === undefined ? 'no answer' : `HTTP ${entry.status}`)
}

function errorsOf(log: readonly AttemptLog[]): StepAttemptError[] {
  return log
    .filter((entry) => entry.outcome === 'retry' || entry.outcome === 'failed')
    .map((entry) => ({ attempt: entry.attempt, at: entry.at, status: entry.status, error: attemptErrorText(entry) }))
}

/** When an attempt ended: its start plus how long it took. */
function endOf(entry: AttemptLog | undefined): number | undefined {
  return entry === undefined ? undefined : entry.at + (entry.durationMs ?? 0)
}

function firstAttemptAt(message: MessageRecord, log: readonly AttemptLog[]): number {
  return log.find((entry) => entry.outcome !== 'created')?.at ?? message.dueAt
}

function parseStep(message: MessageRecord): Record<string, unknown> {
  const value = decodeJson(decoder.decode(message.body))
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {}
}

/** Inputs of {@link stepRows}. */
export interface StepRowSource {
  readonly run: RunRecord
  /** The run's messages, in any order. */
  readonly messages: readonly MessageRecord[]
  /** Attempt logs by message id. */
  readonly logs: ReadonlyMap<string, readonly AttemptLog[]>
  readonly now: number
}

function headersOf(run: RunRecord, message: MessageRecord | undefined): Record<string, string> {
  return message ? redactHeaderLists({ ...run.forward, ...message.headers }, message.redact, REDACTED) : {}
}

/** The status of a message that is still being delivered, or that ended without a result. */
function inFlightStatus(message: MessageRecord, runState: RunRecord['state']): StepRowStatus {
  if (message.state === 'failed') return 'failed'
  if (message.state === 'canceled' || runState === 'RUN_CANCELED') return 'canceled'
  return message.retried > 0 && message.state === 'pending' ? 'retrying' : 'running'
}

/** One row per step of the run (see the module comment). */
export function stepRows({ run, messages, logs, now }: StepRowSource): StepRow[] {
  const workflow = messages.filter((message) => message.kind === 'workflow').sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0))
  const byStep = (kind: MessageRecord['kind'], stepId: number | undefined) => messages.find((message) => message.kind === kind && message.stepId === stepId)
  const logOf = (message: MessageRecord | undefined) => (message ? (logs.get(message.id) ?? []) : [])
  const rows: StepRow[] = []
  const recorded = new Set<number>()
  workflow.forEach((result, index) => {
    if (index === 0 || result.stepId === undefined || result.stepId === 0) return
    recorded.add(result.stepId)
    const ranBy = workflow[index - 1]
    const step = parseStep(result)
    const type = TYPES[result.stepType ?? ''] ?? 'step'
    const call = type === 'call' ? byStep('call', result.stepId) : undefined
    const wait = type === 'wait' ? byStep('wait', result.stepId) : undefined
    const attemptsOf = call ?? ranBy
    const sleeping = type === 'sleep' && result.state === 'pending' && result.dueAt > now
    rows.push({
      stepId: result.stepId,
      name: result.stepName ?? '?',
      type,
      sdkType: result.stepType,
      status: sleeping ? 'sleeping' : 'succeeded',
      attempts: attemptsOf.retried,
      startedAt: firstAttemptAt(ranBy, logOf(ranBy)),
      endedAt: type === 'sleep' ? result.dueAt : result.createdAt,
      input: inputOf(step, call),
      output: type === 'sleep' ? undefined : decodeOutput(step),
      headers: headersOf(run, ranBy),
      errors: [...errorsOf(logOf(ranBy)), ...errorsOf(logOf(call))],
      messageIds: [result.id, ...(call ? [call.id] : []), ...(wait ? [wait.id] : [])],
    })
  })
  rows.push(...openSteps(run, workflow, messages, recorded, logOf))
  return rows
}

/** Steps without a recorded result: a call in flight, a wait, or the next step being retried or failed. */
function openSteps(
  run: RunRecord,
  workflow: readonly MessageRecord[],
  messages: readonly MessageRecord[],
  recorded: ReadonlySet<number>,
  logOf: (message: MessageRecord | undefined) => readonly AttemptLog[],
): StepRow[] {
  const rows: StepRow[] = []
  const last = workflow[workflow.length - 1]
  for (const message of messages) {
    if ((message.kind !== 'call' && message.kind !== 'wait') || message.stepId === undefined || recorded.has(message.stepId)) continue
    const isWait = message.kind === 'wait'
    const body = isWait ? (decodeJson(decoder.decode(message.body)) as { eventId?: string }) : undefined
    rows.push({
      stepId: message.stepId,
      name: message.stepName ?? '?',
      type: isWait ? 'wait' : 'call',
      sdkType: message.stepType,
      status: isWait && message.state === 'pending' && run.state === 'RUN_STARTED' ? 'waiting' : inFlightStatus(message, run.state),
      attempts: message.retried,
      startedAt: isWait ? message.createdAt : firstAttemptAt(message, logOf(message)),
      input: isWait ? { eventId: body?.eventId, timeoutAt: message.dueAt } : { method: message.method, url: message.url, body: decodeJson(redactBody(decoder.decode(message.body), message.redact)) },
      headers: headersOf(run, last),
      errors: errorsOf(logOf(message)),
      messageIds: [message.id],
      eventId: body?.eventId,
    })
  }
  if (last === undefined || rows.length > 0) return rows
  const log = logOf(last)
  const tried = last.retried > 0 || last.state === 'delivering' || last.state === 'failed'
  if (last.state === 'delivered' || !tried || (run.state !== 'RUN_STARTED' && run.state !== 'RUN_FAILED')) return rows
  // a retryable failure names its step in a header; a non-retryable one (489) does not
  const failing = last.lastResponseHeaders?.['upstash-error-step-name']?.[0]
  const unnamed = last.stepId === undefined || last.stepId === 0 ? '(first step)' : `(step after ${last.stepName ?? '?'})`
  rows.push({
    name: failing ?? unnamed,
    type: 'step',
    status: inFlightStatus(last, run.state),
    attempts: last.retried,
    startedAt: firstAttemptAt(last, log),
    endedAt: last.state === 'failed' ? endOf(log[log.length - 1]) : undefined,
    headers: headersOf(run, last),
    errors: errorsOf(log),
    messageIds: [last.id],
  })
  return rows
}
