/**
 * Options of the socket executor, the `redis://` / `rediss://` URL form, and their defaults.
 *
 */

import type { ConnectionOptions as TlsConnectionOptions } from 'node:tls'

/**
 * How to reach and talk to a RESP2 server. Give a `url`, separate fields, or both: fields given
 * explicitly win over what the URL says.
 * @public
 */
export interface SocketExecutorOptions {
  /**
   * `redis://[[user]:password@]host[:port][/db][?option=value…]`; `rediss://` is the same over
   * TLS. The query may carry `db`, `clientName` (or `name`), `connectTimeout`, `commandTimeout`,
   * `poolSize`, `maxPending`, `maxReplyBytes`, `password`, `username`, and for `rediss://`
   * `rejectUnauthorized=false` and `servername`.
   */
  readonly url?: string
  /** Default `127.0.0.1`. */
  readonly host?: string
  /** Default 6379. */
  readonly port?: number
  /** ACL user for `AUTH <username> <password>`; without it `AUTH <password>`. */
  readonly username?: string
  /** Sent with `AUTH` on every new connection. */
  readonly password?: string
  /** Logical database every connection SELECTs (default 0). `CallContext.db` overrides it per call. */
  readonly database?: number
  /** `CLIENT SETNAME` on every connection, so `CLIENT LIST` shows who is who. */
  readonly clientName?: string
  /**
   * TLS: `true` for defaults, or options passed to `tls.connect` (`ca`, `cert`, `key`,
   * `rejectUnauthorized`, `servername` …). `rediss://` URLs turn it on.
   */
  readonly tls?: boolean | TlsConnectionOptions
  /** Milliseconds to open a connection, handshake included. Default 5000. */
  readonly connectTimeout?: number
  /**
   * Milliseconds a command may wait for its reply, counted from the moment it is queued. When it
   * passes, the connection is destroyed (its later replies could no longer be matched) and every
   * command on it rejects: `OutcomeUnknownError` for those already written (the server may still
   * run them), `BackendUnavailableError` for those not yet written. 0 disables. Default 10000.
   */
  readonly commandTimeout?: number
  /** Connections per pool for plain commands and pipelines, and for transactions. Default 4. */
  readonly poolSize?: number
  /**
   * Most commands queued on one connection (written or waiting to be written, reply not yet
   * read). Beyond it a call rejects at once with `BackendUnavailableError` (not sent, safe to
   * retry). A pipeline or transaction longer than this is not refused: it goes out in slices of
   * this many commands, each once the previous one is answered, on a connection of its own.
   * Default 100000.
   */
  readonly maxPending?: number
  /**
   * Largest reply accepted, in bytes. A bigger one destroys the connection and its caller
   * rejects with {@link ReplyTooLargeError}. Default 512 MiB.
   */
  readonly maxReplyBytes?: number
  /** Reconnection backoff after a failed connection attempt: first delay, in ms. Default 50. */
  readonly reconnectDelay?: number
  /** Reconnection backoff: longest delay, in ms. Default 2000. */
  readonly maxReconnectDelay?: number
  /**
   * Most pools kept for other databases and ACL users (`CallContext`); the least recently used
   * idle one is closed beyond it. Default 64.
   */
  readonly maxPools?: number
  /**
   * Coalesce the commands issued in one turn of the event loop into one socket write (default
   * true): concurrent callers, e.g. the requests of many HTTP clients, share a write and a read.
   * Turning it off writes every call at once; only useful to measure the difference.
   */
  readonly coalesceWrites?: boolean
  /**
   * Send `READONLY` on every connection: a cluster replica then serves reads of its master's
   * slots. Set by the cluster executor for its replica pools (`readFromReplicas`).
   */
  readonly readOnly?: boolean
}

/** Everything a connection needs, defaults applied. */
export interface ConnectionConfig {
  readonly host: string
  readonly port: number
  readonly tls: TlsConnectionOptions | undefined
  readonly username: string | undefined
  readonly password: string | undefined
  readonly database: number
  readonly clientName: string | undefined
  readonly connectTimeout: number
  readonly commandTimeout: number
  readonly maxPending: number
  readonly maxReplyBytes: number
  readonly coalesceWrites: boolean
  readonly readOnly: boolean
}

/** Executor-wide settings, defaults applied. */
export interface ExecutorConfig extends ConnectionConfig {
  readonly poolSize: number
  readonly reconnectDelay: number
  readonly maxReconnectDelay: number
  readonly maxPools: number
}

export const DEFAULTS = {
  host: '127.0.0.1',
  port: 6379,
  connectTimeout: 5_000,
  commandTimeout: 10_000,
  poolSize: 4,
  maxPending: 100_000,
  maxReplyBytes: 512 * 1024 * 1024,
  reconnectDelay: 50,
  maxReconnectDelay: 2_000,
  maxPools: 64,
} as const

/** What a URL says, before defaults. */
export interface ParsedRedisUrl {
  host?: string
  port?: number
  username?: string
  password?: string
  database?: number
  clientName?: string
  tls?: TlsConnectionOptions
  connectTimeout?: number
  commandTimeout?: number
  poolSize?: number
  maxPending?: number
  maxReplyBytes?: number
}

function nonNegativeInteger(text: string, what: string): number {
  if (!/^\d+$/.test(text)) throw new TypeError(`invalid ${what} in Redis URL: '${text}'`)
  const n = Number(text)
  if (!Number.isSafeInteger(n)) throw new TypeError(`invalid ${what} in Redis URL: '${text}'`)
  return n
}

