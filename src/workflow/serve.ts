/**
 * `serve()`: turns a workflow body into an HTTP endpoint that speaks the queue's wire protocol.
 *
 * One endpoint answers three kinds of POST:
 * - a start request (no `Upstash-Workflow-Sdk-Version` header): validates the payload, asks the
 *   queue to create the run, answers `200 {"workflowRunId":"wfr_…"}`;
 * - a step delivery from the queue: replays the recorded steps, runs the next one, sends its
 *   result to the queue (`POST /v2/batch`) or ends the run (`DELETE /v2/workflows/runs/<id>`);
 * - a failure callback (`Upstash-Workflow-Is-Failure: true`): calls `failureFunction`.
 *
 * With signing keys configured every request must carry a valid `Upstash-Signature` (401
 * otherwise), so a run can only be started through the queue (`POST /v2/publish/<url>` or
 * {@link WorkflowClient.trigger}).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { CONTENT_TOO_LARGE, fetchHeaders, type HttpService } from '../adapters/http.js'
import { fetchListener } from '../adapters/fetch-listener.js'
import { nodeListener } from '../adapters/node-listener.js'
import type { Static, TSchema } from 'typebox'
import Value from 'typebox/value'
import { createQueueClient, newRunId, type QueueClient } from './client.js'
import {
  CREATED_AT_HEADER,
  DEFAULT_QUEUE_URL,
  DEFAULT_RETRIES,
  ERROR_STEP_NAME_HEADER,
  FAILURE_CALLBACK_HEADER,
  FAILURE_HEADER,
  FAILURE_NOT_FOUND_HEADER,
  INVOKE_COUNT_HEADER,
  MESSAGE_ID_HEADER,
  NON_RETRYABLE_HEADER,
  NON_RETRYABLE_STATUS,
  PROTOCOL_VERSION,
  PROTOCOL_VERSION_HEADER,
  RETRIED_HEADER,
  RUN_ID_HEADER,
  SIGNATURE_HEADER,
} from './constants.js'
import { WorkflowContext, type ContextRuntime, type FailureContext } from './context.js'
import { callResultRecord, CALLBACK_HEADER } from './callback.js'
import { StepExecutor } from './executor.js'
import { queueSink } from './submit.js'
import { ENV_NAMES, processEnv, readEnv, type Environment } from './env.js'
import {
  MalformedDeliveryError,
  QueueRequestError,
  WorkflowError,
  WorkflowNonRetryableError,
  WorkflowReplayError,
  isErrorNamed,
} from './errors.js'
import { contextHeaders, initMessageHeaders, stepMessageHeaders, userHeaders } from './headers.js'
import { SignatureError, verifyRequest } from './signature.js'
import { assertConsistentHistory, decodeBase64Text, parseDeliveryBody, parseRawSteps, type ParsedDelivery } from './steps.js'

/** A workflow body. Its return value is the run's result. @public */
export type RouteFunction<TPayload, TResult = unknown> = (context: WorkflowContext<TPayload>) => Promise<TResult> | TResult

/** What a failure function receives. @public */
export interface FailureData<TPayload> {
  readonly context: FailureContext<TPayload>
  /** HTTP status of the last failed delivery. */
  readonly failStatus: number
  /** The error message of the last failed delivery. */
  readonly failResponse: string
  /** Response headers of the last failed delivery. */
  readonly failHeaders: Record<string, string[]>
  readonly failStack?: string
}

/** One line of `verbose` output. @public */
export interface WorkflowLogEvent {
  readonly level: 'info' | 'warn' | 'error'
  readonly workflowRunId?: string
  readonly message: string
}

