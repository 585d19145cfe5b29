import { JsonFloat, JsonObject, type JsonValue } from '../../types/json.js'

/**
 * {@link JsonValue} → JSON text, as RedisJSON writes it: serde_json's serializer (strings escaped
 * with `\"`, `\\`, `\b \f \n \r \t`, other control bytes as lowercase `\u00xx`, every other byte
 * unchanged, so non-ASCII stays UTF-8), floats in ryu's shortest form (`1.0`, `1e20`, `1.5e-7`),
 * and RedisJSON's formatter for JSON.GET's INDENT / NEWLINE / SPACE.
 */

/** JSON.GET's formatting strings; absent means none. */
export interface JsonFormat {
  readonly indent?: string
  readonly newline?: string
  readonly space?: string
}

/** Serializes `value`, compact unless `format` asks for more. */
export function serializeJson(value: JsonValue, format?: JsonFormat): string {
  if (format === undefined || (format.indent === undefined && format.newline === undefined && format.space === undefined)) {
    return compact(value)
  }
  const writer = new PrettyWriter(format)
  writer.value(value)
  return writer.out
}

function compact(value: JsonValue): string {
  if (value === null) return 'null'
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false'
    case 'string':
      return quote(value)
    case 'number':
      return String(value)
    case 'bigint':
      return value.toString()
  }
  if (value instanceof JsonFloat) return formatFloat(value.value)
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]'
    let out = '[' + compact(value[0])
    for (let i = 1; i < value.length; i++) out += ',' + compact(value[i])
    return out + ']'
  }
  const { keys, values } = value
  if (keys.length === 0) return '{}'
  let out = '{' + quote(keys[0]) + ':' + compact(values[0])
  for (let i = 1; i < keys.length; i++) out += ',' + quote(keys[i]) + ':' + compact(values[i])
  return out + '}'
}

/**
 * RedisJSON's `RedisJsonFormatter` (after serde_json's PrettyFormatter): before each element a
 * newline then the indent repeated per level; SPACE after each `:`; a closing bracket goes on its
 * own line only when its container had elements.
 */
class PrettyWriter {
  out = ''
  private level = 0
  private hasValue = false
  private readonly indent: string
  private readonly newline: string
  private readonly space: string

  constructor(format: JsonFormat) {
    this.indent = format.indent ?? ''
    this.newline = format.newline ?? ''
    this.space = format.space ?? ''
  }

  value(value: JsonValue): void {
    if (Array.isArray(value)) this.array(value)
    else if (value instanceof JsonObject) this.object(value)
    else this.out += compact(value)
  }

  private array(items: readonly JsonValue[]): void {
    this.level++
    this.hasValue = false
    this.out += '['
    for (let i = 0; i < items.length; i++) {
      if (i > 0) this.out += ','
      this.lineBreak()
      this.value(items[i])
      this.hasValue = true
    }
    this.close(']')
  }

  private object(object: JsonObject): void {
    this.level++
    this.hasValue = false
    this.out += '{'
    for (let i = 0; i < object.keys.length; i++) {
      if (i > 0) this.out += ','
      this.lineBreak()
      this.out += quote(object.keys[i]) + ':' + this.space
      this.value(object.values[i])
      this.hasValue = true
    }
    this.close('}')
  }

  private close(bracket: string): void {
    this.level--
    if (this.hasValue) this.lineBreak()
    this.out += bracket
  }

  private lineBreak(): void {
    this.out += this.newline
    for (let i = 0; i < this.level; i++) this.out += this.indent
  }
}

const NEEDS_ESCAPE = /["\\\x00-\x1f]/
const SHORT_ESCAPES: Readonly<Record<number, string>> = { 8: '\\b', 9: '\\t', 10: '\\n', 12: '\\f', 13: '\\r', 34: '\\"', 92: '\\\\' }

/** A JSON string literal for the bytes `text` (serde_json's escaping). */
export function quote(text: string): string {
  if (text.length < 64) {
    // Short strings (most keys and values): a scan is cheaper than the regex.
    let clean = true
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i)
      if (code < 0x20 || code === 34 || code === 92) {
        clean = false
        break
      }
    }
    if (clean) return '"' + text + '"'
  } else if (!NEEDS_ESCAPE.test(text)) return '"' + text + '"'
  let out = '"'
  let start = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code >= 0x20 && code !== 34 && code !== 92) continue
    out += text.slice(start, i) + (SHORT_ESCAPES[code] ?? '\\u00' + (code < 16 ? '0' : '') + code.toString(16))
    start = i + 1
  }
  return out + text.slice(start) + '"'
}

