/**
 * Pieces shared by the reply and request decoders: the need-more sentinel, the protocol error,
 * and the strict integer reader both grammars use for lengths and `:` replies.
 *
 */

/**
 * Returned by the decoders when the bytes seen so far end inside a value. A symbol rather than
 * `undefined`/`null`, because `null` is itself a valid reply (the null bulk string).
 * @public
 */
export const NEED_MORE: unique symbol = Symbol.for('restis.resp.needMore')

/** The type of {@link NEED_MORE}. @public */
export type NeedMore = typeof NEED_MORE

/**
 * The byte stream is not valid RESP. The message reads like Redis's own
 * (`Protocol error: invalid bulk length`), so a server can send it back verbatim as `-ERR …`.
 *
 * After a protocol error the stream cannot be resynchronised: the decoder that threw keeps
 * throwing the same error, and a server should reply once and close the connection, as Redis does.
 * @public
 */
export class RespProtocolError extends Error {
  override readonly name = 'RespProtocolError'
  constructor(reason: string) {
    super(`Protocol error: ${reason}`)
  }
}

/**
 * The bytes the grammars look for. A `const enum`, so the bundler writes each use as a literal:
 * V8 reads a module-level `const` from memory at every use, which shows in the per-byte loops.
 * @internal
 */
export const enum Byte {
  LF = 10,
  CR = 13,
  Dollar = 36,
  Star = 42,
  Plus = 43,
  Dash = 45,
  Zero = 48,
  Colon = 58,
}

/**
 * The longest buffer a parser reads in one pass: the streams cut longer chunks into pieces of
 * this size (any split decodes the same). A typed array's `length` may be up to 2^53, so V8
 * compares offsets against it as doubles; capped, they stay small integers.
 * @internal
 */
export const enum Limit {
  Run = 1 << 30,
}

/** @internal */
export const CR = Byte.CR
/** @internal */
export const LF = Byte.LF

/** Default largest bulk string: 512 MiB, Redis's `proto-max-bulk-len`. @internal */
export const DEFAULT_MAX_BULK = 512 * 1024 * 1024
/** Default most elements of one array or arguments of one command: 2^31-1 (`INT_MAX`), as in Redis. @internal */
export const DEFAULT_MAX_ARRAY = 2 ** 31 - 1

/** The longest 64-bit integer text: sign and 19 digits. @internal */
export const MAX_INTEGER_DIGITS = 20

const INT64_MAX = 2n ** 63n - 1n
const INT64_MIN = -(2n ** 63n)
const SAFE_MAX = BigInt(Number.MAX_SAFE_INTEGER)
const SAFE_MIN = BigInt(Number.MIN_SAFE_INTEGER)

/**
 * Reads a signed 64-bit decimal in `buf[start, end)` the way Redis's `string2ll` does: no `+`, no
 * leading zeros, no `-0`, nothing else on the line. Strictness here is what lets a desynchronised
 * stream be noticed early instead of being misread as numbers.
 *
 * @returns a `number` when safe, a `bigint` beyond 2^53, `undefined` when not a valid int64.
 * @internal
 */
export function parseInteger(buf: Uint8Array, start: number, end: number): number | bigint | undefined {
  let i = start
  const negative = buf[i] === Byte.Dash
  if (negative) i++
  const digits = end - i
  if (digits <= 0 || digits > 19) return undefined
  if (buf[i] === Byte.Zero) return digits === 1 && !negative ? 0 : undefined
  // Up to 15 digits fit a double exactly, so the common case never touches bigint.
  if (digits <= 15) {
    let n = 0
    for (; i < end; i++) {
      const d = buf[i] - Byte.Zero
      if (d < 0 || d > 9) return undefined
      n = n * 10 + d
    }
    return negative ? -n : n
  }
  let text = ''
  for (; i < end; i++) {
    const c = buf[i]
    if (c < Byte.Zero || c > Byte.Zero + 9) return undefined
    text += String.fromCharCode(c)
  }
  const big = negative ? -BigInt(text) : BigInt(text)
  if (big > INT64_MAX || big < INT64_MIN) return undefined
  return big >= SAFE_MIN && big <= SAFE_MAX ? Number(big) : big
}

/**
 * Finds the next LF at or after `from`. Most lines are a few bytes, and for those a loop is ~3x
 * faster than the native `indexOf` call it falls back to.
 * @internal
 */
export function indexOfLF(buf: Uint8Array, from: number): number {
  const stop = Math.min(buf.length, from + 24)
  for (let i = from; i < stop; i++) if (buf[i] === Byte.LF) return i
  return stop === buf.length ? -1 : buf.indexOf(Byte.LF, stop)
}

/** A byte as Redis's `%c` would show it, but printable: control and high bytes as `\xHH`. @internal */
export function describeByte(byte: number): string {
  return byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : `\\x${byte.toString(16).padStart(2, '0')}`
}

/** Views any `Uint8Array` as a `Buffer` without copying, for `indexOf`/`toString`/`copy`. @internal */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}

