/**
 * Databases of the in-memory engine: keys, values and expiry.
 *
 * Keys and string values are "binary strings": one char per byte (latin1), so Map lookups stay
 * fast and ASCII needs no conversion. Values of the other types are objects carrying a `type`.
 */

import { MinHeap } from './lib/min-heap.js'

/** String encodings OBJECT ENCODING reports that cannot be read off the bytes alone. */
export type StringEncodingOverride = 'raw' | 'embstr'

/** The name TYPE reports for each kind of value. */
export type ValueType = 'string' | 'list' | 'set' | 'zset' | 'hash' | 'stream' | 'ReJSON-RL'

/** A value of any type other than string; each type module defines its own class. */
export interface TypedValue {
  readonly type: Exclude<ValueType, 'string'>
}

/** A stored value: a binary string for the string type, an object for the others. */
export type Value = string | TypedValue

/** The TYPE of a value. */
export function typeOf(value: Value): ValueType {
  return typeof value === 'string' ? 'string' : value.type
}

/**
 * Where a command reads the time: `now` is read from the clock on first use and then fixed for
 * the command (see `Invocation` in engine.ts), so a command that never needs it never reads it.
 */
export interface TimeSource {
  readonly now: number
}

interface ExpiryEntry {
  readonly at: number
  readonly key: string
}

/**
 * One logical database (SELECT index).
 *
 * Expiry is lazy (a read of an expired key deletes it) and active: a min-heap of deadlines lets
 * {@link Database.expireDue} reclaim every due key without scanning the keyspace. Heap entries
 * are not removed when a TTL changes; an entry counts only while it matches `expires`.
 */
export class Database {
  readonly data = new Map<string, Value>()
  readonly expires = new Map<string, number>()
  private readonly heap = new MinHeap<ExpiryEntry>()
  /**
   * Strings whose OBJECT ENCODING is not what their bytes imply: Redis turns a string modified in
   * place (APPEND, SETRANGE, SETBIT, BITFIELD) or built by BITOP into `raw`, and an INCRBYFLOAT
   * result that reads as an integer stays `embstr`. Any new value for the key forgets it.
   */
  readonly stringEncodings = new Map<string, StringEncodingOverride>()
  /** Keys removed because their TTL passed, for INFO's `expired_keys`. */
  expiredCount = 0
  /**
   * Set while the AOF loads: nothing expires then, as in Redis, so a key logged with a deadline
   * that has passed since is still there for the commands logged after it.
   */
  loading = false

  constructor(readonly index: number) {}

  /** The live value of `key`, deleting it first when its TTL has passed (Redis keeps a key alive
   * during its deadline millisecond: expired means `now > deadline`). */
  get(key: string, now: number): Value | undefined {
    const value = this.data.get(key)
    if (value === undefined || this.expires.size === 0) return value
    const at = this.expires.get(key)
    return at !== undefined && at < now && !this.loading ? this.expire(key) : value
  }

  /**
   * {@link Database.get} for command handlers: the time is read only when some key has a TTL.
   * Reading the clock costs more than the lookup itself, and most databases have no TTLs.
   */
  read(key: string, time: TimeSource): Value | undefined {
    const value = this.data.get(key)
    if (value === undefined || this.expires.size === 0) return value
    const at = this.expires.get(key)
    return at !== undefined && at < time.now && !this.loading ? this.expire(key) : value
  }

  /** Deletes `key` because its TTL has passed. */
  private expire(key: string): undefined {
    this.remove(key)
    this.expiredCount++
    return undefined
  }

  /**
   * Reclaims `key` when its TTL has passed, as the lookup before a blind overwrite does in Redis
   * (the key counts in `expired_keys`).
   */
  reclaimIfExpired(key: string, time: TimeSource): void {
    if (this.expires.size !== 0) this.read(key, time)
  }

  /** True when `key` exists and is live. */
  has(key: string, now: number): boolean {
    return this.get(key, now) !== undefined
  }

  /** Stores a new value for `key` and drops its TTL (what SET and every overwrite do). */
  set(key: string, value: Value): void {
    this.data.set(key, value)
    if (this.expires.size !== 0) this.expires.delete(key)
    if (this.stringEncodings.size !== 0) this.stringEncodings.delete(key)
  }

  /** Stores a value for `key` keeping any TTL it has (in-place updates, SET KEEPTTL). */
  update(key: string, value: Value): void {
    this.data.set(key, value)
    if (this.stringEncodings.size !== 0) this.stringEncodings.delete(key)
  }

  /** Records the encoding Redis would report for the string just stored at `key`. */
  setStringEncoding(key: string, encoding: StringEncodingOverride): void {
    this.stringEncodings.set(key, encoding)
  }

  /** Copies the recorded string encoding of `key` to `toKey` of `to` (COPY, RENAME, MOVE keep it). */
  carryStringEncoding(key: string, to: Database, toKey: string): void {
    const encoding = this.stringEncodings.get(key)
    if (encoding !== undefined) to.stringEncodings.set(toKey, encoding)
  }

  /** Deletes `key` and its TTL; true when it existed. Does not check liveness. */
  remove(key: string): boolean {
    if (!this.data.delete(key)) return false
    if (this.expires.size !== 0) this.expires.delete(key)
    if (this.stringEncodings.size !== 0) this.stringEncodings.delete(key)
    return true
  }

  /** Deletes `key` when it is live; true when it was. */
  delete(key: string, now: number): boolean {
    return this.get(key, now) !== undefined && this.remove(key)
  }

  /** Sets the absolute expiry time of an existing key, in milliseconds since the epoch. */
  setExpire(key: string, at: number): void {
    this.expires.set(key, at)
    this.pushDeadline({ at, key })
  }

  /** The absolute expiry time of `key`, or undefined when it has none. */
  getExpire(key: string): number | undefined {
    return this.expires.size === 0 ? undefined : this.expires.get(key)
  }

  /** Removes the TTL of `key`; true when it had one. */
  persist(key: string): boolean {
    return this.expires.delete(key)
  }

  /** Number of keys, counting expired keys not yet reclaimed, as DBSIZE does. */
  get size(): number {
    return this.data.size
  }

  /** Removes every key. */
  clear(): void {
    this.data.clear()
    this.expires.clear()
    this.stringEncodings.clear()
    this.heap.clear()
  }

  /**
   * Deletes keys whose deadline is at or before `now`, at most `budget` of them, and returns
   * the deleted keys (the caller reports them). Stale heap entries are dropped on the way.
   */
  expireDue(now: number, budget = Infinity): string[] {
    const removed: string[] = []
    const heap = this.heap
    let entry: ExpiryEntry | undefined
    while (removed.length < budget && (entry = heap.popBefore(now)) !== undefined) {
      if (this.expires.get(entry.key) === entry.at) {
        this.remove(entry.key)
        this.expiredCount++
        removed.push(entry.key)
      }
    }
    return removed
  }

  /** Adds the entry of a deadline already recorded in `expires`. */
  private pushDeadline(entry: ExpiryEntry): void {
    const heap = this.heap
    if (heap.size > 1024 && heap.size > 2 * this.expires.size) {
      // Stale entries (TTL changed or key deleted) dominate: rebuild from `expires`, which
      // already holds `entry`, so the heap stays O(keys).
      heap.rebuild([...this.expires].map(([key, at]) => ({ at, key })))
      return
    }
    heap.push(entry)
  }
}
