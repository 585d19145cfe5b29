/**
 * Turning API requests (`POST /v2/publish/<url>`, entries of `POST /v2/batch`) into stored
 * messages and runs, and building failure callbacks. Header handling follows the hosted queue:
 * `Upstash-Forward-X` reaches the destination as `X`, `Upstash-*` configure the message, the
 * first message of a run (`Upstash-Workflow-Init: true`) carries the run's settings.
 */
import {
  DEFAULT_RETRIES,
  DELAY_HEADER,
  FAILURE_CALLBACK_PREFIX,
  FAILURE_CALLBACK_URL_HEADER,
  FORWARD_PREFIX,
  INIT_HEADER,
  LABEL_HEADER,
  METHOD_HEADER,
  NOT_BEFORE_HEADER,
  RETRIES_HEADER,
  RUN_ID_HEADER,
} from '../workflow/constants.js'
import { callKey, callMessage, callSettingsOf, isCallRequest, TIMEOUT_HEADER } from './call.js'
import { unwrapInvoke } from './invoke.js'
import { validateStepRecord } from '../workflow/steps.js'
import { MalformedDeliveryError } from '../workflow/errors.js'
import { publishOptionsOf } from './publish-options.js'
import { redactionOf } from './redact.js'
import { StoreError, type MessageRecord, type NewMessage, type NewRun, type RunRecord } from './store.js'
import { sourceHeaderOf } from './callbacks.js'

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'])
const RUN_ID = /^[A-Za-z0-9_.:-]{1,256}$/
const MAX_RETRIES = 100

/** What an incoming message becomes. */
export type MessagePlan =
  | { readonly kind: 'init'; readonly run: NewRun; readonly message: NewMessage }
  | { readonly kind: 'step'; readonly runId: string; readonly stepKey: string; readonly stepJson: string; readonly message: NewMessage }
  | { readonly kind: 'publish'; readonly message: NewMessage; readonly dedupId?: string }
  | { readonly kind: 'call'; readonly runId: string; readonly stepKey: string; readonly message: NewMessage }

function bad(message: string): never {
  throw new StoreError(message, 400)
}

/** Milliseconds in a delay such as `10s`, `1m30s`, `2h`, `1d`, `500ms` (a bare number is seconds). */
export function parseDelay(value: string): number {
  const trimmed = value.trim()
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000
  const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }
  let total = 0
  let rest = trimmed
  const part = /^(\d+)(ms|s|m|h|d)/
  if (rest === '') bad(`invalid ${DELAY_HEADER}: empty`)
  while (rest !== '') {
    const match = part.exec(rest)
    if (!match) bad(`invalid ${DELAY_HEADER} ${JSON.stringify(value)}: use forms like 10s, 5m, 1h30m, 2d`)
    total += Number(match[1]) * units[match[2]]
    rest = rest.slice(match[0].length)
  }
  return total
}

function dueTime(headers: Headers, now: number): number {
  const notBefore = headers.get(NOT_BEFORE_HEADER)
  if (notBefore !== null) {
    const seconds = Number(notBefore)
    if (!Number.isFinite(seconds) || seconds < 0) bad(`invalid ${NOT_BEFORE_HEADER} ${JSON.stringify(notBefore)}: unix seconds expected`)
    return Math.max(now, seconds * 1000)
  }
  const delay = headers.get(DELAY_HEADER)
  return delay === null ? now : now + parseDelay(delay)
}

/** `Upstash-Timeout` of a published message (`10s`, `2m`, or seconds), ms; positive. */
function timeoutOf(headers: Headers): number | undefined {
  const value = headers.get(TIMEOUT_HEADER)
  if (value === null) return undefined
  let ms: number
  try {
    ms = parseDelay(value)
  } catch {
    ms = 0
  }
  if (ms <= 0) bad(`invalid ${TIMEOUT_HEADER} ${JSON.stringify(value)}: a positive duration such as 10s, 2m, or seconds`)
  return ms
}

/**
 * Refuses (400) a message whose `Upstash-Timeout` is longer than the service's delivery timeout:
 * the attempt would outlive its lease, and another process could deliver it meanwhile.
 */
export function checkMessageTimeout(message: NewMessage, limitMs: number): void {
  if (message.timeoutMs !== undefined && message.timeoutMs > limitMs) {
    bad(`${TIMEOUT_HEADER} of ${message.timeoutMs} ms is longer than this queue's delivery timeout (${limitMs} ms): start the queue with a longer deliveryTimeout`)
  }
}

function retriesOf(headers: Headers, fallback: number): number {
  const value = headers.get(RETRIES_HEADER)
  if (value === null) return fallback
  const retries = Number(value)
  if (!Number.isInteger(retries) || retries < 0 || retries > MAX_RETRIES) bad(`invalid ${RETRIES_HEADER} ${JSON.stringify(value)}: an integer from 0 to ${MAX_RETRIES}`)
  return retries
}

