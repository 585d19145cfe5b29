import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { createGateway, type Gateway, type GatewayOptions, type RestResponse } from '../rest/gateway.js'
import type { RestRequest } from '../rest/request.js'
import { MAX_REQUEST_SIZE } from '../rest/errors.js'
import { errorEnvelope } from '../rest/render.js'
import { BodyTooLargeError, readEmitterBody } from './body.js'

/**
 * A Node `http` request listener that is also Express/Connect middleware: with `next`, errors
 * the gateway cannot answer itself go to `next(error)`.
 * @public
 */
export type NodeHandler = (request: IncomingMessage, response: ServerResponse, next?: (error?: unknown) => void) => void

type Next = ((error?: unknown) => void) | undefined

/**
 * Serves the protocol on Node's `http` (or Express, Connect, Fastify's raw handlers). Mounted
 * under a path (`app.use('/redis', handler)`), it sees the path below the mount point.
 *
 * Complete responses (not event streams) are written at the end of the event-loop turn that
 * produced them, together with the others of that turn (see {@link queueResponse}).
 * @public
 */
export function createNodeHandler(gateway: Gateway | GatewayOptions): NodeHandler {
  const core = 'handle' in gateway ? gateway : createGateway(gateway)
  return (request, response, next) => {
    const socket = request.socket as Socket | null
    const earlier = socket === null ? undefined : waitingDispatch.get(socket)
    const hasBody = hasBodyToRead(request)
    if (earlier === undefined && !hasBody) {
      dispatch(core, request, response, next, undefined)
      return
    }
    const reading = hasBody ? readRequestBody(core, request, response) : Promise.resolve(undefined)
    // Rejections are handled once it is this request's turn; until then, not "unhandled".
    reading.catch(() => {})
    const afterEarlier = earlier === undefined ? reading : earlier.then(() => reading, () => reading)
    const turn = afterEarlier.then(
      (body) => {
        if (body !== BODY_REFUSED) dispatch(core, request, response, next, body)
      },
      (error: unknown) => failed(error, response, next),
    )
    if (socket === null) return
    waitingDispatch.set(socket, turn)
    const done = () => {
      if (waitingDispatch.get(socket) === turn) waitingDispatch.delete(socket)
    }
    // An error thrown by `next` stays an unhandled rejection, as it would be without the queue.
    void turn.then(done, (error: unknown) => {
      done()
      throw error
    })
  }
}

const BODY_REFUSED = Symbol('body refused')

/**
 * Per connection, the turn of the last request that is not handed to the gateway yet (its body
 * is still arriving). A request pipelined after it on the same connection waits for it, so the
 * gateway runs the requests of a connection in the order they were sent, even when a request
 * without a body (dispatched at once) follows one whose body takes a while.
 */
const waitingDispatch = new WeakMap<Socket, Promise<void>>()

function dispatch(core: Gateway, request: IncomingMessage, response: ServerResponse, next: Next, body: Uint8Array | undefined): void {
  let answer: Promise<RestResponse>
  try {
    answer = core.handle(new NodeRequest(request, body))
  } catch (error) {
    // A gateway of the caller's own may throw instead of rejecting.
    failed(error, response, next)
    return
  }
  answer.then(
    (result) => {
      if (isComplete(result)) queueResponse(response, result, next)
      else stream(result, response).catch((error: unknown) => failed(error, response, next))
    },
    (error: unknown) => failed(error, response, next),
  )
}

/** What the gateway sees of an `IncomingMessage`. */
class NodeRequest implements RestRequest {
  readonly method: string
  readonly url: string
  readonly headers: NodeHeaders
  readonly body: Uint8Array | undefined
  readonly remoteAddress: string | undefined

  constructor(request: IncomingMessage, body: Uint8Array | undefined) {
    this.method = request.method ?? 'GET'
    this.url = request.url ?? '/'
    this.headers = new NodeHeaders(request.headers)
    this.body = body
    this.remoteAddress = remoteAddressOf(request.socket)
  }
}

class NodeHeaders {
  constructor(private readonly headers: IncomingMessage['headers']) {}

  get(name: string): string | null {
    const value = this.headers[name.toLowerCase()]
    return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value
  }
}

/** `host:port` of each connection, made once per connection rather than once per request. */
const remoteAddresses = new WeakMap<Socket, string | undefined>()

function remoteAddressOf(socket: Socket | null): string | undefined {
  // A request handed over by a framework may have no socket left (it was detached).
  if (socket === null || socket === undefined) return undefined
  let address = remoteAddresses.get(socket)
  if (address === undefined && !remoteAddresses.has(socket)) {
    address = socket.remoteAddress === undefined ? undefined : `${socket.remoteAddress}:${socket.remotePort}`
    remoteAddresses.set(socket, address)
  }
  return address
}

/**
 * Whether there is a body to read from the stream. A request without `content-length` and
 * `transfer-encoding` has none (RFC 9112, 6.3), so most GETs skip the stream machinery entirely.
 * A body a parser consumed before us counts as one (see {@link requestBody}).
 */
function hasBodyToRead(request: IncomingMessage): boolean {
  if ((request as IncomingMessage & { body?: unknown }).body !== undefined) return true
  const headers = request.headers
  if (headers['transfer-encoding'] !== undefined) return true
  const length = headers['content-length']
  return length !== undefined && length !== '0'
}

