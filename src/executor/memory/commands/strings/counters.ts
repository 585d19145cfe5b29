import { ReplyError } from '../../../../reply.js'
import type { CommandContext, Out } from '../../command.js'
import { NAN_OR_INFINITY, NOT_FLOAT, NOT_INTEGER, OVERFLOW } from '../../errors.js'
import { readInt64, integerReply } from '../../numbers.js'
import { LONG_DOUBLE_ZERO, addLongDouble, formatLongDouble, isFiniteLongDouble, parseLongDouble } from '../../longdouble.js'
import { readString } from './value.js'

/**
 * INCR, DECR, INCRBY, DECRBY (64-bit signed, Redis's `incrDecrCommand`) and INCRBYFLOAT (x87
 * long double, see `longdouble.ts`). All keep the key's TTL, as Redis overwrites in place.
 */

const INT64_MAX = 2n ** 63n - 1n
const INT64_MIN = -(2n ** 63n)
/** DECRBY cannot negate INT64_MIN. */
const DECREMENT_OVERFLOW = new ReplyError('ERR decrement would overflow')

/** Adds `delta` to the integer at `key` (0 when missing) and replies the result. */
function incrementBy(ctx: CommandContext, key: string, delta: bigint): Out {
  const current = readString(ctx, key)
  if (current instanceof ReplyError) return current
  const base = current === undefined ? 0n : readInt64(current)
  if (base === null) return NOT_INTEGER
  const next = base + delta
  if (next > INT64_MAX || next < INT64_MIN) return OVERFLOW
  ctx.db.update(key, next.toString())
  return integerReply(next)
}

/** INCR key */
export function incr(ctx: CommandContext, argv: readonly string[]): Out {
  return incrementBy(ctx, argv[1], 1n)
}

/** DECR key */
export function decr(ctx: CommandContext, argv: readonly string[]): Out {
  return incrementBy(ctx, argv[1], -1n)
}

/** INCRBY key increment: the increment is read before the key. */
export function incrby(ctx: CommandContext, argv: readonly string[]): Out {
  const delta = readInt64(argv[2])
  return delta === null ? NOT_INTEGER : incrementBy(ctx, argv[1], delta)
}

/** DECRBY key decrement */
export function decrby(ctx: CommandContext, argv: readonly string[]): Out {
  const delta = readInt64(argv[2])
  if (delta === null) return NOT_INTEGER
  if (delta === INT64_MIN) return DECREMENT_OVERFLOW
  return incrementBy(ctx, argv[1], -delta)
}

/**
 * INCRBYFLOAT key increment: the key is checked (type, then value) before the increment; the sum
 * is computed and formatted as Redis does in long double (`10.5` + `0.1` is `10.6`); an infinite
 * or NaN sum is refused and leaves the key unchanged.
 */
export function incrbyfloat(ctx: CommandContext, argv: readonly string[]): Out {
  const key = argv[1]
  const current = readString(ctx, key)
  if (current instanceof ReplyError) return current
  const base = current === undefined ? LONG_DOUBLE_ZERO : parseLongDouble(current)
  if (base === null) return NOT_FLOAT
  const increment = parseLongDouble(argv[2])
  if (increment === null) return NOT_FLOAT
  const sum = addLongDouble(base, increment)
  if (!isFiniteLongDouble(sum)) return NAN_OR_INFINITY
  const text = formatLongDouble(sum)
  ctx.db.update(key, text)
  // The result is stored as a new short string, never as an integer (`INCRBYFLOAT k 1` on 1 is embstr).
  if (text.length <= 44) ctx.db.setStringEncoding(key, 'embstr')
  return text
}
