/**
 * The storage behind hashes and sets: an insertion-ordered table of binary-string keys (with an
 * optional value each) that also gives what Redis's commands need beyond a `Map`:
 *
 * - **stable scan cursors**: every slot carries a sequence number that grows with each insertion
 *   and never changes, so a cursor (the sequence number to resume from) stays valid across
 *   inserts, deletes and compaction. HSCAN/SSCAN then keep Redis's guarantee: an element present
 *   for the whole iteration is returned (here: exactly once);
 * - **O(1) random access** for SPOP, SRANDMEMBER and HRANDFIELD: slots live in an array, deleted
 *   slots are holes, and holes never exceed half the array (compaction is amortized O(1)).
 *
 * Updating the value of an existing key keeps its slot, as a listpack does in Redis, so small
 * hashes iterate in exactly Redis's order.
 */
export class OrderedTable<V> {
  /** key → slot index */
  private readonly slotOf = new Map<string, number>()
  /** Keys by slot; `undefined` marks a hole left by a deletion. */
  private keys: (string | undefined)[] = []
  private values: V[] = []
  /** Sequence number of each slot, strictly increasing along the array. */
  private sequences: number[] = []
  private nextSequence = 1
  private holes = 0

  /** Number of keys. */
  get size(): number {
    return this.slotOf.size
  }

  has(key: string): boolean {
    return this.slotOf.has(key)
  }

  /** The value of `key`, or undefined when absent. */
  get(key: string): V | undefined {
    const slot = this.slotOf.get(key)
    return slot === undefined ? undefined : this.values[slot]
  }

  /** Adds `key` or replaces its value in place; true when the key is new. */
  set(key: string, value: V): boolean {
    const slot = this.slotOf.get(key)
    if (slot !== undefined) {
      this.values[slot] = value
      return false
    }
    this.slotOf.set(key, this.keys.length)
    this.keys.push(key)
    this.values.push(value)
    this.sequences.push(this.nextSequence++)
    return true
  }

  /** Removes `key`; true when it was present. */
  delete(key: string): boolean {
    const slot = this.slotOf.get(key)
    if (slot === undefined) return false
    this.slotOf.delete(key)
    this.keys[slot] = undefined
    this.values[slot] = undefined as V
    this.holes++
    if (this.slotOf.size === 0) this.clear()
    else if (this.holes > 16 && this.holes * 2 > this.keys.length) this.compact()
    return true
  }

  clear(): void {
    this.slotOf.clear()
    this.keys = []
    this.values = []
    this.sequences = []
    this.holes = 0
  }

  /** Calls `visit` for every key in insertion order. The table must not change meanwhile. */
  forEach(visit: (key: string, value: V) => void): void {
    const keys = this.keys
    for (let slot = 0; slot < keys.length; slot++) {
      const key = keys[slot]
      if (key !== undefined) visit(key, this.values[slot])
    }
  }

  /** The keys in insertion order. */
  keyList(): string[] {
    const out: string[] = []
    for (const key of this.keys) if (key !== undefined) out.push(key)
    return out
  }

  /** A uniformly random key with its value; the table must not be empty. */
  randomEntry(): [string, V] {
    const keys = this.keys
    for (;;) {
      const slot = Math.floor(Math.random() * keys.length)
      const key = keys[slot]
      if (key !== undefined) return [key, this.values[slot]]
    }
  }

  /**
   * Visits up to `count` keys from `cursor` (0 starts over) in insertion order and returns the
   * cursor to continue from, 0 when the table is exhausted.
   */
  scan(cursor: number, count: number, visit: (key: string, value: V) => void): number {
    const keys = this.keys
    let slot = this.firstSlotAtOrAfter(cursor)
    let visited = 0
    while (slot < keys.length && visited < count) {
      const key = keys[slot]
      if (key !== undefined) {
        visit(key, this.values[slot])
        visited++
      }
      slot++
    }
    while (slot < keys.length && keys[slot] === undefined) slot++
    return slot < keys.length ? this.sequences[slot] : 0
  }

  /** Binary search for the first slot whose sequence number is at least `sequence`. */
  private firstSlotAtOrAfter(sequence: number): number {
    const sequences = this.sequences
    let low = 0
    let high = sequences.length
    while (low < high) {
      const middle = (low + high) >>> 1
      if (sequences[middle] < sequence) low = middle + 1
      else high = middle
    }
    return low
  }

  /** Drops the holes; sequence numbers move with their keys, so cursors stay valid. */
  private compact(): void {
    const keys: string[] = []
    const values: V[] = []
    const sequences: number[] = []
    for (let slot = 0; slot < this.keys.length; slot++) {
      const key = this.keys[slot]
      if (key === undefined) continue
      this.slotOf.set(key, keys.length)
      keys.push(key)
      values.push(this.values[slot])
      sequences.push(this.sequences[slot])
    }
    this.keys = keys
    this.values = values
    this.sequences = sequences
    this.holes = 0
  }
}
