import type { Command } from '../../src/reply.js'
import { Random } from './generator.js'
import type { DiffCase } from './harness.js'

/**
 * Seeded random sorted-set sequences (mulberry32, fixed seeds) for the differential suite: scores
 * drawn from a small pool so that equal scores, ±inf, -0 and fractions meet, then every read,
 * range, store and removal command with random bounds.
 *
 * Keys: `s1`, `s2` stay small (listpacks: ZSCAN is compared exactly, and lex ranges over their
 * mixed scores follow Redis's listpack scan); `big` starts with 300 members (a skip list: no ZSCAN
 * and no lex ranges, since a skip list answers lex ranges over mixed scores by its random
 * levels); `lex` holds only score-0 members; stores write `dst`, which only score and rank
 * commands read.
 * Every reply is deterministic, so nothing is relaxed.
 */

const SCORES = ['0', '1', '2', '-1', '3', '1.5', '-2.5', '0.1', '1e-5', '-0', 'inf', '-inf', '+inf', '2', '1', '7']
const MEMBERS = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', '', '0', '10', 'zz']
const SCORE_BOUNDS = ['-inf', '+inf', '0', '1', '(1', '2', '(2', '-1', '(-1', '1.5', '(0', '3', 'inf', '(inf', '-0']
const LEX_BOUNDS = ['-', '+', '[a', '(a', '[c', '(c', '[d', '(e', '[zz', '[', '(', '[b', '(g']
const INDEXES = ['0', '1', '2', '-1', '-2', '3', '5', '-5', '10', '100', '-100']
const SMALL_KEYS = ['s1', 's2']
const ALL_KEYS = ['s1', 's2', 'big', 'lex', 'dst', 'none']

