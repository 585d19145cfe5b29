import { ReplyError } from '../../../../reply.js'
import type { CommandContext, Out } from '../../command.js'
import { NOT_INTEGER, SYNTAX, WRONGTYPE } from '../../errors.js'
import { readInteger } from '../../lib/numbers.js'
import { compareEntries } from '../../types/ranked-tree.js'
import { SetValue } from '../../types/set.js'
import { ZSetValue } from '../../types/zset.js'
import { storeResult, zsetLimits } from './access.js'
import { formatScore, readScore } from './score.js'

/**
 * ZUNION, ZINTER, ZDIFF, their *STORE forms and ZINTERCARD (`zunionInterDiffGenericCommand` in
 * Redis 7.0's t_zset.c). Plain sets are accepted as inputs, every member scoring 1.
 *
 * Floating-point sums depend on the order of their terms, so the inputs are combined in Redis's
 * order: sorted by size (a stable sort, as glibc's qsort is) for union and intersection, and a
 * weighted score that is NaN (0 × inf) counts as 0, as does a sum of +inf and -inf.
 */

const WEIGHT_NOT_FLOAT = new ReplyError('ERR weight value is not a float')
const LIMIT_NEGATIVE = new ReplyError("ERR LIMIT can't be negative")

type Operation = 'union' | 'inter' | 'diff'
type Aggregate = 'sum' | 'min' | 'max'

/** One input: a sorted set, a set (scores 1) or a missing key (empty), with its weight. */
interface Source {
  readonly value: ZSetValue | SetValue | undefined
  weight: number
}

interface SetOperation {
  readonly sources: Source[]
  readonly aggregate: Aggregate
  readonly withScores: boolean
  /** ZINTERCARD LIMIT: stop counting there; 0 is no limit. */
  readonly limit: number
}

function sizeOf(source: Source): number {
  return source.value?.size ?? 0
}

/** The score of `member` in `source` (1 in a plain set), or undefined. */
function scoreIn(source: Source, member: string): number | undefined {
  const value = source.value
  if (value instanceof ZSetValue) return value.score(member)
  return value?.has(member) ? 1 : undefined
}

/** Calls `visit` with every member of `source` and its score. */
function forEachEntry(source: Source, visit: (member: string, score: number) => void): void {
  const value = source.value
  if (value instanceof ZSetValue) value.forEach(visit)
  else value?.forEach((member) => visit(member, 1))
}

/** `zunionInterAggregate` */
function aggregate(target: number, value: number, how: Aggregate): number {
  if (how === 'sum') {
    const sum = target + value
    // inf + -inf is NaN in IEEE arithmetic; Redis's convention is 0.
    return Number.isNaN(sum) ? 0 : sum
  }
  if (how === 'min') return value < target ? value : target
  return value > target ? value : target
}

/**
 * Parses `numkeys key [key ...]` from `argv[numKeysIndex]` and the options after the keys. Keys
 * are looked up (and type-checked) before the options are read, as Redis does.
 */
function parseSetOperation(
  ctx: CommandContext,
  argv: readonly string[],
  numKeysIndex: number,
  operation: Operation,
  store: boolean,
  cardinalityOnly: boolean,
): SetOperation | ReplyError {
  const numKeys = readInteger(argv[numKeysIndex])
  if (numKeys === null) return NOT_INTEGER
  if (numKeys < 1) return new ReplyError(`ERR at least 1 input key is needed for '${ctx.name}' command`)
  if (numKeys > argv.length - numKeysIndex - 1) return SYNTAX
  const sources: Source[] = []
  let j = numKeysIndex + 1
  for (let i = 0; i < numKeys; i++, j++) {
    const value = ctx.db.read(argv[j], ctx)
    if (value !== undefined && !(value instanceof ZSetValue) && !(value instanceof SetValue)) return WRONGTYPE
    sources.push({ value, weight: 1 })
  }
  let how: Aggregate = 'sum'
  let withScores = false
  let limit = 0
  while (j < argv.length) {
    const option = argv[j].toLowerCase()
    const remaining = argv.length - j
    const weighted = operation !== 'diff' && !cardinalityOnly
    if (weighted && option === 'weights' && remaining >= numKeys + 1) {
      j++
      for (const source of sources) {
        const weight = readScore(argv[j++])
        if (weight === null) return WEIGHT_NOT_FLOAT
        source.weight = weight
      }
    } else if (weighted && option === 'aggregate' && remaining >= 2) {
      const name = argv[j + 1].toLowerCase()
      if (name !== 'sum' && name !== 'min' && name !== 'max') return SYNTAX
      how = name
      j += 2
    } else if (!store && !cardinalityOnly && option === 'withscores') {
      withScores = true
      j++
    } else if (cardinalityOnly && option === 'limit' && remaining >= 2) {
      const value = readInteger(argv[j + 1])
      if (value === null || value < 0) return LIMIT_NEGATIVE
      limit = value
      j += 2
    } else {
      return SYNTAX
    }
  }
  return { sources, aggregate: how, withScores, limit }
}

