/**
 * Estimated heap bytes of the dataset, kept up to date key by key (`Database.store`/`remove`),
 * so INFO's used_memory and the maxmemory check are O(1). The constants were calibrated against
 * `process.memoryUsage().heapUsed` on Node 20 x64 (see `bench/memory-bound.mjs`): a key costs its
 * entry in the key table, its value and stamp slots (`key-table.ts`) plus the two strings; a collection costs what
 * MEMORY USAGE's model says scaled to V8's object sizes.
 */
import { estimateEntry } from './commands/server/memory-estimate.js'
import type { TypedValue } from './keyspace.js'

/**
 * One key's share of its database's `KeyTable`: the key table's entry and bucket (28 B, with the
 * table's growth slack about 40) and the value and stamp slots (12 B). Measured: 1M SETs of
 * `key:N` → `value:N` grow the heap by 103 B a key, 39 B of it beside the two strings.
 */
const KEY_ENTRY_BYTES = 52
/** A TTL: its entry in `expires` and its deadline in the expiry heap. */
export const EXPIRE_ENTRY_BYTES = 96
/** V8 collections (Map, Set, arrays of strings) weigh this much more than Redis's encodings. */
const TYPED_VALUE_SCALE = 2.5

/** A sequential one-byte string: a 16-byte header and the bytes, in 8-byte steps. */
function stringBytes(text: string): number {
  return (16 + text.length + 7) & ~7
}

/** Bytes of a key holding a string value. */
export function entryBytes(key: string, value: string): number {
  return KEY_ENTRY_BYTES + stringBytes(key) + stringBytes(value)
}

/** Bytes of a key holding a collection, from a sample of its elements (O(1) in its size). */
export function typedValueBytes(key: string, value: TypedValue): number {
  return KEY_ENTRY_BYTES + Math.round(estimateEntry(key, value) * TYPED_VALUE_SCALE)
}