/** Options of {@link serve}. @public */
export interface ServeOptions<TPayload = unknown> {
  /** Public base URL of the application (no path); replaces the request's origin. Env `SERVICE_WORKFLOW_URL`. */
  readonly baseUrl?: string
  /** Environment variables; default `process.env`. Also `context.env`. */
  readonly env?: Environment
  /** The endpoint's full public URL; default: the request URL (with `baseUrl` applied). */
  readonly url?: string
  /** Retries per step on the queue. Default 3. */
  readonly retries?: number
  /** Called once when the run failed for good (retries exhausted or a non-retryable error). */
  readonly failureFunction?: (failure: FailureData<TPayload>) => unknown
  /** `true` logs to the console; a function receives each event. */
  readonly verbose?: boolean | ((event: WorkflowLogEvent) => void)
  /** A queue client; default: one over HTTP from `queueUrl` and `token`. */
  readonly queue?: QueueClient
  /** Queue base URL. Env `QUEUE_URL` (alias `QSTASH_URL`); default the hosted queue. */
  readonly queueUrl?: string
  /** Queue token. Env `QUEUE_TOKEN` (alias `QSTASH_TOKEN`); required unless `queue` is given. */
  readonly token?: string
  /** Signing keys; env `QUEUE_CURRENT_SIGNING_KEY` / `QUEUE_NEXT_SIGNING_KEY` (aliases `QSTASH_*`). With one set, unsigned requests get 401. */
  readonly currentSigningKey?: string
  readonly nextSigningKey?: string
  /** A typebox schema for the start payload: an invalid payload gets 400 and no run starts. */
  readonly schema?: TSchema
  /**
   * Largest request body read, bytes; a larger one is refused with 413 before it is read whole.
   * Default 32 MiB: a step delivery carries the run's payload and the result of every step so far.
   */
  readonly maxBodySize?: number
}

/** The default `maxBodySize` of {@link serve}. */
const DEFAULT_WORKFLOW_BODY_LIMIT = 32 * 1024 * 1024

/** A Web Fetch handler (Bun, Deno, Workers, Hono, Next.js route handlers). @public */
export type WorkflowFetchHandler = (request: Request) => Promise<Response>

/** A Node `http` listener that is also Express/Connect middleware. @public */
export type WorkflowNodeHandler = (request: IncomingMessage, response: ServerResponse, next?: (error?: unknown) => void) => void

interface Config {
  readonly queue: QueueClient
  readonly keys: readonly string[]
  readonly baseUrl?: string
  readonly env: Environment
}

class ConfigError extends WorkflowError {}

/** A request as the protocol core sees it: the absolute URL, the body as text. */
interface CoreRequest {
  readonly method: string
  readonly url: string
  readonly headers: Headers
  readonly body: string
}

/** An answer before an adapter turns it into a `Response` or writes it to a Node response. */
interface CoreResponse {
  readonly status: number
  readonly headers: Record<string, string>
  readonly body: string
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): CoreResponse {
  return { status, headers: { 'content-type': 'application/json', [PROTOCOL_VERSION_HEADER]: PROTOCOL_VERSION, ...headers }, body: JSON.stringify(body) }
}

function errorBody(error: unknown): { error: string; message: string } {
  return error instanceof Error
    ? { error: error.name, message: error.message }
    : { error: 'Error', message: `the workflow threw a non-error value: ${typeof error === 'string' ? error : JSON.stringify(error)}` }
}

