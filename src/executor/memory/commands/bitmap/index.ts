import { ReplyError } from '../../../../reply.js'
import { NOTIFY_GENERIC, NOTIFY_STRING, notify } from '../../notify.js'
import type { CommandTable, CommandContext, Out } from '../../command.js'
import { BIT_VALUE, NOT_INTEGER, SYNTAX } from '../../errors.js'
import { readInteger } from '../../lib/numbers.js'
import { readString, checkStringLength, padTo } from '../strings/value.js'
import { readBitOffset, countBitsInRange, findBit, bitAt, fromBytes } from './bits.js'
import { bitfield, bitfieldRo } from './bitfield.js'

/**
 * The Bitmap family (https://redis.io/commands/?group=bitmap) as Redis 7.0 `bitops.c` behaves:
 * SETBIT GETBIT BITCOUNT BITPOS BITOP here, BITFIELD and BITFIELD_RO in `bitmap/bitfield.ts`.
 * Bitmaps are string values; missing keys read as an endless run of 0 bits.
 */

const BIT_NOT_0_OR_1 = new ReplyError('ERR The bit argument must be 1 or 0.')
const NOT_SINGLE_SOURCE = new ReplyError('ERR BITOP NOT must be called with a single source key.')

/** SETBIT key offset value: the previous bit; grows (zero-padded) or creates the string, keeps the TTL. */
function setbit(ctx: CommandContext, argv: readonly string[]): Out {
  const key = argv[1]
  const offset = readBitOffset(ctx, argv[2])
  if (offset instanceof ReplyError) return offset
  const bit = readInteger(argv[3])
  if (bit !== 0 && bit !== 1) return BIT_VALUE
  const current = readString(ctx, key)
  if (current instanceof ReplyError) return current
  const byteIndex = Math.floor(offset / 8)
  const tooLong = checkStringLength(ctx, byteIndex + 1)
  if (tooLong !== null) return tooLong
  const padded = padTo(current ?? '', byteIndex + 1)
  const byte = padded.charCodeAt(byteIndex)
  const mask = 1 << (7 - (offset % 8))
  const previous = byte & mask ? 1 : 0
  const updated = bit === 1 ? byte | mask : byte & ~mask
  if (updated !== byte || padded !== current) {
    const next = updated === byte ? padded : padded.slice(0, byteIndex) + String.fromCharCode(updated) + padded.slice(byteIndex + 1)
    if (current === undefined) ctx.db.set(key, next)
    else ctx.db.update(key, next)
  }
  // Redis unshares the value before looking at the bit, so even an unchanged string turns raw.
  ctx.db.setStringEncoding(key, 'raw')
  if (padded !== current || previous !== bit) notify(ctx, NOTIFY_STRING, 'setbit', key)
  return previous
}

/** GETBIT key offset: 0 past the end of the string or for a missing key. */
function getbit(ctx: CommandContext, argv: readonly string[]): Out {
  const offset = readBitOffset(ctx, argv[2])
  if (offset instanceof ReplyError) return offset
  const value = readString(ctx, argv[1])
  if (value instanceof ReplyError) return value
  return value === undefined ? 0 : bitAt(value, offset)
}

/** The BYTE | BIT unit argument: true for BIT, null when it is neither. */
function readUnit(text: string): boolean | null {
  const unit = text.toUpperCase()
  return unit === 'BIT' ? true : unit === 'BYTE' ? false : null
}

/**
 * Resolves a start..end range (negative from the end, then clamped) over `length` units into
 * bit positions, or null when empty. Redis converts indexes in the unit given (bytes or bits).
 */
function bitRange(start: number, end: number, length: number, inBits: boolean): [number, number] | null {
  const total = inBits ? length * 8 : length
  if (start < 0) start = total + start
  if (end < 0) end = total + end
  if (start < 0) start = 0
  if (end < 0) end = 0
  if (end >= total) end = total - 1
  if (start > end) return null
  return inBits ? [start, end] : [start * 8, end * 8 + 7]
}

