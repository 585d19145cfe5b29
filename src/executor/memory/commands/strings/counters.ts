import { ReplyError } from '../../../../reply.js'
import { NOTIFY_STRING, notify } from '../../notify.js'
import type { CommandContext, Out } from '../../command.js'
import { NAN_OR_INFINITY, NOT_FLOAT, NOT_INTEGER, OVERFLOW } from '../../errors.js'
import { readInt64, integerReply } from '../../lib/numbers.js'
import { LONG_DOUBLE_ZERO, addLongDouble, formatLongDouble, isFiniteLongDouble, parseLongDouble } from '../../lib/longdouble.js'
import { readString } from './value.js'

/**
 * INCR, DECR, INCRBY, DECRBY (64-bit signed, Redis's `incrDecrCommand`) and INCRBYFLOAT (x87
 * long double, see `longdouble.ts`). All keep the key's TTL, as Redis overwrites in place.
 */

const INT64_MAX = 2n ** 63n - 1n
const INT64_MIN = -(2n ** 63n)
/** DECRBY cannot negate INT64_MIN. */
const DECREMENT_OVERFLOW = new ReplyError('ERR decrement would overflow')

/**
 * `text` as a number when it is an integer Redis reads (no `+`, no leading zero, no `-0`) of at
 * most 15 digits, so exact as a double; else null (longer integers and non-integers alike: the
 * caller then takes the exact bigint path, which tells them apart).
 */
function readShortInteger(text: string): number | null {
  const length = text.length
  if (length === 0 || length > 16) return null
  const negative = text.charCodeAt(0) === 45
  const first = negative ? 1 : 0
  if (length === first || length - first > 15) return null
  let n = 0
  for (let i = first; i < length; i++) {
    const digit = text.charCodeAt(i) - 48
    if (digit < 0 || digit > 9) return null
    n = n * 10 + digit
  }
  if (text.charCodeAt(first) === 48 && (length - first > 1 || negative)) return null
  return negative ? -n : n
}

/**
 * Adds `delta` to the integer at `key` (0 when missing) and replies the result. The common case
 * (a stored value and a result within ±2^53) is done in doubles, exactly; anything else, and every
 * error, goes through the 64-bit bigint path.
 */
function incrementBy(ctx: CommandContext, key: string, delta: bigint | number): Out {
  const current = readString(ctx, key)
  if (current instanceof ReplyError) return current
  if (typeof delta === 'number') {
    const base = current === undefined ? 0 : readShortInteger(current)
    if (base !== null) {
      const next = base + delta
      if (Number.isSafeInteger(next)) {
        ctx.db.update(key, String(next))
        notify(ctx, NOTIFY_STRING, 'incrby', key)
        return next
      }
    }
    delta = BigInt(delta)
  }
  const base = current === undefined ? 0n : readInt64(current)
  if (base === null) return NOT_INTEGER
  const next = base + delta
  if (next > INT64_MAX || next < INT64_MIN) return OVERFLOW
  ctx.db.update(key, next.toString())
  notify(ctx, NOTIFY_STRING, 'incrby', key)
  return integerReply(next)
}

/** INCR key */
export function incr(ctx: CommandContext, argv: readonly string[]): Out {
  return incrementBy(ctx, argv[1], 1)
}

/** DECR key */
export function decr(ctx: CommandContext, argv: readonly string[]): Out {
  return incrementBy(ctx, argv[1], -1)
}

/** INCRBY key increment: the increment is read before the key. */
export function incrby(ctx: CommandContext, argv: readonly string[]): Out {
  const short = readShortInteger(argv[2])
  if (short !== null) return incrementBy(ctx, argv[1], short)
  const delta = readInt64(argv[2])
  return delta === null ? NOT_INTEGER : incrementBy(ctx, argv[1], delta)
}

/** DECRBY key decrement */
export function decrby(ctx: CommandContext, argv: readonly string[]): Out {
  const short = readShortInteger(argv[2])
  if (short !== null) return incrementBy(ctx, argv[1], -short)
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
  notify(ctx, NOTIFY_STRING, 'incrbyfloat', key)
  return text
}
