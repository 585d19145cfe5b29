import type { TypedValue } from '../keyspace.js'
import {
  compareIds,
  isZeroId,
  MIN_ID,
  minus,
  plus,
  plusOne,
  U64_MAX,
  type StreamId,
  type U64,
} from './stream-id.js'
import { ConsumerGroup, ENTRIES_READ_UNKNOWN } from './stream-group.js'
import {
  entrySize,
  hasSameFields,
  integerElementSize,
  LISTPACK_OVERHEAD,
  masterEntrySize,
} from './stream-listpack.js'

/**
 * One stream entry. It keeps its place in its node after XDEL or an exact trim marks it deleted
 * (a tombstone), as Redis's listpack entries do, until the whole node goes.
 */
export class StreamEntry implements StreamId {
  deleted = false
  /**
   * @param fields field/value pairs, flat (`[f1, v1, f2, v2 …]`): the reply form, shared by
   *   replies and copies, never mutated
   */
  constructor(
    readonly ms: U64,
    readonly seq: U64,
    readonly fields: readonly string[],
  ) {}
}

/**
 * One listpack node of Redis's radix tree: entries from `master` (the ID of the entry that opened
 * the node, its radix-tree key) up to the next node's master. `masterFields` are the field names
 * of that first entry, which entries with the same names are stored against.
 */
export class StreamNode {
  readonly entries: StreamEntry[] = []
  /** Entries not deleted (`count` in the listpack's master entry). */
  live = 0
  /** Entries marked deleted (`deleted` in the master entry). */
  tombstones = 0
  /** Listpack bytes other than the header, end marker and the two counters. */
  private body: number

  constructor(
    readonly master: StreamId,
    readonly masterFields: readonly string[],
  ) {
    this.body = masterEntrySize(masterFields)
  }

  /** The listpack's size in bytes (`lpBytes`), which decides when a new node starts. */
  get bytes(): number {
    return LISTPACK_OVERHEAD + integerElementSize(this.live) + integerElementSize(this.tombstones) + this.body
  }

  /** Appends an entry (live or, when restoring a dump, already deleted). */
  push(entry: StreamEntry): void {
    this.entries.push(entry)
    this.body += entrySize(entry, this.master, entry.fields, hasSameFields(entry.fields, this.masterFields))
    if (entry.deleted) this.tombstones++
    else this.live++
  }

  /** Marks a live entry deleted. */
  markDeleted(entry: StreamEntry): void {
    entry.deleted = true
    this.live--
    this.tombstones++
  }

  /** The last entry's ID, tombstone or not (what MINID trimming looks at, `lpGetEdgeStreamID`). */
  get lastEntryId(): StreamId {
    return this.entries[this.entries.length - 1]
  }

  /** Index of the first entry with an ID ≥ `id` (entries.length when none). */
  lowerBound(id: StreamId): number {
    const entries = this.entries
    let low = 0
    let high = entries.length
    while (low < high) {
      const middle = (low + high) >>> 1
      if (compareIds(entries[middle], id) < 0) low = middle + 1
      else high = middle
    }
    return low
  }

  clone(): StreamNode {
    const copy = new StreamNode(this.master, this.masterFields)
    for (const entry of this.entries) {
      const cloned = new StreamEntry(entry.ms, entry.seq, entry.fields)
      cloned.deleted = entry.deleted
      copy.entries.push(cloned)
    }
    copy.live = this.live
    copy.tombstones = this.tombstones
    copy.body = this.body
    return copy
  }
}

/** `stream-node-max-bytes` / `stream-node-max-entries`, as the caller read them from CONFIG. */
export interface NodeLimits {
  readonly maxBytes: number
  readonly maxEntries: number
}

/** Largest listpack Redis lets a node grow to (`STREAM_LISTPACK_MAX_SIZE`). */
export const LISTPACK_MAX_SIZE = 1 << 30

/** How XTRIM and XADD trim (`streamAddTrimArgs`). */
export interface TrimOptions {
  /** MAXLEN: keep at most this many entries; else MINID. */
  readonly maxLen?: number
  /** MINID: drop entries below this ID. */
  readonly minId?: StreamId
  /** `~`: remove whole nodes only. */
  readonly approx: boolean
  /** Most entries to remove; 0 for no limit. */
  readonly limit: number
}

/**
 * A stream (Redis 7.0 `t_stream.c`): entries in ID order in listpack-sized nodes, so that node
 * boundaries (approximate trimming, XINFO's radix-tree counters) come out as Redis's; appending is
 * O(1), finding an ID is a binary search over nodes then within one, and trimming from the head
 * drops whole nodes.
 *
 * State a dump needs: {@link nodes} (masters, master fields, entries with their tombstones),
 * {@link length}, {@link lastId}, {@link firstId}, {@link maxDeletedId}, {@link entriesAdded}
 * and {@link groups} (each with its PEL and consumers). {@link restoreNode} rebuilds a node.
 */
