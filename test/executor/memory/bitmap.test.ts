/**
 * Bitmap family behaviour beyond the live comparison: the bit helpers against a naive bit-by-bit
 * reference on random data, large values, 64-bit replies, the engine's size limit and expiry.
 */
import { afterEach, describe, expect, test } from 'vitest'
import fc from 'fast-check'
import { closeEngines, currentEngine, marked } from '../../support/engine.js'
import { countBitsInRange, findBit } from '../../../src/executor/memory/commands/bitmap/bits.js'
import { ENGINE_MAX_STRING_LENGTH } from '../../../src/executor/memory/commands/strings/value.js'

/** The executor of the running test: `start()` makes a fresh one on a clock at 1_000_000 (`current.now`). */
const current = currentEngine({ start: 1_000_000, render: marked })
const { start, run } = current

afterEach(closeEngines)

const bit = (value: string, position: number): number => (value.charCodeAt(position >> 3) >> (7 - (position & 7))) & 1
const binary = fc.uint8Array({ maxLength: 40 }).map((bytes) => Buffer.from(bytes).toString('latin1'))

describe('bitmap: bit helpers agree with a bit-by-bit reference', () => {
  test('countBitsInRange counts the bits of any range', () => {
    fc.assert(
      fc.property(binary.filter((v) => v.length > 0), fc.nat(), fc.nat(), (value, a, b) => {
        const total = value.length * 8
        const from = Math.min(a % total, b % total)
        const to = Math.max(a % total, b % total)
        let expected = 0
        for (let p = from; p <= to; p++) expected += bit(value, p)
        expect(countBitsInRange(value, from, to)).toBe(expected)
      }),
    )
  })

  test('findBit finds the first matching bit of any range, or -1', () => {
    const runs = fc.array(fc.constantFrom(0x00, 0xff, 0x01, 0x80, 0x7f, 0xfe), { maxLength: 40 }).map((bytes) => Buffer.from(bytes).toString('latin1'))
    fc.assert(
      fc.property(fc.oneof(binary, runs).filter((v) => v.length > 0), fc.nat(), fc.nat(), fc.constantFrom(0 as const, 1 as const), (value, a, b, wanted) => {
        const total = value.length * 8
        const from = Math.min(a % total, b % total)
        const to = Math.max(a % total, b % total)
        let expected = -1
        for (let p = from; p <= to; p++) {
          if (bit(value, p) === wanted) {
            expected = p
            break
          }
        }
        expect(findBit(value, wanted, from, to)).toBe(expected)
      }),
    )
  })
})

describe('bitmap: commands', () => {
  test('BITCOUNT, BITPOS and BITOP on a 4 MB value', () => {
    start()
    const size = 4 * 1024 * 1024
    const value = Buffer.alloc(size, 0xff)
    value[size - 1] = 0xfe
    current.executor.execSync(['SET', 'big', value])
    expect(run('BITCOUNT', 'big')).toBe(size * 8 - 1)
    expect(run('BITPOS', 'big', '0')).toBe(size * 8 - 1)
    expect(run('BITPOS', 'big', '1', '-1', '-1', 'BIT')).toBe(-1)
    expect(run('BITOP', 'NOT', 'inverse', 'big')).toBe(size)
    expect(run('BITPOS', 'inverse', '1')).toBe(size * 8 - 1)
    expect(run('SETBIT', 'big', String(size * 8 - 1), '1')).toBe(0)
    expect(run('BITCOUNT', 'big', '-1', '-1')).toBe(8)
  })

  test('BITFIELD replies bigints beyond 2^53', () => {
    start()
    expect(current.executor.execSync(['BITFIELD', 'k', 'SET', 'u63', '0', '9223372036854775807', 'GET', 'u63', '0', 'GET', 'i64', '0'])).toEqual([
      0,
      9223372036854775807n,
      -2,
    ])
  })

  test('SETBIT and BITFIELD beyond what a JS string can hold are refused with the engine error', () => {
    start()
    const error = `-ERR string exceeds the maximum length of the in-memory engine (${ENGINE_MAX_STRING_LENGTH} bytes)`
    // Redis (512 MB) would create these; V8 strings stop at 2^29 - 24 bytes.
    expect(run('SETBIT', 'k', '4294967295', '1')).toBe(error)
    expect(run('BITFIELD', 'k', 'SET', 'u8', '4294967288', '1')).toBe(error)
    expect(current.executor.engine.databases[0].data.has('k')).toBe(false)
    // Reads never allocate.
    expect(run('GETBIT', 'k', '4294967295')).toBe(0)
    expect(run('BITFIELD', 'k', 'GET', 'u8', '4294967288')).toEqual([0])
  })

  test('bit offsets are bounded by proto-max-bulk-len from CONFIG', () => {
    start()
    current.executor.engine.config.set('proto-max-bulk-len', '2')
    expect(run('SETBIT', 'k', '15', '1')).toBe(0)
    expect(run('SETBIT', 'k', '16', '1')).toBe('-ERR bit offset is not an integer or out of range')
    expect(run('BITFIELD', 'k', 'GET', 'u8', '#1', 'GET', 'u8', '#2')).toBe('-ERR bit offset is not an integer or out of range')
  })

  test('SETBIT, BITFIELD keep the deadline; BITOP drops the destination one', () => {
    start()
    run('SET', 'k', 'a', 'PX', '100')
    run('SET', 'd', 'old', 'PX', '100')
    run('SETBIT', 'k', '7', '0')
    run('BITFIELD', 'k', 'SET', 'u8', '8', '66')
    run('BITOP', 'OR', 'd', 'k')
    current.now += 101 // a key lives through its deadline millisecond
    expect(run('GET', 'k')).toBe(null)
    expect(run('GET', 'd')).toBe('`B')
  })

  test('commands reading a bitmap refuse other types; BITOP overwrites a destination of another type', () => {
    start()
    current.executor.engine.databases[0].set('h', { type: 'hash' })
    const wrongType = '-WRONGTYPE Operation against a key holding the wrong kind of value'
    for (const command of [['GETBIT', 'h', '0'], ['SETBIT', 'h', '0', '1'], ['BITCOUNT', 'h'], ['BITPOS', 'h', '1'], ['BITFIELD', 'h', 'GET', 'u8', '0'], ['BITFIELD_RO', 'h', 'GET', 'u8', '0'], ['BITOP', 'OR', 'd', 'h']]) {
      expect(run(...command)).toBe(wrongType)
    }
    run('SET', 's', 'x')
    expect(run('BITOP', 'OR', 'h', 's')).toBe(1)
    expect(run('GET', 'h')).toBe('x')
  })
})
