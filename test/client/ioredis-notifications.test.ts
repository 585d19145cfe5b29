/**
 * A real client waiting for a key to expire, the way applications use keyspace notifications:
 * ioredis 6 subscribes to `__keyevent@0__:expired`, another connection sets a key with a short
 * TTL, and the test waits for the message itself (no sleep). Run against the RESP listener over
 * the memory engine (active expiry reclaims the key) and against redis-server, same assertions.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { Redis } from 'ioredis6'
import { RESP_TARGETS, respTargetTitle, type RunningTarget } from '../support/resp-targets.js'

for (const respTarget of RESP_TARGETS) {
  describe.skipIf(respTarget.skip !== undefined)(`ioredis 6 and keyspace events: ${respTargetTitle(respTarget)}`, () => {
    let target: RunningTarget
    beforeAll(async () => {
      target = await respTarget.start()
    })
    afterAll(() => target?.stop())

  test('a subscriber to __keyevent@0__:expired hears of a key whose TTL passed, with no read of the key', async () => {
      const client = new Redis({ port: target.port, host: '127.0.0.1', lazyConnect: true })
      const subscriber = new Redis({ port: target.port, host: '127.0.0.1', lazyConnect: true })
      try {
        await client.connect()
        await subscriber.connect()
        expect(await client.config('SET', 'notify-keyspace-events', 'Ex')).toBe('OK')
        const expired = new Promise<[string, string]>((resolve) => subscriber.on('message', (channel: string, key: string) => resolve([channel, key])))
        expect(await subscriber.subscribe('__keyevent@0__:expired')).toBe(1)
        const key = `ioredis-expiry-${target.port}`
        expect(await client.set(key, 'v', 'PX', 30)).toBe('OK')
        expect(await expired).toEqual(['__keyevent@0__:expired', key])
        expect(await client.exists(key)).toBe(0)
      } finally {
        await client.config('SET', 'notify-keyspace-events', '').catch(() => undefined)
        client.disconnect()
        subscriber.disconnect()
      }
    })

    test('keyspace events of one key arrive in command order on a pattern subscription', async () => {
      const client = new Redis({ port: target.port, host: '127.0.0.1', lazyConnect: true })
      const subscriber = new Redis({ port: target.port, host: '127.0.0.1', lazyConnect: true })
      try {
        await client.connect()
        await subscriber.connect()
        await client.config('SET', 'notify-keyspace-events', 'K$lg')
        const key = `ioredis-order-${target.port}`
        const heard: string[] = []
        const done = new Promise<void>((resolve) =>
          subscriber.on('pmessage', (_pattern: string, _channel: string, event: string) => {
            heard.push(event)
            if (event === 'del') resolve()
          }),
        )
        await subscriber.psubscribe(`__keyspace@0__:${key}*`)
        await client.set(key, '1')
        await client.incr(key)
        await client.expire(key, 100)
        await client.persist(key)
        await client.del(key)
        await done
        expect(heard).toEqual(['set', 'incrby', 'expire', 'persist', 'del'])
      } finally {
        await client.config('SET', 'notify-keyspace-events', '').catch(() => undefined)
        client.disconnect()
        subscriber.disconnect()
      }
    })
  })
}
