/**
 * What the databases of one engine share: the access clock keys are stamped with (LRU seconds or
 * LFU minutes, Redis's `evict.c` model), the policy that decides which of the two is kept, the
 * estimated bytes of the whole dataset, and the keys whose typed values the running command may
 * have changed in place (their size is settled after the command, see {@link KeyspaceState.settle}).
 */
import type { Database, TypedValue } from './keyspace.js'
import type { KeyspaceNotifier } from './notify.js'
import { typedValueBytes } from './memory-accounting.js'

/** LFU_INIT_VAL: the counter of a new key, so it is not evicted before it had a chance. */
export const NEW_KEY_LFU_COUNTER = 5
/** The 24-bit LRU clock wraps at this many seconds, as Redis's LRU_CLOCK_MAX. */
const LRU_CLOCK_MASK = 0xffffff
/** LFU stamps keep the minute of the last decrement in 16 bits. */
const LFU_MINUTES_MASK = 0xffff
const LFU_COUNTER_MAX = 255
/** The bits of an access stamp that hold the clock: LRU seconds, or LFU minute and counter. */
export const STAMP_CLOCK_BITS = 0xffffff
/**
 * The bits above the clock: the mark of the snapshot that last wrote the key
 * (`persistence/snapshot-marks.ts`). Six bits, so a stamp stays a small integer on every V8 build
 * (31-bit Smis) and in an Int32Array (`key-table.ts`).
 */
export const SNAPSHOT_MARK_BITS = 0x3f000000

/** Which access clock the keys carry: none, LRU seconds, or LFU counters. */
export type AccessClock = 'off' | 'lru' | 'lfu'

export class KeyspaceState {
  /**
   * The clock kept per key: LFU counters under the `*-lfu` policies, LRU seconds under every
   * other (as Redis's object header does). `off` only until the engine applies its policy.
   */
  clock: AccessClock = 'off'
  /**
   * The mark (in {@link SNAPSHOT_MARK_BITS}) of the snapshot that records the keys it wrote in
   * their stamps, while it runs; 0 otherwise. While set, accesses and overwrites keep a key's mark.
   */
  snapshotMark = 0
  /** Set while a command of a CLIENT NO-TOUCH client runs: lookups leave the clock alone. */
  noTouch = false
  /**
   * Told of every key stored, deleted, or given or cleared a TTL, after the change; set only while
   * a connection watches keys or is blocked on keys (WATCH and blocking commands), so the writes of
   * everyone else pay one field read.
   */
  keyObserver: ((db: Database, key: string) => void) | undefined = undefined
  /** The LRU clock when the current clock started: the stamp of keys not accessed since. */
  clockStartedAt = 0
  /** Unix seconds masked to 24 bits, the LRU clock (`LRU_CLOCK()`). */
  lruClock = 0
  /** Unix minutes masked to 16 bits (`LFUGetTimeInMinutes()`). */
  minutes = 0
  /** `lfu-log-factor`: how many hits it takes to raise the counter (logarithmic). */
  lfuLogFactor = 10
  /** `lfu-decay-time`: minutes per counter decrement of an idle key; 0 never decays. */
  lfuDecayTime = 1
  /** Uniform [0, 1): the LFU increment's coin and random eviction; injectable for tests. */
  random: () => number = Math.random
  /** Estimated bytes of every database's keys and values (`memory-accounting.ts`). */
  usedBytes = 0
  /** Keys of every database, kept with usedBytes (under a limit each counts its table slots). */
  keys = 0
  /**
   * Where the keyspace reports the events no command names: a key added (`new`), a TTL passed
   * (`expired`). The engine sets it; a database made on its own has none.
   */
  notifier: KeyspaceNotifier | undefined
  /**
   * True while a read-only command runs with the `m` class selected: its lookups that find no
   * key report `keymiss` (Redis's lookupKeyRead). Set by the engine around each command.
   */
  reportMisses = false
  /**
   * Stores, deletes and TTL changes so far (never reset): the engine compares it around a command
   * to learn whether the command changed any key (`rdb_changes_since_last_save`, see the engine).
   */
  changes = 0
  /**
   * Keys commands reported as modified (Redis's `signalModifiedKey`, which Redis calls next to the
   * command's keyspace event, see `notify.ts`), counted always and recorded only while
   * {@link KeyspaceState.keyObserver} is set (a connection watches or blocks): WATCH touches
   * exactly these among the collections a write looked up.
   */
  signalCount = 0
  private readonly signaledDatabases: Database[] = []
  private readonly signaledKeys: string[] = []
  /** The bytes each typed value was last accounted at, to subtract exactly that later. */
  private readonly typedBytes = new WeakMap<TypedValue, number>()
  private readonly dirtyDatabases: Database[] = []
  private readonly dirtyKeys: string[] = []

  /** Moves the clocks to `ms` (milliseconds since the epoch). */
  setTime(ms: number): void {
    const seconds = Math.floor(ms / 1000)
    this.lruClock = seconds & LRU_CLOCK_MASK
    this.minutes = Math.floor(seconds / 60) & LFU_MINUTES_MASK
  }

