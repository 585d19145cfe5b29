import { ReplyError } from '../../../../reply.js'
import { JsonFloat, JsonObject, type JsonValue } from '../../types/json.js'
import { encodeCodePoint } from './utf8.js'

/**
 * JSON text → {@link JsonValue}, accepting exactly what RedisJSON's parser (serde_json into an
 * ijson `IValue`) accepts and failing with serde_json's messages and positions, which RedisJSON
 * sends verbatim, without an `ERR` prefix: `expected value at line 1 column 1`.
 *
 * Number rules (serde_json): an integer is read exactly when it fits u64 (positive) or i64
 * (negative), otherwise as a float; `-0` is the float `-0.0`; anything with `.` or an exponent is
 * a float. Nesting deeper than 127 levels fails with `recursion limit exceeded`.
 */

/** serde_json's ErrorCode texts. */
const EOF_LIST = 'EOF while parsing a list'
const EOF_OBJECT = 'EOF while parsing an object'
const EOF_STRING = 'EOF while parsing a string'
const EOF_VALUE = 'EOF while parsing a value'
const EXPECTED_COLON = 'expected `:`'
const EXPECTED_LIST_COMMA_OR_END = 'expected `,` or `]`'
const EXPECTED_OBJECT_COMMA_OR_END = 'expected `,` or `}`'
const EXPECTED_IDENT = 'expected ident'
const EXPECTED_VALUE = 'expected value'
const INVALID_ESCAPE = 'invalid escape'
const INVALID_NUMBER = 'invalid number'
const NUMBER_OUT_OF_RANGE = 'number out of range'
const CONTROL_CHARACTER = 'control character (\\u0000-\\u001F) found while parsing a string'
const KEY_MUST_BE_STRING = 'key must be a string'
const LONE_LEADING_SURROGATE = 'lone leading surrogate in hex escape'
const TRAILING_COMMA = 'trailing comma'
const TRAILING_CHARACTERS = 'trailing characters'
const UNEXPECTED_END_OF_HEX = 'unexpected end of hex escape'
const RECURSION_LIMIT_EXCEEDED = 'recursion limit exceeded'

/** serde_json's default depth budget: the 128th nested container fails. */
const RECURSION_LIMIT = 128
const U64_MAX = 2n ** 64n - 1n
const I64_MIN_MAGNITUDE = 2n ** 63n

/** Thrown inside the parser only; {@link parseJson} turns it into a reply. */
class SyntaxFailure {
  constructor(readonly message: string) {}
}

/** Parses one JSON text (surrounding whitespace allowed), or answers serde_json's error. */
export function parseJson(text: string): JsonValue | ReplyError {
  const parser = new Parser(text)
  try {
    const value = parser.value()
    parser.end()
    return value
  } catch (failure) {
    if (failure instanceof SyntaxFailure) return new ReplyError(failure.message)
    throw failure
  }
}

const enum Char {
  Tab = 9,
  Newline = 10,
  Return = 13,
  Space = 32,
  Quote = 34,
  Plus = 43,
  Comma = 44,
  Minus = 45,
  Dot = 46,
  Slash = 47,
  Zero = 48,
  Nine = 57,
  Colon = 58,
  UpperE = 69,
  OpenBracket = 91,
  Backslash = 92,
  CloseBracket = 93,
  LowerE = 101,
  OpenBrace = 123,
  CloseBrace = 125,
}

function isDigit(code: number): boolean {
  return code >= Char.Zero && code <= Char.Nine
}

function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48
  if (code >= 97 && code <= 102) return code - 87
  if (code >= 65 && code <= 70) return code - 55
  return -1
}

class Parser {
  private pos = 0
  private remainingDepth = RECURSION_LIMIT

  constructor(private readonly text: string) {}

  value(): JsonValue {
    const code = this.skipWhitespace()
    if (code === -1) this.peekError(EOF_VALUE)
    switch (code) {
      case 110: // n
        this.pos++
        this.ident('ull')
        return null
      case 116: // t
        this.pos++
        this.ident('rue')
        return true
      case 102: // f
        this.pos++
        this.ident('alse')
        return false
      case Char.Minus:
        this.pos++
        return this.number(false)
      case Char.Quote:
        this.pos++
        return this.string()
      case Char.OpenBracket:
        return this.nested(() => this.array())
      case Char.OpenBrace:
        return this.nested(() => this.object())
    }
    if (isDigit(code)) return this.number(true)
    return this.peekError(EXPECTED_VALUE)
  }

