/**
 * The command line's overload limits: the flags, their defaults, and how they set up the HTTP
 * server, the Node adapter and the gateway. In the spirit of Redis's `maxclients`, `timeout` and
 * client buffer limits; docs/protocol.md, "Limits", lists them all.
 */
import type { Server as HttpServer, ServerOptions } from 'node:http'
import { DEFAULT_MAX_PIPELINE_ROWS, DEFAULT_MAX_REPLY_BYTES } from './rest/gateway.js'
import { DEFAULT_MAX_BODY_BYTES_IN_FLIGHT, DEFAULT_SEND_TIMEOUT, type NodeListenerOptions } from './adapters/node-listener.js'

/** The limits, in the units the server takes (ms, bytes, counts). */
export interface ServerLimits {
  readonly maxConnections: number
  readonly headersTimeout: number
  readonly requestTimeout: number
  readonly keepAliveTimeout: number
  readonly sendTimeout: number
  readonly maxBodyBytesInFlight: number
  readonly maxPipelineRows: number
  readonly maxReplyBytes: number
  readonly shutdownTimeout: number
}

/** Flag name → [field, unit, default in the field's unit, help]. Seconds on the command line, ms inside. */
const FLAGS = {
  'max-connections': ['maxConnections', 'count', 10_000, 'HTTP connections at once; more are closed at once (default 10000)'],
  'headers-timeout': ['headersTimeout', 's', 10_000, "seconds for a request's headers to arrive (default 10)"],
  'request-timeout': ['requestTimeout', 's', 60_000, 'seconds for a whole request, body included, to arrive (default 60)'],
  'keep-alive-timeout': ['keepAliveTimeout', 's', 5_000, 'seconds an idle HTTP connection is kept between requests (default 5)'],
  'send-timeout': ['sendTimeout', 's', DEFAULT_SEND_TIMEOUT, 'seconds a client may take none of its reply or event stream before it is dropped (default 30; 0 never)'],
  'max-body-bytes-in-flight': ['maxBodyBytesInFlight', 'count', DEFAULT_MAX_BODY_BYTES_IN_FLIGHT, 'bytes of request bodies held at once, all requests together; over it 503 (default 268435456)'],
  'max-pipeline-rows': ['maxPipelineRows', 'count', DEFAULT_MAX_PIPELINE_ROWS, 'commands in one /pipeline or /multi-exec body (default 100000)'],
  'max-reply-bytes': ['maxReplyBytes', 'count', DEFAULT_MAX_REPLY_BYTES, 'largest reply rendered for one request, bytes (default 134217728)'],
  'shutdown-timeout': ['shutdownTimeout', 's', 10_000, 'on SIGTERM/SIGINT, seconds requests in flight get to finish (default 10)'],
} as const satisfies Record<string, readonly [keyof ServerLimits, 's' | 'count', number, string]>

/** The flags for `parseArgs`. */
export const LIMIT_FLAGS = Object.fromEntries(Object.keys(FLAGS).map((name) => [name, { type: 'string' as const }])) as Record<keyof typeof FLAGS, { type: 'string' }>

/** The usage lines of the flags. */
export const LIMITS_USAGE = Object.entries(FLAGS)
  .map(([name, [, unit, , help]]) => `  --${`${name} <${unit === 's' ? 's' : 'n'}>`.padEnd(37)}${help}\n`)
  .join('')

/** The limits the flags give; a value that is not a number (or is negative) throws a message naming the flag. */
export function readLimits(values: Partial<Record<keyof typeof FLAGS, string | undefined>>): ServerLimits {
  const limits: Record<string, number> = {}
  for (const [name, [field, unit, fallback]] of Object.entries(FLAGS)) {
    const text = values[name as keyof typeof FLAGS]
    if (text === undefined) {
      limits[field] = fallback
      continue
    }
    const value = Number(text)
    if (text.trim() === '' || !Number.isFinite(value) || value < 0 || (unit === 'count' && !Number.isInteger(value))) {
      throw new Error(`invalid --${name}: ${text} (${unit === 's' ? 'seconds, 0 or more' : 'a whole number'})`)
    }
    limits[field] = unit === 's' ? Math.round(value * 1000) : value
  }
  for (const field of ['maxConnections', 'maxBodyBytesInFlight', 'maxPipelineRows', 'maxReplyBytes'] as const) {
    if (limits[field] < 1) throw new Error(`invalid ${field}: must be at least 1`)
  }
  return limits as unknown as ServerLimits
}

/**
 * Options of `http.createServer` for the limits. The header and request timeouts are checked
 * every second (Node checks every 30 s by default, which would let a slow client hold a socket
 * for up to half a minute past them).
 */
export function serverOptions(limits: ServerLimits): ServerOptions {
  return {
    headersTimeout: limits.headersTimeout,
    requestTimeout: Math.max(limits.requestTimeout, limits.headersTimeout),
    keepAliveTimeout: limits.keepAliveTimeout,
    connectionsCheckingInterval: 1000,
  }
}

/** Caps the connections of a server: past `maxConnections`, Node closes a new connection as it is accepted. */
export function capConnections(server: HttpServer, limits: ServerLimits): void {
  server.maxConnections = limits.maxConnections
  server.keepAliveTimeout = limits.keepAliveTimeout
}

export function listenerOptions(limits: ServerLimits): NodeListenerOptions {
  return { sendTimeout: limits.sendTimeout, maxBodyBytesInFlight: limits.maxBodyBytesInFlight }
}

/**
 * Closes an HTTP server gracefully: no new connections, idle ones closed, each busy one closed as
 * soon as its response is written, event streams ended; whatever is still open after `timeout`
 * ms is destroyed. Resolves once every connection is gone.
 */
export function closeGracefully(server: HttpServer, endStreams: () => void, timeout: number): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => {
      clearInterval(sweep)
      clearTimeout(deadline)
      resolve()
    })
    endStreams()
    server.closeIdleConnections()
    // A connection becomes idle once its response is written: closed then, not kept alive.
    const sweep = setInterval(() => server.closeIdleConnections(), 50)
    const deadline = setTimeout(() => server.closeAllConnections(), timeout)
  })
}
