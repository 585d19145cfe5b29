/**
 * Every publish option `client.schedules.create` sends, through the real `@upstash/qstash`
 * client: a schedule with the option fires (on the injected clock) and the option has its effect
 * on the fire's message — callback, retry delay, timeout, queue, flow control, redaction — and
 * what a schedule cannot honour is refused with the reason.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { Client } from '@upstash/qstash'
import { MemoryExecutor } from '../../src/executor/memory/memory-executor.js'
import type { QueueService } from '../../src/queue/index.js'
import { listenFetch, startQueue, TOKEN, until, type Listening } from './support.js'

interface Arrival {
  readonly path: string
  readonly at: number
  readonly headers: Headers
  readonly body: string
}

const MINUTE = 60_000
let now = Date.now()
const executor = new MemoryExecutor()
let queue: QueueService & { url: string }
let endpoint: Listening
let client: Client
const arrivals: Arrival[] = []
/** Per path: what the endpoint answers (default 200 "ok"). */
const behaviour = new Map<string, (arrival: Arrival) => Promise<Response>>()

/** Moves the clock to the schedule's next fire; resolves with the fire's message id. */
async function fire(scheduleId: string): Promise<string> {
  const before = await client.schedules.get(scheduleId)
  now = before.nextScheduleTime!
  return until(async () => {
    const after = (await client.schedules.get(scheduleId)) as { lastMessageId?: string }
    return after.lastMessageId !== undefined && after.lastMessageId !== (before as { lastMessageId?: string }).lastMessageId ? after.lastMessageId : undefined
  }, 10_000, `a fire of ${scheduleId}`)
}

const arrived = (path: string, count = 1): Promise<Arrival[]> =>
  until(() => {
    const seen = arrivals.filter((arrival) => arrival.path === path)
    return seen.length >= count ? seen : undefined
  }, 10_000, `${count} deliveries to ${path}`)

async function dashboardMessage(id: string): Promise<{ status: string; lastError?: string; headers: Record<string, string>; body: string }> {
  const answer = await fetch(`${queue.url}/v2/dashboard/messages/${id}`, { headers: { authorization: `Bearer ${TOKEN}` } })
  return ((await answer.json()) as { message: { status: string; lastError?: string; headers: Record<string, string>; body: string } }).message
}

beforeAll(async () => {
  endpoint = await listenFetch(async (request) => {
    const arrival = { path: new URL(request.url).pathname, at: Date.now(), headers: request.headers, body: await request.text() }
    arrivals.push(arrival)
    return (await behaviour.get(arrival.path)?.(arrival)) ?? new Response('ok')
  })
  queue = await startQueue({ executor, clock: () => now, deliveryTimeout: 5_000 })
  client = new Client({ baseUrl: queue.url, token: TOKEN, retry: false })
})

afterAll(async () => {
  await queue.close()
  await endpoint.close()
  await executor.close()
})

