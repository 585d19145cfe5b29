import { OK, ReplyError } from '../../../../reply.js'
import { NOTIFY_HASH, notify } from '../../notify.js'
import type { CommandTable, CommandContext, Out } from '../../command.js'
import {
  HASH_NOT_FLOAT,
  HASH_NOT_INTEGER,
  NAN_OR_INFINITY,
  NOT_FLOAT,
  NOT_INTEGER,
  OUT_OF_LONG_RANGE,
  OVERFLOW,
  SYNTAX,
  wrongArity,
} from '../../errors.js'
import { LONG_DOUBLE_ZERO, addLongDouble, formatLongDouble, isFiniteLongDouble, parseLongDouble } from '../../lib/longdouble.js'
import { integerReply, readInt64 } from '../../lib/numbers.js'
import type { HashValue } from '../../types/hash.js'
import { stringMatch as globMatch } from '../../lib/glob.js'
import { deleteIfEmpty, hashForWrite, hashLimits, readHash } from './access.js'
import { hashExpiryCommands } from './expiry.js'
import { EMPTY_SCAN, INVALID_CURSOR, parseScanCursor, parseScanOptions } from '../generic/scan-options.js'
import { chargedReply, chargedSample, checkElements } from '../../reply-budget.js'

/**
 * Hash commands (t_hash.c). Replies and errors follow Redis 7.0.15; fields with a TTL (Redis 7.4,
 * see `expiry.ts`) are reclaimed before any command looks at a hash, so every command here
 * sees live fields only.
 */

const INT64_MAX = 2n ** 63n - 1n
const INT64_MIN = -(2n ** 63n)
/** HINCRBYFLOAT refuses an infinite increment before looking at the key. */
const INCREMENT_NAN_OR_INFINITY = new ReplyError('ERR value is NaN or Infinity')
/** With WITHVALUES the reply has 2 × count entries, so |count| ≤ LONG_MAX / 2. */
const WITHVALUES_OUT_OF_RANGE = new ReplyError('ERR value is out of range')
const HALF_LONG_MAX = INT64_MAX / 2n

function hset(ctx: CommandContext, argv: readonly string[]): Out {
  // HSET key field value [field value ...]; HMSET is the same with an OK reply.
  if (argv.length % 2 === 1) return wrongArity(ctx.name)
  const existing = readHash(ctx, argv[1])
  if (existing instanceof ReplyError) return existing
  const limits = hashLimits(ctx)
  const hash = hashForWrite(ctx, argv[1], existing)
  let added = 0
  for (let i = 2; i < argv.length; i += 2) if (hash.set(argv[i], argv[i + 1], limits)) added++
  notify(ctx, NOTIFY_HASH, 'hset', argv[1])
  return ctx.name === 'hmset' ? OK : added
}

function hsetnx(ctx: CommandContext, argv: readonly string[]): Out {
  const [, key, field, value] = argv
  const existing = readHash(ctx, key)
  if (existing instanceof ReplyError) return existing
  if (existing?.has(field)) return 0
  hashForWrite(ctx, key, existing).set(field, value, hashLimits(ctx))
  notify(ctx, NOTIFY_HASH, 'hset', key)
  return 1
}

function hget(ctx: CommandContext, argv: readonly string[]): Out {
  const hash = readHash(ctx, argv[1])
  if (hash instanceof ReplyError) return hash
  return hash?.get(argv[2]) ?? null
}

function hmget(ctx: CommandContext, argv: readonly string[]): Out {
  const hash = readHash(ctx, argv[1])
  if (hash instanceof ReplyError) return hash
  const values: Out[] = []
  for (let i = 2; i < argv.length; i++) values.push(hash?.get(argv[i]) ?? null)
  return values
}

function hdel(ctx: CommandContext, argv: readonly string[]): Out {
  const hash = readHash(ctx, argv[1])
  if (hash instanceof ReplyError) return hash
  if (hash === undefined) return 0
  let deleted = 0
  for (let i = 2; i < argv.length; i++) if (hash.delete(argv[i])) deleted++
  if (deleted > 0) notify(ctx, NOTIFY_HASH, 'hdel', argv[1])
  deleteIfEmpty(ctx, argv[1], hash)
  return deleted
}

