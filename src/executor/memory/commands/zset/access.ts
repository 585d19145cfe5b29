import { ReplyError } from '../../../../reply.js'
import type { CommandContext } from '../../command.js'
import { WRONGTYPE } from '../../errors.js'
import { DEFAULT_ZSET_LIMITS, ZSetValue, type ZSetLimits } from '../../types/zset.js'

/** Keyspace access shared by the sorted-set and geo commands. */

/** The sorted set at `key`, undefined when missing, or WRONGTYPE. */
export function readZSet(ctx: CommandContext, key: string): ZSetValue | undefined | ReplyError {
  const value = ctx.db.get(key, ctx.now)
  if (value === undefined || value instanceof ZSetValue) return value
  return WRONGTYPE
}

/** `zset-max-listpack-entries` and `zset-max-listpack-value` as currently configured. */
export function zsetLimits(ctx: CommandContext): ZSetLimits {
  return {
    entries: configNumber(ctx, 'zset-max-listpack-entries', DEFAULT_ZSET_LIMITS.entries),
    value: configNumber(ctx, 'zset-max-listpack-value', DEFAULT_ZSET_LIMITS.value),
  }
}

function configNumber(ctx: CommandContext, name: string, fallback: number): number {
  const text = ctx.engine.config.get(name)
  const value = text === undefined ? NaN : Number(text)
  return Number.isFinite(value) ? value : fallback
}

/** Deletes `key` when its sorted set has no member left (Redis never keeps empty collections). */
export function deleteIfEmpty(ctx: CommandContext, key: string, zset: ZSetValue): void {
  if (zset.size === 0) ctx.db.remove(key)
}

/**
 * The *STORE commands: the result replaces whatever `destination` held (any type, TTL dropped);
 * an empty result deletes it. Replies the result's size.
 */
export function storeResult(ctx: CommandContext, destination: string, result: ZSetValue): number {
  if (result.size === 0) ctx.db.delete(destination, ctx.now)
  else ctx.db.set(destination, result)
  return result.size
}
