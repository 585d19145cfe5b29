import { afterEach, describe, expect, test } from 'vitest'
import { ListValue } from '../../../src/executor/memory/types/list.js'
import type { Reply } from '../../../src/reply.js'
import { closeEngines, memoryEngine } from '../../support/engine.js'

/**
 * The ring buffer behind lists, against a plain array model, and list behaviour that the
 * differential suite cannot show (expiry with an injected clock, large lists).
 */

describe('ListValue (ring buffer)', () => {
  test('random operations at both ends and in the middle match an array model', () => {
    let seed = 7
    const random = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
      return (seed >>> 8) % n
    }
    const list = new ListValue()
    const model: string[] = []
    for (let step = 0; step < 20_000; step++) {
      const value = `v${random(20)}`
      switch (random(9)) {
        case 0:
        case 1:
          list.pushHead(value)
          model.unshift(value)
          break
        case 2:
        case 3:
          list.pushTail(value)
          model.push(value)
          break
        case 4:
          if (model.length > 0) expect(list.popHead()).toBe(model.shift())
          break
        case 5:
          if (model.length > 0) expect(list.popTail()).toBe(model.pop())
          break
        case 6: {
          const index = random(model.length + 1)
          list.insertAt(index, value)
          model.splice(index, 0, value)
          break
        }
        case 7: {
          const limit = random(3)
          const fromTail = random(2) === 1
          let removed = 0
          const order = model.map((_, i) => (fromTail ? model.length - 1 - i : i))
          const drop = new Set<number>()
          for (const i of order) {
            if (model[i] === value && (limit === 0 || removed < limit)) {
              drop.add(i)
              removed++
            }
          }
          expect(list.removeMatching(value, limit, fromTail)).toBe(removed)
          const kept = model.filter((_, i) => !drop.has(i))
          model.length = 0
          model.push(...kept)
          break
        }
        case 8:
          if (model.length > 2 && random(4) === 0) {
            const start = random(model.length)
            const stop = start + random(model.length - start)
            list.trim(start, stop)
            model.splice(stop + 1)
            model.splice(0, start)
          } else if (model.length > 0) {
            const index = random(model.length)
            list.setAt(index, value)
            model[index] = value
          }
          break
      }
      expect(list.length).toBe(model.length)
      if (step % 97 === 0) expect(list.toArray()).toEqual(model)
    }
    expect(list.toArray()).toEqual(model)
  })

  test('grows past its capacity while wrapped around, and shrinks back', () => {
    const list = new ListValue()
    for (let i = 0; i < 5; i++) list.pushTail(`t${i}`)
    for (let i = 0; i < 5; i++) list.pushHead(`h${i}`) // wraps below slot 0, then grows
    expect(list.toArray()).toEqual(['h4', 'h3', 'h2', 'h1', 'h0', 't0', 't1', 't2', 't3', 't4'])
    for (let i = 0; i < 10_000; i++) list.pushTail(String(i))
    for (let i = 0; i < 10_005; i++) list.popHead()
    expect(list.toArray()).toEqual(['9995', '9996', '9997', '9998', '9999'])
    expect(list.at(0)).toBe('9995')
    expect(list.range(1, 2)).toEqual(['9996', '9997'])
  })

  test('clone is independent', () => {
    const list = new ListValue(['a', 'b'])
    const copy = list.clone()
    copy.pushTail('c')
    list.popHead()
    expect(list.toArray()).toEqual(['b'])
    expect(copy.toArray()).toEqual(['a', 'b', 'c'])
  })
})

describe('list commands on the memory engine', () => {
  afterEach(closeEngines)

  function engine(start = 1_000_000) {
    const { run, advance } = memoryEngine({ start, render: (reply): Reply => reply })
    const text = (reply: Reply) => (Array.isArray(reply) ? reply.map((r) => Buffer.from(r as Uint8Array).toString()) : reply)
    return { run, text, advance }
  }

  test('a list whose TTL passed is gone for every list command', () => {
    const { run, text, advance } = engine()
    run('RPUSH', 'l', 'a', 'b')
    run('PEXPIRE', 'l', '100')
    advance(101)
    expect(run('LLEN', 'l')).toBe(0)
    expect(text(run('LRANGE', 'l', '0', '-1'))).toEqual([])
    expect(run('RPUSHX', 'l', 'c')).toBe(0)
    expect(run('RPUSH', 'l', 'c')).toBe(1)
    expect(run('TTL', 'l')).toBe(-1)
  })

  test('pushes onto a list keep its TTL; LMOVE to a new key does not carry one', () => {
    const { run, advance } = engine()
    run('RPUSH', 'l', 'a', 'b')
    run('PEXPIRE', 'l', '1000')
    run('LPUSH', 'l', 'c')
    run('LMOVE', 'l', 'm', 'LEFT', 'LEFT')
    expect(run('PTTL', 'l')).toBe(1000)
    expect(run('PTTL', 'm')).toBe(-1)
    advance(1001)
    expect(run('EXISTS', 'l')).toBe(0)
  })

  test('LMPOP skips an expired list', () => {
    const { run, text, advance } = engine()
    run('RPUSH', 'a', 'x')
    run('RPUSH', 'b', 'y')
    run('PEXPIRE', 'a', '10')
    advance(11)
    const reply = run('LMPOP', '2', 'a', 'b', 'LEFT') as Reply[]
    expect(Buffer.from(reply[0] as Uint8Array).toString()).toBe('b')
    expect(text(reply[1])).toEqual(['y'])
  })

  test('a 100k-element list pops from both ends in linear time', () => {
    const { run } = engine()
    const elements = Array.from({ length: 100_000 }, (_, i) => String(i))
    run('RPUSH', 'l', ...elements)
    const started = performance.now()
    for (let i = 0; i < 50_000; i++) {
      run('LPOP', 'l')
      run('RPOP', 'l')
    }
    expect(run('EXISTS', 'l')).toBe(0)
    expect(performance.now() - started).toBeLessThan(5_000)
  })
})
