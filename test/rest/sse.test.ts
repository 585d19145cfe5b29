/**
 * The /monitor, /subscribe and /psubscribe streams over both executors and both adapters (a
 * real node:http server, and the Fetch handler called with Requests): payloads, headers,
 * keep-alive, permissions, slow clients, and releasing the backend when the client goes.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { request as httpRequest, type IncomingMessage } from 'node:http'
import { createNodeHandler } from '../../src/adapters/node.js'
import { createFetchHandler, type FetchHandler } from '../../src/adapters/fetch.js'
import { createGateway, type Gateway } from '../../src/rest/gateway.js'
import type { Executor } from '../../src/executor/executor.js'
import { listen } from '../support/http.js'
import { executorsUnderTest } from '../support/executors.js'
import { requester, resultOf, type Send } from '../support/gateway.js'
import { EventReader, TrackedExecutor, heldStreams } from '../support/sse.js'

const TOKEN = 'sse-token'
const READONLY = 'sse-readonly'

interface Opened {
  readonly status: number
  readonly headers: Record<string, string>
  readonly reader: EventReader
  close(): void
}

/** One way to open a stream: through the Node handler over HTTP, or the Fetch handler in-process. */
interface Transport {
  readonly name: string
  open(path: string, token: string): Promise<Opened>
}

