import { OK, PONG } from '../../../reply.js'
import type { CommandTable, CommandContext, Out } from '../command.js'
import { DB_INDEX_OUT_OF_RANGE, NOT_INTEGER } from '../errors.js'
import { readInteger } from '../numbers.js'

function ping(_ctx: CommandContext, argv: readonly string[]): Out {
  return argv.length === 1 ? PONG : argv[1]
}

function echo(_ctx: CommandContext, argv: readonly string[]): Out {
  return argv[1]
}

function select(ctx: CommandContext, argv: readonly string[]): Out {
  const index = readInteger(argv[1])
  if (index === null) return NOT_INTEGER
  if (index < 0 || index >= ctx.engine.databases.length) return DB_INDEX_OUT_OF_RANGE
  ctx.session.db = index
  return OK
}

/** Connection commands the engine answers itself (the RESP listener handles AUTH, HELLO, QUIT). */
export const connectionCommands: CommandTable = { ping, echo, select }