  /** Switches the clock kept per key; stamps of another clock are dropped. */
  useClock(clock: AccessClock, databases: readonly Database[]): void {
    if (clock === this.clock) return
    this.clock = clock
    this.clockStartedAt = this.lruClock
    for (const db of databases) db.data.clearStamps()
  }

  /** An LRU stamp `idleSeconds` before now, wrapped as the 24-bit clock is. */
  lruStampIdleFor(idleSeconds: number): number {
    const stamp = this.lruClock - (idleSeconds % (LRU_CLOCK_MASK + 1))
    return stamp >= 0 ? stamp : stamp + LRU_CLOCK_MASK + 1
  }

  /** An LFU stamp: this minute and `counter`. */
  lfuStamp(counter: number): number {
    return this.minutes * 256 + counter
  }

  /** A command reports `key` of `db` modified (counted; recorded only while keys are observed). */
  signalModified(db: Database, key: string): void {
    this.signalCount++
    if (this.keyObserver === undefined) return
    this.signaledDatabases.push(db)
    this.signaledKeys.push(key)
  }

  /** How many signals are recorded: a command takes it as its mark before it runs. */
  get signalMark(): number {
    return this.signaledKeys.length
  }

  /** Calls `visit` for each key signaled since `mark`. */
  forEachSignaled(mark: number, visit: (db: Database, key: string) => void): void {
    const databases = this.signaledDatabases
    const keys = this.signaledKeys
    for (let i = mark; i < keys.length; i++) visit(databases[i], keys[i])
  }

  /** Forgets the signals recorded since `mark` (after the command that made them). */
  dropSignals(mark: number): void {
    if (this.signaledKeys.length <= mark) return
    this.signaledDatabases.length = mark
    this.signaledKeys.length = mark
  }

  /** Notes that the command running may change the typed value at `key` of `db` in place. */
  noteTyped(db: Database, key: string): void {
    this.dirtyDatabases.push(db)
    this.dirtyKeys.push(key)
  }

  /** Calls `visit` for each typed value looked up since the last settle (a write may have changed it in place). */
  forEachNoted(visit: (db: Database, key: string) => void): void {
    const databases = this.dirtyDatabases
    const keys = this.dirtyKeys
    for (let i = 0; i < keys.length; i++) visit(databases[i], keys[i])
  }

  /** After a write command: re-estimates the typed values it looked up. */
  settle(): void {
    const databases = this.dirtyDatabases
    const keys = this.dirtyKeys
    for (let i = 0; i < keys.length; i++) databases[i].settle(keys[i])
    this.forgetNoted()
  }

  /** After a read-only command: nothing changed. */
  forgetNoted(): void {
    this.dirtyDatabases.length = 0
    this.dirtyKeys.length = 0
  }

  /** True when a typed value was looked up since the last settle. */
  get hasNoted(): boolean {
    return this.dirtyKeys.length !== 0
  }

  /** Accounts a typed value newly stored at `key` of `db`; returns its bytes. */
  accountTyped(db: Database, key: string, value: TypedValue): number {
    const bytes = typedValueBytes(key, value)
    this.typedBytes.set(value, bytes)
    // Commands store an empty collection and then fill it: settle it after the command.
    this.noteTyped(db, key)
    return bytes
  }

  /** The bytes a typed value leaving the keyspace was accounted at. */
  forgetTyped(value: TypedValue): number {
    const bytes = this.typedBytes.get(value) ?? 0
    this.typedBytes.delete(value)
    return bytes
  }

  /** Re-estimates a typed value still stored; returns the change in bytes. */
  reaccountTyped(key: string, value: TypedValue): number {
    const before = this.typedBytes.get(value) ?? 0
    const after = typedValueBytes(key, value)
    this.typedBytes.set(value, after)
    return after - before
  }
}

/** `LFUDecrAndReturn`: the counter of `stamp` less one per `lfu-decay-time` minutes elapsed. */
export function lfuDecayed(stamp: number, state: KeyspaceState): number {
  const lastMinute = Math.floor(stamp / 256)
  const counter = stamp & 255
  const now = state.minutes
  const elapsed = now >= lastMinute ? now - lastMinute : LFU_MINUTES_MASK - lastMinute + now
  const periods = state.lfuDecayTime === 0 ? 0 : Math.floor(elapsed / state.lfuDecayTime)
  if (periods === 0) return counter
  return periods > counter ? 0 : counter - periods
}

/**
 * `updateLFU`: decay, then `LFULogIncr` — the counter rises with probability
 * 1 / ((counter - LFU_INIT_VAL) * lfu-log-factor + 1), so it grows with the log of the hits.
 */
export function lfuIncremented(stamp: number, state: KeyspaceState): number {
  let counter = lfuDecayed(stamp, state)
  if (counter < LFU_COUNTER_MAX) {
    const base = Math.max(counter - NEW_KEY_LFU_COUNTER, 0)
    if (state.random() < 1 / (base * state.lfuLogFactor + 1)) counter++
  }
  return state.lfuStamp(counter)
}
