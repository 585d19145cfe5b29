import { RDB_14BITLEN, RDB_32BITLEN, RDB_64BITLEN, RDB_ENCVAL, RDB_ENC_INT16, RDB_ENC_INT32, RDB_ENC_INT8, RDB_ENC_LZF } from './constants.js'
import { lzfCompress } from './lzf.js'

/** Scratch space for writing doubles, shared (writes are synchronous). */
const scratch = new DataView(new ArrayBuffer(8))

/** Canonical decimal integers of at most 11 chars (what `rdbTryIntegerEncoding` looks at). */
const SHORT_INTEGER = /^(?:0|-?[1-9][0-9]{0,10})$/

/** Strings longer than this are tried with LZF when compressing (`rdbSaveRawString`). */
const COMPRESS_ABOVE = 20
/** Compression must save more than this many bytes to be used (`rdbSaveLzfStringObject`). */
const COMPRESSION_MIN_SAVING = 4

/**
 * Writes the primitives of the RDB format (`rdbSaveLen`, `rdbSaveRawString`, doubles,
 * millisecond times) into a binary string, one char per byte.
 *
 * With `compress` (RDB files, as Redis's `rdbcompression yes`) strings over 20 bytes are stored
 * LZF-compressed when that saves at least 4 bytes; DUMP payloads are written without it.
 */
export class RdbWriter {
  private readonly parts: string[] = []

  constructor(private readonly compress = false) {}

  /** One byte. */
  byte(value: number): void {
    this.parts.push(String.fromCharCode(value & 0xff))
  }

  /** Raw bytes (a binary string) as they are. */
  raw(bytes: string): void {
    this.parts.push(bytes)
  }

  /** A length in the shortest form (`rdbSaveLen`): 6 bits, 14 bits, 32 bits or 64 bits. */
  length(value: number | bigint): void {
    const n = Number(value)
    if (n < 64) this.byte(n)
    else if (n < 16384) this.parts.push(String.fromCharCode((RDB_14BITLEN << 6) | (n >> 8), n & 0xff))
    else if (n <= 0xffffffff) {
      this.parts.push(String.fromCharCode(RDB_32BITLEN, n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff))
    } else {
      let big = BigInt(value)
      const bytes = new Array<number>(8)
      for (let i = 7; i >= 0; i--) {
        bytes[i] = Number(big & 0xffn)
        big >>= 8n
      }
      this.parts.push(String.fromCharCode(RDB_64BITLEN, ...bytes))
    }
  }

  /**
   * A string as `rdbSaveRawString` writes it: integer-encoded when it is a canonical integer
   * that fits 32 bits, LZF-compressed when the writer compresses and it pays, else length and
   * bytes.
   */
  string(value: string): void {
    if (value.length <= 11 && SHORT_INTEGER.test(value)) {
      const n = Number(value)
      if (n >= -128 && n <= 127) {
        this.parts.push(String.fromCharCode((RDB_ENCVAL << 6) | RDB_ENC_INT8, n & 0xff))
        return
      }
      if (n >= -32768 && n <= 32767) {
        this.parts.push(String.fromCharCode((RDB_ENCVAL << 6) | RDB_ENC_INT16, n & 0xff, (n >> 8) & 0xff))
        return
      }
      if (n >= -2147483648 && n <= 2147483647) {
        this.parts.push(String.fromCharCode((RDB_ENCVAL << 6) | RDB_ENC_INT32, n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, (n >>> 24) & 0xff))
        return
      }
    }
    if (this.compress && value.length > COMPRESS_ABOVE) {
      const compressed = lzfCompress(value, value.length - COMPRESSION_MIN_SAVING)
      if (compressed !== null) {
        this.byte((RDB_ENCVAL << 6) | RDB_ENC_LZF)
        this.length(compressed.length)
        this.length(value.length)
        this.parts.push(compressed)
        return
      }
    }
    this.length(value.length)
    this.parts.push(value)
  }

  /** An IEEE 754 double, 8 bytes little-endian (`rdbSaveBinaryDoubleValue`). */
  binaryDouble(value: number): void {
    scratch.setFloat64(0, value, true)
    const bytes = new Array<number>(8)
    for (let i = 0; i < 8; i++) bytes[i] = scratch.getUint8(i)
    this.parts.push(String.fromCharCode(...bytes))
  }

  /** A signed 64-bit integer, 8 bytes little-endian (`rdbSaveMillisecondTime`). */
  millis(value: bigint): void {
    let bits = BigInt.asUintN(64, value)
    const bytes = new Array<number>(8)
    for (let i = 0; i < 8; i++) {
      bytes[i] = Number(bits & 0xffn)
      bits >>= 8n
    }
    this.parts.push(String.fromCharCode(...bytes))
  }

  /** Everything written so far, as one binary string. */
  finish(): string {
    return this.parts.join('')
  }
}
