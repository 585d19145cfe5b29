import { afterEach, describe, expect, test } from 'vitest'
import { StreamValue } from '../../../src/executor/memory/types/stream.js'
import { IdMap } from '../../../src/executor/memory/types/stream-group.js'
import {
  compareIds,
  exact,
  formatId,
  nextId,
  parseId,
  parseStrictId,
  parseUnsigned64,
  previousId,
  type StreamId,
} from '../../../src/executor/memory/types/stream-id.js'
import { entrySize, integerElementSize, stringElementSize } from '../../../src/executor/memory/types/stream-listpack.js'
import { NULL_ARRAY, ReplyError, type Reply } from '../../../src/reply.js'
import { closeEngines, memoryEngine } from '../../support/engine.js'

/**
 * Streams beyond what the differential suite can show: the ID arithmetic and the ordered maps
 * against models, large streams, the times consumer groups record (with an injected clock),
 * auto-generated IDs, 64-bit counters, and XDELEX / XACKDEL, which Redis 7.0 does not have
 * (tested against the Redis 8.2 documentation and test suite, named in each test).
 */

/** A deterministic PRNG for the model tests. */
function randomSource(seed: number): (n: number) => number {
  let state = seed
  return (n: number) => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0
    return (state >>> 8) % n
  }
}

afterEach(closeEngines)

/** An executor on a manual clock, with a helper that runs a command and decodes bulk strings. */
function clocked(start = 1_700_000_000_000) {
  return memoryEngine({ start, render: decode })
}

/** Bulk strings as text, the rest as is (errors as their message). */
function decode(reply: Reply): unknown {
  if (reply instanceof Uint8Array) return Buffer.from(reply).toString('latin1')
  if (reply instanceof ReplyError) return `-${reply.message}`
  if (reply === NULL_ARRAY) return 'nil-array'
  if (Array.isArray(reply)) return reply.map(decode)
  return reply
}

/** A flat key/value reply as an object (XINFO maps). */
function fields(reply: unknown): Record<string, unknown> {
  const items = reply as unknown[]
  const out: Record<string, unknown> = {}
  for (let i = 0; i < items.length; i += 2) out[items[i] as string] = items[i + 1]
  return out
}

const id = (ms: number | bigint, seq: number | bigint): StreamId => ({ ms, seq })

describe('stream IDs', () => {
  test('ID parts read as Redis string2ull: canonical numbers, then strtoull forms', () => {
    expect(parseUnsigned64('0')).toBe(0)
    expect(parseUnsigned64('123')).toBe(123)
    expect(parseUnsigned64('18446744073709551615')).toBe(18446744073709551615n)
    expect(parseUnsigned64('18446744073709551616')).toBeNull()
    expect(parseUnsigned64('9007199254740993')).toBe(9007199254740993n)
    expect(parseUnsigned64('-5')).toBeNull()
    expect(parseUnsigned64('-0')).toBe(0)
    expect(parseUnsigned64('-05')).toBe(18446744073709551611n)
    expect(parseUnsigned64(' 7')).toBe(7)
    expect(parseUnsigned64('+7')).toBe(7)
    expect(parseUnsigned64('007')).toBe(7)
    expect(parseUnsigned64('-9223372036854775808')).toBeNull()
    expect(parseUnsigned64('-9223372036854775809')).toBe(9223372036854775807n)
    expect(parseUnsigned64('7 ')).toBeNull()
    expect(parseUnsigned64('')).toBeNull()
    expect(parseUnsigned64(' ')).toBeNull()
    expect(parseUnsigned64('0x10')).toBeNull()
  })

  test('IDs: partial, special, strict, NUL-terminated, too long', () => {
    expect(parseId('5')).toEqual(id(5, 0))
    expect(parseId('5', 18446744073709551615n)).toEqual(id(5, 18446744073709551615n))
    expect(parseId('-')).toEqual(id(0, 0))
    expect(parseId('+')).toEqual(id(18446744073709551615n, 18446744073709551615n))
    expect(parseStrictId('-')).toBeNull()
    expect(parseStrictId('+')).toBeNull()
    expect(parseStrictId('+\0x')).toBeNull()
    expect(parseId('3\0-9')).toEqual(id(3, 0))
    expect(parseId('1-2-3')).toBeNull()
    expect(parseId('1'.repeat(127))).toBeNull() // parses, but overflows
    expect(parseId(`${'0'.repeat(126)}1`)).toEqual(id(1, 0))
    expect(parseId(`${'0'.repeat(127)}1`)).toBeNull() // longer than Redis's buffer
  })

  test('next and previous IDs wrap as streamIncrID / streamDecrID refuse to', () => {
    expect(nextId(id(1, 18446744073709551615n))).toEqual(id(2, 0))
    expect(nextId(id(18446744073709551615n, 18446744073709551615n))).toBeNull()
    expect(previousId(id(2, 0))).toEqual(id(1, 18446744073709551615n))
    expect(previousId(id(0, 0))).toBeNull()
    expect(nextId(id(9007199254740991, 9007199254740991))).toEqual(id(9007199254740991, 9007199254740992n))
    expect(formatId(id(18446744073709551615n, 0))).toBe('18446744073709551615-0')
    for (const n of [0, 7, 999, 1000, 1001, 10_000, 100_007, 1_000_000, 1_700_000_000_123, 9007199254740991]) {
      expect(formatId(id(n, n))).toBe(`${String(n)}-${String(n)}`)
    }
    expect(compareIds(id(9007199254740991, 0), id(9007199254740992n, 0))).toBe(-1)
  })
})

