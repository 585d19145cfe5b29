import { expect, test } from 'vitest'
import type { Command } from '../../src/reply.js'
import { describeDifferential, runDifferential, runSequence } from './harness.js'
import { hyperLogLogCases } from './hyperloglog.cases.js'
import { hyperLogLogCardinalityCases } from './hyperloglog.cardinality.cases.js'
import { elements, pfaddBatches } from './hyperloglog.values.js'

runDifferential('hyperloglog', hyperLogLogCases)
runDifferential('hyperloglog cardinality', hyperLogLogCardinalityCases)

/**
 * HLLs written by redis-server alone, read by the engine. The cases above build every value on
 * both sides, so they show the engine writes Redis's bytes; here each value is built on
 * redis-server only, read back with GET and SET into the engine, and then both sides read and
 * extend the same bytes, every reply compared.
 */
const REDIS_WRITTEN: readonly { readonly what: string; readonly build: readonly Command[] }[] = [
  { what: 'an empty sparse HLL', build: [['PFADD', 'k']] },
  { what: 'a sparse HLL with a valid cache', build: [['PFADD', 'k', ...elements('r', 0, 200)], ['PFCOUNT', 'k']] },
  { what: 'a large sparse HLL (1,200 elements, still below hll-sparse-max-bytes)', build: pfaddBatches('k', elements('r', 0, 1200), 100) },
  { what: 'a dense HLL promoted by PFADD', build: pfaddBatches('k', elements('r', 0, 20_000), 10_000) },
  { what: 'a dense HLL made by PFDEBUG TODENSE', build: [['PFADD', 'k', 'a', 'b', 'c'], ['PFDEBUG', 'TODENSE', 'k']] },
  {
    what: 'a dense HLL merged from a sparse and a dense one',
    build: [['PFADD', 'a', ...elements('a', 0, 300)], ...pfaddBatches('b', elements('b', 0, 5000), 5000), ['PFMERGE', 'k', 'a', 'b']],
  },
  { what: 'a dense HLL of 1,000,000 elements with a valid cache', build: [...pfaddBatches('k', elements('', 0, 1_000_000), 10_000), ['PFCOUNT', 'k']] },
]

describeDifferential('hyperloglog values written by redis-server', (live) => {
  for (const { what, build } of REDIS_WRITTEN) {
    test(`${what}: GET from redis-server, SET into the engine, then read and extended alike`, async () => {
      for (const command of build) await live.redis.exec(command)
      const bytes = await live.redis.exec(['GET', 'k'])
      expect(bytes).toBeInstanceOf(Uint8Array)
      await live.memory.exec(['SET', 'k', bytes as Uint8Array])
      const difference = await runSequence(live.memory, live.redis, [
        ['GET', 'k'],
        ['PFDEBUG', 'ENCODING', 'k'],
        ['PFCOUNT', 'k'],
        ['GET', 'k'],
        ['PFCOUNT', 'k', 'nokey'],
        ['PFDEBUG', 'GETREG', 'k'],
        ['PFADD', 'k', ...elements('x', 0, 50)],
        ['GET', 'k'],
        ['PFCOUNT', 'k'],
        ['PFMERGE', 'm', 'k'],
        ['GET', 'm'],
        ['PFADD', 'k', ...elements('y', 0, 5000)],
        ['GET', 'k'],
        ['PFCOUNT', 'k'],
      ])
      expect(difference, difference ?? '').toBeNull()
    })
  }
})
