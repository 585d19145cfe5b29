import { ReplyError, type Arg, type Command, type Reply } from '../reply.js'
import { encodeReply } from '../resp/encode.js'
import { BackendUnavailableError, type CallContext, type Executor, type PubSubEvent } from '../executor/executor.js'
import { resolveCommand, restAvailability, isReadOnly } from '../commands/lookup.js'
import { TokenStore, type Authenticator, type Principal } from '../auth/tokens.js'
import { checkPermission } from '../auth/permissions.js'
import {
  METHOD_NOT_ALLOWED,
  MAX_REQUEST_SIZE,
  UNAUTHORIZED,
  RestError,
  badRequest,
  backendUnavailable,
  commandNotAvailable,
} from './errors.js'
import { parseCall, requestToken, splitUrl, type RestRequest } from './request.js'
import { envelope, envelopes, errorEnvelope, type StringEncoding } from './render.js'
import { eventStream, type EventStream, type SseOptions } from './sse.js'

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

/** Options of {@link createGateway}. @public */
export interface GatewayOptions {
  /** Runs the commands: a `MemoryExecutor`, a `SocketExecutor`, or your own. */
  readonly executor: Executor
  /** The standard token. Give this or `auth`. */
  readonly token?: string
  /** The read-only token. */
  readonly readonlyToken?: string
  /** Custom authentication, replacing `token`/`readonlyToken`. */
  readonly auth?: Authenticator
  /** Maximum size of one command (sum of its arguments' bytes). Default 10 MiB. */
  readonly maxRequestSize?: number
  /** Options of the /monitor and /subscribe streams. */
  readonly sse?: SseOptions
}

/** The gateway core: one method, framework-agnostic. @public */
export interface Gateway {
  handle(request: RestRequest): Promise<RestResponse>
  /** The body-size limit adapters enforce while reading a request body. */
  readonly maxBodySize: number
}

const ALLOWED_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT'])
const JSON_TYPE = 'application/json'
const DEFAULT_MAX_REQUEST_SIZE = 10 * 1024 * 1024

interface Format {
  readonly encoding: StringEncoding
  readonly resp2: boolean
}

/**
 * Builds the gateway: parse, authenticate, authorize, execute, render.
 * @public
 */
export function createGateway(options: GatewayOptions): Gateway {
  const { executor } = options
  const auth = options.auth ?? (options.token !== undefined ? new TokenStore({ token: options.token, readonlyToken: options.readonlyToken }) : undefined)
  if (auth === undefined) throw new TypeError('createGateway needs `token` or `auth`')
  const maxRequestSize = options.maxRequestSize ?? DEFAULT_MAX_REQUEST_SIZE
  const syncPrefix = Date.now().toString(36)
  let writes = 0

  const headers = (contentType: string): Record<string, string> => {
    const token = `${syncPrefix}-${writes}`
    return { 'content-type': contentType, 'service-sync-token': token, 'upstash-sync-token': token }
  }
  const json = (status: number, body: string): RestResponse => ({ status, headers: headers(JSON_TYPE), body })
  const fail = (error: RestError): RestResponse => json(error.status, errorEnvelope(error.message))

  /** Checks availability, permission and size; null when the command may run. */
  const admit = (principal: Principal, command: Command): RestError | null => {
    const info = resolveCommand(command)
    if (info !== undefined) {
      if (restAvailability(info) !== 'ok') return commandNotAvailable(commandName(command))
      const denied = checkPermission(principal, command, info)
      if (denied !== null) return new RestError(400, denied)
      if (!isReadOnly(info)) writes++
    }
    if (commandSize(command) > maxRequestSize) return MAX_REQUEST_SIZE
    return null
  }

  const render = (reply: Reply, format: Format): RestResponse => {
    const status = reply instanceof ReplyError ? 400 : 200
    if (format.resp2) return { status, headers: headers('application/octet-stream'), body: encodeReply(reply) }
    return json(status, envelope(reply, format.encoding))
  }

  const run = async (request: RestRequest): Promise<RestResponse> => {
    const method = request.method.toUpperCase()
    if (!ALLOWED_METHODS.has(method)) return fail(METHOD_NOT_ALLOWED)
    const target = splitUrl(request.url)
    const principal = auth.authenticate(requestToken(request.headers, target.query))
    if (principal === undefined) return fail(UNAUTHORIZED)
    const format = responseFormat(request.headers)
    if (format instanceof RestError) return fail(format)
    const call = parseCall(method, target, request.body)
    if (call instanceof RestError) return fail(call)
    const context: CallContext = contextOf(principal, request)

    switch (call.type) {
      case 'command': {
        const refused = admit(principal, call.command)
        if (refused !== null) return fail(refused)
        return render(await executor.exec(call.command, context), format)
      }
      case 'pipeline': {
        const admitted: Command[] = []
        const refusals: (RestError | null)[] = call.commands.map((command) => admit(principal, command))
        call.commands.forEach((command, i) => refusals[i] === null && admitted.push(command))
        const replies = admitted.length > 0 ? await executor.pipeline(admitted, context) : []
        let next = 0
        const all: Reply[] = refusals.map((refusal) => (refusal === null ? replies[next++] : new ReplyError(refusal.message)))
        if (format.resp2) {
          return { status: 200, headers: headers('application/octet-stream'), body: Buffer.concat(all.map(encodeReply)) }
        }
        return json(200, envelopes(all, format.encoding))
      }
      case 'transaction': {
        for (const command of call.commands) {
          const refused = admit(principal, command)
          if (refused !== null) return fail(refused)
        }
        const replies = await executor.transaction(call.commands, context)
        if (replies instanceof ReplyError) return fail(new RestError(400, replies.message))
        return json(200, envelopes(replies, format.encoding)) // /multi-exec answers JSON only
      }
      case 'monitor': {
        const refused = admit(principal, ['MONITOR'])
        if (refused !== null && refused.message.startsWith('NOPERM')) return fail(refused)
        return streamResponse(
          eventStream(async (emit, signal) => {
            emit('"OK"')
            await executor.monitor((event) => emit(event.line), signal, context)
          }, options.sse),
        )
      }
      case 'subscribe': {
        const kind = call.kind
        return streamResponse(
          eventStream(
            (emit, signal) => executor.subscribe({ kind, names: call.names }, (event) => emit(formatPubSubEvent(event)), signal, context),
            options.sse,
          ),
        )
      }
    }
  }

  const streamResponse = (body: EventStream): RestResponse => ({
    status: 200,
    headers: { ...headers('text/event-stream'), 'cache-control': 'no-cache', connection: 'keep-alive' },
    body,
  })

  return {
    maxBodySize: maxRequestSize,
    async handle(request) {
      try {
        const response = await run(request)
        return request.method.toUpperCase() === 'HEAD' ? { ...response, body: '' } : response
      } catch (error) {
        if (error instanceof BackendUnavailableError) return fail(backendUnavailable(error.message))
        // Never leak internals (stack traces, tokens) to the client.
        return fail(new RestError(500, 'ERR internal error'))
      }
    },
  }
}

