/**
 * RDB persistence of one engine: SAVE, BGSAVE (and SCHEDULE), the `save` rules, the state INFO
 * persistence reports and the stop-writes-on-bgsave-error refusal. The snapshot itself is
 * `snapshot.ts`; files are replaced atomically (`atomic-file.ts`).
 */
import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { ReplyError } from '../../../reply.js'
import type { Engine } from '../engine.js'
import { writeFileAtomic } from './atomic-file.js'
import { DirLock } from './dir-lock.js'
import { makeDirectory } from './make-directory.js'
import { loadRdbFile, saveRdbFileSync } from './rdb-io.js'
import { startSnapshot, type SnapshotHandle, type SnapshotOptions } from './snapshot.js'

/**
 * Where and how the in-memory engine keeps its data: the data directory, RDB snapshots and save
 * points, and the append-only file. Without it nothing touches the disk. Checked when the
 * executor is made: an unknown key or a value of the wrong kind throws a TypeError naming it.
 * @public
 */
export interface PersistenceOptions {
  /** Data directory; created when missing. */
  readonly dir: string
  /** Snapshot file name inside `dir`. Default `dump.rdb`. */
  readonly dbfilename?: string
  /** Save points in Redis's syntax (`"3600 1 300 100 60 10000"`, the default); `""` disables them. */
  readonly save?: string
  /** Append-only file (the AOF part's). Default false. */
  readonly appendonly?: boolean
  /** fsync policy of the append-only file. Default `everysec`. */
  readonly appendfsync?: 'always' | 'everysec' | 'no'
  /** Base name of the append-only files. Default `appendonly.aof`. */
  readonly appendfilename?: string
  /** Folder of the append-only files inside `dir`. Default `appendonlydir`. */
  readonly appenddirname?: string
  /** Notices of loading and saving (a failed background save …). Default: none. */
  readonly log?: (line: string) => void
}

/** Redis's save points when none are given. */
export const DEFAULT_SAVE = '3600 1 300 100 60 10000'

/** Redis's `CONFIG_BGSAVE_RETRY_DELAY`: after a failed BGSAVE the rules wait this long (s). */
const BGSAVE_RETRY_DELAY = 5

/** How often the save rules and a scheduled BGSAVE are looked at (Redis's serverCron at hz 10). */
const CRON_INTERVAL_MS = 100

export const MISCONF = new ReplyError(
  "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk. Commands that may modify the data set are disabled, because this instance is configured to report errors during writes if RDB snapshotting fails (stop-writes-on-bgsave-error option). Please check the Redis logs for details about the RDB error.",
)

/** Save points as pairs of seconds and changes; throws on text CONFIG would refuse. */
export function parseSavePoints(text: string): [seconds: number, changes: number][] {
  const words = text.split(' ').filter((word) => word !== '')
  if (words.length % 2 !== 0 || words.some((word) => !/^\d+$/.test(word))) throw new Error(`invalid save points: "${text}" (pairs of <seconds> <changes>)`)
  const points: [number, number][] = []
  for (let i = 0; i < words.length; i += 2) points.push([Number(words[i]), Number(words[i + 1])])
  return points
}

/** What happened to the last snapshot, and the counters INFO persistence shows. */
export class RdbPersistence {
  /** Seconds since the epoch of the last successful save (the start time until one ran). */
  lastSave: number
  lastStatus: 'ok' | 'err' = 'ok'
  /** Why the last save failed, for logs and tests. */
  lastError: Error | undefined
  /** Duration of the last BGSAVE in seconds, -1 before the first. */
  lastBgsaveSeconds = -1
  /** SAVE and BGSAVE runs started (INFO rdb_saves). */
  saves = 0
  /** A BGSAVE SCHEDULE waiting for the running snapshot to end. */
  scheduled = false
  /** Keys read from the file at start (INFO rdb_last_load_keys_loaded / _expired). */
  keysLoaded = 0
  keysExpiredAtLoad = 0
  /** Called with each finished background save (tests and the CLI log wait on it). */
  onBgsaveEnd: ((error: Error | undefined) => void) | undefined
  private bgsave: SnapshotHandle | undefined
  private bgsaveStartedAt = 0
  /** Seconds since the epoch of the last BGSAVE attempt (the retry delay counts from it). */
  private lastTry = 0
  private changesAtBgsaveStart = 0
  private readonly timer: ReturnType<typeof setInterval>
  private readonly options: PersistenceOptions
  /** `<dir>/restis.pid`: this engine's claim on the data directory (`dir-lock.ts`). */
  private readonly lock: DirLock

