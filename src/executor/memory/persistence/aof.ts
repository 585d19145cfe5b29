/**
 * The append-only file: Redis 7.0's multi-part layout in `<dir>/<appenddirname>/` (a base, the
 * increments, the manifest), the three fsync policies, the write failures that refuse writes with
 * MISCONF, and the rewrite (BGREWRITEAOF, growth, `CONFIG SET appendonly yes`), whose base is
 * written from the point-in-time snapshot (`snapshot.ts`) in slices while commands keep running.
 *
 * Writes are grouped per event-loop turn: the commands of a turn are encoded into one buffer,
 * written with one `write` after the turn (setImmediate), and under `always` fsynced before their
 * replies are released ({@link AppendOnlyFile.durable}).
 *
 * Under `always` the fsync runs where it costs least. On a disk whose fsyncs are quick (under
 * {@link INLINE_FSYNC_BELOW_MS} on average) it runs on the event loop, as Redis runs it: the
 * thread pool's two hops (write, then fsync) would cost more than the fsync, and on a machine
 * whose cores are busy they cost the most (measured in docs/benchmarks.md). On a slow disk it runs
 * in the thread pool, so the event loop keeps serving reads, and the turns that come meanwhile
 * accumulate: one write + one fsync then covers many commands.
 */
import fs from 'node:fs'
import path from 'node:path'
import { ReplyError } from '../../../reply.js'
import type { Engine, PropagatedOp, PropagationTarget } from '../engine.js'
import { encodeCommand } from './aof-format.js'
import { baseEncoder, baseSuffix, type AofBaseFormat } from './aof-base.js'
import { formatManifest, parseManifest, syncDirectory, writeFileAtomicSync, type AofFileInfo, type AofManifest } from './aof-manifest.js'
import { loadAofDirectory, type AofLoadReport } from './aof-load.js'
import { makeDirectory } from './make-directory.js'
import { writeFileAtomic, writeFileAtomicSync as writeChunksAtomicSync } from './atomic-file.js'
import { batched, engineRdbPieces } from './rdb-io.js'
import { startSnapshot, type SnapshotHandle } from './snapshot.js'

export type AppendFsync = 'always' | 'everysec' | 'no'

export interface AofOptions {
  /** The data directory; the AOF lives in `<dir>/<appenddirname>/`. */
  readonly dir: string
  readonly appenddirname?: string
  readonly appendfilename?: string
  readonly appendfsync?: AppendFsync
  /** Where load and rewrite notices go (the CLI prints them). Default: nowhere. */
  readonly log?: (line: string) => void
}

/** What INFO persistence reports about the AOF. */
export interface AofStatus {
  readonly rewriteInProgress: boolean
  readonly rewriteScheduled: boolean
  readonly lastRewriteTimeSec: number
  readonly currentRewriteTimeSec: number
  readonly lastRewriteStatus: 'ok' | 'err'
  readonly rewrites: number
  readonly consecutiveRewriteFailures: number
  readonly lastWriteStatus: 'ok' | 'err'
  readonly currentSize: number
  readonly baseSize: number
  readonly bufferLength: number
  readonly pendingFsync: boolean
}

/** Redis's aofRewriteLimited: from this many failures in a row, growth waits before retrying. */
const REWRITE_LIMIT_FAILURES = 3
const REWRITE_LIMIT_MAX_MINUTES = 60

const MULTI = encodeCommand(['MULTI'])
const EXEC = encodeCommand(['EXEC'])
/** How often a failed write is retried, and everysec's fsync period (Redis: serverCron, 1 s). */
const RETRY_MS = 1000
const FSYNC_EVERY_MS = 1000
/** Under `always`, fsyncs run on the event loop while they take less than this on average (ms). */
const INLINE_FSYNC_BELOW_MS = 1
/** Weight of the newest fsync in the moving average of their durations. */
const FSYNC_AVERAGE_WEIGHT = 0.2

/** An AOF started on a keyspace with data: what its first base replaces, and the files it will list. */
interface PendingStart {
  readonly old: AofManifest | undefined
  readonly base: AofFileInfo
  readonly incr: AofFileInfo
  readonly format: AofBaseFormat
}

interface Durable {
  readonly promise: Promise<ReplyError | undefined>
  readonly resolve: (error: ReplyError | undefined) => void
}

