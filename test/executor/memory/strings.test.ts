/**
 * String family behaviour that a live comparison cannot pin down: expiry against an injected
 * clock, exact 64-bit boundaries that depend on "now", the engine's own size limit, and
 * proto-max-bulk-len taken from CONFIG.
 */
import { afterEach, describe, expect, test } from 'vitest'
import { Status } from '../../../src/reply.js'
import { closeEngines, currentEngine, marked } from '../../support/engine.js'
import { ENGINE_MAX_STRING_LENGTH } from '../../../src/executor/memory/commands/strings/value.js'

/** The executor of the running test: `start()` makes a fresh one on a clock at 1_000_000 (`current.now`). */
const current = currentEngine({ start: 1_000_000, render: marked })
const { start, run } = current

afterEach(closeEngines)

/** A key holding another type, without depending on another family's commands. */
function putHash(key: string): void {
  current.executor.engine.databases[0].set(key, { type: 'hash' })
}

describe('strings: expiry with an injected clock', () => {
  test('SET EX and PX expire at now + the time given', () => {
    start()
    expect(run('SET', 'k', 'v', 'EX', '10')).toBe('+OK')
    expect(run('SET', 'p', 'v', 'PX', '1500')).toBe('+OK')
    current.now += 1500
    expect(run('GET', 'p')).toBe('v') // alive through its deadline millisecond, as in Redis
    current.now += 1
    expect(run('GET', 'p')).toBe(null)
    current.now += 8499
    expect(run('GET', 'k')).toBe('v')
    current.now += 1
    expect(run('GET', 'k')).toBe(null)
  })

  test('SET EXAT and PXAT expire at the absolute time given', () => {
    start()
    run('SET', 'k', 'v', 'EXAT', '1005')
    run('SET', 'p', 'v', 'PXAT', '1000500')
    current.now = 1_000_499
    expect(run('MGET', 'k', 'p')).toEqual(['v', 'v'])
    current.now = 1_000_501
    expect(run('MGET', 'k', 'p')).toEqual(['v', null])
    current.now = 1_005_001
    expect(run('MGET', 'k', 'p')).toEqual([null, null])
  })

  test('SET KEEPTTL keeps the deadline; a plain SET, GETSET and MSET drop it', () => {
    start()
    run('SET', 'k', 'v', 'PX', '100')
    run('SET', 'k', 'w', 'KEEPTTL')
    current.now += 101
    expect(run('GET', 'k')).toBe(null)
    for (const overwrite of [['SET', 'k', 'x'], ['GETSET', 'k', 'x'], ['MSET', 'k', 'x']]) {
      run('SET', 'k', 'v', 'PX', '100')
      run(...overwrite)
      current.now += 1000
      expect(run('GET', 'k')).toBe('x')
    }
  })

  test('INCR, INCRBYFLOAT, APPEND and SETRANGE keep the deadline', () => {
    start()
    run('SET', 'k', '1', 'PX', '100')
    run('INCR', 'k')
    run('INCRBYFLOAT', 'k', '0.5')
    run('APPEND', 'k', '0')
    run('SETRANGE', 'k', '0', '3')
    expect(run('GET', 'k')).toBe('3.50')
    current.now += 101
    expect(run('GET', 'k')).toBe(null)
  })

  test('SETEX and PSETEX set the deadline; SETNX does not', () => {
    start()
    run('SETEX', 's', '2', 'v')
    run('PSETEX', 'p', '20', 'v')
    run('SETNX', 'n', 'v')
    current.now += 21
    expect(run('MGET', 's', 'p', 'n')).toEqual(['v', null, 'v'])
    current.now += 1980
    expect(run('MGET', 's', 'p', 'n')).toEqual([null, null, 'v'])
  })

  test('GETEX changes the deadline, PERSIST removes it, a past EXAT deletes at once', () => {
    start()
    run('SET', 'k', 'v')
    expect(run('GETEX', 'k', 'PX', '50')).toBe('v')
    current.now += 49
    expect(run('GETEX', 'k', 'PERSIST')).toBe('v')
    current.now += 10_000
    expect(run('GET', 'k')).toBe('v')
    expect(run('GETEX', 'k', 'PXAT', String(current.now))).toBe('v')
    expect(current.executor.engine.databases[0].data.has('k')).toBe(false)
  })

  test('a relative expire overflows exactly when now + ms passes INT64_MAX', () => {
    start()
    current.now = 1000
    expect(run('SET', 'k', 'v', 'PX', String(2n ** 63n - 1n - 1000n))).toBe('+OK')
    expect(run('SET', 'k', 'v', 'PX', String(2n ** 63n - 1000n))).toBe("-ERR invalid expire time in 'set' command")
    expect(run('GETEX', 'k', 'PX', String(2n ** 63n - 1000n))).toBe("-ERR invalid expire time in 'getex' command")
    expect(run('PSETEX', 'k', String(2n ** 63n - 1000n), 'v')).toBe("-ERR invalid expire time in 'psetex' command")
  })
})

