/**
 * HyperLogLog behaviour beyond the live comparison: MurmurHash64A against a BigInt transcription,
 * the sparse encoding against a plain register model (random writes, promotions), the 64-bit
 * cache and reply conversions at their extremes, PFSELFTEST's checks, expiry with an injected
 * clock, and transactions.
 */
import { afterEach, describe, expect, test } from 'vitest'
import fc from 'fast-check'
import type { Reply } from '../../../src/reply.js'
import { closeEngines, currentEngine, marked } from '../../support/engine.js'
import { murmurHash64A, hash64 } from '../../../src/executor/memory/hll/murmur.js'
import { HllBuffer } from '../../../src/executor/memory/hll/buffer.js'
import { denseRegister, denseRegisterOf, denseSet } from '../../../src/executor/memory/hll/dense.js'
import { estimateRegisters, estimateValue } from '../../../src/executor/memory/hll/estimator.js'
import {
  DENSE,
  DENSE_SIZE,
  EMPTY_HLL,
  REGISTER_COUNT,
  SPARSE,
  cachedCardinality,
  cardinalityBytes,
  cardinalityReply,
  hashElement,
  pattern,
} from '../../../src/executor/memory/hll/format.js'
import { sparseHistogram, sparseSet, sparseToDense } from '../../../src/executor/memory/hll/sparse.js'
import { runSelfTest } from '../../../src/executor/memory/hll/selftest.js'

/** The executor of the running test: `start()` makes a fresh one on a clock at 1_000_000 (`current.now`). */
const current = currentEngine({ start: 1_000_000, render: marked })
const { start, run } = current

afterEach(closeEngines)

const M = 0xc6a4a7935bd1e995n
const MASK = (1n << 64n) - 1n

/** MurmurHash64A written straight from the C source with BigInt. */
function referenceMurmur(bytes: Uint8Array, seed: number): bigint {
  const length = bytes.length
  let h = (BigInt(seed) ^ (BigInt(length) * M)) & MASK
  const wordsEnd = length - (length & 7)
  for (let i = 0; i < wordsEnd; i += 8) {
    let k = 0n
    for (let j = 7; j >= 0; j--) k = (k << 8n) | BigInt(bytes[i + j])
    k = (k * M) & MASK
    k ^= k >> 47n
    k = (k * M) & MASK
    h ^= k
    h = (h * M) & MASK
  }
  if ((length & 7) !== 0) {
    for (let j = (length & 7) - 1; j >= 0; j--) h ^= BigInt(bytes[wordsEnd + j]) << BigInt(8 * j)
    h = (h * M) & MASK
  }
  h ^= h >> 47n
  h = (h * M) & MASK
  h ^= h >> 47n
  return h
}

const latin1 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('latin1')

describe('hyperloglog: MurmurHash64A and the element pattern', () => {
  test('the 32-bit-halves hash equals a BigInt transcription of the C code', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 70 }), fc.integer({ min: 0, max: 0xffffffff }), (bytes, seed) => {
        murmurHash64A(latin1(bytes), seed)
        const ours = (BigInt(hash64[0] >>> 0) << 32n) | BigInt(hash64[1] >>> 0)
        expect(ours).toBe(referenceMurmur(bytes, seed))
      }),
      { numRuns: 2000 },
    )
  })

  test('the pattern is the low 14 bits and the run of zeros above them, plus one', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 30 }), (bytes) => {
        hashElement(latin1(bytes))
        const hash = referenceMurmur(bytes, 0xadc83b19)
        expect(pattern.index).toBe(Number(hash & 16383n))
        let run = 1
        for (let bit = 14n; bit < 64n && ((hash >> bit) & 1n) === 0n; bit++) run++
        expect(pattern.runLength).toBe(run)
      }),
      { numRuns: 2000 },
    )
  })

  test('a rare element runs 33 zeros deep (found by brute force; Redis sets register 8238 to 33)', () => {
    hashElement('r00041e7c555')
    expect([pattern.index, pattern.runLength]).toEqual([8238, 33])
  })
})