function durablePromise(): Durable {
  let resolve!: (error: ReplyError | undefined) => void
  const promise = new Promise<ReplyError | undefined>((settle) => (resolve = settle))
  return { promise, resolve }
}

export class AppendOnlyFile implements PropagationTarget {
  readonly folder: string
  readonly filename: string
  private policy: AppendFsync
  private readonly log: (line: string) => void
  private manifest!: AofManifest
  private fd = -1
  /** Encoded commands not yet handed to the OS. */
  private buffer = ''
  /** Settles once {@link buffer}'s commands are written (and fsynced under `always`). */
  private bufferDurable: Durable | undefined
  private inFlight: Durable | undefined
  private flushScheduled = false
  /** The engine's logged-unit offset of the last unit in {@link buffer}. */
  private bufferOffset: number
  /** The offset of the last unit handed to the OS, not necessarily on disk yet. */
  private writtenOffset: number
  /** The offset of the last unit known on disk (fsynced): what WAITAOF's numlocal waits for. */
  syncedOffset: number
  private selectedDb = -1
  /** Moving average of this disk's fsync durations (ms); unknown until the first. */
  private fsyncAverageMs = Number.POSITIVE_INFINITY
  private unsynced = false
  private incrSize = 0
  private baseSize = 0
  /** Size of the whole AOF when the last rewrite finished: the growth rule compares to it. */
  private rewriteBaseSize = 0
  private lastWriteError: string | undefined
  private retryTimer: ReturnType<typeof setTimeout> | undefined
  private readonly fsyncTimer: ReturnType<typeof setInterval>
  private rewriteRequested = false
  private rewriteStartedAt: number | undefined
  /** The snapshot writing the new base while a rewrite runs. */
  private rewriteSnapshot: SnapshotHandle | undefined
  /** The first base of an AOF started on a keyspace with data, while it is being written. */
  private pendingStart: PendingStart | undefined
  private startRetryTimer: ReturnType<typeof setTimeout> | undefined
  /** Growth rewrites after repeated failures wait until then (ms since the epoch), Redis's limit. */
  private limitedUntil = 0
  private limitDelayMinutes = 0
  private stats = { lastRewriteTimeSec: -1, lastRewriteStatus: 'ok' as 'ok' | 'err', rewrites: 0, consecutiveFailures: 0 }
  private closed = false
  /** What the load at start found. */
  loadReport: AofLoadReport | undefined

  private constructor(
    private readonly engine: Engine,
    options: AofOptions,
  ) {
    this.folder = path.join(options.dir, options.appenddirname ?? 'appendonlydir')
    this.filename = options.appendfilename ?? 'appendonly.aof'
    this.policy = options.appendfsync ?? 'everysec'
    this.log = options.log ?? (() => {})
    this.fsyncTimer = setInterval(() => this.fsyncEverySecond(), FSYNC_EVERY_MS)
    this.fsyncTimer.unref?.()
    // What was logged before this file existed is in its base, written and synced when it starts.
    this.bufferOffset = this.writtenOffset = this.syncedOffset = engine.loggedUnits
  }

  /**
   * Opens the AOF of `options.dir` for `engine`: loads it when its manifest exists (the engine
   * is then expected empty), else starts one from the engine's keyspace, and from then on logs
   * every write the engine propagates.
   */
  static open(engine: Engine, options: AofOptions): AppendOnlyFile {
    return AppendOnlyFile.begin(engine, options, false)
  }

  /**
   * Starts an AOF from the engine's keyspace (`CONFIG SET appendonly yes`): files of an earlier
   * AOF in the directory are replaced, not loaded.
   */
  static start(engine: Engine, options: AofOptions): AppendOnlyFile {
    return AppendOnlyFile.begin(engine, options, true)
  }

  private static begin(engine: Engine, options: AofOptions, fresh: boolean): AppendOnlyFile {
    const aof = new AppendOnlyFile(engine, options)
    try {
      aof.start(fresh)
    } catch (error) {
      aof.stopTimers()
      throw error
    }
    engine.propagationTarget = aof
    return aof
  }

  private get manifestPath(): string {
    return path.join(this.folder, `${this.filename}.manifest`)
  }

