/**
 * RESP2 reply decoding: what a client reads from a Redis server.
 *
 * @packageDocumentation
 */

import { NULL_ARRAY, OK, PONG, QUEUED, ReplyError, Status, type Reply } from '../reply.js'
import {
  asBuffer,
  checkOffset,
  copyBytes,
  CR,
  describeByte,
  indexOfLF,
  LF,
  MAX_INTEGER_DIGITS,
  missingBulkCRLF,
  NEED_MORE,
  parseInteger,
  RespProtocolError,
  type NeedMore,
} from './protocol.js'
import { ChunkStream, type Parser } from './stream.js'

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
}

/**
 * A complete value and the offset just past its last byte.
 * @public
 */
export interface Decoded<T> {
  readonly value: T
  readonly end: number
}

const DEFAULT_MAX_BULK = 512 * 1024 * 1024
const DEFAULT_MAX_ARRAY = 2 ** 31 - 1

const PLUS = 43
const DASH = 45
const COLON = 58
const DOLLAR = 36
const STAR = 42

/** Longest legal `:`, `$` or `*` line before its LF: type byte, sign and digits, CR. */
const NUMBER_LINE = 1 + MAX_INTEGER_DIGITS + 1

interface OpenArray {
  readonly items: Reply[]
  readonly size: number
}

class ReplyParser implements Parser<Reply> {
  pos = 0
  bulk = -1
  readonly #stack: OpenArray[] = []
  readonly #maxBulk: number
  readonly #maxArray: number
  readonly #maxLine: number

  constructor(options: RespDecoderOptions = {}) {
    this.#maxBulk = options.maxBulkLength ?? DEFAULT_MAX_BULK
    this.#maxArray = options.maxArrayLength ?? DEFAULT_MAX_ARRAY
    this.#maxLine = options.maxLineLength ?? DEFAULT_MAX_BULK
  }

  run(buf: Buffer, pos: number): Reply | NeedMore {
    for (;;) {
      let value: Reply
      if (this.bulk >= 0) {
        const end = pos + this.bulk
        if (buf.length < end + 2) return this.#stop(pos)
        if (buf[end] !== CR || buf[end + 1] !== LF) throw missingBulkCRLF()
        value = copyBytes(buf, pos, end)
        this.bulk = -1
        pos = end + 2
      } else {
        if (pos >= buf.length) return this.#stop(pos)
        const type = buf[pos]
        if (type !== PLUS && type !== DASH && type !== COLON && type !== DOLLAR && type !== STAR) {
          throw new RespProtocolError(`invalid reply type byte '${describeByte(type)}'`)
        }
        const lf = indexOfLF(buf, pos + 1)
        if (lf < 0) {
          this.checkPartialLine(type, buf.length - pos)
          return this.#stop(pos)
        }
        this.checkPartialLine(type, lf - pos)
        if (buf[lf - 1] !== CR) throw lineError(type)
        const start = pos + 1
        const end = lf - 1
        pos = lf + 1
        if (type === PLUS) {
          value = status(buf, start, end)
        } else if (type === DASH) {
          value = new ReplyError(buf.toString('utf8', start, end))
        } else if (type === COLON) {
          const n = parseInteger(buf, start, end)
          if (n === undefined) throw lineError(type)
          value = n
        } else {
          const n = parseInteger(buf, start, end)
          if (n === -1) {
            value = type === DOLLAR ? null : NULL_ARRAY
          } else if (typeof n !== 'number' || n < 0 || n > (type === DOLLAR ? this.#maxBulk : this.#maxArray)) {
            throw lineError(type)
          } else if (type === DOLLAR) {
            this.bulk = n
            continue
          } else if (n > 0) {
            this.#stack.push({ items: [], size: n })
            continue
          } else {
            value = []
          }
        }
      }
      const done = this.#attach(value)
      if (done !== NEED_MORE) {
        this.pos = pos
        return done
      }
    }
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
      top.items.push(value)
      if (top.items.length < top.size) return NEED_MORE
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
  const parser = new ReplyParser(options)
  checkOffset(buf, offset)
  const value = parser.run(asBuffer(buf), offset)
  return value === NEED_MORE ? NEED_MORE : { value, end: parser.pos }
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
 * Pushed chunks are kept, not copied, until decoded: do not reuse a chunk's memory after pushing
 * it. Returned bulk strings are fresh `Buffer`s that never alias a chunk.
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
