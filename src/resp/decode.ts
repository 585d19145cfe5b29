/**
 * RESP2 reply decoding: what a client reads from a Redis server.
 *
 */

import { NULL_ARRAY, OK, PONG, QUEUED, ReplyError, Status, type Reply } from '../reply.js'
import {
  asBuffer,
  copyBytes,
  Byte,
  DEFAULT_MAX_ARRAY,
  DEFAULT_MAX_BULK,
  describeByte,
  indexOfLF,
  Limit,
  MAX_INTEGER_DIGITS,
  missingBulkCRLF,
  NEED_MORE,
  parseInteger,
  RespProtocolError,
  viewBytes,
  type NeedMore,
} from './protocol.js'
import { ChunkStream, decodeOnce, type Parser } from './stream.js'

/**
 * Limits that keep a misbehaving server from making the decoder buffer without bound.
 * @public
 */
export interface RespDecoderOptions {
  /**
   * Largest bulk string accepted, in bytes. Default 512 MiB, Redis's `proto-max-bulk-len`. A bulk
   * string split across chunks gets a buffer of its declared length as soon as its body starts
   * to arrive, so this also bounds what one reply can make the decoder allocate.
   */
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

/** Longest legal `:`, `$` or `*` line before its LF: type byte, sign and digits, CR. */
const NUMBER_LINE = 1 + MAX_INTEGER_DIGITS + 1

/** An array whose elements are still arriving, while a nested one is being read. */
interface OpenArray {
  readonly items: Reply[]
  readonly size: number
  readonly filled: number
}

/** Arrays up to this many elements get their storage at once; longer ones grow as items arrive. */
const enum Preallocate {
  MaxItems = 4096,
}

/**
 * Called with each complete reply, in order, by {@link RespDecoder.feed}.
 * @public
 */
export type ReplyHandler = (reply: Reply) => void

class ReplyParser implements Parser<Reply> {
  pos = 0
  bulk = -1
  handlerThrew = false
  /**
   * The innermost open array between two `run`s (which keep it in locals), apart from the arrays
   * around it: nearly every array is flat. `#items` is `undefined` between top-level replies.
   */
  #items: Reply[] | undefined = undefined
  #size = 0
  #filled = 0
  /** The open arrays around the innermost one, outermost first. */
  readonly #outer: OpenArray[] = []
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

