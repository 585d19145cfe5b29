/**
 * URL groups through the real `@upstash/qstash` client: add and remove endpoints, list, get,
 * delete, and publishing to a group (each endpoint gets its own message, retried on its own).
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { Client } from '@upstash/qstash'
import { listenFetch, startQueue, TOKEN, type Listening } from './support.js'
import type { QueueService } from '../../src/queue/index.js'

interface Delivery {
  readonly path: string
  readonly headers: Headers
  readonly body: string
}

let queue: QueueService & { url: string }
let endpoint: Listening
let client: Client
const deliveries: Delivery[] = []
let waiters: { count: number; resolve: () => void }[] = []
/** Paths that answer 500 until a delivery has failed there once. */
const failOnce = new Set<string>()

function deliveriesReach(count: number): Promise<void> {
  if (deliveries.length >= count) return Promise.resolve()
  return new Promise((resolve) => waiters.push({ count, resolve }))
}

beforeAll(async () => {
  endpoint = await listenFetch(async (request) => {
    const path = new URL(request.url).pathname
    if (failOnce.delete(path)) return new Response('try again', { status: 500 })
    deliveries.push({ path, headers: request.headers, body: await request.text() })
    waiters = waiters.filter((waiter) => (deliveries.length >= waiter.count ? (waiter.resolve(), false) : true))
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
  for (const group of await client.urlGroups.list()) await client.urlGroups.delete(group.name)
  deliveries.length = 0
})

describe('URL groups through @upstash/qstash', () => {
  test('add, list, get, remove endpoints and delete a group', async () => {
    await client.urlGroups.addEndpoints({ name: 'orders', endpoints: [{ url: `${endpoint.url}/a`, name: 'a' }, { url: `${endpoint.url}/b` }] })
    // the same URL again takes the new name instead of a second entry
    await client.urlGroups.addEndpoints({ name: 'orders', endpoints: [{ url: `${endpoint.url}/b`, name: 'bee' }] })
    const group = await client.urlGroups.get('orders')
    expect(group.name).toBe('orders')
    expect(group.endpoints).toEqual([
      { url: `${endpoint.url}/a`, name: 'a' },
      { url: `${endpoint.url}/b`, name: 'bee' },
    ])
    expect(group.createdAt).toBeGreaterThan(0)
    await client.urlGroups.addEndpoints({ name: 'audit', endpoints: [{ url: `${endpoint.url}/c` }] })
    expect((await client.urlGroups.list()).map((listed) => listed.name)).toEqual(['orders', 'audit'])

    await client.urlGroups.removeEndpoints({ name: 'orders', endpoints: [{ name: 'a' }] })
    expect((await client.urlGroups.get('orders')).endpoints).toEqual([{ url: `${endpoint.url}/b`, name: 'bee' }])
    await client.urlGroups.removeEndpoints({ name: 'orders', endpoints: [{ url: `${endpoint.url}/b` }] })
    expect((await client.urlGroups.get('orders')).endpoints).toEqual([])

    await client.urlGroups.delete('orders')
    await expect(client.urlGroups.get('orders')).rejects.toThrow(/url group orders not found/)
    await expect(client.urlGroups.delete('orders')).rejects.toThrow(/not found/)
    expect((await client.urlGroups.list()).map((listed) => listed.name)).toEqual(['audit'])
  })

  test('publishing to a group gives each endpoint its own message, retried on its own', async () => {
    await client.urlGroups.addEndpoints({ name: 'fanout', endpoints: [{ url: `${endpoint.url}/one` }, { url: `${endpoint.url}/two` }] })
    failOnce.add('/two')
    const answers = await client.publishJSON({ urlGroup: 'fanout', body: { order: 7 }, headers: { 'x-tenant': 't1' } })
    expect(answers).toHaveLength(2)
    expect(answers.map((answer) => answer.url)).toEqual([`${endpoint.url}/one`, `${endpoint.url}/two`])
    expect(new Set(answers.map((answer) => answer.messageId)).size).toBe(2)
    await deliveriesReach(2)
    expect(deliveries.map((delivery) => delivery.path).sort()).toEqual(['/one', '/two'])
    for (const delivery of deliveries) {
      expect(JSON.parse(delivery.body)).toEqual({ order: 7 })
      expect(delivery.headers.get('x-tenant')).toBe('t1')
    }
    const retried = deliveries.find((delivery) => delivery.path === '/two')!
    expect(retried.headers.get('upstash-retried')).toBe('1')
    expect(deliveries.find((delivery) => delivery.path === '/one')!.headers.get('upstash-retried')).toBe('0')
  })

  test('refuses what it cannot do, with the reason', async () => {
    await expect(client.publishJSON({ urlGroup: 'nobody', body: {} })).rejects.toThrow(/url group nobody not found/)
    await client.urlGroups.addEndpoints({ name: 'empty', endpoints: [{ url: `${endpoint.url}/x` }] })
    await client.urlGroups.removeEndpoints({ name: 'empty', endpoints: [{ url: `${endpoint.url}/x` }] })
    await expect(client.publishJSON({ urlGroup: 'empty', body: {} })).rejects.toThrow(/has no endpoints/)
    await expect(client.urlGroups.addEndpoints({ name: 'bad', endpoints: [{ url: 'ftp://example.com' }] })).rejects.toThrow(/an absolute http\(s\) URL is required/)
    await expect(client.urlGroups.addEndpoints({ name: 'bad', endpoints: [] })).rejects.toThrow(/non-empty array/)
    await expect(client.urlGroups.removeEndpoints({ name: 'empty', endpoints: [{ url: `${endpoint.url}/gone` }] })).rejects.toThrow(/none of those endpoints/)
    await expect(client.urlGroups.addEndpoints({ name: 'bad name!', endpoints: [{ url: `${endpoint.url}/x` }] })).rejects.toThrow(/invalid url group name/)
  })
})
