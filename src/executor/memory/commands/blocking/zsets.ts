/**
 * BZPOPMIN, BZPOPMAX and BZMPOP (Redis 7.0 `t_zset.c`, `blocked.c`): with a member to serve they
 * run as ZPOPMIN, ZPOPMAX or ZMPOP; otherwise the client blocks, and when a key it waits on gets
 * a sorted set, that same form is run for it alone.
 */
import { NULL_ARRAY, ReplyError } from '../../../../reply.js'
import type { CommandContext, Out } from '../../command.js'
import { ZSetValue } from '../../types/zset.js'
import { blockingPop, readMpopArguments, readSecondsTimeout, type Client, type SizeOfServed } from './common.js'

type End = 'MIN' | 'MAX'

/** `MIN` / `MAX` in any case, else null. */
function readEnd(text: string): End | null {
  const word = text.toUpperCase()
  return word === 'MIN' || word === 'MAX' ? word : null
}

/** A sorted set's size; undefined for another type. */
const zsetSize: SizeOfServed = (value) => (value instanceof ZSetValue ? value.size : undefined)

/**
 * The pop from `key`: BZPOPMIN/BZPOPMAX's `[key, member, score]` (count -1) or ZMPOP's
 * `[key, [[member, score], …]]`; undefined when the key had nothing.
 */
function popFrom(client: Client, key: string, end: End, count: number): Out | undefined {
  const { engine, session, db } = client
  if (count === -1) {
    const out = engine.serveBlocked(session, db, [end === 'MIN' ? 'ZPOPMIN' : 'ZPOPMAX', key])
    if (out instanceof ReplyError) return out
    const pair = out as readonly Out[]
    return pair.length === 0 ? undefined : [key, ...pair]
  }
  const out = engine.serveBlocked(session, db, ['ZMPOP', '1', key, end, 'COUNT', String(count)])
  return out === NULL_ARRAY ? undefined : out
}

function blockingZPop(ctx: CommandContext, keys: readonly string[], end: End, timeout: number, count: number): Out {
  return blockingPop(ctx, keys, 'zset', timeout, zsetSize, (client, key) => popFrom(client, key, end, count))
}

function bzpopmin(ctx: CommandContext, argv: readonly string[]): Out {
  const timeout = readSecondsTimeout(argv[argv.length - 1])
  if (timeout instanceof ReplyError) return timeout
  return blockingZPop(ctx, argv.slice(1, -1), 'MIN', timeout, -1)
}

function bzpopmax(ctx: CommandContext, argv: readonly string[]): Out {
  const timeout = readSecondsTimeout(argv[argv.length - 1])
  if (timeout instanceof ReplyError) return timeout
  return blockingZPop(ctx, argv.slice(1, -1), 'MAX', timeout, -1)
}

/** BZMPOP timeout numkeys key [key ...] MIN|MAX [COUNT count]: numkeys, end and count before the timeout. */
function bzmpop(ctx: CommandContext, argv: readonly string[]): Out {
  const read = readMpopArguments(argv, readEnd)
  if (read instanceof ReplyError) return read
  return blockingZPop(ctx, read.keys, read.end, read.timeout, read.count)
}

export const blockingZSetCommands = { bzpopmin, bzpopmax, bzmpop }
