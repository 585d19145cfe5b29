import { describe, expect, test } from 'vitest'
import fc from 'fast-check'
import {
  LONG_DOUBLE_ZERO,
  addLongDouble,
  formatLongDouble,
  isFiniteLongDouble,
  longDoubleFromInteger,
  parseLongDouble,
  type LongDouble,
} from '../../../src/executor/memory/lib/longdouble.js'

function parse(text: string): LongDouble {
  const value = parseLongDouble(text)
  if (value === null) throw new Error(`not a long double: ${text}`)
  return value
}

/** INCRBYFLOAT's computation: the reply text, or what Redis says when it refuses. */
function incrByFloat(current: string, increment: string): string {
  const a = parseLongDouble(current)
  const b = parseLongDouble(increment)
  if (a === null || b === null) return 'not a valid float'
  const sum = addLongDouble(a, b)
  return isFiniteLongDouble(sum) ? formatLongDouble(sum) : 'NaN or Infinity'
}

describe('longdouble: sums as redis-server 7.0 on x86-64 prints them (recorded from the server)', () => {
  test.each([
    ['10.5', '0.1', '10.6'],
    ['10.6', '5.0e3', '5010.60000000000000009'],
    ['5010.60000000000000009', '-5.0e3', '10.60000000000000009'],
    ['0.1', '0.2', '0.30000000000000000001'.slice(0, 3)],
    ['0', '1e30', '1000000000000000000024696061952'],
    ['1000000000000000000024696061952', '1', '1000000000000000000024696061952'],
    ['0', '123456789012345678901234567890.123456789', '123456789012345678899921813504'],
    ['0', '9223372036854775807', '9223372036854775807'],
    ['0', '18446744073709551615', '18446744073709551615'],
    ['0', '0.99999999999999999999', '1'],
    ['0', '3.0000000000000000001', '3'],
    ['0', '1e-20', '0'],
    ['0', '-1e-20', '0'],
    ['0', '-0', '0'],
    ['0', '0x10', '16'],
    ['16', '0x1.8p1', '19'],
    ['0', '2e-4951', '0'],
    ['0', '0e-5000', '0'],
    ['6.5', '.5', '7'],
    ['1e3', '1', '1001'],
    ['0', '0.000000000000000005', '0'],
    ['0', '0.000000000000000015', '0.00000000000000002'],
  ])('%s + %s = %s', (current, increment, expected) => {
    expect(incrByFloat(current, increment)).toBe(expected)
  })

  test('1e308 is printed with all its digits, as %.17Lf does', () => {
    expect(incrByFloat('0', '1e308')).toBe(
      '99999999999999999996685879655845645660560099847415567207797047994921734868838061872100126921888539320446747225054013223152134749593960583597420814430196418767959100019603190778663109604507106667939153395788938914560543563061268364901618630217086589253444881623791300855757318142424510452728255046343928578048',
    )
  })

  test('ties at the 17th decimal round to even', () => {
    expect(formatLongDouble(parse('0.000003814697265625'))).toBe('0.00000381469726562')
    expect(formatLongDouble(parse('0.000011444091796875'))).toBe('0.00001144409179688')
  })

  test('a negative value that prints as zero is "0", other negatives keep their sign', () => {
    expect(formatLongDouble(parse('-0.000000000000000005'))).toBe('0')
    expect(formatLongDouble(parse('-0'))).toBe('0')
    expect(formatLongDouble(parse('-0.000000000000000025'))).toBe('-0.00000000000000002')
    expect(formatLongDouble(parse('-2.5'))).toBe('-2.5')
  })
})

