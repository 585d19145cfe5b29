/**
 * The CLI flags of the RESP listener's limits (`--resp-max-clients`, `--resp-timeout` …), read
 * into {@link RespServerOptions}. Times are given in seconds and sizes with Redis's units
 * (`64mb`, `1gb`), as in a redis.conf; docs/protocol.md, "Limits of the RESP listener".
 */

import type { OutputBufferLimit, RespServerOptions } from './adapters/resp-server.js'

/** The limits a `restis` process passes to `serveResp` (plain data: it travels to workers). */
export type RespLimits = Pick<
  RespServerOptions,
  'maxClients' | 'authTimeout' | 'idleTimeout' | 'sendTimeout' | 'maxQueryBuffer' | 'maxBulkLength' | 'outputBufferLimits'
>

/** Milliseconds `restis` lets in-flight RESP commands reply on SIGTERM/SIGINT (below the workers' 5 s kill). */
export const RESP_SHUTDOWN_DEADLINE_MS = 4_000

/** The flags, as `parseArgs` takes them. */
export const RESP_LIMIT_FLAGS = {
  'resp-max-clients': { type: 'string' },
  'resp-auth-timeout': { type: 'string' },
  'resp-timeout': { type: 'string' },
  'resp-send-timeout': { type: 'string' },
  'resp-query-buffer-limit': { type: 'string' },
  'resp-proto-max-bulk-len': { type: 'string' },
  'resp-output-buffer-limit': { type: 'string', multiple: true },
} as const

export const RESP_LIMITS_USAGE = `RESP limits (docs/protocol.md; times in seconds, sizes as 64mb, 1gb):
  --resp-max-clients <n>          connections at once (default 10000, or half the open-file limit)
  --resp-auth-timeout <s>         close connections not authenticated in time (default 10)
  --resp-timeout <s>              close authenticated clients idle this long (default 0: never)
  --resp-send-timeout <s>         close clients that take none of their output this long (default 30; 0: never)
  --resp-query-buffer-limit <size>    unparsed input per client (default 1gb)
  --resp-proto-max-bulk-len <size>    largest argument (default 512mb)
  --resp-output-buffer-limit "<normal|pubsub> <hard> <soft> <soft seconds>"
                                  repeatable (default "normal 256mb 64mb 60", "pubsub 32mb 8mb 60")
`

type Values = { readonly [K in keyof typeof RESP_LIMIT_FLAGS]?: (typeof RESP_LIMIT_FLAGS)[K] extends { multiple: true } ? string[] : string }

/** Reads the flags; throws with the flag's name on a value that is not valid. */
export function readRespLimits(values: Values): RespLimits {
  const limits: { -readonly [K in keyof RespLimits]: RespLimits[K] } = {}
  const count = values['resp-max-clients']
  if (count !== undefined) {
    if (!/^[1-9][0-9]*$/.test(count)) throw new Error(`invalid --resp-max-clients: ${count} (a positive integer)`)
    limits.maxClients = Number(count)
  }
  const seconds = (flag: keyof Values, positive = false): number | undefined => {
    const text = values[flag] as string | undefined
    if (text === undefined) return undefined
    const value = Number(text)
    if (text.trim() === '' || !Number.isFinite(value) || value < 0 || (positive && value === 0)) {
      throw new Error(`invalid --${flag}: ${text} (${positive ? 'a positive' : 'a non-negative'} number of seconds)`)
    }
    return Math.round(value * 1000)
  }
  limits.authTimeout = seconds('resp-auth-timeout', true)
  limits.idleTimeout = seconds('resp-timeout')
  limits.sendTimeout = seconds('resp-send-timeout')
  const query = values['resp-query-buffer-limit']
  if (query !== undefined) limits.maxQueryBuffer = positiveSize('--resp-query-buffer-limit', query)
  const bulk = values['resp-proto-max-bulk-len']
  if (bulk !== undefined) limits.maxBulkLength = positiveSize('--resp-proto-max-bulk-len', bulk)
  const classes: { normal?: OutputBufferLimit; pubsub?: OutputBufferLimit } = {}
  for (const spec of values['resp-output-buffer-limit'] ?? []) {
    const [name, hard, soft, softSeconds, ...rest] = spec.trim().split(/\s+/)
    if ((name !== 'normal' && name !== 'pubsub') || softSeconds === undefined || rest.length > 0) {
      throw new Error(`invalid --resp-output-buffer-limit: "${spec}" ("<normal|pubsub> <hard> <soft> <soft seconds>")`)
    }
    if (!/^[0-9]+$/.test(softSeconds)) throw new Error(`invalid --resp-output-buffer-limit: "${spec}" (soft seconds: an integer)`)
    const flag = '--resp-output-buffer-limit'
    classes[name] = { hard: parseSize(flag, hard), soft: parseSize(flag, soft), softMs: Number(softSeconds) * 1000 }
  }
  if (classes.normal !== undefined || classes.pubsub !== undefined) limits.outputBufferLimits = classes
  for (const key of Object.keys(limits) as (keyof RespLimits)[]) if (limits[key] === undefined) delete limits[key]
  return limits
}

const UNITS: Readonly<Record<string, number>> = { '': 1, b: 1, k: 1000, kb: 1024, m: 1e6, mb: 1024 ** 2, g: 1e9, gb: 1024 ** 3 }

/** A size as redis.conf writes it (Redis's `memtoll`): `100`, `16kb`, `64mb`, `1gb`, `1g` (= 10^9). */
export function parseSize(flag: string, text: string): number {
  const match = /^([0-9]+)([a-z]*)$/i.exec(text)
  const unit = match === null ? undefined : UNITS[match[2].toLowerCase()]
  if (match === null || unit === undefined) throw new Error(`invalid ${flag}: ${text} (a size such as 1048576, 64mb, 1gb)`)
  const value = Number(match[1]) * unit
  if (!Number.isSafeInteger(value)) throw new Error(`invalid ${flag}: ${text} (too large)`)
  return value
}

function positiveSize(flag: string, text: string): number {
  const value = parseSize(flag, text)
  if (value === 0) throw new Error(`invalid ${flag}: ${text} (must be above 0)`)
  return value
}
