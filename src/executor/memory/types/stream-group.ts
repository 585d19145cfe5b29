/**
 * Consumer groups of a stream (Redis `streamCG`, `streamConsumer`, `streamNACK`).
 *
 * A pending entry (NACK) lives in two ordered maps at once, the group's PEL and its owner's PEL,
 * as in Redis where both radix trees point to the same `streamNACK`. Groups and consumers are kept
 * in Maps; replies list them in Redis's radix-tree order, which is byte order of the name
 * ({@link sortedByName}).
 */
import { compareIds, plusOne, U64_MAX, type StreamId, type U64 } from './stream-id.js'

/** A delivered, not yet acknowledged entry (`streamNACK`). */
export interface PendingEntry {
  readonly id: StreamId
  /** Null only for an entry XCLAIM FORCE created, until it is given to its consumer. */
  consumer: Consumer | null
  /** Milliseconds since the epoch of the last delivery. */
  deliveryTime: number
  /** Times delivered (uint64 in Redis; RETRYCOUNT may set any value). */
  deliveryCount: U64
}

/** Counts one more delivery of `entry`, wrapping like Redis's uint64 counter. */
export function countDelivery(entry: PendingEntry): void {
  entry.deliveryCount = entry.deliveryCount === U64_MAX ? 0 : plusOne(entry.deliveryCount)
}

/** Largest chunk of {@link IdMap} before it splits. */
const CHUNK_CAPACITY = 256

/**
 * Values ordered by stream ID, with O(log n) lookup, insertion and removal: sorted chunks of at
 * most {@link CHUNK_CAPACITY} values, found by binary search. Appending past the last ID (the
 * usual XREADGROUP case) is O(1).
 */
export class IdMap<V extends { readonly id: StreamId }> {
  private chunks: V[][] = []
  private count = 0

  get size(): number {
    return this.count
  }

  /** The value with exactly `id`, or undefined. */
  get(id: StreamId): V | undefined {
    const [chunk, index] = this.locate(id)
    if (chunk === this.chunks.length) return undefined
    const value = this.chunks[chunk][index]
    return value !== undefined && compareIds(value.id, id) === 0 ? value : undefined
  }

  /** Adds `value`, or replaces the value with the same ID. */
  set(value: V): void {
    const chunks = this.chunks
    if (chunks.length === 0) {
      chunks.push([value])
      this.count = 1
      return
    }
    const tail = chunks[chunks.length - 1]
    if (compareIds(value.id, tail[tail.length - 1].id) > 0) {
      if (tail.length < CHUNK_CAPACITY) tail.push(value)
      else chunks.push([value])
      this.count++
      return
    }
    const [chunkIndex, index] = this.locate(value.id)
    const chunk = chunks[chunkIndex]
    if (index < chunk.length && compareIds(chunk[index].id, value.id) === 0) {
      chunk[index] = value
      return
    }
    chunk.splice(index, 0, value)
    this.count++
    if (chunk.length > CHUNK_CAPACITY) chunks.splice(chunkIndex + 1, 0, chunk.splice(CHUNK_CAPACITY / 2))
  }

  /** Removes the value with `id`; returns it, or undefined when absent. */
  delete(id: StreamId): V | undefined {
    const [chunkIndex, index] = this.locate(id)
    if (chunkIndex === this.chunks.length) return undefined
    const chunk = this.chunks[chunkIndex]
    const value = chunk[index]
    if (value === undefined || compareIds(value.id, id) !== 0) return undefined
    chunk.splice(index, 1)
    this.count--
    if (chunk.length === 0) this.chunks.splice(chunkIndex, 1)
    return value
  }

  first(): V | undefined {
    return this.chunks[0]?.[0]
  }

  last(): V | undefined {
    const tail = this.chunks[this.chunks.length - 1]
    return tail?.[tail.length - 1]
  }

  /** The value with the smallest ID at or after `id`, or undefined. */
  ceiling(id: StreamId): V | undefined {
    const [chunk, index] = this.locate(id)
    return this.chunks[chunk]?.[index]
  }

  /**
   * Visits values in ID order from the first at or after `start`; stops when `visit` returns
   * false. The map must not change during the visit.
   */
  forEachFrom(start: StreamId | null, visit: (value: V) => boolean): void {
    let [chunkIndex, index] = start === null ? [0, 0] : this.locate(start)
    for (; chunkIndex < this.chunks.length; chunkIndex++, index = 0) {
      const chunk = this.chunks[chunkIndex]
      for (; index < chunk.length; index++) if (!visit(chunk[index])) return
    }
  }

  /** Every value in ID order. */
  values(): V[] {
    return this.chunks.flat()
  }

