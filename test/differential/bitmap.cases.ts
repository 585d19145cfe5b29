/**
 * Differential cases of the Bitmap family (Redis 7.0 bitops.c): SETBIT GETBIT BITCOUNT BITPOS
 * BITOP BITFIELD BITFIELD_RO, with their options and error paths, plus seeded random range
 * queries and BITFIELD programs.
 */
import type { Command } from '../../src/reply.js'
import type { DiffCase } from './harness.js'
import { mulberry32 } from './random-source.js'

const bytes = (...values: number[]): Uint8Array => Uint8Array.from(values)
const HASH = ['HSET', 'h', 'f', 'v'] as const

const random = mulberry32(7001)
const below = (n: number): number => Math.floor(random() * n)
const pick = <T>(items: readonly T[]): T => items[below(items.length)]
const randomBytes = (length: number, bias: readonly number[] = []): Uint8Array =>
  Uint8Array.from({ length }, () => (bias.length > 0 && random() < 0.6 ? pick(bias) : below(256)))

const setbitCases: DiffCase[] = [
  { name: 'SETBIT replies the previous bit and grows the string zero-padded', commands: [['SETBIT', 'k', '7', '1'], ['SETBIT', 'k', '7', '1'], ['GET', 'k'], ['SETBIT', 'k', '7', '0'], ['SETBIT', 'k', '100', '1'], ['GET', 'k'], ['STRLEN', 'k'], ['SETBIT', 'k', '0', '1'], ['GET', 'k']] },
  { name: 'SETBIT of 0 on a missing key creates a zero string', commands: [['SETBIT', 'k', '20', '0'], ['EXISTS', 'k'], ['GET', 'k'], ['SETBIT', 'k', '3', '0'], ['GET', 'k']] },
  { name: 'SETBIT works on integer and binary values and keeps the TTL', commands: [['SET', 'i', '1', 'EX', '100'], ['SETBIT', 'i', '6', '1'], ['GET', 'i'], ['TTL', 'i'], ['SET', 'b', bytes(0xff, 0)], ['SETBIT', 'b', '3', '0'], ['SETBIT', 'b', '15', '1'], ['GET', 'b']], relax: { 3: 'ttl' } },
  {
    name: 'SETBIT refuses bad offsets, then bad bits, then other types',
    commands: [
      HASH,
      ['SETBIT', 'k', '-1', '1'], ['SETBIT', 'k', '4294967296', '1'], ['SETBIT', 'k', 'a', '1'], ['SETBIT', 'k', '+1', '1'], ['SETBIT', 'k', '#1', '1'], ['SETBIT', 'k', '1.0', '1'],
      ['SETBIT', 'k', '1', '2'], ['SETBIT', 'k', '1', '-1'], ['SETBIT', 'k', '1', 'a'], ['SETBIT', 'k', '1', '1.0'], ['SETBIT', 'k', '1', ''], ['SETBIT', 'k', 'a', 'a'],
      ['SETBIT', 'h', '-1', '1'], ['SETBIT', 'h', '0', '2'], ['SETBIT', 'h', '0', '1'], ['EXISTS', 'k'],
    ],
  },
  {
    name: 'GETBIT reads bits, 0 past the end and for missing keys',
    commands: [
      ['SET', 'i', '1'], ['GETBIT', 'i', '0'], ['GETBIT', 'i', '2'], ['GETBIT', 'i', '3'], ['GETBIT', 'i', '7'], ['GETBIT', 'i', '8'], ['GETBIT', 'i', '4294967295'],
      ['GETBIT', 'missing', '5'], ['SET', 'b', bytes(0x80, 0x01)], ['GETBIT', 'b', '0'], ['GETBIT', 'b', '15'], ['GETBIT', 'b', '14'],
    ],
  },
  { name: 'GETBIT refuses bad offsets before the type check', commands: [HASH, ['GETBIT', 'h', '0'], ['GETBIT', 'h', 'a'], ['GETBIT', 'k', '-1'], ['GETBIT', 'k', '4294967296'], ['GETBIT', 'k', '#0']] },
]

