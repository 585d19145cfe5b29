import { ReplyError } from '../../../../reply.js'
import { NOTIFY_ZSET, notify } from '../../notify.js'
import type { CommandContext, Out } from '../../command.js'
import { NOT_INTEGER, SYNTAX } from '../../errors.js'
import { readInteger } from '../../lib/numbers.js'
import { ZSetValue } from '../../types/zset.js'
import { deleteIfEmpty, readZSet, storeResult, zsetLimits } from './access.js'
import {
  LEX_RANGE_ERROR,
  SCORE_RANGE_ERROR,
  firstInLexRange,
  firstInScoreRange,
  lastInLexRange,
  lastInScoreRange,
  lexGteMin,
  lexLteMax,
  parseLexRange,
  parseScoreRange,
  scoreGteMin,
  scoreLteMax,
  type LexRange,
  type ScoreRange,
} from './ranges.js'
import { formatScore } from './score.js'
import { chargedReply, checkElements } from '../../reply-budget.js'

/**
 * ZRANGE and its older forms (ZREVRANGE, Z[REV]RANGEBYSCORE, Z[REV]RANGEBYLEX), ZRANGESTORE,
 * ZCOUNT, ZLEXCOUNT and ZREMRANGEBY{RANK,SCORE,LEX}, as `zrangeGenericCommand` and friends in
 * Redis 7.0's t_zset.c parse and answer them.
 */

const LIMIT_NEEDS_BY = new ReplyError('ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX')
const WITHSCORES_WITH_BYLEX = new ReplyError('ERR syntax error, WITHSCORES not supported in combination with BYLEX')

type RangeKind = 'rank' | 'score' | 'lex'

/** A parsed range request: which entries, in which direction, from where. */
type RangeRequest =
  | { readonly kind: 'rank'; readonly reverse: boolean; readonly start: number; readonly end: number }
  | { readonly kind: 'score'; readonly reverse: boolean; readonly range: ScoreRange; readonly offset: number; readonly limit: number }
  | { readonly kind: 'lex'; readonly reverse: boolean; readonly range: LexRange; readonly offset: number; readonly limit: number }

/**
 * The arguments after the source key at `argv[keyIndex]`: `min max [BYSCORE|BYLEX] [REV]
 * [LIMIT offset count] [WITHSCORES]`. A command that fixes the kind or the direction (ZREVRANGE,
 * ZRANGEBYLEX …) refuses the option that would set it again; ZRANGESTORE refuses WITHSCORES.
 */
function parseRangeRequest(
  argv: readonly string[],
  keyIndex: number,
  store: boolean,
  fixedKind: RangeKind | null,
  fixedReverse: boolean | null,
): { request: RangeRequest; withScores: boolean } | ReplyError {
  let kind = fixedKind
  let reverse = fixedReverse
  let withScores = false
  let offset = 0
  let limit = -1
  for (let j = keyIndex + 3; j < argv.length; j++) {
    const option = argv[j].toLowerCase()
    const left = argv.length - j - 1
    if (!store && option === 'withscores') withScores = true
    else if (option === 'limit' && left >= 2) {
      const parsedOffset = readInteger(argv[j + 1])
      const parsedLimit = readInteger(argv[j + 2])
      if (parsedOffset === null || parsedLimit === null) return NOT_INTEGER
      offset = parsedOffset
      limit = parsedLimit
      j += 2
    } else if (fixedReverse === null && reverse === null && option === 'rev') reverse = true
    else if (fixedKind === null && kind === null && option === 'bylex') kind = 'lex'
    else if (fixedKind === null && kind === null && option === 'byscore') kind = 'score'
    else return SYNTAX
  }
  kind ??= 'rank'
  reverse ??= false
  if (limit !== -1 && kind === 'rank') return LIMIT_NEEDS_BY
  if (withScores && kind === 'lex') return WITHSCORES_WITH_BYLEX
  // Reverse score and lex ranges are written max first.
  const minText = argv[keyIndex + (reverse && kind !== 'rank' ? 2 : 1)]
  const maxText = argv[keyIndex + (reverse && kind !== 'rank' ? 1 : 2)]
  if (kind === 'rank') {
    const start = readInteger(minText)
    const end = readInteger(maxText)
    if (start === null || end === null) return NOT_INTEGER
    return { request: { kind, reverse, start, end }, withScores }
  }
  if (kind === 'score') {
    const range = parseScoreRange(minText, maxText)
    if (range === null) return SCORE_RANGE_ERROR
    return { request: { kind, reverse, range, offset, limit }, withScores }
  }
  const range = parseLexRange(minText, maxText)
  if (range === null) return LEX_RANGE_ERROR
  return { request: { kind, reverse, range, offset, limit }, withScores }
}

