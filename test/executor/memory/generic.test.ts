import { afterEach, describe, expect, test } from 'vitest'
import { CursorTable } from '../../../src/executor/memory/scan-cursor.js'
import { partialSort } from '../../../src/executor/memory/lib/pqsort.js'
import { readSortScore } from '../../../src/executor/memory/commands/generic/sort.js'
import { ReplyError, type Command, type Reply } from '../../../src/reply.js'
import { closeEngines, memoryEngine, START } from '../../support/engine.js'

/**
 * Generic commands where the differential suite cannot reach: time (an injected clock instead
 * of sleeping), randomness, cursor bookkeeping, script context and configuration.
 */

/** An executor on a clock the test moves; replies as they are. */
function engine(start = START) {
  return memoryEngine({ start, render: (reply): Reply => reply })
}

afterEach(closeEngines)

const text = (reply: Reply): string => Buffer.from(reply as Uint8Array).toString('latin1')
const texts = (reply: Reply): string[] => (reply as Reply[]).map(text)

/** A full SCAN iteration; returns every batch. */
function scanAll(run: (...command: Command) => Reply, ...options: string[]): string[][] {
  const batches: string[][] = []
  let cursor = '0'
  do {
    const [next, keys] = run('SCAN', cursor, ...options) as Reply[]
    cursor = text(next)
    batches.push(texts(keys))
  } while (cursor !== '0')
  return batches
}

describe('expiry with an injected clock', () => {
  test('TTL counts down and rounds to the nearest second; the key goes at its deadline', () => {
    const { run, advance } = engine()
    run('SET', 'k', 'v')
    expect(run('EXPIRE', 'k', '10')).toBe(1)
    advance(4_499)
    expect(run('PTTL', 'k')).toBe(5_501)
    expect(run('TTL', 'k')).toBe(6)
    advance(2)
    expect(run('TTL', 'k')).toBe(5)
    advance(5_498)
    expect(run('PTTL', 'k')).toBe(1)
    expect(run('TTL', 'k')).toBe(0)
    advance(2) // Redis keeps a key alive through its deadline millisecond; one past it, it is gone
    expect(run('TTL', 'k')).toBe(-2)
    expect(run('EXISTS', 'k')).toBe(0)
  })

  test('EXPIRETIME and PEXPIRETIME report the absolute deadline', () => {
    const { run } = engine(1_700_000_000_000)
    run('SET', 'k', 'v')
    run('PEXPIRE', 'k', '1500')
    expect(run('PEXPIRETIME', 'k')).toBe(1_700_000_001_500)
    expect(run('EXPIRETIME', 'k')).toBe(1_700_000_002)
  })

  test('a deadline equal to now deletes at once; one millisecond later is kept', () => {
    const { run } = engine(1_700_000_000_000)
    run('SET', 'a', 'v')
    run('SET', 'b', 'v')
    expect(run('PEXPIREAT', 'a', '1700000000000')).toBe(1)
    expect(run('EXISTS', 'a')).toBe(0)
    expect(run('PEXPIREAT', 'b', '1700000000001')).toBe(1)
    expect(run('PTTL', 'b')).toBe(1)
  })

  test('GT and LT compare with the exact current deadline', () => {
    const { run, advance } = engine()
    run('SET', 'k', 'v')
    run('PEXPIRE', 'k', '1000')
    advance(400)
    expect(run('PEXPIRE', 'k', '600', 'GT')).toBe(0) // same deadline is not greater
    expect(run('PEXPIRE', 'k', '601', 'GT')).toBe(1)
    expect(run('PEXPIRE', 'k', '601', 'LT')).toBe(0)
    expect(run('PEXPIRE', 'k', '600', 'LT')).toBe(1)
  })

  test('RENAME and COPY carry the remaining TTL', () => {
    const { run, advance } = engine()
    run('SET', 'a', 'v')
    run('PEXPIRE', 'a', '1000')
    advance(300)
    run('COPY', 'a', 'b')
    run('RENAME', 'a', 'c')
    expect(run('PTTL', 'b')).toBe(700)
    expect(run('PTTL', 'c')).toBe(700)
    advance(701)
    expect(run('EXISTS', 'b', 'c')).toBe(0)
  })

  test('RENAME and COPY of an expired key behave as for a missing key', () => {
    const { run, advance } = engine()
    run('SET', 'a', 'v')
    run('SET', 'dst', 'old')
    run('PEXPIRE', 'a', '10')
    run('PEXPIRE', 'dst', '10')
    advance(11)
    expect(run('RENAME', 'a', 'b')).toEqual(new ReplyError('ERR no such key'))
    expect(run('COPY', 'a', 'b')).toBe(0)
    run('SET', 'src', 'v')
    expect(run('COPY', 'src', 'dst')).toBe(1) // the expired destination counts as missing
    expect(run('RENAMENX', 'src', 'dst')).toBe(0)
  })
})