describe('listpack sizes', () => {
  test('elements are sized as listpack.c encodes them', () => {
    expect(integerElementSize(0)).toBe(2)
    expect(integerElementSize(127)).toBe(2)
    expect(integerElementSize(128)).toBe(3)
    expect(integerElementSize(-4096)).toBe(3)
    expect(integerElementSize(4096)).toBe(4)
    expect(integerElementSize(-32769)).toBe(5)
    expect(integerElementSize(8388608)).toBe(6)
    expect(integerElementSize(2147483648)).toBe(10)
    expect(integerElementSize(-9223372036854775808n)).toBe(10)
    expect(stringElementSize('')).toBe(2)
    expect(stringElementSize('a')).toBe(3)
    expect(stringElementSize('12')).toBe(2) // an integer
    expect(stringElementSize('012')).toBe(5) // not canonical: a string
    expect(stringElementSize('-0')).toBe(4)
    expect(stringElementSize('9223372036854775808')).toBe(21) // beyond int64: a 19-byte string
    expect(stringElementSize('x'.repeat(63))).toBe(65)
    expect(stringElementSize('x'.repeat(64))).toBe(67)
    expect(stringElementSize('x'.repeat(126))).toBe(130) // 128-byte element: 2-byte back-length
    expect(stringElementSize('x'.repeat(4095))).toBe(4099)
    expect(stringElementSize('x'.repeat(4096))).toBe(4103)
  })

  test('an entry with the master entry’s fields stores values only', () => {
    const master = id(1, 0)
    expect(entrySize(id(1, 0), master, ['f', 'v'], true)).toBe(2 + 2 + 2 + 3 + 2)
    expect(entrySize(id(1, 0), master, ['f', 'v'], false)).toBe(2 + 2 + 2 + 2 + 3 + 3 + 2)
    // ID deltas are int64 (uint64 differences): a sequence below the master's is negative.
    expect(entrySize(id(2, 0), id(1, 5), ['f', 'v'], true)).toBe(2 + 2 + 3 + 3 + 2)
    // A millisecond delta of 2^64 - 1 is stored as -1: two bytes plus back-length.
    expect(entrySize(id(2n ** 64n - 1n, 0), id(0, 0), ['f', 'v'], true)).toBe(2 + 3 + 2 + 3 + 2)
  })
})

describe('IdMap (PELs)', () => {
  test('random insertions, removals and ceilings match a sorted-array model', () => {
    const random = randomSource(11)
    const map = new IdMap<{ id: StreamId; tag: number }>()
    const model = new Map<string, { id: StreamId; tag: number }>()
    const key = (value: StreamId) => formatId(value)
    for (let step = 0; step < 8000; step++) {
      const value = id(random(400), random(3))
      const operation = random(10)
      if (operation < 5) {
        const entry = { id: value, tag: step }
        map.set(entry)
        model.set(key(value), entry)
      } else if (operation < 8) {
        expect(map.delete(value)?.tag).toBe(model.get(key(value))?.tag)
        model.delete(key(value))
      } else {
        const sorted = [...model.values()].sort((a, b) => compareIds(a.id, b.id))
        expect(map.ceiling(value)?.tag).toBe(sorted.find((entry) => compareIds(entry.id, value) >= 0)?.tag)
        expect(map.get(value)?.tag).toBe(model.get(key(value))?.tag)
      }
      expect(map.size).toBe(model.size)
    }
    const sorted = [...model.values()].sort((a, b) => compareIds(a.id, b.id))
    expect(map.values().map((entry) => entry.tag)).toEqual(sorted.map((entry) => entry.tag))
    expect(map.first()?.tag).toBe(sorted[0]?.tag)
    expect(map.last()?.tag).toBe(sorted[sorted.length - 1]?.tag)
  })
})