/**
 * Visits the entries a request selects, in reply order. Returns the length hint Redis gives a
 * ZRANGESTORE destination before filling it: the exact count for rank ranges, -1 otherwise.
 * Without `scores` a rank range passes 0 for every score and never reads the scores (on a large
 * set, a cache miss per leaf it walks).
 */
function visitRange(
  zset: ZSetValue,
  request: RangeRequest,
  visit: (member: string, score: number) => void,
  scores = true,
): number {
  const size = zset.size
  if (request.kind === 'rank') {
    let { start, end } = request
    if (start < 0) start += size
    if (end < 0) end += size
    if (start < 0) start = 0
    if (start > end || start >= size) return 0
    if (end >= size) end = size - 1
    const count = end - start + 1
    const cursor = zset.cursorAt(request.reverse ? size - 1 - start : start)
    for (let n = 0; n < count; n++) {
      visit(cursor.member, scores ? cursor.score : 0)
      if (request.reverse) cursor.prev()
      else cursor.next()
    }
    return count
  }
  const { offset, reverse } = request
  // An offset past the end, or a negative one (Redis's skip loop then runs off the end), is empty.
  if (offset < 0 || (offset > 0 && offset >= size)) return -1
  let rank: number
  let inRange: (member: string, score: number) => boolean
  if (request.kind === 'score') {
    const range = request.range
    rank = reverse ? lastInScoreRange(zset, range) : firstInScoreRange(zset, range)
    inRange = reverse ? (_, score) => scoreGteMin(score, range) : (_, score) => scoreLteMax(score, range)
  } else {
    const range = request.range
    rank = reverse ? lastInLexRange(zset, range) : firstInLexRange(zset, range)
    inRange = reverse ? (member) => lexGteMin(member, range) : (member) => lexLteMax(member, range)
  }
  if (rank === -1) return -1
  rank += reverse ? -offset : offset
  if (rank < 0 || rank >= size) return -1
  // A negative count means no limit.
  let remaining = request.limit < 0 ? Infinity : request.limit
  for (const cursor = zset.cursorAt(rank); cursor.valid && remaining > 0; remaining--) {
    if (!inRange(cursor.member, cursor.score)) break
    visit(cursor.member, cursor.score)
    if (reverse) cursor.prev()
    else cursor.next()
  }
  return -1
}

function rangeGeneric(ctx: CommandContext, argv: readonly string[], kind: RangeKind | null, reverse: boolean | null): Out {
  const parsed = parseRangeRequest(argv, 1, false, kind, reverse)
  if (parsed instanceof ReplyError) return parsed
  const zset = readZSet(ctx, argv[1])
  if (zset instanceof ReplyError) return zset
  if (zset === undefined) return []
  // A rank range's size is known before it is walked: checked against the engine's reply
  // limits first; score and lex ranges are charged once walked (reply-budget.ts).
  const width = parsed.withScores ? 2 : 1
  if (parsed.request.kind === 'rank') {
    const tooLarge = checkElements(ctx, rankRangeLength(parsed.request.start, parsed.request.end, zset.size) * width)
    if (tooLarge !== null) return tooLarge
  }
  const reply: string[] = []
  if (parsed.withScores) visitRange(zset, parsed.request, (member, score) => reply.push(member, formatScore(score)))
  else visitRange(zset, parsed.request, (member) => reply.push(member), false)
  return chargedReply(ctx, reply)
}

