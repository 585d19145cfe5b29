import { hash64, murmurHash64A } from './murmur.js'

/**
 * The layout of a Redis HyperLogLog value (hyperloglog.c, Redis 7.0), shared by both encodings:
 * a 16-byte header then the registers.
 *
 * ```
 * +------+---+-----+----------+
 * | HYLL | E | N/U | Cardin.  |   magic, encoding (0 dense, 1 sparse), 3 unused bytes,
 * +------+---+-----+----------+   cached cardinality: 64-bit little endian
 * ```
 *
 * The top bit of the cardinality's last byte marks the cache stale: every write sets it, PFCOUNT
 * recomputes and clears it.
 */

/** Register index bits: 2^14 = 16384 registers. */
export const HLL_P = 14
export const REGISTER_COUNT = 1 << HLL_P
const REGISTER_INDEX_MASK = REGISTER_COUNT - 1
/** Hash bits left to count the run of zeros in: a run length is at most HLL_Q + 1 = 51. */
export const HLL_Q = 64 - HLL_P
export const HEADER_SIZE = 16
/** 16384 registers of 6 bits after the header. */
export const DENSE_SIZE = HEADER_SIZE + (REGISTER_COUNT * 6) / 8
export const DENSE = 0
export const SPARSE = 1
/** Offsets inside the header. */
export const ENCODING_OFFSET = 4
export const CARDINALITY_OFFSET = 8
/** The byte holding the stale-cache flag (its top bit). */
export const CACHE_FLAG_OFFSET = 15
export const STALE_CACHE = 0x80

/** The seed Redis hashes PFADD elements with. */
const HASH_SEED = 0xadc83b19

/**
 * A new HLL as `createHLLObject` makes it: sparse, every register in one XZERO:16384 opcode,
 * cached cardinality 0 (valid).
 */
export const EMPTY_HLL = 'HYLL\x01\0\0\0' + '\0'.repeat(8) + '\x7f\xff'

/**
 * Redis's `isHLLObjectOrReply` test for a string value: at least a header, the magic "HYLL", a
 * known encoding, and exactly {@link DENSE_SIZE} bytes when dense. Sparse payloads are checked
 * only when read (a corrupted one gives INVALIDOBJ then).
 */
export function isHyperLogLog(value: string): boolean {
  if (value.length < HEADER_SIZE) return false
  if (value.charCodeAt(0) !== 0x48 || value.charCodeAt(1) !== 0x59 || value.charCodeAt(2) !== 0x4c || value.charCodeAt(3) !== 0x4c) return false
  const encoding = value.charCodeAt(ENCODING_OFFSET)
  if (encoding > SPARSE) return false
  return encoding !== DENSE || value.length === DENSE_SIZE
}

/** True when the cached cardinality of a valid HLL value can be returned as is. */
export function hasValidCache(value: string): boolean {
  return (value.charCodeAt(CACHE_FLAG_OFFSET) & STALE_CACHE) === 0
}

/** The cached cardinality (valid cache: below 2^63), a number when safe, else a bigint. */
export function cachedCardinality(value: string): number | bigint {
  let low = 0
  let high = 0
  for (let i = 3; i >= 0; i--) {
    low = low * 256 + value.charCodeAt(CARDINALITY_OFFSET + i)
    high = high * 256 + value.charCodeAt(CARDINALITY_OFFSET + 4 + i)
  }
  if (high < 2 ** 21) return high * 2 ** 32 + low
  return (BigInt(high) << 32n) | BigInt(low)
}

/**
 * The eight cache bytes for an estimate (see `estimator.ts`): its unsigned 64-bit value, where an
 * estimate of 2^63 or more stands for the 0x8000000000000000 the C conversion produces (which
 * also reads as a stale cache).
 */
export function cardinalityBytes(estimate: number): string {
  if (!(estimate < 2 ** 63)) return '\0\0\0\0\0\0\0\x80'
  let low = estimate % 2 ** 32
  let high = Math.floor(estimate / 2 ** 32)
  let bytes = ''
  for (let i = 0; i < 4; i++, low = Math.floor(low / 256)) bytes += String.fromCharCode(low % 256)
  for (let i = 0; i < 4; i++, high = Math.floor(high / 256)) bytes += String.fromCharCode(high % 256)
  return bytes
}

/**
 * An estimate as PFCOUNT replies it: Redis writes the unsigned value as a signed 64-bit integer,
 * so 2^63 and beyond (reachable only with hand-made dense values) reads -9223372036854775808.
 */
export function cardinalityReply(estimate: number): number | bigint {
  if (!(estimate < 2 ** 63)) return -(2n ** 63n)
  return estimate <= Number.MAX_SAFE_INTEGER ? estimate : BigInt(estimate)
}

/** What `hllPatLen` derives from an element's hash, left by {@link hashElement}. */
export const pattern = {
  /** The register the element maps to: the low 14 bits of the hash. */
  index: 0,
  /** One plus the number of zeros before the first 1 in the remaining 50 bits (1..51). */
  runLength: 0,
}

/**
 * Hashes `element` (a binary string) into {@link pattern}: register index and run length. The
 * 50 bits above the index are searched from their lowest bit; a sentinel bit at position 50
 * caps the run at HLL_Q + 1 = 51, as Redis's `hash |= 1 << HLL_Q` does.
 */
export function hashElement(element: string): void {
  murmurHash64A(element, HASH_SEED)
  const high = hash64[0]
  const low = hash64[1]
  pattern.index = low & REGISTER_INDEX_MASK
  // Bits 14..45 of the hash, then bits 46..63.
  const middle = (low >>> HLL_P) | (high << (32 - HLL_P))
  if (middle !== 0) {
    pattern.runLength = 32 - Math.clz32(middle & -middle)
    return
  }
  const top = high >>> HLL_P
  pattern.runLength = top !== 0 ? 32 + 32 - Math.clz32(top & -top) : HLL_Q + 1
}
