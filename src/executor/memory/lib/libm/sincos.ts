import { fma } from './double-double.js'
import { fixedCos, fixedSin, fromFixed, toFixed } from './fixed.js'

/**
 * `sin` and `cos` computed the way glibc 2.28+ computes them (sysdeps/ieee754/dbl-64/s_sin.c,
 * the IBM Accurate Mathematical Library without its slow paths), so that geo distances come out
 * bit for bit as Redis's. glibc's results are within 0.55 ulp and not always the nearest double;
 * reproducing its algorithm reproduces those cases too, which no correctly rounded (or fdlibm,
 * V8's `Math.sin`) implementation would.
 *
 * On x86-64 CPUs with FMA (every one since 2013, the reference machine included) glibc runs a
 * build of this code compiled with multiply-add contraction (`__sin_fma`); the `fma` calls below
 * are where GCC fuses, found by comparing against glibc on 200,000 inputs. A Redis on a CPU
 * without FMA, or on another architecture, may differ from both in the last bit.
 *
 * Below 0.855469 the argument is split at the nearest multiple of 1/128: sin and cos of that
 * point come from a table (as double-doubles) and a short polynomial handles the rest. Larger
 * arguments are folded onto that range via π/2. The table is computed here (exact arithmetic,
 * then rounded), and may differ from glibc's shipped table in the last bit of a low part, which
 * moves a result only when it sits within ~2^-100 of a rounding boundary.
 *
 * Arguments beyond 105414350 (never met by the geo code) use `Math.sin`/`Math.cos`.
 */

/** A double from its IEEE bits written as C's hexadecimal float `±0x1.<mantissa>p<exponent>`. */
function hexFloat(negative: boolean, mantissa: string, exponent: number): number {
  const value = (1 + parseInt(mantissa, 16) / 16 ** mantissa.length) * 2 ** exponent
  return negative ? -value : value
}

// Taylor coefficients for small arguments (s1 ≈ -1/3!, s2 ≈ 1/5!, …), as glibc rounds them.
const S1 = hexFloat(true, '5555555555555', -3)
const S2 = hexFloat(false, '1111111110ECE', -7)
const S3 = hexFloat(true, 'A01A019DB08B8', -13)
const S4 = hexFloat(false, '71DE27B9A7ED9', -19)
const S5 = hexFloat(true, 'ADDFFC2FCDF59', -26)
/** 1.5 × 2^45: adding it rounds to a multiple of 1/128, whose index is then (u - BIG) × 128. */
const BIG = hexFloat(false, '8000000000000', 45)
/** π/2 as a double-double. */
const HP0 = hexFloat(false, '921FB54442D18', 0)
const HP1 = hexFloat(false, '1A62633145C07', -54)
/** π/2 in four parts for the reduction (`mp1 + mp2 + pp3 + pp4`), and 2/π. */
const MP1 = hexFloat(false, '921FB58000000', 0)
const MP2 = hexFloat(true, 'DDE973C000000', -27)
const PP3 = hexFloat(true, 'CB3B398000000', -55)
const PP4 = hexFloat(true, 'd747f23e32ed7', -83)
const HPINV = hexFloat(false, '45F306DC9C883', -1)
/** 1.5 × 2^52: adding it rounds to an integer. */
const TOINT = hexFloat(false, '8000000000000', 52)
// Polynomials for the remainder after the table point.
const SN3 = -1.66666666666664880952546298448555e-1
const SN5 = 8.33333214285722277379541354343671e-3
const CS2 = 4.99999999999999999999950396842453e-1
const CS4 = -4.16666666666664434524222570944589e-2
const CS6 = 1.38888874007937613028114285595617e-3

/** sin(i/128) and cos(i/128) as double-doubles, i = 0..109: `[sn, ssn, cs, ccs]` per point. */
let table: Float64Array | null = null

function sinCosTable(): Float64Array {
  if (table !== null) return table
  const values = new Float64Array(110 * 4)
  for (let i = 0; i < 110; i++) {
    const x = toFixed(i / 128)
    const sine = fixedSin(x)
    const cosine = fixedCos(x)
    const sn = fromFixed(sine)
    const cs = fromFixed(cosine)
    values[i * 4] = sn
    values[i * 4 + 1] = fromFixed(sine - toFixed(sn))
    values[i * 4 + 2] = cs
    values[i * 4 + 3] = fromFixed(cosine - toFixed(cs))
  }
  return (table = values)
}

