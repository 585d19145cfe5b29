import { ReplyError } from '../../../../reply.js'
import { NOTIFY_STRING, notify } from '../../notify.js'
import type { CommandContext, Out } from '../../command.js'
import { NOT_INTEGER, SYNTAX } from '../../errors.js'
import { integerReply, readInt64, readInteger } from '../../lib/numbers.js'
import { readString, checkStringLength } from '../strings/value.js'
import { readBitOffset, toBytes, fromBytes } from './bits.js'

/**
 * BITFIELD and BITFIELD_RO (Redis 7.0 `bitfieldGeneric`): integers of 1..64 bits (signed) or
 * 1..63 bits (unsigned) at any bit offset, with WRAP, SAT or FAIL overflow. Every operation is
 * parsed (and refused) before anything runs; the string is grown once, up to the farthest bit
 * written, converted to bytes once and back once. Values are BigInt with C's 64-bit wrap-around
 * where Redis relies on it.
 */

const INVALID_TYPE = new ReplyError('ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.')
const INVALID_OVERFLOW = new ReplyError('ERR Invalid OVERFLOW type specified')
const GET_ONLY = new ReplyError('ERR BITFIELD_RO only supports the GET subcommand')

type Overflow = 'WRAP' | 'SAT' | 'FAIL'

interface FieldOperation {
  readonly kind: 'GET' | 'SET' | 'INCRBY'
  readonly signed: boolean
  readonly bits: number
  readonly offset: number
  /** SET value or INCRBY increment (a signed 64-bit integer). */
  readonly value: bigint
  readonly overflow: Overflow
}

const INT64_MAX = 2n ** 63n - 1n

/** BITFIELD key [GET type offset | SET type offset value | INCRBY type offset increment | OVERFLOW WRAP|SAT|FAIL] ... */
export function bitfield(ctx: CommandContext, argv: readonly string[]): Out {
  return bitfieldGeneric(ctx, argv, false)
}

/** BITFIELD_RO key [GET type offset ...]: a write operation is refused (after parsing all). */
export function bitfieldRo(ctx: CommandContext, argv: readonly string[]): Out {
  return bitfieldGeneric(ctx, argv, true)
}

function bitfieldGeneric(ctx: CommandContext, argv: readonly string[], readOnlyCommand: boolean): Out {
  const operations = parseOperations(ctx, argv)
  if (operations instanceof ReplyError) return operations
  const key = argv[1]
  const current = readString(ctx, key)
  let highestBit = -1
  for (const operation of operations) {
    if (operation.kind !== 'GET') highestBit = Math.max(highestBit, operation.offset + operation.bits - 1)
  }
  if (highestBit < 0) {
    // Only reads: a missing key reads as zeros and is not created.
    if (current instanceof ReplyError) return current
    return operations.map((operation) => integerReply(readField(current ?? '', operation)))
  }
  if (readOnlyCommand) return GET_ONLY
  if (current instanceof ReplyError) return current
  const length = Math.floor(highestBit / 8) + 1
  const tooLong = checkStringLength(ctx, length)
  if (tooLong !== null) return tooLong
  const bytes = toBytes(current, length)
  const grown = current === undefined || bytes.length !== current.length
  let changed = grown
  // Redis's `changes`: writes that ran and either grew the string or changed its bits.
  let changes = 0
  const replies: Out[] = operations.map((operation) => {
    if (operation.kind === 'GET') return integerReply(readField(bytes, operation))
    const outcome = write(bytes, operation)
    if (outcome === null) return null
    changed ||= outcome.changed
    if (grown || outcome.changed) changes++
    return integerReply(outcome.reply)
  })
  // Redis creates (or grows) the string before running the operations, even when they all FAIL.
  if (changed) {
    if (current === undefined) ctx.db.set(key, fromBytes(bytes))
    else ctx.db.update(key, fromBytes(bytes))
  }
  // Any write operation unshares the string first, which makes it raw even when nothing changed.
  if (operations.some((operation) => operation.kind !== 'GET')) ctx.db.setStringEncoding(key, 'raw')
  if (changes > 0) notify(ctx, NOTIFY_STRING, 'setbit', key)
  return replies
}

/** All operations, or the first error in argument order (as Redis parses before running). */
function parseOperations(ctx: CommandContext, argv: readonly string[]): FieldOperation[] | ReplyError {
  const operations: FieldOperation[] = []
  let overflow: Overflow = 'WRAP'
  for (let i = 2; i < argv.length; i++) {
    const remaining = argv.length - i - 1
    const name = argv[i].toUpperCase()
    if (name === 'OVERFLOW' && remaining >= 1) {
      const behaviour = argv[++i].toUpperCase()
      if (behaviour !== 'WRAP' && behaviour !== 'SAT' && behaviour !== 'FAIL') return INVALID_OVERFLOW
      overflow = behaviour
      continue
    }
    const kind = name === 'GET' && remaining >= 2 ? 'GET' : (name === 'SET' || name === 'INCRBY') && remaining >= 3 ? name : null
    if (kind === null) return SYNTAX
    const type = readFieldType(argv[i + 1])
    if (type instanceof ReplyError) return type
    const offset = readBitOffset(ctx, argv[i + 2], type.bits)
    if (offset instanceof ReplyError) return offset
    let value = 0n
    if (kind !== 'GET') {
      const given = readInt64(argv[i + 3])
      if (given === null) return NOT_INTEGER
      value = given
    }
    operations.push({ kind, signed: type.signed, bits: type.bits, offset, value, overflow })
    i += kind === 'GET' ? 2 : 3
  }
  return operations
}