/** A register model next to the sparse encoding: both get the same writes. */
function checkAgainstModel(writes: readonly (readonly [number, number])[], maxBytes: number): void {
  const buffer = HllBuffer.from(EMPTY_HLL)
  const model = new Uint8Array(REGISTER_COUNT)
  for (const [index, count] of writes) {
    const wasSparse = buffer.encoding === SPARSE
    const changed = wasSparse ? sparseSet(buffer, index, count, maxBytes) : denseSet(buffer.bytes, index, count)
    expect(changed).toBe(count > model[index] ? 1 : 0)
    if (count > model[index]) model[index] = count
    if (wasSparse && count > 32) expect(buffer.encoding).toBe(DENSE)
    if (buffer.encoding === SPARSE) {
      expect(buffer.length).toBeLessThanOrEqual(Math.max(maxBytes, EMPTY_HLL.length))
      expect(buffer.bytes[buffer.length]).toBe(0)
    }
  }
  const value = buffer.toString()
  if (buffer.encoding === SPARSE) expect(sparseHistogram(value, new Int32Array(64))).toBe(true)
  const dense = HllBuffer.from(value)
  expect(sparseToDense(dense)).toBe(true)
  const registers = Array.from({ length: REGISTER_COUNT }, (_, index) => denseRegister(dense.bytes, index))
  expect(registers).toEqual(Array.from(model))
  expect(estimateValue(value)).toBe(estimateRegisters(model))
}

describe('hyperloglog: the sparse encoding against a register model', () => {
  const write = (maxIndex: number, maxCount: number) =>
    fc.tuple(fc.integer({ min: 0, max: maxIndex }), fc.integer({ min: 1, max: maxCount })) as fc.Arbitrary<readonly [number, number]>

  test('random writes over a few neighbouring registers (VAL splits and merges)', () => {
    fc.assert(fc.property(fc.array(write(40, 6), { maxLength: 120 }), (writes) => checkAgainstModel(writes, 3000)), { numRuns: 300 })
  })

  test('random writes over every register, across the size promotion', () => {
    fc.assert(fc.property(fc.array(write(16383, 32), { maxLength: 1500 }), (writes) => checkAgainstModel(writes, 3000)), { numRuns: 40 })
  })

  test('small size limits and values above 32 promote to dense', () => {
    fc.assert(
      fc.property(fc.array(write(16383, 51), { maxLength: 60 }), fc.integer({ min: 0, max: 120 }), (writes, maxBytes) => checkAgainstModel(writes, maxBytes)),
      { numRuns: 200 },
    )
  })

  test('the edges of the register range', () => {
    checkAgainstModel([[0, 1], [16383, 2], [1, 1], [16382, 2], [64, 3], [65, 3], [66, 3], [67, 3], [68, 3], [8192, 32], [8191, 33]], 3000)
  })
})

