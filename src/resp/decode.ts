/**
 * RESP2 and RESP3 reply decoding: what a client reads from a Redis server. One grammar serves
 * both: RESP3's type bytes never start a RESP2 reply, so a RESP2 stream decodes as before.
 *
 */

import {
  AttributedReply,
  BigNumber,
  BlobError,
  NULL_ARRAY,
  OK,
  PONG,
  QUEUED,
  ReplyDouble,
  ReplyError,
  ReplyMap,
  ReplyPush,
  ReplySet,
  Status,
  VerbatimString,
  type Reply,
} from '../reply.js'
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
  /**
   * Most elements in one array, set or push, or pairs in one map or attribute. Default 2^31-1,
   * the most Redis itself accepts.
   */
  maxArrayLength?: number
  /**
   * Most aggregates (arrays, maps, sets, pushes, attributes) open inside one another. Default
   * 2^20: far deeper than any reply Redis builds (a Lua reply's nesting is bounded by Lua's C
   * stack). Nesting costs no recursion here, only a small record per open level, so the bound
   * is on memory: set it lower for a peer you do not trust.
   */
  maxDepth?: number
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

/** An aggregate whose elements are still arriving, while a nested one is being read. */
interface OpenArray {
  readonly items: Reply[]
  readonly size: number
  readonly filled: number
  readonly kind: Kind
}

/** What an open aggregate becomes once its items are in. */
const enum Kind {
  Array,
  Map,
  Set,
  Push,
  /** `|n`: 2n items of attributes, then the reply they annotate, as one more item. */
  Attribute,
}

/** RESP3's type bytes, beside the RESP2 ones in `Byte`. */
const enum Type3 {
  Null = 95, // _
  Double = 44, // ,
  Boolean = 35, // #
  BlobError = 33, // !
  Verbatim = 61, // =
  BigNumber = 40, // (
  Map = 37, // %
  Set = 126, // ~
  Attribute = 124, // |
  Push = 62, // >
}

/** Default {@link RespDecoderOptions.maxDepth}. */
const DEFAULT_MAX_DEPTH = 1 << 20