describe('StreamValue', () => {
  const limits = { maxBytes: 4096, maxEntries: 100 }

  /**
   * Random appends, deletes, trims and ranges checked against an array. IDs are `base + ms` and
   * `seqBase + step`: the default stays in plain numbers; the others cross 2^53 into bigints,
   * where nodes are found by their IDs as doubles (equal for many different bigints near 2^64).
   */
  function modelTest(seed: number, base = 0n, seqBase = 0n, steps = 20000, nodeLimits = { maxBytes: 600, maxEntries: 7 }): void {
    const random = randomSource(seed)
    const stream = new StreamValue()
    let model: { id: StreamId; fields: string[] }[] = []
    const at = (ms: number, seq: number): StreamId => id(exact(base + BigInt(ms)), exact(seqBase + BigInt(seq)))
    let ms = 0
    for (let step = 0; step < steps; step++) {
      const operation = random(20)
      if (operation < 9) {
        ms += random(3)
        const entryId = at(ms, step)
        const fields = random(4) === 0 ? ['other', String(step)] : ['f', 'x'.repeat(random(80))]
        stream.append(entryId, fields, nodeLimits)
        model.push({ id: entryId, fields })
      } else if (operation < 13 && model.length > 0) {
        const target = model[random(model.length)].id
        expect(stream.delete(target)).toBe(true)
        expect(stream.delete(target)).toBe(false)
        model = model.filter((entry) => compareIds(entry.id, target) !== 0)
      } else if (operation < 14) {
        const maxLen = Math.max(0, model.length - random(10))
        const removed = stream.trim({ maxLen, approx: false, limit: 0 })
        expect(removed).toBe(model.length - Math.min(model.length, maxLen))
        model = model.slice(model.length - Math.min(model.length, maxLen))
      } else if (operation < 15 && model.length > 0) {
        const minId = model[random(model.length)].id
        stream.trim({ minId, approx: false, limit: 0 })
        model = model.filter((entry) => compareIds(entry.id, minId) >= 0)
      } else {
        const a = at(random(ms + 2), random(step + 1))
        const b = at(random(ms + 2), random(step + 1))
        const count = random(4)
        const reverse = random(2) === 1
        let expected = model.filter((entry) => compareIds(entry.id, a) >= 0 && compareIds(entry.id, b) <= 0)
        if (reverse) expected = expected.reverse()
        if (count > 0) expected = expected.slice(0, count)
        const got = stream.range(a, b, count, reverse)
        expect(got.map((entry) => formatId(entry))).toEqual(expected.map((entry) => formatId(entry.id)))
      }
      expect(stream.length).toBe(model.length)
      expect(formatId(stream.firstId)).toBe(model.length === 0 ? '0-0' : formatId(model[0].id))
    }
  }

  test('range, delete and trim keep agreeing with an array model', () => {
    modelTest(5)
    // Nodes of up to 60 entries, where a search starts from a guess by time and gallops.
    modelTest(9, 0n, 0n, 20000, { maxBytes: 8192, maxEntries: 60 })
  })

  test('the same with IDs across 2^53 and near 2^64 (bigints, equal as doubles)', () => {
    modelTest(6, 9007199254740991n - 3000n, 0n, 8000)
    modelTest(7, 0n, 9007199254740991n - 3000n, 8000)
    modelTest(8, 18446744073709551615n - 20000n, 18446744073709551615n - 20000n, 8000)
    modelTest(10, 9007199254740991n - 3000n, 0n, 8000, { maxBytes: 8192, maxEntries: 60 })
  })

  test('a million entries: appends stay O(1), ranges binary-search, ~ trims whole nodes', () => {
    const stream = new StreamValue()
    for (let i = 1; i <= 1_000_000; i++) stream.append(id(i, 0), ['f', 'v'], limits)
    expect(stream.length).toBe(1_000_000)
    expect(stream.radixTreeKeys).toBe(10_000)
    expect(stream.range(id(500_000, 0), id(500_004, 0), 0).map(formatId)).toEqual(['500000-0', '500001-0', '500002-0', '500003-0', '500004-0'])
    expect(stream.range(id(0, 0), id(999_999, 0), 2, true).map(formatId)).toEqual(['999999-0', '999998-0'])
    expect(stream.trim({ maxLen: 999_950, approx: true, limit: 10000 })).toBe(0)
    expect(stream.trim({ maxLen: 10, approx: true, limit: 10000 })).toBe(10000)
    expect(stream.trim({ maxLen: 10, approx: true, limit: 0 })).toBe(1_000_000 - 10000 - 100)
    expect(stream.length).toBe(100)
    expect(stream.trim({ maxLen: 10, approx: false, limit: 0 })).toBe(90)
    expect(formatId(stream.firstId)).toBe('999991-0')
  })

  test('COPY gives an independent stream: tombstones, groups and PELs are copied', () => {
    const { run } = clocked()
    for (let i = 1; i <= 5; i++) run('XADD', 's', `${i}-0`, 'f', 'v')
    run('XDEL', 's', '2-0')
    run('XGROUP', 'CREATE', 's', 'g', '0')
    run('XREADGROUP', 'GROUP', 'g', 'c', 'COUNT', '2', 'STREAMS', 's', '>')
    expect(run('COPY', 's', 't')).toBe(1)
    run('XACK', 's', 'g', '1-0')
    run('XDEL', 's', '3-0')
    run('XCLAIM', 's', 'g', 'd', '0', '3-0')
    expect(run('XPENDING', 't', 'g')).toEqual([2, '1-0', '3-0', [['c', '2']]])
    expect(run('XLEN', 't')).toBe(4)
    expect(run('XPENDING', 's', 'g')).toEqual([0, null, null, 'nil-array'])
    expect(fields(run('XINFO', 'STREAM', 't'))['max-deleted-entry-id']).toBe('2-0')
  })
})

