/**
 * Double-double arithmetic (Dekker, Knuth; the QD library's algorithms): a value is `hi + lo`
 * with |lo| ≤ ulp(hi)/2, about 106 bits. Operations leave their result in {@link result}.
 */

/** Veltkamp's splitter for doubles: 2^27 + 1. */
const SPLITTER = 134217729

/**
 * Where operations leave their double-double result `hi + lo` (|lo| ≤ ulp(hi) / 2): a typed
 * array, because doubles stored in module variables would be boxed on every write.
 */
export const result = new Float64Array(2)

export function twoSum(a: number, b: number): void {
  const s = a + b
  const bb = s - a
  result[1] = a - (s - bb) + (b - bb)
  result[0] = s
}

export function quickTwoSum(a: number, b: number): void {
  const s = a + b
  result[1] = b - (s - a)
  result[0] = s
}

/** a × b exactly, as hi + lo. */
export function twoProd(a: number, b: number): void {
  const p = a * b
  let c = SPLITTER * a
  const ah = c - (c - a)
  const al = a - ah
  c = SPLITTER * b
  const bh = c - (c - b)
  const bl = b - bh
  result[1] = ah * bh - p + ah * bl + al * bh + al * bl
  result[0] = p
}

export function ddAdd(aHi: number, aLo: number, bHi: number, bLo: number): void {
  twoSum(aHi, bHi)
  const sHi = result[0]
  const sLo = result[1] + aLo + bLo
  quickTwoSum(sHi, sLo)
}

export function ddMul(aHi: number, aLo: number, bHi: number, bLo: number): void {
  twoProd(aHi, bHi)
  const pHi = result[0]
  const pLo = result[1] + (aHi * bLo + aLo * bHi)
  quickTwoSum(pHi, pLo)
}

/** a / b with three quotient terms (the "accurate" division of the QD library). */
export function ddDiv(aHi: number, aLo: number, bHi: number, bLo: number): void {
  const q1 = aHi / bHi
  ddMul(bHi, bLo, q1, 0)
  ddAdd(aHi, aLo, -result[0], -result[1])
  const remainderHi = result[0]
  const remainderLo = result[1]
  const q2 = remainderHi / bHi
  ddMul(bHi, bLo, q2, 0)
  ddAdd(remainderHi, remainderLo, -result[0], -result[1])
  const q3 = result[0] / bHi
  quickTwoSum(q1, q2)
  ddAdd(result[0], result[1], q3, 0)
}


const float64 = new DataView(new ArrayBuffer(8))

/** A finite double as `[mantissa, exponent]` with value mantissa × 2^exponent (mantissa a BigInt). */
function decompose(x: number): [bigint, number] {
  float64.setFloat64(0, x)
  const high = float64.getUint32(0)
  const biased = (high >>> 20) & 0x7ff
  let mantissa = (BigInt(high & 0xfffff) << 32n) | BigInt(float64.getUint32(4))
  let exponent = -1074
  if (biased !== 0) {
    mantissa |= 1n << 52n
    exponent = biased - 1075
  }
  return [x < 0 ? -mantissa : mantissa, exponent]
}

/** a × b + c computed exactly, rounded to nearest (ties to even). */
function exactFma(a: number, b: number, c: number): number {
  const [ma, ea] = decompose(a)
  const [mb, eb] = decompose(b)
  const [mc, ec] = decompose(c)
  const productExponent = ea + eb
  const low = Math.min(productExponent, ec)
  let sum = ((ma * mb) << BigInt(productExponent - low)) + (mc << BigInt(ec - low))
  if (sum === 0n) return 0
  const negative = sum < 0n
  if (negative) sum = -sum
  // Keep 60 bits and a sticky bit for the rest, so that Number() rounds as the full value would.
  let exponent = low
  const excess = sum.toString(2).length - 60
  if (excess > 0) {
    const rest = sum & ((1n << BigInt(excess)) - 1n)
    sum = (sum >> BigInt(excess)) | (rest === 0n ? 0n : 1n)
    exponent += excess
  }
  let value = Number(sum)
  while (exponent < -1000) {
    value *= 2 ** -1000
    exponent += 1000
  }
  value *= 2 ** exponent
  return negative ? -value : value
}

/**
 * fma(a, b, c): a × b + c with a single rounding, as the fused multiply-add instruction computes
 * it (glibc's x86-64 libm is built with FMA contraction for CPUs that have it). Exact through
 * error-free transformations; falls back to BigInts when the result is within a hair of a tie.
 */
export function fma(a: number, b: number, c: number): number {
  twoProd(a, b)
  const p = result[0]
  const e = result[1]
  if (c === 0 || p === 0 || !Number.isFinite(p)) return a * b + c
  if (Math.abs(p) < 2 ** -960) return exactFma(a, b, c)
  twoSum(p, c)
  const s = result[0]
  const t = result[1]
  twoSum(t, e)
  const u = result[0]
  const v = result[1]
  twoSum(s, u)
  const r = result[0]
  const r2 = result[1]
  if (v === 0) return r
  // The exact sum is r + r2 + v with |r2| ≤ half an ulp of r and |v| tiny: r is right unless
  // r2 + v reaches half the gap to r's neighbour on that side.
  if (Math.abs(r2) + Math.abs(v) < halfGap(r, r2 + v > 0 === r > 0)) return r
  return exactFma(a, b, c)
}

const scratch = new Float64Array(1)
const words = new Uint32Array(scratch.buffer)

/** Half the gap between a normal |x| and the next double away from zero (or towards zero). */
function halfGap(x: number, away: boolean): number {
  scratch[0] = x
  const high = words[1]
  const biased = (high >>> 20) & 0x7ff
  if (biased <= 54) return 0
  const powerOfTwo = (high & 0xfffff) === 0 && words[0] === 0
  // 2^(biased - 1076), or half that below a power of two, built from its bits.
  words[1] = (biased - 53 - (!away && powerOfTwo ? 1 : 0)) << 20
  words[0] = 0
  return scratch[0]
}
