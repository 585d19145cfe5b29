/**
 * The framework-free HTTP core every endpoint of the project is written against: the REST
 * gateway, the queue service and the workflow endpoint are each an {@link HttpService}, and one
 * Node adapter (`node-listener.ts`) and one Fetch adapter (`fetch-listener.ts`) drive them all.
 * The adapters read the body once, up to the service's limit, and answer a body over it with the
 * service's own refusal, before the service sees the request.
 */
import type { EventStream } from '../rest/sse.js'

/** Header lookup; a Fetch `Headers` object fits. */
export interface HttpHeaders {
  /** The value of a header (case-insensitive name), repeated values joined with `, `. */
  get(name: string): string | null
  /** Every header as (value, lower-case name), a repeated header once per value. */
  forEach(callback: (value: string, name: string) => void): void
}

/** A request as a service sees it, whatever server received it. */
export interface HttpRequest {
  /** HTTP method as sent. */
  readonly method: string
  /** Path and query as in the request line, still percent-encoded (below a framework's mount point). */
  readonly url: string
  /** The absolute URL the client asked for: scheme, `Host`, and the full path (mount point included). */
  readonly href: string
  readonly headers: HttpHeaders
  /** The whole body, when there is one. */
  readonly body?: Uint8Array
  /** Peer address, `host:port`, when the server knows it. */
  readonly remoteAddress?: string
}

/** A response: text, bytes, or an event stream the adapter pipes to the client. */
export interface HttpResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string | Uint8Array | EventStream
}

/** A request before its body was read: what a service can check from the request line and headers. */
export type HttpRequestHead = Omit<HttpRequest, 'body'>

/** What an adapter drives. */
export interface HttpService {
  handle(request: HttpRequest): Promise<HttpResponse>
  /**
   * Called before the body of a request that has one is read: a response here (a 401 for a
   * request without a valid token) is sent without reading the body, and the connection closed,
   * so a client that may not use the service cannot make it hold a body in memory.
   */
  beforeBody?(request: HttpRequestHead): HttpResponse | undefined | Promise<HttpResponse | undefined>
  /** The largest body the adapter reads for a request to `url` (path and query). */
  bodyLimit(url: string): number
  /** The answer to a body over {@link HttpService.bodyLimit}; adapters then close the connection. */
  bodyTooLarge(url: string): HttpResponse
}

/**
 * The status of a body over a service's limit: 413 Content Too Large (RFC 9110, 15.5.14). The
 * REST gateway keeps the 400 its protocol specifies (see `rest/errors.ts`).
 */
export const CONTENT_TOO_LARGE = 413

/** A JSON response. */
export function jsonResponse(status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): HttpResponse {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }
}

/** The headers of a request as a Fetch `Headers` object (the same object when they are one). */
export function fetchHeaders(headers: HttpHeaders): Headers {
  if (headers instanceof Headers) return headers
  const copy = new Headers()
  headers.forEach((value, name) => copy.append(name, value))
  return copy
}
