/**
 * BullMQ 6 (over its ioredis) against the RESP listener over the memory engine and against a
 * real redis-server 7.0, with the same assertions: what a queue needs of blocking commands
 * (BZPOPMIN, BLMOVE, XREAD BLOCK), Lua scripts and transactions.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { FlowProducer, Queue, QueueEvents, Worker, type ConnectionOptions, type Job } from 'bullmq'
import { RESP_TARGETS, respTargetTitle, type RunningTarget } from '../support/resp-targets.js'
import { waitFor } from '../executor/socket/support.js'
import { Redis } from 'ioredis6'

for (const respTarget of RESP_TARGETS) {
  describe.skipIf(respTarget.skip !== undefined)(`BullMQ 6: ${respTargetTitle(respTarget)}`, () => {
    let target: RunningTarget
    let connection: ConnectionOptions
    const closers: { close(): Promise<unknown> }[] = []
    let queueCount = 0
    const track = <T extends { close(): Promise<unknown> }>(made: T): T => {
      closers.push(made)
      return made
    }
    const queueName = (): string => `q${++queueCount}`

    beforeAll(async () => {
      target = await respTarget.start()
      connection = { host: '127.0.0.1', port: target.port, maxRetriesPerRequest: null }
    })
    afterAll(async () => {
      for (const closer of closers.reverse()) await closer.close().catch(() => {})
      await target?.stop()
    })

    test('a worker started before any job picks jobs up as they arrive; QueueEvents and waitUntilFinished see them', async () => {
      const name = queueName()
      const events = track(new QueueEvents(name, { connection }))
      await events.waitUntilReady()
      const seen: string[] = []
      track(new Worker(name, async (job: Job) => `done ${job.data.n}`, { connection }))
      events.on('completed', ({ jobId }) => seen.push(jobId))
      const queue = track(new Queue(name, { connection }))
      // The worker and QueueEvents are idle, blocked, before the job exists.
      const admin = new Redis({ host: '127.0.0.1', port: target.port, protocol: 2 })
      await waitFor(async () => Number(/blocked_clients:(\d+)/.exec(await admin.info('clients'))?.[1]) >= 2, 'worker and events blocked')
      admin.disconnect()
      const job = await queue.add('work', { n: 1 })
      expect(await job.waitUntilFinished(events, 10_000)).toBe('done 1')
      await waitFor(() => seen.includes(job.id as string), 'the completed event')
    }, 20_000)

    test('delayed jobs run after their delay; retries with backoff; a job out of attempts fails', async () => {
      const name = queueName()
      const queue = track(new Queue(name, { connection }))
      const attempts = new Map<string, number>()
      const failed: string[] = []
      const worker = track(
        new Worker(
          name,
          async (job: Job) => {
            const count = (attempts.get(job.name) ?? 0) + 1
            attempts.set(job.name, count)
            if (job.name === 'flaky' && count < 3) throw new Error('not yet')
            if (job.name === 'broken') throw new Error('always')
            return count
          },
          { connection },
        ),
      )
      worker.on('failed', (job) => job && failed.push(job.name))
      const started = Date.now()
      const delayed = await queue.add('delayed', {}, { delay: 300 })
      const flaky = await queue.add('flaky', {}, { attempts: 3, backoff: { type: 'fixed', delay: 100 } })
      const broken = await queue.add('broken', {}, { attempts: 2 })
      await waitFor(async () => (await delayed.getState()) === 'completed', 'the delayed job', 10_000)
      expect(Date.now() - started).toBeGreaterThanOrEqual(280)
      await waitFor(async () => (await queue.getJob(flaky.id as string))?.finishedOn !== undefined, 'the flaky job', 10_000)
      expect(await (await queue.getJob(flaky.id as string))?.getState()).toBe('completed')
      expect(attempts.get('flaky')).toBe(3)
      await waitFor(async () => (await broken.getState()) === 'failed', 'the broken job', 10_000)
      expect((await queue.getJob(broken.id as string))?.failedReason).toBe('always')
      expect(failed.filter((n) => n === 'broken').length).toBe(2)
    }, 20_000)

    test('a job scheduler repeats a job; a flow runs children before their parent', async () => {
      const name = queueName()
      const queue = track(new Queue(name, { connection }))
      const ran: string[] = []
      track(new Worker(name, async (job: Job) => {
        ran.push(job.name)
        return job.name
      }, { connection }))
      await queue.upsertJobScheduler('every-100ms', { every: 100 }, { name: 'tick' })
      await waitFor(() => ran.filter((n) => n === 'tick').length >= 3, 'three ticks', 10_000)
      await queue.removeJobScheduler('every-100ms')
      const flows = track(new FlowProducer({ connection }))
      const tree = await flows.add({ name: 'parent', queueName: name, children: [{ name: 'child-a', queueName: name }, { name: 'child-b', queueName: name }] })
      await waitFor(async () => (await tree.job.getState()) === 'completed', 'the parent', 10_000)
      expect(ran.indexOf('parent')).toBeGreaterThan(ran.indexOf('child-a'))
      expect(ran.indexOf('parent')).toBeGreaterThan(ran.indexOf('child-b'))
    }, 20_000)

    test('the rate limiter spaces jobs out', async () => {
      const name = queueName()
      const queue = track(new Queue(name, { connection }))
      const times: number[] = []
      track(new Worker(name, async () => {
        times.push(Date.now())
      }, { connection, limiter: { max: 2, duration: 300 } }))
      await queue.addBulk(Array.from({ length: 6 }, (_, i) => ({ name: `j${i}`, data: {} })))
      await waitFor(() => times.length === 6, 'six jobs', 10_000)
      expect(times[5] - times[0]).toBeGreaterThanOrEqual(500)
    }, 20_000)

    test('getWorkers lists the running workers (CLIENT LIST with every connection and its name)', async () => {
      const name = queueName()
      const queue = track(new Queue(name, { connection }))
      const worker = track(new Worker(name, async () => 1, { connection }))
      await worker.waitUntilReady()
      await waitFor(async () => (await queue.getWorkers()).length === 1, 'one worker listed', 5_000)
    }, 20_000)
  })
}