const bitcountCases: DiffCase[] = [
  {
    name: 'BITCOUNT counts bits of the whole string or of a byte range',
    commands: [
      ['SET', 'k', 'foobar'], ['BITCOUNT', 'k'], ['BITCOUNT', 'k', '0', '0'], ['BITCOUNT', 'k', '1', '1'], ['BITCOUNT', 'k', '0', '-1'], ['BITCOUNT', 'k', '-3', '-1'],
      ['BITCOUNT', 'k', '-1', '-3'], ['BITCOUNT', 'k', '-100', '-50'], ['BITCOUNT', 'k', '-50', '-100'], ['BITCOUNT', 'k', '2', '100'], ['BITCOUNT', 'k', '100', '200'],
      ['BITCOUNT', 'k', '-9223372036854775808', '9223372036854775807'], ['BITCOUNT', 'k', '9223372036854775807', '-9223372036854775808'], ['BITCOUNT', 'k', '0', '-1', 'byte'],
    ],
  },
  {
    name: 'BITCOUNT with BIT counts a bit range',
    commands: [
      ['SET', 'k', 'foobar'], ['BITCOUNT', 'k', '1', '1', 'BIT'], ['BITCOUNT', 'k', '5', '30', 'BIT'], ['BITCOUNT', 'k', '0', '-1', 'bit'], ['BITCOUNT', 'k', '-1', '-1', 'Bit'],
      ['BITCOUNT', 'k', '-100', '-50', 'BIT'], ['BITCOUNT', 'k', '-50', '-100', 'BIT'], ['BITCOUNT', 'k', '7', '8', 'BIT'], ['BITCOUNT', 'k', '40', '1000', 'BIT'],
      ['BITCOUNT', 'k', '-9223372036854775808', '9223372036854775807', 'BIT'],
    ],
  },
  { name: 'BITCOUNT of empty and missing values is 0, whatever the arguments on a missing key', commands: [['SET', 'e', ''], ['BITCOUNT', 'e'], ['BITCOUNT', 'e', '0', '-1'], ['BITCOUNT', 'e', '0', '-1', 'BIT'], ['BITCOUNT', 'missing'], ['BITCOUNT', 'missing', '0', '1', 'bad'], ['BITCOUNT', 'missing', 'a', 'b'], ['BITCOUNT', 'missing', '0'], ['BITCOUNT', 'missing', '0', '1', '2', '3']] },
  {
    name: 'BITCOUNT errors: type first, then start and end, then the unit and the argument count',
    commands: [
      HASH, ['BITCOUNT', 'h'], ['BITCOUNT', 'h', '0', '1', 'bad'], ['BITCOUNT', 'h', 'a', 'b'], ['SET', 'k', 'foobar'],
      ['BITCOUNT', 'k', '0'], ['BITCOUNT', 'k', '0', '1', 'bad'], ['BITCOUNT', 'k', 'a', 'b'], ['BITCOUNT', 'k', '0', 'b', 'bad'], ['BITCOUNT', 'k', '-1', '-3', 'bad'],
      ['BITCOUNT', 'k', '3', '1', 'bad'], ['BITCOUNT', 'k', '0', '1', 'BIT', 'x'], ['BITCOUNT', 'k', '1.5', '2'],
    ],
  },
]

