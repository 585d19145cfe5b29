/**
 * socket.io's sharded Redis adapter (`createShardedAdapter` of @socket.io/redis-adapter, over
 * node-redis 6 as its README sets it up) through the RESP listener over the memory engine, and
 * against a real redis-server with the same assertions: two socket.io servers share one Redis;
 * a broadcast, a room broadcast and `fetchSockets()` from one server reach the other server's
 * client. The adapter speaks SSUBSCRIBE / SPUBLISH / PUBSUB SHARDNUMSUB only.
 *
 * node-redis 6 speaks RESP3 by default; the listener does not speak RESP3 yet (HELLO 3 answers
 * NOPROTO), so the clients here ask for RESP2 (`RESP: 2`).
 */
import { createServer, type Server as HttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createClient } from 'redis'
import { Server } from 'socket.io'
import { io as connectClient, type Socket as ClientSocket } from 'socket.io-client'
import { createShardedAdapter } from '@socket.io/redis-adapter'
import { MemoryExecutor } from '../../src/executor/memory/memory-executor.js'
import { serveResp, type RespServer } from '../../src/adapters/resp-server.js'
import { liveSuiteName, redisServerSkipReason, startRedisServer, type RedisServer } from '../support/redis-server.js'

/** A node-redis 6 client speaking RESP2 (see above). */
function redisClient(port: number) {
  return createClient({ url: `redis://127.0.0.1:${port}`, RESP: 2 })
}
type RedisClient = ReturnType<typeof redisClient>

interface Backend {
  readonly name: string
  /** Starts the Redis the adapters use; resolves to its port and how to stop it. */
  start(): Promise<{ port: number; stop: () => Promise<void> }>
  readonly skip?: string
}

const backends: Backend[] = [
  {
    name: 'RESP listener over the memory engine',
    async start() {
      const memory = new MemoryExecutor()
      const server: RespServer = await serveResp(memory, { port: 0 })
      return {
        port: server.address.port,
        stop: async () => {
          await server.close()
          await memory.close()
        },
      }
    },
  },
  {
    name: liveSuiteName('redis-server'),
    skip: redisServerSkipReason,
    async start() {
      const redis: RedisServer = await startRedisServer()
      return { port: redis.port, stop: () => redis.stop() }
    },
  },
]

/** One socket.io server on a free port with the sharded adapter over its own two clients. */
async function startIo(port: number): Promise<{ io: Server; http: HttpServer; url: string; clients: RedisClient[] }> {
  const pub = redisClient(port)
  const sub = pub.duplicate()
  await Promise.all([pub.connect(), sub.connect()])
  const http = createServer()
  const io = new Server(http, { adapter: createShardedAdapter(pub, sub) })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  return { io, http, url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`, clients: [pub, sub] }
}

/** Polls `check` until it holds: the adapter subscribes without telling when it is done. */
async function until(what: string, check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

function nextEvent<T>(socket: ClientSocket, event: string): Promise<T> {
  return new Promise((resolve) => socket.once(event, (value: T) => resolve(value)))
}

for (const backend of backends) {
  describe.skipIf(backend.skip !== undefined)(`socket.io sharded adapter: ${backend.name}`, () => {
    let stopBackend: () => Promise<void>
    let first: Awaited<ReturnType<typeof startIo>>
    let second: Awaited<ReturnType<typeof startIo>>
    let client: ClientSocket
    let probe: RedisClient

    beforeAll(async () => {
      const started = await backend.start()
      stopBackend = started.stop
      first = await startIo(started.port)
      second = await startIo(started.port)
      probe = redisClient(started.port)
      await probe.connect()
      client = connectClient(second.url, { transports: ['websocket'], forceNew: true })
      await nextEvent(client, 'connect')
      // Both servers listen on the namespace's shard channel before anything is broadcast.
      await until('both servers to subscribe', async () => (await first.io.of('/').adapter.serverCount()) === 2)
    }, 30_000)
    afterAll(async () => {
      client?.disconnect()
      for (const side of [first, second]) {
        if (side === undefined) continue
        side.io.close()
        await Promise.all(side.clients.map((redis) => redis.quit().catch(() => {})))
      }
      await probe?.quit().catch(() => {})
      await stopBackend?.()
    })

    test('a broadcast from one server reaches the client of the other', async () => {
      const received = nextEvent<string>(client, 'hello')
      first.io.emit('hello', 'world')
      expect(await received).toBe('world')
    })

    test('a room broadcast goes through the room\'s own shard channel', async () => {
      const [socket] = await second.io.fetchSockets()
      socket.join('room1')
      await until('the room channel to be subscribed', async () => {
        const counts = await probe.sendCommand(['PUBSUB', 'SHARDNUMSUB', 'socket.io#/#room1#'])
        return Number((counts as unknown as unknown[])[1]) === 1
      })
      const received = nextEvent<string>(client, 'in-room')
      first.io.to('room1').emit('in-room', 'only here')
      expect(await received).toBe('only here')
    })

    test('fetchSockets() from one server finds the socket on the other (request and response over shard channels)', async () => {
      const sockets = await first.io.fetchSockets()
      expect(sockets.map((socket) => socket.id)).toEqual([client.id])
      expect(sockets[0].rooms.has('room1')).toBe(true)
    })
  })
}
