import type { Arg } from '../reply.js'
import { badRequest, type RestError } from './errors.js'

/**
 * Reads a command body: a JSON array of strings and numbers (`["SET","k",1]`), or for a pipeline
 * a JSON array of such arrays. Numbers keep their source text, so `12345678901234567890` reaches
 * Redis exactly instead of being rounded through a double, which is why this is not JSON.parse.
 * Booleans are arguments too, `"true"` and `"false"`, as the hosted service stores them (the
 * official client sends a boolean value as a JSON boolean). `null` is refused with a 400 naming
 * its place: the official client sends it for an `undefined` value, and storing `""` or `"null"`
 * in its stead would hide that mistake.
 */
export function parseCommandArray(text: string): Arg[] | RestError {
  return new JsonReader(text).document()
}

/**
 * Reads a two-dimensional command array (`/pipeline`, `/multi-exec`); more than `maxRows` rows
 * is a 400 naming the limit, given as soon as the row past it starts.
 */
export function parseCommandMatrix(text: string, maxRows = Infinity): Arg[][] | RestError {
  const steps = new JsonReader(text).matrixDocument(maxRows)
  for (;;) {
    const step = steps.next()
    if (step.done === true) return step.value
  }
}

/** Rows read between two pauses of {@link parseCommandMatrixSliced}. */
const ROWS_PER_SLICE = 2048

/**
 * {@link parseCommandMatrix} in slices of rows, awaiting `pause` between them so that a large
 * body does not hold the event loop (other clients are served between slices).
 */
export async function parseCommandMatrixSliced(text: string, maxRows: number, pause: () => Promise<void>): Promise<Arg[][] | RestError> {
  const steps = new JsonReader(text).matrixDocument(maxRows)
  for (;;) {
    const step = steps.next()
    if (step.done === true) return step.value
    await pause()
  }
}

const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d
const COMMA = 0x2c
const QUOTE = 0x22
const BACKSLASH = 0x5c

/** JSON's booleans, which become the arguments `true` and `false`. */
const BOOLEANS = ['true', 'false'] as const

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

/** How many distinct command names a reader keeps for reuse. */
const RECENT_NAMES = 8

/** Reads characters by code (`charCodeAt`): no one-character strings on the way. */
class JsonReader {
  private pos = 0
  /**
   * Command names read so far (a few): a name seen before is handed out as the same string, so
   * the lookups by name that follow (the gateway's, the engine's) find its hash already computed.
   */
  private readonly names: string[] = []
  /** The row being read in a two-dimensional body, for error texts; -1 in a single command. */
  private row = -1
  constructor(private readonly text: string) {}

  document(): Arg[] | RestError {
    this.skipSpace()
    const value = this.argArray()
    if (!(value instanceof Array)) return value
    this.skipSpace()
    if (this.pos !== this.text.length) return this.fail('unexpected data after the JSON array')
    return value
  }

  /** A whole two-dimensional document, yielding every {@link ROWS_PER_SLICE} rows. */
  *matrixDocument(maxRows: number): Generator<void, Arg[][] | RestError> {
    this.skipSpace()
    const value = yield* this.matrix(maxRows)
    if (!(value instanceof Array)) return value
    this.skipSpace()
    if (this.pos !== this.text.length) return this.fail('unexpected data after the JSON array')
    return value
  }

  private *matrix(maxRows: number): Generator<void, Arg[][] | RestError> {
    if (this.text.charCodeAt(this.pos) !== OPEN_BRACKET) return this.fail('expected a JSON array of commands, e.g. [["SET","k","v"],["GET","k"]]')
    this.pos++
    const rows: Arg[][] = []
    this.skipSpace()
    if (this.text.charCodeAt(this.pos) === CLOSE_BRACKET) {
      this.pos++
      return rows
    }
    for (;;) {
      this.skipSpace()
      if (this.text.charCodeAt(this.pos) !== OPEN_BRACKET) return this.fail('each command must be a JSON array, e.g. ["GET","k"]')
      if (rows.length >= maxRows) return badRequest(`too many commands in one request: the limit is ${maxRows} (maxPipelineRows); split it into several requests`)
      if (rows.length % ROWS_PER_SLICE === ROWS_PER_SLICE - 1) yield
      this.row = rows.length
      const row = this.argArray()
      if (!(row instanceof Array)) return row
      rows.push(row)
      this.skipSpace()
      const next = this.text.charCodeAt(this.pos++)
      if (next === CLOSE_BRACKET) return rows
      if (next !== COMMA) return this.fail('invalid JSON: expected , or ]', this.pos - 1)
    }
  }

