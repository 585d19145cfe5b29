import { afterEach, describe, expect, test } from 'vitest'
import type { CommandContext } from '../../../src/executor/memory/command.js'
import { sortedSetCommands } from '../../../src/executor/memory/commands/zset/index.js'
import { formatListpackScore, formatScore, readRangeScore, readScore } from '../../../src/executor/memory/commands/zset/score.js'
import { Engine } from '../../../src/executor/memory/engine.js'
import { MemoryExecutor } from '../../../src/executor/memory/memory-executor.js'
import { RankedTree, compareEntries } from '../../../src/executor/memory/types/ranked-tree.js'
import { ZSetValue } from '../../../src/executor/memory/types/zset.js'
import { NULL_ARRAY, ReplyError, Status, type Reply } from '../../../src/reply.js'
import { Random } from '../../differential/generator.js'

/**
 * What the differential suite cannot compare live: the ranked tree's invariants under random
 * operations, random replies (ZRANDMEMBER), ZSCAN over skip lists (hash-table order in Redis),
 * score formatting on tie cases, the interface SORT uses, ZRANK … WITHSCORE (Redis 7.2), and the
 * blocking forms outside a connection.
 */

type Plain = string | number | null | { error: string } | Plain[]

function plain(reply: Reply): Plain {
  if (reply === null || typeof reply === 'symbol') return null
  if (typeof reply === 'number') return reply
  if (typeof reply === 'bigint') return Number(reply)
  if (reply instanceof ReplyError) return { error: reply.message }
  if (reply instanceof Status) return reply.text
  if (reply instanceof Uint8Array) return Buffer.from(reply).toString('latin1')
  return (reply as readonly Reply[]).map(plain)
}

let executors: MemoryExecutor[] = []

function engine() {
  const executor = new MemoryExecutor({ activeExpiryInterval: 0 })
  executors.push(executor)
  return (...command: string[]): Plain => plain(executor.execSync(command))
}

afterEach(async () => {
  await Promise.all(executors.map((executor) => executor.close()))
  executors = []
})

/** ZADD of `count` members m0… scored by `score`, in batches. */
function fill(run: (...command: string[]) => Plain, key: string, count: number, score: (i: number) => number = (i) => i): void {
  for (let i = 0; i < count; i += 100) {
    const pairs: string[] = []
    for (let j = i; j < Math.min(count, i + 100); j++) pairs.push(String(score(j)), `m${j}`)
    run('ZADD', key, ...pairs)
  }
}

