/**
 * The buffering half of the streaming decoders, shared by replies and requests.
 *
 * Parsing itself is done by a {@link Parser} over one contiguous buffer. A chunk is parsed in
 * place; only the tail of a value it leaves unfinished is kept, in a list with the chunks after
 * it. A token that straddles chunks is joined once it is complete, or, for the bulk bodies of
 * a stream that preallocates them, copied chunk by chunk as they arrive into a buffer of the
 * declared length. So, whatever the chunking, each byte is copied at most once: a 512 MB bulk
 * arriving in 64 KiB pieces costs one allocation and one copy, not thousands of
 * re-concatenations.
 */

import type { Decoded } from './decode.js'
import { asBuffer, checkOffset, CR, LF, Limit, missingBulkCRLF, NEED_MORE, RespProtocolError, type NeedMore } from './protocol.js'

/**
 * A resumable parser for one grammar. It keeps its own state (open arrays, the argument vector)
 * between calls, so tokens already consumed are never parsed again.
 * @internal
 */
export interface Parser<T> {
  /** After `run`: offset of the first byte not consumed. */
  pos: number
  /** Declared length of a bulk whose header is consumed and whose body is awaited, else -1. */
  bulk: number
  /**
   * Set by a parser that takes `onValue` when that handler threw; `pos` is then just past the
   * value it was given.
   */
  handlerThrew?: boolean
  /**
   * Consumes complete tokens of `buf` from `pos` and returns the first finished value, or
   * {@link NEED_MORE} when stopped at the end of `buf`, inside a line, or before an incomplete
   * bulk body. Throws {@link RespProtocolError} for malformed input.
   *
   * `buf` may be any `Uint8Array`, not only a `Buffer`.
   */
  run(buf: Uint8Array, pos: number): T | NeedMore
  /**
   * The form {@link ChunkStream.feed} needs: hands every finished value to `onValue` and goes
   * on; returns `undefined` when `buf` ends with a whole value, {@link NEED_MORE} otherwise.
   */
  run(buf: Uint8Array, pos: number, onValue: (value: T) => void): T | NeedMore | undefined
  /** Hands over the body of the awaited bulk, assembled by the stream. */
  deliverBulk(body: Buffer): T | NeedMore
  /** Throws if an unterminated line beginning with `first` and already `length` bytes long can never be valid. */
  checkPartialLine(first: number, length: number): void
}

/**
 * Runs a fresh `parser` once over `buf` from `offset`: the stateless `decodeReply` and
 * `decodeRequest`. RangeError for a bad `offset`.
 * @internal
 */
export function decodeOnce<T>(parser: Parser<T>, buf: Uint8Array, offset: number): Decoded<T> | NeedMore {
  checkOffset(buf, offset)
  if (buf.length > Limit.Run) {
    // Too long for one pass: through a stream, which cuts it into pieces.
    const stream = new ChunkStream(parser)
    stream.push(buf.subarray(offset))
    const value = stream.next()
    return value === NEED_MORE ? NEED_MORE : { value, end: buf.length - stream.buffered }
  }
  const value = parser.run(asBuffer(buf), offset)
  return value === NEED_MORE ? NEED_MORE : { value, end: parser.pos }
}

/** Chunk list plus straddling-token assembly around a {@link Parser}. @internal */
export class ChunkStream<T> {
  readonly #parser: Parser<T>
  #chunks: Buffer[] = []
  /** Offset of the first unconsumed byte in `#chunks[0]`. */
  #head = 0
  /** Unconsumed bytes over all chunks. */
  #buffered = 0
  /**
   * The next token starts in `#chunks[0]` and does not end there: a line, or a bulk body that is
   * not assembled in `#body`.
   */
  #straddling = false
  /** Where the search for a straddling line's LF resumes, so no byte is searched twice. */
  #scanIndex = 0
  #scanBase = 0
  /**
   * With `preallocateBodies`, the body of a bulk split across chunks, allocated at its declared
   * length when it starts to arrive; each chunk's share is copied in as it comes (while still in
   * the CPU cache), and a chunk is not kept once used.
   */
  #body: Buffer | undefined = undefined
  #bodyFilled = 0
  #error: RespProtocolError | undefined
  /**
   * Nothing buffered, no bulk body being assembled, no error: `feed` can parse a chunk in place.
   * One flag, so the hot path tests one field.
   */
  #direct = true

