/**
 * Memory estimates for INFO memory and MEMORY USAGE. A JS heap has no per-object allocator
 * figures, so sizes are modelled on Redis's own accounting (a key costs its bytes plus a dict
 * entry and object header; collections cost their elements plus per-element overhead) and, like
 * MEMORY USAGE, large values and large keyspaces are sampled rather than walked in full, which
 * keeps INFO O(1) in the dataset's size.
 */
import type { Database, Value } from '../../keyspace.js'

/** A dict entry (three pointers). */
const DICT_ENTRY = 24
/** A robj header. */
const OBJECT_HEADER = 16
/** Per element of a collection (a listpack/dict entry's bookkeeping). */
const ELEMENT_OVERHEAD = 24
/** What an empty server reports as used_memory (Redis 7.0 starts near 0.86 MB). */
export const STARTUP_BYTES = 876_168
/** Keys sampled per database, and elements per collection, before extrapolating. */
const KEY_SAMPLES = 1024
export const DEFAULT_ELEMENT_SAMPLES = 5

/**
 * jemalloc's size class for `bytes`: 8, then multiples of 16 up to 128, then four classes per
 * doubling (160 192 224 256, 320 …). Redis's MEMORY USAGE counts allocations by these classes.
 */
function allocation(bytes: number): number {
  if (bytes <= 8) return 8
  if (bytes <= 128) return Math.ceil(bytes / 16) * 16
  const step = 2 ** (Math.ceil(Math.log2(bytes)) - 3)
  return Math.ceil(bytes / step) * step
}

/**
 * Estimated bytes of one key and its value, as MEMORY USAGE counts them: the dict entry, the key
 * as an sds, and the value (a string up to 44 bytes is embedded in its object header, as Redis's
 * embstr). Collections sample `samples` elements (0 = all) and extrapolate.
 */
export function estimateEntry(key: string, value: Value, samples = DEFAULT_ELEMENT_SAMPLES): number {
  const keyBytes = DICT_ENTRY + allocation(key.length + 4)
  if (typeof value === 'string') {
    const valueBytes = value.length <= 44 ? allocation(value.length + 20) : OBJECT_HEADER + allocation(value.length + 9)
    return keyBytes + valueBytes
  }
  return keyBytes + OBJECT_HEADER + estimateValue(value, samples, 0)
}

/** Estimated bytes of every key in `db`, sampling large keyspaces. */
export function estimateDatabase(db: Database): number {
  const count = db.data.size
  if (count === 0) return 0
  let sampled = 0
  let bytes = 0
  for (const [key, value] of db.data) {
    bytes += estimateEntry(key, value)
    if (++sampled === KEY_SAMPLES) break
  }
  const expires = db.expires.size * 40
  return Math.round((bytes / sampled) * count) + expires
}

function estimateValue(value: unknown, samples: number, depth: number): number {
  if (typeof value === 'string') return value.length + 16
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return 8
  if (value === null || typeof value !== 'object' || depth > 4) return 8
  if (value instanceof Map) return estimateCollection(value.size, value.entries(), samples, depth)
  if (value instanceof Set || Array.isArray(value)) {
    const size = value instanceof Set ? value.size : value.length
    return estimateCollection(size, value.values(), samples, depth)
  }
  if (ArrayBuffer.isView(value)) return value.byteLength + 16
  // A type class: its fields (the collections that hold its elements, counters …).
  let bytes = 16
  for (const field of Object.values(value as Record<string, unknown>)) bytes += estimateValue(field, samples, depth + 1)
  return bytes
}

function estimateCollection(size: number, items: Iterator<unknown>, samples: number, depth: number): number {
  if (size === 0) return 16
  const limit = samples <= 0 ? size : Math.min(size, samples)
  let bytes = 0
  for (let i = 0; i < limit; i++) {
    const next = items.next()
    if (next.done) break
    bytes += estimateValue(next.value, samples, depth + 1) + ELEMENT_OVERHEAD
  }
  return 16 + Math.round((bytes / limit) * size)
}

/** Redis's bytesToHuman: `B`, then `K M G T P` with two decimals. */
export function bytesToHuman(bytes: number): string {
  if (bytes < 1024) return `${bytes}B`
  const units = ['K', 'M', 'G', 'T', 'P']
  let scaled = bytes / 1024
  let unit = 0
  while (scaled >= 1024 && unit < units.length - 1) {
    scaled /= 1024
    unit++
  }
  return `${scaled.toFixed(2)}${units[unit]}`
}
