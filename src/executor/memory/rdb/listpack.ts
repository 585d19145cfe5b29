import { readInt64 } from '../lib/numbers.js'
import { check, CorruptPayload } from './reader.js'

/**
 * Listpacks (`listpack.c`), the compact encoding of small hashes, sorted sets, list nodes and
 * stream nodes in Redis 7: a 6-byte header (total bytes, element count, both little-endian),
 * the entries, and an 0xFF terminator. Each entry is an encoding byte (integers of 7 to 64 bits
 * or strings of 6-, 12- or 32-bit length), its data, and its own length written backwards so
 * the list can be walked from the tail.
 *
 * Integers come back as their decimal text: the engine stores every element as a string.
 */

const HEADER_SIZE = 6
const EOF = 0xff
/** Header count meaning "too many to count here, walk the entries". */
const UNKNOWN_COUNT = 0xffff

/**
 * The elements of listpack `blob` (a binary string), validated as `lpValidateIntegrity` does in
 * deep mode: header size and terminator, every entry inside the blob with a matching back
 * length, and the element count. Throws CorruptPayload otherwise.
 */
export function readListpack(blob: string): string[] {
  const size = blob.length
  check(size >= HEADER_SIZE + 1, 'listpack shorter than its header')
  check(uint32(blob, 0) === size, 'listpack size mismatch')
  check(blob.charCodeAt(size - 1) === EOF, 'listpack without terminator')
  const declared = blob.charCodeAt(4) | (blob.charCodeAt(5) << 8)
  const elements: string[] = []
  let pos = HEADER_SIZE
  while (blob.charCodeAt(pos) !== EOF) {
    const start = pos
    const encoding = blob.charCodeAt(pos)
    let element: string
    if (encoding < 0x80) {
      element = String(encoding)
      pos += 1
    } else if (encoding < 0xc0) {
      const length = encoding & 0x3f
      element = stringAt(blob, pos + 1, length)
      pos += 1 + length
    } else if (encoding < 0xe0) {
      needs(blob, pos, 2)
      element = String(signed(((encoding & 0x1f) << 8) | blob.charCodeAt(pos + 1), 13))
      pos += 2
    } else if (encoding < 0xf0) {
      needs(blob, pos, 2)
      const length = ((encoding & 0x0f) << 8) | blob.charCodeAt(pos + 1)
      element = stringAt(blob, pos + 2, length)
      pos += 2 + length
    } else {
      switch (encoding) {
        case 0xf0: {
          needs(blob, pos, 5)
          const length = uint32(blob, pos + 1)
          element = stringAt(blob, pos + 5, length)
          pos += 5 + length
          break
        }
        case 0xf1:
          needs(blob, pos, 3)
          element = String(signed(littleEndian(blob, pos + 1, 2), 16))
          pos += 3
          break
        case 0xf2:
          needs(blob, pos, 4)
          element = String(signed(littleEndian(blob, pos + 1, 3), 24))
          pos += 4
          break
        case 0xf3:
          needs(blob, pos, 5)
          element = String(uint32(blob, pos + 1) | 0)
          pos += 5
          break
        case 0xf4:
          needs(blob, pos, 9)
          element = String(int64(blob, pos + 1))
          pos += 9
          break
        default:
          throw new CorruptPayload(`invalid listpack entry encoding ${encoding}`)
      }
    }
    const backlen = backlenBytes(pos - start)
    check(blob.length - 1 - pos >= backlen.length && blob.startsWith(backlen, pos), 'listpack back length mismatch')
    pos += backlen.length
    elements.push(element)
  }
  check(pos === size - 1, 'listpack terminator before its end')
  check(declared === UNKNOWN_COUNT || declared === elements.length, 'listpack count mismatch')
  return elements
}

/**
 * A listpack holding `elements` as Redis's `lpAppend` would write them: canonical 64-bit
 * integers in the smallest integer encoding, everything else as a string.
 */
