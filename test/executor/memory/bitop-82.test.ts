/**
 * BITOP's operations of Redis 8.2 (https://redis.io/docs/latest/commands/bitop/): DIFF, DIFF1,
 * ANDOR and ONE, next to the four of 2.6. No local server has them: the rules tested are the
 * page's ("BITOP DIFF destkey X [Y1 Y2 ...]" and so on) and Redis 8.2's checks (NOT takes one
 * source, DIFF / DIFF1 / ANDOR at least two, before any key is read).
 */
import { afterEach, describe, expect, test } from 'vitest'
import { Engine } from '../../../src/executor/memory/engine.js'
import { ReplyError } from '../../../src/reply.js'

const engines: Engine[] = []
afterEach(() => {
  for (const engine of engines.splice(0)) engine.close()
})

function setup() {
  const engine = new Engine({ activeExpiryInterval: 0 })
  engines.push(engine)
  const session = engine.createSession()
  const call = (...argv: string[]) => engine.call(session, argv)
  /** Stores the bytes given in binary (`'1100 0000'`) at `key`. */
  const bits = (key: string, ...bytes: string[]) => call('SET', key, String.fromCharCode(...bytes.map((b) => parseInt(b.replace(/ /g, ''), 2))))
  /** The value at `key` as binary bytes. */
  const show = (key: string) => [...String(call('GET', key))].map((c) => c.charCodeAt(0).toString(2).padStart(8, '0'))
  return { call, bits, show }
}

describe('BITOP DIFF, DIFF1, ANDOR, ONE (Redis 8.2)', () => {
  test('DIFF: the bits of X set in none of Y1, Y2, …', () => {
    const { call, bits, show } = setup()
    bits('x', '11110000')
    bits('y1', '11000000')
    bits('y2', '00100000')
    expect(call('BITOP', 'DIFF', 'dest', 'x', 'y1', 'y2')).toBe(1)
    expect(show('dest')).toEqual(['00010000'])
  })

  test('DIFF1: the bits set in one or more of Y1, Y2, … and not in X', () => {
    const { call, bits, show } = setup()
    bits('x', '11110000')
    bits('y1', '10001000')
    bits('y2', '01000100')
    expect(call('BITOP', 'DIFF1', 'dest', 'x', 'y1', 'y2')).toBe(1)
    expect(show('dest')).toEqual(['00001100'])
  })

  test('ANDOR: the bits of X also set in one or more of Y1, Y2, …', () => {
    const { call, bits, show } = setup()
    bits('x', '11110000')
    bits('y1', '10001000')
    bits('y2', '01000100')
    expect(call('BITOP', 'ANDOR', 'dest', 'x', 'y1', 'y2')).toBe(1)
    expect(show('dest')).toEqual(['11000000'])
  })

  test('ONE: the bits set in exactly one of the sources', () => {
    const { call, bits, show } = setup()
    bits('a', '00010111')
    bits('b', '00100110')
    bits('c', '01001101')
    expect(call('BITOP', 'ONE', 'dest', 'a', 'b', 'c')).toBe(1)
    expect(show('dest')).toEqual(['01111000'])
    // One source: every bit of it is set in exactly one source.
    expect(call('BITOP', 'ONE', 'single', 'a')).toBe(1)
    expect(show('single')).toEqual(['00010111'])
  })

  test('the result is as long as the longest source; shorter and missing sources read as zeros', () => {
    const { call, bits, show } = setup()
    bits('x', '11111111', '11111111', '11111111')
    bits('y', '11110000')
    expect(call('BITOP', 'DIFF', 'dest', 'x', 'y', 'missing')).toBe(3)
    expect(show('dest')).toEqual(['00001111', '11111111', '11111111'])
    expect(call('BITOP', 'DIFF1', 'dest', 'y', 'x')).toBe(3)
    expect(show('dest')).toEqual(['00001111', '11111111', '11111111'])
    expect(call('BITOP', 'ANDOR', 'dest', 'y', 'x')).toBe(3)
    expect(show('dest')).toEqual(['11110000', '00000000', '00000000'])
    expect(call('BITOP', 'ONE', 'dest', 'x', 'y')).toBe(3)
    expect(show('dest')).toEqual(['00001111', '11111111', '11111111'])
  })

  test('DIFF, DIFF1 and ANDOR need two source keys; the operation is named in upper case, before any key is read', () => {
    const { call } = setup()
    call('LPUSH', 'list', 'x')
    for (const operation of ['diff', 'DIFF1', 'AndOr']) {
      const reply = call('BITOP', operation, 'dest', 'list')
      expect(reply).toBeInstanceOf(ReplyError)
      expect((reply as ReplyError).message).toBe(`ERR BITOP ${operation.toUpperCase()} must be called with at least two source keys.`)
    }
    expect((call('BITOP', 'NOT', 'dest', 'a', 'b') as ReplyError).message).toBe('ERR BITOP NOT must be called with a single source key.')
    expect((call('BITOP', 'NOPE', 'dest', 'a') as ReplyError).message).toBe('ERR syntax error')
    expect((call('BITOP', 'DIFF', 'dest', 'list', 'x') as ReplyError).message).toContain('WRONGTYPE')
  })

  test('an all-empty result deletes the destination, whatever it held', () => {
    const { call } = setup()
    call('SET', 'dest', 'old')
    expect(call('BITOP', 'ANDOR', 'dest', 'none1', 'none2')).toBe(0)
    expect(call('EXISTS', 'dest')).toBe(0)
  })
})
