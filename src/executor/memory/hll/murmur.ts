/**
 * MurmurHash64A (Austin Appleby's MurmurHash2, 64-bit variant), the hash Redis's
 * `hyperloglog.c` applies to every PFADD element, in its endian-neutral form: the input is read
 * as little-endian 64-bit words.
 *
 * 64-bit arithmetic runs on two 32-bit halves (a BigInt version is several times slower, and
 * PFADD hashes every element it is given). Halves travel through Int32Array scratch slots, not
 * variables, so that no intermediate is boxed: hashing allocates nothing.
 */

/** The multiplier `m = 0xc6a4a7935bd1e995`, as halves; the low half also as 16-bit limbs. */
const M_HI = 0xc6a4a793
const M_LO = 0x5bd1e995
const M_LO_0 = M_LO & 0xffff
const M_LO_1 = M_LO >>> 16

const HI = 0
const LO = 1

/** Product of the last {@link multiplyByM} call: `[high, low]` 32-bit halves. */
const product = new Int32Array(2)

/** The last hash {@link murmurHash64A} computed: `[high, low]` 32-bit halves (read them `>>> 0`). */
export const hash64 = new Int32Array(2)

/**
 * `(hi:lo) * m mod 2^64` into {@link product}. The low halves' full 64-bit product is built from
 * 16-bit limbs (every partial product is exact in a double); the cross terms only matter modulo
 * 2^32, which `Math.imul` gives.
 */
function multiplyByM(hi: number, lo: number): void {
  const lo0 = lo & 0xffff
  const lo1 = lo >>> 16
  const p00 = lo0 * M_LO_0
  const p01 = lo0 * M_LO_1
  const p10 = lo1 * M_LO_0
  const p11 = lo1 * M_LO_1
  const middle = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff)
  product[LO] = ((middle & 0xffff) << 16) | (p00 & 0xffff)
  product[HI] = p11 + (p01 >>> 16) + (p10 >>> 16) + (middle >>> 16) + Math.imul(hi, M_LO) + Math.imul(lo, M_HI)
}

/**
 * MurmurHash64A of `bytes` (a binary string, one char per byte) with a 32-bit `seed`; the
 * 64-bit result is left in {@link hash64}.
 */
export function murmurHash64A(bytes: string, seed: number): void {
  const length = bytes.length
  // h = seed ^ (len * m)
  multiplyByM(0, length)
  let hHi = product[HI]
  let hLo = product[LO] ^ seed
  const wordsEnd = length - (length & 7)
  for (let i = 0; i < wordsEnd; i += 8) {
    const kLo = bytes.charCodeAt(i) | (bytes.charCodeAt(i + 1) << 8) | (bytes.charCodeAt(i + 2) << 16) | (bytes.charCodeAt(i + 3) << 24)
    const kHi = bytes.charCodeAt(i + 4) | (bytes.charCodeAt(i + 5) << 8) | (bytes.charCodeAt(i + 6) << 16) | (bytes.charCodeAt(i + 7) << 24)
    // k *= m; k ^= k >> 47; k *= m
    multiplyByM(kHi, kLo)
    multiplyByM(product[HI], product[LO] ^ (product[HI] >>> 15))
    // h ^= k; h *= m
    multiplyByM(hHi ^ product[HI], hLo ^ product[LO])
    hHi = product[HI]
    hLo = product[LO]
  }
  const tail = length & 7
  if (tail !== 0) {
    // The C switch falls through from `len & 7` down to 1; bytes 4..6 go to the high half.
    let tailHi = 0
    let tailLo = 0
    if (tail >= 7) tailHi |= bytes.charCodeAt(wordsEnd + 6) << 16
    if (tail >= 6) tailHi |= bytes.charCodeAt(wordsEnd + 5) << 8
    if (tail >= 5) tailHi |= bytes.charCodeAt(wordsEnd + 4)
    if (tail >= 4) tailLo |= bytes.charCodeAt(wordsEnd + 3) << 24
    if (tail >= 3) tailLo |= bytes.charCodeAt(wordsEnd + 2) << 16
    if (tail >= 2) tailLo |= bytes.charCodeAt(wordsEnd + 1) << 8
    tailLo |= bytes.charCodeAt(wordsEnd)
    multiplyByM(hHi ^ tailHi, hLo ^ tailLo)
    hHi = product[HI]
    hLo = product[LO]
  }
  // h ^= h >> 47; h *= m; h ^= h >> 47
  multiplyByM(hHi, hLo ^ (hHi >>> 15))
  hash64[HI] = product[HI]
  hash64[LO] = product[LO] ^ (product[HI] >>> 15)
}
