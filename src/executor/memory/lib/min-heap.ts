/**
 * A binary min-heap of entries keyed by their numeric `at` field (a deadline in ms), for the
 * engine's expiry indexes. It only orders entries: whether an entry is still current (stale
 * entries are left in place when a TTL changes) and when to rebuild are its owner's business.
 */
export class MinHeap<T extends { readonly at: number }> {
  private items: T[] = []

  /** Number of entries, stale ones included. */
  get size(): number {
    return this.items.length
  }

  /** The entry with the smallest `at`, or undefined when empty. */
  peek(): T | undefined {
    return this.items[0]
  }

  push(entry: T): void {
    const heap = this.items
    heap.push(entry)
    let i = heap.length - 1
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (heap[parent].at <= entry.at) break
      heap[i] = heap[parent]
      i = parent
    }
    heap[i] = entry
  }

  /** Removes and returns the entry with the smallest `at`, or undefined when empty. */
  pop(): T | undefined {
    const heap = this.items
    if (heap.length === 0) return undefined
    const top = heap[0]
    const last = heap.pop()!
    if (heap.length > 0) {
      let i = 0
      for (;;) {
        const left = 2 * i + 1
        if (left >= heap.length) break
        const right = left + 1
        const child = right < heap.length && heap[right].at < heap[left].at ? right : left
        if (heap[child].at >= last.at) break
        heap[i] = heap[child]
        i = child
      }
      heap[i] = last
    }
    return top
  }

  /** Removes and returns the entry with the smallest `at` when that is below `limit`. */
  popBefore(limit: number): T | undefined {
    const heap = this.items
    return heap.length > 0 && heap[0].at < limit ? this.pop() : undefined
  }

  /** Replaces the entries with `entries`, taken over and sorted (a sorted array is a min-heap). */
  rebuild(entries: T[]): void {
    this.items = entries.sort((a, b) => a.at - b.at)
  }

  clear(): void {
    this.items = []
  }

  [Symbol.iterator](): Iterator<T> {
    return this.items[Symbol.iterator]()
  }
}
