import { check } from './reader.js'

/**
 * Zipmaps (`zipmap.c`), the small-hash encoding of Redis up to 2.4 (RDB_TYPE_HASH_ZIPMAP).
 * Redis 7.0 still loads them, converting to a listpack hash.
 *
 * Layout: a count byte (254 or more = unknown), then per pair: key length, key, value length,
 * a "free" byte, value, that many unused bytes; then 0xFF. A length is one byte below 254, or
 * 254 followed by a 4-byte little-endian length.
 */

const END = 0xff
const BIG_LENGTH = 0xfe

/**
 * The fields and values of zipmap `blob`, interleaved, validated as `zipmapValidateIntegrity`
 * does (Redis always validates zipmaps deeply): every pair inside the blob, at least one pair,
 * a count byte that matches when it is below 254.
 */
export function readZipmap(blob: string): string[] {
  const size = blob.length
  check(size >= 2, 'zipmap shorter than its header')
  check(blob.charCodeAt(size - 1) === END, 'zipmap without terminator')
  const inside = (pos: number): boolean => pos >= 2 && pos <= size - 1
  const entries: string[] = []
  let pos = 1
  while (blob.charCodeAt(pos) !== END) {
    const field = readLength(blob, pos, inside)
    pos = field.next + field.length
    check(inside(pos), 'zipmap entry beyond its end')
    const fieldText = blob.slice(field.next, pos)
    const value = readLength(blob, pos, inside)
    pos = value.next
    const free = blob.charCodeAt(pos++)
    const valueText = blob.slice(pos, pos + value.length)
    pos += value.length + free
    check(inside(pos), 'zipmap entry beyond its end')
    entries.push(fieldText, valueText)
  }
  const pairs = entries.length / 2
  check(pairs > 0, 'empty zipmap')
  const declared = blob.charCodeAt(0)
  check(declared === BIG_LENGTH || declared === pairs, 'zipmap count mismatch')
  return entries
}

/** A length at `pos`: its value and where the data after it starts. */
function readLength(blob: string, pos: number, inside: (pos: number) => boolean): { length: number; next: number } {
  const first = blob.charCodeAt(pos)
  const width = first < BIG_LENGTH ? 1 : 5
  check(inside(pos + width), 'zipmap entry beyond its end')
  if (width === 1) return { length: first, next: pos + 1 }
  const length = blob.charCodeAt(pos + 1) + blob.charCodeAt(pos + 2) * 2 ** 8 + blob.charCodeAt(pos + 3) * 2 ** 16 + blob.charCodeAt(pos + 4) * 2 ** 24
  return { length, next: pos + 5 }
}
