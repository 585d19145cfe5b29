/**
 * BZPOPMIN, BZPOPMAX and BZMPOP (Redis 7.0 `t_zset.c`, `blocked.c`): with a member to serve they
 * run as ZPOPMIN, ZPOPMAX or ZMPOP; otherwise the client blocks, and when a key it waits on gets
 * a sorted set, that same form is run for it alone.
 */
import { NULL_ARRAY, ReplyError } from '../../../../reply.js'
import type { CommandContext, Out } from '../../command.js'
import { COUNT_NOT_POSITIVE, NUMKEYS_NOT_POSITIVE, SYNTAX, WRONGTYPE } from '../../errors.js'
import { readInteger } from '../../lib/numbers.js'
import { ZSetValue } from '../../types/zset.js'
import { blockClient, clientOf, mayBlock, readSecondsTimeout, type Client } from './common.js'

type End = 'MIN' | 'MAX'

/** The first key holding a non-empty sorted set, WRONGTYPE at the first other value, or undefined. */
function firstZSet(ctx: CommandContext, keys: readonly string[]): string | ReplyError | undefined {
  for (const key of keys) {
    const value = ctx.db.read(key, ctx)
    if (value === undefined) continue
    if (!(value instanceof ZSetValue)) return WRONGTYPE
    if (value.size !== 0) return key
  }
  return undefined
}

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
  const found = firstZSet(ctx, keys)
  if (found instanceof ReplyError) return found
  const client = clientOf(ctx)
  if (found !== undefined) return popFrom(client, found, end, count) ?? NULL_ARRAY
  if (!mayBlock(ctx)) return NULL_ARRAY
  return blockClient(ctx, { kind: 'zset', keys, timeout, timedOut: NULL_ARRAY, serve: (key) => popFrom(client, key, end, count) })
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
  const numKeys = readInteger(argv[2])
  if (numKeys === null || numKeys < 1) return NUMKEYS_NOT_POSITIVE
  const endAt = 3 + numKeys
  if (endAt >= argv.length) return SYNTAX
  const end = argv[endAt].toUpperCase()
  if (end !== 'MIN' && end !== 'MAX') return SYNTAX
  let count = -1
  for (let j = endAt + 1; j < argv.length; j++) {
    if (count === -1 && argv[j].toLowerCase() === 'count' && j + 1 < argv.length) {
      const parsed = readInteger(argv[++j])
      if (parsed === null || parsed < 1) return COUNT_NOT_POSITIVE
      count = parsed
    } else return SYNTAX
  }
  const timeout = readSecondsTimeout(argv[1])
  if (timeout instanceof ReplyError) return timeout
  return blockingZPop(ctx, argv.slice(3, endAt), end, timeout, count === -1 ? 1 : count)
}

export const blockingZSetCommands = { bzpopmin, bzpopmax, bzmpop }
