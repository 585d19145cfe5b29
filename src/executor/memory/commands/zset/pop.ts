import { NULL_ARRAY, ReplyError } from '../../../../reply.js'
import { NOTIFY_ZSET, notify } from '../../notify.js'
import { deleteIfEmpty } from './access.js'
import type { CommandContext, Out } from '../../command.js'
import { COUNT_NOT_POSITIVE, NOT_POSITIVE, NUMKEYS_NOT_POSITIVE, SYNTAX } from '../../errors.js'
import { readInteger } from '../../lib/numbers.js'
import type { ZSetValue } from '../../types/zset.js'
import { readZSet } from './access.js'
import { formatScore } from './score.js'

/** ZPOPMIN, ZPOPMAX and ZMPOP (`genericZpopCommand` in t_zset.c). The blocking forms are not served here. */

type End = 'min' | 'max'

/**
 * Removes up to `count` entries from one end of the set at `key` (deleting the key when it
 * empties) and returns them as `[member, score]` pairs, lowest first for `min`, highest first
 * for `max`.
 */
function popEntries(ctx: CommandContext, key: string, zset: ZSetValue, end: End, count: number): [string, string][] {
  const taken = Math.min(count, zset.size)
  const popped: [string, string][] = []
  const cursor = zset.cursorAt(end === 'min' ? 0 : zset.size - 1)
  for (let n = 0; n < taken; n++) {
    popped.push([cursor.member, formatScore(cursor.score)])
    if (end === 'min') cursor.next()
    else cursor.prev()
  }
  for (const [member] of popped) zset.delete(member)
  if (taken > 0) notify(ctx, NOTIFY_ZSET, end === 'min' ? 'zpopmin' : 'zpopmax', key)
  deleteIfEmpty(ctx, key, zset)
  return popped
}

/**
 * `ZPOPMIN key [count]` / `ZPOPMAX key [count]`: a flat `member, score, …` array, empty for a
 * missing key or count 0. The count is read before the key is looked at.
 */
function popGeneric(ctx: CommandContext, argv: readonly string[], end: End): Out {
  if (argv.length > 3) return SYNTAX
  let count = 1
  if (argv.length === 3) {
    const parsed = readInteger(argv[2])
    if (parsed === null || parsed < 0) return NOT_POSITIVE
    count = parsed
  }
  const zset = readZSet(ctx, argv[1])
  if (zset instanceof ReplyError) return zset
  if (zset === undefined || count === 0) return []
  return popEntries(ctx, argv[1], zset, end, count).flat()
}

function zpopmin(ctx: CommandContext, argv: readonly string[]): Out {
  return popGeneric(ctx, argv, 'min')
}

function zpopmax(ctx: CommandContext, argv: readonly string[]): Out {
  return popGeneric(ctx, argv, 'max')
}

/**
 * `ZMPOP numkeys key [key ...] MIN|MAX [COUNT count]`: pops from the first non-empty set and
 * replies `[key, [[member, score], …]]`, or the null array when every key is missing. Keys are
 * type-checked in order up to the first existing one.
 */
function zmpop(ctx: CommandContext, argv: readonly string[]): Out {
  const numKeys = readInteger(argv[1])
  if (numKeys === null || numKeys < 1) return NUMKEYS_NOT_POSITIVE
  const whereIndex = 2 + numKeys
  if (whereIndex >= argv.length) return SYNTAX
  const where = argv[whereIndex].toLowerCase()
  if (where !== 'min' && where !== 'max') return SYNTAX
  let count = -1
  for (let j = whereIndex + 1; j < argv.length; j++) {
    if (count === -1 && argv[j].toLowerCase() === 'count' && j + 1 < argv.length) {
      const parsed = readInteger(argv[++j])
      if (parsed === null || parsed < 1) return COUNT_NOT_POSITIVE
      count = parsed
    } else {
      return SYNTAX
    }
  }
  if (count === -1) count = 1
  for (let i = 2; i < whereIndex; i++) {
    const zset = readZSet(ctx, argv[i])
    if (zset instanceof ReplyError) return zset
    if (zset !== undefined) return [argv[i], popEntries(ctx, argv[i], zset, where, count)]
  }
  return NULL_ARRAY
}

export const popCommands = { zpopmin, zpopmax, zmpop }