  /** After the top-level value only whitespace may follow. */
  end(): void {
    if (this.skipWhitespace() !== -1) this.peekError(TRAILING_CHARACTERS)
  }

  private nested(parse: () => JsonValue): JsonValue {
    if (--this.remainingDepth === 0) this.peekError(RECURSION_LIMIT_EXCEEDED)
    this.pos++
    const value = parse()
    this.remainingDepth++
    return value
  }

  private array(): JsonValue[] {
    const items: JsonValue[] = []
    for (let first = true; ; first = false) {
      let code = this.skipWhitespace()
      if (code === Char.CloseBracket) {
        this.pos++
        return items
      }
      if (code === -1) this.peekError(EOF_LIST)
      if (!first) {
        if (code !== Char.Comma) this.peekError(EXPECTED_LIST_COMMA_OR_END)
        this.pos++
        code = this.skipWhitespace()
        if (code === Char.CloseBracket) this.peekError(TRAILING_COMMA)
        if (code === -1) this.peekError(EOF_VALUE)
      }
      items.push(this.value())
    }
  }

  private object(): JsonObject {
    const object = new JsonObject()
    for (let first = true; ; first = false) {
      let code = this.skipWhitespace()
      if (code === Char.CloseBrace) {
        this.pos++
        return object
      }
      if (code === -1) this.peekError(EOF_OBJECT)
      if (!first) {
        if (code !== Char.Comma) this.peekError(EXPECTED_OBJECT_COMMA_OR_END)
        this.pos++
        code = this.skipWhitespace()
      }
      if (code === Char.CloseBrace) this.peekError(TRAILING_COMMA)
      if (code === -1) this.peekError(EOF_VALUE)
      if (code !== Char.Quote) this.peekError(KEY_MUST_BE_STRING)
      this.pos++
      const key = this.string()
      const colon = this.skipWhitespace()
      if (colon === -1) this.peekError(EOF_OBJECT)
      if (colon !== Char.Colon) this.peekError(EXPECTED_COLON)
      this.pos++
      // A repeated key replaces the earlier value in its slot (ijson's insert).
      object.set(key, this.value())
    }
  }

  /** The rest of `null`, `true` or `false`. */
  private ident(rest: string): void {
    for (let i = 0; i < rest.length; i++) {
      if (this.pos >= this.text.length) this.error(EOF_VALUE)
      if (this.text.charCodeAt(this.pos++) !== rest.charCodeAt(i)) this.error(EXPECTED_IDENT)
    }
  }

  /** A number; the sign (if any) is consumed. */
  private number(positive: boolean): JsonValue {
    const text = this.text
    const start = positive ? this.pos : this.pos - 1
    if (this.pos >= text.length) this.error(EOF_VALUE)
    const first = text.charCodeAt(this.pos++)
    let magnitude = first - Char.Zero
    if (first === Char.Zero) {
      if (isDigit(this.peek())) this.peekError(INVALID_NUMBER)
    } else if (isDigit(first)) {
      for (let code = this.peek(); isDigit(code); code = this.peek()) {
        magnitude = magnitude * 10 + (code - Char.Zero)
        this.pos++
      }
    } else this.error(INVALID_NUMBER)
    let float = false
    if (this.peek() === Char.Dot) {
      this.pos++
      const digits = this.pos
      while (isDigit(this.peek())) this.pos++
      if (this.pos === digits) this.peekError(this.pos < text.length ? INVALID_NUMBER : EOF_VALUE)
      float = true
    }
    const e = this.peek()
    if (e === Char.LowerE || e === Char.UpperE) {
      this.pos++
      const sign = this.peek()
      if (sign === Char.Plus || sign === Char.Minus) this.pos++
      if (this.pos >= text.length) this.error(EOF_VALUE)
      if (!isDigit(text.charCodeAt(this.pos++))) this.error(INVALID_NUMBER)
      while (isDigit(this.peek())) this.pos++
      float = true
    }
    if (!float && this.pos - start <= 15) {
      // Exact below 10^15; serde_json negates the magnitude as an i64, and -0 has none: -0.0.
      if (positive) return magnitude
      return magnitude === 0 ? new JsonFloat(-0) : -magnitude
    }
    const lexeme = text.slice(start, this.pos)
    if (!float) {
      const integer = this.integer(lexeme, positive)
      if (integer !== undefined) return integer
    }
    const value = Number(lexeme)
    if (!Number.isFinite(value)) this.error(NUMBER_OUT_OF_RANGE)
    return new JsonFloat(value)
  }

