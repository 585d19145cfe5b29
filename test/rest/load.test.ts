/**
 * Load and leaks: 1,000 concurrent SSE subscribers over 10 channels through the Node handler on a
 * real HTTP server, 10,000 messages published; every subscriber gets exactly its channel's
 * messages, in order; after everyone disconnects the executor holds no subscription and no extra
 * connection. Over both executors; timings are printed.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { Agent, request as httpRequest, type ClientRequest } from 'node:http'
import { createParser } from 'eventsource-parser'
import { createNodeHandler } from '../../src/adapters/node.js'
import { createGateway, type Gateway } from '../../src/rest/gateway.js'
import { SocketExecutor } from '../../src/executor/socket/socket-executor.js'
import { listen } from '../support/http.js'
import { executorsUnderTest } from '../support/executors.js'
import { TrackedExecutor, heldStreams } from '../support/sse.js'
import { requester } from '../support/gateway.js'

const TOKEN = 'load-token'
const SUBSCRIBERS = 1000
const CHANNELS = 10
const MESSAGES = 10_000
const BATCH = 500

interface Subscriber {
  readonly channel: number
  readonly request: ClientRequest
  confirmed: boolean
  received: number[]
  errors: string[]
}

for (const entry of executorsUnderTest()) {
  describe.skipIf(entry.skipReason !== null)(`${SUBSCRIBERS} SSE subscribers over the ${entry.name} executor${entry.skipReason ? ` (${entry.skipReason})` : ''}`, () => {
    let executor: TrackedExecutor
    let release: () => Promise<void>
    let gateway: Gateway
    let server: Awaited<ReturnType<typeof listen>>

    beforeAll(async () => {
      const created = await entry.create()
      executor = new TrackedExecutor(created.executor)
      release = created.release
      gateway = createGateway({ executor, token: TOKEN })
      server = await listen(createNodeHandler(gateway))
    })
    afterAll(async () => {
      await server.close()
      await release()
    })

    test(`${MESSAGES} messages reach every subscriber exactly once, in order; nothing is left behind`, async () => {
      const inner = executor.inner
      const baselineConnections = inner instanceof SocketExecutor ? inner.stats.connections : 0
      const agent = new Agent({ keepAlive: false, maxSockets: Infinity })
      const subscribers: Subscriber[] = []
      let confirmations = 0
      let complete = 0
      let onConfirmed: () => void = () => {}
      let onComplete: () => void = () => {}
      const expected = MESSAGES / CHANNELS
      const t0 = performance.now()

      const open = (index: number): Subscriber => {
        const channel = index % CHANNELS
        const subscriber: Subscriber = { channel, request: undefined as unknown as ClientRequest, confirmed: false, received: [], errors: [] }
        const parser = createParser({
          onEvent: ({ data }) => {
            if (!subscriber.confirmed) {
              if (data !== `subscribe,ch${channel},1`) subscriber.errors.push(`first event ${data}`)
              subscriber.confirmed = true
              confirmations++
              onConfirmed()
              return
            }
            const prefix = `message,ch${channel},`
            if (!data.startsWith(prefix)) subscriber.errors.push(`unexpected ${data}`)
            subscriber.received.push(Number(data.slice(prefix.length)))
            if (subscriber.received.length === expected) {
              complete++
              onComplete()
            }
          },
        })
        const req = httpRequest(`${server.url}/subscribe/ch${channel}`, { method: 'POST', agent, headers: { authorization: `Bearer ${TOKEN}` } }, (res) => {
          if (res.statusCode !== 200) subscriber.errors.push(`status ${res.statusCode}`)
          res.setEncoding('utf8')
          res.on('data', (chunk: string) => parser.feed(chunk))
          res.on('error', () => {})
        })
        req.on('error', (error) => {
          if (!req.destroyed) subscriber.errors.push(String(error))
        })
        req.end()
        ;(subscriber as { request: ClientRequest }).request = req
        return subscriber
      }

      // Connect in waves (the listen backlog is finite), each wave confirmed before the next.
      for (let i = 0; i < SUBSCRIBERS; i += 100) {
        for (let k = i; k < Math.min(SUBSCRIBERS, i + 100); k++) subscribers.push(open(k))
        const target = Math.min(SUBSCRIBERS, i + 100)
        await new Promise<void>((resolve) => {
          onConfirmed = () => confirmations >= target && resolve()
          onConfirmed()
        })
      }
      const connected = performance.now()
      expect(executor.active).toBe(SUBSCRIBERS)

      const send = requester(gateway, TOKEN)
      const allDelivered = new Promise<void>((resolve) => {
        onComplete = () => complete === SUBSCRIBERS && resolve()
      })
      for (let j = 0; j < MESSAGES; j += BATCH) {
        const batch = Array.from({ length: BATCH }, (_, k) => ['PUBLISH', `ch${(j + k) % CHANNELS}`, String(j + k)])
        const sent = await send('POST', '/pipeline', { body: JSON.stringify(batch) })
        // Receivers as the backend counts them: 100 sessions in the engine, one shared
        // subscriber connection on a real server.
        expect((sent.json as { result: number }[]).every((row) => row.result >= 1)).toBe(true)
      }
      const published = performance.now()
      await allDelivered
      const delivered = performance.now()

      for (const subscriber of subscribers) {
        expect(subscriber.errors).toEqual([])
        expect(subscriber.received).toEqual(Array.from({ length: expected }, (_, i) => i * CHANNELS + subscriber.channel))
      }

      // Connections the executor holds now: its command pool and the one shared subscriber connection.
      const during = inner instanceof SocketExecutor ? inner.stats.connections : 0
      if (inner instanceof SocketExecutor) expect(inner.stats.subscriberConnections).toBe(1)
      for (const subscriber of subscribers) subscriber.request.destroy()
      await executor.idle()
      const released = performance.now()
      expect(heldStreams(executor)).toBe(0)
      if (inner instanceof SocketExecutor) {
        // The subscriber connection was closed when the last subscriber left; its socket is gone
        // within a few turns of the event loop. Only the command pool remains.
        for (let turn = 0; inner.stats.connections > during - 1; turn++) {
          expect(turn).toBeLessThan(100_000)
          await new Promise((resolve) => setImmediate(resolve))
        }
        expect(inner.stats).toMatchObject({ connections: during - 1, subscriberConnections: 0, subscribers: 0 })
        expect(during - 1).toBeLessThanOrEqual(baselineConnections + 4) // the pool's size
      }
      agent.destroy()
      const seconds = (a: number, b: number) => ((b - a) / 1000).toFixed(2)
      console.info(
        `load over the ${entry.name} executor: ${SUBSCRIBERS} subscribers connected in ${seconds(t0, connected)}s, ` +
          `${MESSAGES} messages published in ${seconds(connected, published)}s, ` +
          `${SUBSCRIBERS * expected} deliveries done ${seconds(connected, delivered)}s after the first publish, ` +
          `released in ${seconds(delivered, released)}s; total ${seconds(t0, performance.now())}s`,
      )
    }, 120_000)
  })
}
