import { afterEach, describe, expect, test } from 'vitest'
import { expireHashFields } from '../../../src/executor/memory/types/hash.js'
import { closeEngines, memoryEngine, START, type Plain } from '../../support/engine.js'

/**
 * What the differential suite cannot compare live: random replies (membership), the HSCAN cursor
 * guarantee on large hashes, and the field-expiry commands of Redis 7.4 / 8.0, which the local
 * 7.0 server does not have. Those tests name the Redis command page they follow.
 */

afterEach(closeEngines)

/** A hash in Redis's hashtable encoding (one field longer than hash-max-listpack-value). */
function fillHashtable(run: (...command: string[]) => Plain, key: string, count: number): string[] {
  const fields = Array.from({ length: count }, (_, i) => `field:${i}`)
  run('HSET', key, 'x'.repeat(65), 'long')
  for (let i = 0; i < count; i += 100) {
    run('HSET', key, ...fields.slice(i, i + 100).flatMap((field) => [field, `v${field}`]))
  }
  run('HDEL', key, 'x'.repeat(65))
  expect(run('OBJECT', 'ENCODING', key)).toBe('hashtable')
  return fields
}

describe('HSCAN on a hashtable-encoded hash', () => {
  test('walks the hash in COUNT-sized steps and returns every field exactly once', () => {
    const { run } = memoryEngine()
    const fields = fillHashtable(run, 'h', 250)
    const seen: string[] = []
    let cursor = '0'
    let calls = 0
    do {
      const [next, flat] = run('HSCAN', 'h', cursor, 'COUNT', '7') as [string, string[]]
      expect(flat.length).toBeLessThanOrEqual(14)
      for (let i = 0; i < flat.length; i += 2) {
        expect(flat[i + 1]).toBe(`v${flat[i]}`)
        seen.push(flat[i])
      }
      cursor = next
      calls++
    } while (cursor !== '0')
    expect(calls).toBe(Math.ceil(250 / 7))
    expect(seen.sort()).toEqual([...fields].sort())
  })

  test('returns every field present for the whole iteration although the hash changes between calls', () => {
    const { run } = memoryEngine()
    const fields = fillHashtable(run, 'h', 600)
    // Fields 0..299 stay for the whole scan; 300..599 are deleted along the way; new ones arrive.
    const stable = new Set(fields.slice(0, 300))
    const doomed = fields.slice(300)
    const seen = new Set<string>()
    let cursor = '0'
    let step = 0
    do {
      const [next, flat] = run('HSCAN', 'h', cursor, 'COUNT', '10') as [string, string[]]
      for (let i = 0; i < flat.length; i += 2) seen.add(flat[i])
      cursor = next
      // Writes between calls: deletions (enough to compact the table), insertions, updates.
      run('HDEL', 'h', ...doomed.splice(0, 7))
      run('HSET', 'h', `new:${step}`, 'n', `new:${step}b`, 'n')
      run('HSET', 'h', fields[step % 300], 'updated')
      step++
    } while (cursor !== '0')
    for (const field of stable) expect(seen.has(field), field).toBe(true)
  })

  test('MATCH filters after COUNT: a step may return nothing yet continue', () => {
    const { run } = memoryEngine()
    fillHashtable(run, 'h', 100)
    run('HSET', 'h', 'needle', '1')
    const [cursor, flat] = run('HSCAN', 'h', '0', 'MATCH', 'needle', 'COUNT', '5') as [string, string[]]
    expect(cursor).not.toBe('0')
    expect(flat).toEqual([])
    let found: string[] = []
    let next = cursor
    while (next !== '0') {
      const reply = run('HSCAN', 'h', next, 'MATCH', 'needle', 'COUNT', '5') as [string, string[]]
      found = found.concat(reply[1])
      next = reply[0]
    }
    expect(found).toEqual(['needle', '1'])
  })

  test('a cursor past the end answers cursor 0 and no fields', () => {
    const { run } = memoryEngine()
    fillHashtable(run, 'h', 30)
    expect(run('HSCAN', 'h', '18446744073709551615')).toEqual(['0', []])
    expect(run('HSCAN', 'h', '-1')).toEqual(['0', []])
  })
})

