/**
 * RESP2 request decoding: what a server reads from a client such as redis-cli. Mirrors Redis's
 * `processMultibulkBuffer` / `processInlineBuffer`, including their error texts, so clients see
 * the errors they would see from Redis.
 *
 */

import {
  bulkEnd,
  copyBytes,
  CR,
  DEFAULT_MAX_ARRAY,
  DEFAULT_MAX_BULK,
  describeByte,
  indexOfLF,
  LF,
  NEED_MORE,
  parseInteger,
  RespProtocolError,
  type NeedMore,
} from './protocol.js'
import type { Decoded, RespDecoder } from './decode.js'
import { ChunkStream, decodeOnce, type Parser } from './stream.js'

/**
 * Limits on what a client may send; the defaults are Redis's.
 * @public
 */
export interface RequestDecoderOptions {
  /** Largest argument, in bytes. Default 512 MiB, Redis's `proto-max-bulk-len`. */
  maxBulkLength?: number
  /** Most arguments in one command. Default 2^31-1 (`INT_MAX`), as in Redis. */
  maxArrayLength?: number
  /**
   * Longest inline command line, and longest `*`/`$` header line, before its LF.
   * Default 64 KiB, Redis's `PROTO_INLINE_MAX_SIZE`.
   */
  maxInlineLength?: number
  /**
   * Start with the limits Redis puts on a client that has not authenticated (see
   * {@link RequestDecoder.authRequired}). Default false.
   */
  authRequired?: boolean
}

/** Most arguments, and longest argument, a client that has not authenticated may send (Redis 7). */
const UNAUTHENTICATED_MAX_ARRAY = 10
const UNAUTHENTICATED_MAX_BULK = 16384

const DEFAULT_MAX_INLINE = 64 * 1024

const STAR = 42
const DOLLAR = 36

class RequestParser implements Parser<Buffer[]> {
  pos = 0
  bulk = -1
  /** Arguments of the multibulk command being read; `null` between commands. */
  #argv: Buffer[] | null = null
  #remaining = 0
  readonly #maxBulk: number
  readonly #maxArray: number
  readonly #maxInline: number
  /** Redis's `authRequired(c)`: the unauthenticated limits apply to the headers read from now on. */
  authRequired: boolean

  constructor(options: RequestDecoderOptions = {}) {
    this.#maxBulk = options.maxBulkLength ?? DEFAULT_MAX_BULK
    this.#maxArray = options.maxArrayLength ?? DEFAULT_MAX_ARRAY
    this.#maxInline = options.maxInlineLength ?? DEFAULT_MAX_INLINE
    this.authRequired = options.authRequired ?? false
  }

  run(buf: Buffer, pos: number): Buffer[] | NeedMore {
    for (;;) {
      if (this.bulk >= 0) {
        const end = bulkEnd(buf, pos, this.bulk)
        if (end < 0) return this.#stop(pos)
        this.bulk = -1
        const argv = this.#addArgument(copyBytes(buf, pos, end))
        pos = end + 2
        if (argv !== NEED_MORE) {
          this.pos = pos
          return argv
        }
        continue
      }
      if (pos >= buf.length) return this.#stop(pos)
      const first = buf[pos]
      // Redis only looks at the header byte once the line is complete; failing on it at once
      // gives the same error without waiting for a line that may never come.
      if (this.#argv !== null && first !== DOLLAR) {
        throw new RespProtocolError(`expected '$', got '${describeByte(first)}'`)
      }
      const lf = indexOfLF(buf, pos)
      if (lf < 0) {
        this.checkPartialLine(first, buf.length - pos)
        return this.#stop(pos)
      }
      this.checkPartialLine(first, lf - pos)
      const next = lf + 1
      if (this.#argv !== null) {
        const length = buf[lf - 1] === CR ? parseInteger(buf, pos + 1, lf - 1) : undefined
        if (typeof length !== 'number' || length < 0 || length > this.#maxBulk) {
          throw new RespProtocolError('invalid bulk length')
        }
        if (this.authRequired && length > UNAUTHENTICATED_MAX_BULK) throw new RespProtocolError('unauthenticated bulk length')
        this.bulk = length
      } else if (first === STAR) {
        const count = buf[lf - 1] === CR ? parseInteger(buf, pos + 1, lf - 1) : undefined
        if (count === undefined || count > this.#maxArray) {
          throw new RespProtocolError('invalid multibulk length')
        }
        if (this.authRequired && count > UNAUTHENTICATED_MAX_ARRAY) throw new RespProtocolError('unauthenticated multibulk length')
        // Like Redis, `*0` and negative counts are empty commands: skipped, not errors.
        if (count > 0) {
          this.#argv = []
          this.#remaining = Number(count)
        }
      } else {
        const end = lf > pos && buf[lf - 1] === CR ? lf - 1 : lf
        const argv = splitInlineArgs(buf.subarray(pos, end))
        if (argv.length > 0) {
          this.pos = next
          return argv
        }
      }
      pos = next
    }
  }

  deliverBulk(body: Buffer): Buffer[] | NeedMore {
    this.bulk = -1
    return this.#addArgument(body)
  }

