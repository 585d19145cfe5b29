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

/**
 * Where operations leave their double-double result `hi + lo` (|lo| ≤ ulp(hi) / 2): a typed
 * array, because doubles stored in module variables would be boxed on every write.
 */
const result = new Float64Array(2)

function twoSum(a: number, b: number): void {
  const s = a + b
  const bb = s - a
  result[1] = a - (s - bb) + (b - bb)
  result[0] = s
}

function quickTwoSum(a: number, b: number): void {
  const s = a + b
  result[1] = b - (s - a)
  result[0] = s
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
  result[1] = ah * bh - p + ah * bl + al * bh + al * bl
  result[0] = p
}

function ddAdd(aHi: number, aLo: number, bHi: number, bLo: number): void {
  twoSum(aHi, bHi)
  const sHi = result[0]
  const sLo = result[1] + aLo + bLo
  quickTwoSum(sHi, sLo)
}

function ddMul(aHi: number, aLo: number, bHi: number, bLo: number): void {
  twoProd(aHi, bHi)
  const pHi = result[0]
  const pLo = result[1] + (aHi * bLo + aLo * bHi)
  quickTwoSum(pHi, pLo)
}

/** a / b with three quotient terms (the "accurate" division of the QD library). */
function ddDiv(aHi: number, aLo: number, bHi: number, bLo: number): void {
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

/** sin(r) for a reduced argument |r| ≤ π/4 given as a double-double, into `result[0]`/`result[1]`. */
function sinReduced(r: number, rl: number): void {
  ddMul(r, rl, r, rl)
  const r2 = result[0]
  const r2l = result[1]
  // Σ c_k·r2^k for k ≥ EXACT_TERMS in doubles, then the leading terms in double-double.
  let sumHi = r2 * tailSum(SIN_TAIL, r2)
  let sumLo = 0
  for (let k = EXACT_TERMS - 1; k >= 1; k--) {
    ddAdd(sumHi, sumLo, SIN_TERMS[k][0], SIN_TERMS[k][1])
    ddMul(result[0], result[1], r2, r2l)
    sumHi = result[0]
    sumLo = result[1]
  }
  // r + r·(r2·S)
  ddMul(sumHi, sumLo, r, rl)
  ddAdd(r, rl, result[0], result[1])
}

/** cos(r) for a reduced argument |r| ≤ π/4 given as a double-double, into `result[0]`/`result[1]`. */
function cosReduced(r: number, rl: number): void {
  ddMul(r, rl, r, rl)
  const r2 = result[0]
  const r2l = result[1]
  let sumHi = r2 * tailSum(COS_TAIL, r2)
  let sumLo = 0
  for (let k = EXACT_TERMS; k >= 1; k--) {
    ddAdd(sumHi, sumLo, COS_TERMS[k][0], COS_TERMS[k][1])
    ddMul(result[0], result[1], r2, r2l)
    sumHi = result[0]
    sumLo = result[1]
  }
  ddAdd(1, 0, sumHi, sumLo)
}

// ---- correctly rounded results ----

/** A double and its two 32-bit halves (little-endian: `words[1]` holds sign and exponent). */
const scratch = new Float64Array(1)
const words = new Uint32Array(scratch.buffer)

/**
 * The gap between |x| (non-zero, finite) and the next double away from zero (`away`), or the
 * next one towards zero, which is half as far from a power of two.
 */
function gap(x: number, away: boolean): number {
  scratch[0] = x
  const high = words[1]
  const biased = (high >>> 20) & 0x7ff
  if (biased <= 53) return 2 ** (Math.max(biased, 1) - 1075)
  const exactPower = (high & 0xfffff) === 0 && words[0] === 0
  // 2^(biased-1075), built from its bits.
  words[1] = (biased - 52 - (!away && exactPower ? 1 : 0)) << 20
  words[0] = 0
  return scratch[0]
}

/**
 * The double nearest to `hi + lo` (known to within `error`), or NaN when the error could put the
 * exact value on either side of a rounding boundary.
 */
function roundOrGiveUp(hi: number, lo: number, error: number): number {
  quickTwoSum(hi, lo)
  const rounded = result[0]
  const rest = result[1]
  if (rounded === 0) return Math.abs(rest) > error ? NaN : rounded
  const towardRest = gap(rounded, rest > 0 === rounded > 0)
  return Math.abs(Math.abs(rest) - towardRest / 2) <= error ? NaN : rounded
}

/** Relative error bounds of the evaluations, with margin (see {@link EXACT_TERMS}). */
const SIN_ERROR = 2 ** -68
const COS_ERROR = 2 ** -70

/**
 * Reduces x (|x| ≤ 8) by quadrant, x = k·π/2 + r, leaving r in `reduced[0]`/`reduced[1]`; returns
 * k. The reduction leaves an absolute error near {@link REDUCTION_ERROR} when k ≠ 0.
 */
const reduced = new Float64Array(2)
function reduce(x: number): number {
  const k = Math.round(x / HALF_PI_1)
  if (k === 0) {
    reduced[0] = x
    reduced[1] = 0
    return 0
  }
  twoProd(k, HALF_PI_1)
  ddAdd(x, 0, -result[0], -result[1])
  const partHi = result[0]
  const partLo = result[1]
  twoProd(k, HALF_PI_2)
  ddAdd(partHi, partLo, -result[0], -result[1])
  ddAdd(result[0], result[1], -k * HALF_PI_3, 0)
  reduced[0] = result[0]
  reduced[1] = result[1]
  return k
}

/** sin(x) (or cos(x) when `cosine`) as a double-double in `result[0]`/`result[1]`, for |x| ≤ 8. Returns k. */
function evaluate(x: number, cosine: boolean): number {
  const k = reduce(x)
  const quadrant = (((k + (cosine ? 1 : 0)) % 4) + 4) % 4
  // sin(r + q·π/2) = sin r, cos r, -sin r, -cos r for q = 0..3
  if (quadrant === 0 || quadrant === 2) sinReduced(reduced[0], reduced[1])
  else cosReduced(reduced[0], reduced[1])
  if (quadrant >= 2) {
    result[0] = -result[0]
    result[1] = -result[1]
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
  const error = Math.abs(result[0]) * (k === 0 ? SIN_ERROR : COS_ERROR) + (k === 0 ? 0 : REDUCTION_ERROR)
  const rounded = roundOrGiveUp(result[0], result[1], error)
  return Number.isNaN(rounded) ? fromFixed(fixedSin(toFixed(x))) : rounded
}

/** The last argument of {@link cos} and its result: a search calls cos(centre latitude) per point. */
let lastCosine = NaN
const lastCosineResult = new Float64Array(1)

/** cos(x), correctly rounded. */
export function cos(x: number): number {
  if (x === lastCosine) return lastCosineResult[0]
  lastCosineResult[0] = cosine(x)
  lastCosine = x
  return lastCosineResult[0]
}

function cosine(x: number): number {
  if (!(Math.abs(x) <= REDUCTION_LIMIT)) return Math.cos(x)
  const k = evaluate(x, true)
  const error = Math.abs(result[0]) * SIN_ERROR + (k === 0 ? 0 : REDUCTION_ERROR)
  const rounded = roundOrGiveUp(result[0], result[1], error)
  return Number.isNaN(rounded) ? fromFixed(fixedCos(toFixed(x))) : rounded
}

/** asin(y), correctly rounded: one Newton step on sin, in double-double, from Math.asin. */
export function asin(y: number): number {
  const estimate = Math.asin(y)
  if (y === 0 || Math.abs(y) === 1 || Number.isNaN(estimate)) return estimate
  evaluate(estimate, true)
  const cHi = result[0]
  const cLo = result[1]
  const k = evaluate(estimate, false)
  ddAdd(result[0], result[1], -y, 0)
  ddDiv(result[0], result[1], cHi, cLo)
  ddAdd(estimate, 0, -result[0], -result[1])
  // Newton's error is about e²·tan(t)/2 for a start e away (e ≤ 2 ulp); sin(t) is known to
  // SIN_ERROR relative, which the division by cos(t) magnifies.
  const startError = 4 * gap(estimate, true)
  const error =
    Math.abs(estimate) * COS_ERROR +
    (startError * startError + Math.abs(y) * SIN_ERROR + (k === 0 ? 0 : REDUCTION_ERROR)) / Math.abs(cHi)
  const rounded = roundOrGiveUp(result[0], result[1], error)
  return Number.isNaN(rounded) ? fromFixed(fixedAsin(toFixed(y), estimate)) : rounded
}