  private start(fresh: boolean): void {
    makeDirectory(this.folder)
    const exists = fs.existsSync(this.manifestPath)
    if (exists && !fresh) {
      this.manifest = parseManifest(fs.readFileSync(this.manifestPath, 'utf8'), this.manifestPath)
      this.loadReport = loadAofDirectory(this.engine, this.folder, this.manifest, this.log)
      this.baseSize = this.manifest.base === undefined ? 0 : this.fileSize(this.manifest.base)
      let last = this.manifest.increments.at(-1)
      if (last === undefined) {
        last = { name: this.incrName(1), seq: 1, type: 'i' }
        this.manifest = { ...this.manifest, increments: [last] }
        this.openIncrement(last)
        writeFileAtomicSync(this.manifestPath, formatManifest(this.manifest))
      } else this.openIncrement(last)
      this.incrSize = this.manifest.increments.reduce((sum, file) => sum + this.fileSize(file), 0)
      this.rewriteBaseSize = this.baseSize + this.incrSize
      return
    }
    // A new AOF: the base holds what the engine has now (a dump.rdb may have been loaded).
    const old = exists ? parseManifest(fs.readFileSync(this.manifestPath, 'utf8'), this.manifestPath) : undefined
    const baseSeq = (old?.base?.seq ?? 0) + 1
    const incrSeq = (old?.increments.at(-1)?.seq ?? 0) + 1
    const format = this.baseFormat()
    const base: AofFileInfo = { name: this.baseName(baseSeq, format), seq: baseSeq, type: 'b' }
    const incr: AofFileInfo = { name: this.incrName(incrSeq), seq: incrSeq, type: 'i' }
    if (fresh && this.engine.databases.some((db) => db.size > 0)) return this.startInBackground({ old, base, incr, format })
    // Written in this turn (at open, or on an empty keyspace): the AOF starts from a base that
    // exists before any command is logged after it.
    const target = path.join(this.folder, base.name)
    writeChunksAtomicSync(target, batched(engineRdbPieces(this.engine, { aofBase: true }, baseEncoder(format))))
    this.baseSize = fs.statSync(target).size
    this.openIncrement(incr)
    this.manifest = { base, increments: [incr], history: [] }
    writeFileAtomicSync(this.manifestPath, formatManifest(this.manifest))
    this.rewriteBaseSize = this.baseSize
    if (old === undefined) return
    for (const file of [...(old.base === undefined ? [] : [old.base]), ...old.increments, ...old.history]) {
      fs.rmSync(path.join(this.folder, file.name), { force: true })
    }
  }

  private baseName(seq: number, format: AofBaseFormat): string {
    return `${this.filename}.${seq}${baseSuffix(format)}`
  }

  /** The form of a new base: an RDB preamble unless `aof-use-rdb-preamble` is no. */
  private baseFormat(): AofBaseFormat {
    return this.engine.config.get('aof-use-rdb-preamble') === 'no' ? 'aof' : 'rdb'
  }

  /** Redis's temporary increment name while the first base is written (`getTempIncrAofName`). */
  private get tempIncrPath(): string {
    return path.join(this.folder, `temp-${this.filename}.incr`)
  }

  /**
   * `CONFIG SET appendonly yes` on a keyspace with data, as Redis's AOF_WAIT_REWRITE: writes are
   * logged to a temporary increment while the first base is written from a snapshot in slices;
   * once it is complete the increment takes its name and the manifest lists both. Until then
   * the directory keeps what it held: nothing lists the temporary files.
   */
  private startInBackground(start: PendingStart): void {
    this.manifest = start.old ?? { base: undefined, increments: [], history: [] }
    this.pendingStart = start
    this.fd = fs.openSync(this.tempIncrPath, 'w')
    this.selectedDb = -1
    this.writeInitialBase()
  }

  private writeInitialBase(): void {
    const start = this.pendingStart!
    this.rewriteStartedAt = Date.now()
    this.stats.rewrites++
    const target = path.join(this.folder, start.base.name)
    const snapshot = startSnapshot(this.engine, (chunks) => writeFileAtomic(target, chunks), {
      aux: { aofBase: true },
      encoder: baseEncoder(start.format),
    })
    this.rewriteSnapshot = snapshot
    this.log(`Creating the AOF base ${start.base.name} in the background`)
    snapshot.done.then(
      () => this.initialBaseDone(start),
      (error: unknown) => this.initialBaseFailed(error),
    )
  }

