import { afterEach, describe, expect, test } from 'vitest'
import { Engine } from '../../../src/executor/memory/engine.js'
import { heapFlagsInForce } from '../../../src/executor/memory/heap-growth.js'

/**
 * V8's heap growth follows the engines' memory limits: bounded while one has a maxmemory, V8's
 * defaults otherwise (what it does to the RSS is measured
 * by bench/memory-bound.mjs, docs/benchmarks.md).
 */

const engines: Engine[] = []
afterEach(() => {
  for (const engine of engines.splice(0)) engine.close()
})

function engine(maxmemory?: number): Engine {
  const created = new Engine({ activeExpiryInterval: 0, maxmemory })
  engines.push(created)
  return created
}

describe('heap growth under maxmemory', () => {
  test('set while any engine has a limit, from the constructor or CONFIG SET; restored when none has', () => {
    const unlimited = engine()
    expect(heapFlagsInForce()).toEqual([])
    const limited = engine(100 * 1024 * 1024)
    expect(heapFlagsInForce()).toEqual(['--heap-growing-percent=20'])
    const session = unlimited.createSession()
    unlimited.call(session, ['CONFIG', 'SET', 'maxmemory', '10mb'])
    // The engine reads its memory settings at its next command.
    unlimited.call(session, ['PING'])
    limited.close()
    expect(heapFlagsInForce()).toEqual(['--heap-growing-percent=20'])
    unlimited.call(session, ['CONFIG', 'SET', 'maxmemory', '0'])
    unlimited.call(session, ['PING'])
    expect(heapFlagsInForce()).toEqual([])
  })
})
