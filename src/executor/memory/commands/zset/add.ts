import { ReplyError } from '../../../../reply.js'
import { NOTIFY_ZSET, notify } from '../../notify.js'
import type { CommandContext, Out } from '../../command.js'
import { NOT_FLOAT, SYNTAX } from '../../errors.js'
import { ZSetValue } from '../../types/zset.js'
import { readZSet, zsetLimits } from './access.js'
import { formatScore, readScore } from './score.js'

/** ZADD and ZINCRBY (`zaddGenericCommand`, `zsetAdd` in t_zset.c); GEOADD ends up here too. */

const XX_AND_NX = new ReplyError('ERR XX and NX options at the same time are not compatible')
const GT_LT_NX = new ReplyError('ERR GT, LT, and/or NX options at the same time are not compatible')
const INCR_SINGLE_PAIR = new ReplyError('ERR INCR option supports a single increment-element pair')
const NAN_SCORE = new ReplyError('ERR resulting score is not a number (NaN)')

interface AddFlags {
  nx: boolean
  xx: boolean
  gt: boolean
  lt: boolean
  ch: boolean
  incr: boolean
}

/**
 * `ZADD key [NX|XX] [GT|LT] [CH] [INCR] score member [score member ...]`.
 * ZINCRBY is the same command with INCR set, and so also reads options (`ZINCRBY k nx m` is a
 * syntax error, not an increment "nx"). Every check and every score is read before the set is
 * touched, so the command applies fully or not at all.
 */
export function zaddGeneric(ctx: CommandContext, argv: readonly string[], incr: boolean): Out {
  const key = argv[1]
  const flags: AddFlags = { nx: false, xx: false, gt: false, lt: false, ch: false, incr }
  let scoreIndex = 2
  for (; scoreIndex < argv.length; scoreIndex++) {
    // Every option starts with a letter; a score usually starts with a digit or a sign.
    if (argv[scoreIndex].charCodeAt(0) < 65) break
    const option = argv[scoreIndex].toLowerCase()
    if (option === 'nx') flags.nx = true
    else if (option === 'xx') flags.xx = true
    else if (option === 'ch') flags.ch = true
    else if (option === 'incr') flags.incr = true
    else if (option === 'gt') flags.gt = true
    else if (option === 'lt') flags.lt = true
    else break
  }
  const pairArgs = argv.length - scoreIndex
  if (pairArgs % 2 !== 0 || pairArgs === 0) return SYNTAX
  const pairs = pairArgs / 2
  if (flags.nx && flags.xx) return XX_AND_NX
  if ((flags.gt && flags.nx) || (flags.lt && flags.nx) || (flags.gt && flags.lt)) return GT_LT_NX
  if (flags.incr && pairs > 1) return INCR_SINGLE_PAIR
  const scores: number[] = []
  for (let j = 0; j < pairs; j++) {
    const score = readScore(argv[scoreIndex + j * 2])
    if (score === null) return NOT_FLOAT
    scores.push(score)
  }

  let zset = readZSet(ctx, key)
  if (zset instanceof ReplyError) return zset
  let added = 0
  let updated = 0
  let processed = 0
  let lastScore = 0
  if (zset === undefined && !flags.xx) ctx.db.set(key, (zset = new ZSetValue()))
  if (zset !== undefined) {
    const limits = zsetLimits(ctx)
    for (let j = 0; j < pairs; j++) {
      const member = argv[scoreIndex + 1 + j * 2]
      let score = scores[j]
      const current = zset.score(member)
      if (current === undefined) {
        if (flags.xx) continue
        zset.add(member, score, limits)
        added++
      } else {
        if (flags.nx) continue
        if (flags.incr) {
          score += current
          if (Number.isNaN(score)) {
            if (added + updated > 0) notify(ctx, NOTIFY_ZSET, 'zincr', key)
            return NAN_SCORE
          }
        }
        // GT/LT: only a strictly greater / smaller score updates.
        if ((flags.lt && score >= current) || (flags.gt && score <= current)) continue
        // `score != curscore` in C: -0 and 0 are the same score, so nothing moves.
        if (score !== current) {
          zset.move(member, score, current)
          updated++
        }
      }
      processed++
      lastScore = score
    }
  }
  if (added + updated > 0) notify(ctx, NOTIFY_ZSET, flags.incr ? 'zincr' : 'zadd', key)
  if (flags.incr) return processed > 0 ? formatScore(lastScore) : null
  return flags.ch ? added + updated : added
}

function zadd(ctx: CommandContext, argv: readonly string[]): Out {
  return zaddGeneric(ctx, argv, false)
}

/** `ZINCRBY key increment member` */
function zincrby(ctx: CommandContext, argv: readonly string[]): Out {
  return zaddGeneric(ctx, argv, true)
}

export const addCommands = { zadd, zincrby }
