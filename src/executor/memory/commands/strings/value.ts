import { ReplyError } from '../../../../reply.js'
import type { CommandContext } from '../../command.js'
import { STRING_TOO_LONG, WRONGTYPE } from '../../errors.js'

/**
 * Reading string values and growing them within Redis's limits; shared by the string and bitmap
 * families (bitmaps are strings).
 */

/** The string at `key`: the binary string, undefined when missing, or WRONGTYPE for another type. */
export function readString(ctx: CommandContext, key: string): string | undefined | ReplyError {
  const value = ctx.db.read(key, ctx)
  if (value === undefined || typeof value === 'string') return value
  return WRONGTYPE
}

/** `proto-max-bulk-len` default: 512 MB. */
const DEFAULT_MAX_BULK_LENGTH = 512 * 1024 * 1024

/**
 * The largest string V8 can hold (`String::kMaxLength` on 64-bit builds, 2^29 - 24 chars), a few
 * bytes short of Redis's 512 MB. Values between the two cannot exist in this engine.
 */
export const ENGINE_MAX_STRING_LENGTH = 2 ** 29 - 24

/** Refused growth between the engine's limit and Redis's (see {@link ENGINE_MAX_STRING_LENGTH}). */
export const ENGINE_STRING_TOO_LONG = new ReplyError(
  `ERR string exceeds the maximum length of the in-memory engine (${ENGINE_MAX_STRING_LENGTH} bytes)`,
)

/**
 * `proto-max-bulk-len`, the size limit of a string value (Redis refuses SETRANGE, APPEND, SETBIT
 * and BITFIELD writes beyond it), from CONFIG when the server family has set it.
 */
export function maxBulkLength(ctx: CommandContext): number {
  const configured = ctx.engine.config.get('proto-max-bulk-len')
  if (configured === undefined) return DEFAULT_MAX_BULK_LENGTH
  const value = Number(configured)
  return Number.isSafeInteger(value) && value > 0 ? value : DEFAULT_MAX_BULK_LENGTH
}

/**
 * Redis's `checkStringLength`: the error when a string of `length` bytes (offset plus appended
 * bytes, any size) would exceed `proto-max-bulk-len`, the engine's own error when it would exceed
 * what a JS string can hold, or null when it fits.
 */
export function checkStringLength(ctx: CommandContext, length: number): ReplyError | null {
  if (length > maxBulkLength(ctx)) return STRING_TOO_LONG
  if (length > ENGINE_MAX_STRING_LENGTH) return ENGINE_STRING_TOO_LONG
  return null
}

/** `value` zero-padded (Redis's `sdsgrowzero`) to at least `length` bytes. */
export function padTo(value: string, length: number): string {
  return value.length >= length ? value : value + '\0'.repeat(length - value.length)
}
