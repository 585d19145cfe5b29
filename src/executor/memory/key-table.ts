/**
 * The keys of one database with their values and access stamps: one table of keys giving each
 * key a slot number, and the values and stamps in arrays at that slot.
 *
 * Why not a Map of values and a second Map of stamps: in a table of a million keys every Map
 * lookup costs several cache misses (bucket, chain, the candidate keys' strings), and keeping the
 * stamp in its own Map keyed by the same string paid them twice: on every read (the stamp is
 * written on each access) and on every key loaded. Here a key is looked up once; its value and
 * stamp are two array elements. On this machine a 1M-key RDB load went from 1.8 s to about
 * 1.2 s, and the stamp of a GET stopped costing a second lookup (docs/benchmarks.md).
 *
 * The key table is a {@link SpillMap}, so a database may hold more than 2^24 keys and its live
 * iterators keep the guarantees SCAN relies on (see there). Slots freed by deletes are reused.
 * Arrays are paged ({@link PAGE_SLOTS} slots a page) so growth never copies more than a page,
 * and the newest page grows by doubling, so a small database holds small arrays.
 */
import { SpillMap } from './lib/spill-map.js'

/** The stamp of a key that has none (the clock was off, or switched, when it was last stored). */
export const NO_STAMP = -1

const PAGE_BITS = 16
/** Slots per page of the value and stamp arrays. */
export const PAGE_SLOTS = 1 << PAGE_BITS
const PAGE_MASK = PAGE_SLOTS - 1
/** The length a new page starts with. */
const FIRST_PAGE_LENGTH = 16

export class KeyTable<V> implements Iterable<[string, V]> {
  /** Key → slot. */
  private readonly slots: SpillMap<string, number>
  private valuePages: (V | undefined)[][] = []
  /** Stamps fit in 31 bits (clock and snapshot mark, `key-access.ts`); {@link NO_STAMP} when none. */
  private stampPages: Int32Array[] = []
  /** Slots freed by deletes, taken before new ones. */
  private free: number[] = []
  /** The lowest slot never handed out. */
  private fresh = 0

  /** @param spillThreshold keys per segment of the key table (see {@link SpillMap}); for tests. */
  constructor(spillThreshold?: number) {
    this.slots = new SpillMap<string, number>(spillThreshold)
  }

  get size(): number {
    return this.slots.size
  }

  /** The slot of `key`, or undefined when it has none. */
  slotOf(key: string): number | undefined {
    return this.slots.get(key)
  }

  /** The value at a slot {@link KeyTable.slotOf} gave. */
  valueAt(slot: number): V {
    return this.valuePages[slot >>> PAGE_BITS][slot & PAGE_MASK] as V
  }

  /** Replaces the value at `slot` (the key keeps its slot and stamp). */
  setValueAt(slot: number, value: V): void {
    this.valuePages[slot >>> PAGE_BITS][slot & PAGE_MASK] = value
  }

  /** The stamp at `slot`, {@link NO_STAMP} when it has none. */
  stampAt(slot: number): number {
    return this.stampPages[slot >>> PAGE_BITS][slot & PAGE_MASK]
  }

  setStampAt(slot: number, stamp: number): void {
    this.stampPages[slot >>> PAGE_BITS][slot & PAGE_MASK] = stamp
  }

  /**
   * Adds `key`, which the caller knows is absent, with `value` and `stamp`; returns its slot.
   * Adding a key that is present breaks the table: look it up first.
   */
  add(key: string, value: V, stamp: number = NO_STAMP): number {
    const slot = this.free.length > 0 ? this.free.pop()! : this.newSlot()
    this.slots.set(key, slot)
    this.valuePages[slot >>> PAGE_BITS][slot & PAGE_MASK] = value
    this.stampPages[slot >>> PAGE_BITS][slot & PAGE_MASK] = stamp
    return slot
  }

  /** The value of `key`, or undefined. */
  get(key: string): V | undefined {
    const slot = this.slots.get(key)
    return slot === undefined ? undefined : this.valueAt(slot)
  }

  has(key: string): boolean {
    return this.slots.has(key)
  }

  /** Removes `key`; true when it was present. */
  delete(key: string): boolean {
    const slot = this.slots.get(key)
    if (slot === undefined) return false
    this.deleteAt(key, slot)
    return true
  }

  /** Removes `key`, whose slot {@link KeyTable.slotOf} gave. */
  deleteAt(key: string, slot: number): void {
    this.slots.delete(key)
    if (this.slots.size === 0) {
      // Emptied: give the pages back rather than keep them for slots no key may need again.
      this.releasePages()
      return
    }
    // Released at once, so the value is garbage as soon as no one else holds it.
    this.valuePages[slot >>> PAGE_BITS][slot & PAGE_MASK] = undefined
    this.free.push(slot)
  }

  /** The stamp of `key`: undefined when the key is absent or has no stamp. */
  stampOf(key: string): number | undefined {
    const slot = this.slots.get(key)
    if (slot === undefined) return undefined
    const stamp = this.stampAt(slot)
    return stamp === NO_STAMP ? undefined : stamp
  }

  /** Drops every key's stamp (the clock changed kind). */
  clearStamps(): void {
    for (const page of this.stampPages) page.fill(NO_STAMP)
  }

  /** Removes every key. Open iterators end. */
  clear(): void {
    this.slots.clear()
    this.releasePages()
  }

  /** Forgets every slot; only when no key holds one. */
  private releasePages(): void {
    this.valuePages = []
    this.stampPages = []
    this.free = []
    this.fresh = 0
  }

  /** Keys in insertion order, live as a Map's iterator is. */
  keys(): IterableIterator<string> {
    return this.slots.keys()
  }

  /** Keys with their slots, live: the cheapest walk for a caller that reads slots itself. */
  slotEntries(): IterableIterator<[string, number]> {
    return this.slots.entries()
  }

  *entries(): IterableIterator<[string, V]> {
    for (const [key, slot] of this.slots.entries()) yield [key, this.valueAt(slot)]
  }

  [Symbol.iterator](): IterableIterator<[string, V]> {
    return this.entries()
  }

  /** Number of segments of the key table (see {@link SpillMap.segmentCount}). */
  get segmentCount(): number {
    return this.slots.segmentCount
  }

  /** Hands out the next never-used slot, making room for it in the pages. */
  private newSlot(): number {
    const slot = this.fresh++
    const page = slot >>> PAGE_BITS
    const offset = slot & PAGE_MASK
    if (offset === 0) {
      this.valuePages.push([])
      this.stampPages.push(new Int32Array(page === 0 ? FIRST_PAGE_LENGTH : PAGE_SLOTS))
    } else {
      const stamps = this.stampPages[page]
      if (offset === stamps.length) {
        const grown = new Int32Array(Math.min(PAGE_SLOTS, stamps.length * 2))
        grown.set(stamps)
        this.stampPages[page] = grown
      }
    }
    return slot
  }
}
