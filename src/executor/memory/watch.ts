/**
 * WATCH (Redis 7.0 `multi.c`): the keys each connection watches and whether one of them was
 * touched since. A touched connection's EXEC answers the null array and runs nothing.
 *
 * What touches a key is what Redis's `signalModifiedKey` covers: any change the engine reports
 * for it (a value stored, deleted, expired, evicted, its TTL set or removed, a collection changed
 * in place, see `Engine.keyChanged`), and FLUSHDB, FLUSHALL and SWAPDB for the keys they change
 * ({@link Watches.touchDatabase}). A key that had already expired when it was watched counts as
 * unchanged when it is then deleted, as in Redis 7.0.
 */
import type { Database } from './keyspace.js'

/** One watched key of one connection. */
interface WatchedKey {
  readonly key: string
  readonly db: number
  readonly state: WatchState
  /** The key was present but past its deadline when it was watched (`watchedKey.expired`). */
  expired: boolean
}

/** A connection's watches: its keys and the flag that dooms its EXEC. */
export class WatchState {
  readonly keys: WatchedKey[] = []
  /** Redis's CLIENT_DIRTY_CAS: a watched key was touched. */
  dirty = false
}

/** True when `key` is in `db` but past its deadline, without removing it (Redis's `keyIsExpired`). */
export function keyIsExpired(db: Database, key: string, now: number): boolean {
  if (!db.data.has(key)) return false
  const at = db.getExpire(key)
  return at !== undefined && at < now
}

export class Watches {
  /** Per database index: the watchers of each key, in the order they watched. */
  private readonly byKey: Map<string, WatchedKey[]>[]
  private watched = 0

  constructor(
    databases: number,
    private readonly onCountChange: () => void,
  ) {
    this.byKey = Array.from({ length: databases }, () => new Map())
  }

  /** Keys watched, over every connection (each connection's key counted once). */
  get count(): number {
    return this.watched
  }

  /** WATCH key in `db` for `state`; a key it already watches in that database is left as it is. */
  watch(state: WatchState, db: Database, key: string, now: number): void {
    const index = db.index
    if (state.keys.some((entry) => entry.db === index && entry.key === key)) return
    const entry: WatchedKey = { key, db: index, state, expired: keyIsExpired(db, key, now) }
    state.keys.push(entry)
    const watchers = this.byKey[index]
    let list = watchers.get(key)
    if (list === undefined) watchers.set(key, (list = []))
    list.push(entry)
    if (this.watched++ === 0) this.onCountChange()
  }

  /** UNWATCH (and EXEC, DISCARD, RESET, disconnection): forgets the keys and clears the flag. */
  unwatchAll(state: WatchState): void {
    this.forget(state)
    state.dirty = false
  }

  private forget(state: WatchState): void {
    if (state.keys.length === 0) return
    for (const entry of state.keys) {
      const watchers = this.byKey[entry.db]
      const list = watchers.get(entry.key)
      if (list === undefined) continue
      const at = list.indexOf(entry)
      if (at !== -1) list.splice(at, 1)
      if (list.length === 0) watchers.delete(entry.key)
    }
    this.watched -= state.keys.length
    state.keys.length = 0
    if (this.watched === 0) this.onCountChange()
  }

  /** `key` of `db` changed (Redis's `touchWatchedKey`). */
  touch(db: Database, key: string): void {
    const list = this.byKey[db.index].get(key)
    if (list === undefined) return
    for (const entry of [...list]) {
      if (entry.expired) {
        // Watched while already expired: its deletion is no logical change.
        if (!db.data.has(key)) {
          entry.expired = false
          continue
        }
        // Redis 7.0 stops looking at this key's other watchers here (a `break`): kept as it is.
        break
      }
      entry.state.dirty = true
      // A doomed connection needs its watches no more (Redis unwatches it at once).
      this.forget(entry.state)
    }
  }

  /**
   * FLUSHDB, FLUSHALL (`replacedWith` undefined) and SWAPDB: the watched keys of `emptied` that
   * it held, or that `replacedWith` holds, are touched (Redis's `touchAllWatchedKeysInDb`). Called
   * before the databases change.
   */
  touchDatabase(emptied: Database, replacedWith: Database | undefined, now: number): void {
    const watchers = this.byKey[emptied.index]
    if (watchers.size === 0) return
    const doomed = new Set<WatchState>()
    for (const [key, list] of watchers) {
      const existsInEmptied = emptied.data.has(key)
      const existsInReplacement = replacedWith !== undefined && replacedWith.data.has(key)
      if (!existsInEmptied && !existsInReplacement) continue
      for (const entry of list) {
        if (entry.expired) {
          if (!existsInReplacement) {
            entry.expired = false
            continue
          }
          if (keyIsExpired(replacedWith as Database, key, now)) continue
        } else if (!existsInEmptied && keyIsExpired(replacedWith as Database, key, now)) {
          entry.expired = true
          continue
        }
        entry.state.dirty = true
        doomed.add(entry.state)
      }
    }
    for (const state of doomed) this.forget(state)
  }

  /** At EXEC: a watched key that was live when watched has expired since (`isWatchedKeyExpired`). */
  expiredSinceWatch(state: WatchState, databases: readonly Database[], now: number): boolean {
    for (const entry of state.keys) {
      if (!entry.expired && keyIsExpired(databases[entry.db], entry.key, now)) return true
    }
    return false
  }
}
