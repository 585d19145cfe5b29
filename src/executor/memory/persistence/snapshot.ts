/**
 * Point-in-time snapshots of the keyspace without `fork()`: the RDB image of every database as it
 * was when the snapshot started, written in slices between event-loop turns while commands keep
 * running.
 *
 * Copy-on-write at key granularity: the engine calls {@link Snapshot.beforeKeyChange} before any
 * command may change a key; a key the snapshot has not written yet is serialized there and then,
 * with the value it held at the start (nothing changed it before, or the hook would have fired
 * already). Keys created after the start are never written, keys deleted before the slices reach
 * them were written when they were deleted. What cannot be expressed per key (FLUSHALL, FLUSHDB,
 * SWAPDB) first completes the snapshot synchronously ({@link Snapshot.completeNow}).
 *
 * Expiry needs no hook: active and lazy expiry only remove keys whose deadline has passed, and a
 * loader drops such keys anyway, so the file loads to the same keyspace whether they are in it
 * or not.
 *
 * Memory: the bytes produced wait only until the consumer pulls them (the output is an async
 * iterable: a slice runs when the writer asks for the next chunk, so a slow disk slows the
 * snapshot, not the heap). Each key's bytes are copied at once into a chunk buffer of
 * `chunkBytes` (outside the JS heap), so what a slice leaves behind for the garbage collector
 * is short-lived strings, not an object per key that survives until the chunk is taken: such
 * survivors made every young-generation collection during a save copy them, which showed as the
 * slowest GETs. The chunk buffer is used again once the consumer pulled the next chunk, so a
 * save allocates no memory outside the heap per chunk either (external allocations count towards
 * V8's full collections, each of which paused a 10M-key heap for up to 140 ms).
 *
 * Which keys the walk already wrote (to never write one twice) is kept in the keys' access stamps
 * (`snapshot-marks.ts`), which allocates nothing per key; keys without a stamp, and every key of a
 * snapshot that cannot use the marks, are remembered in Sets, dropped when the walk moves on.
 */
import type { Engine } from '../engine.js'
import type { Database, Value } from '../keyspace.js'
import { scripting } from '../commands/scripting/state.js'
import { RdbFileWriter, type RdbAux } from './rdb-file.js'
import { SnapshotMarks } from './snapshot-marks.js'

/**
 * What turns the snapshot's walk into bytes: the RDB file writer by default, or another form of
 * the same keyspace (the AOF rewrite's command base). Called in the file's order: `header`, a
 * `functionLibrary` per library, per database `selectDb` and its `entry`s, then `footer`.
 */
export interface SnapshotEncoder {
  header(aux: RdbAux): Buffer
  functionLibrary(code: string): Buffer
  selectDb(index: number, keys: number, expires: number): Buffer
  entry(key: string, value: Value, expireAt: number | undefined): Buffer
  /** {@link SnapshotEncoder.entry} as a binary string, copied into the chunk buffer (no Buffer per key for the GC). */
  entryBinary?(key: string, value: Value, expireAt: number | undefined): string
  footer(): Buffer
}

/**
 * Consumes the snapshot's bytes (a file writer): resolves once they are all stored. A chunk is
 * valid until the sink pulls the next one, since the snapshot reuses its buffer: a sink that keeps
 * chunks must copy them.
 */
export type SnapshotSink = (chunks: AsyncIterable<Buffer>) => Promise<void>

/** Tuning of a snapshot's slices; the defaults keep each slice near 1 ms. */
export interface SnapshotOptions {
  /**
   * Longest a slice runs, in ms, before the snapshot yields to the event loop. Default 1: a
   * command that arrives during a slice waits for its end (GETs during a 10M-key BGSAVE: p50
   * 1.2 ms with 1, 2.2 ms with 2, `bench/bgsave.mjs`).
   */
  readonly sliceBudgetMs?: number
  /** A slice ends once it produced this many bytes, so chunks stay small. Default 1 MiB. */
  readonly chunkBytes?: number
  /** Header auxiliary fields (`aofBase` for an AOF rewrite); `ctime` defaults to the start. */
  readonly aux?: RdbAux
  /** The form of the output; default an RDB file ({@link RdbFileWriter}). */
  readonly encoder?: SnapshotEncoder
}