test('HSCAN NOVALUES returns fields only (Redis 7.4, https://redis.io/docs/latest/commands/hscan/)', () => {
  const { run } = memoryEngine()
  run('HSET', 'h', 'a', '1', 'b', '2', 'c', '3')
  expect(run('HSCAN', 'h', '0', 'NOVALUES')).toEqual(['0', ['a', 'b', 'c']])
  expect(run('HSCAN', 'h', '0', 'MATCH', '[ab]', 'novalues')).toEqual(['0', ['a', 'b']])
  fillHashtable(run, 'big', 20)
  const [, flat] = run('HSCAN', 'big', '0', 'COUNT', '100', 'NOVALUES') as [string, string[]]
  expect(flat).toHaveLength(20)
  expect(flat.every((field) => field.startsWith('field:'))).toBe(true)
})

describe('HRANDFIELD samples', () => {
  const sizes: [string, number, number][] = [
    ['a listpack hash', 20, 7],
    ['a hashtable hash, count close to the size', 60, 40],
    ['a hashtable hash, count far below the size', 300, 10],
  ]
  for (const [what, size, count] of sizes) {
    test(`a positive count never repeats a field: ${what}`, () => {
      const { run } = memoryEngine()
      const fields = size > 50 ? fillHashtable(run, 'h', size) : Array.from({ length: size }, (_, i) => `f${i}`)
      if (size <= 50) run('HSET', 'h', ...fields.flatMap((field) => [field, `v${field}`]))
      for (let round = 0; round < 20; round++) {
        const picked = run('HRANDFIELD', 'h', String(count)) as string[]
        expect(picked).toHaveLength(count)
        expect(new Set(picked).size).toBe(count)
        for (const field of picked) expect(fields).toContain(field)
        const pairs = run('HRANDFIELD', 'h', String(count), 'WITHVALUES') as string[]
        expect(pairs).toHaveLength(2 * count)
        for (let i = 0; i < pairs.length; i += 2) expect(pairs[i + 1]).toBe(`v${pairs[i]}`)
      }
    })
  }

  test('a listpack hash gives its unique sample in hash order', () => {
    const { run } = memoryEngine()
    const fields = Array.from({ length: 30 }, (_, i) => `f${String(i).padStart(2, '0')}`)
    run('HSET', 'h', ...fields.flatMap((field) => [field, '1']))
    for (let round = 0; round < 20; round++) {
      const picked = run('HRANDFIELD', 'h', '10') as string[]
      expect(picked).toEqual([...picked].sort())
    }
  })

  test('a negative count may repeat fields and returns exactly |count| of them', () => {
    const { run } = memoryEngine()
    run('HSET', 'h', 'a', '1', 'b', '2')
    const picked = run('HRANDFIELD', 'h', '-50') as string[]
    expect(picked).toHaveLength(50)
    expect(new Set(picked)).toEqual(new Set(['a', 'b']))
    const pairs = run('HRANDFIELD', 'h', '-20', 'WITHVALUES') as string[]
    expect(pairs).toHaveLength(40)
    for (let i = 0; i < pairs.length; i += 2) expect(pairs[i + 1]).toBe(pairs[i] === 'a' ? '1' : '2')
  })

  test('a repeating sample larger than the engine can reply is refused at once (engine limit, not Redis)', () => {
    const { run } = memoryEngine()
    run('HSET', 'h', 'a', '1')
    const tooLarge = { error: 'ERR reply exceeds the limit of 1048576 elements per request (maxReplyElements of the in-memory engine); ask for fewer' }
    expect(run('HRANDFIELD', 'h', '-1048577')).toEqual(tooLarge)
    expect(run('HRANDFIELD', 'h', '-524289', 'WITHVALUES')).toEqual(tooLarge)
    expect(run('HRANDFIELD', 'nokey', '-16777217')).toEqual([])
    expect(run('HRANDFIELD', 'h', '16777217')).toEqual(['a'])
  })

  test('without a count, a field of the hash', () => {
    const { run } = memoryEngine()
    run('HSET', 'h', 'a', '1', 'b', '2', 'c', '3')
    for (let round = 0; round < 20; round++) expect(['a', 'b', 'c']).toContain(run('HRANDFIELD', 'h'))
  })
})