describe('times of consumer groups (injected clock)', () => {
  test('XREADGROUP sets delivery times; history reads renew them; XPENDING idle follows', () => {
    const clock = clocked()
    const { run } = clock
    run('XADD', 's', '1-0', 'f', 'v')
    run('XADD', 's', '2-0', 'f', 'v')
    run('XGROUP', 'CREATE', 's', 'g', '0')
    run('XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', 's', '>')
    clock.advance(500)
    expect(run('XPENDING', 's', 'g', '-', '+', '10')).toEqual([['1-0', 'c', 500, 1], ['2-0', 'c', 500, 1]])
    expect(run('XPENDING', 's', 'g', 'IDLE', '501', '-', '+', '10')).toEqual([])
    run('XREADGROUP', 'GROUP', 'g', 'c', 'COUNT', '1', 'STREAMS', 's', '0')
    clock.advance(100)
    expect(run('XPENDING', 's', 'g', '-', '+', '10')).toEqual([['1-0', 'c', 100, 2], ['2-0', 'c', 600, 1]])
    expect(run('XPENDING', 's', 'g', 'IDLE', '200', '-', '+', '10')).toEqual([['2-0', 'c', 600, 1]])
  })

  test('consumers are seen when they read, claim or are created; XINFO CONSUMERS idle', () => {
    const clock = clocked()
    const { run } = clock
    run('XADD', 's', '1-0', 'f', 'v')
    run('XGROUP', 'CREATE', 's', 'g', '$')
    run('XGROUP', 'CREATECONSUMER', 's', 'g', 'made')
    clock.advance(1000)
    // Nothing new: Redis 7.0 neither creates nor refreshes the consumer.
    run('XREADGROUP', 'GROUP', 'g', 'made', 'STREAMS', 's', '>')
    run('XREADGROUP', 'GROUP', 'g', 'ghost', 'STREAMS', 's', '>')
    expect(run('XINFO', 'CONSUMERS', 's', 'g')).toEqual([['name', 'made', 'pending', 0, 'idle', 1000]])
    // A history read serves (an empty list) and so refreshes.
    run('XREADGROUP', 'GROUP', 'g', 'made', 'STREAMS', 's', '0')
    clock.advance(10)
    expect(run('XINFO', 'CONSUMERS', 's', 'g')).toEqual([['name', 'made', 'pending', 0, 'idle', 10]])
    const full = fields(run('XINFO', 'STREAM', 's', 'FULL'))
    const group = fields((full.groups as unknown[])[0])
    expect(fields((group.consumers as unknown[])[0])['seen-time']).toBe(clock.now - 10)
  })

  test('XCLAIM: IDLE and TIME set the delivery time, a claim refreshes the claimer only when it claims', () => {
    const clock = clocked()
    const { run } = clock
    run('XADD', 's', '1-0', 'f', 'v')
    run('XGROUP', 'CREATE', 's', 'g', '0')
    run('XREADGROUP', 'GROUP', 'g', 'alice', 'STREAMS', 's', '>')
    clock.advance(50)
    expect(run('XCLAIM', 's', 'g', 'bob', '100', '1-0', 'JUSTID')).toEqual([])
    expect(run('XINFO', 'CONSUMERS', 's', 'g')).toEqual([['name', 'alice', 'pending', 1, 'idle', 50]])
    clock.advance(50)
    expect(run('XCLAIM', 's', 'g', 'bob', '100', '1-0', 'JUSTID', 'IDLE', '3000')).toEqual(['1-0'])
    expect(run('XPENDING', 's', 'g', '-', '+', '1')).toEqual([['1-0', 'bob', 3000, 1]])
    run('XCLAIM', 's', 'g', 'bob', '0', '1-0', 'TIME', String(clock.now - 42), 'JUSTID')
    expect(run('XPENDING', 's', 'g', '-', '+', '1')).toEqual([['1-0', 'bob', 42, 1]])
    run('XCLAIM', 's', 'g', 'bob', '0', '1-0', 'TIME', String(clock.now + 5000), 'JUSTID')
    expect(run('XPENDING', 's', 'g', '-', '+', '1')).toEqual([['1-0', 'bob', 0, 1]])
    expect(run('XINFO', 'CONSUMERS', 's', 'g')).toEqual([
      ['name', 'alice', 'pending', 0, 'idle', 100],
      ['name', 'bob', 'pending', 1, 'idle', 0],
    ])
  })

  test('XAUTOCLAIM claims only entries idle long enough and resets their delivery time', () => {
    const clock = clocked()
    const { run } = clock
    for (let i = 1; i <= 3; i++) run('XADD', 's', `${i}-0`, 'f', 'v')
    run('XGROUP', 'CREATE', 's', 'g', '0')
    run('XREADGROUP', 'GROUP', 'g', 'alice', 'COUNT', '1', 'STREAMS', 's', '>')
    clock.advance(1000)
    run('XREADGROUP', 'GROUP', 'g', 'alice', 'STREAMS', 's', '>')
    clock.advance(500)
    expect(run('XAUTOCLAIM', 's', 'g', 'bob', '1000', '0', 'JUSTID')).toEqual(['0-0', ['1-0'], []])
    expect(run('XPENDING', 's', 'g', '-', '+', '10')).toEqual([['1-0', 'bob', 0, 1], ['2-0', 'alice', 500, 1], ['3-0', 'alice', 500, 1]])
    expect(run('XAUTOCLAIM', 's', 'g', 'bob', '500', '0', 'COUNT', '1')).toEqual(['3-0', [['2-0', ['f', 'v']]], []])
    expect(run('XPENDING', 's', 'g', '-', '+', '10')).toEqual([['1-0', 'bob', 0, 1], ['2-0', 'bob', 0, 2], ['3-0', 'alice', 500, 1]])
  })
})