function destinationOf(destination: string): string {
  let url: URL
  try {
    url = new URL(destination)
  } catch {
    return bad(`invalid destination ${JSON.stringify(destination)}: an absolute http(s) URL is required`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') bad(`invalid destination ${JSON.stringify(destination)}: only http and https are delivered`)
  return destination
}

/** Transport headers a forwarded header may not set: the queue's HTTP client owns them. */
const TRANSPORT = new Set([
  'host',
  'connection',
  'keep-alive',
  'content-length',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'expect',
  'proxy-connection',
  // set by the queue on every attempt; a forwarded copy (the SDK forwards the start request's) is dropped
  'upstash-signature',
  'upstash-message-id',
  'upstash-retried',
])

/**
 * The headers the destination receives: forwarded ones (prefix removed) and the content type.
 * Transport headers (`host`, `content-length`, `connection` …) and the per-attempt queue headers
 * (`Upstash-Signature`, `Upstash-Message-Id`, `Upstash-Retried`) are dropped: the SDK forwards
 * every header of the start request, and these describe that request, not the delivery.
 */
export function destinationHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {}
  const prefix = FORWARD_PREFIX.toLowerCase()
  headers.forEach((value, name) => {
    if (name.startsWith(prefix)) {
      const target = name.slice(prefix.length)
      if (target !== '' && !TRANSPORT.has(target)) out[target] = value
    } else if (name === 'content-type') out[name] = value
  })
  return out
}

function failureHeadersOf(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {}
  const prefix = FAILURE_CALLBACK_PREFIX.toLowerCase()
  headers.forEach((value, name) => {
    if (name.startsWith(prefix)) out[name.slice(prefix.length)] = value
  })
  return out
}

/**
 * Classifies and validates one incoming message. Throws {@link StoreError} (400) with the
 * reason for anything the queue cannot deliver.
 */
export function planMessage(destination: string, headers: Headers, body: Uint8Array, defaultRetries: number, now = Date.now()): MessagePlan {
  const url = destinationOf(destination)
  const method = (headers.get(METHOD_HEADER) ?? 'POST').toUpperCase()
  if (!METHODS.has(method)) bad(`invalid ${METHOD_HEADER} ${JSON.stringify(method)}`)
  const dueAt = dueTime(headers, now)
  const runId = headers.get(RUN_ID_HEADER)
  const init = headers.get(INIT_HEADER)
  const failureUrl = headers.get(FAILURE_CALLBACK_URL_HEADER) ?? undefined
  if (failureUrl !== undefined) destinationOf(failureUrl)
  if (runId !== null && init !== null) {
    if (!RUN_ID.test(runId)) bad(`invalid ${RUN_ID_HEADER} ${JSON.stringify(runId)}`)
    if (isCallRequest(headers)) {
      const call = callSettingsOf(headers, parseDelay)
      const retries = retriesOf(headers, 0)
      const message = callMessage(url, method, destinationHeaders(headers), body, retries, call, call.callbackHeaders['upstash-workflow-stepname'])
      return { kind: 'call', runId, stepKey: callKey(call.stepId), message }
    }
    if (init === 'true') {
      const invoked = unwrapInvoke(headers, body)
      if (invoked) body = invoked.payload
      const retries = retriesOf(headers, DEFAULT_RETRIES)
      const forward = destinationHeaders(headers)
      delete forward['content-type']
      const { dedupId: _none, ...options } = publishOptionsOf(url, headers, forward, body, true)
      return {
        kind: 'init',
        run: {
          id: runId,
          url,
          retries,
          failureUrl,
          failureHeaders: failureHeadersOf(headers),
          forward,
          label: headers.get(LABEL_HEADER) ?? undefined,
          payload: body,
          invoker: invoked ? JSON.stringify(invoked.invoker) : undefined,
        },
        message: {
          kind: 'workflow',
          url,
          method,
          headers: destinationHeaders(headers),
          body,
          retries,
          dueAt,
          stepId: 0,
          stepName: 'init',
          stepType: 'Initial',
          expect: ['s:1', 'p:1'],
          timeoutMs: timeoutOf(headers),
          ...options,
        },
      }
    }
    if (init !== 'false') bad(`invalid ${INIT_HEADER} ${JSON.stringify(init)}: true or false`)
    const stepJson = Buffer.from(body).toString('utf8')
    let parsed: unknown
    try {
      parsed = JSON.parse(stepJson)
    } catch {
      bad('a workflow step message must have a JSON step record as its body')
    }
    let step
    try {
      step = validateStepRecord(parsed, 0)
    } catch (error) {
      if (error instanceof MalformedDeliveryError) bad(error.message.replace('malformed workflow delivery: step record 0', 'invalid workflow step'))
      throw error
    }
    const { dedupId: _none, ...options } = publishOptionsOf(url, headers, {}, body, true)
    const plan = step.stepId === 0
    const stepKey = plan ? `p:${step.targetStep}` : `s:${step.stepId}`
    const expect = plan ? [`s:${step.targetStep}`] : step.concurrent === 1 ? [`s:${step.stepId + 1}`, `p:${step.stepId + 1}`] : []
    return {
      kind: 'step',
      runId,
      stepKey,
      stepJson,
      message: {
        kind: 'workflow',
        url,
        method,
        headers: destinationHeaders(headers),
        body,
        // the run's retry setting applies unless the message names its own
        retries: headers.has(RETRIES_HEADER) ? retriesOf(headers, DEFAULT_RETRIES) : -1,
        dueAt,
        stepId: plan ? step.targetStep : step.stepId,
        stepName: step.stepName,
        stepType: plan ? `${step.stepType} (plan)` : step.stepType,
        expect,
        timeoutMs: timeoutOf(headers),
        ...options,
      },
    }
  }
  const failureHeaders = failureHeadersOf(headers)
  const forwarded = destinationHeaders(headers)
  const { dedupId, ...options } = publishOptionsOf(url, headers, forwarded, body, false)
  return {
    kind: 'publish',
    dedupId,
    message: {
      kind: 'publish',
      url,
      method,
      headers: destinationHeaders(headers),
      body,
      retries: retriesOf(headers, defaultRetries),
      dueAt,
      failureUrl,
      failureHeaders: failureUrl ? failureHeaders : undefined,
      timeoutMs: timeoutOf(headers),
      redact: redactionOf(headers),
      ...options,
    },
  }
}

/** What went wrong with the last attempt of a failed message. */
export interface FailedAttempt {
  readonly status: number
  readonly header: Record<string, string[]>
  readonly body: string
  readonly retried: number
  readonly reason: string
}

/** The body of a failure callback, in the hosted queue's shape. */
export function failureCallbackBody(message: MessageRecord, run: RunRecord | undefined, failed: FailedAttempt): string {
  return JSON.stringify({
    status: failed.status,
    header: failed.header,
    body: Buffer.from(failed.body, 'utf8').toString('base64'),
    retried: failed.retried,
    maxRetries: message.retries,
    dlqId: message.id,
    sourceMessageId: message.id,
    topicName: '',
    endpointName: '',
    url: message.url,
    method: message.method,
    sourceHeader: sourceHeaderOf(message),
    sourceBody: run ? run.sourceBody : Buffer.from(message.body).toString('base64'),
    notBefore: 0,
    createdAt: message.createdAt,
    scheduleId: '',
    callerIP: '',
    failReason: failed.reason,
    ...(run ? { workflowRunId: run.id, workflowUrl: run.url, workflowCreatedAt: run.createdAt } : {}),
  })
}

/**
 * The failure-callback message of a failed run (or of a failed plain message with a failure
 * URL). A run without an explicit failure URL gets its callback at the workflow URL itself,
 * marked `Upstash-Workflow-Is-Failure: true`: endpoints without a failure function answer 200
 * (`Upstash-Workflow-Failure-Callback-Notfound`).
 */
export function failureCallbackMessage(run: RunRecord | undefined, body: string, plain?: MessageRecord): NewMessage | undefined {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  let url: string
  let retries: number
  if (run) {
    url = run.failureUrl ?? run.url
    retries = run.retries
    Object.assign(headers, run.forward)
    if (run.failureUrl) {
      for (const [name, value] of Object.entries(run.failureHeaders)) {
        const lower = name.toLowerCase()
        if (lower.startsWith('forward-')) headers[lower.slice('forward-'.length)] = value
        else if (lower.startsWith('workflow-')) headers[`upstash-${lower}`] = value
        else if (lower === 'retries') retries = Number(value) || retries
      }
    } else {
      headers['upstash-workflow-is-failure'] = 'true'
      headers['upstash-workflow-failure-callback'] = 'true'
      headers['upstash-workflow-sdk-version'] = '1'
      headers['upstash-workflow-url'] = run.url
      headers['upstash-workflow-init'] = 'false'
      headers['upstash-workflow-calltype'] = 'failureCall'
    }
    headers['upstash-workflow-runid'] = run.id
  } else {
    if (!plain?.failureUrl) return undefined
    url = plain.failureUrl
    retries = plain.retries
    for (const [name, value] of Object.entries(plain.failureHeaders ?? {})) {
      const lower = name.toLowerCase()
      if (lower.startsWith('forward-')) headers[lower.slice('forward-'.length)] = value
      else if (lower === 'retries') retries = Number(value) || retries
    }
  }
  return {
    kind: 'failure',
    url,
    method: 'POST',
    headers,
    body: Buffer.from(body, 'utf8'),
    retries,
    dueAt: Date.now(),
    stepName: 'failure callback',
    stepType: 'Failure',
  }
}
