import type { HllBuffer } from './buffer.js'
import { denseSet, writeDenseRegister } from './dense.js'
import { CACHE_FLAG_OFFSET, DENSE, DENSE_SIZE, ENCODING_OFFSET, HEADER_SIZE, REGISTER_COUNT, STALE_CACHE } from './format.js'

/**
 * The sparse encoding (hyperloglog.c, Redis 7.0): the registers after the header as a run-length
 * sequence of three opcodes.
 *
 * - ZERO  `00xxxxxx`: 1..64 registers set to 0 (xxxxxx + 1)
 * - XZERO `01xxxxxx yyyyyyyy`: 1..16384 registers set to 0 (14-bit xxxxxxyyyyyyyy + 1)
 * - VAL   `1vvvvvxx`: 1..4 registers (xx + 1) set to 1..32 (vvvvv + 1)
 *
 * Writes follow `hllSparseSet` step for step (which opcode splits into which sequence, which
 * neighbours merge), so the bytes match Redis's after the same PFADDs. A value above 32, or a
 * value outgrowing `hll-sparse-max-bytes`, promotes the HLL to the dense encoding.
 *
 * Readers (dense conversion, histogram, merge) reject a payload as soon as a run would pass
 * register 16384, whatever its opcode: the fix of CVE-2025-32023, which the reference server
 * (Debian's 7.0.15) carries; unpatched 7.0.15 only checked VAL runs and accepted a trailing run
 * once 16384 registers were counted.
 *
 * A payload ending in a one-byte XZERO (only hand-made bytes, APPEND or SETRANGE make one) is read
 * as Redis reads it: its missing second byte is sds's terminator. When PFADD splits such an
 * opcode, Redis's copy of the longer sequence writes one byte past the new end; later elements of
 * the same command see that byte (the buffer keeps it, see `buffer.ts`), but in Redis it also
 * outlives the command in the string's allocation, where a later command may read it. Here a
 * later command reads 0: the one known difference, reachable only from such corrupted payloads.
 */

const XZERO_FLAG = 0x40
const VAL_FLAG = 0x80
const VAL_MAX_VALUE = 32
const VAL_MAX_LENGTH = 4
const ZERO_MAX_LENGTH = 64

const isZero = (op: number): boolean => (op & 0xc0) === 0
const isXZero = (op: number): boolean => (op & 0xc0) === XZERO_FLAG
const isVal = (op: number): boolean => (op & VAL_FLAG) !== 0
const zeroLength = (op: number): number => (op & 0x3f) + 1
const xzeroLength = (op: number, next: number): number => (((op & 0x3f) << 8) | next) + 1
const valValue = (op: number): number => ((op >> 2) & 0x1f) + 1
const valLength = (op: number): number => (op & 0x3) + 1
const valOpcode = (value: number, length: number): number => ((value - 1) << 2) | (length - 1) | VAL_FLAG

/** The second byte of an XZERO at `at` in a stored value: a missing one reads as sds's terminator. */
const byteAfter = (value: string, at: number): number => (at + 1 < value.length ? value.charCodeAt(at + 1) : 0)

/**
 * Redis's `hllSparseSet`: raises register `index` to `count` in the sparse HLL `buffer`.
 * Returns 1 when the HLL changed (the cache is then marked stale, or the HLL went dense), 0 when
 * the register already held `count` or more, -1 when the payload is corrupted.
 */
