/**
 * What Redis 7.0 refuses while queueing a MULTI block (`processCommand`) and how EXEC answers then,
 * and the counts of a blocked XREADGROUP ended by XGROUP DESTROY: through the RESP listener over
 * the memory engine and against a real redis-server 7.0, with the same assertions.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { Redis } from 'ioredis6'
import { RESP_TARGETS, respTargetTitle, type RunningTarget } from '../support/resp-targets.js'
import { waitFor } from '../executor/socket/support.js'

const OOM = "OOM command not allowed when used memory > 'maxmemory'."

for (const respTarget of RESP_TARGETS) {
  describe.skipIf(respTarget.skip !== undefined)(`MULTI queueing and unblock errors: ${respTargetTitle(respTarget)}`, () => {
    let target: RunningTarget
    let c: Redis
    let admin: Redis
    const call = (client: Redis, ...args: (string | number)[]): Promise<unknown> => client.call(String(args[0]), ...args.slice(1).map(String))
    const outcome = (promise: Promise<unknown>): Promise<string> =>
      promise.then(
        (value) => `resolved ${JSON.stringify(value)}`,
        (error: Error) => error.message,
      )

    beforeAll(async () => {
      target = await respTarget.start()
      c = new Redis({ port: target.port, host: '127.0.0.1', protocol: 2 })
      admin = new Redis({ port: target.port, host: '127.0.0.1', protocol: 2 })
    })
    afterEach(async () => {
      await admin.config('SET', 'maxmemory', '0')
      await admin.flushall()
    })
    afterAll(async () => {
      c.disconnect()
      admin.disconnect()
      await target.stop()
    })

    test('over maxmemory every command is refused while queueing, and DISCARD still works', async () => {
      await admin.config('SET', 'maxmemory', '1')
      expect(await call(c, 'MULTI')).toBe('OK')
      expect(await outcome(call(c, 'SET', 'x', '1'))).toBe(OOM)
      expect(await outcome(call(c, 'GET', 'x'))).toBe(OOM)
      expect(await call(c, 'DISCARD')).toBe('OK')
      await admin.config('SET', 'maxmemory', '0')
      expect(await c.ping()).toBe('PONG')
    })

    test('a command refused with OOM while queueing dooms the EXEC', async () => {
      expect(await call(c, 'MULTI')).toBe('OK')
      expect(await call(c, 'SET', 'foo1', 'bar1')).toBe('QUEUED')
      await admin.config('SET', 'maxmemory', '1')
      expect(await outcome(call(c, 'LPUSH', 'mylist', 'v'))).toBe(OOM)
      await admin.config('SET', 'maxmemory', '0')
      expect(await call(c, 'SET', 'foo2', 'bar2')).toBe('QUEUED')
      expect(await outcome(call(c, 'EXEC'))).toBe('EXECABORT Transaction discarded because of previous errors.')
      expect(await admin.exists('foo1', 'foo2')).toBe(0)
    })

    test('EXEC of a block with a command that may grow memory, once over maxmemory: EXECABORT naming OOM', async () => {
      await admin.set('x', 'value')
      expect(await call(c, 'MULTI')).toBe('OK')
      await call(c, 'SET', 'x', '1')
      await call(c, 'GET', 'x')
      await admin.config('SET', 'maxmemory', '1')
      expect(await outcome(call(c, 'EXEC'))).toBe(`EXECABORT Transaction discarded because of: ${OOM}`)
      await admin.config('SET', 'maxmemory', '0')
      expect(await admin.get('x')).toBe('value')
      // A read-only block still runs over the limit.
      expect(await call(c, 'MULTI')).toBe('OK')
      await call(c, 'GET', 'x')
      await admin.config('SET', 'maxmemory', '1')
      expect(await call(c, 'EXEC')).toEqual(['value'])
    })

    test.each(['SAVE', 'SHUTDOWN'])('%s is refused while queueing (no_multi) and dooms the EXEC', async (command) => {
      expect(await call(c, 'MULTI')).toBe('OK')
      expect(await call(c, 'SET', 'foo', 'bar')).toBe('QUEUED')
      expect(await outcome(call(c, command))).toBe('ERR Command not allowed inside a transaction')
      expect(await outcome(call(c, 'EXEC'))).toBe('EXECABORT Transaction discarded because of previous errors.')
      expect(await admin.get('foo')).toBeNull()
    })

    test('XGROUP DESTROY ends a blocked XREADGROUP with NOGROUP, counted as an error and a failed call', async () => {
      const reader = new Redis({ port: target.port, host: '127.0.0.1', protocol: 2 })
      try {
        // Connected first: ioredis's CLIENT SETINFO on connect fails on 7.0 and would count.
        await reader.ping()
        await admin.config('RESETSTAT')
        await admin.xgroup('CREATE', 'mystream', 'mygroup', '$', 'MKSTREAM')
        const read = outcome(call(reader, 'XREADGROUP', 'GROUP', 'mygroup', 'Alice', 'BLOCK', 0, 'STREAMS', 'mystream', '>'))
        await waitFor(async () => /blocked_clients:1/.test(await admin.info('clients')), 'the reader blocked')
        expect(await admin.xgroup('DESTROY', 'mystream', 'mygroup')).toBe(1)
        expect(await read).toBe('NOGROUP the consumer group this client was blocked on no longer exists')
        expect(await admin.info('errorstats')).toMatch(/errorstat_NOGROUP:count=1\b/)
        expect(await admin.info('commandstats')).toMatch(/cmdstat_xreadgroup:calls=1,.*,rejected_calls=0,failed_calls=1/)
        expect(await admin.info('stats')).toMatch(/total_error_replies:1\b/)
      } finally {
        reader.disconnect()
      }
    })
  })
}
