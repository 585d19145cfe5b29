/**
 * SAVE, BGSAVE, BGREWRITEAOF and LASTSAVE. BGREWRITEAOF rewrites the append-only file when the
 * executor has one. SAVE and BGSAVE keep no files yet (the RDB part of persistence adds them);
 * they succeed with Redis's replies and move LASTSAVE and the change counter as a completed save
 * would, which is what clients polling LASTSAVE after BGSAVE wait for.
 */
import { OK, ReplyError, Status } from '../../../../reply.js'
import { aofControlOf } from '../../persistence/aof-control.js'
import type { CommandContext, Out } from '../../command.js'
import { SYNTAX } from '../../errors.js'
import { serverState } from './stats.js'

const BGSAVE_STARTED = new Status('Background saving started')
const BGREWRITEAOF_STARTED = new Status('Background append only file rewriting started')

function completeSave(ctx: CommandContext): void {
  serverState(ctx.engine).lastSave = Math.floor(ctx.now / 1000)
  ctx.engine.stats.changesSinceSave = 0
}

function save(ctx: CommandContext): Out {
  completeSave(ctx)
  return OK
}

/** BGSAVE [SCHEDULE]: any other argument is a syntax error, as in Redis. */
function bgsave(ctx: CommandContext, argv: readonly string[]): Out {
  if (argv.length > 2 || (argv.length === 2 && argv[1].toLowerCase() !== 'schedule')) return SYNTAX
  completeSave(ctx)
  return BGSAVE_STARTED
}

const REWRITE_RUNNING = new ReplyError('ERR Background append only file rewriting already in progress')
const NO_DATA_DIRECTORY = new ReplyError('ERR BGREWRITEAOF needs a data directory: this executor runs without persistence')
const AOF_OFF = new ReplyError('ERR The AOF is off: CONFIG SET appendonly yes starts it, with a rewrite')

/** BGREWRITEAOF: a new base from the keyspace now, a new increment from here on (`persistence/aof.ts`). */
function bgrewriteaof(ctx: CommandContext): Out {
  const control = aofControlOf(ctx.engine)
  if (control === undefined) return NO_DATA_DIRECTORY
  const aof = control.aof
  if (aof === undefined) return AOF_OFF
  return aof.requestRewrite() ? BGREWRITEAOF_STARTED : REWRITE_RUNNING
}

/** LASTSAVE: Unix time of the last save; the start time until one ran. */
function lastsave(ctx: CommandContext): Out {
  return serverState(ctx.engine).lastSave
}

export const persistenceCommands = { save, bgsave, bgrewriteaof, lastsave }