const bitposCases: DiffCase[] = [
  {
    name: 'BITPOS finds the first set or clear bit',
    commands: [
      ['SET', 'k', bytes(0xff, 0xf0, 0x00)], ['BITPOS', 'k', '0'], ['BITPOS', 'k', '1'], ['BITPOS', 'k', '1', '2'], ['BITPOS', 'k', '0', '2'], ['BITPOS', 'k', '1', '1', '-1'],
      ['BITPOS', 'k', '0', '0', '0'], ['BITPOS', 'k', '0', '-1'], ['BITPOS', 'k', '0', '3'], ['BITPOS', 'k', '1', '-50', '-100'], ['BITPOS', 'k', '0', '-50', '-100'],
    ],
  },
  {
    name: 'BITPOS for 0 in all-ones strings: past the end without an explicit end, -1 with one',
    commands: [
      ['SET', 'f', bytes(0xff, 0xff)], ['BITPOS', 'f', '0'], ['BITPOS', 'f', '0', '0'], ['BITPOS', 'f', '0', '1'], ['BITPOS', 'f', '0', '0', '-1'], ['BITPOS', 'f', '0', '1', '100'],
      ['BITPOS', 'f', '0', '100'], ['BITPOS', 'f', '1', '100'], ['BITPOS', 'f', '0', '-100'], ['BITPOS', 'f', '0', '3', '1', 'BIT'], ['BITPOS', 'f', '0', '0', '15', 'bit'],
    ],
  },
  {
    name: 'BITPOS with BIT ranges inside and across bytes',
    commands: [
      ['SET', 'k', bytes(0x00, 0xff, 0xf0)], ['BITPOS', 'k', '1', '7', '15', 'BIT'], ['BITPOS', 'k', '0', '8', '15', 'BIT'], ['BITPOS', 'k', '0', '8', '23', 'BIT'], ['BITPOS', 'k', '1', '3', '5', 'BIT'],
      ['BITPOS', 'k', '1', '20', '22', 'BIT'], ['BITPOS', 'k', '0', '20', '22', 'BIT'], ['BITPOS', 'k', '1', '-4', '-1', 'BIT'], ['BITPOS', 'k', '0', '-4', '-1', 'BIT'],
      ['BITPOS', 'k', '1', '-50', '-100', 'BIT'], ['BITPOS', 'k', '0', '-50', '-100', 'BIT'], ['BITPOS', 'k', '1', '0', '0', 'BYTE'], ['BITPOS', 'k', '0', '9223372036854775807', '-9223372036854775808', 'BIT'],
      ['BITPOS', 'k', '0', '-9223372036854775808', '9223372036854775807', 'BIT'],
    ],
  },
  { name: 'BITPOS on missing and empty keys', commands: [['BITPOS', 'missing', '1'], ['BITPOS', 'missing', '0'], ['BITPOS', 'missing', '1', '0', '1', 'bad'], ['BITPOS', 'missing', '0', 'a'], ['BITPOS', 'missing', '1', '0', '1', '2', '3'], ['SET', 'e', ''], ['BITPOS', 'e', '0'], ['BITPOS', 'e', '1'], ['BITPOS', 'e', '0', '0', '-1']] },
  {
    name: 'BITPOS errors: bit first, then type, then start, unit, end, argument count',
    commands: [
      HASH, ['BITPOS', 'missing', '2'], ['BITPOS', 'h', '2'], ['BITPOS', 'h', 'a'], ['BITPOS', 'h', '1'], ['BITPOS', 'h', '1', 'a'], ['BITPOS', 'h', '1', '0', '1', 'bad'],
      ['SET', 'k', 'foobar'], ['BITPOS', 'k', 'a'], ['BITPOS', 'k', '-1'], ['BITPOS', 'k', '1.0'], ['BITPOS', 'k', '1', 'a'], ['BITPOS', 'k', '1', '0', 'a'],
      ['BITPOS', 'k', '1', 'a', 'b', 'bad'], ['BITPOS', 'k', '1', '0', 'b', 'bad'], ['BITPOS', 'k', '1', '0', '1', 'bad'], ['BITPOS', 'k', '1', '0', '1', '2', '3'], ['BITPOS', 'k', '2', 'a'],
    ],
  },
]

