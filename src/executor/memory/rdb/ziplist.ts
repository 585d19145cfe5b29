import { check, CorruptPayload } from './reader.js'

/**
 * Ziplists (`ziplist.c`), the compact encoding of Redis up to 6.2: list nodes (in quicklists and
 * RDB_TYPE_LIST_ZIPLIST), small hashes and sorted sets. Redis 7 still loads them (converting to
 * listpacks) but never writes them, so only the reader exists.
 *
 * Layout: total bytes (uint32), offset of the last entry (uint32), entry count (uint16, 65535 =
 * unknown), the entries, 0xFF. An entry is the previous entry's size (1 byte, or 0xFE and 4
 * bytes), an encoding (strings of 6-, 14- or 32-bit big-endian length; integers of 8, 16, 24, 32
 * or 64 bits; or 0..12 inside the encoding byte), and the data.
 */

const HEADER_SIZE = 10
const END = 0xff
const BIG_PREVLEN = 0xfe
const UNKNOWN_COUNT = 0xffff

/**
 * The elements of ziplist `blob` (a binary string), validated as `ziplistValidateIntegrity` does
 * in deep mode (which Redis always uses for ziplists): header, every entry inside the blob and
 * linked to its predecessor's size, the tail offset, and the count. Integers come back as text.
 */
export function readZiplist(blob: string): string[] {
  const size = blob.length
  check(size >= HEADER_SIZE + 1, 'ziplist shorter than its header')
  check(uint32(blob, 0) === size, 'ziplist size mismatch')
  check(blob.charCodeAt(size - 1) === END, 'ziplist without terminator')
  const tail = uint32(blob, 4)
  check(tail <= size - 1, 'ziplist tail offset beyond its end')
  const declared = blob.charCodeAt(8) | (blob.charCodeAt(9) << 8)
  const elements: string[] = []
  let pos = HEADER_SIZE
  let previousSize = 0
  let lastEntry = -1
  while (blob.charCodeAt(pos) !== END) {
    const start = pos
    // The previous entry's size.
    let previous = blob.charCodeAt(pos)
    if (previous === BIG_PREVLEN) {
      check(pos + 5 < size, 'ziplist entry beyond its end')
      previous = uint32(blob, pos + 1)
      pos += 5
    } else {
      pos += 1
    }
    check(previous === previousSize, 'ziplist entry does not follow its predecessor')
    check(pos < size - 1, 'ziplist entry beyond its end')
    const encoding = blob.charCodeAt(pos)
    let element: string
    if (encoding < 0xc0) {
      let length: number
      switch (encoding & 0xc0) {
        case 0x00:
          length = encoding & 0x3f
          pos += 1
          break
        case 0x40:
          check(pos + 2 <= size - 1, 'ziplist entry beyond its end')
          length = ((encoding & 0x3f) << 8) | blob.charCodeAt(pos + 1)
          pos += 2
          break
        default:
          check(pos + 5 <= size - 1, 'ziplist entry beyond its end')
          length = bigEndian32(blob, pos + 1)
          pos += 5
      }
      check(pos + length <= size - 1, 'ziplist entry beyond its end')
      element = blob.slice(pos, pos + length)
      pos += length
    } else {
      const width = integerWidth(encoding)
      check(pos + 1 + width <= size - 1, 'ziplist entry beyond its end')
      element = integerText(blob, pos, encoding)
      pos += 1 + width
    }
    elements.push(element)
    previousSize = pos - start
    lastEntry = start
  }
  check(pos === size - 1, 'ziplist terminator before its end')
  check(lastEntry === -1 || tail === lastEntry, 'ziplist tail offset mismatch')
  check(declared === UNKNOWN_COUNT || declared === elements.length, 'ziplist count mismatch')
  return elements
}

/** Bytes of data after an integer encoding byte. */
function integerWidth(encoding: number): number {
  switch (encoding) {
    case 0xc0:
      return 2
    case 0xd0:
      return 4
    case 0xe0:
      return 8
    case 0xf0:
      return 3
    case 0xfe:
      return 1
  }
  if (encoding >= 0xf1 && encoding <= 0xfd) return 0
  throw new CorruptPayload(`invalid ziplist entry encoding ${encoding}`)
}

/** The decimal text of the integer entry whose encoding byte is at `pos`. */
function integerText(blob: string, pos: number, encoding: number): string {
  switch (encoding) {
    case 0xc0:
      return String(littleEndianSigned(blob, pos + 1, 2))
    case 0xd0:
      return String(littleEndianSigned(blob, pos + 1, 4))
    case 0xf0:
      return String(littleEndianSigned(blob, pos + 1, 3))
    case 0xfe:
      return String(littleEndianSigned(blob, pos + 1, 1))
    case 0xe0: {
      let value = 0n
      for (let i = 7; i >= 0; i--) value = (value << 8n) | BigInt(blob.charCodeAt(pos + 1 + i))
      return String(BigInt.asIntN(64, value))
    }
  }
  // 0xf1..0xfd: the value 0..12 lives in the low nibble, offset by one.
  return String((encoding & 0x0f) - 1)
}

function littleEndianSigned(blob: string, pos: number, bytes: number): number {
  let value = 0
  for (let i = bytes - 1; i >= 0; i--) value = value * 256 + blob.charCodeAt(pos + i)
  const half = 2 ** (8 * bytes - 1)
  return value >= half ? value - 2 * half : value
}

function uint32(blob: string, pos: number): number {
  return blob.charCodeAt(pos) + blob.charCodeAt(pos + 1) * 2 ** 8 + blob.charCodeAt(pos + 2) * 2 ** 16 + blob.charCodeAt(pos + 3) * 2 ** 24
}

function bigEndian32(blob: string, pos: number): number {
  return blob.charCodeAt(pos) * 2 ** 24 + blob.charCodeAt(pos + 1) * 2 ** 16 + blob.charCodeAt(pos + 2) * 2 ** 8 + blob.charCodeAt(pos + 3)
}