export function sparseSet(buffer: HllBuffer, index: number, count: number, maxBytes: number): -1 | 0 | 1 {
  if (count > VAL_MAX_VALUE) return promote(buffer, index, count)
  // The worst split (XZERO into XZERO-VAL-XZERO) grows the value by 3 bytes.
  buffer.reserve(3)
  const bytes = buffer.bytes
  let end = buffer.length

  // Step 1: find the opcode covering register `index`.
  let p = HEADER_SIZE
  let first = 0
  let prev = -1
  let span = 0
  while (p < end) {
    const op = bytes[p]
    let opLength = 1
    if (isZero(op)) span = zeroLength(op)
    else if (isVal(op)) span = valLength(op)
    else {
      span = xzeroLength(op, bytes[p + 1])
      opLength = 2
    }
    if (index <= first + span - 1) break
    prev = p
    p += opLength
    first += span
  }
  if (span === 0 || p >= end) return -1

  const op = bytes[p]
  let next = isXZero(op) ? p + 2 : p + 1
  if (next >= end) next = -1

  // Step 2: the trivial cases update the opcode in place.
  if (isVal(op)) {
    const current = valValue(op)
    if (current >= count) return 0
    if (valLength(op) === 1) {
      bytes[p] = valOpcode(count, 1)
      return mergeAndInvalidate(buffer, prev, end)
    }
  }
  if (isZero(op) && zeroLength(op) === 1) {
    bytes[p] = valOpcode(count, 1)
    return mergeAndInvalidate(buffer, prev, end)
  }

  // General case: split the opcode around the register into at most 5 bytes.
  let length = 0
  const last = first + span - 1
  if (isVal(op)) {
    const current = valValue(op)
    if (index !== first) sequence[length++] = valOpcode(current, index - first)
    sequence[length++] = valOpcode(count, 1)
    if (index !== last) sequence[length++] = valOpcode(current, last - index)
  } else {
    if (index !== first) length = writeZeros(length, index - first)
    sequence[length++] = valOpcode(count, 1)
    if (index !== last) length = writeZeros(length, last - index)
  }

  // Step 3: put the sequence in place of the opcode, shifting what follows.
  const oldLength = isXZero(op) ? 2 : 1
  const delta = length - oldLength
  if (delta > 0 && buffer.length + delta > maxBytes) return promote(buffer, index, count)
  if (delta !== 0 && next !== -1) bytes.copyWithin(next + delta, next, end)
  buffer.growBy(delta)
  bytes.set(sequence.subarray(0, length), p)
  end += delta
  return mergeAndInvalidate(buffer, prev, end)
}

/** The split sequence of {@link sparseSet}: XZERO-VAL-XZERO at worst. */
const sequence = new Uint8Array(5)

/** Writes a run of `zeros` zero registers (ZERO up to 64, XZERO beyond) at `at` of {@link sequence}; returns the new length. */
function writeZeros(at: number, zeros: number): number {
  const encoded = zeros - 1
  if (zeros <= ZERO_MAX_LENGTH) {
    sequence[at] = encoded
    return at + 1
  }
  sequence[at] = (encoded >> 8) | XZERO_FLAG
  sequence[at + 1] = encoded & 0xff
  return at + 2
}

/**
 * Step 4 of `hllSparseSet`: from the opcode before the changed one, up to 5 opcodes are scanned
 * and adjacent VALs of the same value merged while their lengths fit; then the cache is marked
 * stale.
 */
function mergeAndInvalidate(buffer: HllBuffer, prev: number, end: number): 1 {
  const bytes = buffer.bytes
  let p = prev >= 0 ? prev : HEADER_SIZE
  let scans = 5
  while (p < end && scans-- > 0) {
    const op = bytes[p]
    if (isXZero(op)) {
      p += 2
      continue
    }
    if (isZero(op)) {
      p++
      continue
    }
    if (p + 1 < end && isVal(bytes[p + 1])) {
      const value = valValue(op)
      if (value === valValue(bytes[p + 1])) {
        const length = valLength(op) + valLength(bytes[p + 1])
        if (length <= VAL_MAX_LENGTH) {
          bytes[p + 1] = valOpcode(value, length)
          // Redis's memmove also carries the terminator one byte down.
          bytes.copyWithin(p, p + 1, end + 1)
          buffer.growBy(-1)
          end--
          // Stay on the merged opcode: it may merge with the next one too.
          continue
        }
      }
    }
    p++
  }
  bytes[CACHE_FLAG_OFFSET] |= STALE_CACHE
  return 1
}

