/**
 * The buffering half of the streaming decoders, shared by replies and requests.
 *
 * Parsing itself is done by a {@link Parser} over one contiguous buffer. Pushed chunks are kept
 * in a list and parsed in place; only a token (one line, or one bulk body) that straddles chunk
 * boundaries is joined, and only once it is complete. So, whatever the chunking, each byte is
 * copied once: a bulk body straight into its value, a straddling line into one joined buffer. A
 * 512 MB bulk arriving in 64 KiB pieces costs one join, not thousands of re-concatenations.
 *
 */

import type { Decoded } from './decode.js'
import { asBuffer, checkOffset, CR, LF, missingBulkCRLF, NEED_MORE, RespProtocolError, type NeedMore } from './protocol.js'

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
   * Consumes complete tokens of `buf` from `pos`. Returns a finished value, or {@link NEED_MORE}
   * when stopped at the end of `buf`, inside a line, or before an incomplete bulk body. Throws
   * {@link RespProtocolError} for malformed input.
   */
  run(buf: Buffer, pos: number): T | NeedMore
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
  /** The next token starts in `#chunks[0]` and does not end there. */
  #straddling = false
  /** Where the search for a straddling line's LF resumes, so no byte is searched twice. */
  #scanIndex = 0
  #scanBase = 0
  #error: RespProtocolError | undefined

  constructor(parser: Parser<T>) {
    this.#parser = parser
  }

  get buffered(): number {
    return this.#buffered
  }

  push(chunk: Uint8Array): void {
    if (this.#error !== undefined || chunk.length === 0) return
    this.#chunks.push(asBuffer(chunk))
    this.#buffered += chunk.length
  }

  next(): T | NeedMore {
    if (this.#error !== undefined) throw this.#error
    try {
      return this.#next()
    } catch (error) {
      // The stream is desynchronised for good; drop the input and keep failing the same way.
      if (error instanceof RespProtocolError) {
        this.#error = error
        this.#chunks = []
        this.#buffered = 0
      }
      throw error
    }
  }

  #next(): T | NeedMore {
    const parser = this.#parser
    for (;;) {
      if (this.#chunks.length === 0) return NEED_MORE
      if (!this.#straddling) {
        const first = this.#chunks[0]
        const count = this.#chunks.length
        const value = parser.run(first, this.#head)
        this.#consume(parser.pos - this.#head)
        if (value !== NEED_MORE) return value
        // Used up: go on with the next chunk. Counted, not compared: a caller may push one Buffer twice.
        if (this.#chunks.length !== count) continue
        this.#straddling = true
        this.#scanIndex = 1
        this.#scanBase = first.length - this.#head
      }
      if (this.#chunks.length < 2) return NEED_MORE
      const value = this.#straddled(parser)
      if (value !== NEED_MORE) return value
      if (this.#straddling) return NEED_MORE
    }
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