describe('strings: limits', () => {
  test('growth past what a JS string can hold is refused with the engine error, before allocating', () => {
    start()
    const offset = String(ENGINE_MAX_STRING_LENGTH)
    expect(run('SETRANGE', 'k', offset, 'a')).toBe(
      `-ERR string exceeds the maximum length of the in-memory engine (${ENGINE_MAX_STRING_LENGTH} bytes)`,
    )
    expect(current.executor.engine.databases[0].data.has('k')).toBe(false)
    // Redis's own limit still comes first.
    expect(run('SETRANGE', 'k', String(512 * 1024 * 1024), 'a')).toBe('-ERR string exceeds maximum allowed size (proto-max-bulk-len)')
  })

  test('proto-max-bulk-len from CONFIG bounds SETRANGE, APPEND and LCS', () => {
    start()
    current.executor.engine.config.set('proto-max-bulk-len', '100')
    expect(run('SETRANGE', 'k', '99', 'a')).toBe(100)
    expect(run('SETRANGE', 'k', '99', 'ab')).toBe('-ERR string exceeds maximum allowed size (proto-max-bulk-len)')
    expect(run('APPEND', 'k', 'x')).toBe('-ERR string exceeds maximum allowed size (proto-max-bulk-len)')
    run('SET', 'a', 'abcd')
    // (4 + 1) * (4 + 1) cells of 4 bytes = 100 bytes: allowed; one more byte of input is not.
    expect(run('LCS', 'a', 'a', 'LEN')).toBe(4)
    run('SET', 'b', 'abcde')
    expect(run('LCS', 'a', 'b', 'LEN')).toBe('-ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len')
  })
})

describe('strings: values', () => {
  test('every byte value survives SET, GET, APPEND, GETRANGE and SETRANGE', () => {
    start()
    const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i))
    expect(current.executor.execSync(['SET', 'k', all])).toEqual(new Status('OK'))
    expect(Buffer.from(current.executor.execSync(['GET', 'k']) as Uint8Array).equals(all)).toBe(true)
    current.executor.execSync(['APPEND', 'k', all])
    expect(run('STRLEN', 'k')).toBe(512)
    expect(Buffer.from(current.executor.execSync(['GETRANGE', 'k', '254', '257']) as Uint8Array)).toEqual(Buffer.from([254, 255, 0, 1]))
    current.executor.execSync(['SETRANGE', 'k', '510', Buffer.from([0xc3, 0xa9])])
    expect(Buffer.from(current.executor.execSync(['GETRANGE', 'k', '-2', '-1']) as Uint8Array)).toEqual(Buffer.from([0xc3, 0xa9]))
  })

  test('UTF-8 text arguments are stored as their bytes', () => {
    start()
    run('SET', 'k', 'é')
    expect(run('STRLEN', 'k')).toBe(2)
    expect(run('APPEND', 'k', '€')).toBe(5)
  })

  test('INCR replies a bigint beyond 2^53', () => {
    start()
    run('SET', 'k', '9223372036854775806')
    expect(current.executor.execSync(['INCR', 'k'])).toBe(9223372036854775807n)
    expect(current.executor.execSync(['DECRBY', 'k', '9223372036854775807'])).toBe(0)
  })

  test('commands reading a string refuse other types; SET and MSET overwrite them', () => {
    start()
    const wrongType = '-WRONGTYPE Operation against a key holding the wrong kind of value'
    putHash('h')
    for (const command of [['GET', 'h'], ['GETDEL', 'h'], ['GETEX', 'h'], ['GETSET', 'h', 'v'], ['APPEND', 'h', 'v'], ['STRLEN', 'h'], ['INCR', 'h'], ['INCRBYFLOAT', 'h', '1'], ['SETRANGE', 'h', '0', 'v'], ['GETRANGE', 'h', '0', '1'], ['SET', 'h', 'v', 'GET']]) {
      expect(run(...command)).toBe(wrongType)
    }
    expect(run('MGET', 'h')).toEqual([null])
    expect(run('LCS', 'h', 'h')).toBe('-ERR The specified keys must contain string values')
    expect(run('MSETNX', 'h', 'v')).toBe(0)
    expect(run('SETNX', 'h', 'v')).toBe(0)
    expect(run('SET', 'h', 'v')).toBe('+OK')
    putHash('h')
    expect(run('MSET', 'h', 'w')).toBe('+OK')
    expect(run('GET', 'h')).toBe('w')
  })
})
