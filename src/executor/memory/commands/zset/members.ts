import { NULL_ARRAY, ReplyError } from '../../../../reply.js'
import { NOTIFY_ZSET, notify } from '../../notify.js'
import type { CommandContext, Out } from '../../command.js'
import { NOT_INTEGER, SYNTAX } from '../../errors.js'
import { readInt64 } from '../../lib/numbers.js'
import { stringMatch as globMatch } from '../../lib/glob.js'
import { EMPTY_SCAN, INVALID_CURSOR, parseScanCursor, parseScanOptions } from '../generic/scan-options.js'
import type { ZSetValue } from '../../types/zset.js'
import { deleteIfEmpty, readZSet } from './access.js'
import { chargedReply, chargedSample, checkElements } from '../../reply-budget.js'
import { formatListpackScore, formatScore } from './score.js'

/** Member-level sorted-set commands: ZCARD, ZSCORE, ZMSCORE, ZRANK, ZREVRANK, ZREM, ZRANDMEMBER, ZSCAN. */

const INT64_MIN = -(2n ** 63n)
const LONG_MAX = 2n ** 63n - 1n
/** ZRANDMEMBER's count is a `long` in [-LONG_MAX, LONG_MAX]. */
const COUNT_OUT_OF_RANGE = new ReplyError('ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807')
/** With WITHSCORES the reply has 2 × count entries, so Redis bounds count by LONG_MAX / 2. */
const COUNT_WITHSCORES_OUT_OF_RANGE = new ReplyError('ERR value is out of range')

function zcard(ctx: CommandContext, argv: readonly string[]): Out {
  const zset = readZSet(ctx, argv[1])
  if (zset instanceof ReplyError) return zset
  return zset?.size ?? 0
}

function zscore(ctx: CommandContext, argv: readonly string[]): Out {
  const zset = readZSet(ctx, argv[1])
  if (zset instanceof ReplyError) return zset
  const score = zset?.score(argv[2])
  return score === undefined ? null : formatScore(score)
}

function zmscore(ctx: CommandContext, argv: readonly string[]): Out {
  const zset = readZSet(ctx, argv[1])
  if (zset instanceof ReplyError) return zset
  const replies: (string | null)[] = []
  for (let i = 2; i < argv.length; i++) {
    const score = zset?.score(argv[i])
    replies.push(score === undefined ? null : formatScore(score))
  }
  return replies
}

/**
 * `ZRANK key member [WITHSCORE]` (and ZREVRANK). WITHSCORE is Redis 7.2's
 * (https://redis.io/docs/latest/commands/zrank/): the reply becomes `[rank, score]`, and a
 * missing member or key the null array. Redis 7.0 does not know it, which its command table
 * expresses (arity 3); the handler follows 7.2 whenever the table lets the argument through.
 */
function rankGeneric(ctx: CommandContext, argv: readonly string[], reverse: boolean): Out {
  let withScore = false
  if (argv.length > 3) {
    if (argv.length > 4 || argv[3].toLowerCase() !== 'withscore') return SYNTAX
    withScore = true
  }
  const missing = withScore ? NULL_ARRAY : null
  const zset = readZSet(ctx, argv[1])
  if (zset instanceof ReplyError) return zset
  if (zset === undefined) return missing
  const rank = zset.rank(argv[2], reverse)
  if (rank === -1) return missing
  return withScore ? [rank, formatScore(zset.score(argv[2])!)] : rank
}

function zrank(ctx: CommandContext, argv: readonly string[]): Out {
  return rankGeneric(ctx, argv, false)
}

function zrevrank(ctx: CommandContext, argv: readonly string[]): Out {
  return rankGeneric(ctx, argv, true)
}

function zrem(ctx: CommandContext, argv: readonly string[]): Out {
  const zset = readZSet(ctx, argv[1])
  if (zset instanceof ReplyError) return zset
  if (zset === undefined) return 0
  let removed = 0
  for (let i = 2; i < argv.length; i++) if (zset.delete(argv[i])) removed++
  if (removed > 0) notify(ctx, NOTIFY_ZSET, 'zrem', argv[1])
  deleteIfEmpty(ctx, argv[1], zset)
  return removed
}

// ---- ZRANDMEMBER ----

