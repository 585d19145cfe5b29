/**
 * Schedules through the real `@upstash/qstash` client: create, get, list, pause, resume, delete,
 * fires on the (injected) clock with the schedule's method, headers, body and retries, time
 * zones, refusals, and a fire missed while no queue process ran (skipped, counted, reported).
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { Client } from '@upstash/qstash'
import { MemoryExecutor } from '../../src/executor/memory/memory-executor.js'
import { listenFetch, startQueue, TOKEN, until, type Listening } from './support.js'
import type { QueueService } from '../../src/queue/index.js'

interface Delivery {
  readonly path: string
  readonly method: string
  readonly headers: Headers
  readonly body: string
}

/** An endpoint that records deliveries; `next(path)` resolves with the next one to `path`. */
class Recorder {
  readonly deliveries: Delivery[] = []
  private waiters: { path: string; resolve: (delivery: Delivery) => void }[] = []
  seen = 0

  handle = async (request: Request): Promise<Response> => {
    const delivery = { path: new URL(request.url).pathname, method: request.method, headers: request.headers, body: await request.text() }
    this.deliveries.push(delivery)
    for (const waiter of this.waiters.filter((candidate) => candidate.path === delivery.path)) {
      this.waiters.splice(this.waiters.indexOf(waiter), 1)
      waiter.resolve(delivery)
    }
    return new Response('ok')
  }

  next(path: string): Promise<Delivery> {
    return new Promise((resolve) => this.waiters.push({ path, resolve }))
  }

  to(path: string): Delivery[] {
    return this.deliveries.filter((delivery) => delivery.path === path)
  }
}

const MINUTE = 60_000
let now = Date.now()
const clock = (): number => now
const executor = new MemoryExecutor()
let queue: QueueService & { url: string }
let endpoint: Listening
let recorder: Recorder
let client: Client

/** Moves the clock to `time` and waits for the delivery to `path` that follows. */
async function fireAt(time: number, path: string): Promise<Delivery> {
  const delivered = recorder.next(path)
  now = time
  return delivered
}

beforeAll(async () => {
  recorder = new Recorder()
  endpoint = await listenFetch(recorder.handle)
  queue = await startQueue({ executor, clock })
  client = new Client({ baseUrl: queue.url, token: TOKEN })
})

afterAll(async () => {
  await queue.close()
  await endpoint.close()
  await executor.close()
})

afterEach(async () => {
  for (const schedule of await client.schedules.list()) await client.schedules.delete(schedule.scheduleId)
})

