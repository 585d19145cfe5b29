import type { TypedValue } from '../keyspace.js'
import { CursorTable } from '../scan-cursor.js'
import { RankedTree, type EntryPredicate, type TreeCursor } from './ranked-tree.js'

/** The encoding limits Redis checks when a sorted set grows (CONFIG `zset-max-listpack-*`). */
export interface ZSetLimits {
  /** `zset-max-listpack-entries` */
  readonly entries: number
  /** `zset-max-listpack-value` */
  readonly value: number
}

/** Redis 7.0's defaults. */
export const DEFAULT_ZSET_LIMITS: ZSetLimits = { entries: 128, value: 64 }

export type ZSetEncoding = 'listpack' | 'skiplist'

/**
 * A sorted set: a member → score map for O(1) ZSCORE, and a {@link RankedTree} for order, rank
 * and ranges in O(log n), as Redis pairs a dict with a skip list.
 *
 * It tracks Redis 7.0's encoding because the encoding is visible:
 * - OBJECT ENCODING reports it;
 * - a `listpack` stores scores as text (`d2string`): an integral score is kept as an integer, so
 *   `-0` comes back as `0`, and ZSCAN returns a listpack whole, in order, with its scores as
 *   stored;
 * - range-by-lex on a listpack scans from the head, which on members with different scores
 *   (where Redis leaves the result unspecified) gives a particular answer that is reproduced.
 *
 * A new set is a listpack; adding a member beyond `zset-max-listpack-entries`, or longer than
 * `zset-max-listpack-value`, converts it to a skip list for good (`zsetAdd`). Results of the
 * *STORE commands are built by {@link ZSetValue.fromResult} with Redis's rule for them.
 */
export class ZSetValue implements TypedValue {
  readonly type = 'zset'
  private readonly scores = new Map<string, number>()
  private readonly tree = new RankedTree()
  private encodingName: ZSetEncoding

  constructor(encoding: ZSetEncoding = 'listpack') {
    this.encodingName = encoding
  }

  /**
   * A result set the way ZUNIONSTORE, ZINTERSTORE, ZDIFFSTORE and the GEO STORE options make
   * one: built as a skip list, then turned into a listpack when it is small enough
   * (`zsetConvertToListpackIfNeeded`). `entries` must have distinct members.
   */
  static fromResult(entries: Iterable<readonly [member: string, score: number]>, limits: ZSetLimits): ZSetValue {
    const result = new ZSetValue('skiplist')
    let longest = 0
    for (const [member, score] of entries) {
      result.insertEntry(member, score)
      if (member.length > longest) longest = member.length
    }
    if (result.size <= limits.entries && longest <= limits.value) result.convertToListpack()
    return result
  }

  /** OBJECT ENCODING as Redis 7.0 reports it. */
  get encoding(): ZSetEncoding {
    return this.encodingName
  }

  get size(): number {
    return this.scores.size
  }

  /** Levels of the ordered index, root to leaf (bench/collections.mjs reports them per size). */
  get depth(): number {
    return this.tree.depth
  }

  /** The score of `member`, or undefined when it is not in the set. */
  score(member: string): number | undefined {
    return this.scores.get(member)
  }

  has(member: string): boolean {
    return this.scores.has(member)
  }

  /**
   * Adds a member that is not in the set. A listpack that would grow beyond the limits becomes a
   * skip list first; a listpack keeps its scores as `d2string` text, which stores `-0` as `0`.
   */
  add(member: string, score: number, limits: ZSetLimits = DEFAULT_ZSET_LIMITS): void {
    if (this.encodingName === 'listpack' && (this.scores.size + 1 > limits.entries || member.length > limits.value)) {
      this.encodingName = 'skiplist'
    }
    this.insertEntry(member, this.encodingName === 'listpack' ? score + 0 : score)
  }

  /**
   * Gives a member of the set a new score (which the caller checked is different); `current` is
   * its score now, when the caller has it at hand.
   */
  move(member: string, score: number, current = this.scores.get(member)!): void {
    this.tree.delete(current, member)
    this.insertEntry(member, this.encodingName === 'listpack' ? score + 0 : score)
  }

  /** Removes `member`; true when it was in the set. */
  delete(member: string): boolean {
    const score = this.scores.get(member)
    if (score === undefined) return false
    this.scores.delete(member)
    this.tree.delete(score, member)
    return true
  }

  /** The 0-based rank of `member` (from the highest score when `reverse`), or -1 when absent. */
  rank(member: string, reverse = false): number {
    const score = this.scores.get(member)
    if (score === undefined) return -1
    const rank = this.tree.rankOf(score, member)
    return reverse ? this.size - 1 - rank : rank
  }

  /** A cursor on the entry of rank `rank` in ascending order (invalid when out of range). */
  cursorAt(rank: number): TreeCursor {
    return this.tree.cursorAt(rank)
  }

  /** The number of entries before the first one for which the monotone `test` holds. */
  countBefore(test: EntryPredicate): number {
    return this.tree.countBefore(test)
  }

  /** Calls `visit` for every member in ascending order (SORT reads sorted sets this way). */
  forEach(visit: (member: string, score: number) => void): void {
    this.tree.forEach((score, member) => visit(member, score))
  }

  /** The entries in ascending order, as `[member, score]` pairs. */
  entries(): [string, number][] {
    const out: [string, number][] = []
    this.tree.forEach((score, member) => out.push([member, score]))
    return out
  }

  /**
   * One ZSCAN step over a skip list: up to `count` members from the iteration named by `cursor`,
   * with Redis's guarantee (every member present for the whole iteration is returned). A listpack
   * is not scanned this way: Redis returns it whole (see {@link ZSetValue.encoding}).
   */
  scanMembers(cursor: number, count: number): { cursor: number; members: string[] } {
    let table = scanCursors.get(this)
    if (table === undefined) scanCursors.set(this, (table = new CursorTable<string>()))
    const step = table.step(cursor, count, () => this.scores.keys())
    return { cursor: step.cursor, members: step.items.filter((member) => this.scores.has(member)) }
  }

  /**
   * Makes a listpack a skip list for good (`zsetConvert`); SORT does this to every sorted set it
   * reads ("Destructively convert encoded sorted sets for SORT", sort.c). Scores are unchanged.
   */
  convertToSkiplist(): void {
    this.encodingName = 'skiplist'
  }

  /** A copy with the same entries and encoding (COPY). */
  clone(): ZSetValue {
    const copy = new ZSetValue(this.encodingName)
    this.tree.forEach((score, member) => copy.insertEntry(member, score))
    return copy
  }

  private insertEntry(member: string, score: number): void {
    this.scores.set(member, score)
    this.tree.insert(score, member)
  }

  /** Skip list → listpack: the scores go through `d2string`, which writes `-0` as `0`. */
  private convertToListpack(): void {
    this.encodingName = 'listpack'
    const negativeZeros: string[] = []
    for (const [member, score] of this.scores) if (Object.is(score, -0)) negativeZeros.push(member)
    for (const member of negativeZeros) this.move(member, 0)
  }
}

/** Open ZSCAN iterations per sorted set; they go with their set. */
const scanCursors = new WeakMap<ZSetValue, CursorTable<string>>()