describe('KEYS, SCAN and RANDOMKEY never return expired keys', () => {
  function withExpiredKeys() {
    const e = engine()
    for (let i = 0; i < 50; i++) e.run('SET', `live:${i}`, 'v')
    for (let i = 0; i < 50; i++) e.run('SET', `dead:${i}`, 'v', 'PX', '100')
    e.advance(101)
    return e
  }

  test('KEYS skips them without deleting them (as Redis 7.0 does)', () => {
    const { run, executor } = withExpiredKeys()
    const keys = texts(run('KEYS', '*'))
    expect(keys).toHaveLength(50)
    expect(keys.every((key) => key.startsWith('live:'))).toBe(true)
    expect(texts(run('KEYS', 'dead:*'))).toEqual([])
    expect(executor.engine.databases[0].size).toBe(100)
  })

  test('SCAN skips them, and deletes those it looks at', () => {
    const { run, executor } = withExpiredKeys()
    const keys = scanAll(run, 'COUNT', '7').flat()
    expect(new Set(keys).size).toBe(50)
    expect(keys.every((key) => key.startsWith('live:'))).toBe(true)
    expect(executor.engine.databases[0].size).toBe(50)
  })

  test('RANDOMKEY draws live keys only, and nil once everything expired', () => {
    const { run, advance } = withExpiredKeys()
    for (let i = 0; i < 200; i++) expect(text(run('RANDOMKEY'))).toMatch(/^live:/)
    run('PEXPIRE', 'live:0', '1')
    for (let i = 1; i < 50; i++) run('DEL', `live:${i}`)
    advance(2)
    expect(run('RANDOMKEY')).toBeNull()
  })
})

describe('RANDOMKEY', () => {
  test('every key comes up, including keys added after earlier calls', () => {
    const { run } = engine()
    for (let i = 0; i < 10; i++) run('SET', `a${i}`, 'v')
    run('RANDOMKEY')
    for (let i = 0; i < 30; i++) run('SET', `b${i}`, 'v')
    for (let i = 0; i < 10; i++) run('DEL', `a${i}`)
    const seen = new Set<string>()
    for (let i = 0; i < 2_000; i++) seen.add(text(run('RANDOMKEY')))
    expect([...seen].sort()).toEqual(Array.from({ length: 30 }, (_, i) => `b${i}`).sort())
  })

  test('an emptied database answers nil', () => {
    const { run } = engine()
    run('SET', 'a', 'v')
    expect(text(run('RANDOMKEY'))).toBe('a')
    run('DEL', 'a')
    expect(run('RANDOMKEY')).toBeNull()
  })
})

describe('SCAN cursors', () => {
  test('a full iteration returns every key once when nothing changes, and ends with 0', () => {
    const { run } = engine()
    for (let i = 0; i < 1000; i++) run('SET', `k${i}`, 'v')
    const batches = scanAll(run, 'COUNT', '33')
    expect(batches.length).toBe(Math.ceil(1000 / 33))
    const keys = batches.flat()
    expect(keys).toHaveLength(1000)
    expect(new Set(keys).size).toBe(1000)
  })

  test('a keyspace within COUNT comes back in one call with cursor 0', () => {
    const { run } = engine()
    for (let i = 0; i < 10; i++) run('SET', `k${i}`, 'v')
    const [cursor, keys] = run('SCAN', '0') as Reply[]
    expect(text(cursor)).toBe('0')
    expect(texts(keys)).toHaveLength(10)
  })

  test('keys present throughout are returned despite heavy churn between calls', () => {
    const { run } = engine()
    for (let i = 0; i < 500; i++) run('SET', `stable:${i}`, 'v')
    for (let i = 0; i < 500; i++) run('SET', `churn:${i}`, 'v')
    const seen = new Set<string>()
    let cursor = '0'
    let step = 0
    do {
      const [next, keys] = run('SCAN', cursor, 'COUNT', '20') as Reply[]
      cursor = text(next)
      for (const key of texts(keys)) seen.add(key)
      // Delete and re-create churn keys, add new ones, delete some added earlier.
      for (let j = 0; j < 10; j++) {
        run('DEL', `churn:${(step * 10 + j) % 500}`)
        run('SET', `new:${step}:${j}`, 'v')
        if (step > 0) run('DEL', `new:${step - 1}:${j}`)
      }
      step++
    } while (cursor !== '0')
    for (let i = 0; i < 500; i++) expect(seen.has(`stable:${i}`)).toBe(true)
  })

  test('repeating a call answers the same batch and cursor (a retried request)', () => {
    const { run } = engine()
    for (let i = 0; i < 100; i++) run('SET', `k${i}`, 'v')
    const first = run('SCAN', '0', 'COUNT', '10') as Reply[]
    const cursor = text(first[0])
    const second = run('SCAN', cursor, 'COUNT', '10') as Reply[]
    const again = run('SCAN', cursor, 'COUNT', '10') as Reply[]
    expect(text(again[0])).toBe(text(second[0]))
    expect(texts(again[1])).toEqual(texts(second[1]))
    const third = run('SCAN', text(second[0]), 'COUNT', '10') as Reply[]
    expect(texts(third[1])).not.toEqual(texts(second[1]))
  })

  test('an unknown cursor starts a new iteration that still covers every key', () => {
    const { run } = engine()
    for (let i = 0; i < 25; i++) run('SET', `k${i}`, 'v')
    const seen = new Set<string>()
    let cursor = '123456789'
    do {
      const [next, keys] = run('SCAN', cursor, 'COUNT', '10') as Reply[]
      cursor = text(next)
      for (const key of texts(keys)) seen.add(key)
    } while (cursor !== '0')
    expect(seen.size).toBe(25)
  })

  test('the table keeps a bounded number of cursors, least recently used dropped first', () => {
    const table = new CursorTable<number>(3)
    const source = () => [1, 2, 3, 4, 5, 6][Symbol.iterator]()
    const cursors = Array.from({ length: 5 }, () => table.step(0, 1, source).cursor)
    expect(table.size).toBe(3)
    // The oldest cursor is gone: it restarts from the first element.
    expect(table.step(cursors[0], 1, source).items).toEqual([1])
    // A recent one resumes.
    expect(table.step(cursors[4], 2, source).items).toEqual([2, 3])
  })
})

