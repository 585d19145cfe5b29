/**
 * BLPOP, BRPOP, BRPOPLPUSH, BLMOVE and BLMPOP (Redis 7.0 `t_list.c`, `blocked.c`). With an
 * element to serve they run as LPOP, RPOP, LMOVE or LMPOP (which is also how they are logged);
 * otherwise the client blocks, and when a key it waits on gets a list, that same non-blocking
 * form is run for it alone.
 */
import { NULL_ARRAY, ReplyError } from '../../../../reply.js'
import type { CommandContext, Out } from '../../command.js'
import { COUNT_NOT_POSITIVE, NUMKEYS_NOT_POSITIVE, SYNTAX, WRONGTYPE } from '../../errors.js'
import { readInteger } from '../../lib/numbers.js'
import { ListValue } from '../../types/list.js'
import { blockClient, clientOf, mayBlock, readSecondsTimeout, type Client } from './common.js'

type Side = 'LEFT' | 'RIGHT'

/** `LEFT` / `RIGHT` in any case, else null (Redis's `getListPositionFromObjectOrReply`). */
function readSide(text: string): Side | null {
  const word = text.toUpperCase()
  return word === 'LEFT' || word === 'RIGHT' ? word : null
}

/**
 * Looks at `keys` in order as Redis does: the first that holds a list, WRONGTYPE at the first
 * other value, or undefined when none has a list.
 */
function firstList(ctx: CommandContext, keys: readonly string[]): string | ReplyError | undefined {
  for (const key of keys) {
    const value = ctx.db.read(key, ctx)
    if (value === undefined) continue
    if (!(value instanceof ListValue)) return WRONGTYPE
    if (value.length !== 0) return key
  }
  return undefined
}

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
function blockingPop(ctx: CommandContext, keys: readonly string[], side: Side, timeout: number, count: number): Out {
  const found = firstList(ctx, keys)
  if (found instanceof ReplyError) return found
  const client = clientOf(ctx)
  if (found !== undefined) return popFrom(client, found, side, count) ?? NULL_ARRAY
  if (!mayBlock(ctx)) return NULL_ARRAY
  return blockClient(ctx, { kind: 'list', keys, timeout, timedOut: NULL_ARRAY, serve: (key) => popFrom(client, key, side, count) })
}

function blpop(ctx: CommandContext, argv: readonly string[]): Out {
  const timeout = readSecondsTimeout(argv[argv.length - 1])
  if (timeout instanceof ReplyError) return timeout
  return blockingPop(ctx, argv.slice(1, -1), 'LEFT', timeout, -1)
}

function brpop(ctx: CommandContext, argv: readonly string[]): Out {
  const timeout = readSecondsTimeout(argv[argv.length - 1])
  if (timeout instanceof ReplyError) return timeout
  return blockingPop(ctx, argv.slice(1, -1), 'RIGHT', timeout, -1)
}

/** BLMPOP timeout numkeys key [key ...] LEFT|RIGHT [COUNT count]: numkeys, side and count are read before the timeout. */
function blmpop(ctx: CommandContext, argv: readonly string[]): Out {
  const numKeys = readInteger(argv[2])
  if (numKeys === null || numKeys < 1) return NUMKEYS_NOT_POSITIVE
  const sideAt = 3 + numKeys
  if (sideAt >= argv.length) return SYNTAX
  const side = readSide(argv[sideAt])
  if (side === null) return SYNTAX
  let count = -1
  for (let j = sideAt + 1; j < argv.length; j++) {
    if (count === -1 && argv[j].toLowerCase() === 'count' && j + 1 < argv.length) {
      const parsed = readInteger(argv[++j])
      if (parsed === null || parsed < 1) return COUNT_NOT_POSITIVE
      count = parsed
    } else return SYNTAX
  }
  const timeout = readSecondsTimeout(argv[1])
  if (timeout instanceof ReplyError) return timeout
  return blockingPop(ctx, argv.slice(3, sideAt), side, timeout, count === -1 ? 1 : count)
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
