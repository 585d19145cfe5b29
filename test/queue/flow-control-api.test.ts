/**
 * The flow-control API through `@upstash/qstash`'s `client.flowControl`: a key's state, pause and
 * resume with their effect on delivery, pinned settings, a rate reset, the global parallelism,
 * bad input; and a pause made through one queue process holding in another that shares a
 * redis-server (skipped with the reason without redis-server, except under CI=true).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { Client } from '@upstash/qstash'
import { SocketExecutor } from '../../src/executor/socket/index.js'
import type { QueueService } from '../../src/queue/index.js'
import { liveSuiteName, redisServerSkipReason, startRedisServer, type RedisServer } from '../support/redis-server.js'
import { listenFetch, startQueue, TOKEN, until, type Listening } from './support.js'

/** A target that counts deliveries per path and can hold them open. */
async function startTarget(): Promise<{ listening: Listening; hits: Map<string, number>; inFlight: () => number; maxInFlight: Map<string, number> }> {
  const hits = new Map<string, number>()
  const maxInFlight = new Map<string, number>()
  const open = new Map<string, number>()
  let total = 0
  const listening = await listenFetch(async (request) => {
    const path = new URL(request.url).pathname
    const group = path.split('/')[1]
    hits.set(path, (hits.get(path) ?? 0) + 1)
    open.set(group, (open.get(group) ?? 0) + 1)
    total++
    maxInFlight.set(group, Math.max(maxInFlight.get(group) ?? 0, open.get(group)!))
    if (group.startsWith('slow')) await new Promise((resolve) => setTimeout(resolve, 80))
    open.set(group, open.get(group)! - 1)
    total--
    return new Response('ok')
  })
  return { listening, hits, inFlight: () => total, maxInFlight }
}

