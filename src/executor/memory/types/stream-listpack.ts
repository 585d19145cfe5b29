/**
 * The byte size of Redis's stream listpacks, computed rather than built.
 *
 * Redis stores a stream as a radix tree of listpack nodes and starts a new node when the tail one
 * reaches `stream-node-max-entries` entries or `stream-node-max-bytes` bytes (`streamAppendItem`).
 * Node boundaries are observable (approximate `~` trimming removes whole nodes, XINFO STREAM
 * reports `radix-tree-keys`), so this engine sizes each node exactly as the listpack encoding
 * would (`listpack.c`: element = encoding + data + back-length) without storing bytes.
 */
import type { StreamId, U64 } from './stream-id.js'

/** Listpack header (total bytes + element count) and end marker. */
export const LISTPACK_OVERHEAD = 6 + 1

/** Bytes of an element's back-length field, for an element of `length` bytes (`lpEncodeBacklen`). */
function backLengthSize(length: number): number {
  if (length <= 127) return 1
  if (length < 16383) return 2
  if (length < 2097151) return 3
  if (length < 268435455) return 4
  return 5
}

/** Bytes of an integer element (`lpEncodeIntegerGetType`): 7, 13, 16, 24, 32 or 64 bits. */
export function integerElementSize(value: U64): number {
  let encoded: number
  if (value >= 0 && value <= 127) encoded = 1
  else if (value >= -4096 && value <= 4095) encoded = 2
  else if (value >= -32768 && value <= 32767) encoded = 3
  else if (value >= -8388608 && value <= 8388607) encoded = 4
  else if (value >= -2147483648 && value <= 2147483647) encoded = 5
  else encoded = 9
  return encoded + 1
}

const MINUS = 45
const DIGIT_0 = 48
const DIGIT_9 = 57

/**
 * Bytes of a string element. A string that reads as a 64-bit integer (`lpStringToInt64`: no sign
 * `+`, no leading zero, no space, at most 20 characters) is stored as that integer.
 */
export function stringElementSize(text: string): number {
  const length = text.length
  if (length > 0 && length < 21) {
    const value = integerValue(text)
    if (value !== null) return integerElementSize(value)
  }
  const encoded = length < 64 ? 1 + length : length < 4096 ? 2 + length : 5 + length
  return encoded + backLengthSize(encoded)
}

/** The 64-bit integer `text` spells in canonical form, or null. */
function integerValue(text: string): U64 | null {
  const first = text.charCodeAt(0)
  if (text.length === 1) return first >= DIGIT_0 && first <= DIGIT_9 ? first - DIGIT_0 : null
  let i = first === MINUS ? 1 : 0
  const lead = text.charCodeAt(i)
  if (lead <= DIGIT_0 || lead > DIGIT_9) return null // empty after '-', leading zero, not a digit
  for (; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < DIGIT_0 || code > DIGIT_9) return null
  }
  if (text.length <= 15) return Number(text)
  const value = BigInt(text)
  return value < -(1n << 63n) || value >= 1n << 63n ? null : value
}

/**
 * `a - b` stored as Redis's `lpAppendInteger(int64_t)` stores an ID delta: the difference of two
 * uint64 values, reinterpreted as a signed 64-bit integer.
 */
function int64Delta(a: U64, b: U64): U64 {
  if (typeof a === 'number' && typeof b === 'number') return a - b
  return BigInt.asIntN(64, BigInt(a) - BigInt(b))
}

/** Bytes of a node's master entry, without its live and deleted counters. */
export function masterEntrySize(fields: readonly string[]): number {
  let size = integerElementSize(fields.length) + integerElementSize(0)
  for (const field of fields) size += stringElementSize(field)
  return size
}

/**
 * Bytes one entry takes in its node: flags, the ID as deltas from the node's master ID, the field
 * count and names unless they equal the master's (`STREAM_ITEM_FLAG_SAMEFIELDS`), the values, and
 * the trailing element count.
 */
export function entrySize(id: StreamId, master: StreamId, pairs: readonly string[], sameFields: boolean): number {
  const numFields = pairs.length / 2
  let size = 2 // flags: 0..3
  size += integerElementSize(int64Delta(id.ms, master.ms))
  size += integerElementSize(int64Delta(id.seq, master.seq))
  let pieces = numFields + 3
  if (sameFields) {
    for (let i = 1; i < pairs.length; i += 2) size += stringElementSize(pairs[i])
  } else {
    size += integerElementSize(numFields)
    for (let i = 0; i < pairs.length; i++) size += stringElementSize(pairs[i])
    pieces += numFields + 1
  }
  return size + integerElementSize(pieces)
}

/** Whether the entry's field names are exactly the master entry's, in order. */
export function hasSameFields(pairs: readonly string[], masterFields: readonly string[]): boolean {
  if (pairs.length !== masterFields.length * 2) return false
  for (let i = 0; i < masterFields.length; i++) if (pairs[i * 2] !== masterFields[i]) return false
  return true
}
