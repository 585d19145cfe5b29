/**
 * Exact fixed-point arithmetic on BigInts (300 fractional bits), for the constants of the libm
 * ports and for the rare results that double-double arithmetic cannot round with certainty.
 */

export const FRACTION_BITS = 300n
export const FIXED_ONE = 1n << FRACTION_BITS
const float64 = new DataView(new ArrayBuffer(8))

/** A double as a fixed-point BigInt (exact for every double this module meets). */
export function toFixed(x: number): bigint {
  if (x === 0) return 0n
  float64.setFloat64(0, Math.abs(x))
  const high = float64.getUint32(0)
  const low = float64.getUint32(4)
  const biased = high >>> 20
  let mantissa = (BigInt(high & 0xfffff) << 32n) | BigInt(low)
  let exponent: number
  if (biased === 0) exponent = -1074
  else {
    mantissa |= 1n << 52n
    exponent = biased - 1075
  }
  const shift = BigInt(exponent) + FRACTION_BITS
  const value = shift >= 0n ? mantissa << shift : mantissa >> -shift
  return x < 0 ? -value : value
}

/** The double nearest to a fixed-point value (BigInt → Number rounds to nearest, ties to even). */
export function fromFixed(value: bigint): number {
  return Number(value) / 2 ** Number(FRACTION_BITS)
}

export function fixedMul(a: bigint, b: bigint): bigint {
  return (a * b) >> FRACTION_BITS
}

export function fixedSin(x: bigint): bigint {
  const x2 = fixedMul(x, x)
  let term = x
  let sum = x
  for (let k = 1n; term !== 0n; k++) {
    term = -fixedMul(term, x2) / (2n * k * (2n * k + 1n))
    sum += term
  }
  return sum
}

export function fixedCos(x: bigint): bigint {
  const x2 = fixedMul(x, x)
  let term = FIXED_ONE
  let sum = FIXED_ONE
  for (let k = 1n; term !== 0n; k++) {
    term = -fixedMul(term, x2) / ((2n * k - 1n) * (2n * k))
    sum += term
  }
  return sum
}

/** asin by Newton's method on sin, from the double estimate. */
export function fixedAsin(y: bigint, estimate: number): bigint {
  let t = toFixed(estimate)
  for (let i = 0; i < 4; i++) t -= ((fixedSin(t) - y) << FRACTION_BITS) / fixedCos(t)
  return t
}

/** A fixed-point value as a double-double constant. */
export function constant(value: bigint): [number, number] {
  const hi = fromFixed(value)
  return [hi, fromFixed(value - toFixed(hi))]
}