export class StreamValue implements TypedValue {
  readonly type = 'stream'
  /** OBJECT ENCODING. */
  readonly encoding = 'stream'
  private readonly nodeList: StreamNode[] = []
  /** Live entries (`XLEN`). */
  length = 0
  /** Last ID ever added, or set by XSETID (`last-generated-id`). */
  lastId: StreamId = MIN_ID
  /** First live entry's ID, 0-0 when empty (`recorded-first-entry-id`). */
  firstId: StreamId = MIN_ID
  /** Highest ID removed by XDEL (`max-deleted-entry-id`); trimming does not move it. */
  maxDeletedId: StreamId = MIN_ID
  /** Entries ever added (`entries-added`), a uint64. */
  entriesAdded: U64 = 0
  /** Consumer groups by name. */
  readonly groups = new Map<string, ConsumerGroup>()

  /** The nodes, oldest first. Read-only view for dumps and XINFO. */
  get nodes(): readonly StreamNode[] {
    return this.nodeList
  }

  /**
   * Appends an entry with `id` (greater than {@link lastId}; the caller checked) and its flat
   * field/value pairs, opening a new node when the tail one is full (`streamAppendItem`).
   */
  append(id: StreamId, pairs: readonly string[], limits: NodeLimits): void {
    let node: StreamNode | undefined = this.nodeList[this.nodeList.length - 1]
    if (node !== undefined && this.nodeIsFull(node, pairs, limits)) node = undefined
    if (node === undefined) {
      const masterFields: string[] = []
      for (let i = 0; i < pairs.length; i += 2) masterFields.push(pairs[i])
      node = new StreamNode({ ms: id.ms, seq: id.seq }, masterFields)
      this.nodeList.push(node)
    }
    node.push(new StreamEntry(id.ms, id.seq, pairs))
    this.length++
    this.entriesAdded = this.entriesAdded === U64_MAX ? 0 : plusOne(this.entriesAdded)
    this.lastId = { ms: id.ms, seq: id.seq }
    if (this.length === 1) this.firstId = this.lastId
  }

  /** Redis's test for a new node: bytes after adding the raw data, or entries counting tombstones. */
  private nodeIsFull(node: StreamNode, pairs: readonly string[], limits: NodeLimits): boolean {
    let maxBytes = limits.maxBytes
    if (maxBytes === 0 || maxBytes > LISTPACK_MAX_SIZE) maxBytes = LISTPACK_MAX_SIZE
    let dataBytes = 0
    for (const element of pairs) dataBytes += element.length
    if (node.bytes + dataBytes >= maxBytes) return true
    return limits.maxEntries !== 0 && node.live + node.tombstones >= limits.maxEntries
  }

  /** Adds a node as a dump describes it (oldest first), entries and tombstones included. */
  restoreNode(master: StreamId, masterFields: readonly string[], entries: readonly StreamEntry[]): StreamNode {
    const node = new StreamNode(master, masterFields)
    for (const entry of entries) node.push(entry)
    this.nodeList.push(node)
    return node
  }

  /** The live entry with exactly `id`, or undefined. */
  get(id: StreamId): StreamEntry | undefined {
    const nodeIndex = this.nodeIndexFor(id)
    if (nodeIndex === -1) return undefined
    const node = this.nodeList[nodeIndex]
    const entry = node.entries[node.lowerBound(id)]
    return entry !== undefined && !entry.deleted && compareIds(entry, id) === 0 ? entry : undefined
  }

  /**
   * Live entries with `start ≤ ID ≤ end`, oldest first, or newest first with `reverse`; at most
   * `count` of them (0: all).
   */
  range(start: StreamId, end: StreamId, count: number, reverse = false): StreamEntry[] {
    const out: StreamEntry[] = []
    if (compareIds(start, end) > 0) return out
    const nodes = this.nodeList
    if (!reverse) {
      let nodeIndex = Math.max(0, this.nodeIndexFor(start))
      let index = nodeIndex < nodes.length ? nodes[nodeIndex].lowerBound(start) : 0
      for (; nodeIndex < nodes.length; nodeIndex++, index = 0) {
        const entries = nodes[nodeIndex].entries
        for (; index < entries.length; index++) {
          const entry = entries[index]
          if (compareIds(entry, end) > 0) return out
          if (entry.deleted) continue
          out.push(entry)
          if (out.length === count) return out
        }
      }
      return out
    }
    let nodeIndex = this.nodeIndexFor(end)
    if (nodeIndex === -1) return out
    const endNode = nodes[nodeIndex].entries
    const upper = nodes[nodeIndex].lowerBound(end)
    let index = upper < endNode.length && compareIds(endNode[upper], end) === 0 ? upper : upper - 1
    for (; nodeIndex >= 0; nodeIndex--, index = nodeIndex >= 0 ? nodes[nodeIndex].entries.length - 1 : 0) {
      const entries = nodes[nodeIndex].entries
      for (; index >= 0; index--) {
        const entry = entries[index]
        if (compareIds(entry, start) < 0) return out
        if (entry.deleted) continue
        out.push(entry)
        if (out.length === count) return out
      }
    }
    return out
  }

