/**
 * Flow control across `restis queue` processes that share one redis-server: messages published
 * to either process under one flow-control key never exceed its parallelism together, both
 * processes deliver, and a rate per period holds across them. Skipped (with the reason in the
 * suite name) without `redis-server`, except under CI=true.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { Client } from '@upstash/qstash'
import { liveSuiteName, redisServerSkipReason, startRedisServer, type RedisServer } from '../support/redis-server.js'
import { startQueueCli, stopProcess, type QueueProcess } from './queue-process.js'
import { listenFetch, until, type Listening } from './support.js'

describe.skipIf(redisServerSkipReason !== undefined)(liveSuiteName('flow control across queue processes over one Redis'), () => {
  let redis: RedisServer
  let processes: QueueProcess[] = []
  let target: Listening
  const starts: { path: string; at: number }[] = []
  let inFlight = 0
  let maxInFlight = 0

  beforeAll(async () => {
    redis = await startRedisServer()
    const args = ['--port', '0', '--redis', redis.url, '--token', 'fc-token', '--concurrency', '8']
    processes = await Promise.all([startQueueCli(args), startQueueCli(args)])
    target = await listenFetch(async (request) => {
      const path = new URL(request.url).pathname
      starts.push({ path, at: Date.now() })
      if (path.startsWith('/par/')) {
        inFlight++
        maxInFlight = Math.max(maxInFlight, inFlight)
        await new Promise((resolve) => setTimeout(resolve, 120))
        inFlight--
      }
      return new Response('ok')
    })
  }, 60_000)
  afterAll(async () => {
    await target?.close()
    await Promise.all(processes.map((queue) => stopProcess(queue.child, 'SIGTERM')))
    await redis?.stop()
  })

  const clients = () => processes.map((queue) => new Client({ baseUrl: queue.url, token: 'fc-token', retry: false }))

  /** Which process delivered a message, from its attempt log. */
  async function deliveredBy(queue: QueueProcess, messageId: string): Promise<string | undefined> {
    const answer = (await (await fetch(`${queue.url}/v2/dashboard/messages/${messageId}`, { headers: { authorization: 'Bearer fc-token' } })).json()) as { log: { outcome: string; by?: string }[] }
    return answer.log.find((entry) => entry.outcome === 'delivered')?.by
  }

  test('parallelism holds across both processes, and both deliver', async () => {
    const [a, b] = clients()
    const published = await Promise.all(
      Array.from({ length: 12 }, (_, n) => (n % 2 === 0 ? a : b).publish({ url: `${target.url}/par/${n}`, body: String(n), flowControl: { key: 'shared-par', parallelism: 2 } })),
    )
    await until(() => (starts.filter((start) => start.path.startsWith('/par/')).length === 12 && inFlight === 0 ? true : undefined), 20_000, '12 deliveries')
    expect(maxInFlight).toBe(2)
    const owners = new Set<string | undefined>()
    for (const { messageId } of published) owners.add(await until(() => deliveredBy(processes[0], messageId), 5000, `the log of ${messageId}`))
    expect(owners.size).toBe(2)
  }, 30_000)

  test('a rate per period holds across both processes', async () => {
    const [a, b] = clients()
    await Promise.all(Array.from({ length: 6 }, (_, n) => (n % 2 === 0 ? a : b).publish({ url: `${target.url}/rate/${n}`, body: String(n), flowControl: { key: 'shared-rate', rate: 3, period: '1s' } })))
    const got = await until(() => {
      const list = starts.filter((start) => start.path.startsWith('/rate/'))
      return list.length === 6 ? list : undefined
    }, 10_000, '6 deliveries')
    const times = got.map((start) => start.at).sort((x, y) => x - y)
    // any four consecutive starts span a period (measured at the target: a few ms of transport)
    for (let i = 0; i + 3 < times.length; i++) expect(times[i + 3] - times[i]).toBeGreaterThanOrEqual(950)
  }, 30_000)
})
