/**
 * BGREWRITEAOF while `appendonly` is no. Redis 7.0 accepts it (aof.c: rewriteAppendOnlyFileBackground
 * opens no increment when the AOF is off, and backgroundRewriteDoneHandler marks every listed
 * increment as history): the AOF directory ends up holding one new base, the keyspace at the
 * moment of the command, and a manifest that lists only it; the files listed before are deleted.
 * Checked against redis-server 7.0.15: `appendonly.aof.1.base.rdb`, then `.2.base.rdb` replacing
 * it, and a manifest with no increment. A later `CONFIG SET appendonly yes` continues the
 * sequence numbers from that manifest.
 *
 * The base is written from the point-in-time snapshot in slices, as the rewrite with the AOF on.
 */
import fs from 'node:fs'
import path from 'node:path'
import type { Engine } from '../engine.js'
import { baseEncoder, baseSuffix, type AofBaseFormat } from './aof-base.js'
import { formatManifest, parseManifest, syncDirectory, writeFileAtomicSync, type AofFileInfo, type AofManifest } from './aof-manifest.js'
import { makeDirectory } from './make-directory.js'
import { temporaryPathFor, writeFileAtomic } from './atomic-file.js'
import { startSnapshot, type SnapshotHandle } from './snapshot.js'

export interface OfflineRewriteOptions {
  readonly folder: string
  readonly filename: string
  readonly log: (line: string) => void
}

/** INFO persistence's rewrite figures while the AOF is off. */
export interface OfflineRewriteStatus {
  readonly rewriteInProgress: boolean
  readonly rewriteScheduled: boolean
  readonly lastRewriteTimeSec: number
  readonly currentRewriteTimeSec: number
  readonly lastRewriteStatus: 'ok' | 'err'
  readonly rewrites: number
  readonly consecutiveRewriteFailures: number
}

export class OfflineAofRewrite {
  private snapshot: SnapshotHandle | undefined
  private startedAt: number | undefined
  private lastTimeSec = -1
  private lastStatus: 'ok' | 'err' = 'ok'
  private rewrites = 0
  private consecutiveFailures = 0
  /** Set by {@link abort}: a base completed after it is dropped, not listed. */
  private abandoned = false

  constructor(
    private readonly engine: Engine,
    private readonly options: OfflineRewriteOptions,
  ) {}

  get running(): boolean {
    return this.startedAt !== undefined
  }

  private get manifestPath(): string {
    return path.join(this.options.folder, `${this.options.filename}.manifest`)
  }

  /**
   * Starts writing a new base; false when the directory or its manifest cannot be read (the
   * reason is logged and INFO reports the failure), as Redis answers its "Can't execute" error.
   */
  start(): boolean {
    let old: AofManifest | undefined
    try {
      makeDirectory(this.options.folder)
      old = fs.existsSync(this.manifestPath) ? parseManifest(fs.readFileSync(this.manifestPath, 'utf8'), this.manifestPath) : undefined
    } catch (error) {
      this.lastStatus = 'err'
      this.options.log(`Can't rewrite the append only file: ${(error as Error).message}`)
      return false
    }
    const format: AofBaseFormat = this.engine.config.get('aof-use-rdb-preamble') === 'no' ? 'aof' : 'rdb'
    const seq = (old?.base?.seq ?? 0) + 1
    const base: AofFileInfo = { name: `${this.options.filename}.${seq}${baseSuffix(format)}`, seq, type: 'b' }
    // Written under a temporary name and renamed in done(), in the same turn as the manifest: an
    // AOF started meanwhile takes the same base name, which an abandoned rewrite must not touch.
    const staging = temporaryPathFor(path.join(this.options.folder, base.name))
    this.startedAt = Date.now()
    this.abandoned = false
    this.rewrites++
    this.snapshot = startSnapshot(this.engine, (chunks) => writeFileAtomic(staging, chunks), {
      aux: { aofBase: true },
      encoder: baseEncoder(format),
    })
    this.options.log(`Background append only file rewriting started (${base.name}, appendonly is no)`)
    this.snapshot.done.then(
      () => this.done(old, base, staging),
      (error: unknown) => this.failed(error),
    )
    return true
  }

  /** The new base becomes the only file listed; the files listed before are deleted. */
  private done(old: AofManifest | undefined, base: AofFileInfo, staging: string): void {
    this.snapshot = undefined
    if (this.abandoned) {
      fs.rmSync(staging, { force: true })
      return this.failed(new Error('abandoned: the AOF was turned on or the executor closed'))
    }
    const target = path.join(this.options.folder, base.name)
    try {
      fs.renameSync(staging, target)
      syncDirectory(this.options.folder)
      writeFileAtomicSync(this.manifestPath, formatManifest({ base, increments: [], history: [] }))
    } catch (error) {
      // Neither name is listed by the manifest in force.
      fs.rmSync(staging, { force: true })
      fs.rmSync(target, { force: true })
      return this.failed(error)
    }
    const replaced = old === undefined ? [] : [...(old.base === undefined ? [] : [old.base]), ...old.increments, ...old.history]
    for (const file of replaced) {
      if (file.name !== base.name) fs.rmSync(path.join(this.options.folder, file.name), { force: true })
    }
    this.consecutiveFailures = 0
    this.lastStatus = 'ok'
    this.ended()
    this.options.log('Background AOF rewrite finished successfully')
  }

  private failed(error: unknown): void {
    this.snapshot = undefined
    this.lastStatus = 'err'
    this.consecutiveFailures++
    this.ended()
    this.options.log(`Background AOF rewrite failed: ${(error as Error)?.message ?? error}`)
  }

  private ended(): void {
    this.lastTimeSec = Math.floor((Date.now() - (this.startedAt ?? Date.now())) / 1000)
    this.startedAt = undefined
  }

  /**
   * Abandons a running rewrite (the AOF is turned on, or the executor closes): its temporary
   * file is removed and the manifest stays as it was. Resolves once the snapshot has stopped.
   */
  abort(): Promise<void> {
    const snapshot = this.snapshot
    if (snapshot === undefined) return Promise.resolve()
    this.abandoned = true
    snapshot.abort()
    return snapshot.done.then(
      () => undefined,
      () => undefined,
    )
  }

  status(): OfflineRewriteStatus {
    return {
      rewriteInProgress: this.running,
      rewriteScheduled: false,
      lastRewriteTimeSec: this.lastTimeSec,
      currentRewriteTimeSec: this.startedAt === undefined ? -1 : Math.floor((Date.now() - this.startedAt) / 1000),
      lastRewriteStatus: this.lastStatus,
      rewrites: this.rewrites,
      consecutiveRewriteFailures: this.consecutiveFailures,
    }
  }
}