describe('RankedTree', () => {
  test('matches a sorted array under random inserts and deletes', () => {
    const random = new Random(7)
    const tree = new RankedTree()
    const reference: [number, string][] = []
    const present = new Map<string, number>()
    const sortReference = () => reference.sort((a, b) => compareEntries(a[0], a[1], b[0], b[1]))
    for (let step = 0; step < 20000; step++) {
      const member = `k${random.int(0, 3000)}`
      const existing = present.get(member)
      if (existing !== undefined && random.chance(0.5)) {
        expect(tree.delete(existing, member)).toBe(true)
        reference.splice(reference.findIndex(([s, m]) => s === existing && m === member), 1)
        present.delete(member)
      } else if (existing === undefined) {
        const score = random.int(-20, 20) / 2
        tree.insert(score, member)
        reference.push([score, member])
        present.set(member, score)
      }
      if (step % 997 === 0) {
        sortReference()
        expect(tree.size).toBe(reference.length)
        const walked: [number, string][] = []
        tree.forEach((score, member) => walked.push([score, member]))
        expect(walked).toEqual(reference)
        for (let i = 0; i < reference.length; i += 37) {
          const [score, member] = reference[i]
          expect(tree.rankOf(score, member)).toBe(i)
          const cursor = tree.cursorAt(i)
          expect([cursor.score, cursor.member]).toEqual([score, member])
        }
        expect(tree.countBefore((score) => score >= 0)).toBe(reference.filter(([score]) => score < 0).length)
      }
    }
    // Delete everything: the tree collapses back to an empty leaf.
    for (const [member, score] of present) expect(tree.delete(score, member)).toBe(true)
    expect(tree.size).toBe(0)
    expect(tree.first().valid).toBe(false)
    expect(tree.delete(0, 'nope')).toBe(false)
  })

  test('a tree of several levels: every rank, cursor and count agrees with a sorted array', () => {
    const random = new Random(11)
    const tree = new RankedTree()
    const reference: [number, string][] = []
    for (let i = 0; i < 100_000; i++) {
      // Few distinct scores, so descents often compare members too.
      const entry: [number, string] = [random.int(0, 500), `m${random.int(0, 1e9)}:${i}`]
      tree.insert(entry[0], entry[1])
      reference.push(entry)
    }
    reference.sort((a, b) => compareEntries(a[0], a[1], b[0], b[1]))
    const wrong: number[] = []
    for (let i = 0; i < reference.length; i++) {
      const [score, member] = reference[i]
      if (tree.rankOf(score, member) !== i || tree.cursorAt(i).member !== member) wrong.push(i)
    }
    expect(wrong).toEqual([])
    expect(tree.rankOf(reference[0][0], 'absent')).toBe(-1)
    expect(tree.rankOf(reference[0][0] + 0.5, reference[0][1])).toBe(-1)
    for (let threshold = -1; threshold <= 501; threshold += 7) {
      expect(tree.countBefore((score) => score >= threshold)).toBe(reference.filter(([score]) => score < threshold).length)
    }
    // 100,000 entries need more than 64 leaves of at most 64: branches on two levels at least.
    expect(tree.depth).toBeGreaterThanOrEqual(3)
    expect(new RankedTree().depth).toBe(1)
    const back = tree.cursorAt(reference.length - 1)
    for (let i = reference.length - 1; i >= reference.length - 500; i--, back.prev()) expect(back.member).toBe(reference[i][1])
  })

  test('cursors walk both ways across leaves', () => {
    const tree = new RankedTree()
    for (let i = 0; i < 1000; i++) tree.insert(i, `m${i}`)
    const cursor = tree.cursorAt(500)
    for (let i = 500; i < 1000; i++, cursor.next()) expect(cursor.member).toBe(`m${i}`)
    expect(cursor.valid).toBe(false)
    const back = tree.last()
    for (let i = 999; i >= 0; i--, back.prev()) expect(back.score).toBe(i)
    expect(back.valid).toBe(false)
    expect(tree.cursorAt(1000).valid).toBe(false)
    expect(tree.cursorAt(-1).valid).toBe(false)
  })
})

describe('score formatting (Redis 7.0 RESP2: %.17g)', () => {
  test('glibc rounds exact ties to even; integers, exponents and infinities as Redis writes them', () => {
    expect(formatScore(1.1)).toBe('1.1000000000000001')
    expect(formatScore(0.500003814697265625)).toBe('0.50000381469726562')
    expect(formatScore(0.500003814697265625 + 2 ** -18)).toBe('0.50000762939453125')
    expect(formatScore(123456789012345678)).toBe('1.2345678901234568e+17')
    expect(formatScore(1e16)).toBe('10000000000000000')
    // Integers between 2^53 and 1e17 keep all their digits (String() would end them in 0).
    expect(formatScore(20266198323167232)).toBe('20266198323167232')
    expect(formatScore(-99999999999999984)).toBe('-99999999999999984')
    expect(formatScore(2 ** 53 + 2)).toBe('9007199254740994')
    expect(formatScore(1e17)).toBe('1e+17')
    expect(formatScore(1e-5)).toBe('1.0000000000000001e-05')
    expect(formatScore(0.0001)).toBe('0.0001')
    expect(formatScore(-0)).toBe('-0')
    expect(formatScore(Infinity)).toBe('inf')
    expect(formatScore(-Infinity)).toBe('-inf')
    expect(formatScore(5e-324)).toBe('4.9406564584124654e-324')
  })

  test('a listpack stores integral scores within ±2^62 as integers', () => {
    expect(formatListpackScore(123456789012345678)).toBe('123456789012345680')
    expect(formatListpackScore(2 ** 62)).toBe('4611686018427387904')
    expect(formatListpackScore(2 ** 63)).toBe('9.2233720368547758e+18')
    expect(formatListpackScore(1.5)).toBe('1.5')
  })

  test('score parsing: strict for values, strtod for range bounds', () => {
    expect(readScore('1e400')).toBeNull()
    expect(readScore('1e-400')).toBeNull()
    expect(readScore('1e-320')).toBe(1e-320)
    expect(readScore('0x1p-1080')).toBeNull()
    expect(readScore('-inf')).toBe(-Infinity)
    expect(readScore(' 1')).toBeNull()
    expect(readRangeScore(' 1')).toBe(1)
    expect(readRangeScore('')).toBe(0)
    expect(readRangeScore(' ')).toBeNull()
    expect(readRangeScore('1e400')).toBe(Infinity)
    expect(readRangeScore('2\0junk')).toBe(2)
  })
})