  /** Whether a split bulk body gets its buffer as soon as it starts to arrive (see `#body`). */
  readonly #preallocateBodies: boolean

  /**
   * `preallocateBodies`: allocate a split bulk's buffer at its declared length when its body
   * starts to arrive, and copy each chunk in as it comes. Otherwise the chunks are kept until
   * the body is complete, then joined: memory grows only with the bytes received, which suits
   * input from untrusted peers.
   */
  constructor(parser: Parser<T>, preallocateBodies = false) {
    this.#parser = parser
    this.#preallocateBodies = preallocateBodies
  }

  /** Bytes received and not yet part of a finished value (the filled part of `#body` included). */
  get buffered(): number {
    return this.#buffered + this.#bodyFilled
  }

  push(chunk: Uint8Array): void {
    if (this.#error !== undefined || chunk.length === 0) return
    if (chunk.length > Limit.Run) {
      for (let at = 0; at < chunk.length; at += Limit.Run) this.push(chunk.subarray(at, at + Limit.Run))
      return
    }
    this.#chunks.push(asBuffer(chunk))
    this.#buffered += chunk.length
    this.#direct = false
  }

  /**
   * Decodes `chunk` after whatever is buffered, handing every finished value to `onValue`; for a
   * parser whose `run` delivers through `onValue`. With nothing buffered (the common case:
   * chunks that end between values) the parser reads `chunk` in place, without converting or
   * listing it; only the tail of an unfinished value is kept.
   */
  feed(chunk: Uint8Array, onValue: (value: T) => void): void {
    if (!this.#direct || chunk.length > Limit.Run) {
      if (this.#error !== undefined) throw this.#error
      this.push(chunk)
      for (let value = this.next(); value !== NEED_MORE; value = this.next()) onValue(value)
      return
    }
    const parser = this.#parser
    try {
      if (parser.run(chunk, 0, onValue) === undefined) return
    } catch (error) {
      if (parser.handlerThrew === true) {
        // Not the input's fault: keep what follows the value the handler was given.
        parser.handlerThrew = false
        this.#keep(chunk, parser.pos)
      } else if (error instanceof RespProtocolError) this.#fail(error)
      throw error
    }
    const pos = parser.pos
    if (pos < chunk.length) {
      this.#keep(chunk, pos)
      this.#stoppedInside(chunk)
      // A bulk body: copy its first part now, while the chunk is at hand (it cannot complete).
      if (this.#body !== undefined) this.#fillBody(parser)
    }
  }

  next(): T | NeedMore {
    if (this.#error !== undefined) throw this.#error
    try {
      return this.#next()
    } catch (error) {
      if (error instanceof RespProtocolError) this.#fail(error)
      throw error
    }
  }

  /** The stream is desynchronised for good; drop the input and keep failing the same way. */
  #fail(error: RespProtocolError): void {
    this.#direct = false
    this.#error = error
    this.#chunks = []
    this.#buffered = 0
    this.#body = undefined
    this.#bodyFilled = 0
  }

  /** Buffers `buf` from `pos`; the chunk list is empty. */
  #keep(buf: Uint8Array, pos: number): void {
    if (pos >= buf.length) return
    this.#chunks.push(asBuffer(buf))
    this.#head = pos
    this.#buffered = buf.length - pos
    this.#direct = false
  }

  #next(): T | NeedMore {
    const parser = this.#parser
    for (;;) {
      if (this.#body !== undefined) {
        const value = this.#fillBody(parser)
        if (this.#body !== undefined) return NEED_MORE
        if (value !== NEED_MORE) return value
        continue
      }
      if (this.#chunks.length === 0) return NEED_MORE
      if (!this.#straddling) {
        const first = this.#chunks[0]
        const count = this.#chunks.length
        const value = parser.run(first, this.#head)
        this.#consume(parser.pos - this.#head)
        if (value !== NEED_MORE) return value
        // Used up: go on with the next chunk. Counted, not compared: a caller may push one Buffer twice.
        if (this.#chunks.length !== count) continue
        this.#stoppedInside(first)
        continue
      }
      if (this.#chunks.length < 2) return NEED_MORE
      const value = this.#straddled(parser)
      if (value !== NEED_MORE) return value
      if (this.#straddling) return NEED_MORE
    }
  }

  /** The parser stopped inside `first` (`#chunks[0]`): the next token does not end in it. */
  #stoppedInside(first: Uint8Array): void {
    const size = this.#parser.bulk
    if (size >= 0 && this.#preallocateBodies) {
      this.#body = Buffer.allocUnsafe(size)
      this.#bodyFilled = 0
      return
    }
    this.#straddling = true
    this.#scanIndex = 1
    this.#scanBase = first.length - this.#head
  }

  /**
   * Copies buffered bytes into the split bulk's body; once it is full and its CRLF is here,
   * delivers it. `#body` stays set while bytes are missing.
   */
  #fillBody(parser: Parser<T>): T | NeedMore {
    const body = this.#body as Buffer
    const size = body.length
    while (this.#bodyFilled < size) {
      if (this.#chunks.length === 0) return NEED_MORE
      const chunk = this.#chunks[0]
      const count = Math.min(chunk.length - this.#head, size - this.#bodyFilled)
      chunk.copy(body, this.#bodyFilled, this.#head, this.#head + count)
      this.#bodyFilled += count
      this.#consume(count)
    }
    if (this.#buffered < 2) return NEED_MORE
    if (this.#byteAt(0) !== CR || this.#byteAt(1) !== LF) throw missingBulkCRLF()
    this.#consume(2)
    this.#body = undefined
    this.#bodyFilled = 0
    this.#direct = this.#buffered === 0
    return parser.deliverBulk(body)
  }

  /** Completes the token that straddles chunks if all its bytes are here; otherwise waits. */
  #straddled(parser: Parser<T>): T | NeedMore {
    if (parser.bulk >= 0) {
      const length = parser.bulk
      if (this.#buffered < length + 2) return NEED_MORE
      const body = this.#take(length)
      if (this.#byteAt(0) !== CR || this.#byteAt(1) !== LF) throw missingBulkCRLF()
      this.#consume(2)
      this.#straddling = false
      return parser.deliverBulk(body)
    }
    const lf = this.#findLF()
    if (lf < 0) {
      parser.checkPartialLine(this.#byteAt(0), this.#buffered)
      return NEED_MORE
    }
    const line = this.#take(lf + 1)
    this.#straddling = false
    return parser.run(line, 0)
  }

  /** Offset of the straddling line's LF from the head, or -1. Resumes where the last search stopped. */
  #findLF(): number {
    const chunks = this.#chunks
    for (; this.#scanIndex < chunks.length; this.#scanIndex++) {
      const chunk = chunks[this.#scanIndex]
      const at = chunk.indexOf(LF)
      if (at >= 0) return this.#scanBase + at
      this.#scanBase += chunk.length
    }
    return -1
  }

  #byteAt(offset: number): number {
    let at = this.#head + offset
    for (const chunk of this.#chunks) {
      if (at < chunk.length) return chunk[at]
      at -= chunk.length
    }
    return -1
  }

  /** Moves `length` bytes from the front of the chunk list into one new buffer. */
  #take(length: number): Buffer {
    const out = Buffer.allocUnsafe(length)
    let filled = 0
    while (filled < length) {
      const chunk = this.#chunks[0]
      const count = Math.min(chunk.length - this.#head, length - filled)
      chunk.copy(out, filled, this.#head, this.#head + count)
      filled += count
      this.#consume(count)
    }
    return out
  }

  /** Drops `count` buffered bytes, which may span chunks. */
  #consume(count: number): void {
    this.#buffered -= count
    if (this.#buffered === 0) {
      // Everything read, the common case (one chunk holding whole replies): reset in O(1).
      const chunks = this.#chunks
      if (chunks.length === 1) chunks.pop()
      else chunks.length = 0
      this.#head = 0
      this.#direct = this.#body === undefined
      return
    }
    for (;;) {
      const rest = this.#chunks[0].length - this.#head
      if (count < rest) {
        this.#head += count
        return
      }
      count -= rest
      this.#chunks.shift()
      this.#head = 0
      if (count === 0) return
    }
  }
}
