import type { EventStream } from '../rest/sse.js'
import type { HttpResponse, HttpService } from './http.js'
import { BodyTooLargeError, readBody } from './body.js'

/** A Web Fetch handler: Bun, Deno, Cloudflare Workers, Next.js route handlers, Hono. @public */
export type FetchHandler = (request: Request) => Promise<Response>

const encoder = new TextEncoder()

/** Serves an {@link HttpService} as a Fetch handler. */
export function fetchListener(service: HttpService): FetchHandler {
  return async (request) => {
    const url = new URL(request.url)
    const target = url.pathname + url.search
    let body: Uint8Array | undefined
    if (request.body !== null && service.beforeBody !== undefined) {
      // Settled from the head (no valid token): answered without reading the body.
      const refusal = await service.beforeBody({ method: request.method, url: target, href: request.url, headers: request.headers })
      if (refusal !== undefined) {
        await request.body.cancel().catch(() => {})
        return toResponse(refusal, request.signal)
      }
    }
    if (request.body !== null) {
      const limit = service.bodyLimit(target)
      try {
        const declared = Number(request.headers.get('content-length') ?? 0)
        if (declared > limit) throw new BodyTooLargeError()
        body = await readBody(request.body as unknown as AsyncIterable<Uint8Array>, limit)
      } catch (error) {
        if (error instanceof BodyTooLargeError) {
          await request.body.cancel().catch(() => {})
          return toResponse(service.bodyTooLarge(target), request.signal)
        }
        throw error
      }
    }
    const response = await service.handle({ method: request.method, url: target, href: request.url, headers: request.headers, body })
    return toResponse(response, request.signal)
  }
}

function toResponse(response: HttpResponse, requestSignal: AbortSignal): Response {
  const { body } = response
  if (typeof body === 'string' || body instanceof Uint8Array) {
    // A 204 (a CORS preflight) must not have a body, not even an empty one.
    const payload = response.status === 204 || response.status === 304 ? null : (body as BodyInit)
    return new Response(payload, { status: response.status, headers: response.headers })
  }
  return new Response(sseReadable(body, requestSignal), { status: response.status, headers: response.headers })
}

/** An event stream as a byte ReadableStream; cancelling it (client gone) ends the stream. */
function sseReadable(stream: EventStream, requestSignal: AbortSignal): ReadableStream<Uint8Array> {
  const client = new AbortController()
  const onRequestAbort = () => client.abort()
  requestSignal.addEventListener('abort', onRequestAbort, { once: true })
  let controllerRef: ReadableStreamDefaultController<Uint8Array>
  let closed = false
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        controllerRef = controller
        void stream.run(
          {
            write(chunk) {
              if (closed) return false
              controllerRef.enqueue(encoder.encode(chunk))
              return (controllerRef.desiredSize ?? 0) > 0
            },
            get pending() {
              return closed ? 0 : 64 * 1024 - (controllerRef.desiredSize ?? 0)
            },
            close() {
              if (closed) return
              closed = true
              requestSignal.removeEventListener('abort', onRequestAbort)
              try {
                controllerRef.close()
              } catch {
                // already cancelled by the client
              }
            },
            abort() {
              if (closed) return
              closed = true
              requestSignal.removeEventListener('abort', onRequestAbort)
              controllerRef.error(new Error('client too slow: event buffer overflowed'))
            },
          },
          client.signal,
        )
      },
      cancel() {
        closed = true
        client.abort()
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark: 64 * 1024 }),
  )
}