/** A running snapshot, as {@link startSnapshot} returns it. */
export interface SnapshotHandle {
  /** Milliseconds since the epoch when the snapshot was taken. */
  readonly startedAt: number
  /** Settles when the sink has stored every byte (or failed). */
  readonly done: Promise<void>
  /** True once every key is serialized (the sink may still be writing). */
  readonly serialized: boolean
  /** Serializes every key not written yet, now; used before whole-keyspace changes. */
  completeNow(): void
  /** Makes the sink fail at its next pull, so the file being written is discarded (SHUTDOWN). */
  abort(): void
}

/** The error a sink sees when the snapshot it writes was aborted. */
export class SnapshotAborted extends Error {
  override readonly name = 'SnapshotAborted'
  constructor() {
    super('snapshot aborted')
  }
}

const monotonic: { now(): number } = globalThis.performance ?? Date

/** How many entries a slice writes between two looks at the clock. */
const ENTRIES_PER_CLOCK_READ = 64


/** Keys per Set of {@link DatabaseWalk.visited}: growing one Set to millions would stall on its rehash. */
const VISITED_CHUNK = 1 << 16

/** Per database: where the walk stands and which keys are settled. */
class DatabaseWalk {
  /** Keys the hook saw: written before their change, written by the walk already, or absent at the start. */
  early: Set<string> | undefined = new Set()
  /**
   * Keys the walk wrote, in Sets of {@link VISITED_CHUNK}: a rehash of one huge Set would block
   * the event loop for tens of ms; only the hook looks here, once per key it sees first.
   */
  visited: Set<string>[] | undefined = [new Set()]
  /** Keys with their slots in the table, live (`KeyTable.slotEntries`). */
  iterator: Iterator<[string, number]> | undefined
  /** All keys written: hooks on this database no longer matter. */
  finished: boolean

  constructor(
    readonly db: Database,
    readonly index: number,
    readonly keys: number,
    readonly expires: number,
  ) {
    this.finished = keys === 0
    if (this.finished) this.release()
  }

  wasVisited(key: string): boolean {
    for (const chunk of this.visited!) if (chunk.has(key)) return true
    return false
  }

  markVisited(key: string): void {
    const visited = this.visited!
    let last = visited[visited.length - 1]
    if (last.size >= VISITED_CHUNK) visited.push((last = new Set()))
    last.add(key)
  }

  release(): void {
    this.early = undefined
    this.visited = undefined
    this.iterator = undefined
  }
}

/** The engine side of a snapshot: the object {@link Engine.beforeKeyChange} talks to. */
export class Snapshot implements SnapshotHandle {
  readonly startedAt: number
  done!: Promise<void>
  private readonly writer: SnapshotEncoder
  private readonly walks: DatabaseWalk[]
  private readonly byDatabase = new Map<Database, DatabaseWalk>()
  private current = 0
  /** Database the last SELECTDB in the output named. */
  private selected = -1
  /** Chunks filled and not taken yet (views into chunk buffers). */
  private ready: Buffer[] = []
  /** The chunk buffer being filled: bytes before `chunkStart` were taken, up to `chunkUsed` are due. */
  private chunk: Buffer | undefined
  private chunkStart = 0
  private chunkUsed = 0
  /** Bytes produced and not taken yet. */
  private pendingBytes = 0
  private footerWritten = false
  private aborted = false
  /** A key the hook could not serialize: the save fails at the next pull, the command runs on. */
  private failure: Error | undefined
  /** Where the walk records the keys it wrote, when the marks are this snapshot's to use. */
  private marks: SnapshotMarks | undefined
  private readonly sliceBudgetMs: number
  private readonly chunkBytes: number