  /**
   * Without `onReply`: stops at the first complete reply and returns it. With it: hands every
   * complete reply to `onReply`, and returns `undefined` when `buf` ends with a whole reply,
   * {@link NEED_MORE} when it ends inside one; if `onReply` throws, `pos` is left just past the
   * reply it was given.
   *
   * `buf` may be any `Uint8Array`: only the rare paths (text of a status or error) need `Buffer`
   * methods, and they convert it themselves.
   */
  run(buf: Uint8Array, pos: number): Reply | NeedMore
  run(buf: Uint8Array, pos: number, onReply: ReplyHandler): NeedMore | undefined
  run(buf: Uint8Array, pos: number, onReply?: ReplyHandler): Reply | NeedMore | undefined {
    // The streams never pass more than `Limit.Run` bytes; the cap tells V8 so (see `Limit`).
    const length = Math.min(buf.length, Limit.Run)
    // Only the first token can be the body of a bulk whose header came with an earlier chunk.
    let awaitedBody = this.bulk >= 0
    // The innermost open array, in locals while this runs (written back on the way out): an
    // element then costs no field access.
    let items = this.#items
    let size = this.#size
    let filled = this.#filled
    tokens: for (;;) {
      let value: Reply
      if (awaitedBody) {
        awaitedBody = false
        const end = pos + this.bulk
        if (end + 2 > length) return this.#suspend(pos, items, size, filled)
        if (buf[end] !== Byte.CR || buf[end + 1] !== Byte.LF) throw missingBulkCRLF()
        value = this.#bulkValue(buf, pos, end, length)
        this.bulk = -1
        pos = end + 2
      } else {
        if (pos >= length) return this.#suspend(pos, items, size, filled)
        const type = buf[pos]
        if (type === Byte.Dollar || type === Byte.Colon || type === Byte.Star) {
          // Nearly every number line is short and whole: read here in one pass an optional `-`,
          // 1 to 15 digits without a leading zero (or a lone `0`) and CRLF. Anything else (split,
          // long, malformed) takes the general path, which also words the errors.
          let n: number | bigint | undefined
          let i = pos + 1
          let c = i < length ? buf[i] : 0
          const negative = c === Byte.Dash
          if (negative) c = ++i < length ? buf[i] : 0
          let magnitude = c - Byte.Zero
          if (magnitude > 0 && magnitude <= 9) {
            // Up to 15 digits: exact in a double, and no `bigint` on this path. Two digits per
            // round halve the per-round checks; `>>> 0` makes one test of `0 <= digit <= 9`.
            const limit = i + 15 < length ? i + 15 : length
            for (i++; i + 1 < limit; i += 2) {
              const high = buf[i] - Byte.Zero
              const low = buf[i + 1] - Byte.Zero
              if (high >>> 0 > 9 || low >>> 0 > 9) break
              magnitude = magnitude * 100 + (high * 10 + low)
            }
            for (; i < limit; i++) {
              c = buf[i]
              const digit = c - Byte.Zero
              if (digit >>> 0 > 9) break
              magnitude = magnitude * 10 + digit
            }
          } else if (magnitude === 0 && !negative) {
            c = ++i < length ? buf[i] : 0
          } else c = 0
          if (c === Byte.CR && i + 1 < length && buf[i + 1] === Byte.LF) {
            n = negative ? 0 - magnitude : magnitude
            pos = i + 2
          } else {
            const lf = this.#findLine(buf, pos, type)
            if (lf < 0) return this.#suspend(pos, items, size, filled)
            n = parseInteger(buf, pos + 1, lf - 1)
            pos = lf + 1
          }
          if (type === Byte.Dollar) {
            if (n === -1) value = null
            else if (typeof n !== 'number' || n < 0 || n > this.#maxBulk) throw lineError(type)
            else {
              // The body too, when this chunk holds it: no second trip round the loop.
              const bodyEnd = pos + n
              if (bodyEnd + 2 > length) {
                this.bulk = n
                return this.#suspend(pos, items, size, filled)
              }
              if (buf[bodyEnd] !== Byte.CR || buf[bodyEnd + 1] !== Byte.LF) throw missingBulkCRLF()
              value = this.#bulkValue(buf, pos, bodyEnd, length)
              pos = bodyEnd + 2
            }
          } else if (type === Byte.Colon) {
            if (n === undefined) throw lineError(type)
            value = n
          } else if (n === -1) value = NULL_ARRAY
          else if (typeof n !== 'number' || n < 0 || n > this.#maxArray) throw lineError(type)
          else if (n > 0) {
            if (items !== undefined) this.#outer.push({ items, size, filled })
            items = n <= Preallocate.MaxItems ? new Array<Reply>(n) : []
            size = n
            filled = 0
            continue
          } else value = []
        } else if (
          type === Byte.Plus &&
          pos + 4 < length &&
          buf[pos + 1] === 79 &&
          buf[pos + 2] === 75 &&
          buf[pos + 3] === Byte.CR &&
          buf[pos + 4] === Byte.LF &&
          this.#shortLine >= 4
        ) {
          // `+OK`, the reply of most writes.
          value = OK
          pos += 5
        } else if (type === Byte.Plus || type === Byte.Dash) {
          const lf = this.#findLine(buf, pos, type)
          if (lf < 0) return this.#suspend(pos, items, size, filled)
          value = type === Byte.Plus ? status(buf, pos + 1, lf - 1) : new ReplyError(utf8(buf, pos + 1, lf - 1))
          pos = lf + 1
        } else throw new RespProtocolError(`invalid reply type byte '${describeByte(type)}'`)
      }
      while (items !== undefined) {
        items[filled++] = value
        if (filled < size) continue tokens
        // The array is complete: it is the value, for the array around it if any.
        value = items
        const outer = this.#outer.pop()
        if (outer === undefined) {
          items = undefined
          this.#items = undefined
        } else {
          items = outer.items
          size = outer.size
          filled = outer.filled
        }
      }
      if (onReply === undefined) {
        this.pos = pos
        return value
      }
      try {
        onReply(value)
      } catch (error) {
        this.pos = pos
        this.handlerThrew = true
        throw error
      }
      if (pos >= length) return undefined
    }
  }

  /** Saves where `run` stopped, inside a reply or at the end of `buf`, to go on from there. */
  #suspend(pos: number, items: Reply[] | undefined, size: number, filled: number): NeedMore {
    this.pos = pos
    this.#items = items
    this.#size = size
    this.#filled = filled
    return NEED_MORE
  }

  /** Puts a finished value into the innermost open array; returns the reply it completes, if any. */
  #attach(value: Reply): Reply | NeedMore {
    for (;;) {
      const items = this.#items as Reply[]
      const filled = this.#filled
      items[filled] = value
      if (filled + 1 < this.#size) {
        this.#filled = filled + 1
        return NEED_MORE
      }
      value = items
      const outer = this.#outer.pop()
      if (outer === undefined) {
        this.#items = undefined
        return value
      }
      this.#items = outer.items
      this.#size = outer.size
      this.#filled = outer.filled
    }
  }

  /**
   * The LF ending the line that starts at `pos` (its type byte), once the line passed the length
   * and CR checks; -1 when `buf` ends first.
   */
  #findLine(buf: Uint8Array, pos: number, type: number): number {
    const lf = indexOfLF(buf, pos + 1)
    if (lf < 0) {
      this.checkPartialLine(type, buf.length - pos)
      return -1
    }
    if (lf - pos > this.#shortLine) this.checkPartialLine(type, lf - pos)
    if (buf[lf - 1] !== Byte.CR) throw lineError(type)
    return lf
  }