describe('hyperloglog: the cached cardinality and the reply at their extremes', () => {
  test('cache bytes round-trip every estimate below 2^63', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 63n - 1n }), (exact) => {
        const estimate = Number(exact) < 2 ** 63 ? Number(exact) : 2 ** 62
        const value = 'HYLL\x01\0\0\0' + cardinalityBytes(estimate) + '\x7f\xff'
        expect(BigInt(cachedCardinality(value))).toBe(BigInt(estimate))
        expect(BigInt(cardinalityReply(estimate))).toBe(BigInt(estimate))
      }),
    )
  })

  test('2^63 and beyond become 0x8000000000000000: a stale cache and -2^63 as the reply', () => {
    expect(cardinalityBytes(2 ** 63)).toBe('\0\0\0\0\0\0\0\x80')
    expect(cardinalityBytes(Infinity)).toBe('\0\0\0\0\0\0\0\x80')
    expect(cardinalityReply(Infinity)).toBe(-(2n ** 63n))
    expect(cardinalityReply(2 ** 53)).toBe(2n ** 53n)
    expect(cardinalityReply(2 ** 53 - 1)).toBe(2 ** 53 - 1)
  })

  test('an empty HLL estimates 0 in both encodings', () => {
    expect(estimateValue(EMPTY_HLL)).toBe(0)
    expect(estimateValue('HYLL' + '\0'.repeat(DENSE_SIZE - 4))).toBe(0)
    expect(estimateRegisters(new Uint8Array(REGISTER_COUNT))).toBe(0)
  })

  test('dense registers read from the stored string and from bytes agree', () => {
    const buffer = HllBuffer.from('HYLL' + '\0'.repeat(DENSE_SIZE - 4))
    for (let index = 0; index < REGISTER_COUNT; index++) denseSet(buffer.bytes, index, (index * 13) % 64)
    const value = buffer.toString()
    for (let index = 0; index < REGISTER_COUNT; index++) expect(denseRegisterOf(value, index)).toBe((index * 13) % 64)
  })
})

describe('hyperloglog: PFSELFTEST (hyperloglog.c pfselftestCommand, scaled down)', () => {
  test('the checks pass with the default limit, and with none at all', () => {
    expect(runSelfTest(3000)).toBeNull()
    expect(runSelfTest(0)).toBeNull()
  })

  test('a limit too small for one element fails the sparse check, as in Redis', () => {
    expect(runSelfTest(20)).toBe('TESTFAILED sparse encoding not used')
  })
})

describe('hyperloglog: expiry with an injected clock', () => {
  test('an expired HLL counts as missing: PFCOUNT 0, PFADD creates a fresh one without TTL', () => {
    start()
    run('PFADD', 'k', 'a', 'b')
    run('PEXPIRE', 'k', '100')
    current.now += 101
    expect(run('PFCOUNT', 'k')).toBe(0)
    expect(run('PFCOUNT', 'k', 'other')).toBe(0)
    expect(run('PFADD', 'k', 'c')).toBe(1)
    expect(run('PTTL', 'k')).toBe(-1)
    expect(run('PFCOUNT', 'k')).toBe(1)
  })

  test('PFMERGE into an expired destination starts from an empty HLL', () => {
    start()
    run('PFADD', 'd', 'a', 'b', 'c')
    run('PFADD', 's', 'x')
    run('PEXPIRE', 'd', '50')
    current.now += 51
    expect(run('PFMERGE', 'd', 's')).toBe('+OK')
    expect(run('PFCOUNT', 'd')).toBe(1)
    expect(run('PTTL', 'd')).toBe(-1)
  })

  test('PFCOUNT writes its cache without moving the deadline', () => {
    start()
    run('PFADD', 'k', 'a')
    run('PEXPIRE', 'k', '1000')
    current.now += 400
    expect(run('PFCOUNT', 'k')).toBe(1)
    expect(run('PTTL', 'k')).toBe(600)
    expect((run('GET', 'k') as string).charCodeAt(15)).toBe(0)
  })
})

describe('hyperloglog: transactions', () => {
  test('PFADD, PFMERGE and PFCOUNT inside MULTI see each other', async () => {
    start()
    const replies = await current.executor.transaction([
      ['PFADD', 'a', 'x', 'y'],
      ['PFADD', 'b', 'z'],
      ['PFMERGE', 'c', 'a', 'b'],
      ['PFCOUNT', 'c'],
      ['PFCOUNT', 'a', 'b'],
      ['SET', 's', 'text'],
      ['PFADD', 's', 'a'],
      ['PFCOUNT', 'c'],
    ])
    expect((replies as Reply[]).map(marked)).toEqual([1, 1, '+OK', 3, 3, '+OK', '-WRONGTYPE Key is not a valid HyperLogLog string value.', 3])
  })
})
