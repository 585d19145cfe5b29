/**
 * DELEX (Redis 8.4, https://redis.io/docs/latest/commands/delex/): delete a key, or a string key
 * only when its value (IFEQ / IFNE) or its digest (IFDEQ / IFDNE) compares as asked. 1 when
 * deleted; 0 when missing or the condition failed; WRONGTYPE for a condition on a non-string.
 */
import { describe, expect, test } from 'vitest'
import { errorOf, setup } from './setup.js'

const HELLO_DIGEST = 'b6acb9d84a38ff74' // DIGEST of "Hello world", the digest page's example

describe('DELEX', () => {
  test('without a condition deletes a key of any type, as DEL: 1, then 0', () => {
    const { call } = setup()
    call('LPUSH', 'list', 'a')
    expect(call('DELEX', 'list')).toBe(1)
    expect(call('EXISTS', 'list')).toBe(0)
    expect(call('DELEX', 'list')).toBe(0)
  })

  test('IFEQ deletes only when the value is equal; IFNE only when it differs', () => {
    const { call } = setup()
    call('SET', 'k', 'token-1')
    expect(call('DELEX', 'k', 'IFEQ', 'token-2')).toBe(0)
    expect(call('DELEX', 'k', 'IFNE', 'token-1')).toBe(0)
    expect(call('GET', 'k')).toBe('token-1')
    expect(call('DELEX', 'k', 'ifeq', 'token-1')).toBe(1)
    expect(call('EXISTS', 'k')).toBe(0)
    call('SET', 'k', 'token-1')
    expect(call('DELEX', 'k', 'IFNE', 'token-2')).toBe(1)
  })

  test('IFDEQ / IFDNE compare the digest, in either case of hex digit', () => {
    const { call } = setup()
    call('SET', 'k', 'Hello world')
    expect(call('DELEX', 'k', 'IFDNE', HELLO_DIGEST)).toBe(0)
    expect(call('DELEX', 'k', 'IFDEQ', '0000000000000001')).toBe(0)
    expect(call('DELEX', 'k', 'IFDEQ', HELLO_DIGEST.toUpperCase())).toBe(1)
    call('SET', 'k', 'Hello world')
    expect(call('DELEX', 'k', 'IFDNE', '0123456789abcdef')).toBe(1)
  })

  test('a missing key is 0 under every condition', () => {
    const { call } = setup()
    for (const condition of ['IFEQ', 'IFNE', 'IFDEQ', 'IFDNE']) {
      expect(call('DELEX', 'missing', condition, condition.startsWith('IFD') ? HELLO_DIGEST : 'v')).toBe(0)
    }
  })

  test('a condition on a key of another type is WRONGTYPE and deletes nothing', () => {
    const { call } = setup()
    call('HSET', 'h', 'f', 'v')
    expect(errorOf(call('DELEX', 'h', 'IFNE', 'x'))).toBe('WRONGTYPE Operation against a key holding the wrong kind of value')
    expect(call('EXISTS', 'h')).toBe(1)
  })

  test('bad arguments: unknown option, missing operand, extra argument, malformed digest', () => {
    const { call } = setup()
    call('SET', 'k', 'v')
    expect(errorOf(call('DELEX', 'k', 'IFXX', 'v'))).toBe('ERR syntax error')
    expect(errorOf(call('DELEX', 'k', 'IFEQ'))).toBe('ERR syntax error')
    expect(errorOf(call('DELEX', 'k', 'IFEQ', 'v', 'extra'))).toBe('ERR syntax error')
    expect(errorOf(call('DELEX', 'k', 'IFDEQ', 'not-hex'))).toBe('ERR digest must be a hexadecimal number of 1 to 16 digits')
    expect(errorOf(call('DELEX', 'k', 'IFDEQ', '0123456789abcdef0'))).toBe('ERR digest must be a hexadecimal number of 1 to 16 digits')
    expect(errorOf(call('DELEX'))).toBe("ERR wrong number of arguments for 'delex' command")
    expect(call('GET', 'k')).toBe('v')
  })

  test('a deletion is reported `del`; a refused one reports nothing', () => {
    const { call, heard, clear } = setup()
    call('SET', 'k', 'v')
    clear()
    call('DELEX', 'k', 'IFEQ', 'other')
    expect(heard).toEqual([])
    call('DELEX', 'k', 'IFEQ', 'v')
    expect(heard).toEqual(['del k'])
  })
})
