import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { HttpHeaders, HttpRequest, HttpResponse, HttpService } from './http.js'
import { BodyTooLargeError, readEmitterBody } from './body.js'

/**
 * Limits of the Node adapter on what one process holds for its clients.
 * @public
 */
export interface NodeListenerOptions {
  /**
   * Bytes of request bodies held at once, all requests together (from the first byte read until
   * the response is written). A body that would pass it is refused with 503 and `Retry-After: 1`
   * rather than waited for: a waiting upload still holds its socket. Default 256 MiB.
   */
  readonly maxBodyBytesInFlight?: number
  /**
   * A client that takes none of a response's bytes for this long, ms (a reply, or an event
   * stream with data waiting) has its connection closed and the response's memory freed.
   * Default 30000; 0 waits forever.
   */
  readonly sendTimeout?: number
}

const MIB = 1024 * 1024
export const DEFAULT_MAX_BODY_BYTES_IN_FLIGHT = 256 * MIB
export const DEFAULT_SEND_TIMEOUT = 30_000

/** What the listener keeps across requests. */
interface ListenerState {
  readonly service: HttpService
  readonly maxBodyBytesInFlight: number
  readonly sendTimeout: number
  bodyBytesInFlight: number
  /** The event streams running, by the controller that ends each. */
  readonly streams: Set<AbortController>
}

/**
 * A Node `http` request listener that is also Express/Connect middleware: with `next`, errors
 * the service cannot answer itself go to `next(error)`.
 * @public
 */
export type NodeHandler = (request: IncomingMessage, response: ServerResponse, next?: (error?: unknown) => void) => void

type Next = ((error?: unknown) => void) | undefined

/**
 * A {@link NodeHandler} that can end its event streams (`/monitor`, `/subscribe`) cleanly, each
 * with the end of its response, as a server does when it shuts down.
 * @public
 */
export type StreamingNodeHandler = NodeHandler & { endStreams(): void }

/**
 * Serves an {@link HttpService} on Node's `http` (or Express, Connect, Fastify's raw handlers).
 * Mounted under a path (`app.use('/redis', handler)`), the service sees the path below the mount
 * point as `url` (and the whole one in `href`).
 *
 * Complete responses (not event streams) are written at the end of the event-loop turn that
 * produced them, together with the others of that turn (see {@link queueResponse}).
 */
