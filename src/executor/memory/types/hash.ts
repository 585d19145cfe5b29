import type { Database, TypedValue } from '../keyspace.js'
import { NOTIFY_GENERIC, NOTIFY_HASH } from '../notify.js'
import { MinHeap } from '../lib/min-heap.js'
import { OrderedTable } from './ordered-table.js'

/** The encoding limits Redis checks on every hash write (CONFIG `hash-max-listpack-*`). */
export interface HashLimits {
  /** `hash-max-listpack-entries` */
  readonly entries: number
  /** `hash-max-listpack-value` */
  readonly value: number
}

/** Redis 7.0's defaults (`CONFIG GET hash-max-*` on a server started without a config file). */
export const DEFAULT_HASH_LIMITS: HashLimits = { entries: 512, value: 64 }

/** OBJECT ENCODING of a hash: `listpackex` is Redis 7.4's listpack with field TTLs. */
export type HashEncoding = 'listpack' | 'listpackex' | 'hashtable'

interface Deadline {
  readonly at: number
  readonly field: string
}

/**
 * A hash: binary-string fields and values in an {@link OrderedTable}, plus the per-field
 * expiry of Redis 7.4 (HEXPIRE and friends).
 *
 * It tracks Redis's encoding because the encoding is visible: a `listpack` keeps insertion order
 * (updates in place), which is what HGETALL, HKEYS and HSCAN return for small hashes, and HSCAN
 * returns a listpack whole in one call. A `listpackex` (listpack with TTLs, Redis 7.4) keeps
 * volatile fields first, by deadline. Conversions happen at write time with the limits then in
 * force and are never undone, as in Redis.
 *
 * Expired fields are removed by {@link HashValue.removeExpired}, which every hash command calls
 * before it looks at the hash (lazy expiry), and by {@link expireHashFields} (active expiry).
 */
export class HashValue implements TypedValue {
  readonly type = 'hash'
  private readonly table = new OrderedTable<string>()
  private encodingName: HashEncoding = 'listpack'
  /** Deadline (ms since the epoch) of each volatile field. */
  private deadlines: Map<string, number> | undefined
  /** When each volatile field got its deadline: listpackex orders equal deadlines newest first. */
  private deadlineStamps: Map<string, number> | undefined
  private stampCounter = 0
  /** Min-heap of deadlines; an entry counts only while it matches `deadlines`. */
  private readonly heap = new MinHeap<Deadline>()
  /** The earliest deadline this hash is registered under in its database's active-expiry index. */
  registeredDeadline = Infinity

  get encoding(): HashEncoding {
    return this.encodingName
  }

  /** Number of fields, expired ones included until they are removed. */
  get size(): number {
    return this.table.size
  }

  get(field: string): string | undefined {
    return this.table.get(field)
  }

  has(field: string): boolean {
    return this.table.has(field)
  }

  /**
   * Sets `field` to `value`; true when the field is new. Like Redis's `hashTypeSet`, a write
   * drops the field's TTL unless `keepTtl` (HINCRBY, HSETEX KEEPTTL), and converts a listpack
   * whose field or value is too long or whose size exceeds the limit.
   */
  set(field: string, value: string, limits: HashLimits = DEFAULT_HASH_LIMITS, keepTtl = false): boolean {
    if (this.encodingName !== 'hashtable' && (field.length > limits.value || value.length > limits.value)) {
      this.encodingName = 'hashtable'
    }
    if (!keepTtl && this.deadlines?.has(field)) this.persistMoving(field)
    const added = this.table.set(field, value)
    if (added && this.table.size > limits.entries) this.encodingName = 'hashtable'
    return added
  }

  /** Removes `field` and its TTL; true when it was present. */
  delete(field: string): boolean {
    if (!this.table.delete(field)) return false
    if (this.deadlines?.delete(field)) this.deadlineStamps!.delete(field)
    return true
  }

  // ---- field expiry (Redis 7.4) ----

  /**
   * Marks the hash as taking part in field expiry: Redis 7.4 turns a listpack into a listpackex
   * as soon as a command that sets field TTLs (the HEXPIRE family, HGETEX with an option, HSETEX
   * with a TTL) touches it, whether or not a TTL ends up set.
   */
  enableFieldExpiry(): void {
    if (this.encodingName === 'listpack') this.encodingName = 'listpackex'
  }

  /** The deadline of `field` in ms, or undefined when it has none (or does not exist). */
  deadlineOf(field: string): number | undefined {
    return this.deadlines?.get(field)
  }

