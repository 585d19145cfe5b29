/**
 * Exact x87 80-bit extended precision ("long double" on x86-64 Linux), the arithmetic Redis uses
 * for INCRBYFLOAT and HINCRBYFLOAT.
 *
 * Redis parses both operands with `strtold`, adds them in `long double` and formats the sum with
 * `ld2string(..., LD_STR_HUMAN)`: `%.17Lf`, then trailing zeros (and a bare '.') removed, and
 * `-0` written as `0` (util.c). A JS double gives other digits (`10.5 + 0.1` is `10.6` in Redis,
 * `10.59999999999999964` with doubles), so this module computes on exact BigInt significands:
 *
 * - {@link parseLongDouble}: `string2ld`, the text correctly rounded to a 64-bit significand
 * - {@link addLongDouble}: one x87 addition, rounded to nearest, ties to even
 * - {@link formatLongDouble}: `%.17Lf` as glibc prints it (exact, ties to even) plus Redis's trim
 *
 * ```ts
 * const sum = addLongDouble(parseLongDouble('10.5')!, parseLongDouble('0.1')!)
 * isFiniteLongDouble(sum) ? formatLongDouble(sum) : 'ERR increment would produce NaN or Infinity'
 * ```
 */

/**
 * A long double. Finite values are `(-1)^negative × significand × 2^exponent` with
 * `significand < 2^64` (not necessarily normalized); `kind` marks infinities and NaN.
 */
export interface LongDouble {
  readonly kind: 'finite' | 'infinity' | 'nan'
  readonly negative: boolean
  readonly significand: bigint
  readonly exponent: number
}

/** Bits of the x87 extended significand (explicit integer bit included). */
const PRECISION = 64
/** Exponent of the least significant bit of the smallest subnormal: 2^-16445. */
const MIN_EXPONENT = -16445
/** Values at or above 2^16384 overflow to infinity. */
const OVERFLOW_BITS = 16384
/** `MAX_LONG_DOUBLE_CHARS` (util.h): string2ld refuses texts of this length or longer. */
const MAX_LONG_DOUBLE_CHARS = 5 * 1024
/** `%.17Lf`: 17 decimals. */
const DECIMALS = 17
const DECIMAL_SCALE = 10n ** BigInt(DECIMALS)

const NAN: LongDouble = { kind: 'nan', negative: false, significand: 0n, exponent: 0 }
const POSITIVE_INFINITY: LongDouble = { kind: 'infinity', negative: false, significand: 0n, exponent: 0 }
const NEGATIVE_INFINITY: LongDouble = { kind: 'infinity', negative: true, significand: 0n, exponent: 0 }

/** Zero, the value of a missing key or hash field. */
export const LONG_DOUBLE_ZERO: LongDouble = { kind: 'finite', negative: false, significand: 0n, exponent: 0 }

/** True unless `value` is an infinity or NaN (Redis refuses such results). */
export function isFiniteLongDouble(value: LongDouble): boolean {
  return value.kind === 'finite'
}