/**
 * The `promote` path of `hllSparseSet`: converts to dense, then sets the register there (which
 * necessarily changes it). -1 when the sparse payload is corrupted.
 */
function promote(buffer: HllBuffer, index: number, count: number): -1 | 1 {
  if (!sparseToDense(buffer)) return -1
  denseSet(buffer.bytes, index, count)
  return 1
}

/**
 * Redis's `hllSparseToDense`: rewrites `buffer` in the dense encoding, keeping the header (magic,
 * unused bytes and cached cardinality, valid or not). A dense buffer is left alone. False, and
 * nothing changed, when the opcodes do not cover exactly 16384 registers.
 */
export function sparseToDense(buffer: HllBuffer): boolean {
  if (buffer.encoding === DENSE) return true
  const sparse = buffer.bytes
  const end = buffer.length
  const dense = Buffer.alloc(DENSE_SIZE + 1)
  sparse.copy(dense, 0, 0, HEADER_SIZE)
  dense[ENCODING_OFFSET] = DENSE
  let index = 0
  let p = HEADER_SIZE
  while (p < end) {
    const op = sparse[p]
    let run: number
    if (isZero(op)) run = zeroLength(op)
    else if (isXZero(op)) run = xzeroLength(op, sparse[p + 1])
    else run = valLength(op)
    if (index + run > REGISTER_COUNT) return false
    if (isVal(op)) {
      const value = valValue(op)
      for (const last = index + run; index < last; index++) writeDenseRegister(dense, index, value)
    } else index += run
    p += isXZero(op) ? 2 : 1
  }
  if (index !== REGISTER_COUNT) return false
  buffer.replace(dense, DENSE_SIZE)
  return true
}

/**
 * Adds each register of a stored sparse HLL to `histogram` (`hllSparseRegHisto`); false when the
 * opcodes do not cover exactly 16384 registers.
 */
export function sparseHistogram(value: string, histogram: Int32Array): boolean {
  const end = value.length
  let index = 0
  let p = HEADER_SIZE
  while (p < end) {
    const op = value.charCodeAt(p)
    let run: number
    if (isZero(op)) run = zeroLength(op)
    else if (isXZero(op)) run = xzeroLength(op, byteAfter(value, p))
    else run = valLength(op)
    if (index + run > REGISTER_COUNT) return false
    index += run
    histogram[isVal(op) ? valValue(op) : 0] += run
    p += isXZero(op) ? 2 : 1
  }
  return index === REGISTER_COUNT
}

/**
 * Raises each `max[i]` to register `i` of a stored sparse HLL (`hllMerge`); false when the
 * opcodes do not cover exactly 16384 registers.
 */
export function sparseMergeInto(value: string, max: Uint8Array): boolean {
  const end = value.length
  let index = 0
  let p = HEADER_SIZE
  while (p < end) {
    const op = value.charCodeAt(p)
    let run: number
    if (isZero(op)) run = zeroLength(op)
    else if (isXZero(op)) run = xzeroLength(op, byteAfter(value, p))
    else run = valLength(op)
    if (index + run > REGISTER_COUNT) return false
    if (isVal(op)) {
      const register = valValue(op)
      for (const last = index + run; index < last; index++) if (register > max[index]) max[index] = register
    } else index += run
    p += isXZero(op) ? 2 : 1
  }
  return index === REGISTER_COUNT
}

/** The opcodes of a stored sparse HLL as PFDEBUG DECODE shows them: `Z:8436 v:1,1 z:12`. */
export function sparseDecode(value: string): string {
  const parts: string[] = []
  let p = HEADER_SIZE
  while (p < value.length) {
    const op = value.charCodeAt(p)
    if (isZero(op)) {
      parts.push(`z:${zeroLength(op)}`)
      p++
    } else if (isXZero(op)) {
      parts.push(`Z:${xzeroLength(op, byteAfter(value, p))}`)
      p += 2
    } else {
      parts.push(`v:${valValue(op)},${valLength(op)}`)
      p++
    }
  }
  return parts.join(' ')
}