describe('HEXPIRE, HPEXPIRE, HEXPIREAT, HPEXPIREAT (Redis 7.4, https://redis.io/docs/latest/commands/hexpire/)', () => {
  test('the documented example: TTLs set on two fields, HTTL reads them', () => {
    const { run, advance } = memoryEngine()
    expect(run('HSET', 'mykey', 'field1', 'hello', 'field2', 'world')).toBe(2)
    expect(run('HEXPIRE', 'mykey', '10', 'FIELDS', '2', 'field1', 'field2')).toEqual([1, 1])
    expect(run('HTTL', 'mykey', 'FIELDS', '2', 'field1', 'field2')).toEqual([10, 10])
    advance(10_001) // a field lives through its deadline millisecond, as keys do
    expect(run('HGETALL', 'mykey')).toEqual([])
    expect(run('EXISTS', 'mykey')).toBe(0)
  })

  test('per-field codes: -2 missing field, 1 set, 2 deleted when the time is not in the future', () => {
    const { run } = memoryEngine()
    run('HSET', 'h', 'a', '1', 'b', '2', 'c', '3')
    expect(run('HEXPIRE', 'h', '100', 'FIELDS', '3', 'a', 'zz', 'b')).toEqual([1, -2, 1])
    expect(run('HEXPIRE', 'h', '0', 'FIELDS', '2', 'a', 'a')).toEqual([2, -2])
    expect(run('HPEXPIREAT', 'h', String(START - 1), 'FIELDS', '1', 'b')).toEqual([2])
    expect(run('HGETALL', 'h')).toEqual(['c', '3'])
    expect(run('HEXPIREAT', 'h', '1', 'FIELDS', '1', 'c')).toEqual([2])
    expect(run('EXISTS', 'h')).toBe(0)
  })

  test('a missing key answers -2 for every field', () => {
    const { run } = memoryEngine()
    expect(run('HEXPIRE', 'nokey', '10', 'NX', 'FIELDS', '2', 'a', 'b')).toEqual([-2, -2])
    expect(run('EXISTS', 'nokey')).toBe(0)
  })

  test('NX, XX, GT and LT; a field without TTL counts as an infinite TTL for GT and LT', () => {
    const { run } = memoryEngine()
    run('HSET', 'h', 'ttl', '1', 'none', '2')
    expect(run('HEXPIRE', 'h', '100', 'FIELDS', '1', 'ttl')).toEqual([1])
    expect(run('HEXPIRE', 'h', '200', 'NX', 'FIELDS', '2', 'ttl', 'none')).toEqual([0, 1])
    expect(run('HPERSIST', 'h', 'FIELDS', '1', 'none')).toEqual([1])
    expect(run('HEXPIRE', 'h', '300', 'XX', 'FIELDS', '2', 'ttl', 'none')).toEqual([1, 0])
    expect(run('HEXPIRE', 'h', '300', 'GT', 'FIELDS', '2', 'ttl', 'none')).toEqual([0, 0])
    expect(run('HEXPIRE', 'h', '400', 'gt', 'FIELDS', '1', 'ttl')).toEqual([1])
    expect(run('HEXPIRE', 'h', '400', 'LT', 'FIELDS', '2', 'ttl', 'none')).toEqual([0, 1])
    expect(run('HEXPIRE', 'h', '50', 'lt', 'FIELDS', '1', 'ttl')).toEqual([1])
    expect(run('HTTL', 'h', 'FIELDS', '2', 'ttl', 'none')).toEqual([50, 400])
  })

  test('units and bases: seconds and milliseconds, relative and absolute', () => {
    const { run } = memoryEngine()
    run('HSET', 'h', 'a', '1', 'b', '2', 'c', '3', 'd', '4')
    run('HEXPIRE', 'h', '10', 'FIELDS', '1', 'a')
    run('HPEXPIRE', 'h', '1500', 'FIELDS', '1', 'b')
    run('HEXPIREAT', 'h', String(START / 1000 + 20), 'FIELDS', '1', 'c')
    run('HPEXPIREAT', 'h', String(START + 2500), 'FIELDS', '1', 'd')
    expect(run('HPEXPIRETIME', 'h', 'FIELDS', '4', 'a', 'b', 'c', 'd')).toEqual([START + 10_000, START + 1500, START + 20_000, START + 2500])
    expect(run('HPTTL', 'h', 'FIELDS', '4', 'a', 'b', 'c', 'd')).toEqual([10_000, 1500, 20_000, 2500])
  })

  test('argument errors, in Redis order: WRONGTYPE, time, FIELDS, numfields', () => {
    const { run } = memoryEngine()
    run('SET', 'str', 'x')
    run('HSET', 'h', 'a', '1')
    const wrongType = 'WRONGTYPE Operation against a key holding the wrong kind of value'
    expect(run('HEXPIRE', 'str', 'x', 'FIELDS', '1', 'a')).toEqual({ error: wrongType })
    expect(run('HEXPIRE', 'h', 'x', 'FIELDS', '1', 'a')).toEqual({ error: 'ERR value is not an integer or out of range' })
    expect(run('HEXPIRE', 'h', '-1', 'FIELDS', '1', 'a')).toEqual({ error: 'ERR invalid expire time, must be >= 0' })
    expect(run('HEXPIRE', 'h', '70368744178', 'FIELDS', '1', 'a')).toEqual({ error: "ERR invalid expire time in 'hexpire' command" })
    expect(run('HPEXPIREAT', 'h', '70368744177664', 'FIELDS', '1', 'a')).toEqual({ error: "ERR invalid expire time in 'hpexpireat' command" })
    expect(run('HPEXPIREAT', 'h', '70368744177663', 'FIELDS', '1', 'a')).toEqual([1])
    expect(run('HEXPIRE', 'h', '10', 'FIELD', '1', 'a')).toEqual({ error: 'ERR Mandatory argument FIELDS is missing or not at the right position' })
    expect(run('HEXPIRE', 'h', '10', 'XX', '1', 'a')).toEqual({ error: 'ERR Mandatory argument FIELDS is missing or not at the right position' })
    expect(run('HEXPIRE', 'h', '10', 'FIELDS', '0', 'a')).toEqual({ error: 'ERR Parameter `numFields` should be greater than 0' })
    expect(run('HEXPIRE', 'h', '10', 'FIELDS', 'x', 'a')).toEqual({ error: 'ERR Parameter `numFields` should be greater than 0' })
    expect(run('HEXPIRE', 'h', '10', 'FIELDS', '2', 'a')).toEqual({ error: 'ERR The `numfields` parameter must match the number of arguments' })
    expect(run('HEXPIRE', 'h', '10', 'FIELDS', '1', 'a', 'b')).toEqual({ error: 'ERR The `numfields` parameter must match the number of arguments' })
    expect(run('HEXPIRE', 'h', '10', 'FIELDS', '1')).toEqual({ error: "ERR wrong number of arguments for 'hexpire' command" })
  })
})