  /** True when at least one field has a TTL. */
  get hasVolatileFields(): boolean {
    return this.deadlines !== undefined && this.deadlines.size > 0
  }

  /** Sets the deadline of an existing field. */
  setDeadline(field: string, at: number): void {
    this.deadlines ??= new Map()
    this.deadlineStamps ??= new Map()
    this.deadlines.set(field, at)
    this.deadlineStamps.set(field, ++this.stampCounter)
    this.pushDeadline({ at, field })
  }

  /**
   * Removes the TTL of `field`; true when it had one. In a listpackex the field moves to the tail
   * (Redis deletes and re-appends it).
   */
  persist(field: string): boolean {
    if (!this.deadlines?.has(field)) return false
    this.persistMoving(field)
    return true
  }

  /** The earliest deadline of any field, or undefined. Drops stale heap entries on the way. */
  nextDeadline(): number | undefined {
    const heap = this.heap
    let top = heap.peek()
    while (top !== undefined && this.deadlines?.get(top.field) !== top.at) {
      heap.pop()
      top = heap.peek()
    }
    return top?.at
  }

  /** Deletes every field whose deadline is before `now` (a field lives through its deadline millisecond, as in Redis); returns how many. */
  removeExpired(now: number): number {
    let removed = 0
    let entry: Deadline | undefined
    while ((entry = this.heap.popBefore(now)) !== undefined) {
      if (this.deadlines?.get(entry.field) === entry.at) {
        this.delete(entry.field)
        removed++
      }
    }
    return removed
  }

  // ---- iteration ----

  /** Calls `visit` for each field in Redis's iteration order; the hash must not change meanwhile. */
  forEach(visit: (field: string, value: string) => void): void {
    if (this.encodingName === 'listpackex' && this.hasVolatileFields) {
      for (const field of this.volatileFieldsInListpackOrder()) visit(field, this.table.get(field)!)
      const deadlines = this.deadlines!
      this.table.forEach((field, value) => {
        if (!deadlines.has(field)) visit(field, value)
      })
    } else {
      this.table.forEach(visit)
    }
  }

  /** A uniformly random field and its value; the hash must not be empty. */
  randomEntry(): [string, string] {
    return this.table.randomEntry()
  }

  /**
   * One HSCAN step. A listpack (or listpackex) is returned whole with cursor 0 whatever the
   * cursor, as Redis does for its compact encodings.
   */
  scan(cursor: number, count: number, visit: (field: string, value: string) => void): number {
    if (this.encodingName !== 'hashtable') {
      this.forEach(visit)
      return 0
    }
    return this.table.scan(cursor, count, visit)
  }

  /**
   * A copy with the same fields, TTLs and encoding (COPY). The copy is not registered for active
   * field expiry: whoever stores it calls {@link trackVolatileHash}.
   */
  clone(): HashValue {
    const copy = new HashValue()
    this.table.forEach((field, value) => copy.table.set(field, value))
    copy.encodingName = this.encodingName
    if (this.hasVolatileFields) {
      // In the order the deadlines were set, so a listpackex copy iterates like the original.
      const stamps = this.deadlineStamps!
      const fields = [...this.deadlines!.keys()].sort((a, b) => stamps.get(a)! - stamps.get(b)!)
      for (const field of fields) copy.setDeadline(field, this.deadlines!.get(field)!)
    }
    return copy
  }

  /** listpackex order: by deadline, and for equal deadlines the most recently set first. */
  private volatileFieldsInListpackOrder(): string[] {
    const deadlines = this.deadlines!
    const stamps = this.deadlineStamps!
    return [...deadlines.keys()].sort((a, b) => deadlines.get(a)! - deadlines.get(b)! || stamps.get(b)! - stamps.get(a)!)
  }

  private persistMoving(field: string): void {
    this.deadlines!.delete(field)
    this.deadlineStamps!.delete(field)
    if (this.encodingName === 'listpackex') {
      const value = this.table.get(field)!
      this.table.delete(field)
      this.table.set(field, value)
    }
  }

  /** Adds the entry of a deadline already recorded in `deadlines`. */
  private pushDeadline(entry: Deadline): void {
    const deadlines = this.deadlines!
    if (this.heap.size > 64 && this.heap.size > 2 * deadlines.size) {
      // Stale entries (changed or removed TTLs) dominate: rebuild from `deadlines`, which already
      // holds `entry`.
      this.heap.rebuild([...deadlines].map(([field, at]) => ({ at, field })))
      return
    }
    this.heap.push(entry)
  }
}

