/**
 * Number parsing with Redis's rules: integers as `string2ll` accepts them (no sign '+', no
 * leading zeros, no spaces, 64-bit range), doubles as `strtod` plus Redis's checks.
 */

const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n
const SHORT_INTEGER = /^(?:0|-?[1-9][0-9]{0,14})$/
const LONG_INTEGER = /^(?:0|-?[1-9][0-9]{15,19})$/

/** The exact 64-bit value of `text`, or null when Redis would not read it as an integer. */
export function readInt64(text: string): bigint | null {
  if (SHORT_INTEGER.test(text)) return BigInt(text)
  if (!LONG_INTEGER.test(text)) return null
  const value = BigInt(text)
  return value < INT64_MIN || value > INT64_MAX ? null : value
}

/**
 * `text` as a number when it is a valid 64-bit integer, else null. Values beyond 2^53 come back
 * rounded: use it for counts, indexes and times, where such values only meet range checks; use
 * {@link readInt64} where the exact value matters (INCRBY).
 */
export function readInteger(text: string): number | null {
  if (SHORT_INTEGER.test(text)) return Number(text)
  const exact = readInt64(text)
  return exact === null ? null : Number(exact)
}

const DECIMAL = /^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/
const INFINITY = /^[+-]?inf(?:inity)?$/i
const HEX_FLOAT = /^([+-]?)0[xX]([0-9a-fA-F]*)\.?([0-9a-fA-F]*)(?:[pP]([+-]?[0-9]+))?$/

/**
 * `text` as a double the way Redis reads one (strtod, whole string, no leading space, NaN
 * refused), or null. Accepts `inf`, `-infinity` and C hex floats, as strtod does.
 */
export function readDouble(text: string): number | null {
  if (text.length === 0) return null
  if (DECIMAL.test(text)) return Number(text)
  if (INFINITY.test(text)) return text.charCodeAt(0) === 45 ? -Infinity : Infinity
  const hex = HEX_FLOAT.exec(text)
  if (hex && (hex[2].length > 0 || hex[3].length > 0)) {
    const mantissa = parseInt(hex[2] + hex[3] || '0', 16) / 16 ** hex[3].length
    const value = mantissa * 2 ** Number(hex[4] ?? 0)
    return hex[1] === '-' ? -value : value
  }
  return null
}

/** Formats an integer reply value: a number when safe, else a bigint. */
export function integerReply(value: bigint): number | bigint {
  return value >= -9007199254740991n && value <= 9007199254740991n ? Number(value) : value
}
