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
  /**
   * Whether the entries are in ascending ID order from the master on, so that a binary search
   * finds where a walk would start emitting. Redis 7.0 lets XSETID move the last ID back below a
   * deleted entry (or below the master of a node that exact trimming left with tombstones only);
   * the next XADD then appends an ID at or below it, and the node is out of order for good (see
   * {@link StreamValue.range}).
   */
  ordered = true
  /** Listpack bytes other than the header, end marker and the two counters. */
  private body: number
  /** The first and last entries' times as doubles ({@link approximate}), for {@link lowerBound}'s first guess. */
  private firstMs = 0
  private lastMs = 0

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
    const previous = this.entries[this.entries.length - 1]
    if (previous === undefined ? compareIds(entry, this.master) < 0 : compareIds(entry, previous) <= 0) this.ordered = false
    const ms = approximate(entry.ms)
    if (previous === undefined) this.firstMs = ms
    this.lastMs = ms
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

  /**
   * Index of the first entry with an ID ≥ `id` (entries.length when none), in an ordered node.
   *
   * Each probe reads an entry, an object of its own, which on a large stream is a cache miss, so
   * rather than bisecting from the middle (about seven misses in a node of 100) this starts where
   * the times of the first and last entries put `id`, gallops outwards to bracket the answer, and
   * bisects the bracket. Entries usually arrive at a steady pace, so the guess is at or next to
   * the answer, whose entries a range reads next anyway; a poor guess costs O(log distance).
   */
  lowerBound(id: StreamId): number {
    const entries = this.entries
    const length = entries.length
    let low = 0
    let high = length
    const span = this.lastMs - this.firstMs
    if (span > 0 && length > 8) {
      // Invariant: entries before `low` are below `id`, entries from `high` on are not.
      let guess = Math.floor(((approximate(id.ms) - this.firstMs) / span) * (length - 1))
      if (!(guess >= 0)) guess = 0
      else if (guess > length - 1) guess = length - 1
      let step = 1
      if (compareIds(entries[guess], id) < 0) {
        low = guess + 1
        for (let probe = guess + 1; probe < length; probe = guess + (step *= 2)) {
          if (compareIds(entries[probe], id) >= 0) {
            high = probe
            break
          }
          low = probe + 1
        }
      } else {
        high = guess
        for (let probe = guess - 1; probe >= 0; probe = guess - (step *= 2)) {
          if (compareIds(entries[probe], id) < 0) {
            low = probe + 1
            break
          }
          high = probe
        }
      }
    }
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
    copy.ordered = this.ordered
    copy.body = this.body
    copy.firstMs = this.firstMs
    copy.lastMs = this.lastMs
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
 * What trimming does about consumer groups' references (Redis 8.2's KEEPREF / DELREF / ACKED on
 * XADD and XTRIM); none given is KEEPREF (references stay, as in 7.0).
 */
export interface TrimReferences {
  /** ACKED: an entry some group still needs stays in the stream. */
  readonly keeps?: (id: StreamId) => boolean
  /** DELREF: called for each removed entry, to drop it from every PEL. */
  readonly removed?: (id: StreamId) => void
}