/** `i1`..`i64` or `u1`..`u63` (lowercase sign letter, strict integer width). */
function readFieldType(text: string): { signed: boolean; bits: number } | ReplyError {
  const sign = text.charCodeAt(0)
  if (sign !== 105 /* i */ && sign !== 117 /* u */) return INVALID_TYPE
  const signed = sign === 105
  const bits = readInteger(text.slice(1))
  if (bits === null || bits < 1 || bits > (signed ? 64 : 63)) return INVALID_TYPE
  return { signed, bits }
}

/** The 9 bytes from `byteIndex` as one big-endian integer (zeros past the end): any field fits. */
function window(source: string | Uint8Array, byteIndex: number): bigint {
  let result = 0n
  for (let k = 0; k < 9; k++) {
    const index = byteIndex + k
    const byte = index >= source.length ? 0 : typeof source === 'string' ? source.charCodeAt(index) : source[index]
    result = (result << 8n) | BigInt(byte)
  }
  return result
}

/** The field's value: its bits as unsigned, sign-extended when the type is signed. */
function readField(source: string | Uint8Array, operation: FieldOperation): bigint {
  const { offset, bits } = operation
  const shift = BigInt(72 - (offset % 8) - bits)
  const unsigned = BigInt.asUintN(bits, window(source, Math.floor(offset / 8)) >> shift)
  return operation.signed ? BigInt.asIntN(bits, unsigned) : unsigned
}

function writeField(bytes: Uint8Array, operation: FieldOperation, value: bigint): void {
  const { offset, bits } = operation
  const byteIndex = Math.floor(offset / 8)
  const shift = BigInt(72 - (offset % 8) - bits)
  const mask = ((1n << BigInt(bits)) - 1n) << shift
  const updated = (window(bytes, byteIndex) & ~mask) | ((BigInt.asUintN(bits, value) << shift) & mask)
  for (let k = 0; k < 9 && byteIndex + k < bytes.length; k++) {
    bytes[byteIndex + k] = Number((updated >> BigInt(64 - 8 * k)) & 0xffn)
  }
}

/**
 * Runs SET or INCRBY: replies the old value (SET) or the new one (INCRBY), or null when FAIL
 * refuses an overflow (nothing written).
 */
function write(bytes: Uint8Array, operation: FieldOperation): { reply: bigint; changed: boolean } | null {
  const old = readField(bytes, operation)
  const increment = operation.kind === 'INCRBY' ? operation.value : 0n
  // SET checks the new value itself against the type (increment 0); unsigned C casts it first.
  const base = operation.kind === 'INCRBY' ? old : operation.signed ? operation.value : BigInt.asUintN(64, operation.value)
  const limit = operation.signed
    ? signedOverflow(base, increment, operation.bits, operation.overflow)
    : unsignedOverflow(base, increment, operation.bits, operation.overflow)
  if (limit !== undefined && operation.overflow === 'FAIL') return null
  const next = limit ?? base + increment
  writeField(bytes, operation, next)
  return { reply: operation.kind === 'INCRBY' ? next : old, changed: next !== old }
}

/**
 * Redis's `checkUnsignedBitfieldOverflow`: undefined when `value + increment` fits in `bits`
 * unsigned bits, else the value to store (wrapped, or saturated at 0 or the maximum; FAIL gets
 * any defined value). `value` is an unsigned 64-bit integer, `increment` a signed one.
 */
function unsignedOverflow(value: bigint, increment: bigint, bits: number, overflow: Overflow): bigint | undefined {
  const max = (1n << BigInt(bits)) - 1n
  const maxIncrement = BigInt.asIntN(64, max - value)
  const minIncrement = BigInt.asIntN(64, -value)
  const wrapped = BigInt.asUintN(bits, value + increment)
  if (value > max || (increment > 0n && increment > maxIncrement)) return overflow === 'SAT' ? max : wrapped
  if (increment < 0n && increment < minIncrement) return overflow === 'SAT' ? 0n : wrapped
  return undefined
}

/**
 * Redis's `checkSignedBitfieldOverflow`, including its 64-bit wrap-around in `max - value`: a SET
 * of a value near INT64_MIN into a narrow field saturates at the maximum, as in Redis.
 */
function signedOverflow(value: bigint, increment: bigint, bits: number, overflow: Overflow): bigint | undefined {
  const max = bits === 64 ? INT64_MAX : (1n << BigInt(bits - 1)) - 1n
  const min = -max - 1n
  const maxIncrement = BigInt.asIntN(64, max - value)
  const minIncrement = BigInt.asIntN(64, min - value)
  const wrapped = BigInt.asIntN(bits, value + increment)
  const narrow = bits !== 64
  if (value > max || (narrow && increment > maxIncrement) || (value >= 0n && increment > 0n && increment > maxIncrement)) {
    return overflow === 'SAT' ? max : wrapped
  }
  if (value < min || (narrow && increment < minIncrement) || (value < 0n && increment < 0n && increment < minIncrement)) {
    return overflow === 'SAT' ? min : wrapped
  }
  return undefined
}
