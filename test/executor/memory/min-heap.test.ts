import { describe, expect, test } from 'vitest'
import { MinHeap } from '../../../src/executor/memory/lib/min-heap.js'

interface Entry {
  readonly at: number
  readonly id: number
}

/** A small deterministic generator, so a failure reproduces. */
function lcg(seed: number): () => number {
  let state = seed
  return () => (state = (state * 1103515245 + 12345) % 2 ** 31)
}

describe('MinHeap (the expiry indexes of keyspace.ts and types/hash.ts)', () => {
  test('pops entries in order of `at`, whatever the push order', () => {
    const next = lcg(7)
    const heap = new MinHeap<Entry>()
    const ats = Array.from({ length: 500 }, () => next() % 100)
    ats.forEach((at, id) => heap.push({ at, id }))
    expect(heap.size).toBe(500)
    const popped: number[] = []
    for (let entry = heap.pop(); entry !== undefined; entry = heap.pop()) popped.push(entry.at)
    expect(popped).toEqual([...ats].sort((a, b) => a - b))
    expect(heap.size).toBe(0)
  })

  test('an empty heap peeks and pops undefined', () => {
    const heap = new MinHeap<Entry>()
    expect(heap.peek()).toBeUndefined()
    expect(heap.pop()).toBeUndefined()
    expect(heap.popBefore(Infinity)).toBeUndefined()
  })

  test('popBefore pops only entries strictly below the limit', () => {
    const heap = new MinHeap<Entry>()
    for (const at of [30, 10, 20]) heap.push({ at, id: at })
    expect(heap.popBefore(10)).toBeUndefined()
    expect(heap.popBefore(11)?.at).toBe(10)
    expect(heap.popBefore(20)).toBeUndefined()
    expect(heap.peek()?.at).toBe(20)
    expect(heap.size).toBe(2)
  })

  test('rebuild replaces the entries, clear empties, iteration visits every entry', () => {
    const heap = new MinHeap<Entry>()
    heap.push({ at: 1, id: 1 })
    heap.rebuild([{ at: 9, id: 9 }, { at: 3, id: 3 }, { at: 5, id: 5 }])
    expect([...heap].map((e) => e.id).sort()).toEqual([3, 5, 9])
    heap.push({ at: 4, id: 4 })
    expect([heap.pop()?.at, heap.pop()?.at, heap.pop()?.at, heap.pop()?.at]).toEqual([3, 4, 5, 9])
    heap.push({ at: 2, id: 2 })
    heap.clear()
    expect(heap.size).toBe(0)
    expect(heap.peek()).toBeUndefined()
  })
})