  /** The first live entry, or undefined when empty. */
  firstEntry(): StreamEntry | undefined {
    for (const node of this.nodeList) {
      if (node.live === 0) continue
      for (const entry of node.entries) if (!entry.deleted) return entry
    }
    return undefined
  }

  /** The last live entry, or undefined when empty (`streamLastValidID`). */
  lastEntry(): StreamEntry | undefined {
    for (let n = this.nodeList.length - 1; n >= 0; n--) {
      const node = this.nodeList[n]
      if (node.live === 0) continue
      for (let i = node.entries.length - 1; i >= 0; i--) if (!node.entries[i].deleted) return node.entries[i]
    }
    return undefined
  }

  /**
   * Deletes the live entry `id` (XDEL): marks it deleted, or drops its node when it was the node's
   * last live entry; keeps `max-deleted-entry-id` and `recorded-first-entry-id` up to date. False
   * when there is no such entry.
   */
  delete(id: StreamId): boolean {
    const nodeIndex = this.nodeIndexFor(id)
    if (nodeIndex === -1) return false
    const node = this.nodeList[nodeIndex]
    const entry = node.entries[node.lowerBound(id)]
    if (entry === undefined || entry.deleted || compareIds(entry, id) !== 0) return false
    if (node.live === 1) this.nodeList.splice(nodeIndex, 1)
    else node.markDeleted(entry)
    this.length--
    if (compareIds(id, this.maxDeletedId) > 0) this.maxDeletedId = { ms: id.ms, seq: id.seq }
    if (this.length === 0) this.firstId = MIN_ID
    else if (compareIds(id, this.firstId) === 0) this.firstId = idOf(this.firstEntry()!)
    return true
  }

  /**
   * Trims from the head (`streamTrim`): whole nodes while they fit the target, then, unless
   * approximate, single entries of the next node. Returns how many entries went.
   */
  trim(options: TrimOptions): number {
    const { maxLen, minId, approx, limit } = options
    const nodes = this.nodeList
    let deleted = 0
    let dropped = 0
    for (; dropped < nodes.length; dropped++) {
      if (maxLen !== undefined && this.length <= maxLen) break
      const node = nodes[dropped]
      const entries = node.live
      if (limit !== 0 && deleted + entries > limit) break
      const wholeNode =
        maxLen !== undefined ? this.length - entries >= maxLen : compareIds(node.lastEntryId, minId!) < 0
      if (wholeNode) {
        this.length -= entries
        deleted += entries
        continue
      }
      if (approx) break
      for (const entry of node.entries) {
        const stop = maxLen !== undefined ? this.length <= maxLen : compareIds(entry, minId!) >= 0
        if (stop) break
        if (entry.deleted) continue
        node.markDeleted(entry)
        this.length--
        deleted++
      }
      break
    }
    if (dropped > 0) nodes.splice(0, dropped)
    if (this.length === 0) this.firstId = MIN_ID
    else if (deleted > 0) this.firstId = idOf(this.firstEntry()!)
    return deleted
  }

  /** Index of the last node whose master ID is ≤ `id`, or -1. */
  private nodeIndexFor(id: StreamId): number {
    const nodes = this.nodeList
    let low = 0
    let high = nodes.length
    while (low < high) {
      const middle = (low + high) >>> 1
      if (compareIds(nodes[middle].master, id) <= 0) low = middle + 1
      else high = middle
    }
    return low - 1
  }

  // ---- consumer groups: the read counter and lag (Redis 7.0) ----

  /**
   * Whether a deleted entry may lie at or after `start` (`streamRangeHasTombstones` with no end):
   * only the highest deleted ID is known, so the answer is about that one.
   */
  rangeHasTombstones(start: StreamId): boolean {
    if (this.length === 0 || isZeroId(this.maxDeletedId)) return false
    if (compareIds(this.firstId, this.maxDeletedId) > 0) return false // all tombstones are before the first entry
    return compareIds(start, this.maxDeletedId) <= 0
  }

