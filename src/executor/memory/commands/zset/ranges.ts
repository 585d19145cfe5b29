import { ReplyError } from '../../../../reply.js'
import type { ZSetValue } from '../../types/zset.js'
import { readRangeScore } from './score.js'

/**
 * Score and lex ranges (`zrangespec`, `zlexrangespec` in t_zset.c): parsing, membership tests,
 * and where a range starts and ends in a sorted set.
 */

export const SCORE_RANGE_ERROR = new ReplyError('ERR min or max is not a float')
export const LEX_RANGE_ERROR = new ReplyError('ERR min or max not valid string range item')

// ---- score ranges ----

export interface ScoreRange {
  readonly min: number
  readonly max: number
  readonly minExclusive: boolean
  readonly maxExclusive: boolean
}

/** `zslParseRange`: each bound a float, `(` making it exclusive; null when either is unreadable. */
export function parseScoreRange(minText: string, maxText: string): ScoreRange | null {
  const minExclusive = minText.charCodeAt(0) === 40 /* ( */
  const maxExclusive = maxText.charCodeAt(0) === 40
  const min = readRangeScore(minExclusive ? minText.slice(1) : minText)
  const max = readRangeScore(maxExclusive ? maxText.slice(1) : maxText)
  if (min === null || max === null) return null
  return { min, max, minExclusive, maxExclusive }
}

export function scoreGteMin(score: number, range: ScoreRange): boolean {
  return range.minExclusive ? score > range.min : score >= range.min
}

export function scoreLteMax(score: number, range: ScoreRange): boolean {
  return range.maxExclusive ? score < range.max : score <= range.max
}

function isEmptyScoreRange(range: ScoreRange): boolean {
  return range.min > range.max || (range.min === range.max && (range.minExclusive || range.maxExclusive))
}

/** Rank of the first entry within `range`, or -1 (`zslFirstInRange`). */
export function firstInScoreRange(zset: ZSetValue, range: ScoreRange): number {
  if (zset.size === 0 || isEmptyScoreRange(range)) return -1
  const rank = zset.countBefore((score) => scoreGteMin(score, range))
  if (rank >= zset.size || !scoreLteMax(zset.cursorAt(rank).score, range)) return -1
  return rank
}

/** Rank of the last entry within `range`, or -1 (`zslLastInRange`). */
export function lastInScoreRange(zset: ZSetValue, range: ScoreRange): number {
  if (zset.size === 0 || isEmptyScoreRange(range)) return -1
  const rank = zset.countBefore((score) => !scoreLteMax(score, range)) - 1
  if (rank < 0 || !scoreGteMin(zset.cursorAt(rank).score, range)) return -1
  return rank
}

// ---- lex ranges ----

/**
 * One end of a lex range. `infinity` is -1 for `-` (below every string) and 1 for `+` (above
 * every string), Redis's shared `minstring`/`maxstring`; 0 for a `[value` or `(value` bound.
 */
export interface LexBound {
  readonly value: string
  readonly exclusive: boolean
  readonly infinity: -1 | 0 | 1
}

export interface LexRange {
  readonly min: LexBound
  readonly max: LexBound
}

const MINUS: LexBound = { value: '', exclusive: true, infinity: -1 }
const PLUS: LexBound = { value: '', exclusive: true, infinity: 1 }

/**
 * `zslParseLexRangeItem`: `-`, `+`, `[value` or `(value`. The C code looks at the string up to
 * its NUL byte for the single-character forms, so `+\0x` is still `+`.
 */
function parseLexBound(text: string): LexBound | null {
  switch (text.charCodeAt(0)) {
    case 43 /* + */:
      return text.length === 1 || text.charCodeAt(1) === 0 ? PLUS : null
    case 45 /* - */:
      return text.length === 1 || text.charCodeAt(1) === 0 ? MINUS : null
    case 40 /* ( */:
      return { value: text.slice(1), exclusive: true, infinity: 0 }
    case 91 /* [ */:
      return { value: text.slice(1), exclusive: false, infinity: 0 }
    default:
      return null
  }
}

/** `zslParseLexRange`; null when either bound is malformed. */
export function parseLexRange(minText: string, maxText: string): LexRange | null {
  const min = parseLexBound(minText)
  const max = parseLexBound(maxText)
  return min === null || max === null ? null : { min, max }
}

/** `sdscmplex` between two bounds: the shared infinities equal only themselves. */
function compareBounds(a: LexBound, b: LexBound): number {
  if (a.infinity !== 0 && a.infinity === b.infinity) return 0
  if (a.infinity === -1 || b.infinity === 1) return -1
  if (a.infinity === 1 || b.infinity === -1) return 1
  return a.value < b.value ? -1 : a.value > b.value ? 1 : 0
}

/** `sdscmplex` of a member against a bound. */
function compareToBound(member: string, bound: LexBound): number {
  if (bound.infinity !== 0) return -bound.infinity
  return member < bound.value ? -1 : member > bound.value ? 1 : 0
}

export function lexGteMin(member: string, range: LexRange): boolean {
  const cmp = compareToBound(member, range.min)
  return range.min.exclusive ? cmp > 0 : cmp >= 0
}

export function lexLteMax(member: string, range: LexRange): boolean {
  const cmp = compareToBound(member, range.max)
  return range.max.exclusive ? cmp < 0 : cmp <= 0
}

/** `zslIsInLexRange` / `zzlIsInLexRange`: the range is not empty and overlaps the set's ends. */
function mayHoldLexRange(zset: ZSetValue, range: LexRange): boolean {
  const cmp = compareBounds(range.min, range.max)
  if (cmp > 0 || (cmp === 0 && (range.min.exclusive || range.max.exclusive))) return false
  if (zset.size === 0) return false
  return lexGteMin(zset.cursorAt(zset.size - 1).member, range) && lexLteMax(zset.cursorAt(0).member, range)
}

/**
 * Rank of the entry a lex range starts at, or -1 (`zslFirstInLexRange` / `zzlFirstInLexRange`).
 * Lex ranges assume equal scores; when scores differ (Redis: "unspecified"), a listpack is
 * scanned from its head as Redis scans it, and a skip list is searched like a skip list.
 */
export function firstInLexRange(zset: ZSetValue, range: LexRange): number {
  if (!mayHoldLexRange(zset, range)) return -1
  let rank: number
  if (zset.encoding === 'listpack') {
    rank = 0
    for (const cursor = zset.cursorAt(0); cursor.valid && !lexGteMin(cursor.member, range); cursor.next()) rank++
  } else {
    rank = zset.countBefore((_, member) => lexGteMin(member, range))
  }
  if (rank >= zset.size || !lexLteMax(zset.cursorAt(rank).member, range)) return -1
  return rank
}

/** Rank of the entry a lex range ends at, or -1 (`zslLastInLexRange` / `zzlLastInLexRange`). */
export function lastInLexRange(zset: ZSetValue, range: LexRange): number {
  if (!mayHoldLexRange(zset, range)) return -1
  let rank: number
  if (zset.encoding === 'listpack') {
    rank = zset.size - 1
    for (const cursor = zset.cursorAt(rank); cursor.valid && !lexLteMax(cursor.member, range); cursor.prev()) rank--
  } else {
    rank = zset.countBefore((_, member) => !lexLteMax(member, range)) - 1
  }
  if (rank < 0 || !lexGteMin(zset.cursorAt(rank).member, range)) return -1
  return rank
}
