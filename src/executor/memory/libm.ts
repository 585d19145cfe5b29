/**
 * Correctly rounded `sin`, `cos` and `asin`, for the geo commands.
 *
 * Redis computes distances with glibc's libm, whose sin, cos and asin return the double nearest
 * to the exact result. V8's `Math.sin/cos/asin` (fdlibm) are within one unit in the last place
 * but miss the nearest double for a few percent of inputs, which shows in GEOSEARCHSTORE …
 * STOREDIST scores (stored with 17 digits). So these functions evaluate in double-double
 * arithmetic (about 104 bits) and round once; in the rare case where that is too close to call,
 * they fall back to exact fixed-point arithmetic on BigInts (300 fractional bits).
 */

// ---- double-double arithmetic (Dekker, Knuth) ----

/** Veltkamp's splitter for doubles: 2^27 + 1. */
const SPLITTER = 134217729

/** A double-double `hi + lo` with |lo| ≤ ulp(hi) / 2. Results are written to these two slots. */
let rHi = 0
let rLo = 0

function twoSum(a: number, b: number): void {
  const s = a + b
  const bb = s - a
  rLo = a - (s - bb) + (b - bb)
  rHi = s
}

function quickTwoSum(a: number, b: number): void {
  const s = a + b
  rLo = b - (s - a)
  rHi = s
}

/** a × b exactly, as hi + lo. */
function twoProd(a: number, b: number): void {
  const p = a * b
  let c = SPLITTER * a
  const ah = c - (c - a)
  const al = a - ah
  c = SPLITTER * b
  const bh = c - (c - b)
  const bl = b - bh
  rLo = ah * bh - p + ah * bl + al * bh + al * bl
  rHi = p
}

function ddAdd(aHi: number, aLo: number, bHi: number, bLo: number): void {
  twoSum(aHi, bHi)
  const sHi = rHi
  const sLo = rLo + aLo + bLo
  quickTwoSum(sHi, sLo)
}

function ddMul(aHi: number, aLo: number, bHi: number, bLo: number): void {
  twoProd(aHi, bHi)
  const pHi = rHi
  const pLo = rLo + (aHi * bLo + aLo * bHi)
  quickTwoSum(pHi, pLo)
}

/** a / b with three quotient terms (the "accurate" division of the QD library). */
function ddDiv(aHi: number, aLo: number, bHi: number, bLo: number): void {
  const q1 = aHi / bHi
  ddMul(bHi, bLo, q1, 0)
  ddAdd(aHi, aLo, -rHi, -rLo)
  const remainderHi = rHi
  const remainderLo = rLo
  const q2 = remainderHi / bHi
  ddMul(bHi, bLo, q2, 0)
  ddAdd(remainderHi, remainderLo, -rHi, -rLo)
  const q3 = rHi / bHi
  quickTwoSum(q1, q2)
  ddAdd(rHi, rLo, q3, 0)
}

// ---- exact fixed-point arithmetic for constants and the fallback ----

const FRACTION_BITS = 300n
const FIXED_ONE = 1n << FRACTION_BITS
const float64 = new DataView(new ArrayBuffer(8))