  private initialBaseDone({ old, base, incr }: PendingStart): void {
    this.rewriteSnapshot = undefined
    if (this.closed) return void fs.rmSync(path.join(this.folder, base.name), { force: true })
    const incrPath = path.join(this.folder, incr.name)
    const manifest: AofManifest = { base, increments: [incr], history: [] }
    try {
      // The open descriptor follows the rename: writes go on into the named increment.
      fs.renameSync(this.tempIncrPath, incrPath)
      try {
        writeFileAtomicSync(this.manifestPath, formatManifest(manifest))
      } catch (error) {
        fs.renameSync(incrPath, this.tempIncrPath)
        throw error
      }
    } catch (error) {
      fs.rmSync(path.join(this.folder, base.name), { force: true })
      return this.initialBaseFailed(error)
    }
    this.manifest = manifest
    this.pendingStart = undefined
    for (const file of old === undefined ? [] : [...(old.base === undefined ? [] : [old.base]), ...old.increments, ...old.history]) {
      if (file.name !== base.name && file.name !== incr.name) fs.rmSync(path.join(this.folder, file.name), { force: true })
    }
    this.baseSize = this.fileSize(base)
    this.rewriteBaseSize = this.baseSize + this.incrSize
    this.stats.consecutiveFailures = 0
    this.stats.lastRewriteStatus = 'ok'
    this.rewriteEnded()
    this.log('Background AOF rewrite finished successfully')
  }

  /** Redis retries the start: the temporary increment restarts empty with the next snapshot. */
  private initialBaseFailed(error: unknown): void {
    this.rewriteFailed(error)
    if (this.closed) return
    this.startRetryTimer = setTimeout(() => this.retryInitialBase(), RETRY_MS)
    this.startRetryTimer.unref?.()
  }

  private retryInitialBase(): void {
    this.startRetryTimer = undefined
    if (this.closed) return
    if (this.inFlight !== undefined) {
      this.startRetryTimer = setTimeout(() => this.retryInitialBase(), RETRY_MS)
      this.startRetryTimer.unref?.()
      return
    }
    // What was logged so far is in the keyspace the new snapshot takes.
    if (this.buffer !== '') this.writeBufferSync()
    fs.closeSync(this.fd)
    this.fd = fs.openSync(this.tempIncrPath, 'w')
    this.incrSize = 0
    this.selectedDb = -1
    this.writeInitialBase()
  }

  private incrName(seq: number): string {
    return `${this.filename}.${seq}.incr.aof`
  }

  private fileSize(file: AofFileInfo): number {
    return fs.statSync(path.join(this.folder, file.name)).size
  }

  private openIncrement(file: AofFileInfo): void {
    this.fd = fs.openSync(path.join(this.folder, file.name), 'a')
    this.selectedDb = -1
    syncDirectory(this.folder)
  }

  /** The fsync policy in force. */
  get appendfsync(): AppendFsync {
    return this.policy
  }

  /** CONFIG SET appendfsync: takes effect from the next flush. */
  setAppendfsync(policy: AppendFsync): void {
    this.policy = policy
  }