/** The high 32 bits of a double, without its sign (the `k` glibc dispatches on). */
const scratch = new Float64Array(1)
const words = new Uint32Array(scratch.buffer)
function magnitudeWord(x: number): number {
  scratch[0] = x
  return words[1] & 0x7fffffff
}

/** `TAYLOR_SIN`: sin(x + dx) for |x| < 0.126. */
function taylorSin(xx: number, x: number, dx: number): number {
  const polynomial = fma(fma(fma(fma(S5, xx, S4), xx, S3), xx, S2), xx, S1)
  const t = fma(fma(polynomial, x, -(0.5 * dx)), xx, dx)
  return x + t
}

/** `do_sin`: sin(x + dx) for |x| < 0.855469. */
function doSin(x: number, dx: number): number {
  const original = x
  if (Math.abs(x) < 0.126) return taylorSin(x * x, x, dx)
  if (x <= 0) dx = -dx
  const u = BIG + Math.abs(x)
  x = Math.abs(x) - (u - BIG)
  const k = (u - BIG) * 512
  const values = sinCosTable()
  const sn = values[k]
  const ssn = values[k + 1]
  const cs = values[k + 2]
  const ccs = values[k + 3]
  const xx = x * x
  const s = x + fma(x * xx, fma(xx, SN5, SN3), dx)
  const c = fma(x, dx, xx * fma(xx, fma(xx, CS6, CS4), CS2))
  const correction = fma(cs, s, fma(-sn, c, fma(s, ccs, ssn)))
  const result = sn + correction
  return original < 0 || Object.is(original, -0) ? -result : result
}

/** `do_cos`: cos(x + dx) for |x| < 0.855469. */
function doCos(x: number, dx: number): number {
  if (x < 0) dx = -dx
  const u = BIG + Math.abs(x)
  x = Math.abs(x) - (u - BIG) + dx
  const k = (u - BIG) * 512
  const values = sinCosTable()
  const sn = values[k]
  const ssn = values[k + 1]
  const cs = values[k + 2]
  const ccs = values[k + 3]
  const xx = x * x
  const s = fma(x * xx, fma(xx, SN5, SN3), x)
  const c = xx * fma(xx, fma(xx, CS6, CS4), CS2)
  const correction = fma(-sn, s, fma(-cs, c, fma(-s, ssn, ccs)))
  return cs + correction
}

/** `reduce_sincos`: x = n·π/2 + (a + da), |a| ≤ π/4; returns n mod 4 and leaves a, da in `reduced`. */
const reduced = new Float64Array(2)
function reduce(x: number): number {
  const t = fma(x, HPINV, TOINT)
  const xn = t - TOINT
  const y = fma(-xn, MP2, fma(-xn, MP1, x))
  const t2 = fma(-xn, PP3, y)
  let db = fma(-xn, PP3, y - t2)
  const b = fma(-xn, PP4, t2)
  db += fma(-xn, PP4, t2 - b)
  reduced[0] = b
  reduced[1] = db
  return xn & 3
}

/** `do_sincos`: sin(a + da) turned by n quarter turns. */
function quadrantSin(a: number, da: number, n: number): number {
  const value = n & 1 ? doCos(a, da) : doSin(a, da)
  return n & 2 ? -value : value
}

/** sin(x) as glibc computes it. */
export function sin(x: number): number {
  const k = magnitudeWord(x)
  if (k < 0x3e500000) return x
  if (k < 0x3feb6000) return doSin(x, 0)
  if (k < 0x400368fd) {
    const value = doCos(HP0 - Math.abs(x), HP1)
    return x < 0 ? -value : value
  }
  if (k < 0x419921fb) {
    const n = reduce(x)
    return quadrantSin(reduced[0], reduced[1], n)
  }
  return Math.sin(x)
}

/** cos(x) as glibc computes it. */
export function cos(x: number): number {
  const k = magnitudeWord(x)
  if (k < 0x3e400000) return 1.0
  if (k < 0x3feb6000) return doCos(x, 0)
  if (k < 0x400368fd) {
    const y = HP0 - Math.abs(x)
    const a = y + HP1
    const da = y - a + HP1
    return doSin(a, da)
  }
  if (k < 0x419921fb) {
    const n = reduce(x)
    return quadrantSin(reduced[0], reduced[1], n + 1)
  }
  return Math.cos(x)
}