  private argArray(): Arg[] | RestError {
    if (this.text.charCodeAt(this.pos) !== OPEN_BRACKET) return this.fail('expected a JSON array, e.g. ["SET","k","v"]')
    this.pos++
    const args: Arg[] = []
    this.skipSpace()
    if (this.text.charCodeAt(this.pos) === CLOSE_BRACKET) {
      this.pos++
      return args
    }
    for (;;) {
      this.skipSpace()
      const arg = args.length === 0 ? this.name() : this.arg(args.length)
      if (typeof arg !== 'string') return arg
      args.push(arg)
      this.skipSpace()
      const next = this.text.charCodeAt(this.pos++)
      if (next === CLOSE_BRACKET) return args
      if (next !== COMMA) return this.fail('invalid JSON: expected , or ]', this.pos - 1)
    }
  }

  /** The first word of a command: {@link JsonReader.arg}, reusing an equal name read before. */
  private name(): string | RestError {
    const text = this.text
    const start = this.pos + 1
    if (text.charCodeAt(this.pos) === QUOTE) {
      const names = this.names
      for (let k = 0; k < names.length; k++) {
        const known = names[k]
        const end = start + known.length
        if (text.charCodeAt(end) === QUOTE && text.startsWith(known, start)) {
          this.pos = end + 1
          return known
        }
      }
    }
    const name = this.arg(0)
    // Only a name written without escapes is its own source text, which the match above needs.
    const plain = typeof name === 'string' && this.pos - start === name.length + 1 && text.charCodeAt(start - 1) === QUOTE
    if (plain && this.names.length < RECENT_NAMES) this.names.push(name)
    return name
  }

  /** The element at `index` of a command array: a string, a number's text, or a boolean's word. */
  private arg(index: number): string | RestError {
    const code = this.text.charCodeAt(this.pos)
    if (code === QUOTE) return this.string()
    if (code === 0x2d || (code >= 0x30 && code <= 0x39)) return this.number()
    const c = this.text[this.pos]
    if (c === '[' || c === '{') return this.fail('command arguments must be strings, numbers or booleans, not arrays or objects')
    for (const word of BOOLEANS) {
      if (this.text.startsWith(word, this.pos)) {
        this.pos += word.length
        return word
      }
    }
    if (this.text.startsWith('null', this.pos)) {
      const place = this.row === -1 ? `index ${index} of the command` : `index ${index} of command ${this.row}`
      return this.fail(`null is not a command argument (${place}): send a string, a number or a boolean`)
    }
    return this.fail(c === undefined ? 'invalid JSON: unexpected end of input' : `invalid JSON: unexpected character '${c}'`)
  }

  private static readonly NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y

  private number(): string | RestError {
    const pattern = JsonReader.NUMBER
    pattern.lastIndex = this.pos
    const match = pattern.exec(this.text)
    if (match === null) return this.fail('invalid JSON number')
    this.pos += match[0].length
    return match[0]
  }

  private string(): string | RestError {
    const text = this.text
    const start = this.pos
    // The plain run: up to a quote, a backslash or a control character.
    let end = start + 1
    for (; end < text.length; end++) {
      const c = text.charCodeAt(end)
      if (c === QUOTE || c === BACKSLASH || c < 0x20) break
    }
    if (text.charCodeAt(end) === QUOTE) {
      this.pos = end + 1
      return text.slice(start + 1, end)
    }
    // Escapes or control characters: find the closing quote and let JSON.parse do the decoding.
    let i = end
    while (i < this.text.length) {
      const ch = this.text[i]
      if (ch === '\\') i += 2
      else if (ch === '"') break
      else i++
    }
    if (i >= this.text.length) return this.fail('invalid JSON: unterminated string', start)
    let value: string
    try {
      value = JSON.parse(this.text.slice(start, i + 1)) as string
    } catch {
      return this.fail('invalid JSON string', start)
    }
    // Only escapes can make a lone surrogate (`"\ud800"`): it has no UTF-8 form, and storing
    // U+FFFD in its place would store other bytes than the client meant.
    if (LONE_SURROGATE.test(value)) return this.fail('invalid JSON string: a lone UTF-16 surrogate escape has no UTF-8 form; send binary values in the path or as a raw body', start)
    this.pos = i + 1
    return value
  }

  private skipSpace(): void {
    const text = this.text
    let pos = this.pos
    while (pos < text.length) {
      const c = text.charCodeAt(pos)
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break
      pos++
    }
    this.pos = pos
  }

  private fail(what: string, at = this.pos): RestError {
    return badRequest(`${what} (at offset ${at} of the request body)`)
  }
}