export function nodeListener(service: HttpService, options: NodeListenerOptions = {}): StreamingNodeHandler {
  const state: ListenerState = {
    service,
    maxBodyBytesInFlight: options.maxBodyBytesInFlight ?? DEFAULT_MAX_BODY_BYTES_IN_FLIGHT,
    sendTimeout: options.sendTimeout ?? DEFAULT_SEND_TIMEOUT,
    bodyBytesInFlight: 0,
    streams: new Set(),
  }
  if (!(state.maxBodyBytesInFlight > 0)) throw new RangeError('maxBodyBytesInFlight must be positive')
  if (!(state.sendTimeout >= 0)) throw new RangeError('sendTimeout must not be negative')
  const handler: NodeHandler = (request, response, next) => {
    const socket = request.socket as Socket | null
    const earlier = socket === null ? undefined : waitingDispatch.get(socket)
    const hasBody = hasBodyToRead(request)
    if (earlier === undefined && !hasBody) {
      dispatch(state, request, response, next, undefined)
      return
    }
    const reading = hasBody ? readRequestBody(state, request, response) : Promise.resolve(undefined)
    // Rejections are handled once it is this request's turn; until then, not "unhandled".
    reading.catch(() => {})
    const afterEarlier = earlier === undefined ? reading : earlier.then(() => reading, () => reading)
    const turn = afterEarlier.then(
      (body) => {
        if (body !== BODY_REFUSED) dispatch(state, request, response, next, body)
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
  return Object.assign(handler, {
    endStreams: () => {
      for (const stream of state.streams) stream.abort()
    },
  })
}

const BODY_REFUSED = Symbol('body refused')

/**
 * Per connection, the turn of the last request that is not handed to the gateway yet (its body
 * is still arriving). A request pipelined after it on the same connection waits for it, so the
 * gateway runs the requests of a connection in the order they were sent, even when a request
 * without a body (dispatched at once) follows one whose body takes a while.
 */
const waitingDispatch = new WeakMap<Socket, Promise<void>>()

function dispatch(state: ListenerState, request: IncomingMessage, response: ServerResponse, next: Next, body: Uint8Array | undefined): void {
  let answer: Promise<HttpResponse>
  try {
    answer = state.service.handle(new NodeRequest(request, body))
  } catch (error) {
    // A service of the caller's own may throw instead of rejecting.
    failed(error, response, next)
    return
  }
  answer.then(
    (result) => {
      if (isComplete(result)) queueResponse(response, result, next, state.sendTimeout)
      else stream(result, response, state).catch((error: unknown) => failed(error, response, next))
    },
    (error: unknown) => failed(error, response, next),
  )
}

/** What a service sees of an `IncomingMessage`. */
class NodeRequest implements HttpRequest {
  readonly method: string
  readonly url: string
  readonly headers: NodeHeaders
  readonly body: Uint8Array | undefined
  readonly remoteAddress: string | undefined

  constructor(
    private readonly request: IncomingMessage,
    body: Uint8Array | undefined,
  ) {
    this.method = request.method ?? 'GET'
    this.url = request.url ?? '/'
    this.headers = new NodeHeaders(request.headers)
    this.body = body
    this.remoteAddress = remoteAddressOf(request.socket)
  }

  /** Made when asked (the gateway never asks): scheme from the socket, `Host`, and Express's `originalUrl`. */
  get href(): string {
    const encrypted = (this.request.socket as { encrypted?: boolean } | null)?.encrypted === true
    const path = (this.request as IncomingMessage & { originalUrl?: string }).originalUrl ?? this.url
    return `${encrypted ? 'https' : 'http'}://${this.request.headers.host ?? 'localhost'}${path}`
  }
}

class NodeHeaders implements HttpHeaders {
  constructor(private readonly headers: IncomingMessage['headers']) {}

  get(name: string): string | null {
    const value = this.headers[name.toLowerCase()]
    return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value
  }

  forEach(callback: (value: string, name: string) => void): void {
    for (const [name, value] of Object.entries(this.headers)) {
      if (value === undefined) continue
      if (Array.isArray(value)) for (const item of value) callback(item, name)
      else callback(value, name)
    }
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

/**
 * The body, or {@link BODY_REFUSED} once the request has been answered without it: refused by
 * the service from its head (no valid token), too large, or over the bytes in flight.
 */
async function readRequestBody(state: ListenerState, request: IncomingMessage, response: ServerResponse): Promise<Uint8Array | undefined | typeof BODY_REFUSED> {
  const { service } = state
  const url = request.url ?? '/'
  if (service.beforeBody !== undefined) {
    const refusal = await service.beforeBody(new NodeRequest(request, undefined))
    if (refusal !== undefined) return refuseBody(request, response, refusal)
  }
  let held = 0
  const hold = (bytes: number): boolean => {
    if (state.bodyBytesInFlight + bytes > state.maxBodyBytesInFlight) return false
    state.bodyBytesInFlight += bytes
    held += bytes
    return true
  }
  // Released once the response is written (or the connection gone): the body is held until then.
  response.once('close', () => (state.bodyBytesInFlight -= held))
  try {
    return await requestBody(request, service.bodyLimit(url), hold)
  } catch (error) {
    if (error instanceof BodyTooLargeError) return refuseBody(request, response, service.bodyTooLarge(url))
    if (error instanceof BodiesInFlightError) return refuseBody(request, response, busy(state.maxBodyBytesInFlight))
    throw error
  }
}

class BodiesInFlightError extends Error {}

function busy(limit: number) {
  return {
    status: 503,
    headers: { 'content-type': 'application/json', 'retry-after': '1' },
    body: JSON.stringify({ error: `ERR server busy: request bodies in flight would pass ${limit} bytes (maxBodyBytesInFlight); retry later` }),
  }
}

/**
 * How much of a refused body is read and dropped, and how long its connection stays open after
 * the answer, so the client can read the refusal.
 */
const DRAIN_BYTES = MIB
const DRAIN_MS = 2000

/**
 * Answers without the body, then closes the connection. Closing a socket with unread data resets
 * it (RFC 9293, 3.6.1), and a reset makes the client's system drop what it had received and not
 * yet read, the answer included. So the connection closes only after {@link DRAIN_MS}: up to
 * {@link DRAIN_BYTES} of the body are read and dropped, then reading stops, so TCP's flow control
 * holds a client that is still sending while it reads the answer.
 */
function refuseBody(request: IncomingMessage, response: ServerResponse, refusal: HttpResponse): typeof BODY_REFUSED {
  const body = typeof refusal.body === 'string' || refusal.body instanceof Uint8Array ? refusal.body : ''
  const socket = request.socket
  const close = () => {
    clearTimeout(timer)
    socket.destroy()
  }
  const timer = setTimeout(close, DRAIN_MS)
  timer.unref()
  // Node's server destroys a `connection: close` socket as soon as the answer is written (its
  // destroySoon); here it only ends our side (FIN), and the timer above closes the rest.
  socket.destroySoon = () => void socket.end()
  let drained = 0
  socket.on('data', (chunk: Buffer) => {
    drained += chunk.length
    if (drained > DRAIN_BYTES) socket.pause()
  })
  socket.once('close', () => clearTimeout(timer))
  response.writeHead(refusal.status, { ...refusal.headers, connection: 'close' })
  response.end(body)
  request.resume()
  return BODY_REFUSED
}

/** The body, from a body-parser that ran before us or from the stream; `hold` accounts the bytes in flight. */
async function requestBody(request: IncomingMessage, limit: number, hold: (bytes: number) => boolean): Promise<Uint8Array | undefined> {
  const parsed = (request as IncomingMessage & { body?: unknown }).body
  if (parsed instanceof Uint8Array) return parsed
  if (typeof parsed === 'string') return Buffer.from(parsed)
  if (parsed !== undefined && parsed !== null && typeof parsed === 'object' && request.readableEnded) {
    return Buffer.from(JSON.stringify(parsed))
  }
  if (request.readableEnded) return undefined
  const declared = Number(request.headers['content-length'] ?? 0)
  if (declared > limit) throw new BodyTooLargeError()
  // A declared length is held at once; a chunked body as its chunks arrive.
  if (declared > 0 && !hold(declared)) throw new BodiesInFlightError()
  const onChunk =
    declared > 0
      ? undefined
      : (bytes: number) => {
          if (!hold(bytes)) throw new BodiesInFlightError()
        }
  const body = await readEmitterBody(request, limit, onChunk)
  return body.length === 0 ? undefined : body
}

/** Errors the service could not answer: to `next`, else a 500 (or a dropped connection once headers left). */
function failed(error: unknown, response: ServerResponse, next: Next): void {
  if (next) return next(error)
  if (!response.headersSent) {
    response.writeHead(500, { 'content-type': 'application/json' })
    response.end(INTERNAL_ERROR)
  } else response.destroy()
}

/** The REST protocol's error envelope, which every service's clients read as an error. */
const INTERNAL_ERROR = JSON.stringify({ error: 'ERR internal error' })

type CompleteResponse = HttpResponse & { readonly body: string | Uint8Array }

function isComplete(result: HttpResponse): result is CompleteResponse {
  return typeof result.body === 'string' || result.body instanceof Uint8Array
}

// --- complete responses, written once per event-loop turn ------------------------------------

/**
 * Responses waiting for the end of this turn, four slots each: response, result, next, send timeout.
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

function queueResponse(response: ServerResponse, result: CompleteResponse, next: Next, sendTimeout: number): void {
  queued.push(response, result, next, sendTimeout)
  if (!flushScheduled) {
    flushScheduled = true
    setImmediate(writeQueued)
  }
}

function writeQueued(): void {
  flushScheduled = false
  const batch = queued
  queued = []
  for (let i = 0; i < batch.length; i += 4) {
    const response = batch[i] as ServerResponse
    const next = batch[i + 2] as Next
    try {
      write(batch[i + 1] as CompleteResponse, response, batch[i + 3] as number)
    } catch (error) {
      failed(error, response, next)
    }
  }
}

function write(result: CompleteResponse, response: ServerResponse, sendTimeout: number): void {
  const { body } = result
  const length = typeof body === 'string' ? Buffer.byteLength(body) : body.length
  response.writeHead(result.status, headerList(result.headers, String(length)))
  if (length <= WRITE_SLICE) response.end(body)
  else writeInSlices(typeof body === 'string' ? Buffer.from(body) : body, response, sendTimeout)
}

/** Replies larger than this leave in slices of this size, one after the other as the client takes them. */
const WRITE_SLICE = 256 * 1024

/**
 * Writes a large reply a slice at a time, the next once the socket drained: the socket holds at
 * most a slice beyond the reply itself, instead of a second copy of it. A client that takes
 * nothing for `sendTimeout` ms has its connection destroyed, which frees the reply.
 */
function writeInSlices(body: Uint8Array, response: ServerResponse, sendTimeout: number): void {
  let offset = 0
  let timer: NodeJS.Timeout | undefined
  const stalled = () => response.destroy()
  const done = () => {
    if (timer !== undefined) clearTimeout(timer)
    response.off('drain', more)
  }
  const more = () => {
    if (timer !== undefined) clearTimeout(timer)
    while (offset < body.length && !response.destroyed) {
      const end = Math.min(offset + WRITE_SLICE, body.length)
      const slice = body.subarray(offset, end)
      offset = end
      if (offset === body.length) {
        done()
        response.end(slice)
        return
      }
      if (!response.write(slice)) break
    }
    if (sendTimeout > 0 && !response.destroyed) timer = setTimeout(stalled, sendTimeout)
  }
  response.on('drain', more)
  response.once('close', done)
  more()
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

async function stream(result: HttpResponse, response: ServerResponse, state: ListenerState): Promise<void> {
  const { sendTimeout } = state
  const body = result.body as Exclude<HttpResponse['body'], string | Uint8Array>
  response.writeHead(result.status, result.headers)
  response.flushHeaders()
  const client = new AbortController()
  const onClose = () => client.abort()
  response.on('close', onClose)
  const watchdog = sendTimeout > 0 ? watchStalls(response, sendTimeout) : undefined
  state.streams.add(client)
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
    state.streams.delete(client)
    if (watchdog !== undefined) clearInterval(watchdog)
  }
}

/**
 * Destroys a long-lived response whose client has taken none of the data waiting for it for
 * `sendTimeout` ms (an event stream's buffer limit bounds the memory; this bounds the time).
 */
function watchStalls(response: ServerResponse, sendTimeout: number): NodeJS.Timeout {
  let lastProgress = Date.now()
  let lastPending = 0
  const timer = setInterval(
    () => {
      const pending = response.writableLength
      const now = Date.now()
      if (pending === 0 || pending < lastPending) lastProgress = now
      lastPending = pending
      if (now - lastProgress >= sendTimeout) response.destroy()
    },
    Math.max(10, Math.floor(sendTimeout / 4)),
  )
  timer.unref()
  response.on('drain', () => (lastProgress = Date.now()))
  return timer
}