// strtold's grammar, whole string: sign, then a decimal or hex float, or inf/infinity/nan.
const DECIMAL_TEXT = /^([+-]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?$/
const HEX_TEXT = /^([+-]?)0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?(?:[pP]([+-]?[0-9]+))?$/
const INFINITY_TEXT = /^[+-]?inf(?:inity)?$/i
const LEADING_ZEROS = /^0+/

/**
 * `text` as Redis's `string2ld` reads it, or null when Redis answers "not a valid float":
 * empty or 5120+ bytes, leading space, trailing garbage, NaN, or a value that overflows to
 * infinity or underflows to zero while parsing (strtold's ERANGE). `inf` and `-infinity` are
 * accepted (the sum is then refused as infinite); subnormal values are accepted.
 */
export function parseLongDouble(text: string): LongDouble | null {
  if (text.length === 0 || text.length >= MAX_LONG_DOUBLE_CHARS) return null
  const decimal = DECIMAL_TEXT.exec(text)
  if (decimal !== null) return parseDecimal(decimal[1] === '-', decimal[2], decimal[3] ?? '', decimal[4])
  const hex = HEX_TEXT.exec(text)
  if (hex !== null) return parseHex(hex[1] === '-', hex[2], hex[3] ?? '', hex[4])
  if (INFINITY_TEXT.test(text)) return text.charCodeAt(0) === 45 /* - */ ? NEGATIVE_INFINITY : POSITIVE_INFINITY
  return null
}

/** A whole long double from a 64-bit integer (an `int`-encoded Redis string). */
export function longDoubleFromInteger(value: bigint): LongDouble {
  const negative = value < 0n
  return roundToExtended(negative, negative ? -value : value, 0, false) ?? LONG_DOUBLE_ZERO
}

/** The sum as the x87 FPU computes it: exact, then rounded to 64 bits, ties to even. */
export function addLongDouble(a: LongDouble, b: LongDouble): LongDouble {
  if (a.kind === 'nan' || b.kind === 'nan') return NAN
  if (a.kind === 'infinity' || b.kind === 'infinity') {
    if (a.kind === 'infinity' && b.kind === 'infinity' && a.negative !== b.negative) return NAN
    return a.kind === 'infinity' ? a : b
  }
  if (a.significand === 0n && b.significand === 0n) {
    // IEEE 754: the sum of zeros is -0 only when both are -0 (round to nearest).
    return a.negative && b.negative ? a : LONG_DOUBLE_ZERO
  }
  if (a.significand === 0n) return b
  if (b.significand === 0n) return a
  // Align both on the smaller exponent; the exact sum is then an integer times 2^exponent.
  const exponent = Math.min(a.exponent, b.exponent)
  const x = signedSignificand(a) << BigInt(a.exponent - exponent)
  const y = signedSignificand(b) << BigInt(b.exponent - exponent)
  const sum = x + y
  // An exact zero sum of opposite values is +0 in round-to-nearest.
  if (sum === 0n) return LONG_DOUBLE_ZERO
  return roundToExtended(sum < 0n, sum < 0n ? -sum : sum, exponent, false) ?? LONG_DOUBLE_ZERO
}

/**
 * `ld2string(value, LD_STR_HUMAN)` of Redis: `%.17Lf` (glibc: exact, ties to even), trailing
 * zeros after the point removed, then the point if nothing follows it, and `-0` turned into `0`.
 * Infinities print as `inf`/`-inf`, as ld2string does (Redis never stores them).
 */
export function formatLongDouble(value: LongDouble): string {
  if (value.kind === 'infinity') return value.negative ? '-inf' : 'inf'
  if (value.kind === 'nan') return value.negative ? '-nan' : 'nan'
  let digits: string
  if (value.exponent >= 0) {
    digits = (value.significand << BigInt(value.exponent)).toString()
  } else {
    const scaled = roundShiftRight(value.significand * DECIMAL_SCALE, -value.exponent)
    const integer = scaled / DECIMAL_SCALE
    const fraction = (scaled % DECIMAL_SCALE).toString().padStart(DECIMALS, '0')
    digits = `${integer}.${fraction}`
    let end = digits.length
    while (digits.charCodeAt(end - 1) === 48 /* 0 */) end--
    if (digits.charCodeAt(end - 1) === 46 /* . */) end--
    digits = digits.slice(0, end)
  }
  // printf writes the sign of every negative value, -0 included; Redis rewrites a bare "-0".
  if (!value.negative || digits === '0') return digits
  return '-' + digits
}

/** `n / 2^shift` rounded to nearest, ties to even (shift ≥ 1). */
function roundShiftRight(n: bigint, shift: number): bigint {
  const bits = BigInt(shift)
  const quotient = n >> bits
  const remainder = n - (quotient << bits)
  const half = 1n << (bits - 1n)
  if (remainder > half || (remainder === half && (quotient & 1n) === 1n)) return quotient + 1n
  return quotient
}

function signedSignificand(value: LongDouble): bigint {
  return value.negative ? -value.significand : value.significand
}

/**
 * Rounds the exact value `n × 2^exponent` (plus a nonzero tail below its last bit when `sticky`)
 * to the extended format: at most 64 significant bits, no bit below 2^-16445 (subnormals), ties
 * to even. Returns infinity on overflow, and null when a nonzero value rounds to zero (the
 * underflow strtold reports as ERANGE). With `sticky`, `n` must carry at least 65 bits.
 */
function roundToExtended(negative: boolean, n: bigint, exponent: number, sticky: boolean): LongDouble | null {
  const bits = bitLength(n)
  if (bits + exponent > OVERFLOW_BITS) return negative ? NEGATIVE_INFINITY : POSITIVE_INFINITY
  const drop = Math.max(bits - PRECISION, MIN_EXPONENT - exponent)
  if (drop <= 0) return { kind: 'finite', negative, significand: n, exponent }
  // Everything is below half of the smallest subnormal: rounds to zero.
  if (drop > bits) return null
  const shift = BigInt(drop)
  let kept = n >> shift
  const remainder = n - (kept << shift)
  const half = 1n << (shift - 1n)
  if (remainder > half || (remainder === half && (sticky || (kept & 1n) === 1n))) kept += 1n
  let resultExponent = exponent + drop
  if (kept === 1n << BigInt(PRECISION)) {
    kept >>= 1n
    resultExponent += 1
  }
  if (kept === 0n) return null
  if (bitLength(kept) + resultExponent > OVERFLOW_BITS) return negative ? NEGATIVE_INFINITY : POSITIVE_INFINITY
  return { kind: 'finite', negative, significand: kept, exponent: resultExponent }
}

/** Number of significant bits of a non-negative integer. */
function bitLength(n: bigint): number {
  if (n === 0n) return 0
  const hex = n.toString(16)
  return (hex.length - 1) * 4 + (32 - Math.clz32(parseInt(hex[0], 16)))
}

/** Decimal exponent text as a number, saturated far beyond every meaningful range. */
function readExponent(text: string | undefined): number {
  if (text === undefined) return 0
  const value = Number(text)
  return Math.max(-1e9, Math.min(1e9, value))
}

function parseDecimal(negative: boolean, integerDigits: string, fractionDigits: string, exponentText: string | undefined): LongDouble | null {
  if (integerDigits.length === 0 && fractionDigits.length === 0) return null
  const allDigits = (integerDigits + fractionDigits).replace(LEADING_ZEROS, '')
  if (allDigits.length === 0) return negative ? { ...LONG_DOUBLE_ZERO, negative } : LONG_DOUBLE_ZERO
  const power = readExponent(exponentText) - fractionDigits.length
  // The value lies in [10^(magnitude-1), 10^magnitude). The largest long double is ~1.19e4932 and
  // half the smallest subnormal ~1.8e-4951: beyond these bounds strtold reports ERANGE.
  const magnitude = allDigits.length + power
  if (magnitude > 4934 || magnitude < -4952) return null
  const digits = BigInt(allDigits)
  let result: LongDouble | null
  if (power >= 0) {
    result = roundToExtended(negative, digits * 10n ** BigInt(power), 0, false)
  } else {
    const denominator = 10n ** BigInt(-power)
    // Enough quotient bits (≥ 66) that rounding sees the guard bit; the remainder is the sticky bit.
    const shift = Math.max(0, bitLength(denominator) - bitLength(digits) + 66)
    const numerator = digits << BigInt(shift)
    const quotient = numerator / denominator
    const sticky = quotient * denominator !== numerator
    result = roundToExtended(negative, quotient, -shift, sticky)
  }
  return result === null || result.kind !== 'finite' ? null : result
}

function parseHex(negative: boolean, integerDigits: string, fractionDigits: string, exponentText: string | undefined): LongDouble | null {
  if (integerDigits.length === 0 && fractionDigits.length === 0) return null
  const allDigits = (integerDigits + fractionDigits).replace(LEADING_ZEROS, '')
  if (allDigits.length === 0) return negative ? { ...LONG_DOUBLE_ZERO, negative } : LONG_DOUBLE_ZERO
  const exponent = readExponent(exponentText) - 4 * fractionDigits.length
  const result = roundToExtended(negative, BigInt('0x' + allDigits), exponent, false)
  return result === null || result.kind !== 'finite' ? null : result
}
