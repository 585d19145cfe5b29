/**
 * The headers `serve()` puts on the messages it schedules, the same set `@upstash/workflow`
 * sends, so the hosted queue and the restis queue treat both alike.
 */
import {
  CALL_TYPE_HEADER,
  DEFAULT_RETRIES,
  INVOKE_COUNT_HEADER,
  FAILURE_CALLBACK_HEADER,
  FAILURE_CALLBACK_PREFIX,
  FAILURE_CALLBACK_URL_HEADER,
  FAILURE_HEADER,
  FEATURE_SET,
  FEATURE_SET_HEADER,
  FORWARD_PREFIX,
  INIT_HEADER,
  METHOD_HEADER,
  PROTOCOL_VERSION,
  PROTOCOL_VERSION_HEADER,
  RETRIES_HEADER,
  RUN_ID_HEADER,
  WORKFLOW_URL_HEADER,
} from './constants.js'

/** Request headers never forwarded to later steps: transport, proxies, queue headers, credentials. */
const NOT_FORWARDED = new Set([
  'host',
  'connection',
  'keep-alive',
  'content-length',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'expect',
  'accept-encoding',
  'authorization',
  'cookie',
  'proxy-authorization',
  'cdn-loop',
  'cf-connecting-ip',
  'cf-ray',
  'cf-ew-via',
  'render-proxy-ttl',
])

function isForwardable(name: string): boolean {
  const lower = name.toLowerCase()
  return !(
    NOT_FORWARDED.has(lower) ||
    lower.startsWith('upstash-') ||
    lower.startsWith('x-forwarded-') ||
    lower.startsWith('x-vercel-') ||
    lower === 'content-type'
  )
}

/** The start request's headers that later steps see in `context.headers`. */
export function userHeaders(headers: Headers): Headers {
  const kept = new Headers()
  headers.forEach((value, name) => {
    if (isForwardable(name)) kept.set(name, value)
  })
  return kept
}

/**
 * The headers a step delivery carries that are the user's (what `context.headers` shows): no
 * queue headers, no signature, no transport headers. `Upstash-Label` stays.
 */
export function contextHeaders(headers: Headers): Headers {
  const kept = new Headers()
  headers.forEach((value, name) => {
    if (isForwardable(name) || name.toLowerCase() === 'upstash-label' || name.toLowerCase() === 'content-type') kept.set(name, value)
  })
  return kept
}

function base(runId: string, url: string, init: boolean): Record<string, string> {
  return {
    [INIT_HEADER]: init ? 'true' : 'false',
    [RUN_ID_HEADER]: runId,
    [WORKFLOW_URL_HEADER]: url,
    [FEATURE_SET_HEADER]: FEATURE_SET,
    [PROTOCOL_VERSION_HEADER]: PROTOCOL_VERSION,
    [`${FORWARD_PREFIX}${PROTOCOL_VERSION_HEADER}`]: PROTOCOL_VERSION,
    [METHOD_HEADER]: 'POST',
  }
}

/** Options of {@link initMessageHeaders}. */
export interface InitHeaderOptions {
  readonly runId: string
  readonly url: string
  readonly retries?: number
  /** Where the queue calls the failure callback (the endpoint itself when a failure function is set). */
  readonly failureUrl?: string
  /** User headers to forward to every step. */
  readonly forward?: Headers
  readonly contentType?: string | null
}

/** Headers of the message that creates a run. */
export function initMessageHeaders(options: InitHeaderOptions): Record<string, string> {
  const headers = base(options.runId, options.url, true)
  headers['content-type'] = options.contentType || 'application/json'
  const retries = options.retries ?? DEFAULT_RETRIES
  if (retries !== DEFAULT_RETRIES) headers[RETRIES_HEADER] = String(retries)
  options.forward?.forEach((value, name) => {
    headers[`${FORWARD_PREFIX}${name}`] = value
  })
  if (options.failureUrl) {
    headers[FAILURE_CALLBACK_URL_HEADER] = options.failureUrl
    const failure: Record<string, string> = {
      [`Forward-${FAILURE_HEADER}`]: 'true',
      [`Forward-${FAILURE_CALLBACK_HEADER}`]: 'true',
      [`Forward-${PROTOCOL_VERSION_HEADER}`]: PROTOCOL_VERSION,
      'Workflow-Runid': options.runId,
      'Workflow-Init': 'false',
      'Workflow-Url': options.url,
      'Workflow-Calltype': 'failureCall',
      'Feature-Set': FEATURE_SET,
    }
    if (retries !== DEFAULT_RETRIES) failure.Retries = String(retries)
    options.forward?.forEach((value, name) => {
      failure[`Forward-${name}`] = value
    })
    for (const [name, value] of Object.entries(failure)) headers[`${FAILURE_CALLBACK_PREFIX}${name}`] = value
  }
  return headers
}

