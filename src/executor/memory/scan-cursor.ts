/**
 * Cursors for SCAN over a collection kept in a JS `Map` or `Set` (the keyspace), with Redis's
 * guarantee: an element present from the start to the end of a full iteration is returned at
 * least once, whatever is inserted or deleted between calls, and a full iteration ends with
 * cursor 0. Elements added or removed meanwhile may or may not be returned, and may come twice.
 *
 * Redis gets this from its reverse-binary bucket walk. A `Map` has no buckets to walk, but its
 * iterators are live: ECMAScript defines that an iterator keeps its place through insertions and
 * deletions, visits entries added after it was created, and skips deleted ones. So a cursor here
 * names an open iterator, kept in a bounded table on the server side; each step costs O(COUNT).
 *
 * The cost of statefulness, and how it is contained:
 * - every step hands out a fresh cursor and remembers what the consumed one returned, so a
 *   client that repeats a call (a retried HTTP request) gets the same batch and cursor again;
 * - at most {@link DEFAULT_OPEN_CURSORS} cursors stay open per collection, least recently used
 *   dropped first. A dropped or unknown non-zero cursor starts a new iteration from the
 *   beginning: the guarantee still holds (elements may repeat), only the work is redone.
 *
 */

/** How many cursors a {@link CursorTable} keeps before dropping the least recently used. */
export const DEFAULT_OPEN_CURSORS = 1024

/** One SCAN step: the cursor to send back (0 when the iteration is complete) and the elements. */
export interface CursorStep<T> {
  readonly cursor: number
  readonly items: readonly T[]
}

/** An iteration in progress: where it is, and the element it looked at but did not return. */
interface OpenIteration<T> {
  readonly kind: 'open'
  readonly iterator: Iterator<T>
  readonly pending: T
}

/** A cursor already consumed: what it answered, for a repeated call. */
interface ConsumedCursor<T> {
  readonly kind: 'consumed'
  readonly step: CursorStep<T>
}

/** Cursor numbers are unique across every table, so a cursor of one collection never resumes another's. */
let lastCursorId = 0

/**
 * The open cursors of one collection. Callers keep one table per collection (a `WeakMap` keyed
 * by the collection lets tables go with their collections) and filter the returned elements
 * themselves: an element may have been deleted since the iterator or a replay saw it.
 */
export class CursorTable<T> {
  private readonly cursors = new Map<number, OpenIteration<T> | ConsumedCursor<T>>()

  constructor(private readonly capacity = DEFAULT_OPEN_CURSORS) {}

  /** Number of cursors held (open iterations and remembered answers). */
  get size(): number {
    return this.cursors.size
  }

  /**
   * Advances the iteration named by `cursor` (0 or unknown: a new one from `open()`) by up to
   * `count` elements. Looks one element ahead, so an iteration that ends within `count`
   * elements answers cursor 0 at once, as Redis does for small collections.
   */
  step(cursor: number, count: number, open: () => Iterator<T>): CursorStep<T> {
    const known = cursor === 0 ? undefined : this.cursors.get(cursor)
    if (known?.kind === 'consumed') {
      this.touch(cursor, known)
      return known.step
    }
    let iterator: Iterator<T>
    const items: T[] = []
    if (known === undefined) {
      iterator = open()
    } else {
      iterator = known.iterator
      items.push(known.pending)
    }
    let next = iterator.next()
    while (!next.done && items.length < count) {
      items.push(next.value)
      next = iterator.next()
    }
    let nextCursor = 0
    if (!next.done) {
      nextCursor = ++lastCursorId
      this.remember(nextCursor, { kind: 'open', iterator, pending: next.value })
    }
    const step: CursorStep<T> = { cursor: nextCursor, items }
    if (known !== undefined) this.remember(cursor, { kind: 'consumed', step })
    return step
  }

  /** Forgets every cursor (FLUSHDB makes them meaningless). */
  clear(): void {
    this.cursors.clear()
  }

  private touch(cursor: number, entry: OpenIteration<T> | ConsumedCursor<T>): void {
    this.cursors.delete(cursor)
    this.cursors.set(cursor, entry)
  }

  private remember(cursor: number, entry: OpenIteration<T> | ConsumedCursor<T>): void {
    this.touch(cursor, entry)
    if (this.cursors.size > this.capacity) {
      const oldest = this.cursors.keys().next().value as number
      this.cursors.delete(oldest)
    }
  }
}
