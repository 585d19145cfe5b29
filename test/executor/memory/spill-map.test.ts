import { describe, expect, test } from 'vitest'
import { SpillMap } from '../../../src/executor/memory/lib/spill-map.js'
import { CursorTable } from '../../../src/executor/memory/scan-cursor.js'

/** The keyspace's Map past V8's 2^24 entries, exercised with a threshold of a few entries. */
describe('SpillMap', () => {
  test('behaves as a Map across segments: get, set, has, delete, size, order', () => {
    const map = new SpillMap<string, number>(4)
    for (let i = 0; i < 10; i++) map.set(`k${i}`, i)
    expect(map.segmentCount).toBe(3)
    expect(map.size).toBe(10)
    expect(map.get('k7')).toBe(7)
    expect(map.has('k9')).toBe(true)
    expect(map.get('nope')).toBeUndefined()
    // An overwrite stays where the key is; it does not grow the last segment.
    map.set('k1', 100)
    expect(map.get('k1')).toBe(100)
    expect(map.size).toBe(10)
    expect([...map.keys()]).toEqual(Array.from({ length: 10 }, (_, i) => `k${i}`))
    expect(map.delete('k5')).toBe(true)
    expect(map.delete('k5')).toBe(false)
    expect(map.size).toBe(9)
    expect([...map.values()].reduce((a, b) => a + b, 0)).toBe(45 - 1 - 5 + 100)
    const seen: string[] = []
    map.forEach((_, key) => seen.push(key))
    expect(seen).toHaveLength(9)
    expect(new Map(map)).toEqual(new Map(map.entries()))
    map.clear()
    expect(map.size).toBe(0)
    expect(map.segmentCount).toBe(1)
    map.set('again', 1)
    expect([...map]).toEqual([['again', 1]])
  })

  test('a live iterator visits keys added in later segments and skips deleted ones', () => {
    const map = new SpillMap<string, number>(3)
    for (let i = 0; i < 5; i++) map.set(`k${i}`, i)
    const iterator = map.keys()
    expect(iterator.next().value).toBe('k0')
    map.delete('k1')
    for (let i = 5; i < 9; i++) map.set(`k${i}`, i)
    expect([...iterator]).toEqual(['k2', 'k3', 'k4', 'k5', 'k6', 'k7', 'k8'])
  })

  test("SCAN's guarantee holds over segments: keys present throughout are returned despite churn", () => {
    const map = new SpillMap<string, number>(16)
    for (let i = 0; i < 100; i++) map.set(`stable${i}`, i)
    const table = new CursorTable<string>()
    const seen = new Set<string>()
    let cursor = 0
    let churn = 0
    do {
      const step = table.step(cursor, 7, () => map.keys())
      for (const key of step.items) seen.add(key)
      cursor = step.cursor
      // Between calls: new keys spill into new segments, and earlier churn goes away (fewer
      // keys are added than a step consumes, so the iteration catches up and ends).
      for (let i = 0; i < 4; i++) map.set(`churn${churn++}`, 0)
      for (let i = churn - 12; i < churn - 8; i++) map.delete(`churn${i}`)
    } while (cursor !== 0)
    for (let i = 0; i < 100; i++) expect(seen.has(`stable${i}`)).toBe(true)
    expect(map.segmentCount).toBeGreaterThan(6)
  })
})