/** Node's Buffer method that `toString('latin1')` ends in (not in Node's typings). */
type Latin1Slicing = Buffer & { latin1Slice?: (start: number, end: number) => string }

/**
 * The bytes as a binary string, one char per byte (`toString('latin1')`). Node's native
 * `latin1Slice` is called directly where it exists: `toString` first looks the encoding up,
 * which on short command words costs about as much as the copy. @internal
 */
export function latin1Text(bytes: Uint8Array): string {
  const buffer = asBuffer(bytes) as Latin1Slicing
  return buffer.latin1Slice !== undefined ? buffer.latin1Slice(0, buffer.length) : buffer.toString('latin1')
}

type BufferConstructor = {
  new (length: number): Buffer
  new (memory: ArrayBufferLike, byteOffset: number, length: number): Buffer
}

/**
 * The class of Node's `Buffer` instances, which `subarray` and `Buffer.alloc` construct through
 * `Buffer[Symbol.species]`. Constructing it directly skips their argument handling: a view costs
 * ~15% less than `subarray`, and a buffer of up to 64 bytes is allocated inside V8's heap, with
 * its bytes in the object, for ~40% less than a slice of `allocUnsafe`'s pool. `undefined` where
 * the species is not such a class (other runtimes): the public calls are used.
 */
const BufferSpecies = ((): BufferConstructor | undefined => {
  const species: unknown = (Buffer as unknown as Record<symbol, unknown>)[Symbol.species]
  return typeof species === 'function' && species.prototype === Buffer.prototype ? (species as BufferConstructor) : undefined
})()

const enum Copy {
  /**
   * Values up to this size are copied by a loop: a native copy needs a view of the source, and
   * costs more below ~64 bytes (Node 20).
   */
  ByLoop = 64,
  /**
   * Values up to this size get a buffer of their own from `BufferSpecies`. V8 keeps typed arrays
   * of up to 64 bytes inside its heap and allocates larger ones out of it, ~10x dearer; 32 stays
   * clear of that limit.
   */
  InHeap = 32,
}

/**
 * Copies `buf[start, end)` into memory of its own, so a value never pins or aliases a chunk.
 *
 * `inHeap`: a copy of up to 32 bytes gets a buffer with its bytes inside V8's heap, as
 * `Buffer.alloc` of that size does: ~13 ns cheaper to make, but reading its `.buffer` (as
 * `Buffer.from(b.buffer, b.byteOffset, b.length)` does) first moves the bytes out of the heap,
 * ~150 ns. The reply decoder uses it; the request decoder does not, as the memory executor reads
 * every argument through `.buffer`.
 * @internal
 */
export function copyBytes(buf: Uint8Array, start: number, end: number, inHeap = false): Buffer {
  const length = end - start
  if (length > Copy.ByLoop) {
    const out = Buffer.allocUnsafe(length)
    out.set(buf.subarray(start, end))
    return out
  }
  const out =
    inHeap && length <= Copy.InHeap && BufferSpecies !== undefined ? new BufferSpecies(length) : Buffer.allocUnsafe(length)
  // Four bytes per round: the per-element overhead of typed-array access dominates short copies.
  let i = 0
  for (; i + 4 <= length; i += 4) {
    out[i] = buf[start + i]
    out[i + 1] = buf[start + i + 1]
    out[i + 2] = buf[start + i + 2]
    out[i + 3] = buf[start + i + 3]
  }
  for (; i < length; i++) out[i] = buf[start + i]
  return out
}

/** `buf[start, end)` as a `Buffer` sharing `buf`'s memory. @internal */
export function viewBytes(buf: Uint8Array, start: number, end: number): Buffer {
  if (BufferSpecies === undefined) return asBuffer(buf).subarray(start, end)
  return new BufferSpecies(buf.buffer, buf.byteOffset + start, end - start)
}

/** Thrown when a bulk's declared length is followed by something other than CRLF. @internal */
export function missingBulkCRLF(): RespProtocolError {
  return new RespProtocolError('expected CRLF after bulk string')
}

/**
 * The end of the bulk body of `size` bytes that starts at `start` (the offset of its CRLF), or -1
 * when `buf` ends before that CRLF does.
 * @throws {@link RespProtocolError} when the body is not followed by CRLF.
 * @internal
 */
export function bulkEnd(buf: Uint8Array, start: number, size: number): number {
  const end = start + size
  if (buf.length < end + 2) return -1
  if (buf[end] !== Byte.CR || buf[end + 1] !== Byte.LF) throw missingBulkCRLF()
  return end
}

/** Offsets are caller-supplied; a bad one is a programming error, not a protocol error. @internal */
export function checkOffset(buf: Uint8Array, offset: number): void {
  if (!Number.isInteger(offset) || offset < 0 || offset > buf.length) {
    throw new RangeError(`offset ${offset} is outside the buffer (length ${buf.length})`)
  }
}
