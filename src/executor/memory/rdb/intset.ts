import { check } from './reader.js'

/**
 * Intsets (`intset.c`), the encoding of small sets of integers: encoding width (uint32: 2, 4 or
 * 8 bytes per element), element count (uint32), then the elements in ascending order, all
 * little-endian. Redis 7.0 writes them for intset-encoded sets (RDB_TYPE_SET_INTSET); the engine
 * writes plain sets, so only the reader exists.
 */

const HEADER_SIZE = 8

/**
 * The members of intset `blob` (a binary string) as decimal text, validated as
 * `intsetValidateIntegrity` does in deep mode: a known width, a size matching the count, at
 * least one element, and strictly ascending elements (no duplicates).
 */
export function readIntset(blob: string): string[] {
  check(blob.length >= HEADER_SIZE, 'intset shorter than its header')
  const width = uint32(blob, 0)
  check(width === 2 || width === 4 || width === 8, `invalid intset encoding ${width}`)
  const count = uint32(blob, 4)
  check(HEADER_SIZE + count * width === blob.length, 'intset size mismatch')
  check(count > 0, 'empty intset')
  const members = new Array<string>(count)
  let previous: bigint | number | undefined
  for (let i = 0; i < count; i++) {
    const value = element(blob, HEADER_SIZE + i * width, width)
    check(previous === undefined || value > previous, 'intset not in ascending order')
    previous = value
    members[i] = String(value)
  }
  return members
}

function element(blob: string, pos: number, width: number): number | bigint {
  if (width === 8) {
    let value = 0n
    for (let i = 7; i >= 0; i--) value = (value << 8n) | BigInt(blob.charCodeAt(pos + i))
    return BigInt.asIntN(64, value)
  }
  let value = 0
  for (let i = width - 1; i >= 0; i--) value = value * 256 + blob.charCodeAt(pos + i)
  const half = 2 ** (8 * width - 1)
  return value >= half ? value - 2 * half : value
}

function uint32(blob: string, pos: number): number {
  return blob.charCodeAt(pos) + blob.charCodeAt(pos + 1) * 2 ** 8 + blob.charCodeAt(pos + 2) * 2 ** 16 + blob.charCodeAt(pos + 3) * 2 ** 24
}