function hlen(ctx: CommandContext, argv: readonly string[]): Out {
  const hash = readHash(ctx, argv[1])
  if (hash instanceof ReplyError) return hash
  return hash?.size ?? 0
}

function hstrlen(ctx: CommandContext, argv: readonly string[]): Out {
  const hash = readHash(ctx, argv[1])
  if (hash instanceof ReplyError) return hash
  return hash?.get(argv[2])?.length ?? 0
}

function hexists(ctx: CommandContext, argv: readonly string[]): Out {
  const hash = readHash(ctx, argv[1])
  if (hash instanceof ReplyError) return hash
  return hash?.has(argv[2]) ? 1 : 0
}

function hgetall(ctx: CommandContext, argv: readonly string[]): Out {
  return listHash(ctx, argv[1], true, true)
}

function hkeys(ctx: CommandContext, argv: readonly string[]): Out {
  return listHash(ctx, argv[1], true, false)
}

function hvals(ctx: CommandContext, argv: readonly string[]): Out {
  return listHash(ctx, argv[1], false, true)
}

/** HGETALL / HKEYS / HVALS: the whole hash in Redis's iteration order, flat. */
function listHash(ctx: CommandContext, key: string, fields: boolean, values: boolean): Out {
  const hash = readHash(ctx, key)
  if (hash instanceof ReplyError) return hash
  if (hash === undefined) return []
  // Checked against the engine's reply limits before the entries are copied (reply-budget.ts).
  const tooLarge = checkElements(ctx, hash.size * (fields && values ? 2 : 1))
  if (tooLarge !== null) return tooLarge
  const out: string[] = []
  hash.forEach((field, value) => {
    if (fields) out.push(field)
    if (values) out.push(value)
  })
  return chargedReply(ctx, out)
}

function hincrby(ctx: CommandContext, argv: readonly string[]): Out {
  const [, key, field] = argv
  const increment = readInt64(argv[3])
  if (increment === null) return NOT_INTEGER
  const existing = readHash(ctx, key)
  if (existing instanceof ReplyError) return existing
  const current = existing?.get(field)
  const base = current === undefined ? 0n : readInt64(current)
  if (base === null) return HASH_NOT_INTEGER
  const next = base + increment
  if (next > INT64_MAX || next < INT64_MIN) return OVERFLOW
  // An increment rewrites the value but keeps the field's TTL (Redis 7.4: HASH_SET_KEEP_TTL).
  hashForWrite(ctx, key, existing).set(field, next.toString(), hashLimits(ctx), true)
  notify(ctx, NOTIFY_HASH, 'hincrby', key)
  return integerReply(next)
}

function hincrbyfloat(ctx: CommandContext, argv: readonly string[]): Out {
  const [, key, field] = argv
  // Redis adds in `long double` and prints `%.17Lf` trimmed: longdouble.ts reproduces both.
  const increment = parseLongDouble(argv[3])
  if (increment === null) return NOT_FLOAT
  if (!isFiniteLongDouble(increment)) return INCREMENT_NAN_OR_INFINITY
  const existing = readHash(ctx, key)
  if (existing instanceof ReplyError) return existing
  const current = existing?.get(field)
  const base = current === undefined ? LONG_DOUBLE_ZERO : parseLongDouble(current)
  if (base === null) return HASH_NOT_FLOAT
  const sum = addLongDouble(base, increment)
  if (!isFiniteLongDouble(sum)) return NAN_OR_INFINITY
  const text = formatLongDouble(sum)
  hashForWrite(ctx, key, existing).set(field, text, hashLimits(ctx), true)
  notify(ctx, NOTIFY_HASH, 'hincrbyfloat', key)
  return text
}

