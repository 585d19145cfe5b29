/**
 * Flow control (`Upstash-Flow-Control-Key` + `Upstash-Flow-Control-Value: parallelism=2, rate=10,
 * period=1m`): messages sharing a key are delivered with at most `parallelism` in flight and at
 * most `rate` deliveries started per `period` (default 1 s), counted across every queue process
 * that shares the executor. A delivery takes a slot with one Lua script (atomic on the in-memory
 * engine and on Redis); a message that finds no slot goes back to the schedule without spending
 * an attempt, and its slot is released when its attempt settles (or when its lease ends, should
 * the process die).
 */
import { StoreError, text, type QueueStore } from './store.js'
import type { Command, Reply } from '../reply.js'

export const FLOW_CONTROL_KEY_HEADER = 'Upstash-Flow-Control-Key'
export const FLOW_CONTROL_VALUE_HEADER = 'Upstash-Flow-Control-Value'

/** A message's flow-control setting. */
export interface FlowControl {
  readonly key: string
  /** Deliveries of the key in flight at once; 0: unlimited. */
  readonly parallelism: number
  /** Deliveries of the key started per period; 0: unlimited. */
  readonly rate: number
  readonly periodMs: number
}

/** How long a message waiting for a parallelism slot waits before it looks again (a slot freed in this process wakes it sooner). */
export const PARALLELISM_RECHECK_MS = 100

function bad(message: string): never {
  throw new StoreError(message, 400)
}

function periodMs(value: string): number {
  const match = /^(\d+)(s|m|h|d)?$/.exec(value.trim())
  if (!match || Number(match[1]) === 0) bad(`invalid ${FLOW_CONTROL_VALUE_HEADER} period ${JSON.stringify(value)}: a positive duration such as 1s, 30s, 1m, 1h, 1d`)
  const unit = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[(match[2] ?? 's') as 's' | 'm' | 'h' | 'd']
  return Number(match[1]) * unit
}

function positiveInteger(name: string, value: string): number {
  const number = Number(value)
  if (!Number.isInteger(number) || number < 1) bad(`invalid ${FLOW_CONTROL_VALUE_HEADER} ${name} ${JSON.stringify(value)}: a positive integer`)
  return number
}

/** Parses the two headers; both are needed, and the value needs parallelism or rate. */
export function parseFlowControl(key: string | null, value: string | null): FlowControl {
  if (key === null || key.trim() === '') bad(`${FLOW_CONTROL_VALUE_HEADER} needs a ${FLOW_CONTROL_KEY_HEADER}`)
  if (value === null || value.trim() === '') bad(`${FLOW_CONTROL_KEY_HEADER} needs a ${FLOW_CONTROL_VALUE_HEADER} (parallelism=<n>, rate=<n>, period=<duration>)`)
  let parallelism = 0
  let rate = 0
  let period = 1000
  for (const part of value.split(',')) {
    const [name, setting, extra] = part.split('=').map((piece) => piece.trim())
    if (setting === undefined || extra !== undefined) bad(`invalid ${FLOW_CONTROL_VALUE_HEADER} ${JSON.stringify(value)}: name=value pairs separated by commas`)
    const lower = name.toLowerCase()
    if (lower === 'parallelism') parallelism = positiveInteger(name, setting)
    else if (lower === 'rate' || lower === 'ratepersecond') rate = positiveInteger(name, setting)
    else if (lower === 'period') period = periodMs(setting)
    else bad(`invalid ${FLOW_CONTROL_VALUE_HEADER}: unknown setting ${JSON.stringify(name)} (parallelism, rate, period)`)
  }
  if (parallelism === 0 && rate === 0) bad(`${FLOW_CONTROL_VALUE_HEADER} needs parallelism or rate`)
  return { key, parallelism, rate, periodMs: period }
}

/** How long a message of a paused key waits before it looks again (resuming brings the key's messages forward at once). */
export const PAUSED_RECHECK_MS = 1000

/**
 * KEYS: the key's in-flight zset (message id → lease end), its starts zset (start → time), its
 * settings hash (see flow-control-api.ts), the set of known keys.
 * ARGV: message id, now, lease end, parallelism, rate, period, the key. Notes the message's
 * settings as the key's last seen ones; a paused key gives no slot, a pinned setting replaces the
 * message's. Returns 0 when the slot is taken, else the time to look again.
 */
const ACQUIRE = `
local now = tonumber(ARGV[2])
local parallelism = tonumber(ARGV[4])
local rate = tonumber(ARGV[5])
local period = tonumber(ARGV[6])
redis.call('SADD', KEYS[4], ARGV[7])
redis.call('HSET', KEYS[3], 'parallelism', ARGV[4], 'rate', ARGV[5], 'period', ARGV[6])
local settings = redis.call('HMGET', KEYS[3], 'paused', 'pinParallelism', 'pinRate', 'pinPeriod')
if settings[1] == '1' then
  return now + ${PAUSED_RECHECK_MS}
end
if settings[2] then parallelism = tonumber(settings[2]) end
if settings[3] then rate = tonumber(settings[3]) end
if settings[4] then period = tonumber(settings[4]) end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if parallelism > 0 and not redis.call('ZSCORE', KEYS[1], ARGV[1]) and redis.call('ZCARD', KEYS[1]) >= parallelism then
  return now + ${PARALLELISM_RECHECK_MS}
end
if rate > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - period)
  if redis.call('ZCARD', KEYS[2]) >= rate then
    local oldest = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
    return tonumber(oldest[2]) + period
  end
  redis.call('ZADD', KEYS[2], now, ARGV[1] .. ':' .. now)
  redis.call('PEXPIRE', KEYS[2], period)
end
if parallelism > 0 then
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
  redis.call('PEXPIRE', KEYS[1], math.max(1, tonumber(ARGV[3]) - now))
end
return 0
`

export function activeKey(store: QueueStore, key: string): string {
  return `${store.prefix}flow:${key}:active`
}

export function startsKey(store: QueueStore, key: string): string {
  return `${store.prefix}flow:${key}:starts`
}

/** The key's settings: `paused`, the pinned `pinParallelism` / `pinRate` / `pinPeriod` (ms), the last seen `parallelism` / `rate` / `period` (ms). */
export function settingsKey(store: QueueStore, key: string): string {
  return `${store.prefix}flow:${key}:settings`
}

/** Every key a message or the API has used. */
export function flowKeysKey(store: QueueStore): string {
  return `${store.prefix}flow-keys`
}

/** Takes a delivery slot for `messageId` until `leaseEnd`; returns 0 when taken, else when to try again (ms since the epoch). */
export async function acquireFlowSlot(store: QueueStore, flow: FlowControl, messageId: string, now: number, leaseEnd: number): Promise<number> {
  const reply: Reply = await store.call([
    'EVAL',
    ACQUIRE,
    '4',
    activeKey(store, flow.key),
    startsKey(store, flow.key),
    settingsKey(store, flow.key),
    flowKeysKey(store),
    messageId,
    String(now),
    String(leaseEnd),
    String(flow.parallelism),
    String(flow.rate),
    String(flow.periodMs),
    flow.key,
  ])
  return Number(text(reply) ?? 0)
}

/** The command that releases a message's parallelism slot (part of the attempt's settling transaction). */
export function releaseFlowSlotCommand(store: QueueStore, flow: FlowControl, messageId: string): Command {
  return ['ZREM', activeKey(store, flow.key), messageId]
}
