/**
 * Third-party calls of a workflow (`context.call`): the SDK submits one batch entry addressed to
 * the third party, marked `Upstash-Workflow-CallType: toCallback`, with `Upstash-Callback` (the
 * workflow URL) and `Upstash-Callback-*` headers that configure the callback. The queue calls the
 * third party (its own retries and `Upstash-Timeout`), then delivers one callback to the workflow
 * with the outcome: `{status, header, body (base64), retried, maxRetries, …}`. The SDK turns that
 * into the call step's result and publishes it as an ordinary step of the run.
 *
 * A call that never got an answer (timeout, refused connection) reaches the workflow as a
 * gateway answer: 504 for a timeout, 502 for any other transport failure (RFC 9110 §15.6.5 and
 * §15.6.3), with the error text as the body, so `context.call` always returns.
 */
import { CALL_TYPE_HEADER, INIT_HEADER, RUN_ID_HEADER } from '../workflow/constants.js'
import { StoreError, type MessageRecord, type NewMessage } from './store.js'
import { sourceHeaderOf } from './callbacks.js'

/** The header naming the callback URL. */
export const CALLBACK_HEADER = 'Upstash-Callback'
/** The header bounding one attempt of the call. */
export const TIMEOUT_HEADER = 'Upstash-Timeout'

/** How the callback of a call is delivered (kept on the call's message). */
export interface CallSettings {
  /** Where the outcome goes (the workflow URL). */
  readonly callbackUrl: string
  /** Headers the callback delivery carries. */
  readonly callbackHeaders: Record<string, string>
  /** The step the call is, for deduplication (`c:<stepId>`). */
  readonly stepId: number
  /** Bound of one attempt, ms (`Upstash-Timeout`); the service's delivery timeout otherwise. */
  readonly timeoutMs?: number
}

/**
 * The status of a refused message that belongs to a running workflow (422, RFC 9110 §15.5.21).
 * The SDKs read a 400 answer to a step's submission as "the run was cancelled" and stop without
 * a trace; any other error fails the delivery, so the reason reaches the DLQ and the failure
 * function.
 */
export const IN_RUN_REFUSAL = 422

/** `error` as the API should answer it: a 400 refusal of a running workflow's message becomes 422. */
export function refusalFor(headers: Headers, error: StoreError): StoreError {
  // a step of a running run, or the start of a child run a parent's invoke step submits
  const inRun = headers.get(INIT_HEADER) === 'false' || headers.get('Upstash-Workflow-Invoke') === 'true'
  if (error.status !== 400 || headers.get(RUN_ID_HEADER) === null || !inRun) return error
  return new StoreError(error.message, IN_RUN_REFUSAL)
}

/** Whether a batch entry is a workflow's third-party call. */
export function isCallRequest(headers: Headers): boolean {
  return headers.get(CALL_TYPE_HEADER) === 'toCallback'
}

/**
 * The headers the callback delivery carries, from the `Upstash-Callback-*` headers of the call:
 * `Upstash-Callback-Forward-X` arrives as `X`, any other `Upstash-Callback-Y` (the workflow's run
 * id, URL, call type, feature set) as `Upstash-Y`, as a workflow message's own headers arrive.
 * The callback's failure-callback and retry settings are not headers of the delivery.
 */
export function callbackHeadersOf(headers: Headers): Record<string, string> {
  const out: Record<string, string> = { 'content-type': 'application/json' }
  const prefix = `${CALLBACK_HEADER.toLowerCase()}-`
  const forward = 'forward-'
  headers.forEach((value, name) => {
    if (!name.startsWith(prefix)) return
    const rest = name.slice(prefix.length)
    if (rest.startsWith(forward)) out[rest.slice(forward.length)] = value
    else if (!rest.startsWith('failure-callback') && rest !== 'retries' && rest !== 'retry-delay') out[`upstash-${rest}`] = value
  })
  return out
}

