/**
 * RESP2 reply decoding: what a client reads from a Redis server.
 *
 */

import { NULL_ARRAY, OK, PONG, QUEUED, ReplyError, Status, type Reply } from '../reply.js'
import {
  bulkEnd,
  copyBytes,
  CR,
  DEFAULT_MAX_ARRAY,
  DEFAULT_MAX_BULK,
  describeByte,
  indexOfLF,
  LF,
  MAX_INTEGER_DIGITS,
  NEED_MORE,
  parseInteger,
  RespProtocolError,
  type NeedMore,
} from './protocol.js'
import { ChunkStream, decodeOnce, type Parser } from './stream.js'

/**
 * Limits that keep a misbehaving server from making the decoder buffer without bound.
 * @public
 */
export interface RespDecoderOptions {
  /** Largest bulk string accepted, in bytes. Default 512 MiB, Redis's `proto-max-bulk-len`. */
  maxBulkLength?: number
  /** Most elements in one array. Default 2^31-1, the most Redis itself accepts. */
  maxArrayLength?: number
  /**
   * Longest simple-string or error line, in bytes. Redis does not bound these (a Lua
   * `error_reply` can be long), so the default is 512 MiB, like a bulk.
   */
  maxLineLength?: number
  /**
   * Copy every bulk string out of the chunk it arrived in. By default (false) a bulk string that
   * makes up at least half of its chunk is returned as a view of that chunk, without a copy (so
   * a value never keeps more than about twice its own size alive), and smaller ones are copied.
   * Set it when you write into a chunk's memory after pushing it.
   */
  copyBulks?: boolean
}

/**
 * A complete value and the offset just past its last byte.
 * @public
 */
export interface Decoded<T> {
  readonly value: T
  readonly end: number
}

const PLUS = 43
const DASH = 45
const COLON = 58
const DOLLAR = 36
const STAR = 42
const ZERO = 48

/** Longest legal `:`, `$` or `*` line before its LF: type byte, sign and digits, CR. */
const NUMBER_LINE = 1 + MAX_INTEGER_DIGITS + 1

interface OpenArray {
  readonly items: Reply[]
  readonly size: number
  filled: number
}

/** Arrays up to this many elements get their storage at once; longer ones grow as items arrive. */
const PREALLOCATE = 4096

class ReplyParser implements Parser<Reply> {
  pos = 0
  bulk = -1
  readonly #stack: OpenArray[] = []
  readonly #maxBulk: number
  readonly #maxArray: number
  readonly #maxLine: number
  readonly #copyBulks: boolean
  /** The smallest line-length limit of any type: complete lines up to it need no check. */
  readonly #shortLine: number

  constructor(options: RespDecoderOptions = {}) {
    this.#maxBulk = options.maxBulkLength ?? DEFAULT_MAX_BULK
    this.#maxArray = options.maxArrayLength ?? DEFAULT_MAX_ARRAY
    this.#maxLine = options.maxLineLength ?? DEFAULT_MAX_BULK
    this.#copyBulks = options.copyBulks ?? false
    this.#shortLine = Math.min(NUMBER_LINE, this.#maxLine + 2)
  }

