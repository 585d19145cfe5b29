/**
 * The bytes of an append-only file: each command as a RESP array of bulk strings, exactly as
 * Redis writes it (`*<n>\r\n` then `$<len>\r\n<bytes>\r\n` per word), and the reader that
 * replays them. Words are the engine's binary strings (one char per byte).
 */

/** One command in the AOF's RESP form. */
export function encodeCommand(argv: readonly string[]): string {
  let out = `*${argv.length}\r\n`
  for (const word of argv) out += `$${word.length}\r\n${word}\r\n`
  return out
}

/** An AOF that cannot be loaded (format, manifest, missing file): the server must not start. */
export class AofError extends Error {}

/** A malformed AOF: the file and the byte offset where the command that could not be read starts. */
export class AofFormatError extends AofError {
  constructor(
    readonly file: string,
    readonly offset: number,
    readonly reason: string,
  ) {
    super(`Bad file format reading the append only file ${file} at offset ${offset}: ${reason}`)
    this.name = 'AofFormatError'
  }
}

/** What {@link replayAof} read. */
export interface AofReadResult {
  /** Commands replayed. */
  readonly commands: number
  /** Bytes of an incomplete last command that were not replayed (0 for a complete file). */
  readonly truncatedBytes: number
  /** Offset just after the last complete command. */
  readonly validLength: number
}

/** Thrown inside the parser when the file ends in the middle of a command. */
const TRUNCATED = Symbol('truncated')

/**
 * Replays every command of `bytes` (a latin1 string of the file) through `apply`. A file that ends
 * in the middle of its last command is read up to the last complete one (Redis's
 * `aof-load-truncated yes`); anything else malformed throws {@link AofFormatError} naming the
 * offset of the command that could not be read.
 */
export function replayAof(bytes: string, file: string, apply: (argv: string[], offset: number) => void): AofReadResult {
  let at = 0
  let commands = 0
  while (at < bytes.length) {
    const start = at
    try {
      const { argv, end } = readCommand(bytes, at)
      at = end
      apply(argv, start)
      commands++
    } catch (error) {
      if (error === TRUNCATED) return { commands, truncatedBytes: bytes.length - start, validLength: start }
      if (error instanceof Malformed) throw new AofFormatError(file, start, error.message)
      throw error
    }
  }
  return { commands, truncatedBytes: 0, validLength: at }
}

class Malformed extends Error {}

/** The line at `at` (without CRLF) and where the next one starts; TRUNCATED when the file ends first. */
function readLine(bytes: string, at: number): { text: string; next: number } {
  const end = bytes.indexOf('\r\n', at)
  if (end === -1) {
    // A line that cannot end before the file does is a cut, not garbage, when it still looks like a header.
    if (/^[*$]?-?\d*\r?$/.test(bytes.slice(at, at + 24))) throw TRUNCATED
    throw new Malformed('expected a line ending')
  }
  return { text: bytes.slice(at, end), next: end + 2 }
}

function readCount(bytes: string, at: number, prefix: '*' | '$'): { value: number; next: number } {
  if (at >= bytes.length) throw TRUNCATED
  if (bytes[at] !== prefix) throw new Malformed(`expected '${prefix}'`)
  const { text, next } = readLine(bytes, at)
  const value = Number(text.slice(1))
  if (!/^\d+$/.test(text.slice(1)) || !Number.isSafeInteger(value)) throw new Malformed(`invalid count '${text}'`)
  return { value, next }
}

function readCommand(bytes: string, at: number): { argv: string[]; end: number } {
  const header = readCount(bytes, at, '*')
  if (header.value < 1) throw new Malformed('empty command')
  let next = header.next
  const argv = new Array<string>(header.value)
  for (let i = 0; i < header.value; i++) {
    const length = readCount(bytes, next, '$')
    const end = length.next + length.value
    if (end + 2 > bytes.length) throw TRUNCATED
    if (bytes[end] !== '\r' || bytes[end + 1] !== '\n') throw new Malformed('bulk string not followed by CRLF')
    argv[i] = bytes.slice(length.next, end)
    next = end + 2
  }
  return { argv, end: next }
}