function commandFor(random: Random): Command {
  const pick = <T>(items: readonly T[]): T => random.pick(items)
  const smallKey = () => pick(SMALL_KEYS)
  const anyKey = () => pick(ALL_KEYS)
  const scoreKey = () => pick(['s1', 's2', 'big', 'none'])
  const lexKey = () => (random.chance(0.6) ? 'lex' : smallKey())
  const member = () => pick(MEMBERS)
  const pairs = (n: number) => Array.from({ length: n }, () => [pick(SCORES), member()]).flat()
  const keys = (max: number) => Array.from({ length: random.int(1, max) }, anyKey)
  const flag = (probability: number, ...option: string[]) => (random.chance(probability) ? option : [])
  switch (random.int(0, 27)) {
    case 0:
    case 1:
      return ['ZADD', smallKey(), ...flag(0.2, pick(['NX', 'XX'])), ...flag(0.2, pick(['GT', 'LT'])), ...flag(0.3, 'CH'), ...pairs(random.int(1, 4))]
    case 2:
      return ['ZADD', smallKey(), 'INCR', pick(SCORES), member()]
    case 3:
      return ['ZADD', 'lex', ...Array.from({ length: random.int(1, 3) }, () => ['0', member() + pick(['', 'x', '1'])]).flat()]
    case 4:
      return ['ZINCRBY', pick(['s1', 's2', 'big']), pick(SCORES), random.chance(0.5) ? member() : `m${random.int(0, 299)}`]
    case 5:
      return ['ZREM', anyKey(), member(), member()]
    case 6:
      return ['ZSCORE', anyKey(), member()]
    case 7:
      return ['ZMSCORE', anyKey(), member(), `m${random.int(0, 299)}`, member()]
    case 8:
      return [pick(['ZRANK', 'ZREVRANK']), anyKey(), random.chance(0.5) ? member() : `m${random.int(0, 299)}`]
    case 9:
      return ['ZCOUNT', scoreKey(), pick(SCORE_BOUNDS), pick(SCORE_BOUNDS)]
    case 10:
      return ['ZLEXCOUNT', lexKey(), pick(LEX_BOUNDS), pick(LEX_BOUNDS)]
    case 11:
    case 12:
      return ['ZRANGE', anyKey(), pick(INDEXES), pick(INDEXES), ...flag(0.3, 'REV'), ...flag(0.5, 'WITHSCORES')]
    case 13:
    case 14:
      return [
        'ZRANGE', scoreKey(), pick(SCORE_BOUNDS), pick(SCORE_BOUNDS), 'BYSCORE', ...flag(0.4, 'REV'),
        ...flag(0.4, 'LIMIT', pick(['0', '1', '2', '-1']), pick(['1', '2', '-1', '0', '5'])), ...flag(0.5, 'WITHSCORES'),
      ]
    case 15:
      return ['ZRANGE', lexKey(), pick(LEX_BOUNDS), pick(LEX_BOUNDS), 'BYLEX', ...flag(0.4, 'REV'), ...flag(0.4, 'LIMIT', pick(['0', '1', '3']), pick(['1', '2', '-1']))]
    case 16:
      return [pick(['ZRANGEBYSCORE', 'ZREVRANGEBYSCORE']), scoreKey(), pick(SCORE_BOUNDS), pick(SCORE_BOUNDS), ...flag(0.5, 'WITHSCORES')]
    case 17:
      return [pick(['ZRANGEBYLEX', 'ZREVRANGEBYLEX']), lexKey(), pick(LEX_BOUNDS), pick(LEX_BOUNDS), ...flag(0.3, 'LIMIT', '1', '2')]
    case 18:
      return random.chance(0.5)
        ? ['ZRANGESTORE', 'dst', anyKey(), pick(INDEXES), pick(INDEXES), ...flag(0.3, 'REV')]
        : ['ZRANGESTORE', 'dst', scoreKey(), pick(SCORE_BOUNDS), pick(SCORE_BOUNDS), 'BYSCORE', ...flag(0.3, 'LIMIT', '0', '3')]
    case 19:
      return ['ZREMRANGEBYRANK', anyKey(), pick(INDEXES), pick(INDEXES)]
    case 20:
      return ['ZREMRANGEBYSCORE', scoreKey(), pick(SCORE_BOUNDS), pick(SCORE_BOUNDS)]
    case 21:
      return ['ZREMRANGEBYLEX', lexKey(), pick(LEX_BOUNDS), pick(LEX_BOUNDS)]
    case 22:
      return [pick(['ZPOPMIN', 'ZPOPMAX']), anyKey(), ...flag(0.6, pick(['0', '1', '2', '5']))]
    case 23: {
      const chosen = keys(3)
      return ['ZMPOP', String(chosen.length), ...chosen, pick(['MIN', 'MAX']), ...flag(0.5, 'COUNT', pick(['1', '2', '20']))]
    }
    case 24: {
      const chosen = keys(3)
      const operation = pick(['ZUNION', 'ZINTER', 'ZDIFF'])
      const weighted = operation !== 'ZDIFF'
      return [
        operation, String(chosen.length), ...chosen,
        ...(weighted ? flag(0.4, 'WEIGHTS', ...chosen.map(() => pick(['1', '2', '-1', '0', '0.5', 'inf']))) : []),
        ...(weighted ? flag(0.4, 'AGGREGATE', pick(['SUM', 'MIN', 'MAX'])) : []),
        ...flag(0.6, 'WITHSCORES'),
      ]
    }
    case 25: {
      const chosen = keys(3)
      const operation = pick(['ZUNIONSTORE', 'ZINTERSTORE', 'ZDIFFSTORE'])
      return [operation, 'dst', String(chosen.length), ...chosen, ...(operation === 'ZUNIONSTORE' ? flag(0.4, 'AGGREGATE', pick(['MIN', 'MAX'])) : [])]
    }
    case 26: {
      const chosen = keys(3)
      return ['ZINTERCARD', String(chosen.length), ...chosen, ...flag(0.4, 'LIMIT', pick(['0', '1', '2']))]
    }
    default:
      return random.chance(0.5) ? ['ZSCAN', smallKey(), '0', ...flag(0.3, 'MATCH', pick(['*', '[a-c]', '1*']))] : ['ZRANDMEMBER', anyKey(), pick(['1000', '0']), ...flag(0.5, 'WITHSCORES')]
  }
}

/** One sequence: `big` filled, then `length` random commands. */
function sequence(seed: number, length: number): Command[] {
  const random = new Random(seed)
  const commands: Command[] = [['ZADD', 'big', ...Array.from({ length: 300 }, (_, i) => [SCORES[i % SCORES.length], `m${i}`]).flat()]]
  for (let i = 0; i < length; i++) commands.push(commandFor(random))
  // The small keys stay listpacks (at most 12 members), and so exactly comparable by ZSCAN.
  commands.push(['OBJECT', 'ENCODING', 's1'], ['OBJECT', 'ENCODING', 'big'], ['ZRANGE', 'big', '0', '-1', 'WITHSCORES'])
  return commands
}

export const zsetSequenceCases: DiffCase[] = Array.from({ length: 60 }, (_, i) => ({
  name: `seeded sorted-set sequence ${i + 1} (seed ${1000 + i})`,
  commands: sequence(1000 + i, 80),
}))