describe('auto-generated IDs (XADD *)', () => {
  test('the clock’s millisecond with sequence 0, then sequences while the clock stands or goes back', () => {
    const clock = clocked(1000)
    const { run } = clock
    expect(run('XADD', 's', '*', 'f', 'v')).toBe('1000-0')
    expect(run('XADD', 's', '*', 'f', 'v')).toBe('1000-1')
    clock.advance(-500)
    expect(run('XADD', 's', '*', 'f', 'v')).toBe('1000-2')
    clock.advance(501)
    expect(run('XADD', 's', '*', 'f', 'v')).toBe('1001-0')
    run('XADD', 's', '5000-18446744073709551615', 'f', 'v')
    expect(run('XADD', 's', '*', 'f', 'v')).toBe('5001-0')
    expect(run('XADD', 's', 'MAXLEN', '2', '*', 'f', 'v')).toBe('5001-1')
    expect(run('XLEN', 's')).toBe(2)
  })

  test('the transaction’s time serves every XADD * inside it', () => {
    const { executor } = clocked(7000)
    const replies = executor.engine.transaction(executor.engine.createSession(), [
      ['XADD', 's', '*', 'a', '1'],
      ['XADD', 's', '*', 'b', '2'],
    ])
    expect(replies).toEqual(['7000-0', '7000-1'])
  })
})

