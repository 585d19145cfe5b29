import type { ReplyError } from '../../../../reply.js'
import type { CommandContext } from '../../command.js'
import { BIT_OFFSET } from '../../errors.js'
import { readInt64 } from '../../lib/numbers.js'
import { maxBulkLength } from '../strings/value.js'
import { asBuffer } from '../../../../resp/protocol.js'

/**
 * Bit-level helpers of the bitmap family. Bitmaps are binary strings (one char per byte); bit 0
 * is the most significant bit of the first byte, as in Redis. Reads work on the string directly
 * (`charCodeAt`), never on a copy.
 */

/** Set bits of every byte value. */
const BITS_IN_BYTE = new Uint8Array(256)
for (let byte = 1; byte < 256; byte++) BITS_IN_BYTE[byte] = (byte & 1) + BITS_IN_BYTE[byte >> 1]

/**
 * A bit offset argument as Redis's `getBitOffsetFromArgument` reads it: a 64-bit integer, or for
 * BITFIELD (`bitsPerUnit` given) `#n` meaning `n × bitsPerUnit` (multiplied with 64-bit
 * wrap-around, as in C). Negative offsets and offsets whose byte is at or beyond
 * `proto-max-bulk-len` are refused.
 */
export function readBitOffset(ctx: CommandContext, text: string, bitsPerUnit = 0): number | ReplyError {
  const byUnit = bitsPerUnit > 0 && text.charCodeAt(0) === 35 /* # */
  let offset = readInt64(byUnit ? text.slice(1) : text)
  if (offset === null) return BIT_OFFSET
  if (byUnit) offset = BigInt.asIntN(64, offset * BigInt(bitsPerUnit))
  if (offset < 0n || offset >> 3n >= BigInt(maxBulkLength(ctx))) return BIT_OFFSET
  return Number(offset)
}

/** Number of set bits in bytes `[from, to]` of `value`. */
export function countBits(value: string, from: number, to: number): number {
  let count = 0
  for (let i = from; i <= to; i++) count += BITS_IN_BYTE[value.charCodeAt(i)]
  return count
}

/** Number of set bits among bits `[fromBit, toBit]` of `value` (both within the string). */
export function countBitsInRange(value: string, fromBit: number, toBit: number): number {
  const firstByte = Math.floor(fromBit / 8)
  const lastByte = Math.floor(toBit / 8)
  // Whole bytes, minus the bits of the edge bytes that lie outside the range.
  let count = countBits(value, firstByte, lastByte)
  const leadingMask = (0xff00 >> (fromBit % 8)) & 0xff
  const trailingMask = (1 << (7 - (toBit % 8))) - 1
  count -= BITS_IN_BYTE[value.charCodeAt(firstByte) & leadingMask]
  count -= BITS_IN_BYTE[value.charCodeAt(lastByte) & trailingMask]
  return count
}

/** Position of the first bit equal to `bit` among bits `[fromBit, toBit]` of `value`, or -1. */
export function findBit(value: string, bit: 0 | 1, fromBit: number, toBit: number): number {
  // Bytes made entirely of the other bit are skipped whole.
  const skip = bit === 1 ? 0x00 : 0xff
  let position = fromBit
  while (position <= toBit) {
    const byteIndex = Math.floor(position / 8)
    const byte = value.charCodeAt(byteIndex)
    if (position % 8 === 0 && byte === skip && position + 7 <= toBit) {
      position += 8
      continue
    }
    if (((byte >> (7 - (position % 8))) & 1) === bit) return position
    position++
  }
  return -1
}

/** The value of bit `offset` of `value`; bits past the end are 0. */
export function bitAt(value: string, offset: number): 0 | 1 {
  const byteIndex = Math.floor(offset / 8)
  if (byteIndex >= value.length) return 0
  return ((value.charCodeAt(byteIndex) >> (7 - (offset % 8))) & 1) as 0 | 1
}

/** A writable copy of `value`, zero-padded to `length` bytes: converted once per command. */
export function toBytes(value: string | undefined, length: number): Buffer {
  const size = Math.max(length, value?.length ?? 0)
  const bytes = Buffer.alloc(size)
  if (value !== undefined && value.length > 0) bytes.write(value, 0, 'latin1')
  return bytes
}

/** Bytes back to the engine's binary string. */
export function fromBytes(bytes: Uint8Array): string {
  return asBuffer(bytes).toString('latin1')
}
