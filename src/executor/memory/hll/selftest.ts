import { HllBuffer } from './buffer.js'
import { denseRegister, denseSet, writeDenseRegister } from './dense.js'
import { estimateValue } from './estimator.js'
import { DENSE_SIZE, EMPTY_HLL, REGISTER_COUNT, SPARSE, hashElement, pattern } from './format.js'
import { sparseSet } from './sparse.js'

/**
 * The checks of PFSELFTEST (`pfselftestCommand` in hyperloglog.c) run on this implementation:
 * dense registers read back what was written without disturbing their neighbours, and a dense
 * and a sparse HLL fed the same elements agree, stay sparse while small, and estimate within six
 * standard errors at every power of ten.
 *
 * Redis runs 1000 register cycles and adds 10 million elements (about a second of C); this runs
 * {@link REGISTER_CYCLES} and {@link ELEMENTS}, so the command blocks the engine for a fraction
 * of a second. The reply is the same: OK, or the error naming the first failed check.
 */
const REGISTER_CYCLES = 20
const ELEMENTS = 100_000

/** Null when every check passes, else Redis's TESTFAILED text for the first failure. */
export function runSelfTest(sparseMaxBytes: number, random: () => number = Math.random): string | null {
  return checkRegisters(random) ?? checkEstimates(sparseMaxBytes, random)
}

function checkRegisters(random: () => number): string | null {
  const dense = HllBuffer.from('\0'.repeat(DENSE_SIZE), 0)
  const expected = new Uint8Array(REGISTER_COUNT)
  for (let cycle = 0; cycle < REGISTER_CYCLES; cycle++) {
    for (let index = 0; index < REGISTER_COUNT; index++) {
      const value = Math.floor(random() * 64)
      expected[index] = value
      writeDenseRegister(dense.bytes, index, value)
    }
    for (let index = 0; index < REGISTER_COUNT; index++) {
      const value = denseRegister(dense.bytes, index)
      if (value !== expected[index]) return `TESTFAILED Register ${index} should be ${expected[index]} but is ${value}`
    }
  }
  return null
}

function checkEstimates(sparseMaxBytes: number, random: () => number): string | null {
  const dense = HllBuffer.from('HYLL' + '\0'.repeat(DENSE_SIZE - 4), 0)
  const sparse = HllBuffer.from(EMPTY_HLL)
  const relativeError = 1.04 / Math.sqrt(REGISTER_COUNT)
  const seedLow = Math.floor(random() * 2 ** 32)
  const seedHigh = String.fromCharCode(...Array.from({ length: 4 }, () => Math.floor(random() * 256)))
  let checkpoint = 1
  for (let j = 1; j <= ELEMENTS; j++) {
    // The element is the 8 little-endian bytes of `j ^ seed`, as in Redis.
    const low = (j ^ seedLow) >>> 0
    hashElement(String.fromCharCode(low & 0xff, (low >>> 8) & 0xff, (low >>> 16) & 0xff, low >>> 24) + seedHigh)
    denseSet(dense.bytes, pattern.index, pattern.runLength)
    if (sparse.encoding === SPARSE) sparseSet(sparse, pattern.index, pattern.runLength, sparseMaxBytes)
    else denseSet(sparse.bytes, pattern.index, pattern.runLength)
    if (j !== checkpoint) continue
    if (j < sparseMaxBytes / 2 && sparse.encoding !== SPARSE) return 'TESTFAILED sparse encoding not used'
    const denseEstimate = estimateValue(dense.toString())
    if (denseEstimate !== estimateValue(sparse.toString())) return 'TESTFAILED dense/sparse disagree'
    const error = Math.abs(checkpoint - (denseEstimate ?? 0))
    // Redis sets the bound at cardinality 10 to 1 explicitly.
    const maxError = j === 10 ? 1 : Math.ceil(relativeError * 6 * checkpoint)
    if (error > maxError) return `TESTFAILED Too big error. card:${checkpoint} abserr:${error}`
    checkpoint *= 10
  }
  return null
}