describe('ZRANDMEMBER', () => {
  test('a positive count below the size gives distinct members of the set', () => {
    const run = engine()
    fill(run, 'z', 300)
    for (const count of [1, 5, 99, 101, 299]) {
      const picked = run('ZRANDMEMBER', 'z', String(count)) as string[]
      expect(picked).toHaveLength(count)
      expect(new Set(picked).size).toBe(count)
      for (const member of picked) expect(member).toMatch(/^m\d+$/)
    }
  })

  test('a negative count may repeat members; WITHSCORES pairs each with its score', () => {
    const run = engine()
    run('ZADD', 'z', '1.5', 'a', '2', 'b')
    const picked = run('ZRANDMEMBER', 'z', '-50', 'WITHSCORES') as string[]
    expect(picked).toHaveLength(100)
    for (let i = 0; i < picked.length; i += 2) expect(picked[i + 1]).toBe(picked[i] === 'a' ? '1.5' : '2')
    expect(new Set(picked.filter((_, i) => i % 2 === 0)).size).toBe(2)
  })

  test('every member can come up', () => {
    const run = engine()
    fill(run, 'z', 20)
    const seen = new Set<Plain>()
    for (let i = 0; i < 400; i++) seen.add(run('ZRANDMEMBER', 'z'))
    expect(seen.size).toBe(20)
  })
})

describe('ZSCAN of a skip list', () => {
  test('a full iteration returns every member once with its %.17g score', () => {
    const run = engine()
    fill(run, 'z', 500, (i) => i / 10)
    expect(run('OBJECT', 'ENCODING', 'z')).toBe('skiplist')
    const seen = new Map<string, string>()
    let cursor = '0'
    do {
      const [next, items] = run('ZSCAN', 'z', cursor, 'COUNT', '7') as [string, string[]]
      for (let i = 0; i < items.length; i += 2) {
        expect(seen.has(items[i])).toBe(false)
        seen.set(items[i], items[i + 1])
      }
      cursor = next
    } while (cursor !== '0')
    expect(seen.size).toBe(500)
    expect(seen.get('m11')).toBe('1.1000000000000001')
  })

  test('members present for the whole iteration are returned despite writes meanwhile', () => {
    const run = engine()
    fill(run, 'z', 300)
    const seen = new Set<string>()
    let cursor = '0'
    let round = 0
    do {
      const [next, items] = run('ZSCAN', 'z', cursor, 'COUNT', '10', 'MATCH', 'm*') as [string, string[]]
      for (let i = 0; i < items.length; i += 2) seen.add(items[i])
      run('ZADD', 'z', '5', `new${round}`)
      run('ZREM', 'z', `new${round - 3}`)
      round++
      cursor = next
    } while (cursor !== '0')
    for (let i = 0; i < 300; i++) expect(seen.has(`m${i}`)).toBe(true)
  })
})

