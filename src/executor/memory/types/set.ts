import type { TypedValue } from '../keyspace.js'
import { readInt64 } from '../lib/numbers.js'
import { OrderedTable } from './ordered-table.js'

/** Default of `set-max-intset-entries`. */
export const DEFAULT_MAX_INTSET_ENTRIES = 512
/** Redis caps the intset size at 2^30 entries whatever the configuration says (t_set.c). */
const INTSET_HARD_LIMIT = 2 ** 30

/**
 * A set: binary-string members in an {@link OrderedTable}.
 *
 * It also tracks Redis 7.0's encoding, because the encoding is visible: an `intset` (every
 * member a 64-bit integer, at most `set-max-intset-entries` of them) iterates in ascending
 * numeric order, so SMEMBERS, SSCAN, SUNION … of integer sets answer in exactly Redis's order,
 * and SSCAN returns the whole intset in one call. Once a set leaves `intset` (a non-integer
 * member, or too many members) it stays a `hashtable`, as in Redis; its order is then insertion
 * order, which Redis does not promise anyway.
 */
export class SetValue implements TypedValue {
  readonly type = 'set'
  private readonly table = new OrderedTable<null>()
  private encodingName: 'intset' | 'hashtable' = 'intset'
  /** Members in ascending numeric order while the set is an intset; rebuilt lazily. */
  private sorted: string[] | null = null

  /** OBJECT ENCODING as Redis 7.0 reports it. */
  get encoding(): 'intset' | 'hashtable' {
    return this.encodingName
  }

  get size(): number {
    return this.table.size
  }

  has(member: string): boolean {
    return this.table.has(member)
  }

  /**
   * Adds `member`; true when it is new. `maxIntsetEntries` is `set-max-intset-entries` at the
   * time of the write: Redis converts an intset when an insertion breaks its rules, never back.
   */
  add(member: string, maxIntsetEntries = DEFAULT_MAX_INTSET_ENTRIES): boolean {
    if (!this.table.set(member, null)) return false
    if (this.encodingName === 'intset') {
      if (readInt64(member) === null || this.table.size > Math.min(maxIntsetEntries, INTSET_HARD_LIMIT)) {
        this.encodingName = 'hashtable'
      }
      this.sorted = null
    }
    return true
  }

  /** Removes `member`; true when it was present. */
  delete(member: string): boolean {
    if (!this.table.delete(member)) return false
    this.sorted = null
    return true
  }

  /** The members in Redis's iteration order. A fresh array the caller may keep. */
  members(): string[] {
    return this.encodingName === 'intset' ? this.sortedMembers().slice() : this.table.keyList()
  }

  /** Calls `visit` for each member in Redis's iteration order; the set must not change meanwhile. */
  forEach(visit: (member: string) => void): void {
    if (this.encodingName === 'intset') for (const member of this.sortedMembers()) visit(member)
    else this.table.forEach(visit)
  }

  /** A uniformly random member; the set must not be empty. */
  randomMember(): string {
    return this.table.randomEntry()[0]
  }

  /**
   * One SSCAN step: the members to return and the next cursor. An intset is returned whole with
   * cursor 0 whatever the cursor, as Redis does for its compact encodings.
   */
  scan(cursor: number, count: number): { members: string[]; cursor: number } {
    if (this.encodingName === 'intset') return { members: this.members(), cursor: 0 }
    const members: string[] = []
    const next = this.table.scan(cursor, count, (member) => members.push(member))
    return { members, cursor: next }
  }

  /** A copy with the same members and encoding (COPY). */
  clone(): SetValue {
    const copy = new SetValue()
    this.table.forEach((member) => copy.table.set(member, null))
    copy.encodingName = this.encodingName
    return copy
  }

  private sortedMembers(): string[] {
    if (this.sorted === null) this.sorted = this.table.keyList().sort(compareIntegerTexts)
    return this.sorted
  }
}

/**
 * Orders canonical 64-bit integer texts (as `string2ll` accepts them: no '+', no leading zeros)
 * numerically without parsing: the sign first, then the length, then the digits.
 */
function compareIntegerTexts(a: string, b: string): number {
  const aNegative = a.charCodeAt(0) === 45
  const bNegative = b.charCodeAt(0) === 45
  if (aNegative !== bNegative) return aNegative ? -1 : 1
  const order = a.length !== b.length ? a.length - b.length : a < b ? -1 : a > b ? 1 : 0
  return aNegative ? -order : order
}