/** The body, or {@link BODY_REFUSED} once a too-large body has been answered with a 400. */
async function readRequestBody(core: Gateway, request: IncomingMessage, response: ServerResponse): Promise<Uint8Array | undefined | typeof BODY_REFUSED> {
  try {
    return await requestBody(request, core.bodyLimit(request.url ?? '/'))
  } catch (error) {
    if (!(error instanceof BodyTooLargeError)) throw error
    // Answer at once, then drop the connection so the rest of the body is never read.
    response.writeHead(400, { 'content-type': 'application/json', connection: 'close' })
    response.end(errorEnvelope(MAX_REQUEST_SIZE.message), () => request.destroy())
    return BODY_REFUSED
  }
}

/** The body, from a body-parser that ran before us or from the stream. */
async function requestBody(request: IncomingMessage, limit: number): Promise<Uint8Array | undefined> {
  const parsed = (request as IncomingMessage & { body?: unknown }).body
  if (parsed instanceof Uint8Array) return parsed
  if (typeof parsed === 'string') return Buffer.from(parsed)
  if (parsed !== undefined && parsed !== null && typeof parsed === 'object' && request.readableEnded) {
    return Buffer.from(JSON.stringify(parsed))
  }
  if (request.readableEnded) return undefined
  const declared = Number(request.headers['content-length'] ?? 0)
  if (declared > limit) throw new BodyTooLargeError()
  const body = await readEmitterBody(request, limit)
  return body.length === 0 ? undefined : body
}

/** Errors the gateway could not answer: to `next`, else a 500 (or a dropped connection once headers left). */
function failed(error: unknown, response: ServerResponse, next: Next): void {
  if (next) return next(error)
  if (!response.headersSent) {
    response.writeHead(500, { 'content-type': 'application/json' })
    response.end(errorEnvelope('ERR internal error'))
  } else response.destroy()
}

type CompleteResponse = RestResponse & { readonly body: string | Uint8Array }

function isComplete(result: RestResponse): result is CompleteResponse {
  return typeof result.body === 'string' || result.body instanceof Uint8Array
}

// --- complete responses, written once per event-loop turn ------------------------------------

/**
 * Responses waiting for the end of this turn, three slots each: response, result, next.
 *
 * Why wait: a response written the moment it is ready wakes the client (and the kernel's
 * loopback path) once per request, while requests of other connections are still waiting to be
 * read. Written together after the turn's I/O (`setImmediate` runs right after the poll phase,
 * so the delay is that of the rest of the current turn, not a timer), they leave as one burst.
 * Order per connection is kept twice over: the queue is first in, first out, and Node holds the
 * response to a pipelined request until the one before it finished. Event streams are written
 * at once: they are long-lived and write as events come.
 */
let queued: unknown[] = []
let flushScheduled = false

function queueResponse(response: ServerResponse, result: CompleteResponse, next: Next): void {
  queued.push(response, result, next)
  if (!flushScheduled) {
    flushScheduled = true
    setImmediate(writeQueued)
  }
}

function writeQueued(): void {
  flushScheduled = false
  const batch = queued
  queued = []
  for (let i = 0; i < batch.length; i += 3) {
    const response = batch[i] as ServerResponse
    const next = batch[i + 2] as Next
    try {
      write(batch[i + 1] as CompleteResponse, response)
    } catch (error) {
      failed(error, response, next)
    }
  }
}

function write(result: CompleteResponse, response: ServerResponse): void {
  const { body } = result
  const length = typeof body === 'string' ? Buffer.byteLength(body) : body.length
  response.writeHead(result.status, headerList(result.headers, String(length)))
  response.end(body)
}

let lastHeaders: Readonly<Record<string, string>> | undefined
let lastList: readonly string[] = []

/**
 * `[name, value, …, 'content-length', length]`, the form `writeHead` stores without copying.
 * The gateway hands out the same frozen headers object for responses with the same headers, so
 * the list is made once for a run of them; an object that can change is listed every time.
 */
function headerList(headers: Readonly<Record<string, string>>, contentLength: string): string[] {
  let list: readonly string[]
  if (headers === lastHeaders) list = lastList
  else {
    const pairs: string[] = []
    for (const name of Object.keys(headers)) if (name !== 'content-length') pairs.push(name, headers[name])
    list = pairs
    if (Object.isFrozen(headers)) {
      lastHeaders = headers
      lastList = pairs
    }
  }
  const out = list.slice()
  out.push('content-length', contentLength)
  return out
}

// --- event streams ---------------------------------------------------------------------------

async function stream(result: RestResponse, response: ServerResponse): Promise<void> {
  const body = result.body as Exclude<RestResponse['body'], string | Uint8Array>
  response.writeHead(result.status, result.headers)
  response.flushHeaders()
  const client = new AbortController()
  const onClose = () => client.abort()
  response.on('close', onClose)
  try {
    await body.run(
      {
        write: (chunk) => response.write(chunk),
        get pending() {
          return response.writableLength
        },
        close: () => {
          if (!response.writableEnded) response.end()
        },
        abort: () => response.destroy(),
      },
      client.signal,
    )
  } finally {
    response.off('close', onClose)
  }
}