describe('HTTL, HPTTL, HEXPIRETIME, HPEXPIRETIME (Redis 7.4, https://redis.io/docs/latest/commands/httl/)', () => {
  test('-2 for a missing field or key, -1 without TTL, seconds rounded up', () => {
    const { run, advance } = memoryEngine()
    run('HSET', 'h', 'a', '1', 'b', '2')
    run('HPEXPIRE', 'h', '10500', 'FIELDS', '1', 'a')
    expect(run('HTTL', 'h', 'FIELDS', '3', 'a', 'b', 'zz')).toEqual([11, -1, -2])
    expect(run('HPTTL', 'h', 'FIELDS', '1', 'a')).toEqual([10_500])
    expect(run('HEXPIRETIME', 'h', 'FIELDS', '2', 'a', 'b')).toEqual([Math.ceil((START + 10_500) / 1000), -1])
    expect(run('HPEXPIRETIME', 'h', 'FIELDS', '1', 'a')).toEqual([START + 10_500])
    advance(10_499)
    expect(run('HTTL', 'h', 'FIELDS', '1', 'a')).toEqual([1])
    expect(run('HPTTL', 'h', 'FIELDS', '1', 'a')).toEqual([1])
    advance(1)
    expect(run('HPTTL', 'h', 'FIELDS', '1', 'a')).toEqual([0]) // at the deadline: alive, 0 ms left
    advance(1)
    expect(run('HTTL', 'h', 'FIELDS', '1', 'a')).toEqual([-2])
    expect(run('HTTL', 'nokey', 'FIELDS', '2', 'a', 'b')).toEqual([-2, -2])
  })

  test('argument errors', () => {
    const { run } = memoryEngine()
    run('SET', 'str', 'x')
    expect(run('HTTL', 'str', 'FIELDS', '1', 'a')).toEqual({ error: 'WRONGTYPE Operation against a key holding the wrong kind of value' })
    expect(run('HTTL', 'h', 'FIELDX', '1', 'a')).toEqual({ error: 'ERR Mandatory argument FIELDS is missing or not at the right position' })
    expect(run('HPTTL', 'h', 'FIELDS', '0', 'a')).toEqual({ error: 'ERR Number of fields must be a positive integer' })
    expect(run('HEXPIRETIME', 'h', 'FIELDS', '-1', 'a')).toEqual({ error: 'ERR Number of fields must be a positive integer' })
    expect(run('HPEXPIRETIME', 'h', 'FIELDS', '3', 'a', 'b')).toEqual({ error: 'ERR The `numfields` parameter must match the number of arguments' })
  })
})