/**
 * BITCOUNT key [start end [BYTE | BIT]]. Redis 7.0 looks the key up first (a missing key counts
 * 0 whatever the arguments), then reads start and end, then treats two negative indexes in the
 * wrong order as empty, then reads the unit.
 */
function bitcount(ctx: CommandContext, argv: readonly string[]): Out {
  const value = readString(ctx, argv[1])
  if (value instanceof ReplyError) return value
  if (value === undefined) return 0
  if (argv.length === 2) return value.length === 0 ? 0 : countBitsInRange(value, 0, value.length * 8 - 1)
  if (argv.length > 5 || argv.length === 3) return SYNTAX
  const start = readInteger(argv[2])
  const end = readInteger(argv[3])
  if (start === null || end === null) return NOT_INTEGER
  if (start < 0 && end < 0 && start > end) return 0
  const inBits = argv.length === 5 ? readUnit(argv[4]) : false
  if (inBits === null) return SYNTAX
  const range = bitRange(start, end, value.length, inBits)
  return range === null ? 0 : countBitsInRange(value, range[0], range[1])
}

/**
 * BITPOS key bit [start [end [BYTE | BIT]]]: the first bit set to `bit` in the range, or -1.
 * Without an explicit end, a search for 0 in an all-ones string answers the first bit past the
 * string (it is zero-padded on the right); with an explicit end it answers -1. A missing key is
 * all zeros: 0 for bit 0, -1 for bit 1. Order as Redis 7.0: bit, key, start, unit, end.
 */
function bitpos(ctx: CommandContext, argv: readonly string[]): Out {
  const bit = readInteger(argv[2])
  if (bit === null) return NOT_INTEGER
  if (bit !== 0 && bit !== 1) return BIT_NOT_0_OR_1
  const value = readString(ctx, argv[1])
  if (value instanceof ReplyError) return value
  if (value === undefined) return bit === 1 ? -1 : 0
  if (argv.length > 6) return SYNTAX
  let start = 0
  let end = value.length - 1
  let inBits = false
  if (argv.length >= 4) {
    const given = readInteger(argv[3])
    if (given === null) return NOT_INTEGER
    start = given
  }
  if (argv.length === 6) {
    const unit = readUnit(argv[5])
    if (unit === null) return SYNTAX
    inBits = unit
  }
  const endGiven = argv.length >= 5
  if (endGiven) {
    const given = readInteger(argv[4])
    if (given === null) return NOT_INTEGER
    end = given
  }
  const range = bitRange(start, end, value.length, inBits)
  if (range === null) return -1
  const found = findBit(value, bit, range[0], range[1])
  if (found !== -1 || bit === 1 || endGiven) return found
  return range[1] + 1
}

/** The operations BITOP takes: Redis 2.6's four, and DIFF, DIFF1, ANDOR and ONE of Redis 8.2. */
type BitOperation = 'AND' | 'OR' | 'XOR' | 'NOT' | 'DIFF' | 'DIFF1' | 'ANDOR' | 'ONE'
const BIT_OPERATIONS: ReadonlySet<string> = new Set(['AND', 'OR', 'XOR', 'NOT', 'DIFF', 'DIFF1', 'ANDOR', 'ONE'])
/** The operations that combine the first source with the union of the others. */
const AGAINST_THE_OTHERS: ReadonlySet<BitOperation> = new Set(['DIFF', 'DIFF1', 'ANDOR'])

/**
 * BITOP AND | OR | XOR | NOT | DIFF | DIFF1 | ANDOR | ONE destkey key [key ...]: the result is as
 * long as the longest source (shorter and missing ones read as zeros); an all-empty result
 * deletes destkey. Replies the length. The destination is overwritten whatever its type, and
 * loses its TTL. NOT takes one source; DIFF, DIFF1 and ANDOR at least two (Redis 8.2's checks,
 * made before any key is read, with the operation named in upper case).
 */