/** A double as a fixed-point BigInt (exact for every double this module meets). */
function toFixed(x: number): bigint {
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
function fromFixed(value: bigint): number {
  return Number(value) / 2 ** Number(FRACTION_BITS)
}

function fixedMul(a: bigint, b: bigint): bigint {
  return (a * b) >> FRACTION_BITS
}

function fixedSin(x: bigint): bigint {
  const x2 = fixedMul(x, x)
  let term = x
  let sum = x
  for (let k = 1n; term !== 0n; k++) {
    term = -fixedMul(term, x2) / (2n * k * (2n * k + 1n))
    sum += term
  }
  return sum
}

function fixedCos(x: bigint): bigint {
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
function fixedAsin(y: bigint, estimate: number): bigint {
  let t = toFixed(estimate)
  for (let i = 0; i < 4; i++) t -= ((fixedSin(t) - y) << FRACTION_BITS) / fixedCos(t)
  return t
}

/** A fixed-point value as a double-double constant. */
function constant(value: bigint): [number, number] {
  const hi = fromFixed(value)
  return [hi, fromFixed(value - toFixed(hi))]
}

/** π/2 in three parts, for argument reduction. */
const HALF_PI_FIXED = (() => {
  // π = 16 atan(1/5) - 4 atan(1/239) (Machin), in fixed point.
  const atanInverse = (n: bigint): bigint => {
    let term = FIXED_ONE / n
    let sum = term
    const n2 = n * n
    for (let k = 1n; term !== 0n; k++) {
      term = -term / n2
      sum += term / (2n * k + 1n)
    }
    return sum
  }
  return (16n * atanInverse(5n) - 4n * atanInverse(239n)) / 2n
})()
const HALF_PI_1 = fromFixed(HALF_PI_FIXED)
const HALF_PI_2 = fromFixed(HALF_PI_FIXED - toFixed(HALF_PI_1))
const HALF_PI_3 = fromFixed(HALF_PI_FIXED - toFixed(HALF_PI_1) - toFixed(HALF_PI_2))

/** Taylor coefficients (-1)^k / (2k+1)! and (-1)^k / (2k)!, k = 0.., exactly as double-doubles. */
const SIN_TERMS: [number, number][] = []
const COS_TERMS: [number, number][] = [[1, 0]]
{
  let factorial = 1n
  for (let n = 1n; n <= 28n; n++) {
    factorial *= n
    const coefficient = (n % 4n === 2n || n % 4n === 3n ? -FIXED_ONE : FIXED_ONE) / factorial
    if (n % 2n === 1n) SIN_TERMS.push(constant(coefficient))
    else COS_TERMS.push(constant(coefficient))
  }
}
/**
 * How many leading Taylor terms are summed in double-double; the rest (at most 2^-21 of the
 * result for |r| ≤ π/4) is summed in plain doubles, which bounds the relative error of the
 * result by about 2^-71 (sin) and 2^-74 (cos).
 */
const EXACT_TERMS = 4
const SIN_TAIL = SIN_TERMS.slice(EXACT_TERMS).map(([hi]) => hi)
const COS_TAIL = COS_TERMS.slice(EXACT_TERMS + 1).map(([hi]) => hi)

/** Σ tail[i]·x^i by Horner, in doubles. */
function tailSum(tail: readonly number[], x: number): number {
  let sum = tail[tail.length - 1]
  for (let i = tail.length - 2; i >= 0; i--) sum = sum * x + tail[i]
  return sum
}

/** sin(r) for a reduced argument |r| ≤ π/4 given as a double-double, into `rHi`/`rLo`. */
function sinReduced(r: number, rl: number): void {
  ddMul(r, rl, r, rl)
  const r2 = rHi
  const r2l = rLo
  // Σ c_k·r2^k for k ≥ EXACT_TERMS in doubles, then the leading terms in double-double.
  let sumHi = r2 * tailSum(SIN_TAIL, r2)
  let sumLo = 0
  for (let k = EXACT_TERMS - 1; k >= 1; k--) {
    ddAdd(sumHi, sumLo, SIN_TERMS[k][0], SIN_TERMS[k][1])
    ddMul(rHi, rLo, r2, r2l)
    sumHi = rHi
    sumLo = rLo
  }
  // r + r·(r2·S)
  ddMul(sumHi, sumLo, r, rl)
  ddAdd(r, rl, rHi, rLo)
}

/** cos(r) for a reduced argument |r| ≤ π/4 given as a double-double, into `rHi`/`rLo`. */
function cosReduced(r: number, rl: number): void {
  ddMul(r, rl, r, rl)
  const r2 = rHi
  const r2l = rLo
  let sumHi = r2 * tailSum(COS_TAIL, r2)
  let sumLo = 0
  for (let k = EXACT_TERMS; k >= 1; k--) {
    ddAdd(sumHi, sumLo, COS_TERMS[k][0], COS_TERMS[k][1])
    ddMul(rHi, rLo, r2, r2l)
    sumHi = rHi
    sumLo = rLo
  }
  ddAdd(1, 0, sumHi, sumLo)
}

// ---- correctly rounded results ----

const bits = new DataView(new ArrayBuffer(8))

/**
 * The gap between |x| (non-zero, finite) and the next double away from zero (`away`), or the
 * next one towards zero, which is half as far from a power of two.
 */
function gap(x: number, away: boolean): number {
  bits.setFloat64(0, x)
  const high = bits.getUint32(0)
  const biased = (high >>> 20) & 0x7ff
  if (biased <= 1) return 2 ** -1074
  const up = 2 ** (biased - 1075)
  if (away || (high & 0xfffff) !== 0 || bits.getUint32(4) !== 0) return up
  return up / 2
}

/**
 * The double nearest to `hi + lo` (known to within `error`), or NaN when the error could put the
 * exact value on either side of a rounding boundary.
 */
function roundOrGiveUp(hi: number, lo: number, error: number): number {
  quickTwoSum(hi, lo)
  const result = rHi
  const rest = rLo
  if (result === 0) return Math.abs(rest) > error ? NaN : result
  const towardRest = gap(result, rest > 0 === result > 0)
  return Math.abs(Math.abs(rest) - towardRest / 2) <= error ? NaN : result
}

/** Relative error bounds of the evaluations, with margin (see {@link EXACT_TERMS}). */
const SIN_ERROR = 2 ** -68
const COS_ERROR = 2 ** -70

/**
 * Reduces x (|x| ≤ 8) by quadrant, x = k·π/2 + r, leaving r in `reducedHi`/`reducedLo`; returns
 * k. The reduction leaves an absolute error near {@link REDUCTION_ERROR} when k ≠ 0.
 */
let reducedHi = 0
let reducedLo = 0
function reduce(x: number): number {
  const k = Math.round(x / HALF_PI_1)
  if (k === 0) {
    reducedHi = x
    reducedLo = 0
    return 0
  }
  twoProd(k, HALF_PI_1)
  ddAdd(x, 0, -rHi, -rLo)
  const partHi = rHi
  const partLo = rLo
  twoProd(k, HALF_PI_2)
  ddAdd(partHi, partLo, -rHi, -rLo)
  ddAdd(rHi, rLo, -k * HALF_PI_3, 0)
  reducedHi = rHi
  reducedLo = rLo
  return k
}

/** sin(x) (or cos(x) when `cosine`) as a double-double in `rHi`/`rLo`, for |x| ≤ 8. Returns k. */
function evaluate(x: number, cosine: boolean): number {
  const k = reduce(x)
  const quadrant = (((k + (cosine ? 1 : 0)) % 4) + 4) % 4
  // sin(r + q·π/2) = sin r, cos r, -sin r, -cos r for q = 0..3
  if (quadrant === 0 || quadrant === 2) sinReduced(reducedHi, reducedLo)
  else cosReduced(reducedHi, reducedLo)
  if (quadrant >= 2) {
    rHi = -rHi
    rLo = -rLo
  }
  return k
}

/** Absolute error the reduction by π/2 may leave (|x| ≤ 8, π/2 to about 160 bits), with margin. */
const REDUCTION_ERROR = 2 ** -100

/** Beyond this the geo code never needs exact results (the areas are then a single cell). */
const REDUCTION_LIMIT = 8

/** sin(x), correctly rounded. */
export function sin(x: number): number {
  if (!(Math.abs(x) <= REDUCTION_LIMIT) || x === 0) return Math.sin(x)
  const k = evaluate(x, false)
  const error = Math.abs(rHi) * (k === 0 ? SIN_ERROR : COS_ERROR) + (k === 0 ? 0 : REDUCTION_ERROR)
  const result = roundOrGiveUp(rHi, rLo, error)
  return Number.isNaN(result) ? fromFixed(fixedSin(toFixed(x))) : result
}

/** cos(x), correctly rounded. */
export function cos(x: number): number {
  if (!(Math.abs(x) <= REDUCTION_LIMIT)) return Math.cos(x)
  const k = evaluate(x, true)
  const error = Math.abs(rHi) * SIN_ERROR + (k === 0 ? 0 : REDUCTION_ERROR)
  const result = roundOrGiveUp(rHi, rLo, error)
  return Number.isNaN(result) ? fromFixed(fixedCos(toFixed(x))) : result
}

/** asin(y), correctly rounded: one Newton step on sin, in double-double, from Math.asin. */
export function asin(y: number): number {
  const estimate = Math.asin(y)
  if (y === 0 || Math.abs(y) === 1 || Number.isNaN(estimate)) return estimate
  evaluate(estimate, true)
  const cHi = rHi
  const cLo = rLo
  const k = evaluate(estimate, false)
  ddAdd(rHi, rLo, -y, 0)
  ddDiv(rHi, rLo, cHi, cLo)
  ddAdd(estimate, 0, -rHi, -rLo)
  // Newton's error is about e²·tan(t)/2 for a start e away (e ≤ 2 ulp); sin(t) is known to
  // SIN_ERROR relative, which the division by cos(t) magnifies.
  const startError = 4 * gap(estimate, true)
  const error =
    Math.abs(estimate) * COS_ERROR +
    (startError * startError + Math.abs(y) * SIN_ERROR + (k === 0 ? 0 : REDUCTION_ERROR)) / Math.abs(cHi)
  const result = roundOrGiveUp(rHi, rLo, error)
  return Number.isNaN(result) ? fromFixed(fixedAsin(toFixed(y), estimate)) : result
}