/**
 * The call settings of a `toCallback` batch entry. Throws {@link StoreError} (400) when the entry
 * lacks what the callback needs.
 */
export function callSettingsOf(headers: Headers, parseDelay: (value: string) => number): CallSettings {
  const callbackUrl = headers.get(CALLBACK_HEADER)
  if (callbackUrl === null) throw new StoreError(`a third-party call (${CALL_TYPE_HEADER}: toCallback) needs an ${CALLBACK_HEADER} URL`, 400)
  const callbackHeaders = callbackHeadersOf(headers)
  const stepId = Number(callbackHeaders['upstash-workflow-stepid'])
  if (!Number.isInteger(stepId) || stepId < 1) throw new StoreError('a third-party call needs Upstash-Callback-Forward-Upstash-Workflow-StepId (the step it is)', 400)
  const timeout = headers.get(TIMEOUT_HEADER)
  let timeoutMs: number | undefined
  if (timeout !== null) timeoutMs = parseDelay(timeout)
  return { callbackUrl, callbackHeaders, stepId, timeoutMs }
}

/** What the call's last attempt got. */
export interface CallOutcome {
  /** The third party's status, or undefined when no answer came. */
  readonly status?: number
  readonly header: Record<string, string[]>
  readonly body: string
  /** The transport error (timeout, refused connection) when no answer came. */
  readonly error?: string
  readonly timedOut: boolean
}

/**
 * Refuses (400) a call whose `Upstash-Timeout` is longer than the service's delivery timeout:
 * a longer attempt would outlive the lease that keeps other processes from delivering it too.
 */
export function checkCallTimeout(call: CallSettings, limitMs: number): void {
  if (call.timeoutMs !== undefined && call.timeoutMs > limitMs) {
    throw new StoreError(`${TIMEOUT_HEADER} of ${call.timeoutMs} ms is longer than this queue's delivery timeout (${limitMs} ms): start the queue with a longer deliveryTimeout`, IN_RUN_REFUSAL)
  }
}

/** The callback body, in the hosted queue's shape; the final outcome has `retried` = `maxRetries`. */
export function callbackBody(message: MessageRecord, outcome: CallOutcome): string {
  const status = outcome.status ?? (outcome.timedOut ? 504 : 502)
  const body = outcome.status === undefined ? (outcome.error ?? 'no response') : outcome.body
  return JSON.stringify({
    status,
    header: outcome.header,
    body: Buffer.from(body, 'utf8').toString('base64'),
    retried: message.retries,
    maxRetries: message.retries,
    sourceMessageId: message.id,
    url: message.url,
    method: message.method,
    sourceHeader: sourceHeaderOf(message),
    sourceBody: Buffer.from(message.body).toString('base64'),
    ...(message.runId ? { workflowRunId: message.runId } : {}),
  })
}

/** The callback message of a finished call. */
export function callbackMessage(message: MessageRecord, call: CallSettings, outcome: CallOutcome, retries: number): NewMessage {
  return {
    kind: 'callback',
    url: call.callbackUrl,
    method: 'POST',
    headers: call.callbackHeaders,
    body: Buffer.from(callbackBody(message, outcome), 'utf8'),
    retries,
    dueAt: Date.now(),
    stepId: call.stepId,
    stepName: call.callbackHeaders['upstash-workflow-stepname'],
    stepType: 'Call (callback)',
  }
}

/** The step key recording that a run's call was submitted, and that its callback was scheduled. */
export const callKey = (stepId: number): string => `c:${stepId}`
export const callbackKey = (stepId: number): string => `cb:${stepId}`

/** The call's message (to the third party), from a `toCallback` batch entry. */
export function callMessage(url: string, method: string, headers: Record<string, string>, body: Uint8Array, retries: number, call: CallSettings, stepName: string | undefined): NewMessage {
  return { kind: 'call', url, method, headers, body, retries, dueAt: Date.now(), stepId: call.stepId, stepName, stepType: 'Call', call }
}