/**
 * Parses `redis://` and `rediss://` URLs: credentials (percent-decoded), host (IPv6 in
 * brackets), port, the database as the path (`/2`), and options in the query.
 * @throws TypeError for another scheme or a malformed value.
 * @public
 */
export function parseRedisUrl(text: string): ParsedRedisUrl {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new TypeError(`invalid Redis URL: '${redact(text)}'`)
  }
  const scheme = url.protocol
  if (scheme !== 'redis:' && scheme !== 'rediss:') {
    throw new TypeError(`unsupported Redis URL scheme '${scheme}': use redis:// or rediss://`)
  }
  const out: ParsedRedisUrl = {}
  if (url.hostname !== '') out.host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname
  if (url.port !== '') out.port = nonNegativeInteger(url.port, 'port')
  if (url.username !== '') out.username = decodeURIComponent(url.username)
  if (url.password !== '') out.password = decodeURIComponent(url.password)
  const path = url.pathname.replace(/^\/+/, '')
  if (path !== '') out.database = nonNegativeInteger(path, 'database')
  const tls: TlsConnectionOptions | undefined = scheme === 'rediss:' ? {} : undefined
  for (const [key, value] of url.searchParams) {
    switch (key) {
      case 'db':
        out.database = nonNegativeInteger(value, 'database')
        break
      case 'username':
      case 'user':
        out.username = value
        break
      case 'password':
        out.password = value
        break
      case 'clientName':
      case 'name':
        out.clientName = value
        break
      case 'connectTimeout':
      case 'commandTimeout':
      case 'poolSize':
      case 'maxPending':
      case 'maxReplyBytes':
        out[key] = nonNegativeInteger(value, key)
        break
      case 'rejectUnauthorized':
        if (tls === undefined) throw new TypeError(`'${key}' needs a rediss:// URL`)
        tls.rejectUnauthorized = value !== 'false' && value !== '0'
        break
      case 'servername':
        if (tls === undefined) throw new TypeError(`'${key}' needs a rediss:// URL`)
        tls.servername = value
        break
      default:
        throw new TypeError(`unknown Redis URL option '${key}'`)
    }
  }
  if (tls !== undefined) out.tls = tls
  return out
}

/** A URL with its password replaced, safe for error messages and logs. @public */
export function redact(text: string): string {
  return text.replace(/(\/\/[^:/@]*:)[^@/]*@/, '$1***@')
}

/** Merges URL, explicit options and defaults. */
export function resolveOptions(options: SocketExecutorOptions): ExecutorConfig {
  const fromUrl: ParsedRedisUrl = options.url !== undefined ? parseRedisUrl(options.url) : {}
  const pick = <K extends keyof ParsedRedisUrl & keyof SocketExecutorOptions>(key: K) =>
    (options[key] !== undefined ? options[key] : fromUrl[key]) as SocketExecutorOptions[K]
  let tls: TlsConnectionOptions | undefined
  if (options.tls === true) tls = { ...fromUrl.tls }
  else if (options.tls === false) tls = undefined
  else if (options.tls !== undefined) tls = { ...fromUrl.tls, ...options.tls }
  else tls = fromUrl.tls
  const host = pick('host') ?? DEFAULTS.host
  const config: ExecutorConfig = {
    host,
    port: pick('port') ?? DEFAULTS.port,
    tls: tls === undefined ? undefined : { servername: isIp(host) ? undefined : host, ...tls },
    username: pick('username'),
    password: pick('password'),
    database: pick('database') ?? 0,
    clientName: pick('clientName'),
    connectTimeout: pick('connectTimeout') ?? DEFAULTS.connectTimeout,
    commandTimeout: pick('commandTimeout') ?? DEFAULTS.commandTimeout,
    poolSize: pick('poolSize') ?? DEFAULTS.poolSize,
    maxPending: pick('maxPending') ?? DEFAULTS.maxPending,
    maxReplyBytes: pick('maxReplyBytes') ?? DEFAULTS.maxReplyBytes,
    reconnectDelay: options.reconnectDelay ?? DEFAULTS.reconnectDelay,
    maxReconnectDelay: options.maxReconnectDelay ?? DEFAULTS.maxReconnectDelay,
    maxPools: options.maxPools ?? DEFAULTS.maxPools,
    coalesceWrites: options.coalesceWrites ?? true,
    readOnly: options.readOnly ?? false,
  }
  check(Number.isInteger(config.port) && config.port > 0 && config.port < 65536, `invalid port: ${config.port}`)
  check(Number.isInteger(config.database) && config.database >= 0, `invalid database: ${config.database}`)
  check(Number.isInteger(config.poolSize) && config.poolSize >= 1, `poolSize must be at least 1`)
  check(config.maxPending >= 1, 'maxPending must be at least 1')
  check(config.maxReplyBytes >= 1, 'maxReplyBytes must be at least 1')
  check(config.connectTimeout >= 0 && config.commandTimeout >= 0, 'timeouts must not be negative')
  check(config.clientName === undefined || /^[!-~]+$/.test(config.clientName), 'clientName may not contain spaces or special characters')
  return config
}

function check(ok: boolean, message: string): void {
  if (!ok) throw new TypeError(message)
}

function isIp(host: string): boolean {
  return /^[\d.]+$/.test(host) || host.includes(':')
}
