/**
 * Queues through the real `@upstash/qstash` client: upsert (parallelism), list, get, delete,
 * pause and resume, `enqueue` / `enqueueJSON`, parallelism and order enforced.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { Client } from '@upstash/qstash'
import { listenFetch, startQueue, TOKEN, type Listening } from './support.js'
import type { QueueService } from '../../src/queue/index.js'

let queue: QueueService & { url: string }
let endpoint: Listening
let client: Client
/** Deliveries by path, in arrival order; held ones answer when released. */
const arrived: { path: string; body: string; release: () => void }[] = []
let inFlight = 0
let maxInFlight = 0
let waiters: { path: string; count: number; resolve: () => void }[] = []
const held = new Set<string>()

function arrivals(path: string): string[] {
  return arrived.filter((entry) => entry.path === path).map((entry) => entry.body)
}

function reach(path: string, count: number): Promise<void> {
  if (arrivals(path).length >= count) return Promise.resolve()
  return new Promise((resolve) => waiters.push({ path, count, resolve }))
}

beforeAll(async () => {
  endpoint = await listenFetch(async (request) => {
    const path = new URL(request.url).pathname
    const body = await request.text()
    let release = (): void => {}
    const answered = new Promise<void>((resolve) => (release = resolve))
    if (!held.has(path)) release()
    inFlight++
    maxInFlight = Math.max(maxInFlight, inFlight)
    arrived.push({ path, body, release })
    waiters = waiters.filter((waiter) => (arrivals(waiter.path).length >= waiter.count ? (waiter.resolve(), false) : true))
    await answered
    inFlight--
    return new Response('ok')
  })
  queue = await startQueue()
  client = new Client({ baseUrl: queue.url, token: TOKEN })
})

afterAll(async () => {
  await queue.close()
  await endpoint.close()
})

afterEach(async () => {
  for (const listed of await client.queue().list()) await client.queue({ queueName: listed.name }).delete()
})

describe('queues through @upstash/qstash', () => {
  test('upsert, get, list and delete', async () => {
    await client.queue({ queueName: 'emails' }).upsert({ parallelism: 3 })
    await client.queue({ queueName: 'reports' }).upsert({ paused: true })
    expect(await client.queue({ queueName: 'emails' }).get()).toMatchObject({ name: 'emails', parallelism: 3, lag: 0, paused: false })
    expect(await client.queue({ queueName: 'reports' }).get()).toMatchObject({ name: 'reports', parallelism: 1, paused: true })
    await client.queue({ queueName: 'emails' }).upsert({ parallelism: 5 })
    expect((await client.queue({ queueName: 'emails' }).get()).parallelism).toBe(5)
    expect((await client.queue().list()).map((listed) => listed.name)).toEqual(['emails', 'reports'])
    await client.queue({ queueName: 'emails' }).delete()
    await expect(client.queue({ queueName: 'emails' }).get()).rejects.toThrow(/queue emails not found/)
    await expect(client.queue({ queueName: 'emails' }).delete()).rejects.toThrow(/not found/)
  })

  test('delivers in order, never more than `parallelism` at once', async () => {
    held.add('/lane')
    await client.queue({ queueName: 'lane' }).upsert({ parallelism: 2 })
    const lane = client.queue({ queueName: 'lane' })
    const ids: string[] = []
    for (let index = 0; index < 5; index++) ids.push((await lane.enqueueJSON({ url: `${endpoint.url}/lane`, body: { index } })).messageId)
    expect(new Set(ids).size).toBe(5)
    await reach('/lane', 2)
    expect(arrivals('/lane')).toEqual(['{"index":0}', '{"index":1}'])
    expect((await lane.get()).lag).toBe(3)
    // each answer lets the next one through
    for (let index = 0; index < 5; index++) {
      arrived.filter((entry) => entry.path === '/lane')[index].release()
      await reach('/lane', Math.min(5, index + 3))
    }
    expect(arrivals('/lane')).toEqual([0, 1, 2, 3, 4].map((index) => JSON.stringify({ index })))
    expect(maxInFlight).toBe(2)
    held.delete('/lane')
    for (const entry of arrived) entry.release()
  })

  test('enqueueing to a new queue creates it with parallelism 1; plain enqueue keeps the body', async () => {
    const answer = await client.queue({ queueName: 'fresh' }).enqueue({ url: `${endpoint.url}/fresh`, body: 'raw text', headers: { 'content-type': 'text/plain' } })
    expect(answer.messageId).toMatch(/^msg_/)
    await reach('/fresh', 1)
    expect(arrivals('/fresh')).toEqual(['raw text'])
    expect(await client.queue({ queueName: 'fresh' }).get()).toMatchObject({ parallelism: 1, paused: false })
  })

  test('a paused queue holds its messages until resumed', async () => {
    const paused = client.queue({ queueName: 'held' })
    await paused.upsert({ parallelism: 1 })
    await paused.pause()
    expect((await paused.get()).paused).toBe(true)
    await paused.enqueueJSON({ url: `${endpoint.url}/held`, body: { n: 1 } })
    // a queue created after it is dispatched in the same pass: once its message arrives, the
    // paused one has been passed over
    await client.queue({ queueName: 'sentinel' }).enqueueJSON({ url: `${endpoint.url}/sentinel`, body: {} })
    await reach('/sentinel', 1)
    expect(arrivals('/held')).toEqual([])
    expect((await paused.get()).lag).toBe(1)
    await paused.resume()
    await reach('/held', 1)
    expect(arrivals('/held')).toEqual(['{"n":1}'])
    expect((await paused.get()).lag).toBe(0)
  })

  test('refuses what it cannot do, with the reason', async () => {
    await expect(client.queue({ queueName: 'q' }).upsert({ parallelism: 0 })).rejects.toThrow(/invalid parallelism 0/)
    await expect(client.queue({ queueName: 'bad name!' }).upsert({ parallelism: 1 })).rejects.toThrow(/invalid queue name/)
    await expect(client.queue({ queueName: 'q' }).enqueue({ url: 'ftp://example.com/x', body: 'x' })).rejects.toThrow(/only http and https/)
    await expect(client.queue({ queueName: 'nobody' }).pause()).rejects.toThrow(/queue nobody not found/)
  })
})