  constructor(
    private readonly engine: Engine,
    options: PersistenceOptions,
    private readonly snapshotOptions: SnapshotOptions = {},
  ) {
    const dir = resolve(options.dir)
    try {
      makeDirectory(dir)
    } catch (error) {
      throw new Error(`cannot use ${dir} as the data directory: ${(error as Error).message}`)
    }
    this.options = options
    const save = options.save ?? DEFAULT_SAVE
    parseSavePoints(save)
    // Taken before any file is read, so a second process never loads what the first rewrites.
    this.lock = DirLock.acquire(dir)
    engine.config.set('dir', dir)
    engine.config.set('dbfilename', options.dbfilename ?? 'dump.rdb')
    engine.config.set('save', save)
    this.lastSave = Math.floor(engine.stats.startedAt / 1000)
    this.timer = setInterval(() => this.cron(), CRON_INTERVAL_MS)
    this.timer.unref?.()
  }

  /** `<dir>/<dbfilename>` as configured now. */
  get path(): string {
    return join(this.engine.config.get('dir')!, this.engine.config.get('dbfilename')!)
  }

  /** `<dir>/<appenddirname>/<appendfilename>.manifest`: when it exists, the AOF wins at start. */
  get aofManifestPath(): string {
    const options = this.options
    return join(this.engine.config.get('dir')!, options.appenddirname ?? 'appendonlydir', `${options.appendfilename ?? 'appendonly.aof'}.manifest`)
  }

  get bgsaveInProgress(): boolean {
    return this.bgsave !== undefined
  }

  /** Seconds the running BGSAVE has taken so far, -1 when none runs. */
  get currentBgsaveSeconds(): number {
    return this.bgsave === undefined ? -1 : Math.floor((this.engine.clock() - this.bgsaveStartedAt) / 1000)
  }

  /** The running BGSAVE's end, or a settled promise. Never rejects. */
  whenIdle(): Promise<void> {
    return this.bgsave === undefined ? Promise.resolve() : this.bgsave.done.then(noop, noop)
  }

  /** True while writes are refused with {@link MISCONF} (Redis's writeCommandsDeniedByDiskError). */
  get refusesWrites(): boolean {
    return this.lastStatus === 'err' && this.engine.config.get('stop-writes-on-bgsave-error') === 'yes' && this.savePoints().length > 0
  }

  savePoints(): [number, number][] {
    return parseSavePoints(this.engine.config.get('save') ?? '')
  }

  /**
   * Loads `<dir>/<dbfilename>` when it exists (called once, before any command), unless the
   * append-only file is on and its manifest exists: then the AOF is the data (Redis's rule) and
   * its loader (`aof-*.ts`) reads it instead. A file that does not load throws, naming the path.
   */
  loadAtStart(): void {
    if (this.options.appendonly === true && existsSync(this.aofManifestPath)) return
    const path = this.path
    if (!existsSync(path)) return
    let result
    try {
      result = loadRdbFile(path, this.engine)
    } catch (error) {
      throw new Error(`cannot load ${path}: ${(error as Error).message}`, { cause: error })
    }
    this.options.log?.(`DB loaded from disk: ${result.keys} keys from ${path}`)
    this.keysLoaded = result.keys
    this.keysExpiredAtLoad = result.expiredSkipped
  }