describe('schedules carry every publish option to each fire', () => {
  test('callback: each fire\'s answer is posted to the callback URL', async () => {
    behaviour.set('/cb-target', async () => new Response('the answer', { status: 200 }))
    const { scheduleId } = await client.schedules.create({ destination: `${endpoint.url}/cb-target`, cron: '* * * * *', body: 'b', callback: `${endpoint.url}/cb` })
    expect((await client.schedules.get(scheduleId)).callback).toBe(`${endpoint.url}/cb`)
    const messageId = await fire(scheduleId)
    const [callback] = await arrived('/cb')
    const payload = JSON.parse(callback.body) as { status: number; body: string; sourceMessageId: string }
    expect(payload.status).toBe(200)
    expect(Buffer.from(payload.body, 'base64').toString()).toBe('the answer')
    expect(payload.sourceMessageId).toBe(messageId)
    await client.schedules.delete(scheduleId)
  })

  test('retry delay: a failed fire is retried after the expression\'s delay, not the service backoff', async () => {
    let calls = 0
    behaviour.set('/flaky', async () => new Response('no', { status: ++calls === 1 ? 500 : 200 }))
    const { scheduleId } = await client.schedules.create({ destination: `${endpoint.url}/flaky`, cron: '* * * * *', retries: 2, retryDelay: '600 + retried' })
    expect((await client.schedules.get(scheduleId)).retryDelayExpression).toBe('600 + retried')
    await fire(scheduleId)
    const [first, second] = await arrived('/flaky', 2)
    // the service backoff in these tests is 20 ms
    expect(second.at - first.at).toBeGreaterThanOrEqual(590)
    await client.schedules.delete(scheduleId)
  })

  test('timeout: an attempt longer than the schedule\'s timeout is cut off and fails', async () => {
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    behaviour.set('/slow', async () => {
      await held
      return new Response('late')
    })
    const { scheduleId } = await client.schedules.create({ destination: `${endpoint.url}/slow`, cron: '* * * * *', retries: 0, timeout: 1 })
    expect(((await client.schedules.get(scheduleId)) as { timeout?: number }).timeout).toBe(1)
    const messageId = await fire(scheduleId)
    const failed = await until(async () => {
      const message = await dashboardMessage(messageId)
      return message.status === 'failed' ? message : undefined
    }, 10_000, 'the timed-out fire to fail')
    expect(failed.lastError).toBe('timed out after 1000 ms')
    release()
    await client.schedules.delete(scheduleId)
  })

  test('queue: each fire is enqueued and waits for its turn (a paused queue holds it)', async () => {
    const lane = client.queue({ queueName: 'sched-lane' })
    await lane.upsert({ parallelism: 1, paused: true })
    const { scheduleId } = await client.schedules.create({ destination: `${endpoint.url}/queued`, cron: '* * * * *', body: 'q', queueName: 'sched-lane' })
    expect((await client.schedules.get(scheduleId)).queueName).toBe('sched-lane')
    await fire(scheduleId)
    expect((await lane.get()).lag).toBe(1)
    expect(arrivals.filter((arrival) => arrival.path === '/queued')).toHaveLength(0)
    await lane.resume()
    const [delivery] = await arrived('/queued')
    expect(delivery.body).toBe('q')
    expect(delivery.headers.get('upstash-schedule-id')).toBe(scheduleId)
    await client.schedules.delete(scheduleId)
  })

  test('flow control: a fire waits while its key\'s only slot is held', async () => {
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    behaviour.set('/holder', async () => {
      await held
      return new Response('done')
    })
    const flowControl = { key: 'sched-key', parallelism: 1 }
    await client.publish({ url: `${endpoint.url}/holder`, body: 'h', flowControl })
    await arrived('/holder')
    const { scheduleId } = await client.schedules.create({ destination: `${endpoint.url}/controlled`, cron: '* * * * *', flowControl })
    expect(await client.schedules.get(scheduleId)).toMatchObject({ flowControlKey: 'sched-key', parallelism: 1 })
    const messageId = await fire(scheduleId)
    // the fire's message exists and is due, but its key has no free slot: a few polls go by
    await new Promise((resolve) => setTimeout(resolve, 400))
    expect(arrivals.filter((arrival) => arrival.path === '/controlled')).toHaveLength(0)
    expect((await dashboardMessage(messageId)).status).toBe('pending')
    release()
    await arrived('/controlled')
    await client.schedules.delete(scheduleId)
  })

  test('redaction: the API shows REDACTED for the body and named headers; the destination gets them', async () => {
    const { scheduleId } = await client.schedules.create({
      destination: `${endpoint.url}/secret`,
      cron: '* * * * *',
      body: 'card 4111',
      headers: { 'x-secret': 's3cr3t', 'x-plain': 'shown' },
      redact: { body: true, header: ['X-Secret'] },
    })
    const schedule = await client.schedules.get(scheduleId)
    expect(schedule.body).toBe('REDACTED')
    expect(schedule.header).toMatchObject({ 'x-secret': ['REDACTED'], 'x-plain': ['shown'] })
    const messageId = await fire(scheduleId)
    const [delivery] = await arrived('/secret')
    expect(delivery.body).toBe('card 4111')
    expect(delivery.headers.get('x-secret')).toBe('s3cr3t')
    const message = await client.messages.get(messageId)
    expect(message.body).toBe('REDACTED')
    expect(message.header).toMatchObject({ 'x-secret': ['REDACTED'], 'x-plain': ['shown'] })
    const step = await dashboardMessage(messageId)
    expect(step.body).toBe('REDACTED')
    expect(step.headers).toMatchObject({ 'x-secret': 'REDACTED', 'x-plain': 'shown' })
    await client.schedules.delete(scheduleId)
  })

  test('a whole-header redaction hides every header', async () => {
    const { scheduleId } = await client.schedules.create({ destination: `${endpoint.url}/x`, cron: '0 0 * * *', headers: { 'x-a': '1' }, redact: { header: true } })
    expect((await client.schedules.get(scheduleId)).header).toMatchObject({ 'x-a': ['REDACTED'] })
    await client.schedules.delete(scheduleId)
  })

  test('refuses what a schedule cannot honour, with the reason', async () => {
    const base = { destination: `${endpoint.url}/x`, cron: '* * * * *' }
    await expect(client.schedules.create({ ...base, timeout: 60 })).rejects.toThrow(/Upstash-Timeout of 60000 ms is longer than this queue's delivery timeout \(5000 ms\)/)
    await expect(client.schedules.create({ ...base, timeout: '0s' })).rejects.toThrow(/invalid Upstash-Timeout .*0s.*a positive duration/)
    await expect(client.schedules.create({ ...base, retryDelay: 'pow(' })).rejects.toThrow(/invalid Upstash-Retry-Delay/)
    await expect(client.schedules.create({ ...base, callback: 'ftp://x/y' })).rejects.toThrow(/invalid Upstash-Callback/)
    await expect(client.schedules.create({ ...base, queueName: 'no spaces' })).rejects.toThrow(/invalid Upstash-Queue-Name/)
    await expect(client.schedules.create({ ...base, headers: { 'Upstash-Redact-Fields': 'everything' } })).rejects.toThrow(/invalid Upstash-Redact-Fields item .*everything/)
    await expect(client.schedules.create({ ...base, headers: { 'Upstash-Deduplication-Id': 'd' } })).rejects.toThrow(/do not apply to schedules/)
    expect(await client.schedules.list()).toEqual([])
  })
})

describe('publish honours the same options', () => {
  test('Upstash-Timeout bounds a published message\'s attempt; Upstash-Redact-Fields hides its body', async () => {
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    behaviour.set('/slow-publish', async () => {
      await held
      return new Response('late')
    })
    const { messageId } = await client.publish({ url: `${endpoint.url}/slow-publish`, body: 'pin 1234', retries: 0, timeout: 1, redact: { body: true } })
    const failed = await until(async () => {
      const message = await dashboardMessage(messageId)
      return message.status === 'failed' ? message : undefined
    }, 10_000, 'the timed-out message to fail')
    expect(failed.lastError).toBe('timed out after 1000 ms')
    expect(failed.body).toBe('REDACTED')
    const [dead] = (await client.dlq.listMessages()).messages.filter((entry) => entry.messageId === messageId)
    expect(dead.body).toBe('REDACTED')
    release()
    await expect(client.publish({ url: `${endpoint.url}/x`, timeout: 60 })).rejects.toThrow(/longer than this queue's delivery timeout/)
  })

  test('Upstash-Timeout on a workflow message bounds its attempt too; too long is refused', async () => {
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    behaviour.set('/slow-workflow', async () => {
      await held
      return new Response('late')
    })
    const headers = {
      authorization: `Bearer ${TOKEN}`,
      'Upstash-Workflow-Init': 'true',
      'Upstash-Workflow-RunId': 'wfr_timeout_1',
      'Upstash-Retries': '0',
      'Upstash-Timeout': '1s',
    }
    const started = await fetch(`${queue.url}/v2/publish/${endpoint.url}/slow-workflow`, { method: 'POST', headers, body: '{}' })
    expect(started.status).toBe(201)
    const { messageId } = (await started.json()) as { messageId: string }
    const failed = await until(async () => {
      const message = await dashboardMessage(messageId)
      return message.status === 'failed' ? message : undefined
    }, 10_000, 'the timed-out run message to fail')
    expect(failed.lastError).toBe('timed out after 1000 ms')
    release()
    const refused = await fetch(`${queue.url}/v2/publish/${endpoint.url}/slow-workflow`, { method: 'POST', headers: { ...headers, 'Upstash-Workflow-RunId': 'wfr_timeout_2', 'Upstash-Timeout': '60s' }, body: '{}' })
    expect(refused.status).toBe(400)
    expect(await refused.text()).toMatch(/Upstash-Timeout of 60000 ms is longer than this queue's delivery timeout \(5000 ms\)/)
  })
})