  checkPartialLine(first: number, length: number): void {
    if (length <= this.#maxInline) return
    if (this.#argv !== null) throw new RespProtocolError('too big bulk count string')
    if (first === STAR) throw new RespProtocolError('too big mbulk count string')
    throw new RespProtocolError('too big inline request')
  }

  #addArgument(arg: Buffer): Buffer[] | NeedMore {
    const argv = this.#argv as Buffer[]
    argv.push(arg)
    if (--this.#remaining > 0) return NEED_MORE
    this.#argv = null
    return argv
  }

  #stop(pos: number): NeedMore {
    this.pos = pos
    return NEED_MORE
  }
}

const SPACE = 32
const TAB = 9
const BACKSLASH = 92
const DOUBLE_QUOTE = 34
const SINGLE_QUOTE = 39

/** C `isspace`: space, \t, \n, \v, \f, \r. */
function isSpace(c: number): boolean {
  return c === SPACE || (c >= TAB && c <= CR)
}

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48
  if (c >= 97 && c <= 102) return c - 87
  if (c >= 65 && c <= 70) return c - 55
  return -1
}

const ESCAPES: Record<number, number> = { 110: LF, 114: CR, 116: TAB, 98: 8, 97: 7 } // n r t b a

function unbalanced(): RespProtocolError {
  return new RespProtocolError('unbalanced quotes in request')
}

/**
 * Splits an inline command line into arguments with Redis's `sdssplitargs` rules: words separated
 * by whitespace; `"…"` with `\n \r \t \b \a \xHH` and `\<any>` escapes; `'…'` with only `\'`; a
 * closing quote must be followed by whitespace or the end of the line.
 *
 * One deliberate difference: a NUL byte is an ordinary byte here, where Redis, reading a C string,
 * silently drops the rest of the line.
 *
 * @param line - the line without its `\r\n`.
 * @throws {@link RespProtocolError} `unbalanced quotes in request`.
 * @public
 */
export function splitInlineArgs(line: Uint8Array): Buffer[] {
  const args: Buffer[] = []
  const end = line.length
  let i = 0
  for (;;) {
    while (i < end && isSpace(line[i])) i++
    if (i >= end) return args
    const word: number[] = []
    let quote = 0
    for (;;) {
      if (quote === 0) {
        if (i >= end) break
        const c = line[i++]
        if (c === SPACE || c === TAB || c === LF || c === CR) break
        if (c === DOUBLE_QUOTE || c === SINGLE_QUOTE) quote = c
        else word.push(c)
        continue
      }
      if (i >= end) throw unbalanced()
      const c = line[i]
      if (c === quote) {
        if (i + 1 < end && !isSpace(line[i + 1])) throw unbalanced()
        i++
        quote = 0
        break
      }
      if (c === BACKSLASH && i + 1 < end) {
        const escaped = line[i + 1]
        if (quote === SINGLE_QUOTE) {
          if (escaped === SINGLE_QUOTE) {
            word.push(SINGLE_QUOTE)
            i += 2
            continue
          }
        } else if (escaped === 120 && i + 3 < end && hexValue(line[i + 2]) >= 0 && hexValue(line[i + 3]) >= 0) {
          word.push(hexValue(line[i + 2]) * 16 + hexValue(line[i + 3])) // \xHH
          i += 4
          continue
        } else {
          word.push(ESCAPES[escaped] ?? escaped)
          i += 2
          continue
        }
      }
      word.push(c)
      i++
    }
    args.push(Buffer.from(word))
  }
}

/**
 * Decodes one client command from `buf` at `offset`, without state. Empty commands (blank inline
 * lines, `*0`) are skipped, as Redis does.
 *
 * @returns the arguments and the offset after them, or {@link NEED_MORE}.
 * @throws {@link RespProtocolError} with Redis's message for the same input; RangeError for a bad `offset`.
 * @public
 */
export function decodeRequest(
  buf: Uint8Array,
  offset = 0,
  options?: RequestDecoderOptions,
): Decoded<Buffer[]> | NeedMore {
  return decodeOnce(new RequestParser(options), buf, offset)
}

/**
 * Streaming decoder for what a RESP client sends: multibulk commands (`*2\r\n$3\r\nGET\r\n…`) and
 * inline commands (`GET key\r\n`, as typed into telnet). Same pull API as {@link RespDecoder}:
 * `push` chunks, then `next` until {@link NEED_MORE}. Every argument is a fresh `Buffer`.
 *
 * On {@link RespProtocolError}, reply `-ERR <message>` and close the connection, as Redis does.
 * @public
 */
export class RequestDecoder {
  readonly #stream: ChunkStream<Buffer[]>
  readonly #parser: RequestParser

  constructor(options?: RequestDecoderOptions) {
    this.#parser = new RequestParser(options)
    this.#stream = new ChunkStream(this.#parser)
  }

  /**
   * Whether the client still has to authenticate. While true, the commands read next are held
   * to Redis 7's limits for such clients: a multibulk of more than 10 arguments, or an argument
   * longer than 16384 bytes, is a protocol error (`unauthenticated multibulk length`,
   * `unauthenticated bulk length`). A server flips it as AUTH succeeds, before reading the
   * command after AUTH, so a pipeline `AUTH …` + large command works as it does in Redis.
   */
  get authRequired(): boolean {
    return this.#parser.authRequired
  }

  set authRequired(value: boolean) {
    this.#parser.authRequired = value
  }

  /** Appends bytes read from the client. Ignored after a protocol error. */
  push(chunk: Uint8Array): void {
    this.#stream.push(chunk)
  }

  /**
   * The next complete command, or {@link NEED_MORE}.
   * @throws {@link RespProtocolError} on malformed input, and again on every later call.
   */
  next(): Buffer[] | NeedMore {
    return this.#stream.next()
  }

  /** Bytes pushed and not yet consumed; for backpressure. */
  get bufferedBytes(): number {
    return this.#stream.buffered
  }
}