/** Members of the rank range `start..end` (negative: from the end) of a set of `size`. */
function rankRangeLength(start: number, end: number, size: number): number {
  if (start < 0) start += size
  if (end < 0) end += size
  if (start < 0) start = 0
  if (start > end || start >= size) return 0
  return Math.min(end, size - 1) - start + 1
}

/**
 * `ZRANGESTORE dst src min max [BYSCORE|BYLEX] [REV] [LIMIT offset count]`. The destination is
 * filled the way Redis fills it, entry by entry in reply order from a listpack (a skip list when
 * a rank range is known to exceed the listpack limit), so its encoding, and whether a `-0`
 * score survives, come out as in Redis.
 */
function zrangestore(ctx: CommandContext, argv: readonly string[]): Out {
  const parsed = parseRangeRequest(argv, 2, true, null, null)
  if (parsed instanceof ReplyError) return parsed
  const zset = readZSet(ctx, argv[2])
  if (zset instanceof ReplyError) return zset
  if (zset === undefined) return storeResult(ctx, argv[1], new ZSetValue(), 'zrangestore')
  const entries: [string, number][] = []
  const hint = visitRange(zset, parsed.request, (member, score) => entries.push([member, score]))
  const limits = zsetLimits(ctx)
  const result = new ZSetValue(hint > limits.entries ? 'skiplist' : 'listpack')
  for (const [member, score] of entries) result.add(member, score, limits)
  return storeResult(ctx, argv[1], result, 'zrangestore')
}

// ---- ZCOUNT, ZLEXCOUNT ----

function zcount(ctx: CommandContext, argv: readonly string[]): Out {
  const range = parseScoreRange(argv[2], argv[3])
  if (range === null) return SCORE_RANGE_ERROR
  const zset = readZSet(ctx, argv[1])
  if (zset instanceof ReplyError) return zset
  if (zset === undefined) return 0
  const first = firstInScoreRange(zset, range)
  if (first === -1) return 0
  return lastInScoreRange(zset, range) - first + 1
}

/**
 * `ZLEXCOUNT key min max`. A listpack counts the run that starts at the first entry in range;
 * a skip list subtracts ranks (`zslGetRank` of the first and the last entry in range). Both agree
 * whenever the members all have the same score, which lex ranges assume.
 */
function zlexcount(ctx: CommandContext, argv: readonly string[]): Out {
  const range = parseLexRange(argv[2], argv[3])
  if (range === null) return LEX_RANGE_ERROR
  const zset = readZSet(ctx, argv[1])
  if (zset instanceof ReplyError) return zset
  if (zset === undefined) return 0
  const first = firstInLexRange(zset, range)
  if (first === -1) return 0
  if (zset.encoding === 'listpack') {
    let count = 0
    for (const cursor = zset.cursorAt(first); cursor.valid && lexLteMax(cursor.member, range); cursor.next()) count++
    return count
  }
  const last = lastInLexRange(zset, range)
  return last === -1 ? zset.size - first : last - first + 1
}

// ---- ZREMRANGEBYRANK, ZREMRANGEBYSCORE, ZREMRANGEBYLEX ----

/** Removes the given members (collected first: the tree must not change under a cursor). */
function removeMembers(ctx: CommandContext, key: string, zset: ZSetValue, members: readonly string[]): number {
  for (const member of members) zset.delete(member)
  if (members.length > 0) notify(ctx, NOTIFY_ZSET, ctx.name, key)
  deleteIfEmpty(ctx, key, zset)
  return members.length
}