describe('what SORT and COPY use', () => {
  test('forEach visits members in ascending order; convertToSkiplist keeps the entries', () => {
    const zset = new ZSetValue()
    zset.add('b', 2)
    zset.add('a', 2)
    zset.add('c', -1)
    const visited: [string, number][] = []
    zset.forEach((member, score) => visited.push([member, score]))
    expect(visited).toEqual([['c', -1], ['a', 2], ['b', 2]])
    zset.convertToSkiplist()
    expect(zset.encoding).toBe('skiplist')
    expect(zset.entries()).toEqual(visited)
    const copy = zset.clone()
    copy.add('d', 9)
    expect(copy.encoding).toBe('skiplist')
    expect(zset.has('d')).toBe(false)
  })
})

/** Runs a handler directly, bypassing the 7.0 command table (which gives ZRANK arity 3). */
function handlerRunner() {
  const engine = new Engine({ activeExpiryInterval: 0 })
  const session = engine.createSession()
  return {
    engine,
    call(name: string, ...args: string[]) {
      const ctx: CommandContext = { engine, session, db: engine.databases[0], now: engine.clock(), name }
      return sortedSetCommands[name](ctx, [name, ...args])
    },
  }
}

describe('ZRANK and ZREVRANK WITHSCORE (Redis 7.2, https://redis.io/docs/latest/commands/zrank/)', () => {
  test('the documentation example: rank and score, nil for a missing member', () => {
    const { call, engine } = handlerRunner()
    call('zadd', 'myzset', '1', 'one', '2', 'two', '3', 'three')
    expect(call('zrank', 'myzset', 'three')).toBe(2)
    expect(call('zrank', 'myzset', 'four')).toBeNull()
    expect(call('zrank', 'myzset', 'three', 'WITHSCORE')).toEqual([2, '3'])
    expect(call('zrank', 'myzset', 'four', 'WITHSCORE')).toBe(NULL_ARRAY)
    engine.close()
  })

  test('ZREVRANK WITHSCORE (https://redis.io/docs/latest/commands/zrevrank/) and the argument errors', () => {
    const { call, engine } = handlerRunner()
    call('zadd', 'myzset', '1', 'one', '2', 'two', '3', 'three')
    expect(call('zrevrank', 'myzset', 'one')).toBe(2)
    expect(call('zrevrank', 'myzset', 'one', 'withscore')).toEqual([2, '1'])
    expect(call('zrevrank', 'nokey', 'one', 'WITHSCORE')).toBe(NULL_ARRAY)
    expect(call('zrank', 'myzset', 'one', 'WITHSCORES')).toBeInstanceOf(ReplyError)
    expect((call('zrank', 'myzset', 'one', 'WITHSCORE', 'x') as ReplyError).message).toBe('ERR syntax error')
    engine.close()
  })

  test('through the engine, the 7.0 command table still refuses WITHSCORE as Redis 7.0 does', () => {
    const run = engine()
    run('ZADD', 'z', '1', 'a')
    expect(run('ZRANK', 'z', 'a', 'WITHSCORE')).toEqual({ error: "ERR wrong number of arguments for 'zrank' command" })
  })
})

describe('BZPOPMIN, BZPOPMAX and BZMPOP outside a connection', () => {
  // The gateway refuses blocking commands before they reach an executor (restAvailability, see
  // test/rest/availability.test.ts). A call without a connection session cannot wait: with data
  // they pop as Redis does, without they answer as if timed out (what Redis answers in MULTI).
  test('they pop when there is data and answer the null array at once when there is none', () => {
    const run = engine()
    run('ZADD', 'z', '1', 'a', '2', 'b', '3', 'c')
    expect(run('BZPOPMIN', 'z', '0')).toEqual(['z', 'a', '1'])
    expect(run('bzpopmax', 'none', 'z', '1')).toEqual(['z', 'c', '3'])
    expect(run('BZMPOP', '0', '1', 'z', 'MIN')).toEqual(['z', [['b', '2']]])
    expect(run('BZPOPMIN', 'z', '0')).toBeNull()
    expect(run('BZPOPMIN', 'z')).toEqual({ error: "ERR wrong number of arguments for 'bzpopmin' command" })
    expect(run('BZMPOP', '0', '1', 'z')).toEqual({ error: "ERR wrong number of arguments for 'bzmpop' command" })
    expect(run('BZPOPMIN', 'z', '-1')).toEqual({ error: 'ERR timeout is negative' })
  })
})