/** Headers of a step message (a step's result going back to the endpoint). */
export function stepMessageHeaders(runId: string, url: string): Record<string, string> {
  return { ...base(runId, url, false), 'content-type': 'application/json' }
}

/** The header marking a start message as an invocation by another run. */
export const INVOKE_HEADER = 'Upstash-Workflow-Invoke'

/** Options of {@link callMessageHeaders}. */
export interface CallHeaderOptions {
  readonly runId: string
  /** The workflow URL: the callback goes there. */
  readonly url: string
  readonly stepId: number
  readonly stepName: string
  readonly concurrent: number
  readonly method: string
  readonly retries: number
  readonly timeout?: string
  /** Headers the third party receives. */
  readonly callHeaders: Readonly<Record<string, string>>
}

/**
 * Headers of a third-party call (`Upstash-Workflow-CallType: toCallback`): the queue calls the
 * destination with the `Upstash-Forward-*` headers and delivers the outcome to
 * `Upstash-Callback` with the `Upstash-Callback-*` headers, which name the call step.
 */
export function callMessageHeaders(options: CallHeaderOptions): Record<string, string> {
  const callHeaders = new Headers(options.callHeaders)
  const contentType = callHeaders.get('content-type') ?? 'application/json'
  const headers: Record<string, string> = {
    [INIT_HEADER]: 'false',
    [RUN_ID_HEADER]: options.runId,
    [WORKFLOW_URL_HEADER]: options.url,
    [FEATURE_SET_HEADER]: 'WF_NoDelete,InitialBody',
    [PROTOCOL_VERSION_HEADER]: PROTOCOL_VERSION,
    [METHOD_HEADER]: options.method,
    [RETRIES_HEADER]: String(options.retries),
    'content-type': contentType,
    [CALL_TYPE_HEADER]: 'toCallback',
    'Upstash-Callback': options.url,
    'Upstash-Callback-Workflow-RunId': options.runId,
    'Upstash-Callback-Workflow-CallType': 'fromCallback',
    'Upstash-Callback-Workflow-Init': 'false',
    'Upstash-Callback-Workflow-Url': options.url,
    'Upstash-Callback-Feature-Set': FEATURE_SET,
    'Upstash-Callback-Forward-Upstash-Workflow-Callback': 'true',
    'Upstash-Callback-Forward-Upstash-Workflow-StepId': String(options.stepId),
    'Upstash-Callback-Forward-Upstash-Workflow-StepName': options.stepName,
    'Upstash-Callback-Forward-Upstash-Workflow-StepType': 'Call',
    'Upstash-Callback-Forward-Upstash-Workflow-Concurrent': String(options.concurrent),
    'Upstash-Callback-Forward-Upstash-Workflow-ContentType': contentType,
  }
  if (options.timeout !== undefined) headers['Upstash-Timeout'] = options.timeout
  callHeaders.forEach((value, name) => {
    if (name !== 'content-type') headers[`${FORWARD_PREFIX}${name}`] = value
  })
  return headers
}

/** Headers of the start message of an invoked run: a run start marked as an invocation. */
export function invokeMessageHeaders(options: InitHeaderOptions & { readonly invokeCount: number }): Record<string, string> {
  const headers = initMessageHeaders(options)
  headers[INVOKE_HEADER] = 'true'
  headers[`${FORWARD_PREFIX}${INVOKE_COUNT_HEADER}`] = String(options.invokeCount)
  return headers
}
