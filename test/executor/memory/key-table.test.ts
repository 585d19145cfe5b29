import { describe, expect, test } from 'vitest'
import { KeyTable, NO_STAMP, PAGE_SLOTS } from '../../../src/executor/memory/key-table.js'
import { mulberry32 } from '../../differential/random-source.js'

/** Stores `value` for `key` as the keyspace does: in its slot when present, else in a new one. */
function store(table: KeyTable<string>, key: string, value: string): void {
  const slot = table.slotOf(key)
  if (slot === undefined) table.add(key, value)
  else table.setValueAt(slot, value)
}

/** Every key, value and stamp of `table` equals the reference's, in the same order. */
function expectSame(table: KeyTable<string>, values: Map<string, string>, stamps: Map<string, number>): void {
  expect(table.size).toBe(values.size)
  expect([...table.entries()]).toEqual([...values.entries()])
  const looked = [...values.keys()].map((key) => [table.get(key), table.stampOf(key)])
  expect(looked).toEqual([...values].map(([key, value]) => [value, stamps.get(key)]))
}

describe('KeyTable', () => {
  test('matches a Map of values and a Map of stamps through random adds, overwrites, restamps and deletes across pages', () => {
    const random = mulberry32(16)
    const table = new KeyTable<string>()
    const values = new Map<string, string>()
    const stamps = new Map<string, number>()
    // Past the first page, with deletes in between, so freed slots are reused on later pages too.
    for (let step = 0; step < PAGE_SLOTS * 4; step++) {
      const key = `k${Math.floor(random() * PAGE_SLOTS * 2)}`
      const action = random()
      if (action < 0.6) {
        store(table, key, `v${step}`)
        values.set(key, `v${step}`)
      } else if (action < 0.8) {
        const slot = table.slotOf(key)
        if (slot !== undefined) table.setStampAt(slot, step)
        if (values.has(key)) stamps.set(key, step)
      } else {
        expect(table.delete(key)).toBe(values.delete(key))
        stamps.delete(key)
      }
    }
    expect(table.size).toBeGreaterThan(PAGE_SLOTS)
    expectSame(table, values, stamps)
  })

  test('a reused slot carries neither the value nor the stamp of the key that held it', () => {
    const table = new KeyTable<string>()
    table.add('a', '1', 7)
    table.add('b', '2', 8)
    const slot = table.slotOf('a')!
    expect(table.delete('a')).toBe(true)
    expect(table.add('c', '3')).toBe(slot)
    expect(table.stampOf('c')).toBeUndefined()
    expect(table.stampAt(slot)).toBe(NO_STAMP)
    expect(table.get('a')).toBeUndefined()
    expect([...table.keys()]).toEqual(['b', 'c'])
  })

  test('slot walks are live: a key deleted is skipped, one added (even in a reused slot) is visited with its own value', () => {
    const table = new KeyTable<string>()
    for (let i = 0; i < 5; i++) table.add(`k${i}`, `v${i}`)
    const walk = table.slotEntries()
    expect(walk.next().value?.[0]).toBe('k0')
    table.delete('k1')
    table.add('new', 'fresh')
    const rest = [...walk].map(([key, slot]) => [key, table.valueAt(slot)])
    expect(rest).toEqual([['k2', 'v2'], ['k3', 'v3'], ['k4', 'v4'], ['new', 'fresh']])
  })

  test('clearStamps drops every stamp and keeps the values; emptied and cleared tables start over', () => {
    const table = new KeyTable<string>()
    for (let i = 0; i < 100; i++) table.add(`k${i}`, `v${i}`, i)
    table.clearStamps()
    expect(table.stampOf('k5')).toBeUndefined()
    expect(table.get('k5')).toBe('v5')
    for (let i = 0; i < 100; i++) table.delete(`k${i}`)
    expect(table.size).toBe(0)
    expect(table.add('again', 'x', 1)).toBe(0)
    table.clear()
    expect(table.size).toBe(0)
    expect(table.add('after-clear', 'y')).toBe(0)
    expect([...table.entries()]).toEqual([['after-clear', 'y']])
  })

  test('more keys than one key segment holds (a database past 2^24 keys, with a small threshold)', () => {
    const table = new KeyTable<string>(4)
    for (let i = 0; i < 10; i++) table.add(`k${i}`, `v${i}`, i)
    expect(table.segmentCount).toBe(3)
    store(table, 'k1', 'changed')
    expect(table.delete('k6')).toBe(true)
    expect(table.size).toBe(9)
    expect(table.get('k1')).toBe('changed')
    expect(table.stampOf('k9')).toBe(9)
    expect([...table.keys()]).toEqual(['k0', 'k1', 'k2', 'k3', 'k4', 'k5', 'k7', 'k8', 'k9'])
  })
})
