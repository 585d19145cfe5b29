import { readDouble } from '../../lib/numbers.js'

/**
 * Scores as Redis reads and writes them (t_zset.c, util.c): the strict parser of ZADD and
 * friends, the lenient one of score ranges, and the C `printf` formats replies use, exactly
 * (glibc prints the exact binary value rounded half to even; JS's `toExponential`/`toFixed`
 * round exact ties upwards, so ties are detected and fixed here).
 */

// ---- parsing ----

/**
 * A score, increment or weight as `string2d` reads it (getDoubleFromObject): the whole string,
 * no leading space, no NaN; a decimal that overflows to ±inf or underflows to 0 is refused
 * (strtod's ERANGE), while `inf`/`-inf` and subnormal results are accepted.
 */
export function readScore(text: string): number | null {
  const integer = readPlainInteger(text)
  if (integer !== null) return integer
  const value = readDouble(text)
  if (value === null) return null
  if (value === Infinity || value === -Infinity) return isInfinityLiteral(text) ? value : null
  if (value === 0 && hasNonZeroDigit(text)) return null
  return value
}

/**
 * The value of `text` when it is only decimal digits (at most 15, so exact as a double) after an
 * optional `-`, else null: the common score, read without the general parser. Same value as
 * `strtod`, `-0` included.
 */
function readPlainInteger(text: string): number | null {
  const length = text.length
  const negative = length > 1 && text.charCodeAt(0) === 45
  const first = negative ? 1 : 0
  if (length === 0 || length - first > 15) return null
  let value = 0
  for (let i = first; i < length; i++) {
    const digit = text.charCodeAt(i) - 48
    if (digit < 0 || digit > 9) return null
    value = value * 10 + digit
  }
  return negative ? -value : value
}

/**
 * A score-range bound as `zslParseRange` reads it with plain `strtod`: the string as C sees it
 * (up to a NUL byte), leading white space skipped, the empty string reading as 0, overflow
 * giving ±inf and underflow 0 (no ERANGE check), NaN refused. Null when unreadable.
 */
export function readRangeScore(text: string): number | null {
  const nul = text.indexOf('\0')
  const visible = nul === -1 ? text : text.slice(0, nul)
  if (visible.length === 0) return 0
  let start = 0
  while (start < visible.length && isSpace(visible.charCodeAt(start))) start++
  if (start === visible.length) return null
  return readDouble(start === 0 ? visible : visible.slice(start))
}

function isInfinityLiteral(text: string): boolean {
  const first = text.charCodeAt(0) === 43 || text.charCodeAt(0) === 45 ? 1 : 0
  return (text.charCodeAt(first) | 0x20) === 105 /* i */
}

const HEX_PREFIX = /^[+-]?0[xX]/

/** True when the mantissa of a number literal (before its exponent) has a non-zero digit. */
function hasNonZeroDigit(text: string): boolean {
  const hex = HEX_PREFIX.exec(text)
  const start = hex === null ? 0 : hex[0].length
  for (let i = start; i < text.length; i++) {
    const code = text.charCodeAt(i)
    const lower = code | 0x20
    if (hex !== null ? lower === 112 /* p */ : lower === 101 /* e */) return false
    if (code >= 49 && code <= 57) return true
    if (hex !== null && lower >= 97 && lower <= 102) return true
  }
  return false
}

/** C `isspace` in the C locale. */
function isSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13)
}

// ---- formatting ----

/**
 * A score in a reply, as Redis 7.0's `addReplyDouble` writes it in RESP2: `%.17g`, and `inf` /
 * `-inf` for infinities (ZSCORE of 1.1 is "1.1000000000000001").
 *
 * Redis 7.2 and later write the shortest text that reads back as the same double instead
 * (`fpconv_dtoa`: "1.1"); following them means changing this one function (and
 * {@link formatListpackScore}, which uses the same digits for non-integral scores).
 */
export function formatScore(score: number): string {
  return formatG17(score)
}

/**
 * A score as a listpack stores it (`d2string`, which ZSCAN returns for listpack-encoded sets):
 * integral values within ±2^62 as integers (`double2ll`), the others as `%.17g`.
 */
export function formatListpackScore(score: number): string {
  if (Number.isInteger(score) && score >= -TWO_POW_62 && score <= TWO_POW_62) {
    return Math.abs(score) <= Number.MAX_SAFE_INTEGER ? String(score + 0) : BigInt(score).toString()
  }
  return formatG17(score)
}

const TWO_POW_62 = 2 ** 62

