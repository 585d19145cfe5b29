/**
 * The event log through the real `@upstash/qstash` client's `logs()`: every state change of a
 * message, the hosted queue's filters, cursor pagination, and refusals.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { Client } from '@upstash/qstash'
import { listenFetch, startQueue, TOKEN, type Listening } from './support.js'
import type { QueueService } from '../../src/queue/index.js'

let queue: QueueService & { url: string }
let endpoint: Listening
let client: Client

beforeAll(async () => {
  endpoint = await listenFetch(async (request) => {
    const path = new URL(request.url).pathname
    return path === '/broken' ? new Response('down', { status: 503 }) : new Response('ok')
  })
  queue = await startQueue()
  client = new Client({ baseUrl: queue.url, token: TOKEN })
})

afterAll(async () => {
  await queue.close()
  await endpoint.close()
})

/** Messages whose final attempt the queue reported, and who waits for which. */
const finished = new Set<string>()
const waiting = new Map<string, () => void>()

/** Waits until the queue reports the message's final attempt (recorded from the start). */
function settled(messageId: string): Promise<void> {
  if (finished.has(messageId)) return Promise.resolve()
  return new Promise((resolve) => waiting.set(messageId, resolve))
}

beforeAll(() => {
  queue.on((event) => {
    if (event.type !== 'attempt' || event.outcome === 'retry') return
    finished.add(event.messageId)
    waiting.get(event.messageId)?.()
  })
})

/**
 * The log for `filter` once it holds `count` entries: the final entry is written by the queue's
 * own observer of the attempt, which may finish just after the test's observer has run.
 */
async function logsOf(filter: Parameters<Client['logs']>[0] extends infer R ? (R extends { filter?: infer F } ? F : never) : never, count: number) {
  for (let attempt = 0; ; attempt++) {
    const page = await client.logs({ filter })
    if (page.logs.length >= count || attempt === 200) return page
  }
}

describe('event log through @upstash/qstash', () => {
  test('records each state change, newest first, with what the message is for', async () => {
    const ok = await client.publishJSON({ url: `${endpoint.url}/ok`, body: { a: 1 } })
    await settled(ok.messageId)
    const broken = await client.publishJSON({ url: `${endpoint.url}/broken`, body: {}, retries: 1 })
    await settled(broken.messageId)

    const okLog = await logsOf({ messageId: ok.messageId }, 2)
    expect(okLog.logs.map((log) => log.state)).toEqual(['DELIVERED', 'CREATED'])
    expect(okLog.logs[0]).toMatchObject({ messageId: ok.messageId, url: `${endpoint.url}/ok` })
    expect(okLog.logs[0].time).toBeGreaterThanOrEqual(okLog.logs[1].time)

    const brokenLog = await logsOf({ messageId: broken.messageId }, 3)
    expect(brokenLog.logs.map((log) => log.state)).toEqual(['FAILED', 'RETRY', 'CREATED'])
    expect((brokenLog.logs[1] as { responseStatus?: number }).responseStatus).toBe(503)

    const failed = await client.logs({ filter: { state: 'FAILED' } })
    expect(failed.logs.map((log) => log.messageId)).toEqual([broken.messageId])
    const byUrl = await client.logs({ filter: { url: `${endpoint.url}/ok` } })
    expect(new Set(byUrl.logs.map((log) => log.messageId))).toEqual(new Set([ok.messageId]))
  })

  test('filters by URL group, queue and date range', async () => {
    await client.urlGroups.addEndpoints({ name: 'logged', endpoints: [{ url: `${endpoint.url}/g1`, name: 'first' }] })
    const [grouped] = await client.publishJSON({ urlGroup: 'logged', body: {} })
    const queued = await client.queue({ queueName: 'logq' }).enqueueJSON({ url: `${endpoint.url}/q1`, body: {} })
    await Promise.all([settled(grouped.messageId), settled(queued.messageId)])

    const group = await logsOf({ urlGroup: 'logged' }, 2)
    expect(group.logs.map((log) => log.state)).toEqual(['DELIVERED', 'CREATED'])
    expect(group.logs[0]).toMatchObject({ urlGroup: 'logged', topicName: 'logged', endpointName: 'first', messageId: grouped.messageId })
    const queued1 = await logsOf({ queueName: 'logq' }, 2)
    expect(queued1.logs.map((log) => [log.messageId, log.state])).toEqual([
      [queued.messageId, 'DELIVERED'],
      [queued.messageId, 'CREATED'],
    ])
    const future = await client.logs({ filter: { fromDate: Date.now() + 60_000 } })
    expect(future.logs).toEqual([])
    const past = await client.logs({ filter: { toDate: 1 } })
    expect(past.logs).toEqual([])
  })

  test('pages with a cursor until the log is exhausted', async () => {
    const seen: string[] = []
    let cursor: string | number | undefined
    let pages = 0
    do {
      const page = await client.logs({ count: 3, cursor })
      for (const log of page.logs) seen.push(`${log.messageId}:${log.state}:${log.time}`)
      cursor = page.cursor
      pages++
    } while (cursor && pages < 100)
    const all = await client.logs({ count: 1000 })
    expect(seen).toEqual(all.logs.map((log) => `${log.messageId}:${log.state}:${log.time}`))
    expect(pages).toBeGreaterThan(2)
    expect(all.cursor).toBeUndefined()
  })

  test('refuses filters the log does not take and bad values, with the reason', async () => {
    await expect(client.logs({ filter: { responseStatus: 500 } as never })).rejects.toThrow(/filter responseStatus is not supported on the event log/)
    await expect(client.logs({ filter: { fromDate: 'yesterday' as never } })).rejects.toThrow(/invalid fromDate .*yesterday.*: unix milliseconds or a date/)
    await expect(client.logs({ count: 5000 })).rejects.toThrow(/invalid count/)
    await expect(client.logs({ cursor: 'nope' })).rejects.toThrow(/invalid cursor/)
  })
})