describe('schedules through @upstash/qstash', () => {
  test('a schedule fires on its cron time with its method, headers, body and retries', async () => {
    const { scheduleId } = await client.schedules.create({
      destination: `${endpoint.url}/hook`,
      cron: '*/5 * * * *',
      method: 'PUT',
      body: 'tick',
      headers: { 'content-type': 'text/plain', 'x-custom': 'a' },
      retries: 2,
    })
    expect(scheduleId).toMatch(/^scd_/)
    const created = await client.schedules.get(scheduleId)
    const firstFire = Math.floor(now / (5 * MINUTE)) * 5 * MINUTE + 5 * MINUTE
    expect(created).toMatchObject({
      scheduleId,
      cron: '*/5 * * * *',
      destination: `${endpoint.url}/hook`,
      method: 'PUT',
      body: 'tick',
      retries: 2,
      isPaused: false,
      nextScheduleTime: firstFire,
    })
    expect(created.header).toMatchObject({ 'x-custom': ['a'] })

    const delivery = await fireAt(firstFire, '/hook')
    expect(delivery.method).toBe('PUT')
    expect(delivery.body).toBe('tick')
    expect(delivery.headers.get('x-custom')).toBe('a')
    expect(delivery.headers.get('upstash-schedule-id')).toBe(scheduleId)
    const after = await client.schedules.get(scheduleId)
    expect(after.lastScheduleTime).toBe(firstFire)
    expect(after.nextScheduleTime).toBe(firstFire + 5 * MINUTE)
    const message = await queue.fetch(new Request(`${queue.url}/v2/dashboard/messages/${(after as { lastMessageId?: string }).lastMessageId}`, { headers: { authorization: `Bearer ${TOKEN}` } }))
    expect(((await message.json()) as { message: { maxRetries: number } }).message.maxRetries).toBe(2)

    // the next fire, once
    const second = await fireAt(firstFire + 5 * MINUTE, '/hook')
    expect(second.body).toBe('tick')
    expect(recorder.to('/hook')).toHaveLength(2)
  })

  test('list, pause (no fire while paused), resume (from now on) and delete', async () => {
    const { scheduleId } = await client.schedules.create({ destination: `${endpoint.url}/paused`, cron: '* * * * *', body: 'p' })
    const { scheduleId: sentinel } = await client.schedules.create({ destination: `${endpoint.url}/sentinel`, cron: '* * * * *', scheduleId: 'sentinel-1' })
    expect(sentinel).toBe('sentinel-1')
    expect((await client.schedules.list()).map((schedule) => schedule.scheduleId).sort()).toEqual([scheduleId, 'sentinel-1'].sort())

    await client.schedules.pause({ schedule: scheduleId })
    const paused = await client.schedules.get(scheduleId)
    expect(paused.isPaused).toBe(true)
    expect(paused.nextScheduleTime).toBeUndefined()
    // the sentinel fires in the same pass the paused schedule would have
    await fireAt((await client.schedules.get('sentinel-1')).nextScheduleTime!, '/sentinel')
    expect(recorder.to('/paused')).toHaveLength(0)

    await client.schedules.resume({ schedule: scheduleId })
    const resumed = await client.schedules.get(scheduleId)
    expect(resumed.isPaused).toBe(false)
    expect(resumed.nextScheduleTime).toBe(Math.floor(now / MINUTE) * MINUTE + MINUTE)
    const delivery = await fireAt(resumed.nextScheduleTime!, '/paused')
    expect(delivery.body).toBe('p')
    expect(recorder.to('/paused')).toHaveLength(1)

    await client.schedules.delete(scheduleId)
    await expect(client.schedules.get(scheduleId)).rejects.toThrow(/not found/)
    expect((await client.schedules.list()).map((schedule) => schedule.scheduleId)).toEqual(['sentinel-1'])
    await expect(client.schedules.delete(scheduleId)).rejects.toThrow(/not found/)
    await expect(client.schedules.pause({ schedule: scheduleId })).rejects.toThrow(/not found/)
  })

  test('an existing schedule id is replaced, keeping its creation time', async () => {
    await client.schedules.create({ destination: `${endpoint.url}/a`, cron: '0 * * * *', scheduleId: 'same' })
    const first = await client.schedules.get('same')
    await client.schedules.create({ destination: `${endpoint.url}/b`, cron: '30 * * * *', scheduleId: 'same' })
    const second = await client.schedules.get('same')
    expect(second).toMatchObject({ destination: `${endpoint.url}/b`, cron: '30 * * * *', createdAt: first.createdAt })
    expect(await client.schedules.list()).toHaveLength(1)
  })

  test('CRON_TZ reads the fields in that zone', async () => {
    const { scheduleId } = await client.schedules.create({ destination: `${endpoint.url}/tz`, cron: 'CRON_TZ=Asia/Kolkata 0 9 * * *' })
    const next = new Date((await client.schedules.get(scheduleId)).nextScheduleTime!)
    // 09:00 in Kolkata is 03:30 UTC
    expect([next.getUTCHours(), next.getUTCMinutes()]).toEqual([3, 30])
    expect(next.getTime() - now).toBeLessThanOrEqual(24 * 60 * MINUTE)
    expect(next.getTime()).toBeGreaterThan(now)
  })

  test('a delay is carried to each fire', async () => {
    const { scheduleId } = await client.schedules.create({ destination: `${endpoint.url}/delayed`, cron: '* * * * *', delay: 3600 })
    expect((await client.schedules.get(scheduleId)).delay).toBe(3600)
    const schedule = await client.schedules.get(scheduleId)
    // fire, then the message waits its hour: the sentinel below fires in the same pass
    await client.schedules.create({ destination: `${endpoint.url}/sentinel`, cron: '* * * * *', scheduleId: 'sentinel-2' })
    await fireAt(schedule.nextScheduleTime!, '/sentinel')
    const messageId = (await client.schedules.get(scheduleId)) as { lastMessageId?: string }
    const answer = await queue.fetch(new Request(`${queue.url}/v2/dashboard/messages/${messageId.lastMessageId}`, { headers: { authorization: `Bearer ${TOKEN}` } }))
    const { message } = (await answer.json()) as { message: { status: string; dueAt: number; createdAt: number } }
    expect(message.status).toBe('pending')
    expect(message.dueAt - message.createdAt).toBeGreaterThanOrEqual(3600_000 - 1000)
    expect(recorder.to('/delayed')).toHaveLength(0)
  })

  test('refuses what it cannot do, with the reason', async () => {
    await expect(client.schedules.create({ destination: `${endpoint.url}/x`, cron: '61 * * * *' })).rejects.toThrow(/invalid Upstash-Cron .*minute 61 out of range/)
    await expect(client.schedules.create({ destination: `${endpoint.url}/x`, cron: '* * *' })).rejects.toThrow(/5 fields/)
    await expect(client.schedules.create({ destination: `${endpoint.url}/x`, cron: '0 0 31 2 *' })).rejects.toThrow(/never fires/)
    await expect(client.schedules.create({ destination: `${endpoint.url}/x`, cron: 'CRON_TZ=Nowhere/Land 0 0 * * *' })).rejects.toThrow(/unknown time zone/)
    await expect(client.schedules.create({ destination: 'ftp://example.com/x', cron: '* * * * *' })).rejects.toThrow(/only http and https/)
    expect(await client.schedules.list()).toEqual([])
  })
})