/**
 * Lazy expiry of hash fields: removes the expired fields of `hash` (stored at `key`) and deletes
 * the key when none is left. Returns false when the hash is gone. Every reader of a hash calls
 * this first (Redis 7.4 hides and reclaims expired fields on access).
 */
export function purgeExpiredFields(db: Database, key: string, hash: HashValue, now: number): boolean {
  if (hash.removeExpired(now) === 0) return true
  return fieldsExpired(db, key, hash)
}

/**
 * After fields of `hash` expired: Redis 7.4's `hexpired` event, and the key deleted (`del`)
 * when no field is left. Returns false when the hash is gone.
 */
function fieldsExpired(db: Database, key: string, hash: HashValue): boolean {
  const notifier = db.shared.notifier
  notifier?.emit(NOTIFY_HASH, 'hexpired', key, db.index)
  if (hash.size > 0) return true
  db.remove(key)
  notifier?.emit(NOTIFY_GENERIC, 'del', key, db.index)
  return false
}

// ---- active expiry of hash fields ----

interface VolatileHash {
  readonly at: number
  readonly key: string
  readonly hash: HashValue
}

/** Per database, a min-heap of hashes by their earliest field deadline. */
interface VolatileIndex {
  readonly heap: MinHeap<VolatileHash>
  /** Heap size that triggers dropping entries of deleted or replaced hashes. */
  pruneAt: number
}

const MIN_PRUNE_SIZE = 1024
const volatileIndexes = new WeakMap<Database, VolatileIndex>()

/**
 * Registers `hash` (stored at `key`) for active field expiry at `at`. Called whenever a field
 * gets a deadline; cheap when the hash is already registered for an earlier time.
 */
export function trackFieldDeadline(db: Database, key: string, hash: HashValue, at: number): void {
  if (at >= hash.registeredDeadline) return
  hash.registeredDeadline = at
  let index = volatileIndexes.get(db)
  if (index === undefined) volatileIndexes.set(db, (index = { heap: new MinHeap(), pruneAt: MIN_PRUNE_SIZE }))
  index.heap.push({ at, key, hash })
  if (index.heap.size >= index.pruneAt) prune(db, index)
}

/**
 * Entries of hashes since deleted, renamed or overwritten would otherwise stay until their
 * deadline: when the heap has doubled, keep one entry per hash still stored under its key.
 */
function prune(db: Database, index: VolatileIndex): void {
  const earliest = new Map<HashValue, VolatileHash>()
  for (const entry of index.heap) {
    if (db.data.get(entry.key) !== entry.hash) continue
    const known = earliest.get(entry.hash)
    if (known === undefined || entry.at < known.at) earliest.set(entry.hash, entry)
  }
  for (const entry of index.heap) if (!earliest.has(entry.hash)) entry.hash.registeredDeadline = Infinity
  index.heap.rebuild([...earliest.values()])
  for (const entry of index.heap) entry.hash.registeredDeadline = entry.at
  index.pruneAt = Math.max(MIN_PRUNE_SIZE, 2 * index.heap.size)
}

/**
 * Registers a hash that arrived at `key` by other means (COPY, RENAME, MOVE, RESTORE) for active
 * field expiry. Harmless when it has no volatile fields.
 */
export function trackVolatileHash(db: Database, key: string, hash: HashValue): void {
  const next = hash.nextDeadline()
  if (next === undefined) return
  hash.registeredDeadline = Infinity
  trackFieldDeadline(db, key, hash, next)
}

/**
 * The active expiry of hash fields, for the engine's expiry cycle: removes every field whose
 * deadline is before `now` from every registered hash of `db`, deletes hashes left empty
 * (Redis 7.4: "a hash whose last field expires is deleted") and returns the number of fields
 * removed. A hash that was renamed or replaced since it registered is skipped here; lazy expiry
 * still applies to it.
 */
export function expireHashFields(db: Database, now: number): number {
  const index = volatileIndexes.get(db)
  if (index === undefined) return 0
  let removed = 0
  // Re-registering a hash below may push to the heap or prune (rebuild) it: each round pops afresh.
  let entry: VolatileHash | undefined
  while ((entry = index.heap.popBefore(now)) !== undefined) {
    const { key, hash } = entry
    hash.registeredDeadline = Infinity
    if (db.data.get(key) !== hash) continue
    const expired = hash.removeExpired(now)
    removed += expired
    if (expired > 0 && !fieldsExpired(db, key, hash)) continue
    const next = hash.nextDeadline()
    if (next !== undefined) trackFieldDeadline(db, key, hash, next)
  }
  if (index.heap.size === 0) volatileIndexes.delete(db)
  return removed
}