export function writeListpack(elements: readonly string[]): string {
  const parts: string[] = []
  let size = HEADER_SIZE + 1
  for (const element of elements) {
    const entry = encodeEntry(element)
    const backlen = backlenBytes(entry.length)
    parts.push(entry, backlen)
    size += entry.length + backlen.length
  }
  const count = Math.min(elements.length, UNKNOWN_COUNT)
  const header = String.fromCharCode(size & 0xff, (size >>> 8) & 0xff, (size >>> 16) & 0xff, size >>> 24, count & 0xff, count >>> 8)
  return header + parts.join('') + String.fromCharCode(EOF)
}

function encodeEntry(element: string): string {
  const integer = element.length <= 20 ? readInt64(element) : null
  if (integer !== null) return encodeInteger(integer)
  const length = element.length
  if (length < 64) return String.fromCharCode(0x80 | length) + element
  if (length < 4096) return String.fromCharCode(0xe0 | (length >> 8), length & 0xff) + element
  return String.fromCharCode(0xf0, length & 0xff, (length >>> 8) & 0xff, (length >>> 16) & 0xff, length >>> 24) + element
}

/** The smallest integer encoding holding `value` (`lpEncodeIntegerGetType`). */
function encodeInteger(value: bigint): string {
  if (value >= 0n && value <= 127n) return String.fromCharCode(Number(value))
  const n = Number(value)
  if (n >= -4096 && n <= 4095) {
    const bits = n & 0x1fff
    return String.fromCharCode(0xc0 | (bits >> 8), bits & 0xff)
  }
  if (n >= -32768 && n <= 32767) return String.fromCharCode(0xf1, n & 0xff, (n >> 8) & 0xff)
  if (n >= -8388608 && n <= 8388607) return String.fromCharCode(0xf2, n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff)
  if (n >= -2147483648 && n <= 2147483647) {
    return String.fromCharCode(0xf3, n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, (n >>> 24) & 0xff)
  }
  let bits = BigInt.asUintN(64, value)
  let out = String.fromCharCode(0xf4)
  for (let i = 0; i < 8; i++) {
    out += String.fromCharCode(Number(bits & 0xffn))
    bits >>= 8n
  }
  return out
}

/**
 * The back length of an entry of `length` bytes (`lpEncodeBacklen`): 7 bits per byte, the most
 * significant group first, every byte but the first flagged with 0x80 (read right to left, the
 * flag says "more bytes to the left").
 */
function backlenBytes(length: number): string {
  if (length <= 127) return String.fromCharCode(length)
  if (length < 16383) return String.fromCharCode(length >> 7, (length & 127) | 128)
  if (length < 2097151) return String.fromCharCode(length >> 14, ((length >> 7) & 127) | 128, (length & 127) | 128)
  if (length < 268435455) {
    return String.fromCharCode(length >> 21, ((length >> 14) & 127) | 128, ((length >> 7) & 127) | 128, (length & 127) | 128)
  }
  return String.fromCharCode(
    Math.floor(length / 2 ** 28), ((length >> 21) & 127) | 128, ((length >> 14) & 127) | 128, ((length >> 7) & 127) | 128, (length & 127) | 128,
  )
}

/** `bytes` more bytes from `pos` stay before the terminator. */
function needs(blob: string, pos: number, bytes: number): void {
  check(pos + bytes <= blob.length - 1, 'listpack entry beyond its end')
}

function stringAt(blob: string, start: number, length: number): string {
  check(start + length <= blob.length - 1, 'listpack entry beyond its end')
  return blob.slice(start, start + length)
}

function littleEndian(blob: string, pos: number, bytes: number): number {
  let value = 0
  for (let i = bytes - 1; i >= 0; i--) value = value * 256 + blob.charCodeAt(pos + i)
  return value
}

function uint32(blob: string, pos: number): number {
  return littleEndian(blob, pos, 4)
}

function int64(blob: string, pos: number): bigint {
  let value = 0n
  for (let i = 7; i >= 0; i--) value = (value << 8n) | BigInt(blob.charCodeAt(pos + i))
  return BigInt.asIntN(64, value)
}

/** `value`, an unsigned `bits`-bit number, as two's complement. */
function signed(value: number, bits: number): number {
  return value >= 2 ** (bits - 1) ? value - 2 ** bits : value
}
