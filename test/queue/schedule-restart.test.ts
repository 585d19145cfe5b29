/**
 * Schedules on the real clock across `kill -9`: two `restis queue --redis` processes over one
 * redis-server are killed with SIGKILL right after a schedule is created and restarted; the next
 * fire after they are back arrives on time, once (both processes look for due fires; the per-fire
 * lock lets one publish). The test waits for a real minute boundary (cron has minute
 * granularity), so it takes up to about 80 s. Skipped (with the reason in the suite name) without
 * `redis-server`, except under CI=true. What a fire missed while no process ran does (skipped,
 * counted, reported) is tested with an injected clock in schedules.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { Client } from '@upstash/qstash'
import { liveSuiteName, redisServerSkipReason, startRedisServer, type RedisServer } from '../support/redis-server.js'
import { startQueueCli, stopProcess, type QueueProcess } from './queue-process.js'
import { listenFetch, until, type Listening } from './support.js'

const MINUTE = 60_000
/** How late an on-time fire may arrive: the poll interval (500 ms) plus a loaded machine's slack. */
const ON_TIME_MS = 3_000

describe.skipIf(redisServerSkipReason !== undefined)(liveSuiteName('schedules across kill -9 of two queue processes over one Redis'), () => {
  let redis: RedisServer
  let processes: QueueProcess[] = []
  let target: Listening
  const arrivals: { at: number; scheduleId: string | null; messageId: string | null }[] = []
  const args = (redisUrl: string): string[] => ['--port', '0', '--redis', redisUrl, '--token', 'sched-token']

  beforeAll(async () => {
    redis = await startRedisServer()
    processes = await Promise.all([startQueueCli(args(redis.url)), startQueueCli(args(redis.url))])
    target = await listenFetch(async (request) => {
      arrivals.push({ at: Date.now(), scheduleId: request.headers.get('upstash-schedule-id'), messageId: request.headers.get('upstash-message-id') })
      return new Response('ok')
    })
  }, 60_000)
  afterAll(async () => {
    await target?.close()
    await Promise.all(processes.map((queue) => stopProcess(queue.child, 'SIGTERM')))
    await redis?.stop()
  })

  test('after SIGKILL and a restart of both processes, the next fire arrives on time and once', { timeout: 150_000 }, async () => {
    const before = new Client({ baseUrl: processes[0].url, token: 'sched-token', retry: false })
    const { scheduleId } = await before.schedules.create({ destination: `${target.url}/tick`, cron: '* * * * *', body: 'tick' })
    for (const queue of processes) expect(await stopProcess(queue.child, 'SIGKILL')).toBeNull()
    processes = await Promise.all([startQueueCli(args(redis.url)), startQueueCli(args(redis.url))])
    const backAt = Date.now()

    // the first fire whose time comes after both processes are back (a fire due while they were
    // restarting is still published, within the 60 s grace, but late)
    const fireTime = Math.floor(backAt / MINUTE) * MINUTE + MINUTE
    const arrival = await until(() => arrivals.find((entry) => entry.at >= fireTime), 2 * MINUTE, `the fire due at ${new Date(fireTime).toISOString()}`)
    expect(arrival.scheduleId).toBe(scheduleId)
    expect(arrival.at - fireTime).toBeLessThan(ON_TIME_MS)

    const after = new Client({ baseUrl: processes[1].url, token: 'sched-token', retry: false })
    await until(async () => ((await after.schedules.get(scheduleId)).nextScheduleTime! > fireTime ? true : undefined), 10_000, 'the schedule to move past the fire')
    // both processes poll every 500 ms: give each a few passes at the fire before counting
    await new Promise((resolve) => setTimeout(resolve, 2_000))
    const forThisFire = arrivals.filter((entry) => entry.at >= fireTime && entry.at < fireTime + ON_TIME_MS + 2_000)
    expect(forThisFire).toHaveLength(1)
    const schedule = await after.schedules.get(scheduleId)
    expect(schedule.lastScheduleTime).toBeGreaterThanOrEqual(fireTime)
    expect((schedule as { lastMessageId?: string }).lastMessageId).toBe(arrival.messageId)
    expect((schedule as { skippedFires?: number }).skippedFires).toBeUndefined()
  })
})
