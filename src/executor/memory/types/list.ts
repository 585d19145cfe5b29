import type { TypedValue } from '../keyspace.js'

const INITIAL_CAPACITY = 8

/**
 * A list: binary-string elements in a growable ring buffer, so pushes and pops at both ends are
 * O(1) amortized and reading or writing by index is O(1). Insertions and removals in the middle
 * (LINSERT, LREM, LTRIM) move elements, O(n) as in Redis.
 *
 * Indexes here are 0-based from the head and always in range; the commands translate Redis's
 * negative indexes first. Empty lists never live in the keyspace: the commands delete the key
 * when the last element goes.
 */
export class ListValue implements TypedValue {
  readonly type = 'list'
  /** Slots; the capacity is a power of two so that `& mask` wraps an index. */
  private slots: (string | undefined)[]
  private mask: number
  /** Slot of the head element. */
  private head = 0
  private count = 0

  constructor(elements?: readonly string[]) {
    let capacity = INITIAL_CAPACITY
    while (elements !== undefined && capacity < elements.length) capacity *= 2
    this.slots = new Array<string | undefined>(capacity)
    this.mask = capacity - 1
    if (elements !== undefined) {
      for (let i = 0; i < elements.length; i++) this.slots[i] = elements[i]
      this.count = elements.length
    }
  }

  /**
   * OBJECT ENCODING as Redis 7.0 reports it: every list is a `quicklist` there (7.2 reports
   * `listpack` for small lists).
   */
  get encoding(): 'quicklist' {
    return 'quicklist'
  }

  get length(): number {
    return this.count
  }

  /** The element at `index` (0 ≤ index < length). */
  at(index: number): string {
    return this.slots[(this.head + index) & this.mask]!
  }

  /** Replaces the element at `index` (0 ≤ index < length). */
  setAt(index: number, element: string): void {
    this.slots[(this.head + index) & this.mask] = element
  }

  pushHead(element: string): void {
    if (this.count === this.slots.length) this.grow()
    this.head = (this.head - 1) & this.mask
    this.slots[this.head] = element
    this.count++
  }

  pushTail(element: string): void {
    if (this.count === this.slots.length) this.grow()
    this.slots[(this.head + this.count) & this.mask] = element
    this.count++
  }

  /** Removes and returns the head element; the list must not be empty. */
  popHead(): string {
    const element = this.slots[this.head]!
    this.slots[this.head] = undefined
    this.head = (this.head + 1) & this.mask
    this.count--
    this.shrinkIfSparse()
    return element
  }

  /** Removes and returns the tail element; the list must not be empty. */
  popTail(): string {
    const slot = (this.head + this.count - 1) & this.mask
    const element = this.slots[slot]!
    this.slots[slot] = undefined
    this.count--
    this.shrinkIfSparse()
    return element
  }

  /** The elements from `start` to `stop` inclusive (0 ≤ start ≤ stop < length), head first. */
  range(start: number, stop: number): string[] {
    const out = new Array<string>(stop - start + 1)
    for (let i = start; i <= stop; i++) out[i - start] = this.slots[(this.head + i) & this.mask]!
    return out
  }

  /** Every element, head first. */
  toArray(): string[] {
    return this.count === 0 ? [] : this.range(0, this.count - 1)
  }

  /** Inserts `element` so that it ends up at `index` (0 ≤ index ≤ length). */
  insertAt(index: number, element: string): void {
    if (index === 0) return this.pushHead(element)
    if (index === this.count) return this.pushTail(element)
    if (this.count === this.slots.length) this.grow()
    // Shift the shorter side by one slot.
    if (index < this.count / 2) {
      this.head = (this.head - 1) & this.mask
      for (let i = 0; i < index; i++) this.setAt(i, this.at(i + 1))
    } else {
      for (let i = this.count; i > index; i--) this.setAt(i, this.at(i - 1))
    }
    this.setAt(index, element)
    this.count++
  }

  /** Keeps the elements from `start` to `stop` inclusive (0 ≤ start ≤ stop < length). */
  trim(start: number, stop: number): void {
    for (let i = 0; i < start; i++) this.slots[(this.head + i) & this.mask] = undefined
    for (let i = stop + 1; i < this.count; i++) this.slots[(this.head + i) & this.mask] = undefined
    this.head = (this.head + start) & this.mask
    this.count = stop - start + 1
    this.shrinkIfSparse()
  }

  /**
   * Removes elements equal to `element`: all of them when `limit` is 0, else at most `limit`
   * from the head (`fromTail` false) or from the tail. Returns how many went. One pass, O(n).
   */
  removeMatching(element: string, limit: number, fromTail: boolean): number {
    const n = this.count
    const keep: boolean[] = new Array<boolean>(n)
    let removed = 0
    for (let k = 0; k < n; k++) {
      const i = fromTail ? n - 1 - k : k
      const match = (limit === 0 || removed < limit) && this.at(i) === element
      keep[i] = !match
      if (match) removed++
    }
    if (removed === 0) return 0
    let write = 0
    for (let read = 0; read < n; read++) if (keep[read]) this.setAt(write++, this.at(read))
    for (let i = write; i < n; i++) this.slots[(this.head + i) & this.mask] = undefined
    this.count = write
    this.shrinkIfSparse()
    return removed
  }

  /** An independent copy (COPY). */
  clone(): ListValue {
    return new ListValue(this.toArray())
  }

  private grow(): void {
    this.resize(this.slots.length * 2)
  }

  /** Gives memory back after a list shrank to a quarter of its capacity. */
  private shrinkIfSparse(): void {
    const capacity = this.slots.length
    if (capacity > 64 && this.count * 4 < capacity) this.resize(capacity / 2)
  }

  private resize(capacity: number): void {
    const next = new Array<string | undefined>(capacity)
    for (let i = 0; i < this.count; i++) next[i] = this.slots[(this.head + i) & this.mask]
    this.slots = next
    this.mask = capacity - 1
    this.head = 0
  }
}