/** Parses a payload like the SDK: JSON when it parses, the raw text otherwise, `undefined` when empty. */
function parsePayload(text: string): unknown {
  if (text === '') return undefined
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

function schemaErrors(schema: TSchema, value: unknown): string | undefined {
  if (Value.Check(schema, value)) return undefined
  const errors = Value.Errors(schema, value)
    .slice(0, 5)
    .map((error) => `${error.instancePath || '/'} ${error.message}`)
  return errors.join('; ') || 'the payload does not match the schema'
}

/** Replaces the origin of `url` with `baseUrl`, keeping the path and query. */
function applyBaseUrl(url: string, baseUrl: string | undefined): string {
  if (!baseUrl) return url
  return url.replace(/^(https?:\/\/[^/]+)(\/.*)?$/, (_match, _origin: string, path: string | undefined) => baseUrl.replace(/\/+$/, '') + (path ?? ''))
}

/**
 * The workflow endpoint as a Web Fetch handler (Bun, Deno, Workers, Hono; `export const POST =
 * serve(…)` in a Next.js route). `serveNode` and `serveNext` are the same endpoint for other stacks.
 * @public
 */
export function serve<S extends TSchema, TResult = unknown>(
  handler: RouteFunction<Static<S>, TResult>,
  options: ServeOptions<Static<S>> & { readonly schema: S },
): WorkflowFetchHandler
/** `serve` without a schema: the payload is typed by `TPayload` and not validated. @public */
export function serve<TPayload = unknown, TResult = unknown>(handler: RouteFunction<TPayload, TResult>, options?: ServeOptions<TPayload>): WorkflowFetchHandler
export function serve<TPayload, TResult>(handler: RouteFunction<TPayload, TResult>, options: ServeOptions<TPayload> = {}): WorkflowFetchHandler {
  return fetchListener(workflowService(handler, options))
}

const utf8 = new TextDecoder()

/** The endpoint as the service the shared adapters drive: the body limit, then the protocol. */
export function workflowService<TPayload, TResult>(handler: RouteFunction<TPayload, TResult>, options: ServeOptions<TPayload>): HttpService {
  const limit = options.maxBodySize ?? DEFAULT_WORKFLOW_BODY_LIMIT
  if (!Number.isSafeInteger(limit) || limit < 0) throw new TypeError(`maxBodySize must be an integer >= 0, got ${options.maxBodySize}`)
  const core = createCore(handler, options)
  return {
    handle: (request) =>
      core({ method: request.method, url: request.href, headers: fetchHeaders(request.headers), body: request.body === undefined ? '' : utf8.decode(request.body) }),
    bodyLimit: () => limit,
    bodyTooLarge: () => json(CONTENT_TOO_LARGE, { error: `request body larger than ${limit} bytes` }),
  }
}

/** The protocol, independent of the HTTP stack. */
function createCore<TPayload, TResult>(handler: RouteFunction<TPayload, TResult>, options: ServeOptions<TPayload>): (request: CoreRequest) => Promise<CoreResponse> {
  let config: Config | undefined
  const getConfig = (): Config => {
    if (config) return config
    const env = options.env ?? processEnv()
    let queue = options.queue
    if (!queue) {
      const token = options.token ?? readEnv(env, ENV_NAMES.token)
      if (!token) throw new ConfigError('no queue token: set QUEUE_TOKEN (or QSTASH_TOKEN), or pass the token option')
      queue = createQueueClient({ url: options.queueUrl ?? readEnv(env, ENV_NAMES.queueUrl) ?? DEFAULT_QUEUE_URL, token })
    }
    const keys = [
      options.currentSigningKey ?? readEnv(env, ENV_NAMES.currentSigningKey),
      options.nextSigningKey ?? readEnv(env, ENV_NAMES.nextSigningKey),
    ].filter((key): key is string => !!key)
    config = { queue, keys, baseUrl: options.baseUrl ?? readEnv(env, ENV_NAMES.baseUrl), env }
    return config
  }
  const log = (event: WorkflowLogEvent): void => {
    if (!options.verbose) return
    if (typeof options.verbose === 'function') options.verbose(event)
    else console[event.level === 'info' ? 'log' : event.level](`[restis workflow]${event.workflowRunId ? ` ${event.workflowRunId}` : ''} ${event.message}`)
  }
  const retries = options.retries ?? DEFAULT_RETRIES
  if (!Number.isInteger(retries) || retries < 0) throw new TypeError(`retries must be an integer >= 0, got ${options.retries}`)

  return async (request) => {
    if (request.method !== 'POST') return json(405, { error: 'workflow endpoints accept POST only' }, { allow: 'POST' })
    let cfg: Config
    try {
      cfg = getConfig()
    } catch (error) {
      log({ level: 'error', message: (error as Error).message })
      return json(500, { error: (error as Error).message })
    }
    const body = request.body
    const workflowUrl = applyBaseUrl(options.url ?? request.url, cfg.baseUrl)
    if (!/^https?:\/\//.test(workflowUrl)) return json(500, { error: `the workflow URL must start with http:// or https://, got ${workflowUrl}` })
    if (cfg.keys.length > 0) {
      try {
        verifyRequest({ signature: request.headers.get(SIGNATURE_HEADER), body, keys: cfg.keys, urls: [workflowUrl, request.url] })
      } catch (error) {
        if (!(error instanceof SignatureError)) throw error
        log({ level: 'warn', message: `refused a request: ${error.message}` })
        return json(401, { error: `invalid signature: ${error.message}` })
      }
    }
    const headers = request.headers
    try {
      if (headers.get(FAILURE_HEADER) === 'true' || headers.get(FAILURE_CALLBACK_HEADER)) {
        return await handleFailure(headers, body, workflowUrl, cfg)
      }
      if (headers.get(CALLBACK_HEADER) !== null) return await handleCallback(headers, body, workflowUrl, cfg)
      const version = headers.get(PROTOCOL_VERSION_HEADER)
      if (version === null) return await handleStart(headers, body, workflowUrl, cfg)
      if (version !== PROTOCOL_VERSION) {
        return json(400, { error: `incompatible workflow protocol version ${JSON.stringify(version)}, expected ${PROTOCOL_VERSION}` })
      }
      return await handleStep(headers, body, workflowUrl, cfg)
    } catch (error) {
      if (error instanceof MalformedDeliveryError) {
        log({ level: 'warn', message: error.message })
        return json(400, { error: error.message })
      }
      log({ level: 'error', message: `unexpected error: ${(error as Error)?.message ?? error}` })
      return json(500, errorBody(error))
    }
  }

  function validatePayload(text: string): { payload: unknown } | { invalid: string } {
    const payload = parsePayload(text)
    if (options.schema) {
      const problems = schemaErrors(options.schema, payload)
      if (problems !== undefined) return { invalid: problems }
    }
    return { payload }
  }

  async function handleStart(headers: Headers, body: string, url: string, cfg: Config): Promise<CoreResponse> {
    const checked = validatePayload(body)
    if ('invalid' in checked) return json(400, { error: `invalid payload: ${checked.invalid}` })
    const runId = newRunId()
    try {
      await cfg.queue.batch([
        {
          destination: url,
          headers: initMessageHeaders({
            runId,
            url,
            retries,
            failureUrl: options.failureFunction ? url : undefined,
            forward: userHeaders(headers),
            contentType: headers.get('content-type'),
          }),
          body,
        },
      ])
    } catch (error) {
      log({ level: 'error', workflowRunId: runId, message: `could not start the run: ${(error as Error).message}` })
      return json(502, { error: `could not start the run: ${(error as Error).message}` })
    }
    log({ level: 'info', workflowRunId: runId, message: `run started at ${url}` })
    return json(200, { workflowRunId: runId })
  }

  async function handleStep(headers: Headers, body: string, url: string, cfg: Config): Promise<CoreResponse> {
    const runId = headers.get(RUN_ID_HEADER)
    if (!runId) throw new MalformedDeliveryError(`missing ${RUN_ID_HEADER} header`)
    let delivery: ParsedDelivery
    if (body === '') {
      // LazyFetch: the queue may send an empty body; the steps are fetched from it, up to this
      // delivery's message (the last step is the one this delivery is for).
      const raw = await cfg.queue.getRunSteps(runId)
      if (raw === undefined) return json(200, { workflowRunId: runId, finishCondition: 'workflow-already-ended' })
      const messageId = headers.get(MESSAGE_ID_HEADER)
      const upTo = messageId === null ? -1 : raw.findIndex((step) => step.messageId === messageId)
      delivery = parseRawSteps(upTo === -1 ? raw : raw.slice(0, upTo + 1))
    } else delivery = parseDeliveryBody(body)
    if (delivery.isLastDuplicate) {
      log({ level: 'warn', workflowRunId: runId, message: 'the last step was delivered twice; ignoring the duplicate' })
      return json(200, { workflowRunId: runId, finishCondition: 'duplicate-step' })
    }
    const invokeCount = Number(headers.get(INVOKE_COUNT_HEADER) ?? 0) || 0
    const createdAt = Number(headers.get(CREATED_AT_HEADER)) || undefined
    const executor = new StepExecutor(
      delivery.steps,
      queueSink({ queue: cfg.queue, runId, url, invokeCount, createdAt }, (message) => log({ level: 'info', workflowRunId: runId, message })),
    )
    const runtime: ContextRuntime = {
      executor,
      invokeCount,
      cancelled: false,
      cancel: async () => {
        await cfg.queue.deleteRun(runId, undefined, true)
        log({ level: 'info', workflowRunId: runId, message: 'run cancelled' })
      },
      notify: async (eventId, eventData, workflowRunId) => {
        if (!cfg.queue.notify) throw new WorkflowNonRetryableError('context.notify needs a queue client with notify(): the queue option given to serve() has none')
        try {
          return await cfg.queue.notify(eventId, eventData, workflowRunId)
        } catch (error) {
          // a refused notification fails the step (retried), never reads as "the run ended"
          if (error instanceof QueueRequestError) throw new WorkflowError(`notifying event ${JSON.stringify(eventId)} failed: ${error.message}`)
          throw error
        }
      },
    }
    let result: unknown
    try {
      assertConsistentHistory(delivery.steps)
      const checked = validatePayload(delivery.rawInitialPayload)
      if ('invalid' in checked) throw new WorkflowReplayError(`the run's payload does not match the schema: ${checked.invalid}`)
      const context = new WorkflowContext<TPayload>(
        {
          workflowRunId: runId,
          url,
          requestPayload: checked.payload as TPayload,
          headers: contextHeaders(headers),
          env: cfg.env,
          retried: Number(headers.get(RETRIED_HEADER) ?? 0) || 0,
          workflowRunCreatedAt: createdAt,
        },
        runtime,
      )
      result = await handler(context)
    } catch (error) {
      // After a step went to the queue (or the run was cancelled) the body unwinds with
      // StepSubmitted, or with whatever it threw while unwinding: either way this delivery is done.
      if (executor.violation) return stepError(executor.violation, runId, undefined)
      if (executor.ended === undefined && !runtime.cancelled) return stepError(error, runId, executor.failedStep)
    }
    if (executor.violation) return stepError(executor.violation, runId, undefined)
    if (runtime.cancelled) return json(200, { workflowRunId: runId, finishCondition: 'canceled' })
    if (executor.ended !== undefined) return json(200, { workflowRunId: runId, finishCondition: executor.ended })
    if (executor.reachedSteps < executor.recordedSteps) {
      const unreplayed = new WorkflowReplayError(
        `the workflow returned after step ${executor.reachedSteps} but the run's history has ${executor.recordedSteps} steps: ` +
          'the workflow code changed or the step list was altered',
      )
      return stepError(unreplayed, runId, undefined)
    }
    try {
      await cfg.queue.deleteRun(runId, result, false)
    } catch (error) {
      return queueError(error, runId)
    }
    log({ level: 'info', workflowRunId: runId, message: 'run finished' })
    return json(200, { workflowRunId: runId, finishCondition: 'workflow-finished' })
  }

  /**
   * The outcome of a third-party call (`Upstash-Workflow-Callback: true`): recorded as the
   * call step's result, `{status, body, header}`, which resumes the run.
   */
  async function handleCallback(headers: Headers, body: string, url: string, cfg: Config): Promise<CoreResponse> {
    const runId = headers.get(RUN_ID_HEADER)
    if (!runId) throw new MalformedDeliveryError(`missing ${RUN_ID_HEADER} header on a call's callback`)
    const record = callResultRecord(headers, body)
    if (record === undefined) return json(200, { workflowRunId: runId, finishCondition: 'call-will-retry' })
    try {
      await cfg.queue.batch([{ destination: url, headers: stepMessageHeaders(runId, url), body: JSON.stringify(record) }])
    } catch (error) {
      return queueError(error, runId)
    }
    log({ level: 'info', workflowRunId: runId, message: `call step ${record.stepId} '${record.stepName}' answered` })
    return json(200, { workflowRunId: runId, finishCondition: 'is-call-return' })
  }

  function queueError(error: unknown, runId: string): CoreResponse {
    if (error instanceof QueueRequestError && error.status === 400) {
      log({ level: 'warn', workflowRunId: runId, message: `the queue refused: ${error.message}` })
      return json(200, { workflowRunId: runId, finishCondition: 'workflow-already-ended' })
    }
    if (error instanceof QueueRequestError && error.status === 404) {
      return json(404, { error: `the queue does not know run ${runId}: ${error.message}` })
    }
    log({ level: 'error', workflowRunId: runId, message: (error as Error).message })
    return json(500, errorBody(error))
  }

  function stepError(error: unknown, runId: string, stepName: string | undefined): CoreResponse {
    if (error instanceof QueueRequestError) return queueError(error, runId)
    const stepHeader: Record<string, string> = stepName ? { [ERROR_STEP_NAME_HEADER]: stepName.replace(/[\u0000-\u001F\u007F]+/g, ' ').trim() } : {}
    if (isErrorNamed(error, 'WorkflowNonRetryableError')) {
      log({ level: 'error', workflowRunId: runId, message: `non-retryable: ${(error as Error).message}` })
      return json(NON_RETRYABLE_STATUS, errorBody(error), { [NON_RETRYABLE_HEADER]: 'true', ...stepHeader })
    }
    if (isErrorNamed(error, 'WorkflowRetryAfterError')) {
      const retryAfter = Number((error as { retryAfter?: unknown }).retryAfter)
      log({ level: 'warn', workflowRunId: runId, message: `retry after ${retryAfter}s: ${(error as Error).message}` })
      return json(429, errorBody(error), { 'retry-after': String(Number.isFinite(retryAfter) ? retryAfter : 0), ...stepHeader })
    }
    log({ level: 'error', workflowRunId: runId, message: `${stepName ? `step '${stepName}' failed` : 'the workflow failed'}: ${(error as Error)?.message ?? error}` })
    return json(500, errorBody(error), stepHeader)
  }

  async function handleFailure(headers: Headers, body: string, url: string, cfg: Config): Promise<CoreResponse> {
    const runId = headers.get(RUN_ID_HEADER)
    if (!runId) throw new MalformedDeliveryError(`missing ${RUN_ID_HEADER} header on a failure callback`)
    if (!options.failureFunction) {
      return json(200, { workflowRunId: runId, finishCondition: 'failure-callback-undefined' }, { [FAILURE_NOT_FOUND_HEADER]: 'true' })
    }
    let failure: { status?: unknown; header?: unknown; body?: unknown; sourceBody?: unknown; workflowCreatedAt?: unknown }
    try {
      failure = JSON.parse(body) as typeof failure
    } catch {
      throw new MalformedDeliveryError('the failure callback body is not JSON')
    }
    if (typeof failure !== 'object' || failure === null) throw new MalformedDeliveryError('the failure callback body is not a JSON object')
    const failedBody = typeof failure.body === 'string' && failure.body !== '' ? decodeBase64Text(failure.body, 'the failed response body') : ''
    let failResponse = ''
    let failStack: string | undefined
    try {
      const parsed = JSON.parse(failedBody) as { message?: unknown; stack?: unknown }
      if (typeof parsed.message === 'string') failResponse = parsed.message
      if (typeof parsed.stack === 'string') failStack = parsed.stack
    } catch {
      // not JSON: keep the raw text below
    }
    if (!failResponse) failResponse = failedBody || `the run failed with status ${failure.status}`
    const sourceText = typeof failure.sourceBody === 'string' ? decodeBase64Text(failure.sourceBody, 'the source body') : ''
    const context: FailureContext<TPayload> = {
      workflowRunId: runId,
      url,
      requestPayload: parsePayload(sourceText) as TPayload,
      headers: contextHeaders(headers),
      env: cfg.env,
      retried: Number(headers.get(RETRIED_HEADER) ?? 0) || 0,
      workflowRunCreatedAt: Number(failure.workflowCreatedAt) || undefined,
    }
    try {
      const result = await options.failureFunction!({
        context,
        failStatus: Number(failure.status) || 0,
        failResponse,
        failHeaders: (typeof failure.header === 'object' && failure.header !== null ? failure.header : {}) as Record<string, string[]>,
        failStack,
      })
      log({ level: 'info', workflowRunId: runId, message: 'failure function ran' })
      return json(200, { result: result ?? undefined })
    } catch (error) {
      log({ level: 'error', workflowRunId: runId, message: `the failure function threw: ${(error as Error)?.message ?? error}` })
      return json(500, errorBody(error))
    }
  }
}

/**
 * The same endpoint as a Node `http` listener (also Express/Connect middleware). Mount it before
 * any body parser, or give it the raw body (`express.text({ type: '*\/*' })`): signatures cover
 * the exact bytes.
 * @public
 */
export function serveNode<S extends TSchema, TResult = unknown>(
  handler: RouteFunction<Static<S>, TResult>,
  options: ServeOptions<Static<S>> & { readonly schema: S },
): WorkflowNodeHandler
/** `serveNode` without a schema: the payload is typed by `TPayload` and not validated. @public */
export function serveNode<TPayload = unknown, TResult = unknown>(handler: RouteFunction<TPayload, TResult>, options?: ServeOptions<TPayload>): WorkflowNodeHandler
export function serveNode<TPayload, TResult>(handler: RouteFunction<TPayload, TResult>, options: ServeOptions<TPayload> = {}): WorkflowNodeHandler {
  return nodeListener(workflowService(handler, options))
}

/**
 * The endpoint as a Next.js App Router route: `export const { POST } = serveNext(…)`.
 * @public
 */
export function serveNext<S extends TSchema, TResult = unknown>(
  handler: RouteFunction<Static<S>, TResult>,
  options: ServeOptions<Static<S>> & { readonly schema: S },
): { POST: WorkflowFetchHandler }
/** `serveNext` without a schema: the payload is typed by `TPayload` and not validated. @public */
export function serveNext<TPayload = unknown, TResult = unknown>(handler: RouteFunction<TPayload, TResult>, options?: ServeOptions<TPayload>): { POST: WorkflowFetchHandler }
export function serveNext<TPayload, TResult>(handler: RouteFunction<TPayload, TResult>, options: ServeOptions<TPayload> = {}): { POST: WorkflowFetchHandler } {
  return { POST: serve<TPayload, TResult>(handler, options) }
}