function nodeTransport(url: string): Transport {
  return {
    name: 'node:http',
    open(path, token) {
      return new Promise((resolve, reject) => {
        const req = httpRequest(`${url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, agent: false }, (res: IncomingMessage) => {
          const headers = Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k, String(v)]))
          resolve({ status: res.statusCode ?? 0, headers, reader: new EventReader(res), close: () => req.destroy() })
        })
        req.on('error', (error) => (req.destroyed ? undefined : reject(error)))
        req.end()
      })
    },
  }
}

function fetchTransport(handler: FetchHandler): Transport {
  return {
    name: 'fetch handler',
    async open(path, token) {
      const controller = new AbortController()
      const response = await handler(new Request(`http://gateway${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, signal: controller.signal }))
      const headers: Record<string, string> = {}
      response.headers.forEach((value, key) => (headers[key] = value))
      const body = response.body!
      return {
        status: response.status,
        headers,
        reader: new EventReader(body),
        close: () => {
          controller.abort()
          void body.cancel().catch(() => {})
        },
      }
    },
  }
}

for (const entry of executorsUnderTest()) {
  describe.skipIf(entry.skipReason !== null)(`streams over the ${entry.name} executor${entry.skipReason ? ` (${entry.skipReason})` : ''}`, () => {
    let executor: TrackedExecutor
    let release: () => Promise<void>
    let gateway: Gateway
    let server: Awaited<ReturnType<typeof listen>>
    let send: Send
    const transports: Transport[] = []

    beforeAll(async () => {
      const created = await entry.create()
      executor = new TrackedExecutor(created.executor)
      release = created.release
      gateway = createGateway({ executor, token: TOKEN, readonlyToken: READONLY, sse: { keepAliveInterval: 0 } })
      server = await listen(createNodeHandler(gateway))
      send = requester(gateway, TOKEN)
      transports.push(nodeTransport(server.url), fetchTransport(createFetchHandler(gateway)))
    })
    afterAll(async () => {
      await server.close()
      await release()
    })
    beforeEach(async () => {
      await executor.idle()
      expect(heldStreams(executor)).toBe(0)
    })

    /** Closes a stream and waits until the executor let go of it. */
    const closeAndSettle = async (stream: Opened) => {
      stream.close()
      await executor.idle()
    }

    for (const transport of ['node:http', 'fetch handler']) {
      const pick = () => transports.find((t) => t.name === transport)!

      test(`${transport}: /subscribe sends the confirmation, then messages in order; closing releases the subscription at once`, async () => {
        const stream = await pick().open('/subscribe/news', TOKEN)
        expect(stream.status).toBe(200)
        expect(stream.headers['content-type']).toBe('text/event-stream')
        expect(stream.headers['cache-control']).toBe('no-cache')
        expect(stream.headers.connection).toBe('keep-alive')
        expect(await stream.reader.next()).toBe('subscribe,news,1')
        expect(resultOf(await send('GET', '/publish/news/hello'))).toBe(1)
        expect(resultOf(await send('POST', '/publish/news', { body: 'two, with commas' }))).toBe(1)
        expect(resultOf(await send('POST', '/', { body: '["PUBLISH","news","line 1\\nline 2"]' }))).toBe(1)
        expect(resultOf(await send('GET', '/publish/other/ignored'))).toBe(0)
        expect(await stream.reader.next()).toBe('message,news,hello')
        expect(await stream.reader.next()).toBe('message,news,two, with commas')
        expect(await stream.reader.next()).toBe('message,news,line 1\nline 2')
        expect(stream.reader.raw).toContain('data: message,news,line 1\ndata: line 2\n\n')
        expect(heldStreams(executor)).toBeGreaterThan(0)
        await closeAndSettle(stream)
        expect(heldStreams(executor)).toBe(0)
        // The server itself lets go within a round trip or two (the socket executor closed its
        // subscriber connection at once).
        for (let attempt = 0; resultOf(await send('GET', '/publish/news/after')) !== 0; attempt++) expect(attempt).toBeLessThan(100)
      })

      test(`${transport}: /subscribe to several channels counts them`, async () => {
        const stream = await pick().open('/subscribe/a/b', TOKEN)
        expect([await stream.reader.next(), await stream.reader.next()]).toEqual(['subscribe,a,1', 'subscribe,b,2'])
        await send('GET', '/publish/b/x')
        expect(await stream.reader.next()).toBe('message,b,x')
        await closeAndSettle(stream)
      })

      test(`${transport}: /psubscribe sends psubscribe and pmessage events`, async () => {
        const stream = await pick().open('/psubscribe/news.*', TOKEN)
        expect(await stream.reader.next()).toBe('psubscribe,news.*,1')
        expect(resultOf(await send('GET', '/publish/news.tech/chips'))).toBe(1)
        expect(await stream.reader.next()).toBe('pmessage,news.*,news.tech,chips')
        await closeAndSettle(stream)
        expect(heldStreams(executor)).toBe(0)
      })

      test(`${transport}: /monitor starts with "OK" and shows executed commands`, async () => {
        const stream = await pick().open('/monitor', TOKEN)
        expect(stream.headers['content-type']).toBe('text/event-stream')
        expect(await stream.reader.next()).toBe('"OK"')
        // The socket executor's MONITOR is active a round trip or two after "OK": send probes
        // until the stream shows one.
        const before = stream.reader.events.length
        for (let probe = 0; stream.reader.events.length === before; probe++) {
          expect(probe).toBeLessThan(500)
          await send('GET', `/echo/probe-${probe}`)
          await new Promise((resolve) => setImmediate(resolve)) // let the socket deliver
        }
        expect(await stream.reader.next()).toMatch(/"echo" "probe-\d+"$/)
        await send('GET', '/set/monitored/1')
        let line = await stream.reader.next()
        while (!/"set" "monitored" "1"$/i.test(line)) line = await stream.reader.next()
        expect(line).toMatch(/^\d+\.\d{6} \[0 [^\]]+\] "set" "monitored" "1"$/i)
        await closeAndSettle(stream)
        expect(heldStreams(executor)).toBe(0)
      })

      test(`${transport}: the read-only token may subscribe but not monitor`, async () => {
        const stream = await pick().open('/subscribe/ro', READONLY)
        expect(await stream.reader.next()).toBe('subscribe,ro,1')
        await closeAndSettle(stream)
        const refused = await pick().open('/monitor', READONLY)
        expect(refused.status).toBe(400)
        await refused.reader.closed()
        expect(JSON.parse(refused.reader.raw)).toEqual({ error: "NOPERM this user has no permissions to run the 'monitor' command" })
      })

      test(`${transport}: a missing token is a 401 before any stream starts`, async () => {
        const refused = await pick().open('/subscribe/x', 'wrong')
        expect(refused.status).toBe(401)
        await refused.reader.closed()
        expect(executor.active).toBe(0)
      })
    }

    test("ACL users' tokens open the streams their channels and commands allow", async () => {
      await executor.exec(['ACL', 'DELUSER', 'listener'])
      await send('POST', '/', { body: '["ACL","SETUSER","listener","on",">pw","+subscribe","+psubscribe","&news.*"]' })
      const token = resultOf(await send('GET', '/acl/resttoken/listener/pw')) as string
      const [node] = transports
      const allowed = await node.open('/subscribe/news.a', token)
      expect(await allowed.reader.next()).toBe('subscribe,news.a,1')
      await send('GET', '/publish/news.a/hi')
      expect(await allowed.reader.next()).toBe('message,news.a,hi')
      await closeAndSettle(allowed)
      const channel = await node.open('/subscribe/private', token)
      expect(channel.status).toBe(400)
      await channel.reader.closed()
      expect(JSON.parse(channel.reader.raw)).toEqual({ error: 'NOPERM this user has no permissions to access one of the channels used as arguments' })
      const pattern = await node.open('/psubscribe/news.*', token)
      expect(await pattern.reader.next()).toBe('psubscribe,news.*,1')
      await closeAndSettle(pattern)
      const monitor = await node.open('/monitor', token)
      expect(monitor.status).toBe(400)
      await monitor.reader.closed()
      expect(JSON.parse(monitor.reader.raw)).toEqual({ error: "NOPERM this user has no permissions to run the 'monitor' command" })
      await executor.exec(['ACL', 'DELUSER', 'listener'])
    })

    test('keep-alive comments are sent while the stream is idle', async () => {
      const lively = createGateway({ executor, token: TOKEN, sse: { keepAliveInterval: 20 } })
      const stream = await fetchTransport(createFetchHandler(lively)).open('/subscribe/quiet', TOKEN)
      expect(await stream.reader.next()).toBe('subscribe,quiet,1')
      expect(await stream.reader.nextComment()).toBe('keep-alive')
      expect(stream.reader.raw).toContain(': keep-alive\n\n')
      await closeAndSettle(stream)
    })

    test('node:http: a client that does not read is disconnected when its buffer overflows; others get every message', async () => {
      const bounded = createGateway({ executor, token: TOKEN, sse: { keepAliveInterval: 0, maxBufferedBytes: 256 * 1024 } })
      const boundedServer = await listen(createNodeHandler(bounded))
      try {
        // The slow client: subscribes, then never reads another byte.
        let slowResponse: IncomingMessage | undefined
        const slow = httpRequest(`${boundedServer.url}/subscribe/flood`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` }, agent: false }, (res) => {
          slowResponse = res
          res.once('data', () => res.pause())
          res.on('error', () => {})
        })
        slow.on('error', () => {})
        slow.end()
        await executor.running(1)
        const fast = await nodeTransport(boundedServer.url).open('/subscribe/flood', TOKEN)
        expect(await fast.reader.next()).toBe('subscribe,flood,1')
        expect(slowResponse).toBeDefined()
        const payload = 'x'.repeat(64 * 1024)
        // Publish one message at a time, paced by the fast client: it never has more than one
        // message in flight, while the slow client's backlog grows until it is cut off (the
        // socket buffers of both ends hold a few MiB; 400 × 64 KiB is 25 MiB).
        const count = 400
        for (let i = 0; i < count; i++) {
          await send('POST', '/publish/flood', { body: `${i}:${payload}` })
          await fast.reader.waitForEvents(2 + i)
        }
        // The gateway cut the slow client off: its subscription is gone, the fast one remains.
        // (A paused client only notices the closed connection when it reads again.)
        await executor.atMost(1)
        expect(executor.active).toBe(1)
        slow.destroy()
        const received = fast.reader.events.slice(1).map((event) => Number(event.split(',')[2].split(':')[0]))
        expect(received).toEqual(Array.from({ length: count }, (_, i) => i))
        await closeAndSettle(fast)
        expect(heldStreams(executor)).toBe(0)
      } finally {
        await boundedServer.close()
      }
    })

    test('fetch handler: a stream nobody reads is ended when its buffer overflows, and the subscription goes', async () => {
      const bounded = createGateway({ executor, token: TOKEN, sse: { keepAliveInterval: 0, maxBufferedBytes: 128 * 1024 } })
      const response = await createFetchHandler(bounded)(new Request('http://gateway/subscribe/flood2', { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` } }))
      await executor.running(1)
      // Nobody reads the body: publish (once the subscription is active) until the stream overflows.
      const payload = 'y'.repeat(32 * 1024)
      let receivers = 0
      for (let i = 0; receivers === 0; i++) {
        expect(i).toBeLessThan(500)
        receivers = resultOf(await send('GET', '/publish/flood2/ready')) as number
      }
      for (let i = 0; executor.active > 0; i++) {
        expect(i).toBeLessThan(100)
        await send('POST', '/publish/flood2', { body: payload })
      }
      await executor.idle()
      expect(heldStreams(executor)).toBe(0)
      const reader = new EventReader(response.body!)
      await reader.closed()
      expect(reader.error).toBeDefined()
    })
  })
}
