/**
 * SET's Redis 8.4 conditions (https://redis.io/docs/latest/commands/set/): IFEQ / IFNE compare
 * the current value, IFDEQ / IFDNE its digest (DIGEST). A missing key fails IFEQ / IFDEQ and
 * passes IFNE / IFDNE; another type is WRONGTYPE; a failed condition answers nil (or, with GET,
 * the old value). The conditions exclude NX, XX and each other.
 */
import { describe, expect, test } from 'vitest'
import { errorOf, setup } from './setup.js'

const HELLO_DIGEST = 'b6acb9d84a38ff74'

describe('SET IFEQ / IFNE / IFDEQ / IFDNE', () => {
  test('IFEQ sets only when the value is equal; IFNE only when it differs', () => {
    const { call } = setup()
    call('SET', 'k', 'v1')
    expect(call('SET', 'k', 'v2', 'IFEQ', 'other')).toBe(null)
    expect(call('SET', 'k', 'v2', 'IFNE', 'v1')).toBe(null)
    expect(call('GET', 'k')).toBe('v1')
    expect(String(call('SET', 'k', 'v2', 'IFEQ', 'v1'))).toBe('OK')
    expect(String(call('SET', 'k', 'v3', 'IFNE', 'v1'))).toBe('OK')
    expect(call('GET', 'k')).toBe('v3')
  })

  test('IFDEQ / IFDNE compare the digest, case-insensitively', () => {
    const { call } = setup()
    call('SET', 'k', 'Hello world')
    expect(call('SET', 'k', 'x', 'IFDNE', HELLO_DIGEST)).toBe(null)
    expect(String(call('SET', 'k', 'x', 'IFDEQ', HELLO_DIGEST.toUpperCase()))).toBe('OK')
    expect(String(call('SET', 'k', 'y', 'IFDNE', HELLO_DIGEST))).toBe('OK')
    expect(call('GET', 'k')).toBe('y')
  })

  test('a missing key: IFEQ and IFDEQ do not create it, IFNE and IFDNE do', () => {
    const { call } = setup()
    expect(call('SET', 'a', 'v', 'IFEQ', 'v')).toBe(null)
    expect(call('SET', 'b', 'v', 'IFDEQ', HELLO_DIGEST)).toBe(null)
    expect(call('EXISTS', 'a', 'b')).toBe(0)
    expect(String(call('SET', 'c', 'v', 'IFNE', 'v'))).toBe('OK')
    expect(String(call('SET', 'd', 'v', 'IFDNE', HELLO_DIGEST))).toBe('OK')
    expect(call('EXISTS', 'c', 'd')).toBe(2)
  })

  test('with GET the reply is the old value whether or not it wrote', () => {
    const { call } = setup()
    call('SET', 'k', 'v1')
    expect(call('SET', 'k', 'v2', 'IFEQ', 'nope', 'GET')).toBe('v1')
    expect(call('SET', 'k', 'v2', 'IFEQ', 'v1', 'GET')).toBe('v1')
    expect(call('GET', 'k')).toBe('v2')
  })

  test('expiry options apply when the condition holds', () => {
    const { call } = setup()
    call('SET', 'k', 'v1')
    expect(String(call('SET', 'k', 'v2', 'IFEQ', 'v1', 'EX', '100'))).toBe('OK')
    expect(call('TTL', 'k')).toBe(100)
    expect(call('SET', 'k', 'v3', 'IFEQ', 'v1', 'EX', '200')).toBe(null)
    expect(call('TTL', 'k')).toBe(100)
  })

  test('another type is WRONGTYPE under a condition, and is left alone', () => {
    const { call } = setup()
    call('SADD', 's', 'm')
    expect(errorOf(call('SET', 's', 'v', 'IFNE', 'x'))).toBe('WRONGTYPE Operation against a key holding the wrong kind of value')
    expect(call('TYPE', 's')).toMatchObject({ text: 'set' })
  })

  test('conditions exclude NX, XX and each other; each needs its operand; digests must be hex', () => {
    const { call } = setup()
    for (const argv of [
      ['NX', 'IFEQ', 'v'],
      ['IFEQ', 'v', 'XX'],
      ['IFEQ', 'v', 'IFNE', 'w'],
      ['IFDEQ', HELLO_DIGEST, 'IFDNE', HELLO_DIGEST],
      ['IFEQ'],
    ]) {
      expect(errorOf(call('SET', 'k', 'v', ...argv))).toBe('ERR syntax error')
    }
    expect(errorOf(call('SET', 'k', 'v', 'IFDEQ', 'xyz'))).toBe('ERR digest must be a hexadecimal number of 1 to 16 digits')
    expect(call('EXISTS', 'k')).toBe(0)
  })

  test('a write under a condition is reported `set`; a refused one reports nothing', () => {
    const { call, heard, clear } = setup()
    call('SET', 'k', 'v1')
    clear()
    call('SET', 'k', 'v2', 'IFEQ', 'nope')
    expect(heard).toEqual([])
    call('SET', 'k', 'v2', 'IFEQ', 'v1', 'PX', '5000')
    expect(heard).toEqual(['set k', 'expire k'])
  })
})
