import { ReplyError } from '../../../../reply.js'
import { NOTIFY_GENERIC, notify } from '../../notify.js'
import type { CommandContext, CommandTable, Out } from '../../command.js'
import { NOT_INTEGER, invalidExpire } from '../../errors.js'
import type { Database } from '../../keyspace.js'
import { integerReply, readInt64 } from '../../lib/numbers.js'

/**
 * Key expiry: EXPIRE PEXPIRE EXPIREAT PEXPIREAT (with NX XX GT LT), TTL PTTL EXPIRETIME
 * PEXPIRETIME, PERSIST, with Redis 7.0's `expireGenericCommand` / `ttlGenericCommand` rules.
 *
 * Deadlines are 64-bit integers in Redis. The keyspace stores them as JS numbers, exact up to
 * 2^53 ms (year 287396); beyond that this module keeps the exact value beside it, so that
 * PEXPIREAT k 9223372036854775807 reads back exactly as in Redis.
 */

const INT64_MAX = 2n ** 63n - 1n
const INT64_MIN = -(2n ** 63n)
const UNSUPPORTED_COMBINATION = new ReplyError('ERR NX and XX, GT or LT options at the same time are not compatible')
const GT_AND_LT = new ReplyError('ERR GT and LT options at the same time are not compatible')

/** Exact deadlines beyond 2^53 ms, by database and key; valid while the keyspace agrees. */
const exactDeadlines = new WeakMap<Database, Map<string, bigint>>()

/** Sets the deadline of an existing `key` (ms since the epoch, any 64-bit value). */
export function setDeadline(db: Database, key: string, at: bigint): void {
  const rounded = Number(at)
  db.setExpire(key, rounded)
  if (Number.isSafeInteger(rounded)) return
  let exact = exactDeadlines.get(db)
  if (exact === undefined) exactDeadlines.set(db, (exact = new Map()))
  exact.set(key, at)
}

/** The deadline of `key` as Redis's 64-bit value, or undefined when it has none. */
export function readDeadline(db: Database, key: string): bigint | undefined {
  const at = db.getExpire(key)
  if (at === undefined) return undefined
  if (Number.isSafeInteger(at)) return BigInt(at)
  const exact = exactDeadlines.get(db)?.get(key)
  if (exact !== undefined && Number(exact) === at) return exact
  const rounded = BigInt(at)
  return rounded > INT64_MAX ? INT64_MAX : rounded < INT64_MIN ? INT64_MIN : rounded
}

interface ExpireConditions {
  nx: boolean
  xx: boolean
  gt: boolean
  lt: boolean
}

/** NX XX GT LT from `argv[3]` on (`parseExtendedExpireArgumentsOrReply`). */
function parseConditions(argv: readonly string[]): ExpireConditions | ReplyError {
  const conditions: ExpireConditions = { nx: false, xx: false, gt: false, lt: false }
  for (let i = 3; i < argv.length; i++) {
    const option = argv[i].toLowerCase()
    if (option === 'nx') conditions.nx = true
    else if (option === 'xx') conditions.xx = true
    else if (option === 'gt') conditions.gt = true
    else if (option === 'lt') conditions.lt = true
    else return new ReplyError(`ERR Unsupported option ${argv[i]}`)
  }
  if (conditions.nx && (conditions.xx || conditions.gt || conditions.lt)) return UNSUPPORTED_COMBINATION
  if (conditions.gt && conditions.lt) return GT_AND_LT
  return conditions
}

/**
 * The shared body of the four EXPIRE commands. `base` is the time the amount counts from (now
 * for the relative forms, 0 for the absolute ones), `unitMs` 1000 for seconds. A deadline at or
 * before now deletes the key (and still answers 1), as Redis does.
 */
function expireKey(ctx: CommandContext, argv: readonly string[], base: bigint, unitMs: bigint): Out {
  const conditions = parseConditions(argv)
  if (conditions instanceof ReplyError) return conditions
  const amount = readInt64(argv[2])
  if (amount === null) return NOT_INTEGER
  // Redis rejects what would overflow a 64-bit deadline, negative amounts being fine otherwise.
  if (unitMs !== 1n && (amount > INT64_MAX / unitMs || amount < INT64_MIN / unitMs)) return invalidExpire(ctx.name)
  const offset = amount * unitMs
  if (offset > INT64_MAX - base) return invalidExpire(ctx.name)
  const at = offset + base

  const key = argv[1]
  if (!ctx.db.has(key, ctx.now)) return 0
  const { nx, xx, gt, lt } = conditions
  if (nx || xx || gt || lt) {
    const current = readDeadline(ctx.db, key)
    if (nx && current !== undefined) return 0
    if (xx && current === undefined) return 0
    // No TTL counts as an infinite one: GT never beats it, LT always does.
    if (gt && (current === undefined || at <= current)) return 0
    if (lt && current !== undefined && at >= current) return 0
  }
  // `checkAlreadyExpired`: never while loading the AOF, whose deadlines may have passed since.
  if (at <= BigInt(ctx.now) && !ctx.engine.loading) {
    ctx.db.remove(key)
    notify(ctx, NOTIFY_GENERIC, 'del', key)
    return 1
  }
  setDeadline(ctx.db, key, at)
  notify(ctx, NOTIFY_GENERIC, 'expire', key)
  return 1
}

function expire(ctx: CommandContext, argv: readonly string[]): Out {
  return expireKey(ctx, argv, BigInt(ctx.now), 1000n)
}

function pexpire(ctx: CommandContext, argv: readonly string[]): Out {
  return expireKey(ctx, argv, BigInt(ctx.now), 1n)
}

function expireat(ctx: CommandContext, argv: readonly string[]): Out {
  return expireKey(ctx, argv, 0n, 1000n)
}

function pexpireat(ctx: CommandContext, argv: readonly string[]): Out {
  return expireKey(ctx, argv, 0n, 1n)
}

/**
 * TTL and friends: -2 for a missing key, -1 without a TTL. The remaining time never goes below
 * 0; seconds are rounded to the nearest (`(ms + 500) / 1000`), as Redis does.
 */
function timeToLive(ctx: CommandContext, key: string, inMs: boolean, absolute: boolean): Out {
  // Not an access of the key (Redis's LOOKUP_NOTOUCH).
  if (ctx.db.peek(key, ctx) === undefined) return -2
  const at = readDeadline(ctx.db, key)
  if (at === undefined) return -1
  let value = at
  if (!absolute) {
    value = at - BigInt(ctx.now)
    if (value < 0n) value = 0n
  }
  return integerReply(inMs ? value : (value + 500n) / 1000n)
}

function ttl(ctx: CommandContext, argv: readonly string[]): Out {
  return timeToLive(ctx, argv[1], false, false)
}

function pttl(ctx: CommandContext, argv: readonly string[]): Out {
  return timeToLive(ctx, argv[1], true, false)
}

function expiretime(ctx: CommandContext, argv: readonly string[]): Out {
  return timeToLive(ctx, argv[1], false, true)
}

function pexpiretime(ctx: CommandContext, argv: readonly string[]): Out {
  return timeToLive(ctx, argv[1], true, true)
}

function persist(ctx: CommandContext, argv: readonly string[]): Out {
  const key = argv[1]
  if (!ctx.db.has(key, ctx.now)) return 0
  if (!ctx.db.persist(key)) return 0
  notify(ctx, NOTIFY_GENERIC, 'persist', key)
  return 1
}

/** Expiry commands. */
export const expireCommands: CommandTable = {
  expire,
  pexpire,
  expireat,
  pexpireat,
  ttl,
  pttl,
  expiretime,
  pexpiretime,
  persist,
}
