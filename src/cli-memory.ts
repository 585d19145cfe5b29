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