/**
 * `ZRANDMEMBER key [count [WITHSCORES]]`. Without count: one random member (nil when missing).
 * A negative count may repeat members; a positive count never does, and when it covers the set
 * Redis returns the whole set, highest score first (deterministic, so compared exactly).
 */
function zrandmember(ctx: CommandContext, argv: readonly string[]): Out {
  if (argv.length === 2) {
    const zset = readZSet(ctx, argv[1])
    if (zset instanceof ReplyError) return zset
    return zset === undefined ? null : randomEntry(zset)[0]
  }
  const count = readInt64(argv[2])
  if (count === null) return NOT_INTEGER
  if (count === INT64_MIN) return COUNT_OUT_OF_RANGE
  if (argv.length > 4 || (argv.length === 4 && argv[3].toLowerCase() !== 'withscores')) return SYNTAX
  const withScores = argv.length === 4
  if (withScores && (count < -(LONG_MAX / 2n) || count > LONG_MAX / 2n)) return COUNT_WITHSCORES_OUT_OF_RANGE
  const zset = readZSet(ctx, argv[1])
  if (zset instanceof ReplyError) return zset
  if (zset === undefined || count === 0n) return []
  // The reply is checked against the engine's reply limits before it is built (reply-budget.ts).
  const width = withScores ? 2 : 1
  if (count < 0n) {
    return chargedSample(ctx, Number(-count), width, (out) => {
      const [member, score] = randomEntry(zset)
      out.push(member)
      if (withScores) out.push(formatScore(score))
    })
  }
  const tooLarge = checkElements(ctx, Math.min(Number(count), zset.size) * width)
  if (tooLarge !== null) return tooLarge
  return chargedReply(ctx, distinctMembers(zset, count, withScores))
}

/** ZRANDMEMBER's distinct members (and scores) for a positive count. */
function distinctMembers(zset: ZSetValue, count: bigint, withScores: boolean): string[] {
  const out: string[] = []
  const push = (member: string, score: number) => {
    out.push(member)
    if (withScores) out.push(formatScore(score))
  }
  const size = zset.size
  if (count >= BigInt(size)) {
    for (const cursor = zset.cursorAt(size - 1); cursor.valid; cursor.prev()) push(cursor.member, cursor.score)
    return out
  }
  // Distinct random ranks: a partial Fisher–Yates shuffle over [0, size) kept sparse in a map.
  const swapped = new Map<number, number>()
  for (let i = 0; i < Number(count); i++) {
    const j = i + Math.floor(Math.random() * (size - i))
    const picked = swapped.get(j) ?? j
    swapped.set(j, swapped.get(i) ?? i)
    const cursor = zset.cursorAt(picked)
    push(cursor.member, cursor.score)
  }
  return out
}

/** A uniformly random entry as `[member, score]`; the set must not be empty. */
function randomEntry(zset: ZSetValue): [string, number] {
  const cursor = zset.cursorAt(Math.floor(Math.random() * zset.size))
  return [cursor.member, cursor.score]
}

// ---- ZSCAN ----

/**
 * `ZSCAN key cursor [MATCH pattern] [COUNT count]`. A listpack is returned whole in one call with
 * cursor 0, in order, scores as the listpack stores them; a skip list is walked with cursors that
 * keep Redis's guarantee, scores as `%.17g`.
 */
function zscan(ctx: CommandContext, argv: readonly string[]): Out {
  const cursor = parseScanCursor(argv[2])
  if (cursor === null) return INVALID_CURSOR
  const zset = readZSet(ctx, argv[1])
  if (zset instanceof ReplyError) return zset
  if (zset === undefined) return EMPTY_SCAN
  const options = parseScanOptions(argv, 3, false)
  if (options instanceof ReplyError) return options
  const { match, count } = options
  const items: string[] = []
  if (zset.encoding === 'listpack') {
    zset.forEach((member, score) => {
      if (match === null || globMatch(match, member)) items.push(member, formatListpackScore(score))
    })
    return ['0', items]
  }
  const step = zset.scanMembers(cursor, count)
  for (const member of step.members) {
    if (match === null || globMatch(match, member)) items.push(member, formatScore(zset.score(member)!))
  }
  return [String(step.cursor), items]
}

export const memberCommands = { zcard, zscore, zmscore, zrank, zrevrank, zrem, zrandmember, zscan }
