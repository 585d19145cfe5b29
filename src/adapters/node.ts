import type { IncomingMessage, ServerResponse } from 'node:http'
import { createGateway, type Gateway, type GatewayOptions, type RestResponse } from '../rest/gateway.js'
import { MAX_REQUEST_SIZE } from '../rest/errors.js'
import { errorEnvelope } from '../rest/render.js'
import { BodyTooLargeError, readBody } from './body.js'

/**
 * A Node `http` request listener that is also Express/Connect middleware: with `next`, errors
 * the gateway cannot answer itself go to `next(error)`.
 * @public
 */
export type NodeHandler = (request: IncomingMessage, response: ServerResponse, next?: (error?: unknown) => void) => void

/**
 * Serves the protocol on Node's `http` (or Express, Connect, Fastify's raw handlers). Mounted
 * under a path (`app.use('/redis', handler)`), it sees the path below the mount point.
 * @public
 */
export function createNodeHandler(gateway: Gateway | GatewayOptions): NodeHandler {
  const core = 'handle' in gateway ? gateway : createGateway(gateway)
  return (request, response, next) => {
    handle(core, request, response).catch((error: unknown) => {
      if (next) return next(error)
      if (!response.headersSent) {
        response.writeHead(500, { 'content-type': 'application/json' })
        response.end(errorEnvelope('ERR internal error'))
      } else response.destroy()
    })
  }
}

async function handle(core: Gateway, request: IncomingMessage, response: ServerResponse): Promise<void> {
  let body: Uint8Array | undefined
  try {
    body = await requestBody(request, core.bodyLimit(request.url ?? '/'))
  } catch (error) {
    if (!(error instanceof BodyTooLargeError)) throw error
    // Answer at once, then drop the connection so the rest of the body is never read.
    response.writeHead(400, { 'content-type': 'application/json', connection: 'close' })
    response.end(errorEnvelope(MAX_REQUEST_SIZE.message), () => request.destroy())
    return
  }
  const socket = request.socket
  const result = await core.handle({
    method: request.method ?? 'GET',
    url: request.url ?? '/',
    headers: {
      get(name) {
        const value = request.headers[name.toLowerCase()]
        return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value
      },
    },
    body,
    remoteAddress: socket.remoteAddress === undefined ? undefined : `${socket.remoteAddress}:${socket.remotePort}`,
  })
  await send(result, response)
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
  const body = await readBody(request, limit)
  return body.length === 0 ? undefined : body
}

async function send(result: RestResponse, response: ServerResponse): Promise<void> {
  const { body } = result
  if (typeof body === 'string' || body instanceof Uint8Array) {
    response.writeHead(result.status, { ...result.headers, 'content-length': String(typeof body === 'string' ? Buffer.byteLength(body) : body.length) })
    response.end(body)
    return
  }
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
