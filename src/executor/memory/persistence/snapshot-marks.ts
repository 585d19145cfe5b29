/**
 * Which keys a running snapshot has written, recorded in the keys' access stamps instead of a
 * record of its own.
 *
 * A snapshot must know, when a command is about to change a key, whether its walk wrote that key
 * already (`snapshot.ts`). A Set of the keys written costs an entry per key: at 10M keys, some
 * 200 MB the old generation grows by during the save, and the major collections that growth
 * triggers stalled the event loop for hundreds of ms. Every key already has an access stamp (the
 * LRU or LFU clock, a small integer in its database's `KeyTable`), with six bits free above the
 * 24-bit clock ({@link SNAPSHOT_MARK_BITS}): the snapshot writes its number there, which
 * allocates nothing.
 *
 * The number must be one no key carries when the snapshot starts; stamps are never cleared in
 * bulk, so the ledger tracks which numbers may still be on keys:
 * - a snapshot whose walk finished marked every key present at its start (the walk or the
 *   change hook did), and keys created since carry no mark: after it, only its number is live;
 * - a snapshot that stopped early (its file failed, SHUTDOWN aborted it) leaves its number on
 *   some keys: it stays live until a snapshot finishes.
 * When all 63 numbers are live (63 failed saves in a row), the snapshot marks anyway, so that
 * finishing frees the others, but does not trust the marks: it records the keys it writes in Sets
 * as before. Only one snapshot marks at a time (a second one, such as a BGSAVE during an AOF
 * rewrite, records in Sets), and a key without a stamp (after the clock switched between LRU and
 * LFU, which drops every stamp) is recorded in the Set too.
 */
import { SNAPSHOT_MARK_BITS, STAMP_CLOCK_BITS, type KeyspaceState } from '../key-access.js'
import type { Database } from '../keyspace.js'
import { NO_STAMP } from '../key-table.js'

/** Numbers a mark can take: 1 to 63 (0 is "no mark"). */
const MARK_NUMBERS = SNAPSHOT_MARK_BITS >>> 24
const MARK_SHIFT = 24

/** Per engine: which mark numbers keys may carry, and where the search for a free one starts. */
interface MarkLedger {
  readonly live: Set<number>
  next: number
}

const ledgers = new WeakMap<KeyspaceState, MarkLedger>()

export class SnapshotMarks {
  private released = false

  private constructor(
    private readonly keyspace: KeyspaceState,
    private readonly ledger: MarkLedger,
    private readonly number: number,
    /** The mark as it sits in a stamp. */
    private readonly bits: number,
    /** True when no key carried this mark at the start: a key's mark alone says the walk wrote it. */
    readonly trusted: boolean,
  ) {}

  /** Takes the marks of `keyspace` for a snapshot starting now; undefined while another snapshot holds them. */
  static acquire(keyspace: KeyspaceState): SnapshotMarks | undefined {
    if (keyspace.snapshotMark !== 0) return undefined
    let ledger = ledgers.get(keyspace)
    if (ledger === undefined) ledgers.set(keyspace, (ledger = { live: new Set(), next: 1 }))
    let number = ledger.next
    let trusted = false
    for (let tried = 0; tried < MARK_NUMBERS; tried++) {
      const candidate = ((ledger.next - 1 + tried) % MARK_NUMBERS) + 1
      if (!ledger.live.has(candidate)) {
        number = candidate
        trusted = true
        break
      }
    }
    ledger.live.add(number)
    ledger.next = (number % MARK_NUMBERS) + 1
    const bits = number << MARK_SHIFT
    keyspace.snapshotMark = bits
    return new SnapshotMarks(keyspace, ledger, number, bits, trusted)
  }

  /**
   * Marks the key at `slot` of `db`'s table as handled by this snapshot; false when it has no
   * stamp to carry the mark.
   */
  mark(db: Database, slot: number): boolean {
    const stamp = db.data.stampAt(slot)
    if (stamp === NO_STAMP) return false
    db.data.setStampAt(slot, (stamp & STAMP_CLOCK_BITS) | this.bits)
    return true
  }

  /** True when the key at `slot` of `db` carries this snapshot's mark (meaningful only when {@link SnapshotMarks.trusted}). */
  isMarked(db: Database, slot: number): boolean {
    const stamp = db.data.stampAt(slot)
    return stamp !== NO_STAMP && (stamp & SNAPSHOT_MARK_BITS) === this.bits
  }

  /**
   * Gives the marks back. `walkFinished`: every key present at the start was marked, so no other
   * number remains on any key.
   */
  release(walkFinished: boolean): void {
    if (this.released) return
    this.released = true
    this.keyspace.snapshotMark = 0
    if (!walkFinished) return
    this.ledger.live.clear()
    this.ledger.live.add(this.number)
  }
}
