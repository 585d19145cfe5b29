import type { CallContext, Executor } from '../executor/executor.js'
import { BackendUnavailableError } from '../executor/executor.js'
import { TokenStore, type Authenticator, type Principal } from '../auth/tokens.js'
import { createRequestAuth } from '../auth/user-tokens.js'
import { Limits, type LimitOptions } from '../auth/limits.js'
import { METHOD_NOT_ALLOWED, UNAUTHORIZED, RestError, backendFailure } from './errors.js'
import { parseCall, parseCallSliced, requestToken, splitUrl, SLICED_BODY_BYTES, type Call, type RequestTarget, type RestRequest } from './request.js'
import type { EventStream, SseOptions } from './sse.js'
import { corsPolicy, type CorsOptions } from './cors.js'
import { Admission } from './admission.js'
import { Responses, responseFormat, type Format } from './responses.js'
import { nextTurn, runCommand, runMonitor, runPipeline, runSubscribe, runTransaction, type CallRuntime, type Caller } from './calls.js'

export { formatPubSubEvent } from './calls.js'

/**
 * A response, independent of any server framework: a body that is text, bytes, or an event
 * stream that adapters pipe to the client.
 * @public
 */
export interface RestResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string | Uint8Array | EventStream
}

/**
 * Options of {@link createGateway}. The limit options (`maxRequestSize`, `maxBodySize`,
 * `dailyRequestLimit`, `onUsage`, `clock`) are those of {@link Limits}.
 * @public
 */
export interface GatewayOptions extends LimitOptions {
  /** Runs the commands: a `MemoryExecutor`, a `SocketExecutor`, or your own. */
  readonly executor: Executor
  /** The standard token. Give this or `auth`. */
  readonly token?: string
  /** The read-only token. */
  readonly readonlyToken?: string
  /**
   * Authentication: a {@link TokenStore} (shared with your code, e.g. to `rotate()` it), or a
   * custom {@link Authenticator}, replacing `token`/`readonlyToken`. `ACL RESTTOKEN` needs a
   * `TokenStore`.
   */
  readonly auth?: Authenticator
  /** Secret ACL users' tokens are derived from (see {@link TokenStore}); used with `token`. */
  readonly userTokenSecret?: string | Uint8Array
  /**
   * How long an ACL user's token is trusted after its password was last confirmed, ms. Past it,
   * the next request with the token checks the password against the executor again (one
   * `ACL GETUSER`) and the token is refused (401) if the password no longer opens the user.
   * ACL SETUSER / DELUSER / LOAD sent through this gateway make the check happen on the next
   * request at once. Default 1000; 0 checks on every request.
   */
  readonly userTokenCheckInterval?: number
  /**
   * Run the read-only token's calls as this ACL user (create it with `provisionReadonlyUser`), so
   * the backend enforces the read-only rules as well as the gateway, including inside scripts.
   * Without it the read-only token's calls run as the executor's own user and the gateway's
   * check is the only one: an `EVAL_RO` script may then call the powerful reads (KEYS, SCAN).
   */
  readonly readonlyUser?: { readonly user: string; readonly password: string }
  /** Options of the /monitor and /subscribe streams. */
  readonly sse?: SseOptions
  /**
   * Most commands in one `/pipeline` or `/multi-exec` body; more is a 400 naming the limit, given
   * while the body is parsed. Default 100000 (parsing costs about 250 bytes of memory per row).
   */
  readonly maxPipelineRows?: number
  /**
   * Largest reply the gateway renders for one request, bytes (JSON text or RESP2). A reply over it
   * is a 400 `ERR reply too large` instead; a pipeline stops running once its replies pass it and
   * the error says how many commands ran. Default 128 MiB.
   */
  readonly maxReplyBytes?: number
  /** Cross-origin requests from browsers (off by default). */
  readonly cors?: CorsOptions
}

/** The gateway core: one method, framework-agnostic. @public */
export interface Gateway {
  handle(request: RestRequest): Promise<RestResponse>
  /**
   * The answer to a request that its method, URL and headers already settle: 401 without a valid
   * token. Adapters ask before they read a body, so an unauthenticated client never makes the
   * gateway hold one; undefined when the request may go on.
   */
  checkHead(request: Omit<RestRequest, 'body'>): RestResponse | undefined | Promise<RestResponse | undefined>
  /** The largest body adapters read for any request (`maxBodySize`). */
  readonly maxBodySize: number
  /** The body-size limit adapters enforce while reading the body of a request to `url`. */
  bodyLimit(url: string): number
  /** The limits and usage counters. */
  readonly limits: Limits
  /** The token store, when the gateway has one (built from `token`, or given as `auth`). */
  readonly tokens: TokenStore | undefined
}

const ALLOWED_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT'])

/** Default of {@link GatewayOptions.maxPipelineRows}. @public */
export const DEFAULT_MAX_PIPELINE_ROWS = 100_000
/** Default of {@link GatewayOptions.maxReplyBytes}: 128 MiB. @public */
export const DEFAULT_MAX_REPLY_BYTES = 128 * 1024 * 1024

/**
 * Builds the gateway. `handle()` reads a request as: method and URL → authentication (headers
 * and query only) → the call it asks for (parsed from the path and body) → the call's function
 * (admission, limits, run, render); errors are values until the response.
 * @public
 */
