/**
 * BLPOP, BRPOP, BRPOPLPUSH, BLMOVE and BLMPOP (Redis 7.0 `t_list.c`, `blocked.c`). With an
 * element to serve they run as LPOP, RPOP, LMOVE or LMPOP (which is also how they are logged);
 * otherwise the client blocks, and when a key it waits on gets a list, that same non-blocking
 * form is run for it alone.
 */
import { NULL_ARRAY, ReplyError } from '../../../../reply.js'
import type { CommandContext, Out } from '../../command.js'
import { SYNTAX, WRONGTYPE } from '../../errors.js'
import { ListValue } from '../../types/list.js'
import { blockClient, blockingPop, clientOf, mayBlock, readMpopArguments, readSecondsTimeout, type Client, type SizeOfServed } from './common.js'

type Side = 'LEFT' | 'RIGHT'

/** `LEFT` / `RIGHT` in any case, else null (Redis's `getListPositionFromObjectOrReply`). */
function readSide(text: string): Side | null {
  const word = text.toUpperCase()
  return word === 'LEFT' || word === 'RIGHT' ? word : null
}

/** A list's length; undefined for another type. */
const listLength: SizeOfServed = (value) => (value instanceof ListValue ? value.length : undefined)

/**
 * The pop the blocking command stands for, from `key`: LPOP/RPOP (count -1) or LMPOP's reply
 * `[key, elements]`; undefined when the key had nothing.
 */
function popFrom(client: Client, key: string, side: Side, count: number): Out | undefined {
  const { engine, session, db } = client
  if (count === -1) {
    const element = engine.serveBlocked(session, db, [side === 'LEFT' ? 'LPOP' : 'RPOP', key])
    if (element === null) return undefined
    return element instanceof ReplyError ? element : [key, element]
  }
  const out = engine.serveBlocked(session, db, ['LMPOP', '1', key, side, 'COUNT', String(count)])
  return out === NULL_ARRAY ? undefined : out
}

/** BLPOP / BRPOP / BLMPOP once their arguments are read (`blockingPopGenericCommand`). */
function blockingListPop(ctx: CommandContext, keys: readonly string[], side: Side, timeout: number, count: number): Out {
  return blockingPop(ctx, keys, 'list', timeout, listLength, (client, key) => popFrom(client, key, side, count))
}

function blpop(ctx: CommandContext, argv: readonly string[]): Out {
  const timeout = readSecondsTimeout(argv[argv.length - 1])
  if (timeout instanceof ReplyError) return timeout
  return blockingListPop(ctx, argv.slice(1, -1), 'LEFT', timeout, -1)
}

function brpop(ctx: CommandContext, argv: readonly string[]): Out {
  const timeout = readSecondsTimeout(argv[argv.length - 1])
  if (timeout instanceof ReplyError) return timeout
  return blockingListPop(ctx, argv.slice(1, -1), 'RIGHT', timeout, -1)
}

/** BLMPOP timeout numkeys key [key ...] LEFT|RIGHT [COUNT count]: numkeys, side and count are read before the timeout. */
function blmpop(ctx: CommandContext, argv: readonly string[]): Out {
  const read = readMpopArguments(argv, readSide)
  if (read instanceof ReplyError) return read
  return blockingListPop(ctx, read.keys, read.end, read.timeout, read.count)
}

/** BLMOVE / BRPOPLPUSH once their arguments are read (`blmoveGenericCommand`). */
function blockingMove(ctx: CommandContext, source: string, destination: string, from: Side, to: Side, timeout: number): Out {
  const value = ctx.db.read(source, ctx)
  if (value !== undefined && !(value instanceof ListValue)) return WRONGTYPE
  const { engine, session, db } = clientOf(ctx)
  const move = (): Out => engine.serveBlocked(session, db, ['LMOVE', source, destination, from, to])
  if (value !== undefined) return move()
  // Not allowed to block: the null bulk string here, although a timeout answers the null array.
  if (!mayBlock(ctx)) return null
  return blockClient(ctx, {
    kind: 'list',
    keys: [source],
    timeout,
    timedOut: NULL_ARRAY,
    serve: () => {
      const out = move()
      return out === null ? undefined : out
    },
  })
}

/** BLMOVE source destination LEFT|RIGHT LEFT|RIGHT timeout: the sides are read first. */
function blmove(ctx: CommandContext, argv: readonly string[]): Out {
  const from = readSide(argv[3])
  if (from === null) return SYNTAX
  const to = readSide(argv[4])
  if (to === null) return SYNTAX
  const timeout = readSecondsTimeout(argv[5])
  if (timeout instanceof ReplyError) return timeout
  return blockingMove(ctx, argv[1], argv[2], from, to, timeout)
}

function brpoplpush(ctx: CommandContext, argv: readonly string[]): Out {
  const timeout = readSecondsTimeout(argv[3])
  if (timeout instanceof ReplyError) return timeout
  return blockingMove(ctx, argv[1], argv[2], 'RIGHT', 'LEFT', timeout)
}

export const blockingListCommands = { blpop, brpop, blmpop, blmove, brpoplpush }