/**
 * A stream (Redis 7.0 `t_stream.c`): entries in ID order in listpack-sized nodes, so that node
 * boundaries (approximate trimming, XINFO's radix-tree counters) come out as Redis's; appending is
 * O(1), finding an ID is a binary search over nodes then a search within one, and trimming from
 * the head drops whole nodes. (After XSETID moved the last ID back below a tombstone, a node can
 * be out of order: lookups then walk it as Redis does, see {@link StreamValue.range}.)
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
  /**
   * The nodes' master IDs as doubles ({@link approximate}), in parallel with {@link nodeList}:
   * finding a node is a binary search over these two flat arrays of numbers rather than a walk
   * through a node object and its master object per probe, which on a large stream misses the
   * caches on almost every step.
   */
  private readonly masterMs: number[] = []
  private readonly masterSeq: number[] = []
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
      this.pushNode(node)
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
    this.pushNode(node)
    return node
  }

  private pushNode(node: StreamNode): void {
    this.nodeList.push(node)
    this.masterMs.push(approximate(node.master.ms))
    this.masterSeq.push(approximate(node.master.seq))
  }

  /**
   * Removes `count` nodes from `index` on, from the node list and its master IDs alike. Trimming
   * takes a node or two from the head at a time: `shift` moves the start of an array's storage
   * (V8 trims it from the left), where `splice(0, 1)` copies every other element down, a cost
   * that grew with the stream (XADD MAXLEN drops a node every hundred entries; on a 1M stream
   * the copy of its 10,000 nodes was a few hundred ns per XADD).
   */
  private removeNodes(index: number, count: number): void {
    if (index === 0 && count <= 16) {
      for (let i = 0; i < count; i++) {
        this.nodeList.shift()
        this.masterMs.shift()
        this.masterSeq.shift()
      }
      return
    }
    this.nodeList.splice(index, count)
    this.masterMs.splice(index, count)
    this.masterSeq.splice(index, count)
  }

  /** The live entry with exactly `id`, or undefined (`streamEntryExists`). */
  get(id: StreamId): StreamEntry | undefined {
    const found = this.locate(id)
    return found === undefined ? undefined : this.nodeList[found.node].entries[found.index]
  }

  /**
   * Where Redis's iterator from `id` to `id` stops (`streamEntryExists`, XDEL's lookup): the first
   * live entry at or above `id` in listpack order, from the last node whose master is ≤ `id`; a
   * match when it is `id`. See {@link range} for why this is a walk and not a binary search.
   */
  private locate(id: StreamId): { readonly node: number; readonly index: number } | undefined {
    const nodes = this.nodeList
    for (let nodeIndex = Math.max(0, this.nodeIndexFor(id)); nodeIndex < nodes.length; nodeIndex++) {
      const node = nodes[nodeIndex]
      const entries = node.entries
      for (let index = node.ordered ? node.lowerBound(id) : 0; index < entries.length; index++) {
        const entry = entries[index]
        if (entry.deleted) continue
        const order = compareIds(entry, id)
        if (order < 0) continue
        return order === 0 ? { node: nodeIndex, index } : undefined
      }
    }
    return undefined
  }

  /**
   * Live entries with `start ≤ ID ≤ end`, oldest first, or newest first with `reverse`; at most
   * `count` of them (0: all).
   *
   * This is Redis's stream iterator (`streamIteratorGetID`): it seeks the last node whose master
   * is ≤ `start` (≤ `end` in reverse; the first or last node when there is none, or when that
   * bound is 0-0) and walks the listpacks in order, skipping tombstones and live entries before
   * the range, and stops at the first live entry past it; a tombstone past the range does not
   * stop it. In an ordered stream that is a binary search and a scan; once XSETID has let an ID
   * at or below a tombstone in (a node not {@link StreamNode.ordered}), only the walk gives
   * Redis's answer: a deleted and a live entry may share an ID, and entries past a tombstone may
   * be lower than it.
   */
  range(start: StreamId, end: StreamId, count: number, reverse = false): StreamEntry[] {
    const out: StreamEntry[] = []
    if (compareIds(start, end) > 0) return out
    const nodes = this.nodeList
    if (!reverse) {
      let nodeIndex = Math.max(0, this.nodeIndexFor(start))
      let index = nodeIndex < nodes.length && nodes[nodeIndex].ordered ? nodes[nodeIndex].lowerBound(start) : 0
      for (; nodeIndex < nodes.length; nodeIndex++, index = 0) {
        const entries = nodes[nodeIndex].entries
        for (; index < entries.length; index++) {
          const entry = entries[index]
          if (entry.deleted || compareIds(entry, start) < 0) continue
          if (compareIds(entry, end) > 0) return out
          out.push(entry)
          if (out.length === count) return out
        }
      }
      return out
    }
    let nodeIndex = this.nodeIndexFor(end)
    if (nodeIndex === -1) {
      // Every master is above `end`: in ordered nodes so is every entry, and there is nothing to
      // emit. Otherwise Redis seeks the last node (`raxSeek "$"`) and walks back from there.
      if (nodes.every((node) => node.ordered)) return out
      nodeIndex = nodes.length - 1
    }
    const endNode = nodes[nodeIndex]
    let index = endNode.entries.length - 1
    if (endNode.ordered) {
      const upper = endNode.lowerBound(end)
      index = upper < endNode.entries.length && compareIds(endNode.entries[upper], end) === 0 ? upper : upper - 1
    }
    for (; nodeIndex >= 0; nodeIndex--, index = nodeIndex >= 0 ? nodes[nodeIndex].entries.length - 1 : 0) {
      const entries = nodes[nodeIndex].entries
      for (; index >= 0; index--) {
        const entry = entries[index]
        if (entry.deleted || compareIds(entry, end) > 0) continue
        if (compareIds(entry, start) < 0) return out
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
    const found = this.locate(id)
    if (found === undefined) return false
    const node = this.nodeList[found.node]
    if (node.live === 1) this.removeNodes(found.node, 1)
    else node.markDeleted(node.entries[found.index])
    this.length--
    if (compareIds(id, this.maxDeletedId) > 0) this.maxDeletedId = { ms: id.ms, seq: id.seq }
    if (this.length === 0) this.firstId = MIN_ID
    else if (compareIds(id, this.firstId) === 0) this.firstId = idOf(this.firstEntry()!)
    return true
  }

  /**
   * Trims from the head (`streamTrim`): whole nodes while they fit the target, then, unless
   * approximate, single entries of the next node. Returns how many entries went. Under ACKED
   * (`references.keeps`) an entry still needed is stepped over and stays.
   */
  trim(options: TrimOptions, references: TrimReferences = {}): number {
    const { keeps, removed } = references
    const { maxLen, minId, approx, limit } = options
    const nodes = this.nodeList
    let deleted = 0
    let dropped = 0
    for (; dropped < nodes.length; dropped++) {
      if (maxLen !== undefined && this.length <= maxLen) break
      const node = nodes[dropped]
      const entries = node.live
      if (limit !== 0 && deleted + entries > limit) break
      let wholeNode =
        maxLen !== undefined ? this.length - entries >= maxLen : compareIds(node.lastEntryId, minId!) < 0
      // ACKED: a node holding an entry still needed is not dropped whole.
      if (wholeNode && keeps !== undefined) wholeNode = !node.entries.some((entry) => !entry.deleted && keeps(entry))
      if (wholeNode) {
        if (removed !== undefined) for (const entry of node.entries) if (!entry.deleted) removed(entry)
        this.length -= entries
        deleted += entries
        continue
      }
      if (approx) break
      for (const entry of node.entries) {
        const stop = maxLen !== undefined ? this.length <= maxLen : compareIds(entry, minId!) >= 0
        if (stop) break
        if (entry.deleted || keeps?.(entry) === true) continue
        node.markDeleted(entry)
        removed?.(entry)
        this.length--
        deleted++
      }
      break
    }
    if (dropped > 0) this.removeNodes(0, dropped)
    if (this.length === 0) this.firstId = MIN_ID
    else if (deleted > 0) this.firstId = idOf(this.firstEntry()!)
    return deleted
  }

  /** Index of the last node whose master ID is ≤ `id`, or -1. */
  private nodeIndexFor(id: StreamId): number {
    const { masterMs, masterSeq, nodeList } = this
    const ms = approximate(id.ms)
    const seq = approximate(id.seq)
    let low = 0
    let high = masterMs.length
    while (low < high) {
      const middle = (low + high) >>> 1
      const m = masterMs[middle]
      let atOrBefore: boolean
      if (m !== ms) atOrBefore = m < ms
      else if (m > MAX_SAFE_DOUBLE) atOrBefore = compareIds(nodeList[middle].master, id) <= 0
      else {
        const q = masterSeq[middle]
        atOrBefore = q !== seq ? q < seq : q <= MAX_SAFE_DOUBLE || compareIds(nodeList[middle].master, id) <= 0
      }
      if (atOrBefore) low = middle + 1
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
    for (const node of this.nodeList) copy.pushNode(node.clone())
    copy.length = this.length
    copy.lastId = this.lastId
    copy.firstId = this.firstId
    copy.maxDeletedId = this.maxDeletedId
    copy.entriesAdded = this.entriesAdded
    for (const [name, group] of this.groups) copy.groups.set(name, group.clone())
    return copy
  }
}

const MAX_SAFE_DOUBLE = Number.MAX_SAFE_INTEGER

/**
 * A U64 as a double: the value itself when it is a number, the nearest double when it is a
 * bigint (then above {@link MAX_SAFE_DOUBLE}). Rounding keeps the order, so two approximations
 * that differ order their values; equal ones above MAX_SAFE_DOUBLE may stand for different
 * bigints and need the exact comparison.
 */
function approximate(value: U64): number {
  return typeof value === 'number' ? value : Number(value)
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