describe('OBJECT under other memory policies', () => {
  test('FREQ answers under an LFU policy, and IDLETIME is refused', () => {
    const { run, executor } = engine()
    executor.engine.config.set('maxmemory-policy', 'allkeys-lfu')
    // A key written under the LFU policy starts at LFU_INIT_VAL.
    run('SET', 'k', 'v')
    expect(run('OBJECT', 'FREQ', 'k')).toBe(5)
    expect((run('OBJECT', 'IDLETIME', 'k') as ReplyError).message).toMatch(/^ERR An LFU maxmemory policy is selected/)
  })

  test('small integers are not shared under an LRU policy with a memory limit', () => {
    const { run, executor } = engine()
    run('SET', 'k', '100')
    expect(run('OBJECT', 'REFCOUNT', 'k')).toBe(2147483647)
    executor.engine.config.set('maxmemory', '100000000')
    executor.engine.config.set('maxmemory-policy', 'allkeys-lru')
    expect(run('OBJECT', 'REFCOUNT', 'k')).toBe(1)
  })
})

describe('SORT', () => {
  test('inside a script, a set under BY nosort is sorted ALPHA (Redis keeps scripts deterministic)', () => {
    const { executor } = engine()
    const session = executor.engine.createSession()
    executor.engine.call(session, ['SADD', 's', 'c', 'a', 'b'])
    const scripted = { ...session, script: { readOnly: true } }
    expect(executor.engine.call(scripted, ['SORT', 's', 'BY', 'nosort'])).toEqual(['a', 'b', 'c'])
    expect(executor.engine.call(scripted, ['SORT_RO', 's', 'BY', 'nosort', 'DESC'])).toEqual(['c', 'b', 'a'])
  })

  test('weights behind an expired key count as missing', () => {
    const { run, advance } = engine()
    run('RPUSH', 'l', 'a', 'b')
    run('SET', 'w_a', '5')
    run('SET', 'w_b', '9', 'PX', '10')
    expect(texts(run('SORT', 'l', 'BY', 'w_*'))).toEqual(['a', 'b'])
    advance(11)
    expect(texts(run('SORT', 'l', 'BY', 'w_*'))).toEqual(['b', 'a'])
    expect(run('SORT', 'l', 'BY', 'w_*', 'GET', 'w_*')).toEqual([null, Buffer.from('5')])
  })

  test('readSortScore reads weights like glibc strtod', () => {
    expect(readSortScore('')).toBe(0)
    expect(readSortScore(' \t\n12')).toBe(12)
    expect(readSortScore('0x1p-1074')).toBe(5e-324) // exact hexadecimal subnormal: accepted
    expect(readSortScore('1e-310')).toBeNull() // inexact decimal subnormal: range error
    expect(readSortScore('1e-400')).toBeNull()
    expect(readSortScore('0e-400')).toBe(0)
    expect(readSortScore('1e400')).toBeNull()
    expect(readSortScore('-Infinity')).toBe(-Infinity)
    expect(readSortScore('nan')).toBeNull()
    expect(readSortScore('7\x00garbage')).toBe(7) // a C string ends at NUL
    expect(readSortScore('   ')).toBeNull()
  })

  test('partialSort puts the requested window exactly where a full sort would', () => {
    let seed = 99
    const random = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
      return (seed >>> 8) % n
    }
    for (let round = 0; round < 300; round++) {
      const n = 1 + random(200)
      const items = Array.from({ length: n }, (_, i) => i).sort(() => random(3) - 1)
      const low = random(n)
      const high = low + random(n - low)
      const sorted = [...items].sort((a, b) => a - b)
      partialSort(items, (a, b) => a - b, low, high)
      expect(items.slice(low, high + 1)).toEqual(sorted.slice(low, high + 1))
    }
  })
})