  /** One unit of propagated writes; several are wrapped in MULTI/EXEC, as Redis 7.0 does. */
  writeUnit(ops: readonly PropagatedOp[]): void {
    if (this.closed) return
    let text = ''
    const wrap = ops.length > 1
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i]
      if (op.db !== this.selectedDb) {
        text += encodeCommand(['SELECT', String(op.db)])
        this.selectedDb = op.db
      }
      if (wrap && i === 0) text += MULTI
      text += encodeCommand(op.argv)
    }
    if (wrap) text += EXEC
    this.buffer += text
    this.bufferOffset = this.engine.loggedUnits
    this.bufferDurable ??= durablePromise()
    if (!this.flushScheduled) {
      this.flushScheduled = true
      setImmediate(() => this.flush())
    }
  }

  /**
   * A promise that settles once every write logged so far is written: handed to the OS (so a
   * crash of this process loses none), and under `always` also on disk. It settles with the
   * MISCONF error when the writes could not be written; undefined when nothing is pending.
   * Redis too writes the AOF buffer before it sends the replies of a turn, whatever the policy.
   */
  durable(): Promise<ReplyError | undefined> | undefined {
    return (this.bufferDurable ?? this.inFlight)?.promise
  }

  /** Hands the buffer to the OS (and the disk under `always`); one flush on its way at a time. */
  private flush(): void {
    this.flushScheduled = false
    if (this.inFlight !== undefined || this.buffer === '' || this.closed) return
    if (this.rewriteRequested) return this.startRewriteNow()
    const bytes = Buffer.from(this.buffer, 'latin1')
    const durable = this.bufferDurable ?? durablePromise()
    const offset = this.bufferOffset
    this.buffer = ''
    this.bufferDurable = undefined
    this.inFlight = durable
    const fd = this.fd
    if (this.policy !== 'always') {
      // A write to the page cache takes microseconds: done here, as Redis does before its replies,
      // rather than through the thread pool, whose round trip would delay every reply of the turn.
      let error: NodeJS.ErrnoException | null = null
      try {
        writeSyncFully(fd, bytes)
      } catch (thrown) {
        error = thrown as NodeJS.ErrnoException
      }
      return this.flushed(bytes, error, durable, offset)
    }
    if (this.fsyncAverageMs < INLINE_FSYNC_BELOW_MS) return this.writeAndSyncHere(bytes, durable, offset)
    // A slow fsync (or one not measured yet): off the event loop, which meanwhile serves reads and
    // gathers the next turns' writes for the next flush (group commit).
    writeFully(fd, bytes, (error) => {
      if (error !== null) return this.flushed(bytes, error, durable, offset)
      const started = performance.now()
      fs.fdatasync(fd, (syncError) => {
        if (syncError === null) this.noteFsync(performance.now() - started)
        this.flushed(bytes, syncError, durable, offset)
      })
    })
  }

  /** `always` on a quick disk: write and fsync on the event loop, as Redis does. */
  private writeAndSyncHere(bytes: Buffer, durable: Durable, offset: number): void {
    let error: NodeJS.ErrnoException | null = null
    try {
      writeSyncFully(this.fd, bytes)
      const started = performance.now()
      fs.fdatasyncSync(this.fd)
      this.noteFsync(performance.now() - started)
    } catch (thrown) {
      error = thrown as NodeJS.ErrnoException
    }
    this.flushed(bytes, error, durable, offset)
  }

  /** Takes one fsync's duration into the average that picks where the next ones run. */
  private noteFsync(ms: number): void {
    this.fsyncAverageMs = Number.isFinite(this.fsyncAverageMs)
      ? this.fsyncAverageMs + (ms - this.fsyncAverageMs) * FSYNC_AVERAGE_WEIGHT
      : ms
  }

  private flushed(bytes: Buffer, error: NodeJS.ErrnoException | null, durable: Durable, offset: number): void {
    this.inFlight = undefined
    if (this.closed) {
      // close() finishes the file once this flush is done; no retry, no rewrite after that.
      durable.resolve(error === null ? undefined : new ReplyError(`MISCONF Errors writing to the AOF file: ${error.message}`))
      return
    }
    if (error !== null) return this.writeFailed(bytes, error, durable)
    this.incrSize += bytes.length
    this.unsynced = this.policy !== 'always'
    this.writtenOffset = offset
    if (this.policy === 'always') this.synced(offset)
    if (this.lastWriteError !== undefined) this.writeRecovered()
    durable.resolve(undefined)
    if (this.rewriteRequested && this.buffer === '') this.startRewriteNow()
    else if (this.buffer !== '') this.flush()
    this.maybeRewriteForGrowth()
  }

  /**
   * A write that failed (a full disk, an I/O error): the file is cut back to its last complete
   * command, the bytes wait for a retry, and write commands are refused with MISCONF until one
   * succeeds. Replies waiting on this flush get the error instead of their reply.
   */
  private writeFailed(bytes: Buffer, error: NodeJS.ErrnoException, durable: Durable): void {
    this.lastWriteError = error.message
    const refusal = new ReplyError(`MISCONF Errors writing to the AOF file: ${error.message}`)
    this.engine.writeRefusal = refusal
    try {
      fs.ftruncateSync(this.fd, this.incrSize)
    } catch {
      // The retry writes from the same offset either way; a failed cut only leaves bytes a load would drop.
    }
    this.buffer = bytes.toString('latin1') + this.buffer
    this.bufferDurable = undefined
    durable.resolve(refusal)
    this.log(`Error writing to the AOF file: ${error.message}`)
    this.retryTimer ??= setTimeout(() => {
      this.retryTimer = undefined
      this.flush()
    }, RETRY_MS)
    this.retryTimer.unref?.()
  }

  private writeRecovered(): void {
    this.log('AOF write error looks solved, the AOF can write again.')
    this.lastWriteError = undefined
    this.engine.writeRefusal = undefined
  }

  private fsyncEverySecond(): void {
    if (this.policy !== 'everysec' || !this.unsynced || this.fd < 0) return
    this.unsynced = false
    const offset = this.writtenOffset
    fs.fdatasync(this.fd, (error) => {
      if (error !== null) this.unsynced = true
      else this.synced(offset)
    })
  }

  /**
   * The units up to `offset` are on disk: WAITAOF callers waiting for them are answered. Under
   * `appendfsync no` nothing is ever known on disk, so they wait their timeout, as in Redis 7.2.
   */
  private synced(offset: number): void {
    if (offset <= this.syncedOffset) return
    this.syncedOffset = offset
    if (this.engine.blocking.count !== 0) this.engine.blocking.serveKeyless('waitaof')
  }

  /** INFO persistence's figures. */
  status(): AofStatus {
    const now = Date.now()
    return {
      rewriteInProgress: this.rewriteStartedAt !== undefined,
      rewriteScheduled: (this.rewriteRequested || this.pendingStart !== undefined) && this.rewriteStartedAt === undefined,
      lastRewriteTimeSec: this.stats.lastRewriteTimeSec,
      currentRewriteTimeSec: this.rewriteStartedAt === undefined ? -1 : Math.floor((now - this.rewriteStartedAt) / 1000),
      lastRewriteStatus: this.stats.lastRewriteStatus,
      rewrites: this.stats.rewrites,
      consecutiveRewriteFailures: this.stats.consecutiveFailures,
      lastWriteStatus: this.lastWriteError === undefined ? 'ok' : 'err',
      currentSize: this.baseSize + this.incrSize,
      baseSize: this.baseSize,
      bufferLength: this.buffer.length,
      pendingFsync: this.inFlight !== undefined,
    }
  }

  /**
   * BGREWRITEAOF: false when one is already running or scheduled. The switch to a new increment
   * happens between flushes, so every command before it is in the old files and every one after
   * it in the new increment; the base is the keyspace at that instant.
   */
  requestRewrite(): boolean {
    if (this.rewriting || this.rewriteRequested) return false
    this.rewriteRequested = true
    if (this.inFlight === undefined) this.startRewriteNow()
    return true
  }

  /**
   * BGREWRITEAOF inside MULTI/EXEC: the rewrite starts after the block (Redis's
   * `aof_rewrite_scheduled`), since the block's writes are logged as one unit at its end and the
   * base must not hold half of them. Resets the failure limit, as a manual rewrite does in Redis.
   */
  scheduleRewrite(): boolean {
    if (this.rewriting || this.rewriteRequested) return false
    this.rewriteRequested = true
    this.stats.consecutiveFailures = 0
    setImmediate(() => {
      if (this.rewriteRequested && this.inFlight === undefined && !this.closed) this.startRewriteNow()
    })
    return true
  }

  /** A rewrite runs, or the first base of a started AOF is still due (written or retried). */
  get rewriting(): boolean {
    return this.rewriteStartedAt !== undefined || this.pendingStart !== undefined
  }

  /**
   * Redis 7.0's rewriteAppendOnlyFileBackground: what the old files miss is written to them, a
   * new increment is opened and listed in the manifest (so a failed rewrite leaves a valid AOF),
   * and the base is written from a point-in-time snapshot in slices while commands keep running
   * and are logged to the new increment.
   */
  private startRewriteNow(): void {
    this.rewriteRequested = false
    this.rewriteStartedAt = Date.now()
    if (this.buffer !== '') this.writeBufferSync()
    const oldManifest = this.manifest
    const incrSeq = (oldManifest.increments.at(-1)?.seq ?? 0) + 1
    const incr: AofFileInfo = { name: this.incrName(incrSeq), seq: incrSeq, type: 'i' }
    const oldFd = this.fd
    try {
      this.openIncrement(incr)
      this.manifest = { ...oldManifest, increments: [...oldManifest.increments, incr] }
      writeFileAtomicSync(this.manifestPath, formatManifest(this.manifest))
    } catch (error) {
      if (this.fd !== oldFd) fs.closeSync(this.fd)
      this.fd = oldFd
      this.manifest = oldManifest
      this.stats.lastRewriteStatus = 'err'
      this.rewriteStartedAt = undefined
      this.log(`Background AOF rewrite could not start: ${(error as Error).message}`)
      return
    }
    fs.fsync(oldFd, () => fs.close(oldFd, () => {}))
    this.stats.rewrites++
    const format = this.baseFormat()
    const baseSeq = (oldManifest.base?.seq ?? 0) + 1
    const base: AofFileInfo = { name: this.baseName(baseSeq, format), seq: baseSeq, type: 'b' }
    const target = path.join(this.folder, base.name)
    const snapshot = startSnapshot(this.engine, (chunks) => writeFileAtomic(target, chunks), {
      aux: { aofBase: true },
      encoder: baseEncoder(format),
    })
    this.rewriteSnapshot = snapshot
    this.log(`Background append only file rewriting started (${base.name})`)
    snapshot.done.then(
      () => this.rewriteDone(base, incr),
      (error: unknown) => this.rewriteFailed(error),
    )
  }

  /**
   * Redis 7.0's backgroundRewriteDoneHandler: the new base and the increments from the one opened
   * at the start replace the manifest atomically; the files it no longer lists are deleted.
   */
  private rewriteDone(base: AofFileInfo, incr: AofFileInfo): void {
    this.rewriteSnapshot = undefined
    if (this.closed) {
      // Closed meanwhile: the manifest still lists complete files; another process may own the
      // directory by now, so the new base is dropped rather than swapped in.
      fs.rmSync(path.join(this.folder, base.name), { force: true })
      return
    }
    const old = this.manifest
    const kept = old.increments.filter((file) => file.seq >= incr.seq)
    this.manifest = { base, increments: kept, history: [] }
    let baseSize: number
    try {
      baseSize = this.fileSize(base)
      writeFileAtomicSync(this.manifestPath, formatManifest(this.manifest))
    } catch (error) {
      this.manifest = old
      fs.rmSync(path.join(this.folder, base.name), { force: true })
      return this.rewriteFailed(error)
    }
    for (const file of [...(old.base === undefined ? [] : [old.base]), ...old.increments, ...old.history]) {
      // A deletion that fails leaves an unlisted file, which nothing loads (as in Redis).
      if (file.name !== base.name && !kept.includes(file)) fs.rmSync(path.join(this.folder, file.name), { force: true })
    }
    const keptSize = kept.reduce((sum, file) => sum + this.fileSize(file), 0)
    this.baseSize = baseSize
    this.incrSize = keptSize
    this.rewriteBaseSize = baseSize + keptSize
    this.stats.consecutiveFailures = 0
    this.stats.lastRewriteStatus = 'ok'
    this.rewriteEnded()
    this.log('Background AOF rewrite finished successfully')
  }

  private rewriteFailed(error: unknown): void {
    this.rewriteSnapshot = undefined
    this.stats.lastRewriteStatus = 'err'
    this.stats.consecutiveFailures++
    this.rewriteEnded()
    this.log(`Background AOF rewrite failed: ${(error as Error)?.message ?? error}`)
  }

  private rewriteEnded(): void {
    this.stats.lastRewriteTimeSec = Math.floor((Date.now() - (this.rewriteStartedAt ?? Date.now())) / 1000)
    this.rewriteStartedAt = undefined
  }

  /** Redis's auto-aof-rewrite-percentage / auto-aof-rewrite-min-size rule. */
  private maybeRewriteForGrowth(): void {
    if (this.rewriting || this.rewriteRequested) return
    const percentage = Number(this.engine.config.get('auto-aof-rewrite-percentage') ?? '100')
    const minSize = Number(this.engine.config.get('auto-aof-rewrite-min-size') ?? '67108864')
    const current = this.baseSize + this.incrSize
    if (percentage === 0 || current < minSize) return
    const base = this.rewriteBaseSize === 0 ? 1 : this.rewriteBaseSize
    const growth = Math.floor(((current - base) * 100) / base)
    if (growth < percentage || this.rewriteLimited()) return
    this.log(`Starting automatic rewriting of AOF on ${growth}% growth`)
    this.requestRewrite()
  }

  /**
   * Redis's aofRewriteLimited: after {@link REWRITE_LIMIT_FAILURES} failed rewrites in a row,
   * growth retries after 1 minute, then 2, 4 … up to an hour, so a full disk is not hammered.
   */
  private rewriteLimited(): boolean {
    if (this.stats.consecutiveFailures < REWRITE_LIMIT_FAILURES) {
      this.limitDelayMinutes = 0
      this.limitedUntil = 0
      return false
    }
    const now = Date.now()
    if (this.limitedUntil !== 0) {
      if (now < this.limitedUntil) return true
      this.limitedUntil = 0
      return false
    }
    this.limitDelayMinutes = Math.min(REWRITE_LIMIT_MAX_MINUTES, this.limitDelayMinutes === 0 ? 1 : this.limitDelayMinutes * 2)
    this.limitedUntil = now + this.limitDelayMinutes * 60_000
    this.log(`Background AOF rewrite has repeatedly failed and triggered the limit, will retry in ${this.limitDelayMinutes} minutes`)
    return true
  }

  /** Writes (and fsyncs) the buffer now; only when no flush is in flight. */
  private writeBufferSync(): void {
    const bytes = Buffer.from(this.buffer, 'latin1')
    const durable = this.bufferDurable
    this.buffer = ''
    this.bufferDurable = undefined
    try {
      writeSyncFully(this.fd, bytes)
      if (this.policy === 'always') fs.fdatasyncSync(this.fd)
      this.incrSize += bytes.length
      this.writtenOffset = this.bufferOffset
      if (this.policy === 'always') this.synced(this.bufferOffset)
      durable?.resolve(undefined)
    } catch (error) {
      this.writeFailed(bytes, error as NodeJS.ErrnoException, durable ?? durablePromise())
    }
  }

  /**
   * Stops logging: what is buffered is written and fsynced, the file closed. Used by
   * `CONFIG SET appendonly no` and when the executor closes.
   */
  close(): void {
    if (this.closed) return
    if (this.inFlight === undefined && this.buffer !== '') this.writeBufferSync()
    this.closed = true
    this.stopTimers()
    // A running rewrite is abandoned: its temporary file goes, the manifest stays as it is.
    this.rewriteSnapshot?.abort()
    // An AOF whose first base was not complete leaves the directory as it was (Redis refuses to
    // shut down then, unless forced).
    const abandoned = this.pendingStart === undefined ? undefined : this.tempIncrPath
    if (abandoned !== undefined) this.log('The AOF was closed before its first base was complete: the directory is left as it was')
    if (this.engine.propagationTarget === this) {
      this.engine.propagationTarget = undefined
      // WAITAOF callers waiting for a local fsync get Redis's error now that there is no AOF.
      if (this.engine.blocking.count !== 0) this.engine.blocking.serveKeyless('waitaof')
    }
    this.engine.writeRefusal = undefined
    const fd = this.fd
    this.fd = -1
    if (fd < 0) return
    if (this.inFlight === undefined) {
      try {
        fs.fsyncSync(fd)
      } finally {
        fs.closeSync(fd)
        if (abandoned !== undefined) fs.rmSync(abandoned, { force: true })
      }
    } else {
      void this.inFlight.promise.then(() => {
        if (this.buffer !== '') writeSyncFully(fd, Buffer.from(this.buffer, 'latin1'))
        fs.fsyncSync(fd)
        fs.closeSync(fd)
        if (abandoned !== undefined) fs.rmSync(abandoned, { force: true })
      })
    }
  }

  private stopTimers(): void {
    clearInterval(this.fsyncTimer)
    if (this.retryTimer !== undefined) clearTimeout(this.retryTimer)
    if (this.startRetryTimer !== undefined) clearTimeout(this.startRetryTimer)
  }
}

/** fs.write until every byte is written (a write may take fewer). */
function writeFully(fd: number, bytes: Buffer, done: (error: NodeJS.ErrnoException | null) => void, from = 0): void {
  fs.write(fd, bytes, from, bytes.length - from, null, (error, written) => {
    if (error !== null) return done(error)
    if (from + written < bytes.length) return writeFully(fd, bytes, done, from + written)
    done(null)
  })
}

function writeSyncFully(fd: number, bytes: Buffer): void {
  let from = 0
  while (from < bytes.length) from += fs.writeSync(fd, bytes, from, bytes.length - from)
}