/** The note the queue keeps on a message, from the dashboard API. */
async function noteOf(queue: QueueService & { url: string }, messageId: string): Promise<string | undefined> {
  const answer = (await (await fetch(`${queue.url}/v2/dashboard/messages/${messageId}`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as { message: { note?: string } }
  return answer.message.note
}

describe('client.flowControl with @upstash/qstash', () => {
  let queue: QueueService & { url: string }
  let client: Client
  let target: Awaited<ReturnType<typeof startTarget>>

  beforeAll(async () => {
    queue = await startQueue({ concurrency: 16 })
    client = new Client({ baseUrl: queue.url, token: TOKEN, retry: false })
    target = await startTarget()
  })
  afterAll(async () => {
    await queue?.close()
    await target?.listening.close()
  })

  const hitsUnder = (prefix: string): number => [...target.hits.entries()].filter(([path]) => path.startsWith(prefix)).reduce((sum, [, count]) => sum + count, 0)

  test('get reports a key a message used: settings in force, in-flight and rate counts', async () => {
    await expect(client.flowControl.get('never-used')).rejects.toThrow('flow-control key never-used not found')
    await client.publish({ url: `${target.listening.url}/info/1`, body: 'x', flowControl: { key: 'info-key', parallelism: 3, rate: 5, period: '1m' } })
    await until(() => (hitsUnder('/info/') === 1 ? true : undefined), 5000, 'the delivery')
    const info = await client.flowControl.get('info-key')
    expect(info).toMatchObject({ flowControlKey: 'info-key', parallelismMax: 3, rateMax: 5, ratePeriod: 60, rateCount: 1, waitListSize: 0, isPaused: false, isPinnedParallelism: false, isPinnedRate: false })
    expect(info.parallelismCount).toBe(0)
    expect(Math.abs(info.ratePeriodStart - Date.now() / 1000)).toBeLessThan(10)
  })

  test('a paused key delivers nothing until resumed; its messages wait without spending attempts', async () => {
    await client.flowControl.pause('paused-key')
    expect(await client.flowControl.get('paused-key')).toMatchObject({ isPaused: true })
    const published = await Promise.all([1, 2, 3].map((n) => client.publish({ url: `${target.listening.url}/paused/${n}`, body: String(n), flowControl: { key: 'paused-key', parallelism: 5 } })))
    // every message was looked at by the worker and sent back to wait
    for (const { messageId } of published) await until(async () => ((await noteOf(queue, messageId))?.startsWith('waiting for flow control paused-key') ? true : undefined), 5000, `${messageId} held back`)
    expect(hitsUnder('/paused/')).toBe(0)
    expect(await client.flowControl.get('paused-key')).toMatchObject({ isPaused: true, waitListSize: 3 })
    for (const { messageId } of published) expect(await client.messages.get(messageId)).toMatchObject({ state: 'pending' })
    await client.flowControl.resume('paused-key')
    await until(() => (hitsUnder('/paused/') === 3 ? true : undefined), 5000, 'three deliveries after resume')
    const log = (await (await fetch(`${queue.url}/v2/dashboard/messages/${published[0].messageId}`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as { log: { outcome: string; attempt: number }[] }
    expect(log.log.find((entry) => entry.outcome === 'delivered')?.attempt).toBe(0)
    expect(await client.flowControl.get('paused-key')).toMatchObject({ isPaused: false, waitListSize: 0 })
  })

  test('a pinned parallelism replaces the messages’ own until unpinned', async () => {
    await client.flowControl.pin('pinned-key', { parallelism: 1 })
    expect(await client.flowControl.get('pinned-key')).toMatchObject({ isPinnedParallelism: true, parallelismMax: 1, isPinnedRate: false })
    await Promise.all([1, 2, 3, 4].map((n) => client.publish({ url: `${target.listening.url}/slow-pinned/${n}`, body: String(n), flowControl: { key: 'pinned-key', parallelism: 4 } })))
    await until(() => (hitsUnder('/slow-pinned/') === 4 ? true : undefined), 10_000, 'four deliveries')
    expect(target.maxInFlight.get('slow-pinned')).toBe(1)
    await client.flowControl.unpin('pinned-key', { parallelism: true })
    expect(await client.flowControl.get('pinned-key')).toMatchObject({ isPinnedParallelism: false, parallelismMax: 4 })
    await Promise.all([1, 2, 3, 4].map((n) => client.publish({ url: `${target.listening.url}/slow-unpinned/${n}`, body: String(n), flowControl: { key: 'pinned-key', parallelism: 4 } })))
    await until(() => (hitsUnder('/slow-unpinned/') === 4 ? true : undefined), 10_000, 'four deliveries')
    expect(target.maxInFlight.get('slow-unpinned')).toBeGreaterThan(1)
  })

  test('a pinned rate holds back the second start; resetRate lets it go at once', async () => {
    await client.flowControl.pin('rate-key', { rate: 1, period: 3600 })
    expect(await client.flowControl.get('rate-key')).toMatchObject({ isPinnedRate: true, rateMax: 1, ratePeriod: 3600 })
    const published = await Promise.all([1, 2].map((n) => client.publish({ url: `${target.listening.url}/rate/${n}`, body: String(n), flowControl: { key: 'rate-key', rate: 100 } })))
    await until(() => (hitsUnder('/rate/') === 1 ? true : undefined), 5000, 'the first delivery')
    await until(async () => {
      const notes = await Promise.all(published.map(({ messageId }) => noteOf(queue, messageId)))
      return notes.some((note) => note?.startsWith('waiting for flow control rate-key')) ? true : undefined
    }, 5000, 'the second message held back')
    expect(hitsUnder('/rate/')).toBe(1)
    expect(await client.flowControl.get('rate-key')).toMatchObject({ rateCount: 1, waitListSize: 1 })
    // the pinned window would hold it for an hour: the reset clears the window and it goes now
    await client.flowControl.resetRate('rate-key')
    await until(() => (hitsUnder('/rate/') === 2 ? true : undefined), 5000, 'the second delivery')
  })

  test('getGlobalParallelism reports this process’s cap and the deliveries in flight', async () => {
    // the earlier tests' last delivery releases its slot once its answer is in: wait for that
    await until(async () => ((await client.flowControl.getGlobalParallelism()).parallelismCount === 0 ? true : undefined), 5000, 'no delivery in flight')
    expect(await client.flowControl.getGlobalParallelism()).toEqual({ parallelismMax: 16, parallelismCount: 0 })
  })

  test('bad input is refused with the reason', async () => {
    await expect(client.flowControl.pin('k', {})).rejects.toThrow('pin needs parallelism, rate or period')
    await expect(client.flowControl.pin('k', { parallelism: 0 })).rejects.toThrow(/invalid parallelism .*0.*: an integer from 1 to/)
    await expect(client.flowControl.pin('k', { rate: 1.5 })).rejects.toThrow(/invalid rate .*1\.5.*: an integer from 1 to/)
    await expect(client.flowControl.unpin('k', {})).rejects.toThrow('unpin needs parallelism=true or rate=true')
    await expect(client.flowControl.get('')).rejects.toThrow()
    const response = await fetch(`${queue.url}/v2/flowControl/k/pin?burst=3`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` } })
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({ error: 'unknown pin setting "burst" (parallelism, rate, period in seconds)' })
  })

  test('GET /v2/flowControl lists every key', async () => {
    const response = await fetch(`${queue.url}/v2/flowControl`, { headers: { authorization: `Bearer ${TOKEN}` } })
    const keys = ((await response.json()) as { flowControlKey: string }[]).map((info) => info.flowControlKey)
    expect(keys).toEqual(expect.arrayContaining(['info-key', 'paused-key', 'pinned-key', 'rate-key']))
  })
})

describe.skipIf(redisServerSkipReason !== undefined)(liveSuiteName('a flow-control pause across queue processes over one Redis'), () => {
  let redis: RedisServer
  beforeAll(async () => {
    redis = await startRedisServer()
  })
  afterAll(() => redis?.stop())

  test('a key paused through one process holds in the other until resumed through it', async () => {
    const target = await startTarget()
    const prefix = 'fc-api:'
    const a = await startQueue({ executor: new SocketExecutor({ url: redis.url }), prefix, pollInterval: 20 })
    const b = await startQueue({ executor: new SocketExecutor({ url: redis.url }), prefix, pollInterval: 20 })
    try {
      const clientA = new Client({ baseUrl: a.url, token: TOKEN, retry: false })
      const clientB = new Client({ baseUrl: b.url, token: TOKEN, retry: false })
      await clientA.flowControl.pause('shared-pause')
      const published = await Promise.all([1, 2].map((n) => clientB.publish({ url: `${target.listening.url}/shared/${n}`, body: String(n), flowControl: { key: 'shared-pause', parallelism: 2 } })))
      for (const { messageId } of published) await until(async () => ((await noteOf(b, messageId))?.startsWith('waiting for flow control') ? true : undefined), 5000, `${messageId} held back`)
      expect(target.hits.size).toBe(0)
      expect(await clientB.flowControl.get('shared-pause')).toMatchObject({ isPaused: true, waitListSize: 2 })
      await clientA.flowControl.resume('shared-pause')
      await until(() => (target.hits.size === 2 ? true : undefined), 5000, 'both deliveries after resume')
    } finally {
      await a.close()
      await b.close()
      await target.listening.close()
    }
  }, 30_000)
})