/** Reads `Service-Response-Format` / `Service-Encoding` (and their `Upstash-` aliases). */
function responseFormat(headers: RestRequest['headers']): Format | RestError {
  const formatValue = headers.get('service-response-format') ?? headers.get('upstash-response-format')
  const encodingValue = headers.get('service-encoding') ?? headers.get('upstash-encoding')
  let resp2 = false
  if (formatValue !== null) {
    const value = formatValue.trim().toLowerCase()
    if (value === 'resp2') resp2 = true
    else if (value !== 'json') return badRequest(`invalid Service-Response-Format '${formatValue}': use json or resp2`)
  }
  let encoding: StringEncoding = 'utf8'
  if (encodingValue !== null) {
    const value = encodingValue.trim().toLowerCase()
    if (value === 'base64') encoding = 'base64'
    else if (value !== '') return badRequest(`invalid Service-Encoding '${encodingValue}': the only encoding is base64`)
  }
  if (resp2 && encoding === 'base64') return badRequest('Service-Encoding: base64 cannot be combined with Service-Response-Format: resp2')
  return { encoding, resp2 }
}

function contextOf(principal: Principal, request: RestRequest): CallContext {
  if (principal.kind === 'user') return { user: principal.user, password: principal.password, client: request.remoteAddress }
  return request.remoteAddress === undefined ? {} : { client: request.remoteAddress }
}

function commandName(command: Command): string {
  const name = command[0]
  return (typeof name === 'string' ? name : Buffer.from(name).toString('utf8')).toLowerCase()
}

function commandSize(command: Command): number {
  let size = 0
  for (const arg of command) size += typeof arg === 'string' ? Buffer.byteLength(arg) : arg.length
  return size
}

const utf8 = new TextDecoder()

/** The SSE payloads of the protocol: `subscribe,<channel>,<count>`, `message,<channel>,<text>` … */
export function formatPubSubEvent(event: PubSubEvent): string {
  switch (event.type) {
    case 'subscribe':
    case 'psubscribe':
      return `${event.type},${utf8.decode(event.channel)},${event.count}`
    case 'message':
      return `message,${utf8.decode(event.channel)},${utf8.decode(event.message)}`
    case 'pmessage':
      return `pmessage,${utf8.decode(event.pattern)},${utf8.decode(event.channel)},${utf8.decode(event.message)}`
  }
}

export type { Arg }
