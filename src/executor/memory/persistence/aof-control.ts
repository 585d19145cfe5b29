/**
 * The AOF's place in a running engine: `appendonly` and `appendfsync` as live CONFIG parameters
 * (`CONFIG SET appendonly yes` starts the AOF with a rewrite of the current keyspace, `no` stops
 * it), and the lookup BGREWRITEAOF and INFO use. One per engine that has a data directory.
 */
import type { Engine } from '../engine.js'
import path from 'node:path'
import { AppendOnlyFile, type AofOptions, type AppendFsync } from './aof.js'
import { OfflineAofRewrite, type OfflineRewriteStatus } from './aof-offline-rewrite.js'

export interface AofControlOptions extends AofOptions {
  /** Start with the AOF on (loading it when it exists). Default false. */
  readonly appendonly?: boolean
}

const controls = new WeakMap<Engine, AofControl>()

/** The AOF control of `engine`, undefined when it has no data directory. */
export function aofControlOf(engine: Engine): AofControl | undefined {
  return controls.get(engine)
}

export class AofControl {
  private current: AppendOnlyFile | undefined
  /** BGREWRITEAOF while the AOF is off: writes a base-only AOF directory. */
  readonly offline: OfflineAofRewrite
  /** Settles once an abandoned offline rewrite has removed its temporary file. */
  private offlineStopped: Promise<void> = Promise.resolve()

  constructor(
    private readonly engine: Engine,
    private readonly options: AofControlOptions,
  ) {
    controls.set(engine, this)
    this.offline = new OfflineAofRewrite(engine, {
      folder: path.join(options.dir, options.appenddirname ?? 'appendonlydir'),
      filename: options.appendfilename ?? 'appendonly.aof',
      log: options.log ?? (() => {}),
    })
    const policy = options.appendfsync ?? 'everysec'
    engine.config.set('appendfsync', policy)
    engine.config.set('dir', options.dir)
    if (options.appenddirname !== undefined) engine.config.set('appenddirname', options.appenddirname)
    if (options.appendfilename !== undefined) engine.config.set('appendfilename', options.appendfilename)
    if (options.appendonly === true) {
      this.current = AppendOnlyFile.open(engine, { ...options, appendfsync: policy })
      engine.config.set('appendonly', 'yes')
    }
    engine.configAppliers.set('appendonly', (value) => this.setAppendonly(value === 'yes'))
    engine.configAppliers.set('appendfsync', (value) => {
      this.current?.setAppendfsync(value as AppendFsync)
      return undefined
    })
  }

  /** INFO's rewrite figures while the AOF is off (those of BGREWRITEAOF with `appendonly no`). */
  offlineStatus(): OfflineRewriteStatus {
    return this.offline.status()
  }

  /** The open AOF, undefined while `appendonly` is no. */
  get aof(): AppendOnlyFile | undefined {
    return this.current
  }

  private setAppendonly(on: boolean): string | undefined {
    if (!on) {
      this.current?.close()
      this.current = undefined
      return undefined
    }
    if (this.current !== undefined) return undefined
    // Redis kills a rewrite child of the AOF-off state before it starts the AOF: its base would
    // replace the manifest the new AOF writes.
    this.offlineStopped = this.offline.abort()
    const policy = (this.engine.config.get('appendfsync') ?? 'everysec') as AppendFsync
    try {
      // A directory that already holds an AOF from an earlier run is started afresh from the
      // keyspace, as Redis's startAppendOnly rewrites: the files listed so far are replaced.
      this.current = AppendOnlyFile.start(this.engine, { ...this.options, appendfsync: policy })
    } catch (error) {
      return `could not start the AOF: ${(error as Error).message}`
    }
    return undefined
  }

  /** Settles once a rewrite abandoned by {@link close} or by turning the AOF on has cleaned up. */
  whenStopped(): Promise<void> {
    return this.offlineStopped
  }

  /** Stops logging (executor close): buffered writes reach the disk first. */
  close(): void {
    const aborted = this.offline.abort()
    this.offlineStopped = Promise.all([this.offlineStopped, aborted]).then(() => undefined)
    this.current?.close()
    this.current = undefined
    controls.delete(this.engine)
  }
}