describe('64-bit counters', () => {
  test('entries-added, entries-read, lag and delivery counts beyond 2^53 are exact', () => {
    const { run } = clocked()
    run('XADD', 's', '1-0', 'f', 'v')
    run('XSETID', 's', '1-0', 'ENTRIESADDED', '9223372036854775806')
    run('XADD', 's', '2-0', 'f', 'v')
    expect(fields(run('XINFO', 'STREAM', 's'))['entries-added']).toBe(9223372036854775807n)
    run('XGROUP', 'CREATE', 's', 'g', '0', 'ENTRIESREAD', '9007199254740993')
    expect(run('XINFO', 'GROUPS', 's')).toEqual([
      ['name', 'g', 'consumers', 0, 'pending', 0, 'last-delivered-id', '0-0', 'entries-read', 9007199254740993n, 'lag', 9214364837600034814n],
    ])
    run('XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', 's', '>')
    run('XCLAIM', 's', 'g', 'c', '0', '1-0', 'RETRYCOUNT', '9223372036854775807', 'JUSTID')
    run('XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', 's', '0')
    // uint64 delivery count past LLONG_MAX, printed as a long long by Redis.
    expect((run('XPENDING', 's', 'g', '-', '+', '1') as unknown[][])[0][3]).toBe(-9223372036854775808n)
  })
})

describe('BLOCK in the engine', () => {
  test('XREAD / XREADGROUP BLOCK with nothing to serve answer the null array at once, as inside MULTI', () => {
    const { run } = clocked()
    expect(run('XREAD', 'BLOCK', '0', 'STREAMS', 's', '$')).toBe('nil-array')
    run('XGROUP', 'CREATE', 's', 'g', '$', 'MKSTREAM')
    expect(run('XREADGROUP', 'GROUP', 'g', 'c', 'BLOCK', '0', 'STREAMS', 's', '>')).toBe('nil-array')
    expect(run('XINFO', 'CONSUMERS', 's', 'g')).toEqual([])
    run('XADD', 's', '1-0', 'f', 'v')
    expect(run('XREAD', 'BLOCK', '0', 'STREAMS', 's', '0')).toEqual([['s', [['1-0', ['f', 'v']]]]])
  })
})

