/**
 * Cross-origin resource sharing for browser clients (opt-in). Browsers send `Authorization`,
 * so every cross-origin call is preflighted: the gateway answers `OPTIONS` for allowed origins
 * and adds `Access-Control-Allow-Origin` and `Access-Control-Expose-Headers` (the sync token) to
 * every response, errors included, so pages can read error texts. Credentials (cookies) are
 * never allowed: tokens travel in the `Authorization` header.
 *
 */
import type { RestResponse } from './gateway.js'
import type { RestRequest } from './request.js'

/** Options of the `cors` gateway option. @public */
export interface CorsOptions {
  /**
   * Origins allowed to call the gateway from a browser: a list of exact origins
   * (`https://app.example.com`, scheme, host and port), `'*'` for any origin, or a function.
   */
  readonly origins: readonly string[] | '*' | ((origin: string) => boolean)
  /** How long browsers may cache a preflight answer, seconds. Default 600. */
  readonly maxAge?: number
}

/** The gateway's use of {@link CorsOptions}. */
export interface CorsPolicy {
  /** The answer to an `OPTIONS` request. */
  preflight(origin: string | null, headers: RestRequest['headers']): RestResponse
  /** Adds the CORS headers to a response when the origin is allowed. */
  decorate(origin: string | null, response: RestResponse): RestResponse
}

const METHODS = 'GET, HEAD, POST, PUT'
const EXPOSED = 'Service-Sync-Token, Upstash-Sync-Token, Retry-After'
/** Request headers a client of the protocol sends. */
const ALLOWED_HEADERS = [
  'authorization',
  'content-type',
  'service-encoding',
  'service-response-format',
  'service-sync-token',
  'upstash-encoding',
  'upstash-response-format',
  'upstash-sync-token',
  'cache-control',
]
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

export function corsPolicy(options: CorsOptions): CorsPolicy {
  const { origins } = options
  const list = Array.isArray(origins) ? new Set(origins as readonly string[]) : undefined
  const allowed = (origin: string | null): origin is string => {
    if (origin === null || origin === '') return false
    if (origins === '*') return true
    if (typeof origins === 'function') return origins(origin)
    return list!.has(origin)
  }
  const maxAge = String(options.maxAge ?? 600)
  return {
    preflight(origin, headers): RestResponse {
      if (!allowed(origin)) {
        return {
          status: 403,
          headers: { 'content-type': 'application/json', vary: 'Origin' },
          body: '{"error":"ERR origin not allowed"}',
        }
      }
      // Requested headers are echoed when they are well-formed header names: the gateway ignores
      // headers it does not know (client telemetry, for example), so allowing them is harmless.
      const requested = (headers.get('access-control-request-headers') ?? '')
        .split(',')
        .map((h) => h.trim().toLowerCase())
        .filter((h) => h !== '' && HEADER_NAME.test(h))
      const allowHeaders = [...new Set([...ALLOWED_HEADERS, ...requested])].join(', ')
      return {
        status: 204,
        headers: {
          'access-control-allow-origin': origins === '*' ? '*' : origin,
          'access-control-allow-methods': METHODS,
          'access-control-allow-headers': allowHeaders,
          'access-control-max-age': maxAge,
          vary: 'Origin, Access-Control-Request-Headers',
        },
        body: '',
      }
    },
    decorate(origin, response) {
      if (!allowed(origin)) return origins === '*' || origin === null ? response : { ...response, headers: { ...response.headers, vary: 'Origin' } }
      return {
        ...response,
        headers: {
          ...response.headers,
          'access-control-allow-origin': origins === '*' ? '*' : origin,
          'access-control-expose-headers': EXPOSED,
          vary: 'Origin',
        },
      }
    },
  }
}
