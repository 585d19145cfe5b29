import { afterEach, describe, expect, test } from 'vitest'
import { OrderedTable } from '../../../src/executor/memory/types/ordered-table.js'
import { closeEngines, memoryEngine, type Plain } from '../../support/engine.js'

/**
 * What the differential suite cannot compare live: random replies (SPOP, SRANDMEMBER) checked
 * for membership and distinctness, and the SSCAN cursor guarantee on hash-table sets, whose
 * order Redis does not define.
 */

afterEach(closeEngines)

function fill(run: (...command: string[]) => Plain, key: string, count: number): string[] {
  const members = Array.from({ length: count }, (_, i) => `m${i}`)
  for (let i = 0; i < count; i += 100) run('SADD', key, ...members.slice(i, i + 100))
  return members
}

describe('SSCAN on a hash-table set', () => {
  test('walks the set in COUNT-sized steps and returns every member exactly once', () => {
    const { run } = memoryEngine()
    const members = fill(run, 's', 95)
    const seen: string[] = []
    let cursor = '0'
    do {
      const [next, batch] = run('SSCAN', 's', cursor, 'COUNT', '10') as [string, string[]]
      expect(batch.length).toBeLessThanOrEqual(10)
      seen.push(...batch)
      cursor = next
    } while (cursor !== '0')
    expect(seen.sort()).toEqual([...members].sort())
  })

  test('a small set with no more members than COUNT comes back whole with cursor 0', () => {
    const { run } = memoryEngine()
    run('SADD', 's', 'a', 'b', 'c')
    const [cursor, batch] = run('SSCAN', 's', '0') as [string, string[]]
    expect(cursor).toBe('0')
    expect([...batch].sort()).toEqual(['a', 'b', 'c'])
  })

  test('returns every member present for the whole iteration although the set changes between calls', () => {
    const { run } = memoryEngine()
    const members = fill(run, 's', 800)
    const stable = members.filter((_, i) => i % 2 === 0)
    const doomed = members.filter((_, i) => i % 2 === 1)
    const seen = new Set<string>()
    let cursor = '0'
    let step = 0
    do {
      const [next, batch] = run('SSCAN', 's', cursor, 'COUNT', '9') as [string, string[]]
      for (const member of batch) seen.add(member)
      cursor = next
      run('SREM', 's', ...doomed.splice(0, 9))
      run('SADD', 's', `new${step}`, `new${step}b`, `new${step}c`)
      step++
    } while (cursor !== '0')
    for (const member of stable) expect(seen.has(member), member).toBe(true)
  })

  test('an intset comes back whole and sorted whatever the cursor', () => {
    const { run } = memoryEngine()
    run('SADD', 's', ...Array.from({ length: 100 }, (_, i) => String(99 - i)))
    const [cursor, batch] = run('SSCAN', 's', '17', 'COUNT', '3') as [string, string[]]
    expect(cursor).toBe('0')
    expect(batch).toEqual(Array.from({ length: 100 }, (_, i) => String(i)))
  })
})

describe('SRANDMEMBER', () => {
  const shapes: [string, number, number][] = [
    ['count close to the size', 30, 25],
    ['count far below the size', 300, 5],
    ['an intset', 50, 20],
  ]
  for (const [what, size, count] of shapes) {
    test(`a positive count returns distinct members: ${what}`, () => {
      const { run } = memoryEngine()
      const members = what === 'an intset' ? Array.from({ length: size }, (_, i) => String(i)) : fill(run, 's', size)
      if (what === 'an intset') run('SADD', 's', ...members)
      for (let round = 0; round < 20; round++) {
        const picked = run('SRANDMEMBER', 's', String(count)) as string[]
        expect(picked).toHaveLength(count)
        expect(new Set(picked).size).toBe(count)
        for (const member of picked) expect(members).toContain(member)
      }
      expect(run('SCARD', 's')).toBe(size)
    })
  }

  test('a negative count returns |count| members and may repeat them', () => {
    const { run } = memoryEngine()
    run('SADD', 's', 'a', 'b')
    const picked = run('SRANDMEMBER', 's', '-40') as string[]
    expect(picked).toHaveLength(40)
    expect(new Set(picked)).toEqual(new Set(['a', 'b']))
  })

  test('a repeating sample larger than the engine can reply is refused at once (engine limit, not Redis)', () => {
    const { run } = memoryEngine()
    run('SADD', 's', 'a')
    expect(run('SRANDMEMBER', 's', '-1048577')).toEqual({ error: 'ERR reply exceeds the limit of 1048576 elements per request (maxReplyElements of the in-memory engine); ask for fewer' })
    expect(run('SRANDMEMBER', 'nokey', '-16777217')).toEqual([])
    expect(run('SRANDMEMBER', 's', '16777217')).toEqual(['a'])
  })

  test('without a count, a member of the set', () => {
    const { run } = memoryEngine()
    run('SADD', 's', 'a', 'b', 'c')
    for (let round = 0; round < 20; round++) expect(['a', 'b', 'c']).toContain(run('SRANDMEMBER', 's'))
  })
})

