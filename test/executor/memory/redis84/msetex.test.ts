/**
 * MSETEX (Redis 8.4, https://redis.io/docs/latest/commands/msetex/): numkeys key-value pairs,
 * one condition over all keys (NX: none exists, XX: all exist) and one expiration for all.
 * 1 when the keys were set, 0 when the condition failed and nothing was written.
 */
import { describe, expect, test } from 'vitest'
import { errorOf, setup } from './setup.js'

describe('MSETEX', () => {
  test('sets every pair with a shared expiration', () => {
    const { call } = setup()
    expect(call('MSETEX', '2', 'a', '1', 'b', '2', 'EX', '60')).toBe(1)
    expect(call('MGET', 'a', 'b')).toEqual(['1', '2'])
    expect(call('TTL', 'a')).toBe(60)
    expect(call('TTL', 'b')).toBe(60)
  })

  test('without an expiration drops existing TTLs, as MSET; KEEPTTL keeps them', () => {
    const { call } = setup()
    call('SET', 'a', 'old', 'EX', '100')
    call('SET', 'b', 'old', 'EX', '100')
    expect(call('MSETEX', '1', 'a', 'new')).toBe(1)
    expect(call('TTL', 'a')).toBe(-1)
    expect(call('MSETEX', '1', 'b', 'new', 'KEEPTTL')).toBe(1)
    expect(call('TTL', 'b')).toBe(100)
    expect(call('GET', 'b')).toBe('new')
  })

  test('NX writes only when no key exists; XX only when all exist', () => {
    const { call } = setup()
    call('SET', 'a', '1')
    expect(call('MSETEX', '2', 'a', 'x', 'b', 'y', 'NX')).toBe(0)
    expect(call('EXISTS', 'b')).toBe(0)
    expect(call('MSETEX', '2', 'a', 'x', 'b', 'y', 'XX')).toBe(0)
    expect(call('GET', 'a')).toBe('1')
    expect(call('MSETEX', '2', 'c', 'x', 'd', 'y', 'NX', 'PX', '1500')).toBe(1)
    expect(call('PTTL', 'c')).toBe(1500)
    expect(call('MSETEX', '2', 'a', 'x', 'c', 'z', 'XX')).toBe(1)
    expect(call('MGET', 'a', 'c')).toEqual(['x', 'z'])
  })

  test('overwrites keys of any type, as MSET', () => {
    const { call } = setup()
    call('LPUSH', 'l', 'a')
    expect(call('MSETEX', '1', 'l', 'now-a-string')).toBe(1)
    expect(call('GET', 'l')).toBe('now-a-string')
  })

  test('bad arguments: numkeys, pair count, options, expire values', () => {
    const { call } = setup()
    expect(errorOf(call('MSETEX', 'x', 'a', '1'))).toBe('ERR value is not an integer or out of range')
    expect(errorOf(call('MSETEX', '0', 'a', '1'))).toBe('ERR numkeys should be greater than 0')
    expect(errorOf(call('MSETEX', '2', 'a', '1', 'b'))).toBe('ERR numkeys is larger than the number of key-value pairs given')
    expect(errorOf(call('MSETEX', '1', 'a', '1', 'NX', 'XX'))).toBe('ERR syntax error')
    expect(errorOf(call('MSETEX', '1', 'a', '1', 'EX', '10', 'KEEPTTL'))).toBe('ERR syntax error')
    expect(errorOf(call('MSETEX', '1', 'a', '1', 'EX'))).toBe('ERR syntax error')
    expect(errorOf(call('MSETEX', '1', 'a', '1', 'GET'))).toBe('ERR syntax error')
    expect(errorOf(call('MSETEX', '1', 'a', '1', 'EX', '0'))).toBe("ERR invalid expire time in 'msetex' command")
    expect(errorOf(call('MSETEX', '1', 'a'))).toBe("ERR wrong number of arguments for 'msetex' command")
    expect(call('EXISTS', 'a')).toBe(0)
  })

  test('COMMAND GETKEYS finds every key, stepping over the values', () => {
    const { call } = setup()
    expect(call('COMMAND', 'GETKEYS', 'MSETEX', '3', 'a', '1', 'b', '2', 'c', '3', 'EX', '5')).toEqual(['a', 'b', 'c'])
  })

  test('each key is reported `set`, then `expire` when an expiration is given', () => {
    const { call, heard } = setup()
    call('MSETEX', '2', 'a', '1', 'b', '2', 'EX', '60')
    expect(heard).toEqual(['set a', 'expire a', 'set b', 'expire b'])
  })
})
