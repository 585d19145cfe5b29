import type { ReplyError } from '../../../../reply.js'
import { NOTIFY_GENERIC, notify } from '../../notify.js'
import type { CommandContext } from '../../command.js'
import { WRONGTYPE } from '../../errors.js'
import { DEFAULT_HASH_LIMITS, HashValue, purgeExpiredFields, type HashLimits } from '../../types/hash.js'
import { derivedFromConfig } from '../server/config-parameters.js'

/** How the hash commands reach their key: lookup with lazy field expiry, limits, creation. */

/**
 * The live hash at `key`: expired fields removed first (and the key deleted when none is left,
 * as Redis 7.4 does on access); undefined when missing; WRONGTYPE for another type.
 */
export function readHash(ctx: CommandContext, key: string): HashValue | undefined | ReplyError {
  const value = ctx.db.read(key, ctx)
  if (value === undefined) return undefined
  if (!(value instanceof HashValue)) return WRONGTYPE
  if (!value.hasVolatileFields) return value
  return purgeExpiredFields(ctx.db, key, value, ctx.now) ? value : undefined
}

/** The hash at `key`, created empty (and stored) when missing. */
export function hashForWrite(ctx: CommandContext, key: string, existing: HashValue | undefined): HashValue {
  if (existing !== undefined) return existing
  const hash = new HashValue()
  ctx.db.set(key, hash)
  return hash
}

/** Deletes `key` when its hash has no field left (Redis never keeps empty collections). */
export function deleteIfEmpty(ctx: CommandContext, key: string, hash: HashValue): void {
  if (hash.size === 0 && ctx.db.data.get(key) === hash) {
    ctx.db.remove(key)
    notify(ctx, NOTIFY_GENERIC, 'del', key)
  }
}

/** `hash-max-listpack-entries` / `-value` as currently configured (CONFIG SET applies at once). */
export function hashLimits(ctx: Pick<CommandContext, 'engine'>): HashLimits {
  return configuredHashLimits(ctx.engine.config)
}

const configuredHashLimits = derivedFromConfig(
  (config): HashLimits => ({
    entries: configInteger(config.get('hash-max-listpack-entries')) ?? DEFAULT_HASH_LIMITS.entries,
    value: configInteger(config.get('hash-max-listpack-value')) ?? DEFAULT_HASH_LIMITS.value,
  }),
)

function configInteger(text: string | undefined): number | undefined {
  if (text === undefined) return undefined
  const value = Number(text)
  return Number.isFinite(value) ? value : undefined
}
