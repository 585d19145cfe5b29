/**
 * The official @upstash/redis client, unchanged, against the gateway over real HTTP: the
 * protocol's compatibility check.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { Redis } from '@upstash/redis'
import { createNodeHandler } from '../../src/adapters/node.js'
import type { Executor } from '../../src/executor/executor.js'
import { listen } from '../support/http.js'
import { executorsUnderTest } from '../support/executors.js'

const TOKEN = 'client-token'

const modes = [
  { name: 'base64, auto-pipelining off', responseEncoding: 'base64' as const, enableAutoPipelining: false },
  { name: 'base64, auto-pipelining on', responseEncoding: 'base64' as const, enableAutoPipelining: true },
  { name: 'plain JSON, auto-pipelining off', responseEncoding: false as const, enableAutoPipelining: false },
]

for (const entry of executorsUnderTest()) {
  for (const mode of modes) {
    describe.skipIf(entry.skipReason !== null)(`@upstash/redis (${mode.name}) over the ${entry.name} executor`, () => {
      let executor: Executor
      let release: () => Promise<void>
      let server: Awaited<ReturnType<typeof listen>>
      let redis: Redis

      beforeAll(async () => {
        ;({ executor, release } = await entry.create())
        server = await listen(createNodeHandler({ executor, token: TOKEN }))
        redis = new Redis({
          url: server.url,
          token: TOKEN,
          responseEncoding: mode.responseEncoding,
          enableAutoPipelining: mode.enableAutoPipelining,
          retry: false,
          enableTelemetry: false,
        })
      })
      afterAll(async () => {
        await server.close()
        await release()
      })
      beforeEach(async () => {
        await redis.flushdb()
      })

      test('SET and GET, with automatic JSON (de)serialisation', async () => {
        expect(await redis.set('k', 'v')).toBe('OK')
        expect(await redis.get('k')).toBe('v')
        await redis.set('obj', { a: 1, b: 'é' })
        expect(await redis.get('obj')).toEqual({ a: 1, b: 'é' })
      })

      test('SET options: NX, XX, GET, EX, PX, EXAT, PXAT, KEEPTTL', async () => {
        expect(await redis.set('k', 'a', { nx: true })).toBe('OK')
        expect(await redis.set('k', 'b', { nx: true })).toBeNull()
        expect(await redis.set('missing', 'b', { xx: true })).toBeNull()
        expect(await redis.set('k', 'c', { get: true })).toBe('a')
        await redis.set('k', 'd', { ex: 100 })
        expect(await redis.ttl('k')).toBeGreaterThan(90)
        await redis.set('k', 'e', { px: 100_000 })
        expect(await redis.pttl('k')).toBeGreaterThan(90_000)
        await redis.set('k', 'f', { exat: Math.floor(Date.now() / 1000) + 100 })
        expect(await redis.ttl('k')).toBeGreaterThan(90)
        await redis.set('k', 'g', { pxat: Date.now() + 100_000 })
        await redis.set('k', 'h', { keepTtl: true })
        expect(await redis.ttl('k')).toBeGreaterThan(90)
        expect(await redis.get('k')).toBe('h')
      })

      test('MSET, MGET, INCR, INCRBY, DECR, APPEND, STRLEN', async () => {
        await redis.mset({ a: '1', b: '2' })
        expect(await redis.mget('a', 'b', 'c')).toEqual([1, 2, null])
        expect(await redis.incr('a')).toBe(2)
        expect(await redis.incrby('a', 10)).toBe(12)
        expect(await redis.decr('a')).toBe(11)
        expect(await redis.append('s', 'hello')).toBe(5)
        expect(await redis.append('s', ' world')).toBe(11)
        expect(await redis.strlen('s')).toBe(11)
      })

      test('GETDEL and GETEX', async () => {
        await redis.set('k', 'v')
        expect(await redis.getex('k', { ex: 100 })).toBe('v')
        expect(await redis.ttl('k')).toBeGreaterThan(90)
        expect(await redis.getdel('k')).toBe('v')
        expect(await redis.exists('k')).toBe(0)
      })

      test('DEL, EXISTS, EXPIRE, TTL, PTTL, PERSIST, TYPE', async () => {
        await redis.set('a', '1')
        await redis.set('b', '2')
        expect(await redis.exists('a', 'b', 'c')).toBe(2)
        expect(await redis.expire('a', 100)).toBe(1)
        expect(await redis.ttl('a')).toBeGreaterThan(90)
        expect(await redis.pttl('a')).toBeGreaterThan(90_000)
        expect(await redis.persist('a')).toBe(1)
        expect(await redis.ttl('a')).toBe(-1)
        expect(await redis.type('a')).toBe('string')
        expect(await redis.type('zzz')).toBe('none')
        expect(await redis.del('a', 'b', 'c')).toBe(2)
      })

      test('KEYS, SCAN, DBSIZE, FLUSHDB', async () => {
        await redis.mset({ 'user:1': 'a', 'user:2': 'b', other: 'c' })
        expect((await redis.keys('user:*')).sort()).toEqual(['user:1', 'user:2'])
        const seen: string[] = []
        let cursor: string | number = 0
        do {
          const [next, keys]: [string | number, string[]] = await redis.scan(cursor, { match: 'user:*', count: 1 })
          seen.push(...keys)
          cursor = next
        } while (String(cursor) !== '0')
        expect([...new Set(seen)].sort()).toEqual(['user:1', 'user:2'])
        expect(await redis.dbsize()).toBe(3)
        expect(await redis.flushdb()).toBe('OK')
        expect(await redis.dbsize()).toBe(0)
      })

      test('PING and ECHO', async () => {
        expect(await redis.ping()).toBe('PONG')
        expect(await redis.echo('hi')).toBe('hi')
      })

      test('a pipeline and a transaction (multi-exec)', async () => {
        const pipe = redis.pipeline()
        pipe.set('p', '1')
        pipe.incr('p')
        pipe.get('p')
        expect(await pipe.exec()).toEqual(['OK', 2, 2])
        const tx = redis.multi()
        tx.incr('t')
        tx.incr('t')
        expect(await tx.exec()).toEqual([1, 2])
      })

      test('many concurrent commands all get their own replies', async () => {
        const replies = await Promise.all(Array.from({ length: 50 }, (_, i) => redis.echo(`m${i}`)))
        expect(replies).toEqual(Array.from({ length: 50 }, (_, i) => `m${i}`))
      })

      test('errors surface as exceptions carrying Redis\'s text', async () => {
        await redis.set('s', 'text')
        await expect(redis.incr('s')).rejects.toThrow('ERR value is not an integer or out of range')
      })

      test('binary-unsafe UTF-8 text survives the round trip', async () => {
        await redis.set('u', 'żółw 🐢')
        expect(await redis.get('u')).toBe('żółw 🐢')
      })
    })
  }
}
