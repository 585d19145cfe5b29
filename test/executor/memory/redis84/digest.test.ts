/**
 * DIGEST (Redis 8.4, https://redis.io/docs/latest/commands/digest/): the XXH3-64 digest of a
 * string value as hex. The page's example gives the digest of "Hello world"; the others are
 * XXH3-64 (seed 0) of the same bytes as xxHash computes them (test/executor/memory/xxh3.test.ts
 * checks the algorithm against xxHash's own vectors).
 */
import { describe, expect, test } from 'vitest'
import { errorOf, setup } from './setup.js'

describe('DIGEST', () => {
  test("the page's example: DIGEST of \"Hello world\" is b6acb9d84a38ff74", () => {
    const { call } = setup()
    call('SET', 'key1', 'Hello world')
    expect(call('DIGEST', 'key1')).toBe('b6acb9d84a38ff74')
  })

  test('equal values have equal digests, different values different ones; always 16 hex digits', () => {
    const { call } = setup()
    call('SET', 'a', 'test')
    call('SET', 'b', 'test')
    call('SET', 'c', 'hello')
    call('SET', 'empty', '')
    expect(call('DIGEST', 'a')).toBe('9ec9f7918d7dfc40')
    expect(call('DIGEST', 'b')).toBe('9ec9f7918d7dfc40')
    expect(call('DIGEST', 'c')).toBe('9555e8555c62dcfd')
    expect(call('DIGEST', 'empty')).toBe('2d06800538d394c2')
  })

  test('hashes the bytes of binary values and of integers stored as text', () => {
    const { call } = setup()
    call('SET', 'n', '12345')
    call('SET', 'bin', '\u00ff\u0000\u0080')
    expect(call('DIGEST', 'n')).toMatch(/^[0-9a-f]{16}$/)
    call('INCR', 'n')
    call('DECR', 'n')
    call('SET', 'copy', '12345')
    expect(call('DIGEST', 'n')).toBe(call('DIGEST', 'copy'))
    expect(call('DIGEST', 'bin')).toMatch(/^[0-9a-f]{16}$/)
  })

  test('nil for a missing key, WRONGTYPE for another type, arity 2', () => {
    const { call } = setup()
    expect(call('DIGEST', 'missing')).toBe(null)
    call('LPUSH', 'list', 'a')
    expect(errorOf(call('DIGEST', 'list'))).toBe('WRONGTYPE Operation against a key holding the wrong kind of value')
    expect(errorOf(call('DIGEST', 'a', 'b'))).toBe("ERR wrong number of arguments for 'digest' command")
  })

  test('is a read: no keyspace event', () => {
    const { call, heard, clear } = setup()
    call('SET', 'k', 'v')
    clear()
    call('DIGEST', 'k')
    expect(heard).toEqual([])
  })
})