  /** A long integer lexeme as serde_json keeps it (u64 / i64), or undefined when it becomes a float. */
  private integer(lexeme: string, positive: boolean): JsonValue | undefined {
    const big = BigInt(lexeme)
    if (positive ? big > U64_MAX : -big > I64_MIN_MAGNITUDE) return undefined
    return Number.isSafeInteger(Number(big)) ? Number(big) : big
  }

  /** A string; the opening quote is consumed. The result is the UTF-8 bytes it denotes. */
  private string(): string {
    const text = this.text
    let start = this.pos
    let out = ''
    for (;;) {
      let code = -1
      while (this.pos < text.length) {
        code = text.charCodeAt(this.pos)
        if (code === Char.Quote || code === Char.Backslash || code < 0x20) break
        this.pos++
      }
      if (this.pos >= text.length) this.error(EOF_STRING)
      if (code === Char.Quote) {
        const value = out + text.slice(start, this.pos)
        this.pos++
        return value
      }
      if (code === Char.Backslash) {
        out += text.slice(start, this.pos)
        this.pos++
        out += this.escape()
        start = this.pos
        continue
      }
      this.pos++
      this.error(CONTROL_CHARACTER)
    }
  }

  /** One escape after the backslash, as UTF-8 bytes. */
  private escape(): string {
    if (this.pos >= this.text.length) this.error(EOF_STRING)
    const code = this.text.charCodeAt(this.pos++)
    switch (code) {
      case Char.Quote:
        return '"'
      case Char.Backslash:
        return '\\'
      case Char.Slash:
        return '/'
      case 98: // b
        return '\b'
      case 102: // f
        return '\f'
      case 110: // n
        return '\n'
      case 114: // r
        return '\r'
      case 116: // t
        return '\t'
      case 117: // u
        return encodeCodePoint(this.unicodeEscape())
    }
    return this.error(INVALID_ESCAPE)
  }

  /** The code point of `\uXXXX` (a surrogate pair takes two escapes). */
  private unicodeEscape(): number {
    const high = this.hex4()
    if (high >= 0xdc00 && high <= 0xdfff) this.error(LONE_LEADING_SURROGATE)
    if (high < 0xd800 || high > 0xdbff) return high
    for (const expected of [Char.Backslash, 117]) {
      if (this.pos >= this.text.length) this.error(EOF_STRING)
      if (this.text.charCodeAt(this.pos++) !== expected) this.error(UNEXPECTED_END_OF_HEX)
    }
    const low = this.hex4()
    if (low < 0xdc00 || low > 0xdfff) this.error(LONE_LEADING_SURROGATE)
    return ((high - 0xd800) << 10) + (low - 0xdc00) + 0x10000
  }

  private hex4(): number {
    if (this.pos + 4 > this.text.length) {
      this.pos = this.text.length
      this.error(EOF_STRING)
    }
    let value = 0
    for (let i = 0; i < 4; i++) {
      const digit = hexValue(this.text.charCodeAt(this.pos++))
      if (digit === -1) this.error(INVALID_ESCAPE)
      value = (value << 4) | digit
    }
    return value
  }

  /** The next non-whitespace char code (not consumed), or -1 at the end. */
  private skipWhitespace(): number {
    const text = this.text
    while (this.pos < text.length) {
      const code = text.charCodeAt(this.pos)
      if (code !== Char.Space && code !== Char.Newline && code !== Char.Tab && code !== Char.Return) return code
      this.pos++
    }
    return -1
  }

  private peek(): number {
    return this.pos < this.text.length ? this.text.charCodeAt(this.pos) : -1
  }

  /** serde_json's `error`: the position after the last consumed byte. */
  private error(code: string): never {
    throw this.failure(code, this.pos)
  }

  /** serde_json's `peek_error`: the position of the byte looked at. */
  private peekError(code: string): never {
    throw this.failure(code, Math.min(this.pos + 1, this.text.length))
  }

  private failure(code: string, index: number): SyntaxFailure {
    let line = 1
    let lineStart = 0
    for (let i = this.text.indexOf('\n'); i !== -1 && i < index; i = this.text.indexOf('\n', i + 1)) {
      line++
      lineStart = i + 1
    }
    return new SyntaxFailure(`${code} at line ${line} column ${index - lineStart}`)
  }
}