function bitop(ctx: CommandContext, argv: readonly string[]): Out {
  const operation = argv[1].toUpperCase()
  if (!BIT_OPERATIONS.has(operation)) return SYNTAX
  if (operation === 'NOT' && argv.length !== 4) return NOT_SINGLE_SOURCE
  if (AGAINST_THE_OTHERS.has(operation as BitOperation) && argv.length < 5) {
    return new ReplyError(`ERR BITOP ${operation} must be called with at least two source keys.`)
  }
  const sources: string[] = []
  let longest = 0
  for (let i = 3; i < argv.length; i++) {
    const value = readString(ctx, argv[i])
    if (value instanceof ReplyError) return value
    const source = value ?? ''
    sources.push(source)
    if (source.length > longest) longest = source.length
  }
  const destination = argv[2]
  if (longest === 0) {
    if (ctx.db.delete(destination, ctx.now)) notify(ctx, NOTIFY_GENERIC, 'del', destination)
    return 0
  }
  ctx.db.reclaimIfExpired(destination, ctx)
  ctx.db.set(destination, fromBytes(combine(operation as BitOperation, sources, longest)))
  ctx.db.setStringEncoding(destination, 'raw')
  notify(ctx, NOTIFY_STRING, 'set', destination)
  return longest
}

/** The bytes of `operation` over `sources`, each zero-padded to `length`. */
function combine(operation: BitOperation, sources: readonly string[], length: number): Uint8Array {
  const result = new Uint8Array(length)
  const first = sources[0]
  for (let j = 0; j < first.length; j++) result[j] = first.charCodeAt(j)
  if (operation === 'NOT') {
    for (let j = 0; j < length; j++) result[j] = ~result[j]
    return result
  }
  if (AGAINST_THE_OTHERS.has(operation)) return againstTheOthers(operation, result, sources)
  if (operation === 'ONE') return exactlyOne(result, sources)
  for (let i = 1; i < sources.length; i++) {
    const source = sources[i]
    const shared = Math.min(source.length, length)
    if (operation === 'AND') {
      for (let j = 0; j < shared; j++) result[j] &= source.charCodeAt(j)
      result.fill(0, shared)
    } else if (operation === 'OR') {
      for (let j = 0; j < shared; j++) result[j] |= source.charCodeAt(j)
    } else {
      for (let j = 0; j < shared; j++) result[j] ^= source.charCodeAt(j)
    }
  }
  return result
}

/**
 * DIFF (first and none of the others), DIFF1 (any of the others and not the first), ANDOR (first
 * and any of the others): `first` holds the first source, zero-padded; it becomes the result.
 */
function againstTheOthers(operation: BitOperation, first: Uint8Array, sources: readonly string[]): Uint8Array {
  const others = new Uint8Array(first.length)
  for (let i = 1; i < sources.length; i++) {
    const source = sources[i]
    const shared = Math.min(source.length, others.length)
    for (let j = 0; j < shared; j++) others[j] |= source.charCodeAt(j)
  }
  for (let j = 0; j < first.length; j++) {
    if (operation === 'DIFF') first[j] &= ~others[j]
    else if (operation === 'DIFF1') first[j] = ~first[j] & others[j]
    else first[j] &= others[j]
  }
  return first
}

/** ONE: the bits set in exactly one source. `result` holds the first source, zero-padded. */
function exactlyOne(result: Uint8Array, sources: readonly string[]): Uint8Array {
  // Bits seen in two sources or more; they are cleared at the end.
  const seenTwice = new Uint8Array(result.length)
  for (let i = 1; i < sources.length; i++) {
    const source = sources[i]
    const shared = Math.min(source.length, result.length)
    for (let j = 0; j < shared; j++) {
      const byte = source.charCodeAt(j)
      seenTwice[j] |= result[j] & byte
      result[j] |= byte
    }
  }
  for (let j = 0; j < result.length; j++) result[j] &= ~seenTwice[j]
  return result
}

/** Bitmap commands. */
export const bitmapCommands: CommandTable = {
  bitcount,
  bitfield,
  bitfield_ro: bitfieldRo,
  bitop,
  bitpos,
  getbit,
  setbit,
}