/** Random BITCOUNT and BITPOS ranges over random bitmaps (runs of 0x00/0xff make BITPOS interesting). */
function randomRangeCases(count: number): DiffCase[] {
  return Array.from({ length: count }, (_, index) => {
    const length = 1 + below(40)
    const commands: Command[] = [['SET', 'r', randomBytes(length, [0x00, 0xff])]]
    for (let q = 0; q < 12; q++) {
      const span = length * 8 + 10
      const start = String(below(2 * span) - span)
      const end = String(below(2 * span) - span)
      const unit = pick(['', 'BIT', 'BYTE'])
      const range = unit === '' ? pick([[start], [start, end], []]) : [start, end, unit]
      if (random() < 0.4 && range.length !== 1) commands.push(['BITCOUNT', 'r', ...range])
      else commands.push(['BITPOS', 'r', pick(['0', '1']), ...range])
    }
    return { name: `BITCOUNT and BITPOS random ranges #${index}`, commands }
  })
}

const bitopCases: DiffCase[] = [
  {
    name: 'BITOP AND, OR, XOR over strings of different lengths pad with zeros',
    commands: [
      ['SET', 'a', bytes(0xff, 0x0f, 0xaa, 0x55)], ['SET', 'b', bytes(0xf0, 0xff)], ['SET', 'c', 'abc'],
      ['BITOP', 'AND', 'd', 'a', 'b'], ['GET', 'd'], ['BITOP', 'OR', 'd', 'a', 'b', 'c'], ['GET', 'd'], ['BITOP', 'XOR', 'd', 'a', 'b', 'c'], ['GET', 'd'],
      ['BITOP', 'and', 'd', 'a'], ['GET', 'd'], ['BITOP', 'Xor', 'd', 'a', 'a'], ['GET', 'd'], ['BITOP', 'AND', 'a', 'a', 'c'], ['GET', 'a'],
    ],
  },
  { name: 'BITOP NOT inverts one source and refuses more', commands: [['SET', 'a', bytes(0x00, 0xff, 0x0f)], ['BITOP', 'NOT', 'd', 'a'], ['GET', 'd'], ['BITOP', 'not', 'd', 'a', 'a'], ['BITOP', 'NOT', 'd', 'missing'], ['EXISTS', 'd']] },
  { name: 'BITOP treats missing sources as empty and deletes the destination when every source is empty', commands: [['SET', 'a', 'abc'], ['BITOP', 'OR', 'd', 'a', 'missing'], ['GET', 'd'], ['BITOP', 'AND', 'd', 'missing', 'a'], ['GET', 'd'], ['SET', 'e', ''], ['BITOP', 'OR', 'd', 'missing1', 'e'], ['EXISTS', 'd']] },
  { name: 'BITOP overwrites a destination of another type and drops its TTL', commands: [HASH, ['SET', 'a', 'x'], ['BITOP', 'OR', 'h', 'a'], ['TYPE', 'h'], ['SET', 't', 'old', 'EX', '100'], ['BITOP', 'OR', 't', 'a'], ['TTL', 't'], ['GET', 't']] },
  // DIFF, DIFF1, ANDOR and ONE are Redis 8.2's, which redis-server 7.0 refuses: test/executor/memory/bitop-82.test.ts.
  { name: 'BITOP errors: unknown operation, NOT arity, source of another type', commands: [HASH, ['SET', 'a', 'x'], ['BITOP', 'bad', 'd', 'a'], ['BITOP', 'DIFF2', 'd', 'a', 'a'], ['BITOP', 'AND', 'd', 'h'], ['BITOP', 'OR', 'd', 'a', 'h'], ['BITOP', 'NOT', 'd', 'h'], ['EXISTS', 'd']] },
]