  constructor(
    private readonly engine: Engine,
    options: SnapshotOptions = {},
  ) {
    this.startedAt = engine.clock()
    this.writer = options.encoder ?? new RdbFileWriter()
    this.sliceBudgetMs = options.sliceBudgetMs ?? 1
    this.chunkBytes = options.chunkBytes ?? 1 << 20
    this.marks = SnapshotMarks.acquire(engine.keyspace)
    this.walks = engine.databases.map((db, index) => new DatabaseWalk(db, index, db.size, db.expires.size))
    for (const walk of this.walks) if (!walk.finished) this.byDatabase.set(walk.db, walk)
    this.push(this.writer.header({ ctime: Math.floor(this.startedAt / 1000), ...options.aux }))
    // Libraries are few and small: written whole at the start, before FUNCTION can change them.
    for (const library of scripting(engine).libraries.values()) this.push(this.writer.functionLibrary(library.code))
  }

  get serialized(): boolean {
    return this.footerWritten
  }

  /** Called before a command may change `key` of `db`: writes the start value first if still due. */
  beforeKeyChange(db: Database, key: string): void {
    const walk = this.byDatabase.get(db)
    if (walk === undefined || walk.finished) return
    const early = walk.early!
    if (early.has(key)) return
    // Settled from now on even when the walk wrote it already: deleted and created again, the
    // key moves to the end of the Map, where the walk must not write it a second time.
    early.add(key)
    // Absent: nothing to write (a key the command is about to create).
    const slot = db.data.slotOf(key)
    if (slot === undefined) return
    const marks = this.marks
    const written = (marks !== undefined && marks.trusted && marks.isMarked(db, slot)) || walk.wasVisited(key)
    // Marked either way: once the walk finishes, every key present at the start carries this mark.
    marks?.mark(db, slot)
    if (written) return
    try {
      this.writeEntry(walk, key, db.data.valueAt(slot))
    } catch (error) {
      // Never into the command that is about to run: the snapshot fails instead.
      this.failure = error instanceof Error ? error : new Error(String(error))
      this.stop()
    }
  }

  completeNow(): void {
    try {
      while (!this.footerWritten && this.failure === undefined) this.step(Infinity)
    } catch (error) {
      this.failure = error instanceof Error ? error : new Error(String(error))
      this.stop()
    }
  }

  /** The file's bytes, a slice per pull, yielding to the event loop between slices. */
  async *chunks(): AsyncGenerator<Buffer> {
    try {
      while (!this.footerWritten) {
        this.step(this.sliceBudgetMs)
        if (this.pendingBytes > 0) {
          yield this.take()
          this.reuseChunk()
        }
        await nextTurn()
        if (this.aborted) throw new SnapshotAborted()
        if (this.failure !== undefined) throw this.failure
      }
      if (this.failure !== undefined) throw this.failure
      if (this.pendingBytes > 0) yield this.take()
      // Checked last, once every byte is written: an aborted snapshot never replaces the file.
      if (this.aborted) throw new SnapshotAborted()
    } finally {
      this.stop()
    }
  }

  /** Makes the sink fail at its next pull, so the file being written is discarded (SHUTDOWN). */
  abort(): void {
    this.aborted = true
    this.stop()
  }

  /** Detaches from the engine: later changes are not the snapshot's business. */
  stop(): void {
    this.engine.snapshots.delete(this)
    this.byDatabase.clear()
    this.marks?.release(this.footerWritten)
    this.marks = undefined
  }

  /** Writes entries until the budget (ms) is spent or a chunk's worth of bytes is ready. */
  private step(budgetMs: number): void {
    const deadline = budgetMs === Infinity ? Infinity : monotonic.now() + budgetMs
    while (this.current < this.walks.length) {
      const walk = this.walks[this.current]
      if (!walk.finished && !this.walkSome(walk, deadline)) return
      this.current++
    }
    if (!this.footerWritten) {
      this.push(this.writer.footer())
      this.footerWritten = true
      this.stop()
    }
  }