/** Shortest round-trip digits of a finite, non-zero |value|, and the decimal exponent of the first. */
function shortestDigits(value: number): { digits: string; exponent: number } {
  const text = Math.abs(value).toExponential() // shortest digits that round-trip, like ryu's
  const e = text.indexOf('e')
  return { digits: text.slice(0, e).replace('.', ''), exponent: Number(text.slice(e + 1)) }
}

/**
 * A float as serde_json writes it (ryu's `format64`): `1.0`, `0.1`, `1000.0`, `1e16`, `1.5e-7`,
 * `-0.0`. Fixed notation while the decimal point falls within 16 digits of the first digit and
 * no more than 5 zeros follow it; exponent notation otherwise (`e` then the exponent, no `+`).
 */
export function formatFloat(value: number): string {
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0'
  const sign = value < 0 ? '-' : ''
  // Fast path: JavaScript's own shortest form when it is already fixed notation in ryu's range.
  const text = String(Math.abs(value))
  if (!text.includes('e')) {
    const dot = text.indexOf('.')
    if (dot === -1) {
      if (text.length <= 16) return sign + text + '.0'
    } else if (text.charCodeAt(0) !== 48 /* 0 */) {
      if (dot <= 16) return sign + text
    } else {
      let zeros = 0
      while (text.charCodeAt(2 + zeros) === 48) zeros++
      if (zeros < 5) return sign + text
    }
  }
  const { digits, exponent } = shortestDigits(value)
  const length = digits.length
  const point = exponent + 1 // digits before the decimal point (ryu's kk)
  if (point >= length && point <= 16) return sign + digits + '0'.repeat(point - length) + '.0'
  if (point > 0 && point <= 16) return sign + digits.slice(0, point) + '.' + digits.slice(point)
  if (point > -5 && point <= 0) return sign + '0.' + '0'.repeat(-point) + digits
  const mantissa = length === 1 ? digits : digits[0] + '.' + digits.slice(1)
  return sign + mantissa + 'e' + (point - 1)
}

const TRAILING_ZEROS = /0+$/
const SIGNIFICANT = 17

/**
 * The exact decimal expansion of a finite, non-zero |value|: its digits and the decimal exponent
 * of the first one. (JavaScript's `toExponential` rounds ties up; C's printf, which Redis uses,
 * rounds the exact value half to even, so the digits must be exact.)
 */
function exactDecimal(value: number): { digits: string; exponent: number } {
  const view = new DataView(new ArrayBuffer(8))
  view.setFloat64(0, Math.abs(value))
  const high = view.getUint32(0)
  const biased = high >>> 20
  const mantissa = (BigInt(high & 0xfffff) << 32n) | BigInt(view.getUint32(4))
  const significand = biased === 0 ? mantissa : mantissa | (1n << 52n)
  const power = (biased === 0 ? 1 : biased) - 1075
  if (power >= 0) {
    const digits = (significand << BigInt(power)).toString()
    return { digits, exponent: digits.length - 1 }
  }
  const digits = (significand * 5n ** BigInt(-power)).toString()
  return { digits, exponent: digits.length - 1 + power }
}

/**
 * A double as Redis 7.0 replies one in RESP2 (`addReplyDouble`: `%.17g`), used by JSON.RESP for
 * floats: `64.99` → `64.989999999999995`. (Redis 7.2+ writes the shortest form instead.)
 */
export function formatDouble17g(value: number): string {
  if (value === 0) return Object.is(value, -0) ? '-0' : '0'
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf'
  let { digits, exponent } = exactDecimal(value)
  if (digits.length > SIGNIFICANT) {
    const rest = digits.slice(SIGNIFICANT).replace(TRAILING_ZEROS, '')
    let head = digits.slice(0, SIGNIFICANT)
    const up = rest > '5' || (rest === '5' && (head.charCodeAt(SIGNIFICANT - 1) & 1) === 1)
    if (up) {
      head = (BigInt(head) + 1n).toString()
      if (head.length > SIGNIFICANT) {
        head = head.slice(0, SIGNIFICANT)
        exponent++
      }
    }
    digits = head
  }
  digits = digits.padEnd(SIGNIFICANT, '0')
  const sign = value < 0 ? '-' : ''
  if (exponent < -4 || exponent >= SIGNIFICANT) {
    const fraction = digits.slice(1).replace(TRAILING_ZEROS, '')
    const magnitude = Math.abs(exponent)
    return sign + digits[0] + (fraction ? '.' + fraction : '') + 'e' + (exponent < 0 ? '-' : '+') + (magnitude < 10 ? '0' : '') + magnitude
  }
  const padded = exponent < 0 ? '0'.repeat(-exponent) + digits : digits
  const point = exponent < 0 ? 1 : exponent + 1
  const fraction = padded.slice(point).replace(TRAILING_ZEROS, '')
  return sign + padded.slice(0, point) + (fraction ? '.' + fraction : '')
}
