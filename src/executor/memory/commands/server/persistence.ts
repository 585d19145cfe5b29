/**
 * SAVE, BGSAVE, LASTSAVE, SHUTDOWN and BGREWRITEAOF. The work is `persistence/rdb-persistence.ts`;
 * these handlers check arguments and state in Redis's order and answer with Redis's texts. An
 * engine without a data directory refuses to save rather than answer OK and write nothing;
 * BGREWRITEAOF rewrites the append-only file (`persistence/aof.ts`), or with `appendonly no` writes
 * a base-only AOF directory as Redis does (`persistence/aof-offline-rewrite.ts`).
 */
import { OK, ReplyError, Status } from '../../../../reply.js'
import { aofControlOf } from '../../persistence/aof-control.js'
import type { OfflineAofRewrite } from '../../persistence/aof-offline-rewrite.js'
import type { CommandContext, Out } from '../../command.js'
import { SYNTAX } from '../../errors.js'
import type { RdbPersistence } from '../../persistence/rdb-persistence.js'
import { serverState } from './stats.js'

const BGSAVE_STARTED = new Status('Background saving started')
const BGSAVE_SCHEDULED = new Status('Background saving scheduled')
const BGREWRITEAOF_STARTED = new Status('Background append only file rewriting started')
const BGREWRITEAOF_SCHEDULED = new Status('Background append only file rewriting scheduled')
const BGSAVE_IN_PROGRESS = new ReplyError('ERR Background save already in progress')
/** Redis's bare `-ERR` (shared.err) for a SAVE that could not write its file. */
const SAVE_FAILED = new ReplyError('ERR')
const SHUTDOWN_FAILED = new ReplyError('ERR Errors trying to SHUTDOWN. Check logs.')
const NO_SHUTDOWN_IN_PROGRESS = new ReplyError('ERR No shutdown in progress.')
export const PERSISTENCE_OFF = new ReplyError(
  'ERR persistence is off: this engine has no data directory (give MemoryExecutor the persistence option, or run restis without --no-persistence)',
)
const SHUTDOWN_UNAVAILABLE = new ReplyError('ERR SHUTDOWN is not available: nothing stops this embedded engine (EngineOptions.onShutdown is not set)')

/** SAVE: writes the snapshot now, blocking every client, as Redis does. */
function save(ctx: CommandContext): Out {
  const rdb = ctx.engine.rdb
  if (rdb === undefined) return PERSISTENCE_OFF
  if (rdb.bgsaveInProgress) return BGSAVE_IN_PROGRESS
  return rdb.saveSync() === undefined ? OK : SAVE_FAILED
}

/** BGSAVE [SCHEDULE]: any other argument is a syntax error, as in Redis. */
function bgsave(ctx: CommandContext, argv: readonly string[]): Out {
  if (argv.length > 2 || (argv.length === 2 && argv[1].toLowerCase() !== 'schedule')) return SYNTAX
  const rdb = ctx.engine.rdb
  if (rdb === undefined) return PERSISTENCE_OFF
  if (rdb.bgsaveInProgress) return BGSAVE_IN_PROGRESS
  // Inside MULTI/EXEC Redis schedules rather than starts (`server.in_exec`): the snapshot begins
  // after the block, from the save cron.
  if (ctx.engine.inTransaction) {
    rdb.scheduled = true
    return BGSAVE_SCHEDULED
  }
  rdb.startBgsave()
  return BGSAVE_STARTED
}

const REWRITE_RUNNING = new ReplyError('ERR Background append only file rewriting already in progress')
const NO_DATA_DIRECTORY = new ReplyError('ERR BGREWRITEAOF needs a data directory: this executor runs without persistence')
/** Redis's reply when the rewrite could not start (the reason is in the log). */
const REWRITE_FAILED = new ReplyError(
  "ERR Can't execute an AOF background rewriting. Please check the server logs for more information.",
)