  /**
   * Where `id` is or would go: the chunk (the first whose last ID is ≥ `id`; `chunks.length`
   * when `id` is past the end) and the index inside it.
   */
  private locate(id: StreamId): [number, number] {
    const chunks = this.chunks
    let low = 0
    let high = chunks.length
    while (low < high) {
      const middle = (low + high) >>> 1
      const chunk = chunks[middle]
      if (compareIds(chunk[chunk.length - 1].id, id) < 0) low = middle + 1
      else high = middle
    }
    if (low === chunks.length) return [low, 0]
    const chunk = chunks[low]
    let from = 0
    let to = chunk.length
    while (from < to) {
      const middle = (from + to) >>> 1
      if (compareIds(chunk[middle].id, id) < 0) from = middle + 1
      else to = middle
    }
    return [low, from]
  }
}

/** A consumer of a group (`streamConsumer`). */
export class Consumer {
  /** Entries delivered to this consumer and not acknowledged: shared with the group's PEL. */
  readonly pending = new IdMap<PendingEntry>()

  /**
   * @param seenTime last time the consumer was active (XREADGROUP, XCLAIM …), ms since the epoch;
   *   XINFO CONSUMERS reports `now - seenTime` as `idle`.
   */
  constructor(
    readonly name: string,
    public seenTime: number,
  ) {}
}

/** `entries-read` when it cannot be known (`SCG_INVALID_ENTRIES_READ`). */
export const ENTRIES_READ_UNKNOWN = -1

/** A consumer group (`streamCG`). */
export class ConsumerGroup {
  /** The group's PEL: every entry delivered and not acknowledged, by ID. */
  readonly pending = new IdMap<PendingEntry>()
  readonly consumers = new Map<string, Consumer>()

  /**
   * @param lastId last delivered ID (`last-delivered-id`)
   * @param entriesRead logical read counter of `lastId` (`entries-read`), or
   *   {@link ENTRIES_READ_UNKNOWN}
   */
  constructor(
    readonly name: string,
    public lastId: StreamId,
    public entriesRead: U64,
  ) {}

  /** The consumer called `name`, created (seen now) when absent (XGROUP CREATECONSUMER). */
  consumer(name: string, now: number): Consumer {
    let consumer = this.consumers.get(name)
    if (consumer === undefined) {
      consumer = new Consumer(name, now)
      this.consumers.set(name, consumer)
    }
    return consumer
  }

  /**
   * The consumer called `name` as a read or a claim uses it (`streamLookupConsumer` then
   * `streamCreateConsumer`): created when absent, and seen now either way.
   */
  activeConsumer(name: string, now: number): Consumer {
    const consumer = this.consumer(name, now)
    consumer.seenTime = now
    return consumer
  }

  /** Removes `id` from the group's PEL and its owner's; returns the entry, or undefined. */
  acknowledge(id: StreamId): PendingEntry | undefined {
    const entry = this.pending.delete(id)
    if (entry !== undefined) entry.consumer?.pending.delete(id)
    return entry
  }

  /** Gives a pending entry to `consumer`, moving it out of its previous owner's PEL. */
  assign(entry: PendingEntry, consumer: Consumer): void {
    if (entry.consumer === consumer) return
    entry.consumer?.pending.delete(entry.id)
    consumer.pending.set(entry)
    entry.consumer = consumer
  }

  /** Deletes a consumer and its pending entries (XGROUP DELCONSUMER); returns how many it had. */
  deleteConsumer(consumer: Consumer): number {
    const count = consumer.pending.size
    consumer.pending.forEachFrom(null, (entry) => {
      this.pending.delete(entry.id)
      return true
    })
    this.consumers.delete(consumer.name)
    return count
  }

  /** An independent copy (COPY), with the same PEL entries, owners and times. */
  clone(): ConsumerGroup {
    const copy = new ConsumerGroup(this.name, this.lastId, this.entriesRead)
    const entries = new Map<PendingEntry, PendingEntry>()
    this.pending.forEachFrom(null, (entry) => {
      const cloned: PendingEntry = { ...entry, consumer: null }
      entries.set(entry, cloned)
      copy.pending.set(cloned)
      return true
    })
    for (const consumer of this.consumers.values()) {
      const cloned = new Consumer(consumer.name, consumer.seenTime)
      consumer.pending.forEachFrom(null, (entry) => {
        const clonedEntry = entries.get(entry)!
        clonedEntry.consumer = cloned
        cloned.pending.set(clonedEntry)
        return true
      })
      copy.consumers.set(cloned.name, cloned)
    }
    return copy
  }
}

/** Values of a name-keyed map in Redis's radix-tree order: bytes of the name, ascending. */
export function sortedByName<V>(map: ReadonlyMap<string, V>): V[] {
  const names = [...map.keys()].sort(compareBytes)
  return names.map((name) => map.get(name)!)
}

/** Byte order of two binary strings (one char per byte): what `memcmp` gives. */
function compareBytes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