function hrandfield(ctx: CommandContext, argv: readonly string[]): Out {
  if (argv.length === 2) {
    const hash = readHash(ctx, argv[1])
    if (hash instanceof ReplyError) return hash
    return hash === undefined ? null : hash.randomEntry()[0]
  }
  const count = readInt64(argv[2])
  if (count === null) return NOT_INTEGER
  if (count === INT64_MIN) return OUT_OF_LONG_RANGE
  if (argv.length > 4 || (argv.length === 4 && argv[3].toLowerCase() !== 'withvalues')) return SYNTAX
  const withValues = argv.length === 4
  if (withValues && (count < -HALF_LONG_MAX || count > HALF_LONG_MAX)) return WITHVALUES_OUT_OF_RANGE
  const hash = readHash(ctx, argv[1])
  if (hash instanceof ReplyError) return hash
  if (hash === undefined || count === 0n) return []
  // The reply is checked against the engine's reply limits before it is built (reply-budget.ts).
  const width = withValues ? 2 : 1
  if (count < 0n) return chargedSample(ctx, Number(-count), width, (out) => pushEntry(out, hash.randomEntry(), withValues))
  const tooLarge = checkElements(ctx, Math.min(Number(count), hash.size) * width)
  if (tooLarge !== null) return tooLarge
  return chargedReply(ctx, randomFields(hash, count, withValues))
}

function pushEntry(out: string[], [field, value]: readonly [string, string], withValues: boolean): void {
  out.push(field)
  if (withValues) out.push(value)
}

/**
 * HRANDFIELD with a count, as Redis's `hrandfieldWithCountCommand`: a negative count samples
 * with repetition; a positive count never repeats a field and returns the whole hash when it is
 * at least the hash's size. Small (listpack) hashes give a unique sample in hash order.
 */
function randomFields(hash: HashValue, count: bigint, withValues: boolean): string[] {
  const out: string[] = []
  const emit = (field: string, value: string) => {
    out.push(field)
    if (withValues) out.push(value)
  }
  if (count < 0n || count === 1n) {
    for (let n = Number(count < 0n ? -count : count); n > 0; n--) emit(...hash.randomEntry())
    return out
  }
  const size = hash.size
  if (count >= BigInt(size)) {
    hash.forEach(emit)
    return out
  }
  const wanted = Number(count)
  if (hash.encoding !== 'hashtable') {
    // Selection sampling: each field is kept with probability (still needed / still unseen).
    let needed = wanted
    let unseen = size
    hash.forEach((field, value) => {
      if (needed > 0 && Math.random() * unseen < needed) {
        emit(field, value)
        needed--
      }
      unseen--
    })
    return out
  }
  if (wanted * 3 > size) {
    // Close to the whole hash: drop random entries until `wanted` remain (Redis's CASE 3).
    const entries: [string, string][] = []
    hash.forEach((field, value) => entries.push([field, value]))
    for (let remaining = size; remaining > wanted; remaining--) {
      entries[Math.floor(Math.random() * remaining)] = entries[remaining - 1]
    }
    entries.length = wanted
    for (const [field, value] of entries) emit(field, value)
    return out
  }
  const picked = new Set<string>()
  while (picked.size < wanted) {
    const [field, value] = hash.randomEntry()
    if (picked.has(field)) continue
    picked.add(field)
    emit(field, value)
  }
  return out
}

function hscan(ctx: CommandContext, argv: readonly string[]): Out {
  const cursor = parseScanCursor(argv[2])
  if (cursor === null) return INVALID_CURSOR
  const hash = readHash(ctx, argv[1])
  if (hash instanceof ReplyError) return hash
  if (hash === undefined) return EMPTY_SCAN
  const options = parseScanOptions(argv, 3, 'novalues')
  if (options instanceof ReplyError) return options
  const { match, count, noValues } = options
  const out: string[] = []
  const next = hash.scan(cursor, count, (field, value) => {
    if (match !== null && !globMatch(match, field)) return
    out.push(field)
    if (!noValues) out.push(value)
  })
  return [String(next), out]
}

/** Hash commands, including the field-expiry commands of Redis 7.4 and 8.0. */
export const hashCommands: CommandTable = {
  hdel,
  hexists,
  hget,
  hgetall,
  hincrby,
  hincrbyfloat,
  hkeys,
  hlen,
  hmget,
  hmset: hset,
  hrandfield,
  hscan,
  hset,
  hsetnx,
  hstrlen,
  hvals,
  ...hashExpiryCommands,
}