/** Union, intersection or difference as member → score; `limit` stops an intersection early. */
function combine(operation: Operation, { sources, aggregate: how }: SetOperation, limit = 0): Map<string, number> {
  const result = new Map<string, number>()
  if (operation === 'diff') {
    const [first, ...others] = sources
    forEachEntry(first, (member, score) => {
      if (!others.some((source) => scoreIn(source, member) !== undefined)) result.set(member, score)
    })
    return result
  }
  const ordered = sources.slice().sort((a, b) => sizeOf(a) - sizeOf(b))
  if (operation === 'union') {
    for (const source of ordered) {
      forEachEntry(source, (member, score) => {
        let weighted = source.weight * score
        if (Number.isNaN(weighted)) weighted = 0
        const existing = result.get(member)
        result.set(member, existing === undefined ? weighted : aggregate(existing, weighted, how))
      })
    }
    return result
  }
  const [smallest, ...others] = ordered
  if (sizeOf(smallest) === 0) return result
  forEachEntry(smallest, (member, score) => {
    if (limit > 0 && result.size >= limit) return
    let total = smallest.weight * score
    if (Number.isNaN(total)) total = 0
    for (const other of others) {
      const found = scoreIn(other, member)
      if (found === undefined) return
      total = aggregate(total, found * other.weight, how)
    }
    result.set(member, total)
  })
  return result
}

/** ZUNION / ZINTER / ZDIFF: the result in score order, with scores when asked. */
function replyGeneric(ctx: CommandContext, argv: readonly string[], operation: Operation): Out {
  const parsed = parseSetOperation(ctx, argv, 1, operation, false, false)
  if (parsed instanceof ReplyError) return parsed
  const entries = [...combine(operation, parsed)].sort((a, b) => compareEntries(a[1], a[0], b[1], b[0]))
  const reply: string[] = []
  for (const [member, score] of entries) {
    reply.push(member)
    if (parsed.withScores) reply.push(formatScore(score))
  }
  return reply
}

/** ZUNIONSTORE / ZINTERSTORE / ZDIFFSTORE `destination numkeys key …`: the result's size. */
function storeGeneric(ctx: CommandContext, argv: readonly string[], operation: Operation): Out {
  const parsed = parseSetOperation(ctx, argv, 2, operation, true, false)
  if (parsed instanceof ReplyError) return parsed
  return storeResult(ctx, argv[1], ZSetValue.fromResult(combine(operation, parsed), zsetLimits(ctx)), ctx.name)
}

function zunion(ctx: CommandContext, argv: readonly string[]): Out {
  return replyGeneric(ctx, argv, 'union')
}

function zinter(ctx: CommandContext, argv: readonly string[]): Out {
  return replyGeneric(ctx, argv, 'inter')
}

function zdiff(ctx: CommandContext, argv: readonly string[]): Out {
  return replyGeneric(ctx, argv, 'diff')
}

function zunionstore(ctx: CommandContext, argv: readonly string[]): Out {
  return storeGeneric(ctx, argv, 'union')
}

function zinterstore(ctx: CommandContext, argv: readonly string[]): Out {
  return storeGeneric(ctx, argv, 'inter')
}

function zdiffstore(ctx: CommandContext, argv: readonly string[]): Out {
  return storeGeneric(ctx, argv, 'diff')
}

/** `ZINTERCARD numkeys key [key ...] [LIMIT limit]` */
function zintercard(ctx: CommandContext, argv: readonly string[]): Out {
  const parsed = parseSetOperation(ctx, argv, 1, 'inter', false, true)
  if (parsed instanceof ReplyError) return parsed
  return combine('inter', parsed, parsed.limit).size
}

export const setOperationCommands = { zunion, zinter, zdiff, zunionstore, zinterstore, zdiffstore, zintercard }
