/**
 * The CLI's memory-bound flags, `--maxmemory <bytes|kb|mb|gb>` and `--maxmemory-policy <policy>`,
 * read with Redis's own parser and rules (`maxmemory 100mb` in redis.conf means the same here).
 */
import { parseMemory } from './executor/memory/commands/server/config-kinds.js'
import { MAXMEMORY_POLICIES, type MaxmemoryPolicy } from './executor/memory/eviction.js'

/** The engine options the two flags give (both absent: no limit, as Redis's default). */
export interface MemoryBoundOptions {
  readonly maxmemory?: number
  readonly maxmemoryPolicy?: MaxmemoryPolicy
}

export const MEMORY_USAGE =
  `  --maxmemory <size>     bound the in-memory engine's data: bytes, or with a unit (kb mb gb, or\n` +
  `                         k m g for powers of 1000), as Redis's maxmemory; 0 (default): no bound\n` +
  `  --maxmemory-policy <p> what to do over the bound: noeviction (default: refuse writes with OOM),\n` +
  `                         allkeys-lru allkeys-lfu allkeys-random volatile-lru volatile-lfu\n` +
  `                         volatile-random volatile-ttl\n`

/**
 * Reads the flags; throws with a message naming the flag on a bad value, and when they are given
 * with `--redis` (the real server has its own maxmemory: set it there, not here).
 */
export function readMemoryBound(maxmemory: string | undefined, policy: string | undefined, redis: boolean): MemoryBoundOptions {
  if (maxmemory === undefined && policy === undefined) return {}
  if (redis) {
    throw new Error('--maxmemory and --maxmemory-policy apply to the in-memory engine; with --redis, set them on the server (CONFIG SET maxmemory)')
  }
  let bytes: number | undefined
  if (maxmemory !== undefined) {
    const parsed = parseMemory(maxmemory)
    if (parsed === null || maxmemory === '' || parsed > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new Error(`invalid --maxmemory: ${maxmemory} (bytes, or a number with kb mb gb)`)
    }
    bytes = Number(parsed)
  }
  if (policy !== undefined && !MAXMEMORY_POLICIES.includes(policy as MaxmemoryPolicy)) {
    throw new Error(`invalid --maxmemory-policy: ${policy} (one of ${MAXMEMORY_POLICIES.join(', ')})`)
  }
  return { maxmemory: bytes, maxmemoryPolicy: policy as MaxmemoryPolicy | undefined }
}

/** The banner's line for the bound, or '' when there is none. */
export function memoryBoundBanner(bound: MemoryBoundOptions): string {
  if (!bound.maxmemory) return ''
  return `maxmemory: ${bound.maxmemory} bytes, policy ${bound.maxmemoryPolicy ?? 'noeviction'}\n`
}

/**
 * A warning for a bound the engine cannot hold any data under, or '' when there is room.
 * `startupBytes` is the engine's used memory before any data (INFO's used_memory_startup: the
 * process's heap when the engine was made, about 12 MB for the CLI), which used_memory counts as
 * Redis counts its own. Redis warns likewise of a limit under 1 MB, and accepts it.
 */
export function memoryBoundWarning(bound: MemoryBoundOptions, startupBytes: number): string {
  if (!bound.maxmemory || bound.maxmemory > startupBytes) return ''
  return (
    `warning: --maxmemory ${bound.maxmemory} is not above the ${startupBytes} bytes the empty engine already uses ` +
    `(INFO memory's used_memory_startup: the process's heap at start); every write that may add data will be refused with OOM\n`
  )
}