  /** SAVE: the whole keyspace written now, blocking; the error when the file could not be written. */
  saveSync(): Error | undefined {
    this.saves++
    try {
      saveRdbFileSync(this.path, this.engine)
    } catch (error) {
      this.lastError = error as Error
      return error as Error
    }
    this.engine.stats.changesSinceSave = 0
    this.lastSave = Math.floor(this.engine.clock() / 1000)
    this.setStatus('ok')
    return undefined
  }

  /** Starts a BGSAVE; the caller checked that none runs. */
  startBgsave(): void {
    const engine = this.engine
    const path = this.path
    this.saves++
    this.scheduled = false
    this.bgsaveStartedAt = engine.clock()
    this.lastTry = Math.floor(this.bgsaveStartedAt / 1000)
    this.changesAtBgsaveStart = engine.stats.changesSinceSave
    const handle = startSnapshot(engine, (chunks) => writeFileAtomic(path, chunks), this.snapshotOptions)
    this.bgsave = handle
    handle.done.then(
      () => this.bgsaveEnded(handle, undefined),
      (error: unknown) => this.bgsaveEnded(handle, error instanceof Error ? error : new Error(String(error))),
    )
  }

  private bgsaveEnded(handle: SnapshotHandle, error: Error | undefined): void {
    if (this.bgsave !== handle) return
    this.bgsave = undefined
    const now = this.engine.clock()
    this.lastBgsaveSeconds = Math.round((now - this.bgsaveStartedAt) / 1000)
    if (error === undefined) {
      // Changes made while the snapshot was written are not in it: they still count.
      this.engine.stats.changesSinceSave = Math.max(0, this.engine.stats.changesSinceSave - this.changesAtBgsaveStart)
      this.lastSave = Math.floor(now / 1000)
      this.setStatus('ok')
      this.options.log?.(`Background saving terminated with success: ${this.path}`)
    } else {
      this.lastError = error
      this.setStatus('err')
      this.options.log?.(`Background saving error: ${error.message}`)
    }
    this.onBgsaveEnd?.(error)
  }

  private setStatus(status: 'ok' | 'err'): void {
    this.lastStatus = status
    this.engine.diskErrorPossible = status === 'err'
  }

  /**
   * Redis's serverCron part for RDB: a scheduled BGSAVE once none runs, else the first save point
   * whose changes and seconds have both passed; after a failure, not again within 5 s.
   */
  cron(): void {
    if (this.bgsave !== undefined) return
    if (this.scheduled) return this.startBgsave()
    const changes = this.engine.stats.changesSinceSave
    if (changes === 0) return
    const now = Math.floor(this.engine.clock() / 1000)
    for (const [seconds, needed] of this.savePoints()) {
      if (changes >= needed && now - this.lastSave > seconds && (now - this.lastTry > BGSAVE_RETRY_DELAY || this.lastStatus === 'ok')) {
        this.startBgsave()
        return
      }
    }
  }

  /**
   * What shutting down does to the data (SHUTDOWN, closing the executor): waits for a running
   * BGSAVE, then saves when asked to, or when save points exist and NOSAVE was not asked.
   */
  async shutdown(mode: 'default' | 'save' | 'nosave' = 'default'): Promise<Error | undefined> {
    clearInterval(this.timer)
    await this.whenIdle()
    if (mode === 'nosave' || (mode === 'default' && this.savePoints().length === 0)) return undefined
    return this.saveSync()
  }

  /**
   * SHUTDOWN's half, synchronous as the command is: a running BGSAVE is abandoned (its temporary
   * file removed, as Redis kills its child), then the keyspace is saved when asked to, or when
   * save points exist and NOSAVE was not asked. The error when that save failed.
   */
  shutdownSync(mode: 'default' | 'save' | 'nosave'): Error | undefined {
    if (this.bgsave !== undefined) {
      const running = this.bgsave
      this.bgsave = undefined
      running.abort()
    }
    if (mode === 'nosave' || (mode === 'default' && this.savePoints().length === 0)) return undefined
    return this.saveSync()
  }

  /** Stops the save rules (no save) and gives the data directory up. */
  close(): void {
    clearInterval(this.timer)
    this.lock.release()
  }
}

function noop(): void {}