const DOUBLE_TEXT = /^[+-]?(?:inf|nan|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)$/i
const BIG_NUMBER_TEXT = /^-?\d+$/

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
  /** What the innermost open aggregate is (an array but in RESP3 replies). */
  #kind = Kind.Array
  /** The type byte of the bulk-like value whose body is awaited: `$`, `=` or `!`. */
  #bulkType: number = Byte.Dollar
  /** The open arrays around the innermost one, outermost first. */
  readonly #outer: OpenArray[] = []
  readonly #maxBulk: number
  readonly #maxArray: number
  readonly #maxDepth: number
  readonly #maxLine: number
  readonly #copyBulks: boolean
  /** The smallest line-length limit of any type: complete lines up to it need no check. */
  readonly #shortLine: number

  constructor(options: RespDecoderOptions = {}) {
    this.#maxBulk = options.maxBulkLength ?? DEFAULT_MAX_BULK
    this.#maxArray = options.maxArrayLength ?? DEFAULT_MAX_ARRAY
    this.#maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH
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
        value =
          this.#bulkType === Byte.Dollar ? this.#bulkValue(buf, pos, end, length) : bulkLike(this.#bulkType, copyBytes(buf, pos, end))
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
                this.#bulkType = Byte.Dollar
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
            if (items !== undefined) this.#nest(items, size, filled, Kind.Array)
            else this.#kind = Kind.Array
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
        } else if (type === Type3.Map || type === Type3.Set || type === Type3.Push || type === Type3.Attribute) {
          const lf = this.#findLine(buf, pos, type)
          if (lf < 0) return this.#suspend(pos, items, size, filled)
          const n = parseInteger(buf, pos + 1, lf - 1)
          if (typeof n !== 'number' || n < 0 || n > this.#maxArray) throw new RespProtocolError('invalid aggregate length')
          pos = lf + 1
          const kind = aggregateKind(type)
          const count = kind === Kind.Map ? 2 * n : kind === Kind.Attribute ? 2 * n + 1 : n
          if (count === 0) value = emptyAggregate(kind)
          else {
            if (items !== undefined) this.#nest(items, size, filled, kind)
            else this.#kind = kind
            items = count <= Preallocate.MaxItems ? new Array<Reply>(count) : []
            size = count
            filled = 0
            continue
          }
        } else if (type === Type3.Verbatim || type === Type3.BlobError) {
          const lf = this.#findLine(buf, pos, type)
          if (lf < 0) return this.#suspend(pos, items, size, filled)
          const n = parseInteger(buf, pos + 1, lf - 1)
          if (typeof n !== 'number' || n < 0 || n > this.#maxBulk) throw lineError(Byte.Dollar)
          pos = lf + 1
          const bodyEnd = pos + n
          if (bodyEnd + 2 > length) {
            this.bulk = n
            this.#bulkType = type
            return this.#suspend(pos, items, size, filled)
          }
          if (buf[bodyEnd] !== Byte.CR || buf[bodyEnd + 1] !== Byte.LF) throw missingBulkCRLF()
          value = bulkLike(type, copyBytes(buf, pos, bodyEnd))
          pos = bodyEnd + 2
        } else if (type === Type3.Null || type === Type3.Boolean || type === Type3.Double || type === Type3.BigNumber) {
          const lf = this.#findLine(buf, pos, type)
          if (lf < 0) return this.#suspend(pos, items, size, filled)
          value = scalar(type, utf8(buf, pos + 1, lf - 1))
          pos = lf + 1
        } else throw new RespProtocolError(`invalid reply type byte '${describeByte(type)}'`)
      }
      while (items !== undefined) {
        items[filled++] = value
        if (filled < size) continue tokens
        // The array is complete: it is the value, for the array around it if any.
        value = this.#kind === Kind.Array ? items : aggregate(this.#kind, items)
        const outer = this.#outer.pop()
        if (outer === undefined) {
          items = undefined
          this.#items = undefined
          this.#kind = Kind.Array
        } else {
          items = outer.items
          size = outer.size
          filled = outer.filled
          this.#kind = outer.kind
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

  /** Opens an aggregate of `kind` inside the innermost one (given by its locals). */
  #nest(items: Reply[], size: number, filled: number, kind: Kind): void {
    if (this.#outer.length + 2 > this.#maxDepth) throw new RespProtocolError('too many nested aggregates')
    this.#outer.push({ items, size, filled, kind: this.#kind })
    this.#kind = kind
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
      value = this.#kind === Kind.Array ? items : aggregate(this.#kind, items)
      const outer = this.#outer.pop()
      if (outer === undefined) {
        this.#items = undefined
        this.#kind = Kind.Array
        return value
      }
      this.#items = outer.items
      this.#size = outer.size
      this.#filled = outer.filled
      this.#kind = outer.kind
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
    const value = this.#bulkType === Byte.Dollar ? body : bulkLike(this.#bulkType, body)
    return this.#items === undefined ? value : this.#attach(value)
  }

  /** `length` counts from the type byte up to the LF, so a simple string's own limit is 2 bytes less. */
  checkPartialLine(type: number, length: number): void {
    if (length > (isTextLine(type) ? this.#maxLine + 2 : NUMBER_LINE)) throw tooLong(type)
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

/** Lines whose length only `maxLineLength` bounds: simple strings, errors, doubles, big numbers. */
function isTextLine(type: number): boolean {
  return type === Byte.Plus || type === Byte.Dash || type === Type3.Double || type === Type3.BigNumber
}

function aggregateKind(type: number): Kind {
  if (type === Type3.Map) return Kind.Map
  if (type === Type3.Set) return Kind.Set
  if (type === Type3.Push) return Kind.Push
  return Kind.Attribute
}

/** A complete aggregate of a RESP3 kind. */
function aggregate(kind: Kind, items: Reply[]): Reply {
  if (kind === Kind.Map) return new ReplyMap(items)
  if (kind === Kind.Set) return new ReplySet(items)
  if (kind === Kind.Push) return new ReplyPush(items)
  if (kind === Kind.Attribute) return new AttributedReply(items.slice(0, -1), items[items.length - 1])
  return items
}

function emptyAggregate(kind: Kind): Reply {
  return aggregate(kind, [])
}

/** The body of a verbatim string (`fmt:text`) or a blob error. */
function bulkLike(type: number, body: Buffer): Reply {
  if (type === Type3.BlobError) return new BlobError(body.toString('utf8'))
  if (body.length < 4 || body[3] !== 58) throw new RespProtocolError('invalid verbatim string')
  return new VerbatimString(body.toString('latin1', 0, 3), body.subarray(4))
}

/** The one-line RESP3 scalars: null, boolean, double, big number. */
function scalar(type: number, text: string): Reply {
  if (type === Type3.Null) {
    if (text !== '') throw new RespProtocolError('invalid null')
    return null
  }
  if (type === Type3.Boolean) {
    if (text === 't') return true
    if (text === 'f') return false
    throw new RespProtocolError('invalid boolean')
  }
  if (type === Type3.Double) {
    if (!DOUBLE_TEXT.test(text)) throw new RespProtocolError('invalid double')
    return new ReplyDouble(text)
  }
  if (!BIG_NUMBER_TEXT.test(text)) throw new RespProtocolError('invalid big number')
  return new BigNumber(text)
}

function lineError(type: number): RespProtocolError {
  if (type === Byte.Dollar) return new RespProtocolError('invalid bulk length')
  if (type === Byte.Star) return new RespProtocolError('invalid multibulk length')
  if (type === Byte.Colon) return new RespProtocolError('invalid integer')
  return new RespProtocolError('expected CRLF at end of line')
}

function tooLong(type: number): RespProtocolError {
  if (type === Byte.Plus || type === Byte.Dash) return new RespProtocolError('too big simple string or error line')
  if (isTextLine(type)) return new RespProtocolError('too long double or big number line')
  return lineError(type)
}

/**
 * Decodes one reply from `buf` at `offset`, without state: the reference form of the grammar,
 * handy where all bytes are at hand and for tests at every split point. Streams should use
 * {@link RespDecoder}, which does not re-read a partial reply on every chunk.
 *
 * @returns the reply and the offset after it, or {@link NEED_MORE} if `buf` ends inside it.
 * @throws {@link RespProtocolError} if the bytes are not a RESP2 or RESP3 reply; RangeError for a bad `offset`.
 * @public
 */
export function decodeReply(buf: Uint8Array, offset = 0, options?: RespDecoderOptions): Decoded<Reply> | NeedMore {
  return decodeOnce(new ReplyParser(options), buf, offset)
}

/**
 * Streaming reply decoder for RESP2 and RESP3 (every RESP3 type: map, set, push, attribute,
 * double, boolean, null, big number, verbatim string, blob error). Two ways to use it, which may be mixed on one decoder:
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