describe('longdouble: parsing follows string2ld (strtold on the whole text)', () => {
  test.each(['', ' 1', '1 ', '\t1', '.', 'e5', '1e', '1e+', '--1', '+-1', '1.5.5', '0x', '0x1p', '0xp1', '0x.p1', 'nan', 'NaN', '-nan', 'infinit', '1,5', '1\u00002', 'abc'])(
    '%j is not a valid float',
    (text) => {
      expect(parseLongDouble(text)).toBeNull()
    },
  )

  test.each([
    ['inf', 'inf'],
    ['-Infinity', '-inf'],
    ['+.5', '0.5'],
    ['-.5e1', '-5'],
    ['1.e5', '100000'],
    ['00000001.5000000', '1.5'],
    ['0x000001p-2', '0.25'],
    ['0X.8P-1', '0.25'],
    ['0e99999999999999999999', '0'],
  ])('%j reads as %s', (text, printed) => {
    expect(formatLongDouble(parse(text))).toBe(printed)
  })

  test('values that overflow or underflow to zero while parsing are refused (ERANGE)', () => {
    expect(parseLongDouble('1.18973149535723176502e+4932')).not.toBeNull()
    expect(parseLongDouble('1.18973149535723176508e+4932')).toBeNull()
    expect(parseLongDouble('1.2e4932')).toBeNull()
    expect(parseLongDouble('0x1.fffffffffffffffep16383')).not.toBeNull()
    expect(parseLongDouble('0x1p16384')).toBeNull()
    // Subnormals are kept; half the smallest subnormal rounds to zero (ties to even) and is refused.
    expect(parseLongDouble('0x1p-16445')).not.toBeNull()
    expect(parseLongDouble('0x1p-16446')).toBeNull()
    expect(parseLongDouble('0x1.0000001p-16446')).not.toBeNull()
    expect(parseLongDouble('1e-4951')).toBeNull()
    expect(parseLongDouble('1e-99999999999999999999')).toBeNull()
  })

  test('texts of 5120 bytes or more are refused (MAX_LONG_DOUBLE_CHARS)', () => {
    expect(parseLongDouble('0'.repeat(5118) + '1')).not.toBeNull()
    expect(parseLongDouble('0'.repeat(5119) + '1')).toBeNull()
  })

  test('decimal texts round to the nearest 64-bit significand, ties to even', () => {
    expect(formatLongDouble(parse('18446744073709551617'))).toBe('18446744073709551616')
    expect(formatLongDouble(parse('18446744073709551619'))).toBe('18446744073709551620')
    expect(formatLongDouble(parse('36893488147419103231'))).toBe('36893488147419103232')
    expect(formatLongDouble(parse('36893488147419103233'))).toBe('36893488147419103232')
  })
})

describe('longdouble: addition', () => {
  test('infinities and NaN', () => {
    const inf = parse('inf')
    const negInf = parse('-inf')
    expect(isFiniteLongDouble(addLongDouble(inf, parse('1')))).toBe(false)
    expect(addLongDouble(inf, negInf).kind).toBe('nan')
    expect(addLongDouble(parse('1e4932'), parse('1e4932')).kind).toBe('infinity')
    expect(addLongDouble(parse('-1.18973149535723176502e+4932'), parse('-1e4913')).kind).toBe('infinity')
  })

  test('zeros: -0 + -0 is -0, any other sum of zeros or of opposites is +0', () => {
    expect(addLongDouble(parse('-0'), parse('-0')).negative).toBe(true)
    expect(addLongDouble(parse('-0'), LONG_DOUBLE_ZERO).negative).toBe(false)
    expect(addLongDouble(parse('-1.5'), parse('1.5')).negative).toBe(false)
  })

  test('sums of integers below 2^63 are exact', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 62n), max: 2n ** 62n }), fc.bigInt({ min: -(2n ** 62n), max: 2n ** 62n }), (a, b) => {
        const sum = addLongDouble(longDoubleFromInteger(a), longDoubleFromInteger(b))
        expect(formatLongDouble(sum)).toBe((a + b).toString())
      }),
    )
  })

  test('binary fractions with at most 17 fractional digits print exactly', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), fc.integer({ min: 0, max: 17 }), fc.boolean(), (n, k, negative) => {
        const value = parse(`${negative ? '-' : ''}0x${n.toString(16)}p-${k}`)
        // n / 2^k = n * 5^k / 10^k: an exact decimal with k fractional digits.
        const scaled = (n * 5n ** BigInt(k)).toString().padStart(k + 1, '0')
        let expected = k === 0 ? scaled : `${scaled.slice(0, -k)}.${scaled.slice(-k)}`
        if (k > 0) expected = expected.replace(/0+$/, '').replace(/\.$/, '')
        if (negative && expected !== '0') expected = '-' + expected
        expect(formatLongDouble(value)).toBe(expected)
      }),
    )
  })
})