  /**
   * The logical read counter of `id`: how many entries were added up to it
   * (`streamEstimateDistanceFromFirstEverEntry`), or {@link ENTRIES_READ_UNKNOWN} when deletions
   * or an ID between entries make it unknowable.
   */
  estimateEntriesRead(id: StreamId): U64 {
    if (this.entriesAdded === 0) return 0
    if (this.length === 0 && compareIds(id, this.lastId) < 1) return this.entriesAdded
    const versusLast = compareIds(id, this.lastId)
    if (versusLast === 0) return this.entriesAdded
    if (versusLast > 0) return ENTRIES_READ_UNKNOWN
    if (isZeroId(this.maxDeletedId) || compareIds(this.maxDeletedId, this.firstId) < 0) {
      const versusFirst = compareIds(id, this.firstId)
      if (versusFirst < 0) return minus(this.entriesAdded, this.length)
      if (versusFirst === 0) return plusOne(minus(this.entriesAdded, this.length))
    }
    return ENTRIES_READ_UNKNOWN
  }

  /** The group's lag (`streamReplyWithCGLag`): entries not yet delivered, or null when unknown. */
  lag(group: ConsumerGroup): U64 | null {
    if (this.entriesAdded === 0) return 0
    if (group.entriesRead !== ENTRIES_READ_UNKNOWN && !this.rangeHasTombstones(group.lastId)) {
      return minus(this.entriesAdded, group.entriesRead)
    }
    const read = this.estimateEntriesRead(group.lastId)
    return read === ENTRIES_READ_UNKNOWN ? null : minus(this.entriesAdded, read)
  }

  /**
   * Records that `group` delivered `id` (`streamReplyWithRange`): the last delivered ID moves on
   * and the read counter follows. Redis 7.0 checks for tombstones after `id` (not after the old
   * last ID), so a deletion just behind the group goes unnoticed; this engine does the same.
   */
  advanceGroup(group: ConsumerGroup, id: StreamId): void {
    if (compareIds(id, group.lastId) <= 0) return
    if (group.entriesRead !== ENTRIES_READ_UNKNOWN && !this.rangeHasTombstones(id)) {
      group.entriesRead = plus(group.entriesRead, 1)
    } else if (this.entriesAdded !== 0) {
      group.entriesRead = this.estimateEntriesRead(id)
    }
    group.lastId = idOf(id)
  }

  /** Radix-tree keys (`radix-tree-keys`): one per node. */
  get radixTreeKeys(): number {
    return this.nodeList.length
  }

  /**
   * Nodes of Redis's radix tree over the node keys (`radix-tree-nodes`). Keys are the masters as
   * 16 big-endian bytes; a compressed radix tree has a node for the root, for each branching point,
   * for each child of a branching point and for each key, which is what `rax.c` builds.
   */
  get radixTreeNodes(): number {
    const nodes = this.nodeList
    if (nodes.length === 0) return 1
    const keys = nodes.map((node) => radixKey(node.master))
    const positions = new Set<string>([''])
    for (const key of keys) positions.add(key)
    for (let i = 0; i + 1 < keys.length; i++) {
      const a = keys[i]
      const b = keys[i + 1]
      let common = 0
      while (common < 32 && a.charCodeAt(common) === b.charCodeAt(common)) common++
      common -= common % 2 // whole bytes (two hex digits)
      positions.add(a.slice(0, common))
      positions.add(a.slice(0, common + 2))
      positions.add(b.slice(0, common + 2))
    }
    return positions.size
  }

  /** An independent copy (COPY): same nodes, tombstones, counters and groups. */
  clone(): StreamValue {
    const copy = new StreamValue()
    for (const node of this.nodeList) copy.nodeList.push(node.clone())
    copy.length = this.length
    copy.lastId = this.lastId
    copy.firstId = this.firstId
    copy.maxDeletedId = this.maxDeletedId
    copy.entriesAdded = this.entriesAdded
    for (const [name, group] of this.groups) copy.groups.set(name, group.clone())
    return copy
  }
}

/** A plain ID object for `id` (entries are IDs too, but carry their fields along). */
export function idOf(id: StreamId): StreamId {
  return { ms: id.ms, seq: id.seq }
}

/** An ID as the 32 hex digits of its 128-bit big-endian radix-tree key. */
function radixKey(id: StreamId): string {
  return hex64(id.ms) + hex64(id.seq)
}

function hex64(value: U64): string {
  return value.toString(16).padStart(16, '0')
}