describe('HPERSIST (Redis 7.4, https://redis.io/docs/latest/commands/hpersist/)', () => {
  test('-2 missing, -1 without TTL, 1 when the TTL is removed', () => {
    const { run, advance } = memoryEngine()
    run('HSET', 'h', 'a', '1', 'b', '2')
    run('HEXPIRE', 'h', '10', 'FIELDS', '1', 'a')
    expect(run('HPERSIST', 'h', 'FIELDS', '3', 'a', 'b', 'zz')).toEqual([1, -1, -2])
    expect(run('HPERSIST', 'h', 'FIELDS', '1', 'a')).toEqual([-1])
    advance(60_000)
    expect(run('HGET', 'h', 'a')).toBe('1')
    expect(run('HPERSIST', 'nokey', 'FIELDS', '1', 'a')).toEqual([-2])
    expect(run('HPERSIST', 'h', 'FIELDS', '0', 'a')).toEqual({ error: 'ERR Number of fields must be a positive integer' })
  })
})

describe('expired fields vanish (Redis 7.4, https://redis.io/docs/latest/develop/data-types/hashes/#field-expiration)', () => {
  test('lazily on access: reads skip them and the hash is deleted with its last field', () => {
    const { run, advance } = memoryEngine()
    run('HSET', 'h', 'a', '1', 'b', '2', 'c', '3')
    run('HPEXPIRE', 'h', '100', 'FIELDS', '2', 'a', 'b')
    advance(100)
    expect(run('HGET', 'h', 'a')).toBe('1') // alive through the deadline millisecond
    advance(1)
    expect(run('HGET', 'h', 'a')).toBe(null)
    expect(run('HLEN', 'h')).toBe(1)
    expect(run('HGETALL', 'h')).toEqual(['c', '3'])
    expect(run('HEXISTS', 'h', 'b')).toBe(0)
    run('HPEXPIRE', 'h', '1', 'FIELDS', '1', 'c')
    advance(2)
    expect(run('HMGET', 'h', 'a', 'c')).toEqual([null, null])
    expect(run('EXISTS', 'h')).toBe(0)
  })

  test('a write to an expired field starts a new field; a hash whose fields all expired is recreated', () => {
    const { run, advance } = memoryEngine()
    run('HSET', 'h', 'a', '1')
    run('HPEXPIRE', 'h', '10', 'FIELDS', '1', 'a')
    advance(11)
    expect(run('HSETNX', 'h', 'a', 'fresh')).toBe(1)
    expect(run('HTTL', 'h', 'FIELDS', '1', 'a')).toEqual([-1])
    run('HPEXPIRE', 'h', '10', 'FIELDS', '1', 'a')
    advance(11)
    expect(run('HINCRBY', 'h', 'a', '5')).toBe(5)
  })

  test('actively: expireHashFields reclaims due fields and deletes emptied hashes without any access', () => {
    const { executor, run, advance, now } = memoryEngine()
    run('HSET', 'h', 'a', '1', 'b', '2')
    run('HSET', 'g', 'x', '1')
    run('HPEXPIRE', 'h', '100', 'FIELDS', '1', 'a')
    run('HPEXPIRE', 'h', '300', 'FIELDS', '1', 'b')
    run('HPEXPIRE', 'g', '200', 'FIELDS', '1', 'x')
    const db = executor.engine.databases[0]
    expect(expireHashFields(db, now + 100)).toBe(0)
    advance(101)
    expect(expireHashFields(db, now + 101)).toBe(1)
    expect(db.data.has('h')).toBe(true)
    expect(expireHashFields(db, now + 301)).toBe(2)
    expect(db.data.has('h')).toBe(false)
    expect(db.data.has('g')).toBe(false)
  })

  test('actively, with many hashes: deleted and replaced hashes are skipped, a renamed one expires lazily', () => {
    const { executor, run, advance } = memoryEngine()
    for (let i = 0; i < 3000; i++) {
      run('HSET', `h${i}`, 'f', '1', 'keep', '1')
      run('HPEXPIRE', `h${i}`, String(1000 + i), 'FIELDS', '1', 'f')
    }
    for (let i = 0; i < 3000; i += 2) run('DEL', `h${i}`)
    run('SET', 'h1', 'now a string')
    run('RENAME', 'h3', 'renamed')
    const db = executor.engine.databases[0]
    advance(5000)
    expect(expireHashFields(db, START + 5000)).toBe(1498)
    expect(run('HKEYS', 'h5')).toEqual(['keep'])
    expect(run('GET', 'h1')).toBe('now a string')
    expect(run('HLEN', 'renamed')).toBe(1)
  })

  test('HSET discards a field TTL; HINCRBY, HINCRBYFLOAT keep it; HDEL removes it with the field', () => {
    const { run } = memoryEngine()
    run('HSET', 'h', 'a', '1', 'b', '2', 'c', '3')
    run('HEXPIRE', 'h', '100', 'FIELDS', '3', 'a', 'b', 'c')
    run('HSET', 'h', 'a', 'new')
    run('HINCRBY', 'h', 'b', '1')
    run('HINCRBYFLOAT', 'h', 'c', '0.5')
    expect(run('HTTL', 'h', 'FIELDS', '3', 'a', 'b', 'c')).toEqual([-1, 100, 100])
    run('HDEL', 'h', 'b')
    run('HSET', 'h', 'b', 'back')
    expect(run('HTTL', 'h', 'FIELDS', '1', 'b')).toEqual([-1])
  })

  test('OBJECT ENCODING reports listpackex once a field-expiry command touched a listpack (Redis 7.4)', () => {
    const { run } = memoryEngine()
    run('HSET', 'h', 'a', '1')
    expect(run('OBJECT', 'ENCODING', 'h')).toBe('listpack')
    run('HEXPIRE', 'h', '100', 'FIELDS', '1', 'zz')
    expect(run('OBJECT', 'ENCODING', 'h')).toBe('listpackex')
  })

  test('a listpackex lists fields with a TTL first, soonest first, then the others in order', () => {
    const { run } = memoryEngine()
    run('HSET', 'h', 'a', '1', 'b', '2', 'c', '3', 'd', '4')
    run('HEXPIRE', 'h', '300', 'FIELDS', '1', 'c')
    run('HEXPIRE', 'h', '100', 'FIELDS', '1', 'd')
    expect(run('HKEYS', 'h')).toEqual(['d', 'c', 'a', 'b'])
    run('HPERSIST', 'h', 'FIELDS', '1', 'd')
    expect(run('HKEYS', 'h')).toEqual(['c', 'a', 'b', 'd'])
    expect(run('HSCAN', 'h', '0')).toEqual(['0', ['c', '3', 'a', '1', 'b', '2', 'd', '4']])
  })
})