const bitfieldCases: DiffCase[] = [
  {
    name: 'BITFIELD GET, SET and INCRBY with wrapping by default',
    commands: [
      ['BITFIELD', 'k', 'SET', 'i8', '0', '-100', 'GET', 'u8', '0', 'INCRBY', 'u8', '0', '300', 'INCRBY', 'i5', '100', '1', 'GET', 'u4', '0'], ['GET', 'k'],
      ['BITFIELD', 'k', 'get', 'i8', '#1', 'set', 'u16', '#1', '65535', 'incrby', 'i16', '#1', '1'], ['GET', 'k'],
    ],
  },
  {
    name: 'BITFIELD OVERFLOW SAT and FAIL apply to the operations after them',
    commands: [
      ['SET', 'k', bytes(0x68)],
      ['BITFIELD', 'k', 'OVERFLOW', 'SAT', 'INCRBY', 'u8', '0', '1000', 'INCRBY', 'i8', '0', '-1000', 'OVERFLOW', 'FAIL', 'INCRBY', 'u8', '0', '300', 'OVERFLOW', 'WRAP', 'INCRBY', 'i8', '0', '1000'],
      ['BITFIELD', 'k', 'overflow', 'sat', 'set', 'u8', '0', '-1', 'get', 'u8', '0', 'overflow', 'fail', 'set', 'u8', '0', '256', 'set', 'u8', '0', '255'], ['GET', 'k'],
    ],
  },
  {
    name: 'BITFIELD 63 and 64 bit fields and their limits',
    commands: [
      ['SET', 'k', 'abcdefghij'], ['BITFIELD', 'k', 'GET', 'u63', '0', 'GET', 'i64', '0', 'GET', 'i64', '3', 'GET', 'u63', '17'],
      ['BITFIELD', 'k', 'SET', 'i64', '0', '-9223372036854775808', 'INCRBY', 'i64', '0', '-1', 'OVERFLOW', 'SAT', 'INCRBY', 'i64', '0', '1', 'INCRBY', 'i64', '0', '-1'],
      ['BITFIELD', 'k', 'OVERFLOW', 'FAIL', 'INCRBY', 'i64', '0', '9223372036854775807', 'SET', 'u63', '1', '9223372036854775807', 'GET', 'u63', '1', 'OVERFLOW', 'SAT', 'INCRBY', 'u63', '1', '5'],
    ],
  },
  {
    name: 'BITFIELD SET of values far outside the field saturates as Redis does (including its INT64_MIN quirk)',
    commands: [
      ['BITFIELD', 'q', 'OVERFLOW', 'SAT', 'SET', 'i8', '0', '-9223372036854775808', 'GET', 'i8', '0'],
      ['BITFIELD', 'q', 'OVERFLOW', 'SAT', 'SET', 'i8', '0', '-9223372036854775681', 'GET', 'i8', '0', 'SET', 'i8', '0', '-9223372036854775680', 'GET', 'i8', '0'],
      ['BITFIELD', 'q', 'OVERFLOW', 'SAT', 'SET', 'u8', '0', '-1000', 'OVERFLOW', 'WRAP', 'SET', 'u8', '0', '-1000', 'GET', 'u8', '0'],
      ['BITFIELD', 'q', 'OVERFLOW', 'WRAP', 'SET', 'i8', '0', '-9223372036854775808', 'GET', 'i8', '0', 'OVERFLOW', 'SAT', 'SET', 'i63', '0', '-9223372036854775808', 'GET', 'i63', '0'],
      ['BITFIELD', 'q', 'SET', 'i8', '0', '1', 'OVERFLOW', 'FAIL', 'INCRBY', 'i8', '0', '-9223372036854775808', 'OVERFLOW', 'SAT', 'INCRBY', 'i8', '0', '-9223372036854775808'],
    ],
  },
  {
    name: 'BITFIELD # offsets are multiplied by the width, with 64-bit wrap-around',
    commands: [
      ['SET', 'k', 'a'], ['BITFIELD', 'k', 'GET', 'i8', '#2305843009213693952'], ['BITFIELD', 'k', 'GET', 'i8', '#1152921504606846976'], ['BITFIELD', 'k', 'GET', 'i8', '#1152921504606846975'],
      ['BITFIELD', 'k', 'GET', 'i8', '#536870911'], ['BITFIELD', 'k', 'GET', 'i8', '#536870912'], ['BITFIELD', 'k', 'GET', 'u1', '#-0'], ['BITFIELD', 'k', 'GET', 'u1', '#0'],
      ['BITFIELD', 'k', 'GET', 'u2', '#'], ['BITFIELD', 'k', 'GET', 'u2', '##1'], ['BITFIELD', 'k', 'GET', 'u2', '#+1'], ['BITFIELD', 'k', 'GET', 'i8', '#-1'],
    ],
  },
  {
    name: 'BITFIELD offsets: plain integers within 2^32 bits, GET past the end reads zeros',
    commands: [
      ['SET', 'k', 'ab'], ['BITFIELD', 'k', 'GET', 'i8', '-1'], ['BITFIELD', 'k', 'GET', 'i8', '4294967296'], ['BITFIELD', 'k', 'GET', 'i8', '4294967295'],
      ['BITFIELD', 'k', 'GET', 'u16', '4', 'GET', 'u16', '12', 'GET', 'i64', '9'], ['BITFIELD', 'k', 'GET', 'u2', '+1'], ['BITFIELD', 'k', 'GET', 'u2', '-0'],
    ],
  },
  {
    name: 'BITFIELD type errors: u64, i65, i0, wrong sign letter',
    commands: [
      ['BITFIELD', 'k', 'GET', 'u64', '0'], ['BITFIELD', 'k', 'GET', 'i65', '0'], ['BITFIELD', 'k', 'GET', 'i0', '0'], ['BITFIELD', 'k', 'GET', 'x8', '0'], ['BITFIELD', 'k', 'GET', 'I8', '0'],
      ['BITFIELD', 'k', 'GET', 'i08', '0'], ['BITFIELD', 'k', 'GET', 'i', '0'], ['BITFIELD', 'k', 'SET', 'u', '0', '1'], ['BITFIELD', 'k', 'SET', 'x8', 'a', 'b'],
    ],
  },
  {
    name: 'BITFIELD syntax errors and argument errors in order',
    commands: [
      ['BITFIELD', 'k', 'OVERFLOW', 'bad'], ['BITFIELD', 'k', 'OVERFLOW'], ['BITFIELD', 'k', 'GET', 'i8'], ['BITFIELD', 'k', 'SET', 'i8', '0'], ['BITFIELD', 'k', 'FOO'],
      ['BITFIELD', 'k', 'INCRBY', 'i8', '0', 'abc'], ['BITFIELD', 'k', 'SET', 'i8', '0', '1.5'], ['BITFIELD', 'k', 'GET', 'i8', '0', 'OVERFLOW'], ['BITFIELD', 'k', 'INCRBY', 'u8', '0', '1', 'OVERFLOW'],
      ['BITFIELD', 'k', 'OVERFLOW', 'WRAP', 'OVERFLOW'], ['BITFIELD', 'k', 'GET', 'u8', '0', 'SET', 'u8', '0', 'a'], ['BITFIELD', 'k', 'SET', 'u8', 'a', 'b'], ['EXISTS', 'k'],
    ],
  },
  { name: 'BITFIELD without operations, or only reads, does not create the key', commands: [['BITFIELD', 'k'], ['BITFIELD', 'k', 'GET', 'i8', '0', 'OVERFLOW', 'SAT'], ['BITFIELD', 'k', 'OVERFLOW', 'FAIL'], ['EXISTS', 'k']] },
  { name: 'BITFIELD writes create the key even when FAIL refuses them', commands: [['BITFIELD', 'm', 'OVERFLOW', 'FAIL', 'INCRBY', 'u2', '0', '5'], ['EXISTS', 'm'], ['GET', 'm'], ['BITFIELD', 'n', 'SET', 'u8', '#0', '1', 'SET', 'u8', '#0', '2'], ['GET', 'n']] },
  { name: 'BITFIELD keeps the TTL and grows binary values', commands: [['SET', 'k', bytes(0xff), 'EX', '100'], ['BITFIELD', 'k', 'SET', 'u4', '20', '15', 'GET', 'u8', '0'], ['GET', 'k'], ['TTL', 'k']], relax: { 3: 'ttl' } },
  { name: 'BITFIELD on a key of another type: argument errors first, then WRONGTYPE', commands: [HASH, ['BITFIELD', 'h', 'GET', 'i8', '0'], ['BITFIELD', 'h', 'GET', 'i8', 'a'], ['BITFIELD', 'h', 'SET', 'i8', '0', '1'], ['BITFIELD', 'h'], ['BITFIELD', 'h', 'OVERFLOW', 'SAT']] },
  {
    name: 'BITFIELD_RO only runs GET, after parsing every operation',
    commands: [
      HASH, ['SET', 'k', 'hello'], ['BITFIELD_RO', 'k', 'GET', 'i8', '0', 'GET', 'u4', '#3'], ['BITFIELD_RO', 'k', 'SET', 'i8', '0', '1'], ['BITFIELD_RO', 'k', 'GET', 'u8', '0', 'INCRBY', 'u8', '0', '1'],
      ['BITFIELD_RO', 'k', 'INCRBY', 'u8', 'a', '1'], ['BITFIELD_RO', 'k', 'GET', 'u8', 'a'], ['BITFIELD_RO', 'k', 'GET', 'u8', '0', 'foo'], ['BITFIELD_RO', 'k', 'OVERFLOW', 'SAT'],
      ['BITFIELD_RO', 'k', 'OVERFLOW', 'bad'], ['BITFIELD_RO', 'h', 'GET', 'i8', '0'], ['BITFIELD_RO', 'h', 'SET', 'i8', '0', '1'], ['BITFIELD_RO', 'missing', 'GET', 'u8', '0'], ['BITFIELD_RO', 'k'], ['GET', 'k'],
    ],
  },
]

