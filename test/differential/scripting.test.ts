import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import type { Reply } from '../../src/reply.js'
import { MemoryExecutor } from '../../src/executor/memory/memory-executor.js'
import { SocketExecutor } from '../../src/executor/socket/socket-executor.js'
import { liveSuiteName, redisServerSkipReason, startRedisServer, type RedisServer } from '../support/redis-server.js'
import { runDifferential, showReply } from './harness.js'
import { scriptingCases } from './scripting.cases.js'
import { functionCases } from './scripting.functions.cases.js'
import { libraryCases } from './scripting.libraries.cases.js'

runDifferential('scripting: EVAL, EVALSHA, SCRIPT', scriptingCases)
runDifferential('scripting: Lua libraries', libraryCases)
runDifferential('scripting: FUNCTION, FCALL', functionCases)

/** Libraries of the round trips: a flagged function, a description, a long body (LZF-compressed by Redis). */
const LIBRARIES = [
  "#!lua name=alpha\nredis.register_function('a1', function(keys, args) return {keys[1], args[1]} end)",
  "#!lua name=beta\nredis.register_function{function_name='b1', callback=function() return 'b' end, flags={'no-writes'}, description='beta one'}",
  `#!lua name=gamma\nlocal filler = '${'x'.repeat(400)}'\nredis.register_function('g1', function() return #filler end)`,
]

/** FUNCTION LIST WITHCODE, libraries sorted by name (Redis lists them in hash order). */
async function listing(executor: MemoryExecutor | SocketExecutor): Promise<string[]> {
  const reply = (await executor.exec(['FUNCTION', 'LIST', 'WITHCODE'])) as readonly Reply[]
  return reply.map(showReply).sort()
}

/**
 * FUNCTION DUMP payloads cross between the engine and redis-server: each restores the other's.
 * (The payloads themselves differ: Redis LZF-compresses library code over 20 bytes.)
 */
describe.skipIf(redisServerSkipReason !== undefined)(liveSuiteName('scripting: FUNCTION DUMP / RESTORE across backends'), () => {
  let server: RedisServer
  let redis: SocketExecutor
  let memory: MemoryExecutor
  beforeAll(async () => {
    server = await startRedisServer()
    redis = new SocketExecutor({ url: server.url })
    memory = new MemoryExecutor()
  })
  afterAll(async () => {
    await memory?.close()
    await redis?.close()
    await server?.stop()
  })
  beforeEach(async () => {
    await Promise.all([memory.exec(['FUNCTION', 'FLUSH']), redis.exec(['FUNCTION', 'FLUSH'])])
  })

  for (const [from, to] of [['redis', 'memory'], ['memory', 'redis']] as const) {
    test(`a ${from} dump restores into ${to}, and its functions run`, async () => {
      const source = from === 'redis' ? redis : memory
      const target = to === 'redis' ? redis : memory
      for (const code of LIBRARIES) expect(await source.exec(['FUNCTION', 'LOAD', code])).toBeInstanceOf(Buffer)
      const payload = (await source.exec(['FUNCTION', 'DUMP'])) as Uint8Array
      expect(showReply(await target.exec(['FUNCTION', 'RESTORE', payload]))).toBe('+OK')
      expect(await listing(target)).toEqual(await listing(source))
      expect(showReply(await target.exec(['FCALL', 'a1', '1', 'k', 'v']))).toBe('["k", "v"]')
      expect(showReply(await target.exec(['FCALL_RO', 'b1', '0']))).toBe('"b"')
      expect(showReply(await target.exec(['FCALL', 'g1', '0']))).toBe('(integer) 400')
      // APPEND (the default) refuses libraries that exist (Redis names the first in hash order);
      // REPLACE and FLUSH take them.
      expect(showReply(await target.exec(['FUNCTION', 'RESTORE', payload]))).toMatch(/^-ERR Library (alpha|beta|gamma) already exists$/)
      expect(showReply(await target.exec(['FUNCTION', 'RESTORE', payload, 'REPLACE']))).toBe('+OK')
      expect(showReply(await target.exec(['FUNCTION', 'RESTORE', payload, 'FLUSH']))).toBe('+OK')
      expect(await listing(target)).toEqual(await listing(source))
    })
  }

  test('RESTORE policies, collisions and damaged payloads behave alike on both', async () => {
    for (const executor of [redis, memory]) {
      await executor.exec(['FUNCTION', 'LOAD', LIBRARIES[0]])
      await executor.exec(['FUNCTION', 'LOAD', LIBRARIES[1]])
    }
    const payload = (await redis.exec(['FUNCTION', 'DUMP'])) as Uint8Array
    const damaged = Uint8Array.from(payload)
    damaged[5] ^= 0xff
    const truncated = payload.subarray(0, payload.length - 1)
    const clash = "#!lua name=other\nredis.register_function('A1', function() return 1 end)"
    const steps: (readonly (string | Uint8Array)[])[] = [
      ['FUNCTION', 'RESTORE', damaged],
      ['FUNCTION', 'RESTORE', truncated],
      ['FUNCTION', 'DELETE', 'beta'],
      ['FUNCTION', 'RESTORE', payload],
      ['FUNCTION', 'RESTORE', payload, 'REPLACE'],
      ['FUNCTION', 'FLUSH'],
      ['FUNCTION', 'LOAD', clash],
      ['FUNCTION', 'RESTORE', payload, 'APPEND'],
      ['FUNCTION', 'RESTORE', payload, 'REPLACE'],
      ['FUNCTION', 'RESTORE', payload, 'FLUSH'],
      ['FCALL', 'a1', '1', 'x', 'y'],
      ['FUNCTION', 'STATS'],
    ]
    for (const step of steps) {
      const [ours, theirs] = await Promise.all([memory.exec(step), redis.exec(step)])
      expect(showReply(ours), step.slice(0, 2).join(' ')).toBe(showReply(theirs))
    }
  })
})