describe('HGETDEL (Redis 8.0, https://redis.io/docs/latest/commands/hgetdel/)', () => {
  test('the documented example: values or nil, the fields are gone, then the key', () => {
    const { run } = memoryEngine()
    run('HSET', 'mykey', 'field1', 'Hello', 'field2', 'World', 'field3', '!')
    expect(run('HGETDEL', 'mykey', 'FIELDS', '2', 'field3', 'field4')).toEqual(['!', null])
    expect(run('HGETALL', 'mykey')).toEqual(['field1', 'Hello', 'field2', 'World'])
    expect(run('HGETDEL', 'mykey', 'FIELDS', '2', 'field1', 'field2')).toEqual(['Hello', 'World'])
    expect(run('EXISTS', 'mykey')).toBe(0)
  })

  test('a repeated field is returned once; a missing key gives nils; argument errors', () => {
    const { run } = memoryEngine()
    run('HSET', 'h', 'a', '1', 'b', '2')
    expect(run('HGETDEL', 'h', 'FIELDS', '2', 'a', 'a')).toEqual(['1', null])
    expect(run('HGETDEL', 'nokey', 'FIELDS', '2', 'a', 'b')).toEqual([null, null])
    expect(run('HGETDEL', 'h', 'FIELD', '1', 'b')).toEqual({ error: 'ERR Mandatory argument FIELDS is missing or not at the right position' })
    expect(run('HGETDEL', 'h', 'FIELDS', '0', 'b')).toEqual({ error: 'ERR Number of fields must be a positive integer' })
    expect(run('HGETDEL', 'h', 'FIELDS', '2', 'b')).toEqual({ error: 'ERR The `numfields` parameter must match the number of arguments' })
    run('SET', 'str', 'x')
    expect(run('HGETDEL', 'str', 'FIELDS', '1', 'b')).toEqual({ error: 'WRONGTYPE Operation against a key holding the wrong kind of value' })
  })
})