describe('SPOP', () => {
  test('popped members are distinct, come from the set and leave it', () => {
    const { run } = memoryEngine()
    const members = fill(run, 's', 200)
    const popped: string[] = []
    popped.push(run('SPOP', 's') as string)
    popped.push(...(run('SPOP', 's', '50') as string[]))
    popped.push(...(run('SPOP', 's', '120') as string[]))
    expect(popped).toHaveLength(171)
    expect(new Set(popped).size).toBe(171)
    const remaining = run('SMEMBERS', 's') as string[]
    expect(remaining).toHaveLength(29)
    expect([...popped, ...remaining].sort()).toEqual([...members].sort())
    for (const member of popped) expect(run('SISMEMBER', 's', member)).toBe(0)
  })

  test('popping most of an intset returns the popped members in ascending order', () => {
    const { run } = memoryEngine()
    const members = Array.from({ length: 100 }, (_, i) => String(i))
    run('SADD', 's', ...members)
    const popped = run('SPOP', 's', '90') as string[]
    expect(popped).toHaveLength(90)
    expect(popped).toEqual([...popped].sort((a, b) => Number(a) - Number(b)))
    const remaining = run('SMEMBERS', 's') as string[]
    expect(remaining).toHaveLength(10)
    expect([...popped, ...remaining].sort()).toEqual([...members].sort())
    expect(run('OBJECT', 'ENCODING', 's')).toBe('intset')
  })

  test('popping the last members deletes the key', () => {
    const { run } = memoryEngine()
    run('SADD', 's', 'a', 'b', 'c')
    run('SPOP', 's', '2')
    run('SPOP', 's')
    expect(run('EXISTS', 's')).toBe(0)
    expect(run('SPOP', 's')).toBe(null)
  })
})

describe('OrderedTable (the storage of sets and hashes)', () => {
  test('a cursor stays valid when deletions compact the table', () => {
    const table = new OrderedTable<number>()
    for (let i = 0; i < 100; i++) table.set(`k${i}`, i)
    const first: string[] = []
    const cursor = table.scan(0, 10, (key) => first.push(key))
    expect(first).toEqual(Array.from({ length: 10 }, (_, i) => `k${i}`))
    for (let i = 0; i < 80; i++) if (i % 10 !== 9) table.delete(`k${i}`)
    const rest: string[] = []
    let next = cursor
    while (next !== 0) next = table.scan(next, 7, (key) => rest.push(key))
    expect(rest).toEqual([...[19, 29, 39, 49, 59, 69, 79].map((i) => `k${i}`), ...Array.from({ length: 20 }, (_, i) => `k${80 + i}`)])
  })

  test('updating a value keeps the key in place; re-adding a deleted key moves it to the end', () => {
    const table = new OrderedTable<string>()
    table.set('a', '1')
    table.set('b', '2')
    table.set('c', '3')
    expect(table.set('a', 'x')).toBe(false)
    table.delete('b')
    expect(table.set('b', 'y')).toBe(true)
    expect(table.keyList()).toEqual(['a', 'c', 'b'])
    expect(table.get('a')).toBe('x')
    expect(table.size).toBe(3)
  })

  test('random entries are live entries, also with many holes', () => {
    const table = new OrderedTable<number>()
    for (let i = 0; i < 40; i++) table.set(`k${i}`, i)
    for (let i = 0; i < 40; i++) if (i % 4 !== 0) table.delete(`k${i}`)
    for (let round = 0; round < 100; round++) {
      const [key, value] = table.randomEntry()
      expect(key).toBe(`k${value}`)
      expect(value % 4).toBe(0)
    }
  })
})