  /** Continues the walk of one database; true once it is finished. */
  private walkSome(walk: DatabaseWalk, deadline: number): boolean {
    const table = walk.db.data
    const iterator = (walk.iterator ??= table.slotEntries())
    const early = walk.early!
    let count = 0
    for (;;) {
      const next = iterator.next()
      if (next.done) break
      const [key, slot] = next.value
      if (early.has(key)) continue
      this.recordWritten(walk, key, slot)
      this.writeEntry(walk, key, table.valueAt(slot))
      if (++count % ENTRIES_PER_CLOCK_READ === 0 && (this.pendingBytes >= this.chunkBytes || monotonic.now() >= deadline)) return false
    }
    walk.finished = true
    walk.release()
    this.byDatabase.delete(walk.db)
    return true
  }

  /** Notes that the walk wrote `key`: in its stamp when the marks are trusted, else in the walk's Sets. */
  private recordWritten(walk: DatabaseWalk, key: string, slot: number): void {
    const marks = this.marks
    const marked = marks !== undefined && marks.mark(walk.db, slot)
    if (!marked || !marks.trusted) walk.markVisited(key)
  }

  private writeEntry(walk: DatabaseWalk, key: string, value: Value): void {
    if (this.selected !== walk.index) {
      this.push(this.writer.selectDb(walk.index, walk.keys, walk.expires))
      this.selected = walk.index
    }
    const writer = this.writer
    const expireAt = walk.db.getExpire(key)
    this.push(writer.entryBinary !== undefined ? writer.entryBinary(key, value, expireAt) : writer.entry(key, value, expireAt))
  }

  /** Appends bytes (a Buffer, or a binary string) to the chunk buffer, starting another when full. */
  private push(bytes: Buffer | string): void {
    const length = bytes.length
    let chunk = this.chunk
    if (chunk === undefined || this.chunkUsed + length > chunk.length) chunk = this.nextChunk(length)
    if (typeof bytes === 'string') chunk.write(bytes, this.chunkUsed, 'latin1')
    else bytes.copy(chunk, this.chunkUsed)
    this.chunkUsed += length
    this.pendingBytes += length
  }

  private nextChunk(atLeast: number): Buffer {
    this.closeChunk()
    // Twice a chunk: a slice stops once a chunk's worth is due, looking every few entries, and
    // what it wrote past that must still fit, or the buffer could not be used again.
    const chunk = Buffer.allocUnsafeSlow(Math.max(2 * this.chunkBytes, atLeast))
    this.chunk = chunk
    this.chunkStart = 0
    this.chunkUsed = 0
    return chunk
  }

  /** Moves what the chunk buffer holds and was not taken to {@link Snapshot.ready}. */
  private closeChunk(): void {
    if (this.chunkUsed > this.chunkStart) this.ready.push(this.chunk!.subarray(this.chunkStart, this.chunkUsed))
    this.chunkStart = this.chunkUsed
  }

  /**
   * The consumer pulled again, so the bytes it was handed are free: what was produced since (by
   * the change hook) moves to the front of the chunk buffer, which fills on from there.
   */
  private reuseChunk(): void {
    const chunk = this.chunk
    if (chunk === undefined || this.chunkStart === 0) return
    chunk.copyWithin(0, this.chunkStart, this.chunkUsed)
    this.chunkUsed -= this.chunkStart
    this.chunkStart = 0
  }

  /**
   * The bytes produced since the last take: a view of the chunk buffer, valid until the consumer
   * pulls again ({@link Snapshot.reuseChunk}); several views joined when the hook filled more.
   */
  private take(): Buffer {
    this.closeChunk()
    const ready = this.ready
    const taken = ready.length === 1 ? ready[0] : Buffer.concat(ready, this.pendingBytes)
    this.ready = []
    this.pendingBytes = 0
    return taken
  }

}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

/**
 * Takes a point-in-time snapshot of `engine` and hands its bytes to `sink` (BGSAVE writes them to
 * the RDB file, the AOF rewrite to its base file). The keyspace is the one of this call; commands
 * run meanwhile.
 */
export function startSnapshot(engine: Engine, sink: SnapshotSink, options?: SnapshotOptions): SnapshotHandle {
  const snapshot = new Snapshot(engine, options)
  engine.snapshots.add(snapshot)
  snapshot.done = sink(snapshot.chunks()).finally(() => snapshot.stop())
  return snapshot
}