describe('HGETEX (Redis 8.0, https://redis.io/docs/latest/commands/hgetex/)', () => {
  test('the documented example: EX sets TTLs, PERSIST removes them', () => {
    const { run, advance } = memoryEngine()
    run('HSET', 'mykey', 'field1', 'Hello', 'field2', 'World')
    expect(run('HGETEX', 'mykey', 'EX', '120', 'FIELDS', '1', 'field1')).toEqual(['Hello'])
    expect(run('HGETEX', 'mykey', 'EX', '100', 'FIELDS', '1', 'field2')).toEqual(['World'])
    advance(29_000)
    expect(run('HTTL', 'mykey', 'FIELDS', '3', 'field1', 'field2', 'field3')).toEqual([91, 71, -2])
    expect(run('HGETEX', 'mykey', 'PERSIST', 'FIELDS', '1', 'field1')).toEqual(['Hello'])
    expect(run('HTTL', 'mykey', 'FIELDS', '2', 'field1', 'field2')).toEqual([-1, 71])
  })

  test('without an option it reads like HMGET and keeps TTLs; PX, EXAT, PXAT; a due time deletes', () => {
    const { run } = memoryEngine()
    run('HSET', 'h', 'a', '1', 'b', '2', 'c', '3')
    run('HEXPIRE', 'h', '50', 'FIELDS', '1', 'a')
    expect(run('HGETEX', 'h', 'FIELDS', '3', 'a', 'b', 'zz')).toEqual(['1', '2', null])
    expect(run('HTTL', 'h', 'FIELDS', '1', 'a')).toEqual([50])
    expect(run('HGETEX', 'h', 'PX', '1500', 'FIELDS', '1', 'a')).toEqual(['1'])
    expect(run('HGETEX', 'h', 'EXAT', String(START / 1000 + 9), 'FIELDS', '1', 'b')).toEqual(['2'])
    expect(run('HGETEX', 'h', 'PXAT', String(START + 7), 'FIELDS', '1', 'c')).toEqual(['3'])
    expect(run('HPTTL', 'h', 'FIELDS', '3', 'a', 'b', 'c')).toEqual([1500, 9000, 7])
    expect(run('HGETEX', 'h', 'EX', '0', 'FIELDS', '2', 'a', 'a')).toEqual(['1', null])
    expect(run('HGETEX', 'h', 'PXAT', '1', 'FIELDS', '2', 'b', 'c')).toEqual(['2', '3'])
    expect(run('EXISTS', 'h')).toBe(0)
    expect(run('HGETEX', 'h', 'EX', '10', 'FIELDS', '1', 'a')).toEqual([null])
  })

  test('argument errors', () => {
    const { run } = memoryEngine()
    run('HSET', 'h', 'a', '1')
    expect(run('HGETEX', 'h', 'EX', 'x', 'FIELDS', '1', 'a')).toEqual({ error: 'ERR value is not an integer or out of range' })
    expect(run('HGETEX', 'h', 'EX', '-1', 'FIELDS', '1', 'a')).toEqual({ error: 'ERR invalid expire time, must be >= 0' })
    expect(run('HGETEX', 'h', 'PX', '70368744177664', 'FIELDS', '1', 'a')).toEqual({ error: "ERR invalid expire time in 'hgetex' command" })
    expect(run('HGETEX', 'h', 'KEEPTTL', 'FIELDS', '1', 'a')).toEqual({ error: 'ERR Mandatory argument FIELDS is missing or not at the right position' })
    expect(run('HGETEX', 'h', 'PERSIST', 'FIELDS', '0', 'a')).toEqual({ error: 'ERR Number of fields must be a positive integer' })
    expect(run('HGETEX', 'h', 'FIELDS', '2', 'a')).toEqual({ error: 'ERR The `numfields` parameter must match the number of arguments' })
    expect(run('HGETEX', 'h', 'EX', '10', 'FIELDS')).toEqual({ error: "ERR wrong number of arguments for 'hgetex' command" })
  })
})

