import { DENSE_SIZE, HEADER_SIZE, REGISTER_COUNT } from './format.js'

/**
 * The dense encoding: 16384 registers of 6 bits after the header, packed from the least
 * significant bit of each byte upwards, so four registers fill three bytes:
 *
 * ```
 * +--------+--------+--------+
 * |11000000|22221111|33333322|
 * +--------+--------+--------+
 * ```
 *
 * Registers are read from the stored string (reads need no copy) or from a byte buffer being
 * written. A register whose bits start at bit 0 or 2 of its byte lies in that byte alone; only
 * those at bits 4 and 6 spill into the next one (the last register never does).
 */

const REGISTER_MAX = 63

/** Register `index` of the dense HLL bytes `bytes` (header included). */
export function denseRegister(bytes: Uint8Array, index: number): number {
  const bit = index * 6
  const at = HEADER_SIZE + (bit >> 3)
  const shift = bit & 7
  if (shift <= 2) return (bytes[at] >> shift) & REGISTER_MAX
  return ((bytes[at] >> shift) | (bytes[at + 1] << (8 - shift))) & REGISTER_MAX
}

/** Register `index` of a stored dense HLL value. */
export function denseRegisterOf(value: string, index: number): number {
  const bit = index * 6
  const at = HEADER_SIZE + (bit >> 3)
  const shift = bit & 7
  if (shift <= 2) return (value.charCodeAt(at) >> shift) & REGISTER_MAX
  return ((value.charCodeAt(at) >> shift) | (value.charCodeAt(at + 1) << (8 - shift))) & REGISTER_MAX
}

/** Overwrites register `index` with `count` (0..63), leaving its neighbours alone. */
export function writeDenseRegister(bytes: Uint8Array, index: number, count: number): void {
  const bit = index * 6
  const at = HEADER_SIZE + (bit >> 3)
  const shift = bit & 7
  bytes[at] = (bytes[at] & ~(REGISTER_MAX << shift)) | (count << shift)
  if (shift > 2) bytes[at + 1] = (bytes[at + 1] & ~(REGISTER_MAX >> (8 - shift))) | (count >> (8 - shift))
}

/** Redis's `hllDenseSet`: raises register `index` to `count`; 1 when it changed, else 0. */
export function denseSet(bytes: Uint8Array, index: number, count: number): 0 | 1 {
  if (count <= denseRegister(bytes, index)) return 0
  writeDenseRegister(bytes, index, count)
  return 1
}

/** Adds each register of a stored dense HLL to `histogram` (`histogram[value]++`). */
export function denseHistogram(value: string, histogram: Int32Array): void {
  for (let at = HEADER_SIZE; at < DENSE_SIZE; at += 3) {
    const b0 = value.charCodeAt(at)
    const b1 = value.charCodeAt(at + 1)
    const b2 = value.charCodeAt(at + 2)
    histogram[b0 & 63]++
    histogram[((b0 >> 6) | (b1 << 2)) & 63]++
    histogram[((b1 >> 4) | (b2 << 4)) & 63]++
    histogram[b2 >> 2]++
  }
}

/** Raises each `max[i]` to register `i` of a stored dense HLL (`hllMerge`). */
export function denseMergeInto(value: string, max: Uint8Array): void {
  for (let at = HEADER_SIZE, index = 0; at < DENSE_SIZE; at += 3, index += 4) {
    const b0 = value.charCodeAt(at)
    const b1 = value.charCodeAt(at + 1)
    const b2 = value.charCodeAt(at + 2)
    const r0 = b0 & 63
    const r1 = ((b0 >> 6) | (b1 << 2)) & 63
    const r2 = ((b1 >> 4) | (b2 << 4)) & 63
    const r3 = b2 >> 2
    if (r0 > max[index]) max[index] = r0
    if (r1 > max[index + 1]) max[index + 1] = r1
    if (r2 > max[index + 2]) max[index + 2] = r2
    if (r3 > max[index + 3]) max[index + 3] = r3
  }
}

/** Every register of a stored dense HLL, in order (PFDEBUG GETREG). */
export function denseRegisters(value: string): number[] {
  const registers = new Array<number>(REGISTER_COUNT)
  for (let index = 0; index < REGISTER_COUNT; index++) registers[index] = denseRegisterOf(value, index)
  return registers
}