export function createGateway(options: GatewayOptions): Gateway {
  const { executor } = options
  const tokens =
    options.auth ??
    (options.token !== undefined
      ? new TokenStore({ token: options.token, readonlyToken: options.readonlyToken, secret: options.userTokenSecret })
      : undefined)
  if (tokens === undefined) throw new TypeError('createGateway needs `token` or `auth`')
  const limits = new Limits(options)
  const cors = options.cors === undefined ? undefined : corsPolicy(options.cors)
  const responses = new Responses()
  const auth = createRequestAuth({ executor, auth: tokens, clock: options.clock ?? Date.now, checkInterval: options.userTokenCheckInterval ?? 1000 })
  const maxPipelineRows = options.maxPipelineRows ?? DEFAULT_MAX_PIPELINE_ROWS
  const maxReplyBytes = options.maxReplyBytes ?? DEFAULT_MAX_REPLY_BYTES
  if (!(maxPipelineRows >= 1)) throw new RangeError('maxPipelineRows must be at least 1')
  if (!(maxReplyBytes >= 1)) throw new RangeError('maxReplyBytes must be at least 1')
  const runtime: CallRuntime = { executor, maxReplyBytes, admission: new Admission(limits), auth, responses, sse: options.sse }

  // Plain functions returning the call's own promise: an async wrapper would cost each request
  // a few more microtask turns on the hot path.
  const run = (request: RestRequest, method: string): RestResponse | Promise<RestResponse> => {
    if (!ALLOWED_METHODS.has(method)) return responses.fail(METHOD_NOT_ALLOWED)
    const target = splitUrl(request.url)
    const found = auth.authenticate(requestToken(request.headers, target.query))
    if (found instanceof Promise) return found.then((principal) => dispatch(request, method, target, principal))
    return dispatch(request, method, target, found)
  }

  const dispatch = (request: RestRequest, method: string, target: RequestTarget, principal: Principal | undefined): RestResponse | Promise<RestResponse> => {
    if (principal === undefined) return responses.fail(UNAUTHORIZED)
    const format = responseFormat(request.headers)
    if (format instanceof RestError) return responses.fail(format)
    const { body } = request
    // A large body is decoded and parsed in slices, other clients served in between.
    if (body !== undefined && body.length >= SLICED_BODY_BYTES) {
      return parseCallSliced(method, target, body, maxPipelineRows, nextTurn).then((call) => runCall(request, call, principal, format))
    }
    return runCall(request, parseCall(method, target, body, maxPipelineRows), principal, format)
  }

  const runCall = (request: RestRequest, call: Call | RestError, principal: Principal, format: Format): RestResponse | Promise<RestResponse> => {
    if (call instanceof RestError) return responses.fail(call)
    const caller: Caller = { principal, format, context: contextOf(principal, request, options.readonlyUser) }
    switch (call.type) {
      case 'command':
        return runCommand(runtime, call, caller)
      case 'pipeline':
        return runPipeline(runtime, call, caller, request.body)
      case 'transaction':
        return runTransaction(runtime, call, caller, request.body)
      case 'monitor':
        return runMonitor(runtime, caller)
      case 'subscribe':
        return runSubscribe(runtime, call, caller)
    }
  }

  const refuseUnauthenticated = (principal: Principal | undefined, origin: string | null): RestResponse | undefined => {
    if (principal !== undefined) return undefined
    const refusal = responses.fail(UNAUTHORIZED)
    return cors === undefined ? refusal : cors.decorate(origin, refusal)
  }

  return {
    checkHead(request) {
      const method = request.method.toUpperCase()
      if (!ALLOWED_METHODS.has(method)) return undefined // handle() answers 405 or the preflight
      const origin = cors === undefined ? null : request.headers.get('origin')
      const found = auth.authenticate(requestToken(request.headers, splitUrl(request.url).query))
      if (found instanceof Promise) return found.then((principal) => refuseUnauthenticated(principal, origin), () => undefined)
      return refuseUnauthenticated(found, origin)
    },
    maxBodySize: limits.maxBodySize,
    bodyLimit: (url) => limits.bodyLimit(url),
    limits,
    tokens: tokens instanceof TokenStore ? tokens : undefined,
    async handle(request) {
      const method = request.method.toUpperCase()
      const origin = cors === undefined ? null : request.headers.get('origin')
      if (method === 'OPTIONS' && cors !== undefined) return cors.preflight(origin, request.headers)
      let response: RestResponse
      try {
        response = await run(request, method)
        if (method === 'HEAD') response = { ...response, body: '' }
      } catch (error) {
        if (error instanceof BackendUnavailableError) response = responses.fail(backendFailure(error))
        // Never leak internals (stack traces, tokens) to the client.
        else response = responses.fail(new RestError(500, 'ERR internal error'))
      }
      return cors === undefined ? response : cors.decorate(origin, response)
    },
  }
}

function contextOf(principal: Principal, request: RestRequest, readonlyUser: GatewayOptions['readonlyUser']): CallContext {
  if (principal.kind === 'user') return { user: principal.user, password: principal.password, client: request.remoteAddress }
  if (principal.kind === 'readonly' && readonlyUser !== undefined) return { user: readonlyUser.user, password: readonlyUser.password, client: request.remoteAddress }
  return request.remoteAddress === undefined ? {} : { client: request.remoteAddress }
}
