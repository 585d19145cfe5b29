/**
 * Databases of the in-memory engine: keys, values and expiry.
 *
 * Keys and string values are "binary strings": one char per byte (latin1), so Map lookups stay
 * fast and ASCII needs no conversion. Values of the other types are objects carrying a `type`.
 */

import { MinHeap } from './lib/min-heap.js'
import { SpillMap } from './lib/spill-map.js'
import { KeyTable, NO_STAMP } from './key-table.js'
import { KeyspaceState, NEW_KEY_LFU_COUNTER, SNAPSHOT_MARK_BITS, STAMP_CLOCK_BITS, lfuDecayed, lfuIncremented } from './key-access.js'
import { EXPIRE_ENTRY_BYTES, entryBytes } from './memory-accounting.js'
import { NOTIFY_EXPIRED, NOTIFY_KEY_MISS, NOTIFY_NEW } from './notify.js'

export { KeyspaceState } from './key-access.js'

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

/** Redis's LRU_CLOCK_MAX: the access clock counts seconds in 24 bits. */
const LRU_CLOCK_MAX = 0xffffff

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
  /**
   * Keys, values, and the access stamp of each key ({@link KeyTable}): the clock Redis keeps in
   * the object header. Under an LRU (or no) policy the LRU clock in seconds (24 bits) of the key's
   * last access; under an LFU policy the minute of its last decrement (16 bits) and its
   * logarithmic access counter (8 bits). Strings are primitives with no room for a field, hence a
   * stamp beside the value, kept under every policy as Redis keeps its header (its cost on GET and
   * SET: `bench/access-clock.mjs`, docs/benchmarks.md).
   */
  readonly data = new KeyTable<Value>()
  readonly expires = new SpillMap<string, number>()
  /** Estimated heap bytes of this database's keys, values and their entries (`memory-accounting.ts`). */
  usedBytes = 0
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

  /**
   * @param shared what every database of an engine shares: the access clock and policy, the
   * dataset total, the keys whose typed values a command may change in place.
   */
  constructor(
    readonly index: number,
    readonly shared: KeyspaceState = new KeyspaceState(),
  ) {}

  /** The live value of `key`, deleting it first when its TTL has passed (Redis keeps a key alive
   * during its deadline millisecond: expired means `now > deadline`). */
  get(key: string, now: number): Value | undefined {
    const slot = this.data.slotOf(key)
    if (slot === undefined) return this.shared.reportMisses ? this.reportMiss(key) : undefined
    if (this.expires.size !== 0) {
      const at = this.expires.get(key)
      if (at !== undefined && at < now && !this.loading) return this.expireOnRead(key)
    }
    return this.touch(key, slot)
  }

  /**
   * {@link Database.get} for command handlers: the time is read only when some key has a TTL.
   * Reading the clock costs more than the lookup itself, and most databases have no TTLs.
   */
  read(key: string, time: TimeSource): Value | undefined {
    const slot = this.data.slotOf(key)
    if (slot === undefined) return this.shared.reportMisses ? this.reportMiss(key) : undefined
    if (this.expires.size !== 0) {
      const at = this.expires.get(key)
      if (at !== undefined && at < time.now && !this.loading) return this.expireOnRead(key)
    }
    return this.touch(key, slot)
  }

  /**
   * The live value of `key` without counting an access (TYPE, EXISTS, TTL: Redis's
   * LOOKUP_NOTOUCH). A miss still reports `keymiss`, as Redis does, unless `notify` is false
   * (OBJECT: LOOKUP_NONOTIFY too).
   */
  peek(key: string, time: TimeSource, notify = true): Value | undefined {
    const value = this.data.get(key)
    if (value === undefined) return notify && this.shared.reportMisses ? this.reportMiss(key) : undefined
    if (this.expires.size === 0) return value
    const at = this.expires.get(key)
    if (at === undefined || at >= time.now || this.loading) return value
    this.expire(key)
    return notify && this.shared.reportMisses ? this.reportMiss(key) : undefined
  }

  /**
   * Records an access of `key` (at `slot`): its clock (LRU) or counter (LFU); returns its value. A
   * typed value looked up may be changed in place by the command, so its key is noted for the
   * size settlement after it.
   */
  private touch(key: string, slot: number): Value {
    const shared = this.shared
    const data = this.data
    if (shared.clock !== 'off' && !shared.noTouch) {
      if (shared.clock === 'lfu') this.touchLfu(slot, shared)
      else if (shared.snapshotMark === 0) data.setStampAt(slot, shared.lruClock)
      else this.restampKeepingMark(slot, shared.lruClock)
    }
    const value = data.valueAt(slot)
    if (typeof value !== 'string') shared.noteTyped(this, key)
    return value
  }

  /** An LFU access: the counter decays and rises; the stamp's snapshot mark stays. */
  private touchLfu(slot: number, shared: KeyspaceState): void {
    const stamp = this.data.stampAt(slot)
    if (stamp === NO_STAMP) this.data.setStampAt(slot, lfuIncremented(shared.lfuStamp(NEW_KEY_LFU_COUNTER), shared))
    else this.data.setStampAt(slot, lfuIncremented(stamp & STAMP_CLOCK_BITS, shared) | (stamp & SNAPSHOT_MARK_BITS))
  }

  /** Sets the clock part of the stamp at `slot`, keeping the mark of a running snapshot (`persistence/snapshot-marks.ts`). */
  private restampKeepingMark(slot: number, clock: number): void {
    const stamp = this.data.stampAt(slot)
    this.data.setStampAt(slot, stamp === NO_STAMP ? clock : clock | (stamp & SNAPSHOT_MARK_BITS))
  }

  /**
   * OBJECT IDLETIME: seconds since the last access of `key` under an LRU clock (Redis's
   * `estimateObjectIdleTime`, with the wrap of the 24-bit clock).
   */
  idleSeconds(key: string): number {
    // A key not accessed since the clock started counts as idle since then.
    const stamp = (this.data.stampOf(key) ?? this.shared.clockStartedAt) & STAMP_CLOCK_BITS
    const clock = this.shared.lruClock
    return clock >= stamp ? clock - stamp : clock + (LRU_CLOCK_MAX - stamp)
  }

  /**
   * RESTORE's IDLETIME or FREQ (`objectSetLRUOrLFU`): under an LFU clock the counter `frequency`
   * when given, under the LRU clock an access `idleSeconds` ago when given; otherwise nothing.
   */
  setAccess(key: string, idleSeconds: number | undefined, frequency: number | undefined): void {
    const shared = this.shared
    const slot = this.data.slotOf(key)
    if (slot === undefined) return
    if (shared.clock === 'lfu' && frequency !== undefined) this.restampKeepingMark(slot, shared.lfuStamp(frequency))
    else if (shared.clock === 'lru' && idleSeconds !== undefined) this.restampKeepingMark(slot, shared.lruStampIdleFor(idleSeconds))
  }

  /** OBJECT FREQ: the LFU counter of `key` after the decay due since its last decrement. */
  frequency(key: string): number {
    const stamp = this.data.stampOf(key)
    return stamp === undefined ? NEW_KEY_LFU_COUNTER : lfuDecayed(stamp & STAMP_CLOCK_BITS, this.shared)
  }

  /** Deletes `key` because its TTL has passed. */
  private expire(key: string): undefined {
    this.remove(key)
    this.expiredCount++
    this.reportExpired(key)
    return undefined
  }

  /** A lookup that found `key` expired: it is deleted, and the lookup missed. */
  private expireOnRead(key: string): undefined {
    this.expire(key)
    return this.shared.reportMisses ? this.reportMiss(key) : undefined
  }

  /** The `keymiss` event of a read-only command's lookup (see `KeyspaceState.reportMisses`). */
  private reportMiss(key: string): undefined {
    this.shared.notifier?.emit(NOTIFY_KEY_MISS, 'keymiss', key, this.index)
    return undefined
  }

  /** The `expired` event of `key`, lazy or active (Redis's deleteExpiredKeyAndPropagate). */
  private reportExpired(key: string): void {
    const notifier = this.shared.notifier
    if (notifier !== undefined && (notifier.flags & NOTIFY_EXPIRED) !== 0) notifier.emit(NOTIFY_EXPIRED, 'expired', key, this.index)
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
    this.store(key, value)
    if (this.expires.size !== 0) this.unexpire(key)
    if (this.stringEncodings.size !== 0) this.stringEncodings.delete(key)
  }

  /** Stores a value for `key` keeping any TTL it has (in-place updates, SET KEEPTTL). */
  update(key: string, value: Value): void {
    this.store(key, value)
    if (this.stringEncodings.size !== 0) this.stringEncodings.delete(key)
  }

  /**
   * Writes `key`, accounting its bytes, and stamps its access: a new key gets the current clock
   * (LFU: the initial counter); an overwrite under LFU keeps the counter, as Redis's dbOverwrite.
   */
  private store(key: string, value: Value): void {
    const data = this.data
    let slot = data.slotOf(key)
    let old: Value | undefined
    if (slot === undefined) slot = data.add(key, value)
    else {
      old = data.valueAt(slot)
      data.setValueAt(slot, value)
    }
    const shared = this.shared
    let delta: number
    if (old === value) delta = typeof value === 'string' ? 0 : shared.reaccountTyped(key, value)
    else {
      delta = typeof value === 'string' ? entryBytes(key, value) : shared.accountTyped(this, key, value)
      if (old !== undefined) delta -= typeof old === 'string' ? entryBytes(key, old) : shared.forgetTyped(old)
    }
    this.usedBytes += delta
    shared.usedBytes += delta
    if (shared.clock === 'lru') {
      if (shared.snapshotMark === 0 || old === undefined) data.setStampAt(slot, shared.lruClock)
      else this.restampKeepingMark(slot, shared.lruClock)
    } else if (shared.clock === 'lfu' && old === undefined) data.setStampAt(slot, shared.lfuStamp(NEW_KEY_LFU_COUNTER))
    // A key added reports `new` (Redis's dbAdd), before the event of the command that added it.
    if (old === undefined) {
      shared.keys++
      const notifier = shared.notifier
      if (notifier !== undefined && (notifier.flags & NOTIFY_NEW) !== 0) notifier.emit(NOTIFY_NEW, 'new', key, this.index)
    }
    shared.changes++
    if (shared.keyObserver !== undefined) shared.keyObserver(this, key)
  }

  /**
   * Re-estimates the typed value of `key` after a command may have changed it in place (the
   * engine calls this for the keys {@link KeyspaceState.noteTyped} recorded).
   */
  settle(key: string): void {
    const value = this.data.get(key)
    if (value === undefined || typeof value === 'string') return
    const delta = this.shared.reaccountTyped(key, value)
    this.usedBytes += delta
    this.shared.usedBytes += delta
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
    const data = this.data
    const slot = data.slotOf(key)
    if (slot === undefined) return false
    const old = data.valueAt(slot)
    data.deleteAt(key, slot)
    this.shared.keys--
    const bytes = typeof old === 'string' ? entryBytes(key, old) : this.shared.forgetTyped(old)
    this.usedBytes -= bytes
    this.shared.usedBytes -= bytes
    if (this.expires.size !== 0) this.unexpire(key)
    if (this.stringEncodings.size !== 0) this.stringEncodings.delete(key)
    this.shared.changes++
    if (this.shared.keyObserver !== undefined) this.shared.keyObserver(this, key)
    return true
  }

  /** Deletes `key` when it is live; true when it was. */
  delete(key: string, now: number): boolean {
    return this.get(key, now) !== undefined && this.remove(key)
  }

  /** Sets the absolute expiry time of an existing key, in milliseconds since the epoch. */
  setExpire(key: string, at: number): void {
    if (!this.expires.has(key)) {
      this.usedBytes += EXPIRE_ENTRY_BYTES
      this.shared.usedBytes += EXPIRE_ENTRY_BYTES
    }
    this.expires.set(key, at)
    this.pushDeadline({ at, key })
    this.shared.changes++
    if (this.shared.keyObserver !== undefined) this.shared.keyObserver(this, key)
  }

  /** The absolute expiry time of `key`, or undefined when it has none. */
  getExpire(key: string): number | undefined {
    return this.expires.size === 0 ? undefined : this.expires.get(key)
  }

  /** Removes the TTL of `key`; true when it had one. */
  persist(key: string): boolean {
    if (!this.unexpire(key)) return false
    this.shared.changes++
    if (this.shared.keyObserver !== undefined) this.shared.keyObserver(this, key)
    return true
  }

  /** Drops the TTL of `key` and its bytes; true when it had one. */
  private unexpire(key: string): boolean {
    if (!this.expires.delete(key)) return false
    this.usedBytes -= EXPIRE_ENTRY_BYTES
    this.shared.usedBytes -= EXPIRE_ENTRY_BYTES
    return true
  }

  /** Number of keys, counting expired keys not yet reclaimed, as DBSIZE does. */
  get size(): number {
    return this.data.size
  }

  /** Removes every key. */
  clear(): void {
    this.shared.usedBytes -= this.usedBytes
    this.shared.keys -= this.data.size
    this.usedBytes = 0
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
        this.reportExpired(entry.key)
      }
    }
    return removed
  }

  /** The key with the nearest deadline (volatile-ttl's victim); stale heap entries are dropped. */
  nearestDeadline(): ExpiryEntry | undefined {
    const heap = this.heap
    let entry: ExpiryEntry | undefined
    while ((entry = heap.peek()) !== undefined) {
      if (this.expires.get(entry.key) === entry.at) return entry
      heap.popBefore(Infinity)
    }
    return undefined
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
