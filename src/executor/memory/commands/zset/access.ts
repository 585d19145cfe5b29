import { ReplyError } from '../../../../reply.js'
import { NOTIFY_GENERIC, NOTIFY_ZSET, notify } from '../../notify.js'
import type { CommandContext } from '../../command.js'
import { WRONGTYPE } from '../../errors.js'
import { DEFAULT_ZSET_LIMITS, ZSetValue, type ZSetLimits } from '../../types/zset.js'
import { derivedFromConfig } from '../server/config-parameters.js'

/** Keyspace access shared by the sorted-set and geo commands. */

/** The sorted set at `key`, undefined when missing, or WRONGTYPE. */
export function readZSet(ctx: CommandContext, key: string): ZSetValue | undefined | ReplyError {
  const value = ctx.db.read(key, ctx)
  if (value === undefined || value instanceof ZSetValue) return value
  return WRONGTYPE
}

/** `zset-max-listpack-entries` and `zset-max-listpack-value` as currently configured. */
export function zsetLimits(ctx: Pick<CommandContext, 'engine'>): ZSetLimits {
  return configuredZSetLimits(ctx.engine.config)
}

const configuredZSetLimits = derivedFromConfig(
  (config): ZSetLimits => ({
    entries: configNumber(config, 'zset-max-listpack-entries', DEFAULT_ZSET_LIMITS.entries),
    value: configNumber(config, 'zset-max-listpack-value', DEFAULT_ZSET_LIMITS.value),
  }),
)

function configNumber(config: ReadonlyMap<string, string>, name: string, fallback: number): number {
  const text = config.get(name)
  const value = text === undefined ? NaN : Number(text)
  return Number.isFinite(value) ? value : fallback
}

/** Deletes `key` when its sorted set has no member left (Redis never keeps empty collections). */
export function deleteIfEmpty(ctx: CommandContext, key: string, zset: ZSetValue): void {
  if (zset.size === 0) {
    ctx.db.remove(key)
    notify(ctx, NOTIFY_GENERIC, 'del', key)
  }
}

/**
 * The *STORE commands: the result replaces whatever `destination` held (any type, TTL dropped);
 * an empty result deletes it. Replies the result's size.
 */
export function storeResult(ctx: CommandContext, destination: string, result: ZSetValue, event: string): number {
  if (result.size === 0) {
    if (ctx.db.delete(destination, ctx.now)) notify(ctx, NOTIFY_GENERIC, 'del', destination)
  } else {
    ctx.db.reclaimIfExpired(destination, ctx)
    ctx.db.set(destination, result)
    notify(ctx, NOTIFY_ZSET, event, destination)
  }
  return result.size
}
