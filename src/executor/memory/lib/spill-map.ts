/**
 * A `Map` that holds more entries than one V8 `Map` can (2^24): entries live in one Map until it
 * reaches {@link SPILL_THRESHOLD}, then new keys go to a further Map, and so on.
 *
 * Why a chain and not hash shards: a key never moves once stored, so a live iterator (what SCAN
 * cursors hold, see `scan-cursor.ts`) keeps ECMAScript's guarantees across the whole chain: it
 * visits every entry present from its start to its end, in insertion order per segment, and
 * entries added later land in the last segment, which it has not reached yet. Sharding by hash
 * would need a rehash when the shard count grows, moving keys under open cursors.
 *
 * The common case pays nothing: while one segment holds everything, every method is one call on
 * that Map. Past the threshold, a lookup probes each segment in turn (a database of 30M keys has
 * four segments); a new key goes to the last segment, after a check that no earlier one has it.
 */

/**
 * Entries per segment before a new one opens. Below V8's limit with room to spare, and small
 * enough that a segment's rehash on growth stays a short pause.
 */
export const SPILL_THRESHOLD = 1 << 23

export class SpillMap<K, V> implements Iterable<[K, V]> {
  /** The first segment; alone until the threshold is reached. */
  private head = new Map<K, V>()
  /** Every segment, first to last, once more than one exists; undefined before. */
  private segments: Map<K, V>[] | undefined

  constructor(private readonly threshold = SPILL_THRESHOLD) {}

  get size(): number {
    const segments = this.segments
    if (segments === undefined) return this.head.size
    let size = 0
    for (const segment of segments) size += segment.size
    return size
  }

  get(key: K): V | undefined {
    if (this.segments === undefined) return this.head.get(key)
    for (const segment of this.segments) {
      const value = segment.get(key)
      if (value !== undefined) return value
    }
    return undefined
  }

  has(key: K): boolean {
    if (this.segments === undefined) return this.head.has(key)
    for (const segment of this.segments) if (segment.has(key)) return true
    return false
  }

  set(key: K, value: V): this {
    const head = this.head
    if (this.segments === undefined && (head.size < this.threshold || head.has(key))) {
      head.set(key, value)
      return this
    }
    this.spill(key, value)
    return this
  }

  /** {@link SpillMap.set} past the first segment: update in place, or append to the last. */
  private spill(key: K, value: V): void {
    const segments = (this.segments ??= [this.head])
    for (const segment of segments) {
      if (segment.has(key)) {
        segment.set(key, value)
        return
      }
    }
    let last = segments[segments.length - 1]
    if (last.size >= this.threshold) {
      last = new Map()
      segments.push(last)
    }
    last.set(key, value)
  }

  delete(key: K): boolean {
    if (this.segments === undefined) return this.head.delete(key)
    for (const segment of this.segments) if (segment.delete(key)) return true
    return false
  }

  /** Removes every entry and returns to one segment. Open iterators end. */
  clear(): void {
    if (this.segments !== undefined) for (const segment of this.segments) segment.clear()
    this.head.clear()
    this.segments = undefined
  }

  keys(): IterableIterator<K> {
    return this.segments === undefined ? this.head.keys() : this.chain((segment) => segment.keys())
  }

  values(): IterableIterator<V> {
    return this.segments === undefined ? this.head.values() : this.chain((segment) => segment.values())
  }

  entries(): IterableIterator<[K, V]> {
    return this.segments === undefined ? this.head.entries() : this.chain((segment) => segment.entries())
  }

  [Symbol.iterator](): IterableIterator<[K, V]> {
    return this.entries()
  }

  forEach(callback: (value: V, key: K, map: this) => void): void {
    for (const [key, value] of this.entries()) callback(value, key, this)
  }

  /** Number of segments (1 until the threshold is passed). */
  get segmentCount(): number {
    return this.segments?.length ?? 1
  }

  /**
   * Iterates the segments in order, live: a segment opened while the iteration runs is visited
   * too, since `segments` is read again when one ends.
   */
  private *chain<T>(open: (segment: Map<K, V>) => IterableIterator<T>): IterableIterator<T> {
    const segments = this.segments ?? [this.head]
    for (let i = 0; i < segments.length; i++) yield* open(segments[i])
  }
}