  /**
   * The body `buf[start, end)` as a value. A body that is at least half of its chunk (`length`
   * bytes) is returned as a view of the chunk (no copy, and it keeps at most about twice its own
   * size alive); a smaller one is copied, so it never pins a large chunk. `copyBulks` copies
   * every body.
   */
  #bulkValue(buf: Uint8Array, start: number, end: number, length: number): Buffer {
    if (!this.#copyBulks && (end - start) * 2 >= length) return viewBytes(buf, start, end)
    return copyBytes(buf, start, end, true)
  }

  deliverBulk(body: Buffer): Reply | NeedMore {
    this.bulk = -1
    return this.#items === undefined ? body : this.#attach(body)
  }

  /** `length` counts from the type byte up to the LF, so a simple string's own limit is 2 bytes less. */
  checkPartialLine(type: number, length: number): void {
    if (length > (type === Byte.Plus || type === Byte.Dash ? this.#maxLine + 2 : NUMBER_LINE)) throw tooLong(type)
  }
}

/** Reuses the shared instances for the statuses nearly every reply stream is made of. */
function status(buf: Uint8Array, start: number, end: number): Status {
  const length = end - start
  if (length === 2 && buf[start] === 79 && buf[start + 1] === 75) return OK
  const text = utf8(buf, start, end)
  if (text === 'PONG') return PONG
  if (text === 'QUEUED') return QUEUED
  return new Status(text)
}

function utf8(buf: Uint8Array, start: number, end: number): string {
  return asBuffer(buf).toString('utf8', start, end)
}

function lineError(type: number): RespProtocolError {
  if (type === Byte.Dollar) return new RespProtocolError('invalid bulk length')
  if (type === Byte.Star) return new RespProtocolError('invalid multibulk length')
  if (type === Byte.Colon) return new RespProtocolError('invalid integer')
  return new RespProtocolError('expected CRLF at end of line')
}

function tooLong(type: number): RespProtocolError {
  return type === Byte.Plus || type === Byte.Dash ? new RespProtocolError('too big simple string or error line') : lineError(type)
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
 * Streaming RESP2 reply decoder. Two ways to use it, which may be mixed on one decoder:
 *
 * - push: {@link RespDecoder.feed} a socket chunk (any split is fine) with a handler that
 *   receives every reply it completes. The fastest way: replies are parsed straight out of the
 *   chunk, which is only kept when it ends inside a reply.
 * - pull: {@link RespDecoder.push} chunks, then call {@link RespDecoder.next} until it answers
 *   {@link NEED_MORE}; the caller decides when to stop (e.g. one reply per pending command).
 *
 * ```ts
 * socket.on('data', (chunk) => decoder.feed(chunk, handle))
 * // or
 * decoder.push(chunk)
 * for (let reply = decoder.next(); reply !== NEED_MORE; reply = decoder.next()) handle(reply)
 * ```
 *
 * Chunks are kept, not copied, until their bytes are decoded: do not write into a chunk's memory
 * after handing it over. A bulk string that makes up at least half of its chunk is a view of
 * that chunk (a large value costs no copy); smaller ones, and every one with `copyBulks: true`,
 * are fresh `Buffer`s. Those of up to 32 bytes are allocated as `Buffer.alloc` allocates them,
 * with their bytes inside V8's heap: reading one's `.buffer` makes V8 move its bytes out first
 * (~150 ns), so prefer `Buffer` methods, or `Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, …)`.
 * A bulk string split across chunks is copied once, into a `Buffer` of its declared length
 * allocated when its body starts to arrive (`maxBulkLength` bounds it).
 * @public
 */
export class RespDecoder {
  readonly #stream: ChunkStream<Reply>

  constructor(options?: RespDecoderOptions) {
    // A server is trusted with its bulk lengths (up to `maxBulkLength`): a split bulk gets its
    // buffer at once and each chunk is copied in as it arrives.
    this.#stream = new ChunkStream(new ReplyParser(options), true)
  }

  /**
   * Decodes `chunk`, after any bytes still buffered, and calls `onReply` with each complete reply
   * in order. The bytes of a reply that `chunk` leaves incomplete are kept for the next call
   * (of `feed` or `next`).
   *
   * If `onReply` throws, the error propagates at once; the replies after the one it was given
   * stay buffered and come out of the next call. `onReply` must not call this decoder: it runs
   * while the decoder is in the middle of `chunk`.
   *
   * @throws {@link RespProtocolError} on malformed input, after handing over the replies before
   * it; again on every later call.
   */
  feed(chunk: Uint8Array, onReply: ReplyHandler): void {
    this.#stream.feed(chunk, onReply)
  }

  /** Appends bytes read from the server, for {@link RespDecoder.next}. Ignored after a protocol error. */
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

  /**
   * Bytes received and not yet decoded into a reply (elements of a half-read array count as
   * decoded; the received part of a split bulk string does not); for backpressure.
   */
  get bufferedBytes(): number {
    return this.#stream.buffered
  }
}
