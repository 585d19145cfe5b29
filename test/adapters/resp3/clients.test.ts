/**
 * Real clients over RESP3 (and RESP2), with the same assertions against the RESP listener over
 * the memory engine, the listener in front of redis-server (the socket executor, `--redis`) and a
 * real redis-server 7.0.15 itself: node-redis 6 (RESP3 by default, and
 * RESP 2), ioredis 6 (RESP3 by default, with both reply mappings, and RESP2), connect-redis with
 * express-session, and the socket.io classic Redis adapter across two servers.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createClient } from 'redis'
import { Redis } from 'ioredis6'
import session from 'express-session'
import { RedisStore } from 'connect-redis'
import { Server as SocketServer } from 'socket.io'
import { io as connectSocket } from 'socket.io-client'
import { createAdapter } from '@socket.io/redis-adapter'
import { MemoryExecutor } from '../../../src/executor/memory/memory-executor.js'
import { serveResp, type RespServer } from '../../../src/adapters/resp-server.js'
import { SocketExecutor } from '../../../src/executor/socket/socket-executor.js'
import { liveSuiteName, redisServerSkipReason, startRedisServer, type RedisServer } from '../../support/redis-server.js'
import { waitFor } from '../../executor/socket/support.js'

interface Target {
  readonly name: string
  port: number
}

const targets: Target[] = [
  { name: 'RESP listener (memory engine)', port: 0 },
  { name: 'redis-server 7.0.15', port: 0 },
  { name: 'RESP listener (socket executor to redis-server)', port: 0 },
]

let redis: RedisServer | undefined
let memory: MemoryExecutor | undefined
let listener: RespServer | undefined
let upstream: SocketExecutor | undefined
let front: RespServer | undefined

beforeAll(async () => {
  if (redisServerSkipReason !== undefined) return
  memory = new MemoryExecutor()
  listener = await serveResp(memory, { port: 0 })
  targets[0].port = listener.address.port
  redis = await startRedisServer()
  targets[1].port = redis.port
  upstream = new SocketExecutor({ url: redis.url })
  front = await serveResp(upstream, { port: 0 })
  targets[2].port = front.address.port
})
afterAll(async () => {
  await front?.close()
  await upstream?.close()
  await listener?.close()
  await memory?.close()
  await redis?.stop()
})

describe.skipIf(redisServerSkipReason !== undefined).each(targets)(liveSuiteName('real clients against $name'), (target) => {
  const url = (): string => `redis://127.0.0.1:${target.port}`
  /** Two targets share one redis-server: each writes under its own key prefix. */
  const tag = `t${targets.indexOf(target)}`

  for (const RESP of [3, 2] as const) {
    test(`node-redis 6, RESP${RESP}: strings, hashes as objects, sorted sets with scores, sets, transactions, scripts, pub/sub`, async () => {
      const client = createClient({ url: url(), RESP })
      client.on('error', () => {})
      await client.connect()
      const subscriber = client.duplicate()
      subscriber.on('error', () => {})
      await subscriber.connect()
      try {
        const prefix = `${tag}:nr${RESP}:`
        expect(await client.set(`${prefix}s`, 'v')).toBe('OK')
        expect(await client.get(`${prefix}s`)).toBe('v')
        expect(await client.get(`${prefix}missing`)).toBeNull()
        await client.hSet(`${prefix}h`, { a: '1', b: '2' })
        expect({ ...(await client.hGetAll(`${prefix}h`)) }).toEqual({ a: '1', b: '2' })
        await client.zAdd(`${prefix}z`, [{ score: 1.5, value: 'a' }, { score: 2, value: 'b' }])
        expect(await client.zScore(`${prefix}z`, 'a')).toBe(1.5)
        expect(await client.zRangeWithScores(`${prefix}z`, 0, -1)).toEqual([{ value: 'a', score: 1.5 }, { value: 'b', score: 2 }])
        expect(await client.zIncrBy(`${prefix}z`, 1, 'a')).toBe(2.5)
        await client.sAdd(`${prefix}set`, ['x', 'y'])
        expect([...(await client.sMembers(`${prefix}set`))].sort()).toEqual(['x', 'y'])
        expect(await client.multi().set(`${prefix}t`, '1').incr(`${prefix}t`).get(`${prefix}t`).exec()).toEqual(['OK', 2, '2'])
        expect(await client.eval('return {KEYS[1], ARGV[1], 7}', { keys: [`${prefix}k`], arguments: ['a'] })).toEqual([`${prefix}k`, 'a', 7])
        expect(await client.eval('return nil')).toBeNull()

        const received = new Promise<string>((resolve) => void subscriber.subscribe(`${prefix}ch`, (message) => resolve(message)))
        await waitFor(async () => (await client.pubSubNumSub(`${prefix}ch`))[`${prefix}ch`] === 1, 'the subscription')
        expect(await client.publish(`${prefix}ch`, 'hello')).toBe(1)
        expect(await received).toBe('hello')
        if (RESP === 3) {
          // RESP3: the subscribed connection still runs commands.
          expect(await subscriber.get(`${prefix}s`)).toBe('v')
        }
        await subscriber.unsubscribe(`${prefix}ch`)
      } finally {
        client.destroy()
        subscriber.destroy()
      }
    })
  }

  for (const options of [{ protocol: 3 }, { protocol: 3, replyMapping: 'resp3' }, { protocol: 2 }] as const) {
    test(`ioredis 6, ${JSON.stringify(options)}: the same data, read back`, async () => {
      const client = new Redis(target.port, '127.0.0.1', { ...options, lazyConnect: true, maxRetriesPerRequest: 1 })
      client.on('error', () => {})
      await client.connect()
      const subscriber = client.duplicate()
      subscriber.on('error', () => {})
      try {
        const prefix = `${tag}:io${options.protocol}${'replyMapping' in options ? 'm' : ''}:`
        expect(await client.set(`${prefix}s`, 'v')).toBe('OK')
        expect(await client.get(`${prefix}s`)).toBe('v')
        await client.hset(`${prefix}h`, 'a', '1', 'b', '2')
        expect(await client.hgetall(`${prefix}h`)).toEqual({ a: '1', b: '2' })
        await client.zadd(`${prefix}z`, 1.5, 'a', 2, 'b')
        const score = await client.zscore(`${prefix}z`, 'a')
        expect(Number(score)).toBe(1.5)
        const withScores = await client.zrange(`${prefix}z`, '0', '-1', 'WITHSCORES')
        expect(withScores.flat().map(String)).toEqual(['a', '1.5', 'b', '2'])
        expect(await client.multi().incr(`${prefix}n`).incr(`${prefix}n`).exec()).toEqual([[null, 1], [null, 2]])
        expect(await client.eval('return ARGV[1]', 0, 'x')).toBe('x')
        const received = new Promise<string>((resolve) => subscriber.on('message', (_channel: string, message: string) => resolve(message)))
        await subscriber.subscribe(`${prefix}ch`)
        expect(await client.publish(`${prefix}ch`, 'hi')).toBe(1)
        expect(await received).toBe('hi')
      } finally {
        client.disconnect()
        subscriber.disconnect()
      }
    })
  }

  test('connect-redis with express-session: a session saved by one request is read back by the next', async () => {
    const client = createClient({ url: url() })
    client.on('error', () => {})
    await client.connect()
    const middleware = session({
      store: new RedisStore({ client, prefix: `${tag}:sess:` }),
      secret: 'test secret',
      resave: false,
      saveUninitialized: false,
    })
    const app = http.createServer((req, res) => {
      middleware(req as never, res as never, () => {
        const data = (req as unknown as { session: { views?: number } }).session
        data.views = (data.views ?? 0) + 1
        res.end(String(data.views))
      })
    })
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve))
    try {
      const base = `http://127.0.0.1:${(app.address() as AddressInfo).port}/`
      const first = await fetch(base)
      expect(await first.text()).toBe('1')
      const cookie = first.headers.get('set-cookie')?.split(';')[0]
      expect(cookie).toMatch(/^connect\.sid=/)
      const second = await fetch(base, { headers: { cookie: cookie as string } })
      expect(await second.text()).toBe('2')
      const sid = decodeURIComponent((cookie as string).slice('connect.sid='.length)).slice(2).split('.')[0]
      expect(JSON.parse((await client.get(`${tag}:sess:${sid}`)) as string).views).toBe(2)
      expect(await client.ttl(`${tag}:sess:${sid}`)).toBeGreaterThan(0)
    } finally {
      await new Promise((resolve) => app.close(resolve))
      client.destroy()
    }
  })

  test('socket.io classic Redis adapter: a broadcast on one server reaches a client of the other', async () => {
    const clients = Array.from({ length: 4 }, () => createClient({ url: url() }))
    for (const client of clients) client.on('error', () => {})
    await Promise.all(clients.map((client) => client.connect()))
    const servers = [0, 1].map((i) => {
      const httpServer = http.createServer()
      const io = new SocketServer(httpServer)
      io.adapter(createAdapter(clients[2 * i], clients[2 * i + 1], { key: `${tag}-socket.io` }))
      return { httpServer, io }
    })
    await Promise.all(servers.map(({ httpServer }) => new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve))))
    const port = (servers[1].httpServer.address() as AddressInfo).port
    const socket = connectSocket(`http://127.0.0.1:${port}`, { transports: ['websocket'] })
    try {
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()))
      // Each adapter's subscriber sent its PSUBSCRIBE and SUBSCRIBE when the adapter was made; a
      // connection answers in order, so once a later PING is answered (RESP3 allows it while
      // subscribed) both subscriptions are confirmed. (PUBSUB NUMSUB would not do: behind the
      // socket executor, subscribers share one upstream connection.)
      expect(await Promise.all([clients[1].ping(), clients[3].ping()])).toEqual(['PONG', 'PONG'])
      const got = new Promise<string>((resolve) => socket.once('greeting', (text: string) => resolve(text)))
      servers[0].io.emit('greeting', 'across servers')
      expect(await got).toBe('across servers')
    } finally {
      socket.close()
      for (const { io } of servers) await new Promise((resolve) => io.close(resolve))
      // close() lets the adapter's commands in flight be answered; destroy() would reject them
      // with nobody left to catch the rejection.
      await Promise.allSettled(clients.map((client) => client.close()))
    }
  })
})
