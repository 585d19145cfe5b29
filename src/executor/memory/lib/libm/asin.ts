import { ddAdd, ddDiv, ddMul, fma, quickTwoSum, result, twoProd } from './double-double.js'
import { FIXED_ONE, constant, fixedAsin, fromFixed, toFixed } from './fixed.js'

/**
 * `asin` for the geo distance, as close to glibc's (which Redis calls) as can be had without its
 * tables:
 * - |x| < 0.125 (distances up to ~1600 km): glibc's own Taylor polynomial, evaluated as its x86-64
 *   FMA build evaluates it (e_asin.c), hence bit for bit;
 * - beyond: the correctly rounded result. glibc (since 2.34, without its slow exact paths) is
 *   within 0.516 ulp there and differs from it in about 0.1% of inputs; V8's `Math.asin` in
 *   several percent. This starts from `Math.asin`, takes one Newton step on sin in double-double
 *   arithmetic and rounds once; when that cannot be rounded with certainty it falls back to exact
 *   fixed-point arithmetic.
 */

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

/** asin(y), correctly rounded: one Newton step on sin, in double-double, from Math.asin. */
export function asin(y: number): number {
  if (Math.abs(y) < 0.125) return glibcSmallAsin(y)
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

// Taylor coefficients of glibc's asin for |x| < 0.125 (uasncs.h).
const F1 = 1.66666666666664110590506577996662e-1
const F2 = 7.50000000026122686814431784722623e-2
const F3 = 4.46428561421059750978517350006940e-2
const F4 = 3.03821268582119319911193410625235e-2
const F5 = 2.23551211026525610742786300334557e-2
const F6 = 1.81382903404565056280372531963613e-2

/** glibc's asin for |x| < 0.125: x + P(x²)·x³, with the multiply-adds fused as its FMA build fuses them. */
function glibcSmallAsin(x: number): number {
  if (Math.abs(x) < 2 ** -26) return x
  const x2 = x * x
  const polynomial = fma(fma(fma(fma(fma(F6, x2, F5), x2, F4), x2, F3), x2, F2), x2, F1)
  return fma(polynomial, x2 * x, x)
}