/** The members from rank `from` on while `inRange` holds. */
function runFrom(zset: ZSetValue, from: number, inRange: (member: string, score: number) => boolean): string[] {
  const members: string[] = []
  for (const cursor = zset.cursorAt(from); cursor.valid && inRange(cursor.member, cursor.score); cursor.next()) members.push(cursor.member)
  return members
}

function zremrangebyrank(ctx: CommandContext, argv: readonly string[]): Out {
  let start = readInteger(argv[2])
  let end = readInteger(argv[3])
  if (start === null || end === null) return NOT_INTEGER
  const zset = readZSet(ctx, argv[1])
  if (zset instanceof ReplyError) return zset
  if (zset === undefined) return 0
  const size = zset.size
  if (start < 0) start += size
  if (end < 0) end += size
  if (start < 0) start = 0
  if (start > end || start >= size) return 0
  if (end >= size) end = size - 1
  const members: string[] = []
  const cursor = zset.cursorAt(start)
  for (let rank = start; rank <= end; rank++, cursor.next()) members.push(cursor.member)
  return removeMembers(ctx, argv[1], zset, members)
}

function zremrangebyscore(ctx: CommandContext, argv: readonly string[]): Out {
  const range = parseScoreRange(argv[2], argv[3])
  if (range === null) return SCORE_RANGE_ERROR
  const zset = readZSet(ctx, argv[1])
  if (zset instanceof ReplyError) return zset
  if (zset === undefined) return 0
  const first = firstInScoreRange(zset, range)
  if (first === -1) return 0
  return removeMembers(ctx, argv[1], zset, runFrom(zset, first, (_, score) => scoreLteMax(score, range)))
}

/**
 * `ZREMRANGEBYLEX key min max`: a listpack deletes the run from its first entry in range
 * (`zzlDeleteRangeByLex`); a skip list descends to the first member at or above min without
 * the range checks and deletes while members stay at or below max (`zslDeleteRangeByLex`).
 */
function zremrangebylex(ctx: CommandContext, argv: readonly string[]): Out {
  const range = parseLexRange(argv[2], argv[3])
  if (range === null) return LEX_RANGE_ERROR
  const zset = readZSet(ctx, argv[1])
  if (zset instanceof ReplyError) return zset
  if (zset === undefined) return 0
  const first = zset.encoding === 'listpack' ? firstInLexRange(zset, range) : zset.countBefore((_, member) => lexGteMin(member, range))
  if (first === -1) return 0
  return removeMembers(ctx, argv[1], zset, runFrom(zset, first, (member) => lexLteMax(member, range)))
}

/** `ZRANGE key start stop [BYSCORE|BYLEX] [REV] [LIMIT offset count] [WITHSCORES]` */
function zrange(ctx: CommandContext, argv: readonly string[]): Out {
  return rangeGeneric(ctx, argv, null, null)
}

function zrevrange(ctx: CommandContext, argv: readonly string[]): Out {
  return rangeGeneric(ctx, argv, 'rank', true)
}

function zrangebyscore(ctx: CommandContext, argv: readonly string[]): Out {
  return rangeGeneric(ctx, argv, 'score', false)
}

function zrevrangebyscore(ctx: CommandContext, argv: readonly string[]): Out {
  return rangeGeneric(ctx, argv, 'score', true)
}

function zrangebylex(ctx: CommandContext, argv: readonly string[]): Out {
  return rangeGeneric(ctx, argv, 'lex', false)
}

function zrevrangebylex(ctx: CommandContext, argv: readonly string[]): Out {
  return rangeGeneric(ctx, argv, 'lex', true)
}

export const rangeCommands = {
  zrange,
  zrevrange,
  zrangebyscore,
  zrevrangebyscore,
  zrangebylex,
  zrevrangebylex,
  zrangestore,
  zcount,
  zlexcount,
  zremrangebyrank,
  zremrangebyscore,
  zremrangebylex,
}
