/**
 * HyperLogLog estimates compared with redis-server at cardinalities 1 to 1,000,000: PFADD in
 * batches (up to 10,000 elements per command, so a million elements are 100 round trips), then
 * PFCOUNT and the exact bytes (GET) before and after the cache is written, and one HLL grown
 * through the whole range with PFCOUNT at every step of about 25%. Elements mix decimal strings of
 * every length, prefixed strings and binary values.
 */
import type { Command } from '../../src/reply.js'
import type { DiffCase } from './harness.js'
import { binaryElements, elements, pfaddBatches } from './hyperloglog.values.js'

const CARDINALITIES = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000]

/** Fills `key` with `count` elements, then compares PFCOUNT and the bytes. */
function cardinalityCase(count: number): DiffCase {
  const key = `card${count}`
  const batch = Math.min(count, 10_000)
  return {
    name: `PFCOUNT after ${count.toLocaleString('en')} distinct elements`,
    commands: [
      ...pfaddBatches(key, elements('', 0, count), batch),
      ['GET', key],
      ['PFCOUNT', key],
      ['GET', key],
      ['PFDEBUG', 'ENCODING', key],
      // Adding the same elements again changes no register.
      ['PFADD', key, ...elements('', 0, Math.min(count, 1000))],
      ['PFCOUNT', key],
    ],
  }
}

/** Cardinalities from 1 to 1,000,000, each about 25% above the last. */
const CHECKPOINTS: readonly number[] = (() => {
  const out: number[] = []
  for (let n = 1; n < 1_000_000; n = Math.max(n + 1, Math.round(n * 1.25))) out.push(n)
  return [...out, 1_000_000]
})()

/**
 * One HLL grown from 1 to 1,000,000 elements, PFCOUNT and the bytes compared at every checkpoint:
 * the estimate is checked all along the range (sparse, the promotion, dense), not only at powers
 * of ten.
 */
function growingCase(): DiffCase {
  const commands: Command[] = []
  let added = 0
  for (const target of CHECKPOINTS) {
    commands.push(...pfaddBatches('grow', elements('c:', added, target - added), 10_000), ['PFCOUNT', 'grow'], ['GET', 'grow'])
    added = target
  }
  return { name: `PFCOUNT as one HLL grows from 1 to 1,000,000 elements, at ${CHECKPOINTS.length} checkpoints about 25% apart`, commands }
}

/** HLLs of several sizes and encodings, counted together and merged. */
function unionCase(): DiffCase {
  const sizes = [5, 500, 2_500, 20_000]
  const fills: Command[] = sizes.flatMap((size, n) => pfaddBatches(`u${n}`, elements(`u${n}:`, 0, size), 10_000))
  const binary = binaryElements(99, 3_000, 40)
  return {
    name: 'PFCOUNT and PFMERGE of sparse and dense HLLs of several sizes',
    commands: [
      ...fills,
      ['PFADD', 'bin', ...binary],
      ['PFCOUNT', 'bin'],
      ['PFCOUNT', 'u0', 'u1'],
      ['PFCOUNT', 'u1', 'u2'],
      ['PFCOUNT', 'u0', 'u1', 'u2', 'u3', 'bin'],
      ['PFMERGE', 'm1', 'u0', 'u1'],
      ['GET', 'm1'],
      ['PFMERGE', 'm2', 'u1', 'u2', 'bin'],
      ['GET', 'm2'],
      ['PFMERGE', 'm3', 'u3', 'u0'],
      ['GET', 'm3'],
      ['PFMERGE', 'u1', 'u2'],
      ['GET', 'u1'],
      ['PFCOUNT', 'm1'],
      ['PFCOUNT', 'm2'],
      ['PFCOUNT', 'm3'],
      ['PFCOUNT', 'u1'],
    ],
  }
}

export const hyperLogLogCardinalityCases: DiffCase[] = [...CARDINALITIES.map(cardinalityCase), growingCase(), unionCase()]