/** BGREWRITEAOF: a new base from the keyspace now, a new increment from here on (`persistence/aof.ts`). */
function bgrewriteaof(ctx: CommandContext): Out {
  const control = aofControlOf(ctx.engine)
  if (control === undefined) return NO_DATA_DIRECTORY
  const aof = control.aof
  if (aof === undefined) return bgrewriteaofWhileOff(ctx, control.offline)
  if (aof.rewriting) return REWRITE_RUNNING
  // Inside MULTI/EXEC Redis schedules (`server.in_exec`): the block is logged as one unit at its
  // end, so the base must be taken after it.
  if (ctx.engine.inTransaction) return aof.scheduleRewrite() ? BGREWRITEAOF_SCHEDULED : REWRITE_RUNNING
  return aof.requestRewrite() ? BGREWRITEAOF_STARTED : REWRITE_RUNNING
}

/**
 * BGREWRITEAOF with `appendonly no`, as Redis 7.0 does it: a base-only AOF directory
 * (`persistence/aof-offline-rewrite.ts`). Inside MULTI/EXEC Redis schedules it: it starts once
 * the block has run.
 */
function bgrewriteaofWhileOff(ctx: CommandContext, offline: OfflineAofRewrite): Out {
  if (offline.running) return REWRITE_RUNNING
  if (ctx.engine.inTransaction) {
    setImmediate(() => {
      if (!offline.running && aofControlOf(ctx.engine)?.aof === undefined) offline.start()
    })
    return BGREWRITEAOF_SCHEDULED
  }
  return offline.start() ? BGREWRITEAOF_STARTED : REWRITE_FAILED
}

/** LASTSAVE: Unix time of the last successful save; the start time until one ran. */
function lastsave(ctx: CommandContext): Out {
  return ctx.engine.rdb?.lastSave ?? serverState(ctx.engine).lastSave
}

type ShutdownMode = 'default' | 'save' | 'nosave'

interface ShutdownRequest {
  readonly mode: ShutdownMode
  readonly force: boolean
  readonly abort: boolean
}

/** SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT], parsed as Redis 7.0's shutdownCommand does. */
function readShutdown(argv: readonly string[]): ShutdownRequest | ReplyError {
  let save = false
  let nosave = false
  let force = false
  let abort = false
  let other = false
  for (let i = 1; i < argv.length; i++) {
    const word = argv[i].toLowerCase()
    if (word === 'nosave') nosave = true
    else if (word === 'save') save = true
    else if (word === 'now') other = true // No replicas to wait for: NOW changes nothing here.
    else if (word === 'force') force = true
    else if (word === 'abort') abort = true
    else return SYNTAX
  }
  if ((abort && (save || nosave || force || other)) || (save && nosave)) return SYNTAX
  return { mode: save ? 'save' : nosave ? 'nosave' : 'default', force, abort }
}

/**
 * SHUTDOWN: saves when asked to or when save points exist (unless NOSAVE), then stops the engine
 * through its owner's `onShutdown`. A failed save refuses to stop unless FORCE, as in Redis.
 */
function shutdown(ctx: CommandContext, argv: readonly string[]): Out {
  const request = readShutdown(argv)
  if (request instanceof ReplyError) return request
  // Nothing makes a shutdown wait here (no replicas), so none is ever in progress to abort.
  if (request.abort) return NO_SHUTDOWN_IN_PROGRESS
  const stop = ctx.engine.onShutdown
  if (stop === undefined) return SHUTDOWN_UNAVAILABLE
  const rdb: RdbPersistence | undefined = ctx.engine.rdb
  if (rdb === undefined && request.mode === 'save') return PERSISTENCE_OFF
  const failed = rdb?.shutdownSync(request.mode)
  if (failed !== undefined && !request.force) return SHUTDOWN_FAILED
  stop()
  return OK
}

export const persistenceCommands = { save, bgsave, bgrewriteaof, lastsave, shutdown }
