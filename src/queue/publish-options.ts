/**
 * The per-message options of a publish beyond destination, method, delay and retries:
 * `Upstash-Retry-Delay`, `Upstash-Callback` (+ `Upstash-Callback-*`), deduplication and flow
 * control. Each is validated when the message arrives, so a value the queue cannot honour is a
 * 400 with the reason (the SDKs surface it as a `QstashError`), never an option silently dropped.
 */
import { CONTENT_BASED_DEDUPLICATION_HEADER, DEDUPLICATION_ID_HEADER, deduplicationIdOf } from './dedup.js'
import { parseFlowControl, FLOW_CONTROL_KEY_HEADER, FLOW_CONTROL_VALUE_HEADER, type FlowControl } from './flow-control.js'
import { parseRetryDelay, RetryDelayError } from './retry-delay.js'
import { StoreError, type NewMessage, type QueueStore } from './store.js'

export const RETRY_DELAY_HEADER = 'Upstash-Retry-Delay'
export const CALLBACK_HEADER = 'Upstash-Callback'
const CALLBACK_PREFIX = 'upstash-callback-'
const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'])

/** What the options add to a stored message. */
export interface PublishOptions {
  readonly retryDelay?: string
  readonly callbackUrl?: string
  readonly callbackHeaders?: Record<string, string>
  readonly flowControl?: FlowControl
  /** Set only for plain publishes (workflow messages are deduplicated by run and step). */
  readonly dedupId?: string
}

function bad(message: string): never {
  throw new StoreError(message, 400)
}

function httpUrl(value: string, header: string): string {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return bad(`invalid ${header} ${JSON.stringify(value)}: an absolute http(s) URL is required`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') bad(`invalid ${header} ${JSON.stringify(value)}: only http and https are delivered`)
  return value
}

function retryDelayOf(headers: Headers): string | undefined {
  const value = headers.get(RETRY_DELAY_HEADER)
  if (value === null) return undefined
  try {
    parseRetryDelay(value)
  } catch (cause) {
    if (cause instanceof RetryDelayError) bad(`invalid ${RETRY_DELAY_HEADER} ${JSON.stringify(value)}: ${cause.message}`)
    throw cause
  }
  return value
}

/** `Upstash-Callback-Forward-X`, `-Retries`, `-Method` are honoured; any other `Upstash-Callback-*` is refused. */
function callbackHeadersOf(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {}
  headers.forEach((value, name) => {
    if (!name.startsWith(CALLBACK_PREFIX)) return
    const rest = name.slice(CALLBACK_PREFIX.length)
    if (rest === 'retries' && !(/^\d+$/.test(value) && Number(value) <= 100)) bad(`invalid Upstash-Callback-Retries ${JSON.stringify(value)}: an integer from 0 to 100`)
    if (rest === 'method' && !METHODS.has(value.toUpperCase())) bad(`invalid Upstash-Callback-Method ${JSON.stringify(value)}`)
    if (rest.startsWith('forward-') || rest === 'retries' || rest === 'method') out[rest] = value
    else bad(`Upstash-Callback-${rest} is not supported by the restis queue service (supported: Upstash-Callback-Forward-*, -Retries, -Method)`)
  })
  return out
}

/**
 * Reads the options of one incoming message. `workflow` is true for workflow messages (start and
 * steps), where deduplication headers are refused: the queue deduplicates those by run id and
 * step already.
 */
export function publishOptionsOf(destination: string, headers: Headers, forwarded: Record<string, string>, body: Uint8Array, workflow: boolean): PublishOptions {
  const callback = headers.get(CALLBACK_HEADER)
  const callbackHeaders = callbackHeadersOf(headers)
  if (callback === null && Object.keys(callbackHeaders).length > 0) bad(`Upstash-Callback-* headers need an ${CALLBACK_HEADER} URL`)
  if (workflow && (headers.has(DEDUPLICATION_ID_HEADER) || headers.has(CONTENT_BASED_DEDUPLICATION_HEADER))) {
    bad(`${DEDUPLICATION_ID_HEADER} and ${CONTENT_BASED_DEDUPLICATION_HEADER} apply to published messages; workflow messages are deduplicated by run id and step`)
  }
  const flowKey = headers.get(FLOW_CONTROL_KEY_HEADER)
  const flowValue = headers.get(FLOW_CONTROL_VALUE_HEADER)
  return {
    retryDelay: retryDelayOf(headers),
    ...(callback === null ? {} : { callbackUrl: httpUrl(callback, CALLBACK_HEADER), callbackHeaders }),
    ...(flowKey === null && flowValue === null ? {} : { flowControl: parseFlowControl(flowKey, flowValue) }),
    ...(workflow ? {} : { dedupId: deduplicationIdOf(destination, headers, forwarded, body) }),
  }
}

/**
 * A step message without its own flow control or retry delay takes the run's, from its start
 * message: a run triggered with `flowControl` / `retryDelay` (the SDK's `trigger`, where the
 * hosted queue keeps them for the whole run) is held to them at every step.
 */
export async function inheritRunOptions(store: QueueStore, runId: string, message: NewMessage): Promise<NewMessage> {
  if (message.flowControl !== undefined && message.retryDelay !== undefined) return message
  const run = await store.loadRun(runId)
  const init = run ? await store.loadMessage(run.initMessageId) : undefined
  if (!init) return message
  return { ...message, flowControl: message.flowControl ?? init.flowControl, retryDelay: message.retryDelay ?? init.retryDelay }
}