describe('XDELEX (Redis 8.2, https://redis.io/docs/latest/commands/xdelex/)', () => {
  test('documentation example: unknown IDs answer -1 and leave the stream alone', () => {
    const { run } = clocked()
    run('XADD', 'mystream', '1784722083515-0', 'field1', 'value1')
    run('XADD', 'mystream', '1784722083516-0', 'field2', 'value2')
    run('XADD', 'mystream', '1784722083517-0', 'field3', 'value3')
    expect(run('XDELEX', 'mystream', 'KEEPREF', 'IDS', '2', '1526919030474-55', '1526919030474-56')).toEqual([-1, -1])
    expect(run('XLEN', 'mystream')).toBe(3)
  })

  test('KEEPREF (default) deletes like XDEL and keeps PEL references; a missing key answers -1 per ID', () => {
    const { run } = clocked()
    expect(run('XDELEX', 's', 'IDS', '2', '1-0', '2-0')).toEqual([-1, -1])
    for (let i = 1; i <= 3; i++) run('XADD', 's', `${i}-0`, 'f', 'v')
    run('XGROUP', 'CREATE', 's', 'g', '0')
    run('XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', 's', '>')
    expect(run('XDELEX', 's', 'IDS', '3', '1-0', '1-0', '9-0')).toEqual([1, -1, -1])
    expect(run('XPENDING', 's', 'g')).toEqual([3, '1-0', '3-0', [['c', '3']]])
    expect(fields(run('XINFO', 'STREAM', 's'))['max-deleted-entry-id']).toBe('1-0')
    expect(fields(run('XINFO', 'STREAM', 's'))['recorded-first-entry-id']).toBe('2-0')
  })

  test('DELREF removes the entry from every PEL, even when the entry itself is already gone', () => {
    const { run } = clocked()
    run('XADD', 's', '1-0', 'f', 'v')
    run('XADD', 's', '2-0', 'f', 'v')
    run('XGROUP', 'CREATE', 's', 'g1', '0')
    run('XGROUP', 'CREATE', 's', 'g2', '0')
    run('XREADGROUP', 'GROUP', 'g1', 'c1', 'STREAMS', 's', '>')
    run('XREADGROUP', 'GROUP', 'g2', 'c2', 'STREAMS', 's', '>')
    run('XDEL', 's', '2-0')
    expect(run('XDELEX', 's', 'DELREF', 'IDS', '2', '1-0', '2-0')).toEqual([1, -1])
    expect(run('XPENDING', 's', 'g1')).toEqual([0, null, null, 'nil-array'])
    expect(run('XPENDING', 's', 'g2')).toEqual([0, null, null, 'nil-array'])
  })

  test('ACKED deletes only what no group still needs (Redis test: min_cgroup_last_id and PELs)', () => {
    const { run } = clocked()
    for (let i = 1; i <= 5; i++) run('XADD', 'mystream', `${i}-0`, `f${i}`, `v${i}`)
    run('XGROUP', 'CREATE', 'mystream', 'group1', '1-0')
    run('XGROUP', 'CREATE', 'mystream', 'group2', '3-0')
    expect(run('XDELEX', 'mystream', 'ACKED', 'IDS', '1', '1-0')).toEqual([1])
    expect(run('XDELEX', 'mystream', 'ACKED', 'IDS', '1', '2-0')).toEqual([2])
    run('XGROUP', 'DESTROY', 'mystream', 'group1')
    expect(run('XDELEX', 'mystream', 'ACKED', 'IDS', '1', '2-0')).toEqual([1])
    run('XREADGROUP', 'GROUP', 'group2', 'c', 'COUNT', '1', 'STREAMS', 'mystream', '>')
    expect(run('XDELEX', 'mystream', 'ACKED', 'IDS', '2', '4-0', '9-0')).toEqual([2, -1])
    run('XACK', 'mystream', 'group2', '4-0')
    expect(run('XDELEX', 'mystream', 'ACKED', 'IDS', '1', '4-0')).toEqual([1])
    run('XGROUP', 'DESTROY', 'mystream', 'group2')
    // No group left: nothing references the entries (Redis 8.2.1+).
    expect(run('XDELEX', 'mystream', 'ACKED', 'IDS', '1', '5-0')).toEqual([1])
    expect(run('XLEN', 'mystream')).toBe(1)
  })

  test('argument errors, as the Redis 8.2 test suite checks them', () => {
    const { run } = clocked()
    run('XADD', 's', '1-0', 'f', 'v')
    expect(run('XDELEX', 's', 'IDS', 'abc', '1-1')).toBe('-ERR Number of IDs must be a positive integer')
    expect(run('XDELEX', 's', 'IDS', '0', '1-1')).toBe('-ERR Number of IDs must be a positive integer')
    expect(run('XDELEX', 's', 'IDS', '-5', '1-1')).toBe('-ERR Number of IDs must be a positive integer')
    expect(run('XDELEX', 's', 'IDS', '3', '1-1', '2-2')).toBe('-ERR The `numids` parameter must match the number of arguments')
    expect(run('XDELEX', 's', 'IDS', '1', '1-1', '2-2')).toBe('-ERR syntax error')
    expect(run('XDELEX', 's', 'KEEPREF', 'DELREF', 'IDS', '1', '1-1')).toBe('-ERR syntax error')
    expect(run('XDELEX', 's', 'BOGUS', 'IDS', '1', '1-1')).toBe('-ERR syntax error')
    expect(run('XDELEX', 's', 'IDS', '1', 'not-an-id')).toBe('-ERR Invalid stream ID specified as stream command argument')
    expect(run('XDELEX', 's', 'IDS', '1', '1-0', 'ACKED')).toEqual([1])
    expect(run('XDELEX', 's')).toBe("-ERR wrong number of arguments for 'xdelex' command")
    run('SET', 'k', 'v')
    expect(run('XDELEX', 'k', 'IDS', '1', '1-0')).toBe('-WRONGTYPE Operation against a key holding the wrong kind of value')
  })
})