describe('HSETEX (Redis 8.0, https://redis.io/docs/latest/commands/hsetex/)', () => {
  test('the documented example: EXAT on two fields, FNX refuses when a field exists', () => {
    const { run } = memoryEngine()
    const exat = START / 1000 + 55_627
    expect(run('HSETEX', 'mykey', 'EXAT', String(exat), 'FIELDS', '2', 'field1', 'Hello', 'field2', 'World')).toBe(1)
    expect(run('HTTL', 'mykey', 'FIELDS', '2', 'field1', 'field2')).toEqual([55_627, 55_627])
    expect(run('HSETEX', 'mykey', 'FNX', 'EX', '60', 'FIELDS', '2', 'field1', 'Hello', 'field2', 'World')).toBe(0)
  })

  test('FNX sets only when no field exists, FXX only when all exist; all or nothing', () => {
    const { run } = memoryEngine()
    expect(run('HSETEX', 'h', 'FXX', 'FIELDS', '1', 'a', '1')).toBe(0)
    expect(run('EXISTS', 'h')).toBe(0)
    expect(run('HSETEX', 'h', 'FNX', 'FIELDS', '2', 'a', '1', 'b', '2')).toBe(1)
    expect(run('HSETEX', 'h', 'FNX', 'FIELDS', '2', 'c', '3', 'a', 'x')).toBe(0)
    expect(run('HSETEX', 'h', 'FXX', 'FIELDS', '2', 'a', 'x', 'c', '3')).toBe(0)
    expect(run('HSETEX', 'h', 'FXX', 'FIELDS', '2', 'a', 'x', 'b', 'y')).toBe(1)
    expect(run('HGETALL', 'h')).toEqual(['a', 'x', 'b', 'y'])
  })

  test('without a TTL option the old TTL is discarded; KEEPTTL keeps it; a due time deletes the fields', () => {
    const { run } = memoryEngine()
    run('HSETEX', 'h', 'EX', '100', 'FIELDS', '2', 'a', '1', 'b', '2')
    run('HSETEX', 'h', 'FIELDS', '1', 'a', 'x')
    run('HSETEX', 'h', 'KEEPTTL', 'FIELDS', '1', 'b', 'y')
    expect(run('HTTL', 'h', 'FIELDS', '2', 'a', 'b')).toEqual([-1, 100])
    run('HSETEX', 'h', 'PX', '500', 'FIELDS', '1', 'a', 'z')
    expect(run('HPTTL', 'h', 'FIELDS', '1', 'a')).toEqual([500])
    expect(run('HSETEX', 'h', 'PXAT', '1', 'FIELDS', '2', 'a', '1', 'b', '2')).toBe(1)
    expect(run('EXISTS', 'h')).toBe(0)
    expect(run('HSETEX', 'g', 'EX', '0', 'FIELDS', '1', 'a', '1')).toBe(1)
    expect(run('EXISTS', 'g')).toBe(0)
  })

  test('argument errors: parsed before the key type is checked', () => {
    const { run } = memoryEngine()
    run('SET', 'str', 'x')
    const error = (message: string) => ({ error: message })
    expect(run('HSETEX', 'str', 'FIELDS', '1', 'a', '1')).toEqual(error('WRONGTYPE Operation against a key holding the wrong kind of value'))
    expect(run('HSETEX', 'str', 'EX', '10', 'PX', '10', 'FIELDS', '1', 'a', '1')).toEqual(error('ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified'))
    expect(run('HSETEX', 'h', 'KEEPTTL', 'KEEPTTL', 'FIELDS', '1', 'a', '1')).toEqual(error('ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified'))
    expect(run('HSETEX', 'h', 'FNX', 'FXX', 'FIELDS', '1', 'a', '1')).toEqual(error('ERR Only one of FXX or FNX arguments can be specified'))
    expect(run('HSETEX', 'h', 'FIELDS', '2', 'a', '1', 'b')).toEqual(error("ERR wrong number of arguments for 'hsetex' command"))
    expect(run('HSETEX', 'h', 'FIELDS', '2', 'a', '1')).toEqual(error("ERR wrong number of arguments for 'hsetex' command"))
    expect(run('HSETEX', 'h', 'FIELDS', '0', 'a', '1')).toEqual(error('ERR invalid number of fields'))
    expect(run('HSETEX', 'h', 'FIELDS', '2147483648', 'a', '1')).toEqual(error('ERR invalid number of fields'))
    expect(run('HSETEX', 'h', 'BOGUS', 'FIELDS', '1', 'a', '1')).toEqual(error('ERR unknown argument: BOGUS'))
    expect(run('HSETEX', 'h', 'EX', '-5', 'FIELDS', '1', 'a', '1')).toEqual(error('ERR invalid expire time, must be >= 0'))
    expect(run('HSETEX', 'h', 'EXAT', '70368744178', 'FIELDS', '1', 'a', '1')).toEqual(error("ERR invalid expire time in 'hsetex' command"))
    expect(run('HSETEX', 'h', 'FNX', 'KEEPTTL', 'FIELDS', 'EX', '1', '2')).toEqual(error('ERR invalid number of fields'))
    expect(run('HSETEX', 'h', 'FXX', 'KEEPTTL', 'FNX', 'EX', '1')).toEqual(error('ERR Only one of FXX or FNX arguments can be specified'))
    expect(run('HSETEX', 'h', 'FNX', 'KEEPTTL', 'PX', 'EX', '1')).toEqual(error('ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified'))
    expect(run('HSETEX', 'h', 'FNX', 'FIELDS', '1', 'EX', '10')).toBe(1)
    expect(run('HGETALL', 'h')).toEqual(['EX', '10'])
  })
})
