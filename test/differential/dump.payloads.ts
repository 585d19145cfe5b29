/**
 * Building DUMP payloads by hand for the DUMP/RESTORE tests: the footer (RDB version and
 * CRC-64), RDB lengths and strings, and the legacy encodings Redis 7.0 still loads but no longer
 * writes (ziplists, zipmaps), so that both servers can be fed the same old-format bytes.
 *
 * These writers are test fixtures, written from the format descriptions in ziplist.c /
 * zipmap.c / intset.c; redis-server validating them deeply is part of what the tests check.
 */
import { crc64 } from '../../src/executor/memory/rdb/crc64.js'

/** Bytes as a binary string. */
export type Bytes = string

export const bin = (...bytes: number[]): Bytes => String.fromCharCode(...bytes)
export const fromHex = (hex: string): Bytes => Buffer.from(hex, 'hex').toString('latin1')
export const toBuffer = (bytes: Bytes): Buffer => Buffer.from(bytes, 'latin1')

/** A payload: `body` (type byte and value), the RDB version (little-endian) and its CRC-64. */
export function payload(body: Bytes, version = 10): Buffer {
  const framed = body + bin(version & 0xff, version >> 8)
  return toBuffer(framed + crc64(framed))
}

/** A payload captured from redis-server (hex), as bytes. */
export function captured(hex: string): Buffer {
  return Buffer.from(hex, 'hex')
}

/** `original` with its body changed by `edit`, re-framed with a valid checksum. */
export function reframe(original: Buffer, edit: (body: Bytes) => Bytes, version?: number): Buffer {
  const text = original.toString('latin1')
  const body = text.slice(0, text.length - 10)
  const originalVersion = text.charCodeAt(text.length - 10) | (text.charCodeAt(text.length - 9) << 8)
  return payload(edit(body), version ?? originalVersion)
}

/** An RDB length in the form `rdbSaveLen` picks. */
export function rdbLength(n: number): Bytes {
  if (n < 64) return bin(n)
  if (n < 16384) return bin(0x40 | (n >> 8), n & 0xff)
  return bin(0x80, n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff)
}

/** An RDB string, verbatim. */
export function rdbString(s: Bytes): Bytes {
  return rdbLength(s.length) + s
}

/** A little-endian unsigned integer of `width` bytes. */
export function le(value: number | bigint, width: number): Bytes {
  let v = BigInt.asUintN(width * 8, BigInt(value))
  let out = ''
  for (let i = 0; i < width; i++) {
    out += bin(Number(v & 0xffn))
    v >>= 8n
  }
  return out
}

/** One ziplist element: a string, or an integer stored in the smallest integer encoding. */
export type ZiplistEntry = Bytes | number | bigint

function ziplistEncoding(entry: ZiplistEntry): Bytes {
  if (typeof entry === 'string') {
    const n = entry.length
    if (n < 64) return bin(n) + entry
    if (n < 16384) return bin(0x40 | (n >> 8), n & 0xff) + entry
    return bin(0x80, n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff) + entry
  }
  const v = BigInt(entry)
  if (v >= 0n && v <= 12n) return bin(0xf1 + Number(v))
  if (v >= -128n && v <= 127n) return bin(0xfe) + le(v, 1)
  if (v >= -32768n && v <= 32767n) return bin(0xc0) + le(v, 2)
  if (v >= -8388608n && v <= 8388607n) return bin(0xf0) + le(v, 3)
  if (v >= -2147483648n && v <= 2147483647n) return bin(0xd0) + le(v, 4)
  return bin(0xe0) + le(v, 8)
}

/** A ziplist (Redis ≤ 6.2): header, entries linked by their predecessor's size, 0xFF. */
export function ziplist(entries: readonly ZiplistEntry[]): Bytes {
  let body = ''
  let previousSize = 0
  let tail = 10
  for (const entry of entries) {
    const prevlen = previousSize < 254 ? bin(previousSize) : bin(0xfe) + le(previousSize, 4)
    const encoded = prevlen + ziplistEncoding(entry)
    tail = 10 + body.length
    body += encoded
    previousSize = encoded.length
  }
  const total = 10 + body.length + 1
  return le(total, 4) + le(tail, 4) + le(Math.min(entries.length, 0xffff), 2) + body + bin(0xff)
}

/** A zipmap (Redis ≤ 2.4 small hash): count, then length-prefixed keys and values, 0xFF. */
export function zipmap(pairs: readonly (readonly [Bytes, Bytes])[], free = 0): Bytes {
  const length = (n: number): Bytes => (n < 254 ? bin(n) : bin(0xfe) + le(n, 4))
  let body = bin(Math.min(pairs.length, 254))
  for (const [field, value] of pairs) body += length(field.length) + field + length(value.length) + bin(free) + value + '\0'.repeat(free)
  return body + bin(0xff)
}

/** An intset of `width`-byte integers, in the order given (Redis keeps them ascending). */
export function intset(width: 2 | 4 | 8, values: readonly (number | bigint)[]): Bytes {
  return le(width, 4) + le(values.length, 4) + values.map((v) => le(v, width)).join('')
}

/** `data` as an LZF stream of literal runs only (valid for lzf_decompress), RDB_ENC_LZF framed. */
export function lzfLiteralString(data: Bytes): Bytes {
  let stream = ''
  for (let i = 0; i < data.length; i += 32) {
    const run = data.slice(i, i + 32)
    stream += bin(run.length - 1) + run
  }
  return bin(0xc3) + rdbLength(stream.length) + rdbLength(data.length) + stream
}
