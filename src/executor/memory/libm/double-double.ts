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

