/**
 * The step kinds of a workflow body, as {@link LazyStep}s for the executor: what each one's
 * plan and result records hold, what it asks of the queue, and how its recorded result is read
 * back. The record shapes are the protocol's (`@upstash/workflow` 1.x reads the same ones).
 */
import { WorkflowNonRetryableError } from './errors.js'
import type { CallRequest, InvokeRequest, LazyStep, StepSubmission } from './executor.js'
import { decodeBase64Text, parseOut, type StepRecord, type StepType } from './steps.js'

function base(stepName: string, stepType: StepType, stepId: number, concurrent: number): StepRecord {
  return { stepId, stepName, stepType, concurrent }
}

/** `context.run`: runs `fn`; its JSON value is the step's `out`. */
export function runStep(stepName: string, fn: () => unknown, stepType: StepType = 'Run'): LazyStep {
  return {
    stepName,
    stepType,
    async execute(stepId, concurrent) {
      const result = await fn()
      let out: string | undefined
      try {
        out = result === undefined ? undefined : JSON.stringify(result)
      } catch (error) {
        throw new WorkflowNonRetryableError(`step '${stepName}' returned a value that is not JSON-serializable: ${(error as Error).message}`)
      }
      return { kind: 'record', record: { ...base(stepName, stepType, stepId, concurrent), out } }
    },
    parse: (record) => parseOut(record.out),
  }
}

/**
 * `context.sleep` / `context.sleepUntil`. Alone, the result's message waits; in a parallel
 * group the plan's message waits and the result goes on at once, as the protocol has it.
 */
export function sleepStep(stepName: string, wait: { readonly sleepFor: number } | { readonly sleepUntil: number }): LazyStep {
  const stepType: StepType = 'sleepFor' in wait ? 'SleepFor' : 'SleepUntil'
  return {
    stepName,
    stepType,
    planFields: wait,
    async execute(stepId, concurrent): Promise<StepSubmission> {
      const record = { ...base(stepName, stepType, stepId, concurrent), ...wait }
      if (concurrent > 1) return { kind: 'record', record }
      return 'sleepFor' in wait ? { kind: 'record', record, delaySeconds: wait.sleepFor } : { kind: 'record', record, notBefore: wait.sleepUntil }
    },
    parse: () => undefined,
  }
}

/** What `context.call` returns. @public */
export interface CallResponse<TBody = unknown> {
  /** The third party's status; 504 when it did not answer in time, 502 when it could not be reached. */
  readonly status: number
  /** The response body: parsed JSON when the content type is textual and the text is JSON, else the text. */
  readonly body: TBody
  /** The response headers, each with its values. */
  readonly header: Record<string, string[]>
}

const TEXT_TYPES = ['application/json', 'application/xml', 'application/javascript', 'application/x-www-form-urlencoded', 'application/xhtml+xml', 'application/ld+json', 'application/rss+xml', 'application/atom+xml']

function isText(contentType: string | null): boolean {
  if (!contentType) return false
  return contentType.startsWith('text/') || TEXT_TYPES.some((type) => contentType.includes(type))
}

/** Reads a call step's `out`: `{status, body, header}` as JSON text, the body as the third party sent it. */
export function parseCallOut(out: unknown): CallResponse {
  if (typeof out !== 'string') throw new WorkflowNonRetryableError('the recorded result of a call step is not a JSON string')
  const { status, body, header } = JSON.parse(out) as { status: number; body: string; header?: Record<string, string[]> }
  const headers = header ?? {}
  const contentType = Object.entries(headers).find(([name]) => name.toLowerCase() === 'content-type')?.[1]?.[0] ?? null
  return { status, header: headers, body: isText(contentType) ? parseOut(body) : body }
}

/** `context.call`: the queue calls the third party and resumes the run with the outcome. */
export function callStep(stepName: string, call: CallRequest): LazyStep {
  return {
    stepName,
    stepType: 'Call',
    execute: async (stepId, concurrent) => ({ kind: 'call', record: base(stepName, 'Call', stepId, concurrent), call }),
    parse: (record) => parseCallOut(record.out),
  }
}

/** What `context.waitForEvent` returns. @public */
export interface WaitEventResult<TData = unknown> {
  /** The notification's data (parsed JSON when it is JSON); `undefined` after a timeout. */
  readonly eventData: TData | undefined
  /** True when nobody notified the event before the timeout. */
  readonly timeout: boolean
}

/** `context.waitForEvent`: the queue keeps the waiter until a notification or the timeout. */
export function waitStep(stepName: string, eventId: string, timeout: string): LazyStep {
  return {
    stepName,
    stepType: 'Wait',
    planFields: { waitEventId: eventId, timeout } as Partial<StepRecord>,
    execute: async (stepId, concurrent) => ({
      kind: 'wait',
      record: { ...base(stepName, 'Wait', stepId, concurrent), waitEventId: eventId, timeout } as StepRecord,
      eventId,
      timeout,
    }),
    parse(record): WaitEventResult {
      const { out, waitTimeout } = record as StepRecord & { waitTimeout?: boolean }
      const eventData = typeof out === 'string' && out !== '' ? parseOut(decodeBase64Text(out, `the event data of wait step '${stepName}'`)) : undefined
      return { eventData, timeout: waitTimeout === true }
    },
  }
}

/** What `context.invoke` returns. @public */
export interface InvokeResult<TBody = unknown> {
  /** The invoked run's result; when it failed, the error its endpoint answered. */
  readonly body: TBody | undefined
  readonly isFailed: boolean
  readonly isCanceled: boolean
}

/** `context.invoke`: starts another workflow's run; the queue resumes this run when it ends. */
export function invokeStep(stepName: string, invoke: InvokeRequest): LazyStep {
  return {
    stepName,
    stepType: 'Invoke',
    execute: async (stepId, concurrent) => ({ kind: 'invoke', record: base(stepName, 'Invoke', stepId, concurrent), invoke }),
    parse(record): InvokeResult {
      if (typeof record.out !== 'string') throw new WorkflowNonRetryableError('the recorded result of an invoke step is not a JSON string')
      const { body, isFailed, isCanceled } = JSON.parse(record.out) as { body?: unknown; isFailed?: boolean; isCanceled?: boolean }
      return { body: parseOut(body), isFailed: isFailed === true, isCanceled: isCanceled === true }
    },
  }
}
