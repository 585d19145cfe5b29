/**
 * Builders for the HyperLogLog differential cases: HLL byte values in Redis's layout (dense
 * registers, sparse opcodes, header cache), element lists, batched PFADDs, and elements chosen by
 * the register they hash to.
 */
import type { Command } from '../../src/reply.js'
import { hashElement, pattern } from '../../src/executor/memory/hll/format.js'
import { mulberry32 } from './random-source.js'

/** The cached-cardinality field of a header: a value (valid cache) or `stale`. */
export type Cache = bigint | 'stale'

/** The 16-byte header: "HYLL", encoding, three unused bytes (given), cached cardinality. */
export function header(encoding: number, cache: Cache = 'stale', unused: readonly number[] = [0, 0, 0]): number[] {
  const bytes = [0x48, 0x59, 0x4c, 0x4c, encoding, ...unused]
  let card = cache === 'stale' ? 1n << 63n : cache
  for (let i = 0; i < 8; i++, card >>= 8n) bytes.push(Number(card & 0xffn))
  return bytes
}

/** A dense HLL whose register `i` is `register(i)` (0..63). */
export function denseHll(register: (index: number) => number, cache: Cache = 'stale'): Uint8Array {
  const bytes = new Uint8Array(16 + 12288)
  bytes.set(header(0, cache))
  for (let index = 0; index < 16384; index++) {
    const value = register(index)
    const bit = index * 6
    const at = 16 + (bit >> 3)
    const shift = bit & 7
    bytes[at] |= (value << shift) & 0xff
    if (shift > 2) bytes[at + 1] |= value >> (8 - shift)
  }
  return bytes
}

/** Sparse opcodes, as bytes. */
export const zero = (length: number): number[] => [length - 1]
export const xzero = (length: number): number[] => [((length - 1) >> 8) | 0x40, (length - 1) & 0xff]
export const val = (value: number, length: number): number[] => [0x80 | ((value - 1) << 2) | (length - 1)]

/** A sparse HLL made of `opcodes` (which need not be valid). */
export function sparseHll(opcodes: readonly number[][], cache: Cache = 'stale', unused?: readonly number[]): Uint8Array {
  return Uint8Array.from([...header(1, cache, unused), ...opcodes.flat()])
}

/** `count` distinct elements: `prefix` then a decimal number from `from`. */
export function elements(prefix: string, from: number, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix}${from + i}`)
}

/** PFADDs of `items` into `key`, `batch` elements per command. */
export function pfaddBatches(key: string, items: readonly string[], batch: number): Command[] {
  const commands: Command[] = []
  for (let i = 0; i < items.length; i += batch) commands.push(['PFADD', key, ...items.slice(i, i + batch)])
  return commands
}

/** The first element `prefix<n>` whose hash picks a register and run length `accept` takes. */
export function elementWhere(prefix: string, accept: (index: number, runLength: number) => boolean): string {
  for (let n = 0; ; n++) {
    const candidate = `${prefix}${n}`
    hashElement(candidate)
    if (accept(pattern.index, pattern.runLength)) return candidate
  }
}

/** `count` random binary elements of 0..`maxLength` bytes, every murmur tail length included. */
export function binaryElements(seed: number, count: number, maxLength = 24): Uint8Array[] {
  const random = mulberry32(seed)
  return Array.from({ length: count }, (_, i) => Uint8Array.from({ length: i % (maxLength + 1) }, () => Math.floor(random() * 256)))
}
