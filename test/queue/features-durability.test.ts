/**
 * Schedules, queues, URL groups and the event log live in the engine: a `restis queue` process
 * killed with `kill -9` and restarted on the same --dir still has them.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, test } from 'vitest'
import { Client } from '@upstash/qstash'
import { listenFetch, type Listening } from './support.js'
import { startQueueCli, stopProcess, type QueueProcess } from './queue-process.js'

const dir = mkdtempSync(join(tmpdir(), 'restis-queue-features-'))
const processes: QueueProcess[] = []
let endpoint: Listening | undefined
afterAll(async () => {
  await Promise.all(processes.map((queue) => stopProcess(queue.child, 'SIGKILL')))
  await endpoint?.close()
  rmSync(dir, { recursive: true, force: true })
})

test('schedules, queues, URL groups and the event log survive kill -9 and a restart on the same --dir', async () => {
  endpoint = await listenFetch(async () => new Response('ok'))
  const first = await startQueueCli(['--port', '0', '--dir', dir])
  processes.push(first)
  const before = new Client({ baseUrl: first.url, token: first.token })
  const { scheduleId } = await before.schedules.create({ destination: `${endpoint.url}/every-minute`, cron: '* * * * *', body: 'tick' })
  await before.urlGroups.addEndpoints({ name: 'kept', endpoints: [{ url: `${endpoint.url}/g` }] })
  await before.queue({ queueName: 'kept-queue' }).upsert({ parallelism: 4 })
  const published = await before.publishJSON({ url: `${endpoint.url}/logged`, body: {} })
  expect(await stopProcess(first.child, 'SIGKILL')).toBeNull()

  const port = new URL(first.url).port
  const second = await startQueueCli(['--port', port, '--dir', dir])
  processes.push(second)
  const after = new Client({ baseUrl: second.url, token: second.token })
  expect(await after.schedules.get(scheduleId)).toMatchObject({ cron: '* * * * *', body: 'tick', isPaused: false })
  expect((await after.urlGroups.get('kept')).endpoints).toEqual([{ url: `${endpoint.url}/g` }])
  expect(await after.queue({ queueName: 'kept-queue' }).get()).toMatchObject({ parallelism: 4 })
  expect((await after.logs({ filter: { messageId: published.messageId } })).logs.map((log) => log.state)).toContain('CREATED')
  // firing after a restart (with an injected clock, no waiting for the minute) is in schedules.test.ts
  expect((await after.schedules.get(scheduleId)).nextScheduleTime).toBeGreaterThan(Date.now() - 60_000)
}, 60_000)