/** C `printf("%.17g")` of a double, exactly as glibc writes it. */
function formatG17(x: number): string {
  // An integer below 1e17 has at most 17 digits, all of which %.17g writes. String() is exact only
  // up to 2^53: beyond, it writes the shortest digits that read back (20266198323167232, a sum of
  // two geohash scores, would come out as 20266198323167230), so larger ones go through BigInt.
  if (Number.isInteger(x) && Math.abs(x) < 1e17) {
    if (Math.abs(x) <= Number.MAX_SAFE_INTEGER) return Object.is(x, -0) ? '-0' : String(x)
    return BigInt(x).toString()
  }
  if (x === Infinity) return 'inf'
  if (x === -Infinity) return '-inf'
  if (Number.isNaN(x)) return 'nan'
  let text = x.toExponential(16)
  // An exact tie at the 18th digit needs at most 26 binary fraction digits (see roundTiesToEven).
  if (Number.isInteger(x * 2 ** 26)) text = roundTiesToEven(x, text)
  const e = text.indexOf('e')
  const negative = text.charCodeAt(0) === 45
  const digits = text.slice(negative ? 1 : 0, e).replace('.', '')
  const exponent = Number(text.slice(e + 1))
  let out: string
  if (exponent < -4 || exponent >= 17) {
    const rest = trimZeros(digits.slice(1))
    const magnitude = Math.abs(exponent)
    out = `${digits[0]}${rest ? '.' + rest : ''}e${exponent < 0 ? '-' : '+'}${magnitude < 10 ? '0' : ''}${magnitude}`
  } else if (exponent >= 0) {
    const fraction = trimZeros(digits.slice(exponent + 1))
    out = digits.slice(0, exponent + 1) + (fraction ? '.' + fraction : '')
  } else {
    out = '0.' + '0'.repeat(-exponent - 1) + trimZeros(digits)
  }
  return negative ? '-' + out : out
}

function trimZeros(digits: string): string {
  let end = digits.length
  while (end > 0 && digits.charCodeAt(end - 1) === 48) end--
  return digits.slice(0, end)
}

/**
 * `toExponential(16)` rounds an exact tie (the value has exactly 18 significant digits, the last
 * a 5) upwards; glibc rounds it to even. A double is such a tie only when it is a multiple of
 * 2^-26 (more binary fraction digits give more decimal ones), which the caller checks first.
 */
function roundTiesToEven(x: number, rounded: string): string {
  const longer = x.toExponential(17)
  const e = longer.indexOf('e')
  if (longer.charCodeAt(e - 1) !== 53 /* 5 */) return rounded
  const negative = longer.charCodeAt(0) === 45
  const digits = longer.slice(negative ? 1 : 0, e).replace('.', '')
  const exponent = Number(longer.slice(e + 1))
  if (!equalsDecimal(x, BigInt(digits), exponent - 17)) return rounded
  const truncated = digits.slice(0, 17)
  if ((truncated.charCodeAt(16) & 1) === 1) return rounded
  return `${negative ? '-' : ''}${truncated[0]}.${truncated.slice(1)}e${exponent < 0 ? '-' : '+'}${Math.abs(exponent)}`
}

const float64 = new DataView(new ArrayBuffer(8))

/** The exact value of a finite non-zero |x| as `mantissa × 2^exponent`. */
function decompose(x: number): { mantissa: bigint; exponent: number } {
  float64.setFloat64(0, Math.abs(x))
  const high = float64.getUint32(0)
  const low = float64.getUint32(4)
  const biased = high >>> 20
  let mantissa = (BigInt(high & 0xfffff) << 32n) | BigInt(low)
  if (biased === 0) return { mantissa, exponent: -1074 }
  mantissa |= 1n << 52n
  return { mantissa, exponent: biased - 1075 }
}

/** True when |x| is exactly `digits × 10^power`. */
function equalsDecimal(x: number, digits: bigint, power: number): boolean {
  const { mantissa, exponent } = decompose(x)
  let left = mantissa
  let right = digits
  if (exponent >= 0) left <<= BigInt(exponent)
  else right <<= BigInt(-exponent)
  if (power >= 0) right *= 10n ** BigInt(power)
  else left *= 10n ** BigInt(-power)
  return left === right
}

/**
 * C `printf("%.<decimals>f")` of a double, exactly as glibc writes it (all integer digits, the
 * exact value rounded half to even): GEODIST's `%.4f`, the `%f` of the invalid-coordinates error.
 */
export function formatFixed(x: number, decimals: number): string {
  if (Number.isNaN(x)) return 'nan'
  if (x === Infinity) return 'inf'
  if (x === -Infinity) return '-inf'
  // toFixed is exact below 1e21 except on exact ties, which need x × 2^(decimals+1) integral.
  if (Math.abs(x) < 1e21 && !Number.isInteger(x * 2 ** (decimals + 1))) return x.toFixed(decimals)
  const sign = x < 0 || Object.is(x, -0) ? '-' : ''
  let scaled = 0n
  if (x !== 0) {
    const { mantissa, exponent } = decompose(x)
    const scale = 10n ** BigInt(decimals)
    scaled = exponent >= 0 ? (mantissa << BigInt(exponent)) * scale : roundShiftRight(mantissa * scale, -exponent)
  }
  const digits = scaled.toString().padStart(decimals + 1, '0')
  const split = digits.length - decimals
  return sign + digits.slice(0, split) + (decimals > 0 ? '.' + digits.slice(split) : '')
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