/** Random BITFIELD programs: every width, signedness, overflow mode, with extreme values. */
function randomBitfieldCases(count: number): DiffCase[] {
  const extremes = ['0', '1', '-1', '127', '-128', '255', '256', '65535', '9223372036854775807', '-9223372036854775808', '4611686018427387904', '-4611686018427387905']
  return Array.from({ length: count }, (_, index) => {
    const commands: Command[] = []
    if (random() < 0.5) commands.push(['SET', 'b', randomBytes(1 + below(12), [0x00, 0xff, 0x80, 0x7f])])
    for (let program = 0; program < 4; program++) {
      const args: string[] = ['BITFIELD', 'b']
      for (let op = 0; op < 1 + below(5); op++) {
        if (random() < 0.25) args.push('OVERFLOW', pick(['WRAP', 'SAT', 'FAIL']))
        const signed = random() < 0.5
        const bits = signed ? 1 + below(64) : 1 + below(63)
        const offset = random() < 0.2 ? `#${below(6)}` : String(below(100))
        const value = random() < 0.5 ? pick(extremes) : String(below(2 ** 20) - 2 ** 19)
        const kind = pick(['GET', 'SET', 'INCRBY'])
        args.push(kind, `${signed ? 'i' : 'u'}${bits}`, offset)
        if (kind !== 'GET') args.push(value)
      }
      commands.push(args)
    }
    commands.push(['GET', 'b'])
    return { name: `BITFIELD random program #${index}`, commands }
  })
}

export const bitmapCases: readonly DiffCase[] = [
  ...setbitCases,
  ...bitcountCases,
  ...bitposCases,
  ...randomRangeCases(40),
  ...bitopCases,
  ...bitfieldCases,
  ...randomBitfieldCases(60),
]
