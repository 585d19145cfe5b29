/**
 * Stream clients against the gateway over real HTTP, over both executors: the typed helper of
 * `src/rest/stream-client.ts`, and the official @upstash/redis client's subscribe/psubscribe.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { EventEmitter, once } from 'node:events'
import { Redis } from '@upstash/redis'
import { createNodeHandler } from '../../src/adapters/node.js'
import { createGateway } from '../../src/rest/gateway.js'
import { StreamError, monitor, psubscribe, subscribe, type StreamMessage } from '../../src/rest/stream-client.js'
import { listen } from '../support/http.js'
import { executorsUnderTest } from '../support/executors.js'
import { TrackedExecutor, heldStreams } from '../support/sse.js'

const TOKEN = 'streams-token'
const READONLY = 'streams-readonly'

/** Collects values and lets a test wait for the n-th one. */
class Inbox<T> {
  readonly items: T[] = []
  private readonly emitter = new EventEmitter()
  push = (item: T): void => {
    this.items.push(item)
    this.emitter.emit('item')
  }
  async count(n: number): Promise<T[]> {
    while (this.items.length < n) await once(this.emitter, 'item')
    return this.items
  }
}

for (const entry of executorsUnderTest()) {
  describe.skipIf(entry.skipReason !== null)(`stream clients over the ${entry.name} executor${entry.skipReason ? ` (${entry.skipReason})` : ''}`, () => {
    let executor: TrackedExecutor
    let release: () => Promise<void>
    let server: Awaited<ReturnType<typeof listen>>

    beforeAll(async () => {
      const created = await entry.create()
      executor = new TrackedExecutor(created.executor)
      release = created.release
      server = await listen(createNodeHandler(createGateway({ executor, token: TOKEN, readonlyToken: READONLY })))
    })
    afterAll(async () => {
      await server.close()
      await release()
    })
    beforeEach(async () => {
      await executor.idle()
      expect(heldStreams(executor)).toBe(0)
    })

    test('subscribe(): confirmations, messages (commas and all) in order; aborting resolves and releases', async () => {
      const controller = new AbortController()
      const confirmed = new Inbox<[string, number]>()
      const messages = new Inbox<StreamMessage>()
      const done = subscribe(server.url, TOKEN, ['a,b', 'c'], {
        signal: controller.signal,
        onSubscribe: (channel, count) => confirmed.push([channel, count]),
        onMessage: messages.push,
      })
      expect(await confirmed.count(2)).toEqual([['a,b', 1], ['c', 2]])
      await executor.exec(['PUBLISH', 'a,b', 'x,y'])
      await executor.exec(['PUBLISH', 'c', 'z'])
      expect(await messages.count(2)).toEqual([
        { channel: 'a,b', message: 'x,y' },
        { channel: 'c', message: 'z' },
      ])
      controller.abort()
      await done
      await executor.idle()
      expect(heldStreams(executor)).toBe(0)
    })

    test('psubscribe(): pattern messages carry the pattern and the channel', async () => {
      const controller = new AbortController()
      const ready = new Inbox<string>()
      const messages = new Inbox<StreamMessage>()
      const done = psubscribe(server.url, READONLY, 'news.*', { signal: controller.signal, onSubscribe: ready.push, onMessage: messages.push })
      await ready.count(1)
      await executor.exec(['PUBLISH', 'news.sport', 'goal'])
      expect(await messages.count(1)).toEqual([{ pattern: 'news.*', channel: 'news.sport', message: 'goal' }])
      controller.abort()
      await done
    })

    test('monitor(): ready, then command lines; refused to the read-only token with its NOPERM text', async () => {
      const controller = new AbortController()
      const lines = new Inbox<string>()
      let ready = false
      const done = monitor(server.url, TOKEN, { signal: controller.signal, onReady: () => (ready = true), onCommand: lines.push })
      while (!ready) await new Promise((resolve) => setImmediate(resolve))
      for (let probe = 0; lines.items.length === 0; probe++) {
        expect(probe).toBeLessThan(500)
        await executor.exec(['ECHO', `probe-${probe}`])
        await new Promise((resolve) => setImmediate(resolve))
      }
      expect(lines.items[0]).toMatch(/"ECHO" "probe-\d+"$/)
      controller.abort()
      await done
      const refused = monitor(server.url, READONLY, { onCommand: () => {} })
      await expect(refused).rejects.toBeInstanceOf(StreamError)
      await expect(refused).rejects.toMatchObject({ status: 400, message: "NOPERM this user has no permissions to run the 'monitor' command" })
      await expect(subscribe(server.url, 'wrong', 'x', { onMessage: () => {} })).rejects.toMatchObject({ status: 401, message: 'WRONGPASS invalid or missing auth token' })
    })

    test('@upstash/redis subscribe() and psubscribe() receive messages; unsubscribe() releases the backend', async () => {
      const redis = new Redis({ url: server.url, token: TOKEN, retry: false, enableTelemetry: false })
      const subscriber = redis.subscribe<string>(['chat'])
      const counts = new Inbox<number>()
      const messages = new Inbox<{ channel: string; message: unknown }>()
      subscriber.on('subscribe', counts.push)
      subscriber.on('message', messages.push)
      expect(await counts.count(1)).toEqual([1])
      expect(await redis.publish('chat', 'hello')).toBe(1)
      expect(await redis.publish('chat', { json: true })).toBe(1)
      expect(await messages.count(2)).toEqual([
        { channel: 'chat', message: 'hello' },
        { channel: 'chat', message: { json: true } },
      ])

      const patterns = redis.psubscribe<string>(['room:*'])
      const pcounts = new Inbox<number>()
      const pmessages = new Inbox<{ pattern: string; channel: string; message: unknown }>()
      patterns.on('psubscribe', pcounts.push)
      patterns.on('pmessage', pmessages.push)
      await pcounts.count(1)
      // The client parses pattern messages as JSON (plain text would be an 'error' event).
      expect(await redis.publish('room:1', { text: 'hi' })).toBe(1)
      expect(await pmessages.count(1)).toEqual([{ pattern: 'room:*', channel: 'room:1', message: { text: 'hi' } }])

      await subscriber.unsubscribe()
      await patterns.unsubscribe()
      await executor.idle()
      expect(heldStreams(executor)).toBe(0)
      // The socket executor closed its subscriber connection at once; the server notices within
      // a round trip or two.
      for (let attempt = 0; (await redis.publish('chat', 'nobody')) !== 0; attempt++) expect(attempt).toBeLessThan(100)
    })
  })
}
