/**
 * SAVE, BGSAVE, BGREWRITEAOF and LASTSAVE. The engine keeps no files, so a save has nothing to
 * write; the commands succeed with Redis's replies and move LASTSAVE and the change counter as a
 * completed save would, which is what clients polling LASTSAVE after BGSAVE wait for.
 */
import { OK, Status } from '../../../../reply.js'
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

function bgrewriteaof(): Out {
  return BGREWRITEAOF_STARTED
}

/** LASTSAVE: Unix time of the last save; the start time until one ran. */
function lastsave(ctx: CommandContext): Out {
  return serverState(ctx.engine).lastSave
}

export const persistenceCommands = { save, bgsave, bgrewriteaof, lastsave }
