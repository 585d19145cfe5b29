/**
 * Loading an AOF directory at start: the manifest's base (an RDB file when it starts with the
 * RDB signature, as Redis 7 writes it by default, else commands), then its increments in order,
 * replayed through the engine with expiry held (nothing expires while loading, as in Redis).
 * A cut in the last file loads up to its last complete command, and the file is truncated there
 * (Redis's `aof-load-truncated yes`); a MULTI without its EXEC at the end counts as cut at the
 * MULTI. Anything else malformed refuses to load with the file and offset.
 */
import fs from 'node:fs'
import path from 'node:path'
import type { Engine } from '../engine.js'
import { AofError, AofFormatError, replayAof } from './aof-format.js'
import type { AofFileInfo, AofManifest } from './aof-manifest.js'
import { loadRdbBytes } from './rdb-io.js'

/** The first bytes of an RDB file (and of an AOF base with an RDB preamble). */
const RDB_SIGNATURE = 'REDIS'

export interface AofLoadReport {
  /** Commands replayed, plus the keys of an RDB base. */
  readonly commands: number
  /** Bytes dropped from the end of the last file, 0 when it was complete. */
  readonly truncatedBytes: number
  readonly truncatedFile: string | undefined
}

export class AofLoadError extends AofError {
  constructor(message: string) {
    super(message)
    this.name = 'AofLoadError'
  }
}

/** Replays every file the manifest lists into `engine`; truncates a cut last file. */
export function loadAofDirectory(engine: Engine, dir: string, manifest: AofManifest, log: (line: string) => void): AofLoadReport {
  const files: AofFileInfo[] = [...(manifest.base === undefined ? [] : [manifest.base]), ...manifest.increments]
  const stats = saveStats(engine)
  let commands = 0
  let truncatedBytes = 0
  let truncatedFile: string | undefined
  engine.loadWhileExpiryHeld(() => {
    const session = engine.createSession('aof-loading:0')
    files.forEach((file, index) => {
      const full = path.join(dir, file.name)
      if (!fs.existsSync(full)) throw new AofLoadError(`The AOF file ${file.name} listed in the manifest does not exist in ${dir}`)
      const raw = fs.readFileSync(full)
      if (raw.toString('latin1', 0, RDB_SIGNATURE.length) === RDB_SIGNATURE) {
        if (index !== 0 || file.type !== 'b') throw new AofLoadError(`The AOF file ${file.name} holds RDB data, which only a base file may hold`)
        commands += loadRdbBase(engine, raw, file.name)
        return
      }
      const bytes = raw.toString('latin1')
      const replay = new Replay(engine, session)
      const result = replayAof(bytes, file.name, (argv, offset) => replay.apply(argv, offset))
      commands += result.commands
      let validLength = result.validLength
      if (replay.openMultiAt !== undefined) validLength = replay.openMultiAt
      const dropped = bytes.length - validLength
      if (dropped === 0) return
      if (index !== files.length - 1) throw new AofFormatError(file.name, validLength, 'unexpected end of a file that is not the last one')
      log(`AOF ${file.name} was cut: loaded up to offset ${validLength}, dropped the last ${dropped} bytes (aof-load-truncated yes)`)
      fs.truncateSync(full, validLength)
      truncatedBytes = dropped
      truncatedFile = file.name
    })
  })
  restoreStats(engine, stats)
  return { commands, truncatedBytes, truncatedFile }
}

/**
 * A base with an RDB preamble (`aof-use-rdb-preamble yes`): loaded as an RDB file, keys whose
 * deadline has passed included (Redis loads an AOF base whole; the increments may still touch
 * them, and expiry removes them after the load). Returns the keys loaded.
 */
function loadRdbBase(engine: Engine, bytes: Buffer, name: string): number {
  let keys: number
  try {
    keys = loadRdbBytes(bytes, engine, { keepExpired: true }).keys
  } catch (error) {
    throw new AofLoadError(`The AOF base ${name} does not load as an RDB file: ${(error as Error).message}`)
  }
  // The load put new databases in place: they hold expiry too until the increments are replayed.
  for (const db of engine.databases) db.loading = engine.loading
  return keys
}

/** Commands of one file through the engine; MULTI … EXEC runs as one transaction. */
class Replay {
  private queued: string[][] | undefined
  openMultiAt: number | undefined

  constructor(
    private readonly engine: Engine,
    private readonly session: ReturnType<Engine['createSession']>,
  ) {}

  apply(argv: string[], offset: number): void {
    const name = argv[0].toLowerCase()
    if (name === 'multi') {
      this.queued = []
      this.openMultiAt = offset
      return
    }
    if (name === 'exec' && this.queued !== undefined) {
      const commands = this.queued
      this.queued = undefined
      this.openMultiAt = undefined
      this.engine.transaction(this.session, commands)
      return
    }
    if (this.queued !== undefined) this.queued.push(argv)
    else this.engine.call(this.session, argv)
  }
}

type SavedStats = readonly [commandsProcessed: number, connections: number, errors: number, changes: number]

/** Loading is not traffic: INFO's counters stay as they were (Redis loads through a fake client). */
function saveStats(engine: Engine): SavedStats {
  const stats = engine.stats
  return [stats.commandsProcessed, stats.connectionsReceived, stats.errorReplies, stats.changesSinceSave]
}

function restoreStats(engine: Engine, saved: SavedStats): void {
  const stats = engine.stats
  ;[stats.commandsProcessed, stats.connectionsReceived, stats.errorReplies, stats.changesSinceSave] = saved
  // Zeroed in place: resolved commands keep their counters objects (see engine.ts).
  for (const counters of stats.commands.values()) {
    counters.calls = 0
    counters.usec = 0
    counters.timedCalls = 0
    counters.rejectedCalls = 0
    counters.failedCalls = 0
  }
  stats.errorCodes.clear()
}
