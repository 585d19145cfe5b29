import {
  RDB_14BITLEN, RDB_32BITLEN, RDB_64BITLEN, RDB_6BITLEN, RDB_ENCVAL, RDB_ENC_INT16, RDB_ENC_INT32, RDB_ENC_INT8, RDB_ENC_LZF,
} from './constants.js'
import { lzfDecompress } from './lzf.js'

/**
 * A payload Redis would refuse with "Bad data format": the reason is for tests and debugging,
 * the client only ever sees Redis's text.
 */
export class CorruptPayload extends Error {
  override readonly name = 'CorruptPayload'
}

/** Throws {@link CorruptPayload} with `reason` unless `condition` holds. */
export function check(condition: boolean, reason: string): asserts condition {
  if (!condition) throw new CorruptPayload(reason)
}

/** Most output bytes one input byte of an LZF stream can produce (264 bytes from 3). */
const MAX_LZF_EXPANSION = 88

/** Scratch space for reading doubles, shared (reads are synchronous). */
const scratch = new DataView(new ArrayBuffer(8))

/** The leading number `sscanf("%lg")` accepts, for the text scores of RDB_TYPE_ZSET. */
const LEADING_DOUBLE = /^\s*[+-]?(?:inf(?:inity)?|nan|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)/i

/**
 * Reads the primitives of the RDB format (`rdbLoadLen`, `rdbGenericLoadStringObject`, doubles,
 * millisecond times) from a binary string, one char per byte.
 *
 * Like Redis's `rio` over the payload buffer, the reader may run into the version and checksum
 * bytes at the end of a DUMP payload: Redis reads its object from the whole buffer, so a length
 * that overshoots by a few bytes still "succeeds" there, and does here too.
 */
export class RdbReader {
  constructor(
    readonly data: string,
    public pos = 0,
    readonly end = data.length,
  ) {}

  /** One unsigned byte. */
  byte(): number {
    check(this.pos < this.end, 'unexpected end of payload')
    return this.data.charCodeAt(this.pos++)
  }

  /** `count` raw bytes as a binary string. */
  bytes(count: number): string {
    check(count <= this.end - this.pos, 'unexpected end of payload')
    const start = this.pos
    this.pos += count
    return this.data.slice(start, this.pos)
  }

  /**
   * A length (`rdbLoadLen`). A special-encoding marker where a plain length is expected is
   * corrupt. Lengths beyond 2^53 cannot be honoured by any payload and are reported as corrupt.
   */
  length(): number {
    const first = this.byte()
    check(first >> 6 !== RDB_ENCVAL, 'encoded value where a length was expected')
    return this.lengthAfter(first)
  }

  /** A length read as an exact 64-bit unsigned value (stream IDs and counters). */
  length64(): bigint {
    const first = this.byte()
    if (first === RDB_64BITLEN) {
      let value = 0n
      for (let i = 0; i < 8; i++) value = (value << 8n) | BigInt(this.byte())
      return value
    }
    check(first >> 6 !== RDB_ENCVAL, 'encoded value where a length was expected')
    return BigInt(this.lengthAfter(first))
  }

  /** A string (`rdbGenericLoadStringObject`): verbatim, integer-encoded or LZF-compressed. */
  string(): string {
    const first = this.byte()
    if (first >> 6 !== RDB_ENCVAL) return this.bytes(this.lengthAfter(first))
    switch (first & 0x3f) {
      case RDB_ENC_INT8: {
        const value = this.byte()
        return String(value << 24 >> 24)
      }
      case RDB_ENC_INT16: {
        const value = this.byte() | (this.byte() << 8)
        return String(value << 16 >> 16)
      }
      case RDB_ENC_INT32: {
        const value = this.byte() | (this.byte() << 8) | (this.byte() << 16) | (this.byte() << 24)
        return String(value)
      }
      case RDB_ENC_LZF:
        return this.compressedString()
      default:
        throw new CorruptPayload(`unknown string encoding ${first & 0x3f}`)
    }
  }

  /** An IEEE 754 double, 8 bytes little-endian (`rdbLoadBinaryDoubleValue`). */
  binaryDouble(): number {
    check(this.end - this.pos >= 8, 'unexpected end of payload')
    for (let i = 0; i < 8; i++) scratch.setUint8(i, this.data.charCodeAt(this.pos++))
    return scratch.getFloat64(0, true)
  }

  /**
   * A double as text with a one-byte length (`rdbLoadDoubleValue`, RDB_TYPE_ZSET): 253 is NaN,
   * 254 +inf, 255 -inf; otherwise the leading number of the text, as `sscanf("%lg")` reads it.
   */
  textDouble(): number {
    const length = this.byte()
    if (length === 253) return NaN
    if (length === 254) return Infinity
    if (length === 255) return -Infinity
    const match = LEADING_DOUBLE.exec(this.bytes(length))
    check(match !== null, 'unreadable score')
    const text = match[0].trim().toLowerCase()
    if (text.endsWith('nan')) return NaN
    if (text.endsWith('inf') || text.endsWith('infinity')) return text.startsWith('-') ? -Infinity : Infinity
    return Number(text)
  }

  /** A signed 64-bit integer, 8 bytes little-endian (`rdbLoadMillisecondTime`). */
  millis(): bigint {
    check(this.end - this.pos >= 8, 'unexpected end of payload')
    let value = 0n
    for (let i = 7; i >= 0; i--) value = (value << 8n) | BigInt(this.data.charCodeAt(this.pos + i))
    this.pos += 8
    return BigInt.asIntN(64, value)
  }

  private lengthAfter(first: number): number {
    switch (first >> 6) {
      case RDB_6BITLEN:
        return first & 0x3f
      case RDB_14BITLEN:
        return ((first & 0x3f) << 8) | this.byte()
    }
    if (first === RDB_32BITLEN) return (this.byte() * 2 ** 24) + ((this.byte() << 16) | (this.byte() << 8) | this.byte())
    if (first === RDB_64BITLEN) {
      let value = 0
      for (let i = 0; i < 8; i++) value = value * 256 + this.byte()
      check(value <= Number.MAX_SAFE_INTEGER, 'length beyond any payload')
      return value
    }
    throw new CorruptPayload(`unknown length encoding ${first}`)
  }

  /** RDB_ENC_LZF: compressed length, original length, compressed bytes. */
  private compressedString(): string {
    const compressedLength = this.length()
    const length = this.length()
    check(compressedLength <= this.end - this.pos, 'unexpected end of payload')
    // One 3-byte back reference yields at most 264 bytes: a longer claim cannot be honoured (and
    // must not make us allocate it).
    check(length <= compressedLength * MAX_LZF_EXPANSION, 'invalid LZF compressed string')
    const start = this.pos
    this.pos += compressedLength
    const text = lzfDecompress(this.data, start, this.pos, length)
    check(text !== null, 'invalid LZF compressed string')
    return text
  }
}
