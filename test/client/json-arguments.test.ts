/**
 * JSON arguments other than strings and numbers, as the official client sends them: a boolean
 * value goes as a JSON boolean and is stored as "true" / "false" (as the hosted service does);
 * an `undefined` value goes as JSON null, which is refused with a 400 naming its place.
 * Over real HTTP, on both executors.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { Redis } from '@upstash/redis'
import { createNodeHandler } from '../../src/adapters/node.js'
import type { Executor } from '../../src/executor/executor.js'
import { listen } from '../support/http.js'
import { executorsUnderTest } from '../support/executors.js'

const TOKEN = 'json-arguments-token'

for (const entry of executorsUnderTest()) {
  describe.skipIf(entry.skipReason !== null)(`JSON boolean and null arguments over the ${entry.name} executor`, () => {
    let executor: Executor
    let release: () => Promise<void>
    let server: Awaited<ReturnType<typeof listen>>
    let redis: Redis
    /** The same database without the client's JSON decoding of replies. */
    let raw: Redis

    const post = async (path: string, body: string): Promise<{ status: number; json: unknown }> => {
      const response = await fetch(`${server.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` }, body })
      return { status: response.status, json: await response.json() }
    }

    beforeAll(async () => {
      ;({ executor, release } = await entry.create())
      server = await listen(createNodeHandler({ executor, token: TOKEN }))
      redis = new Redis({ url: server.url, token: TOKEN, retry: false, enableTelemetry: false, enableAutoPipelining: false })
      raw = new Redis({ url: server.url, token: TOKEN, retry: false, enableTelemetry: false, enableAutoPipelining: false, automaticDeserialization: false })
    })
    afterAll(async () => {
      await server?.close()
      await release?.()
    })
    beforeEach(async () => {
      await redis.flushdb()
    })

    test('the official client: HSET with boolean values stores "true" and "false"', async () => {
      expect(await redis.hset('h', { on: true, off: false })).toBe(2)
      expect(await raw.hgetall('h')).toEqual(['on', 'true', 'off', 'false'])
      // The client reads them back as the booleans it wrote.
      expect(await redis.hget('h', 'on')).toBe(true)
      expect(await redis.hget('h', 'off')).toBe(false)
      await redis.set('flag', true)
      expect(await raw.get('flag')).toBe('true')
    })

    test('the official client: an undefined value is refused with the index of the null it became', async () => {
      await expect(redis.set('k', undefined)).rejects.toThrow('ERR null is not a command argument (index 2 of the command)')
      expect(await redis.exists('k')).toBe(0)
    })

    test('raw HTTP: booleans in a command, a pipeline and a transaction', async () => {
      expect(await post('/', '["SET","a",true]')).toEqual({ status: 200, json: { result: 'OK' } })
      expect(await post('/pipeline', '[["SET","b",false],["MGET","a","b"]]')).toEqual({ status: 200, json: [{ result: 'OK' }, { result: ['true', 'false'] }] })
      expect(await post('/multi-exec', '[["HSET","h","x",true],["HGET","h","x"]]')).toEqual({ status: 200, json: [{ result: 1 }, { result: 'true' }] })
    })

    test('raw HTTP: a null argument is a 400 naming its index, and nothing runs', async () => {
      const single = await post('/', '["SET","a",null]')
      expect(single.status).toBe(400)
      expect((single.json as { error: string }).error).toMatch(/^ERR null is not a command argument \(index 2 of the command\)/)
      const transaction = await post('/multi-exec', '[["SET","a","1"],["HSET","h","x",null]]')
      expect(transaction.status).toBe(400)
      expect((transaction.json as { error: string }).error).toMatch(/^ERR null is not a command argument \(index 3 of command 1\)/)
      expect(await redis.exists('a', 'h')).toBe(0)
    })
  })
}