describe('XACKDEL (Redis 8.2, https://redis.io/docs/latest/commands/xackdel/)', () => {
  test('documentation example: KEEPREF acknowledges and deletes', () => {
    const { run } = clocked()
    run('XADD', 'mystream', '1755870377536-0', 'field1', 'value1')
    run('XADD', 'mystream', '1755870387045-0', 'field2', 'value2')
    run('XGROUP', 'CREATE', 'mystream', 'mygroup', '0')
    run('XREADGROUP', 'GROUP', 'mygroup', 'consumer1', 'COUNT', '2', 'STREAMS', 'mystream', '>')
    expect(run('XPENDING', 'mystream', 'mygroup')).toEqual([2, '1755870377536-0', '1755870387045-0', [['consumer1', '2']]])
    expect(run('XACKDEL', 'mystream', 'mygroup', 'KEEPREF', 'IDS', '2', '1755870377536-0', '1755870387045-0')).toEqual([1, 1])
    expect(run('XPENDING', 'mystream', 'mygroup')).toEqual([0, null, null, 'nil-array'])
    expect(run('XRANGE', 'mystream', '-', '+')).toEqual([])
  })

  test('missing key or group: -1 for every ID (Redis test suite)', () => {
    const { run } = clocked()
    expect(run('XACKDEL', 's', 'g', 'IDS', '2', '1-1', '2-2')).toEqual([-1, -1])
    run('XADD', 's', '1-0', 'f', 'v')
    expect(run('XACKDEL', 's', 'g', 'IDS', '2', '1-1', '2-2')).toEqual([-1, -1])
  })

  test('KEEPREF leaves the other groups’ references; acknowledging them later still answers 1', () => {
    const { run } = clocked()
    run('XADD', 'mystream', '1-0', 'f', 'v')
    run('XADD', 'mystream', '2-0', 'f', 'v')
    run('XGROUP', 'CREATE', 'mystream', 'group1', '0')
    run('XGROUP', 'CREATE', 'mystream', 'group2', '0')
    run('XREADGROUP', 'GROUP', 'group1', 'consumer1', 'STREAMS', 'mystream', '>')
    run('XREADGROUP', 'GROUP', 'group2', 'consumer2', 'STREAMS', 'mystream', '>')
    expect(run('XACKDEL', 'mystream', 'group1', 'KEEPREF', 'IDS', '2', '1-0', '2-0')).toEqual([1, 1])
    expect(run('XLEN', 'mystream')).toBe(0)
    expect(run('XPENDING', 'mystream', 'group2')).toEqual([2, '1-0', '2-0', [['consumer2', '2']]])
    expect(run('XACKDEL', 'mystream', 'group2', 'KEEPREF', 'IDS', '2', '1-0', '2-0')).toEqual([1, 1])
    expect(run('XPENDING', 'mystream', 'group2')).toEqual([0, null, null, 'nil-array'])
  })

  test('DELREF clears every group’s PEL; ACKED deletes once all groups have acknowledged', () => {
    const { run } = clocked()
    const setup = () => {
      run('DEL', 'mystream')
      run('XADD', 'mystream', '1-0', 'f', 'v')
      run('XADD', 'mystream', '2-0', 'f', 'v')
      run('XGROUP', 'CREATE', 'mystream', 'group1', '0')
      run('XGROUP', 'CREATE', 'mystream', 'group2', '0')
      run('XREADGROUP', 'GROUP', 'group1', 'consumer1', 'STREAMS', 'mystream', '>')
      run('XREADGROUP', 'GROUP', 'group2', 'consumer2', 'STREAMS', 'mystream', '>')
    }
    setup()
    expect(run('XACKDEL', 'mystream', 'group1', 'DELREF', 'IDS', '2', '1-0', '2-0')).toEqual([1, 1])
    expect(run('XLEN', 'mystream')).toBe(0)
    expect(run('XPENDING', 'mystream', 'group2')).toEqual([0, null, null, 'nil-array'])
    expect(run('XACKDEL', 'mystream', 'group2', 'DELREF', 'IDS', '2', '1-0', '2-0')).toEqual([-1, -1])
    setup()
    expect(run('XACKDEL', 'mystream', 'group1', 'ACKED', 'IDS', '2', '1-0', '2-0')).toEqual([2, 2])
    expect(run('XLEN', 'mystream')).toBe(2)
    expect(run('XPENDING', 'mystream', 'group1')).toEqual([0, null, null, 'nil-array'])
    expect(run('XACKDEL', 'mystream', 'group2', 'ACKED', 'IDS', '2', '1-0', '2-0')).toEqual([1, 1])
    expect(run('XLEN', 'mystream')).toBe(0)
  })

  test('argument errors, as the Redis 8.2 test suite checks them', () => {
    const { run } = clocked()
    expect(run('XACKDEL', 's', 'g')).toBe("-ERR wrong number of arguments for 'xackdel' command")
    run('XADD', 's', '1-0', 'f', 'v')
    run('XGROUP', 'CREATE', 's', 'g', '0')
    expect(run('XACKDEL', 's', 'g', 'IDS', 'abc', '1-1')).toBe('-ERR Number of IDs must be a positive integer')
    expect(run('XACKDEL', 's', 'g', 'IDS', '3', '1-1', '2-2')).toBe('-ERR The `numids` parameter must match the number of arguments')
    expect(run('XACKDEL', 's', 'g', 'IDS', '1', '1-1', '2-2')).toBe('-ERR syntax error')
    expect(run('XACKDEL', 's', 'g', 'KEEPREF', 'ACKED', 'IDS', '1', '1-1')).toBe('-ERR syntax error')
    expect(run('XACKDEL', 's', 'g', 'DELREF', 'ACKED', 'IDS', '1', '1-1')).toBe('-ERR syntax error')
    const ids = Array.from({ length: 50 }, (_, i) => `${i}-1`)
    expect(run('XACKDEL', 's', 'g', 'IDS', '50', ...ids)).toEqual(Array.from({ length: 50 }, () => -1))
  })
})