describe('schedules across a restart', () => {
  test('a fire missed while no process ran is skipped (counted and reported), then the cron goes on from now', async () => {
    const shared = new MemoryExecutor()
    let time = Date.now()
    const first = await startQueue({ executor: shared, clock: () => time })
    const firstClient = new Client({ baseUrl: first.url, token: TOKEN })
    const { scheduleId } = await firstClient.schedules.create({ destination: `${endpoint.url}/missed`, cron: '0 * * * *', body: 'm' })
    const due = (await firstClient.schedules.get(scheduleId)).nextScheduleTime!
    await first.close()

    // back three hours after the fire was due: the missed fire is skipped, not delivered late
    const notices: string[] = []
    time = due + 3 * 60 * MINUTE + 5 * MINUTE
    const second = await startQueue({ executor: shared, clock: () => time, onError: (error) => notices.push(String(error)) })
    try {
      const secondClient = new Client({ baseUrl: second.url, token: TOKEN })
      const skipped = await until(async () => {
        const schedule = (await secondClient.schedules.get(scheduleId)) as Awaited<ReturnType<Client['schedules']['get']>> & { skippedFires?: number; lastSkippedTime?: number }
        return schedule.skippedFires === 1 ? schedule : undefined
      }, 10_000, 'the missed fire to be skipped')
      expect(skipped.lastSkippedTime).toBe(due)
      expect(skipped.lastScheduleTime).toBeUndefined()
      expect(skipped.nextScheduleTime).toBe(due + 4 * 60 * MINUTE)
      expect(notices).toEqual([expect.stringMatching(new RegExp(`schedule ${scheduleId}: the fire due at .* was skipped: no queue process ran at its time`))])
      expect(recorder.to('/missed')).toHaveLength(0)

      // the next fire is on time again
      const delivered = recorder.next('/missed')
      time = skipped.nextScheduleTime!
      expect((await delivered).body).toBe('m')
      expect((await secondClient.schedules.get(scheduleId)).lastScheduleTime).toBe(time)
      expect(recorder.to('/missed')).toHaveLength(1)
    } finally {
      await second.close()
      await shared.close()
    }
  })
})
