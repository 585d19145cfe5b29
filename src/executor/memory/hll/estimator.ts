import { denseHistogram } from './dense.js'
import { DENSE, ENCODING_OFFSET, HLL_Q, REGISTER_COUNT } from './format.js'
import { sparseHistogram } from './sparse.js'

/**
 * The cardinality estimate of Redis 7.0's `hllCount`: Otmar Ertl's "improved raw estimator"
 * ("New cardinality estimation algorithms for HyperLogLog sketches", arXiv:1702.01284), computed
 * from the histogram of register values in the same order of double operations as the C code,
 * so PFCOUNT gives the same integer.
 */

/** 0.5 / ln(2), Redis's HLL_ALPHA_INF. */
const ALPHA_INF = 0.721347520444481703680

/** Register values (0..63) to how many registers hold them; reused by every count. */
const histogram = new Int32Array(64)

/**
 * The estimate for a stored HLL value (`hllCount` on a dense or sparse HLL), or null when its
 * sparse opcodes do not cover exactly 16384 registers (corrupted).
 */
export function estimateValue(value: string): number | null {
  histogram.fill(0)
  if (value.charCodeAt(ENCODING_OFFSET) === DENSE) denseHistogram(value, histogram)
  else if (!sparseHistogram(value, histogram)) return null
  return estimate(histogram)
}

/** The estimate for plain registers, one byte each (`hllCount` on Redis's internal HLL_RAW). */
export function estimateRegisters(registers: Uint8Array): number {
  histogram.fill(0)
  for (let i = 0; i < registers.length; i++) histogram[registers[i]]++
  return estimate(histogram)
}

/** Ertl's sigma function (`hllSigma`), for the share of zero registers. */
function sigma(x: number): number {
  if (x === 1) return Infinity
  let y = 1
  let z = x
  let previous: number
  do {
    x *= x
    previous = z
    z += x * y
    y += y
  } while (previous !== z)
  return z
}

/**
 * Ertl's tau function (`hllTau`), for the share of registers below the maximum. The C code's
 * `pow(1 - x, 2)` is compiled to a multiplication, which this mirrors.
 */
function tau(x: number): number {
  if (x === 0 || x === 1) return 0
  let y = 1
  let z = 1 - x
  let previous: number
  do {
    x = Math.sqrt(x)
    previous = z
    y *= 0.5
    const complement = 1 - x
    z -= complement * complement * y
  } while (previous !== z)
  return z / 3
}

/**
 * The estimate for a register histogram, as the double `hllCount` holds before its conversion
 * to an unsigned 64-bit integer: `llroundl` of the raw estimate (halves away from zero), which
 * is Infinity or at least 2^63 only for hand-made registers (see `format.ts` for what that
 * becomes).
 */
function estimate(histogram: Int32Array): number {
  const m = REGISTER_COUNT
  let z = m * tau((m - histogram[HLL_Q + 1]) / m)
  for (let j = HLL_Q; j >= 1; --j) {
    z += histogram[j]
    z *= 0.5
  }
  z += m * sigma(histogram[0] / m)
  return roundHalfAway((ALPHA_INF * m * m) / z)
}

/** C's `llroundl` on a non-negative double: doubles of 2^52 and above are already integers. */
function roundHalfAway(value: number): number {
  if (!(value < 2 ** 52)) return value
  const floor = Math.floor(value)
  return value - floor >= 0.5 ? floor + 1 : floor
}