  run(buf: Buffer, pos: number): Reply | NeedMore {
    const length = buf.length
    for (;;) {
      let value: Reply
      if (this.bulk >= 0) {
        const end = bulkEnd(buf, pos, this.bulk)
        if (end < 0) return this.#stop(pos)
        value = this.#bulkValue(buf, pos, end)
        this.bulk = -1
        pos = end + 2
      } else {
        if (pos >= length) return this.#stop(pos)
        const type = buf[pos]
        if (type === PLUS || type === DASH) {
          const lf = this.#findLine(buf, pos, type)
          if (lf < 0) return this.#stop(pos)
          value = type === PLUS ? status(buf, pos + 1, lf - 1) : new ReplyError(buf.toString('utf8', pos + 1, lf - 1))
          pos = lf + 1
        } else {
          if (type !== DOLLAR && type !== COLON && type !== STAR) {
            throw new RespProtocolError(`invalid reply type byte '${describeByte(type)}'`)
          }
          // Nearly every number line is short and whole: read it in one pass; anything else
          // (split, long, malformed) takes the general path, which also words the errors.
          let n: number | bigint | undefined = quickInteger(buf, pos + 1, length)
          if (quickEnd >= 0) pos = quickEnd
          else {
            const lf = this.#findLine(buf, pos, type)
            if (lf < 0) return this.#stop(pos)
            n = parseInteger(buf, pos + 1, lf - 1)
            pos = lf + 1
          }
          if (type === DOLLAR) {
            if (n === -1) value = null
            else if (typeof n !== 'number' || n < 0 || n > this.#maxBulk) throw lineError(type)
            else {
              // The body too, when this chunk holds it: no second trip round the loop.
              const bodyEnd = bulkEnd(buf, pos, n)
              if (bodyEnd < 0) {
                this.bulk = n
                return this.#stop(pos)
              }
              value = this.#bulkValue(buf, pos, bodyEnd)
              pos = bodyEnd + 2
            }
          } else if (type === COLON) {
            if (n === undefined) throw lineError(type)
            value = n
          } else {
            if (n === -1) value = NULL_ARRAY
            else if (typeof n !== 'number' || n < 0 || n > this.#maxArray) throw lineError(type)
            else if (n > 0) {
              this.#stack.push({ items: n <= PREALLOCATE ? new Array<Reply>(n) : [], size: n, filled: 0 })
              continue
            } else value = []
          }
        }
      }
      if (this.#stack.length === 0) {
        this.pos = pos
        return value
      }
      const done = this.#attach(value)
      if (done !== NEED_MORE) {
        this.pos = pos
        return done
      }
    }
  }

  /**
   * The LF ending the line that starts at `pos` (its type byte), once the line passed the length
   * and CR checks; -1 when `buf` ends first.
   */
  #findLine(buf: Buffer, pos: number, type: number): number {
    const lf = indexOfLF(buf, pos + 1)
    if (lf < 0) {
      this.checkPartialLine(type, buf.length - pos)
      return -1
    }
    if (lf - pos > this.#shortLine) this.checkPartialLine(type, lf - pos)
    if (buf[lf - 1] !== CR) throw lineError(type)
    return lf
  }

  /**
   * The body `buf[start, end)` as a value. A body that is at least half of its chunk is returned
   * as a view of the chunk (no copy, and it keeps at most about twice its own size alive); a
   * smaller one is copied, so it never pins a large chunk. `copyBulks` copies every body.
   */
  #bulkValue(buf: Buffer, start: number, end: number): Buffer {
    if (!this.#copyBulks && (end - start) * 2 >= buf.length) return buf.subarray(start, end)
    return copyBytes(buf, start, end)
  }

  deliverBulk(body: Buffer): Reply | NeedMore {
    this.bulk = -1
    return this.#attach(body)
  }

  /** `length` counts from the type byte up to the LF, so a simple string's own limit is 2 bytes less. */
  checkPartialLine(type: number, length: number): void {
    if (length > (type === PLUS || type === DASH ? this.#maxLine + 2 : NUMBER_LINE)) throw tooLong(type)
  }

  /** Puts a finished value into the innermost open array; returns it when it is a whole reply. */
  #attach(value: Reply): Reply | NeedMore {
    const stack = this.#stack
    // Length first: reading `stack[-1]` of an empty array is a slow named-property lookup in V8.
    for (let depth = stack.length; depth !== 0; depth = stack.length) {
      const top = stack[depth - 1]
      top.items[top.filled++] = value
      if (top.filled < top.size) return NEED_MORE
      stack.pop()
      value = top.items
    }
    return value
  }

  #stop(pos: number): NeedMore {
    this.pos = pos
    return NEED_MORE
  }
}

/** Reuses the shared instances for the statuses nearly every reply stream is made of. */
function status(buf: Buffer, start: number, end: number): Status {
  const length = end - start
  if (length === 2 && buf[start] === 79 && buf[start + 1] === 75) return OK
  const text = buf.toString('utf8', start, end)
  if (text === 'PONG') return PONG
  if (text === 'QUEUED') return QUEUED
  return new Status(text)
}

/** Offset just past the line {@link quickInteger} read, or -1 when it read none. */
let quickEnd = -1

/**
 * The common number line in one pass: an optional `-`, 1 to 15 digits without a leading zero
 * (nor `-0`), then CRLF, all within `buf`. Returns the value and sets {@link quickEnd}; sets it
 * to -1 for anything else, which the general path (`parseInteger`) then reads or refuses.
 */
function quickInteger(buf: Buffer, i: number, length: number): number {
  quickEnd = -1
  const negative = i < length && buf[i] === DASH
  if (negative) i++
  const first = i
  const limit = first + 15 < length ? first + 15 : length
  let n = 0
  for (; i < limit; i++) {
    const digit = buf[i] - ZERO
    if (digit < 0 || digit > 9) break
    n = n * 10 + digit
  }
  const digits = i - first
  if (digits === 0 || i + 1 >= length || buf[i] !== CR || buf[i + 1] !== LF) return 0
  if (buf[first] === ZERO && (digits > 1 || negative)) return 0
  quickEnd = i + 2
  return negative ? -n : n
}

function lineError(type: number): RespProtocolError {
  if (type === DOLLAR) return new RespProtocolError('invalid bulk length')
  if (type === STAR) return new RespProtocolError('invalid multibulk length')
  if (type === COLON) return new RespProtocolError('invalid integer')
  return new RespProtocolError('expected CRLF at end of line')
}

function tooLong(type: number): RespProtocolError {
  return type === PLUS || type === DASH ? new RespProtocolError('too big simple string or error line') : lineError(type)
}

/**
 * Decodes one reply from `buf` at `offset`, without state: the reference form of the grammar,
 * handy where all bytes are at hand and for tests at every split point. Streams should use
 * {@link RespDecoder}, which does not re-read a partial reply on every chunk.
 *
 * @returns the reply and the offset after it, or {@link NEED_MORE} if `buf` ends inside it.
 * @throws {@link RespProtocolError} if the bytes are not a RESP2 reply; RangeError for a bad `offset`.
 * @public
 */
export function decodeReply(buf: Uint8Array, offset = 0, options?: RespDecoderOptions): Decoded<Reply> | NeedMore {
  return decodeOnce(new ReplyParser(options), buf, offset)
}

/**
 * Streaming RESP2 reply decoder. Feed it socket chunks with `push` (any split is fine), then call
 * `next` until it answers {@link NEED_MORE}:
 *
 * ```ts
 * decoder.push(chunk)
 * for (let reply = decoder.next(); reply !== NEED_MORE; reply = decoder.next()) handle(reply)
 * ```
 *
 * A pull API rather than a callback, so the caller decides when to stop (e.g. one reply per
 * pending command) and errors surface where `next` is called.
 *
 * Pushed chunks are kept, not copied: do not write into a chunk's memory after pushing it. A bulk
 * string that makes up at least half of its chunk is a view of that chunk (a large value costs no
 * copy); smaller ones, and every one with `copyBulks: true`, are fresh `Buffer`s.
 * @public
 */
export class RespDecoder {
  readonly #stream: ChunkStream<Reply>

  constructor(options?: RespDecoderOptions) {
    this.#stream = new ChunkStream(new ReplyParser(options))
  }

  /** Appends bytes read from the server. Ignored after a protocol error. */
  push(chunk: Uint8Array): void {
    this.#stream.push(chunk)
  }

  /**
   * The next complete reply, or {@link NEED_MORE}.
   * @throws {@link RespProtocolError} on malformed input, and again on every later call.
   */
  next(): Reply | NeedMore {
    return this.#stream.next()
  }

  /** Bytes pushed and not yet consumed (elements of a half-read array are consumed); for backpressure. */
  get bufferedBytes(): number {
    return this.#stream.buffered
  }
}
