/**
 * The list and bulk filters the SDKs send, through `@upstash/qstash` 2.12.0 (message cancel,
 * DLQ list / delete / retry) and `@upstash/workflow` 1.3.3 (DLQ list / delete / resume /
 * restart, run cancel): every filter field narrows to the records it names, and a filter an
 * endpoint does not take, or a malformed value, is refused with the reason.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { Client as QueueClient } from '@upstash/qstash'
import { Client as WorkflowClient, serve as sdkServe } from '@upstash/workflow'
import { listenFetch, startQueue, TOKEN, until, type Listening } from './support.js'
import type { QueueService } from '../../src/queue/index.js'

describe('qstash filters: message cancel and the DLQ', () => {
  let queue: QueueService & { url: string }
  let client: QueueClient
  let target: Listening
  let now = Date.now()
  const hits: string[] = []

  beforeAll(async () => {
    queue = await startQueue({ clock: () => now })
    client = new QueueClient({ baseUrl: queue.url, token: TOKEN, retry: false })
    target = await listenFetch(async (request) => {
      const path = new URL(request.url).pathname
      hits.push(path)
      return path.startsWith('/fail') ? new Response(path.includes('teapot') ? 'teapot' : 'down', { status: path.includes('teapot') ? 418 : 500 }) : new Response('ok')
    })
  })
  afterAll(async () => {
    await queue?.close()
    await target?.close()
  })

  const stateOf = async (id: string): Promise<string> => ((await client.messages.get(id)) as unknown as { state: string }).state

  test('messages.cancel: label, flow-control key, URL group, queue, host and path, dates, caller IP', async () => {
    const delayed = (path: string, extra: Record<string, unknown> = {}) => client.publish({ url: `${target.url}${path}`, body: 'x', delay: 600, ...extra })
    const labelled = await delayed('/c/label', { label: 'cancel-me' })
    const keyed = await delayed('/c/key', { flowControl: { key: 'cancel-key', parallelism: 1 } })
    const other = await delayed('/c/other')
    await client.urlGroups.addEndpoints({ name: 'cancel-group', endpoints: [{ url: `${target.url}/c/group` }] })
    const [grouped] = (await client.publish({ urlGroup: 'cancel-group', body: 'x', delay: 600 })) as unknown as { messageId: string }[]
    await client.queue({ queueName: 'cancel-queue' }).upsert({ paused: true })
    const queued = await client.queue({ queueName: 'cancel-queue' }).enqueue({ url: `${target.url}/c/queued`, body: 'x' })
    expect(await client.messages.cancel({ filter: { label: 'nope' } })).toEqual({ cancelled: 0 })
    expect(await client.messages.cancel({ filter: { label: 'cancel-me' } })).toEqual({ cancelled: 1 })
    expect(await stateOf(labelled.messageId)).toBe('canceled')
    expect(await client.messages.cancel({ filter: { flowControlKey: ['cancel-key', 'unused'] } })).toEqual({ cancelled: 1 })
    expect(await stateOf(keyed.messageId)).toBe('canceled')
    expect(await client.messages.cancel({ filter: { urlGroup: 'cancel-group' } })).toEqual({ cancelled: 1 })
    expect(await stateOf(grouped.messageId)).toBe('canceled')
    expect(await client.messages.cancel({ filter: { queueName: 'cancel-queue' } })).toEqual({ cancelled: 1 })
    expect(await stateOf(queued.messageId)).toBe('canceled')
    // a canceled message leaves its queue: resuming the queue delivers nothing
    expect((await client.queue({ queueName: 'cancel-queue' }).get()).lag).toBe(0)
    expect(await client.messages.cancel({ filter: { host: 'elsewhere.example', path: '/c/other' } })).toEqual({ cancelled: 0 })
    expect(await client.messages.cancel({ filter: { fromDate: Date.now() + 60_000 } })).toEqual({ cancelled: 0 })
    expect(await client.messages.cancel({ filter: { callerIp: '10.1.2.3' } })).toEqual({ cancelled: 0 })
    expect(await client.messages.cancel({ filter: { callerIp: '127.0.0.1', toDate: new Date(), host: new URL(target.url).host, path: '/c/other' } })).toEqual({ cancelled: 1 })
    expect(await stateOf(other.messageId)).toBe('canceled')
    expect(hits.filter((path) => path.startsWith('/c/'))).toEqual([])
  })

  test('messages.cancel refuses filters it does not take and bad values', async () => {
    await expect(client.messages.cancel({ filter: { responseStatus: 500 } as never })).rejects.toThrow(/filter responseStatus is not supported on the bulk message cancel/)
    await expect(client.messages.cancel({ filter: { fromDate: 'soon' as never } })).rejects.toThrow(/invalid fromDate/)
    await expect(client.messages.cancel({ filter: { label: '' } })).rejects.toThrow(/filter label needs a value/)
  })

  test('the DLQ: list, delete and retry by status, label, URL, schedule, message id and date', async () => {
    const dead = async (path: string, extra: Record<string, unknown> = {}): Promise<string> => {
      const { messageId } = await client.publish({ url: `${target.url}${path}`, body: 'x', retries: 0, ...extra })
      await until(async () => ((await stateOf(messageId)) === 'failed' ? true : undefined), 5000, `${path} dead-lettered`)
      return messageId
    }
    const down = await dead('/fail/down', { label: 'dead-label' })
    const teapot = await dead('/fail/teapot')
    const { scheduleId } = await client.schedules.create({ destination: `${target.url}/fail/scheduled`, cron: '* * * * *', retries: 0 })
    now += 61_000
    const scheduled = await until(async () => (await client.dlq.listMessages({ filter: { scheduleId } })).messages[0]?.messageId, 5000, 'the scheduled fire dead-lettered')
    const list = async (filter: Record<string, unknown>): Promise<string[]> => (await client.dlq.listMessages({ filter })).messages.map((message) => message.messageId)
    expect(await list({ responseStatus: 418 })).toEqual([teapot])
    expect((await list({ responseStatus: [418, 500] })).sort()).toEqual([down, teapot, scheduled].sort())
    expect(await list({ label: 'dead-label' })).toEqual([down])
    expect(await list({ url: `${target.url}/fail/teapot` })).toEqual([teapot])
    expect(await list({ messageId: down })).toEqual([down])
    expect(await list({ scheduleId })).toEqual([scheduled])
    expect(await list({ fromDate: Date.now() + 60_000 })).toEqual([])
    expect((await list({ callerIp: '127.0.0.1', toDate: Date.now() + 1000 })).sort()).toEqual([down, teapot].sort())
    expect((await client.dlq.listMessages({ dlqIds: [teapot] })).messages.map((message) => message.messageId)).toEqual([teapot])
    expect(await client.dlq.retry({ filter: { responseStatus: 418 } })).toEqual({ responses: [{ messageId: teapot }] })
    await until(async () => ((await stateOf(teapot)) === 'failed' ? true : undefined), 5000, 'the retried message dead again')
    expect(await client.dlq.delete({ filter: { label: 'dead-label' } })).toEqual({ deleted: 1 })
    expect(await list({ label: 'dead-label' })).toEqual([])
    await client.schedules.delete(scheduleId)
  })

  test('the DLQ refuses filters it does not take and bad values', async () => {
    await expect(client.dlq.listMessages({ filter: { host: 'example.com' } as never })).rejects.toThrow(/filter host is not supported on the dead-letter list/)
    await expect(client.dlq.delete({ filter: { path: '/x' } as never })).rejects.toThrow(/filter path is not supported on dead-letter bulk actions/)
    await expect(client.dlq.retry({ filter: { responseStatus: 'teapot' as never } })).rejects.toThrow(/invalid responseStatus .*teapot.*: an HTTP status code/)
  })
})

describe('workflow filters: DLQ list / delete / resume / restart and run cancel', () => {
  let queue: QueueService & { url: string }
  let client: WorkflowClient
  let endpoint: Listening
  let broken = true

  beforeAll(async () => {
    queue = await startQueue()
    const { handler } = sdkServe<{ wait?: boolean }>(
      async (context) => {
        if (context.requestPayload.wait) await context.sleep('long', 3600)
        return await context.run('step', () => {
          if (broken) throw new Error('step broken')
          return 'done'
        })
      },
      { qstashClient: new QueueClient({ baseUrl: queue.url, token: TOKEN }), env: {} },
    )
    endpoint = await listenFetch(handler)
    client = new WorkflowClient({ baseUrl: queue.url, token: TOKEN })
  })
  afterAll(async () => {
    await endpoint?.close()
    await queue?.close()
  })

  async function failedRun(label: string, path = '/wf'): Promise<{ workflowRunId: string; dlqId: string; createdAt: number }> {
    const { workflowRunId } = await client.trigger({ url: `${endpoint.url}${path}`, body: {}, label, retries: 0 })
    const detail = await queue.waitForRun(workflowRunId)
    expect(detail.run.state).toBe('RUN_FAILED')
    const { messages } = await client.dlq.list({ filter: { workflowRunId } })
    return { workflowRunId, dlqId: messages[0].dlqId, createdAt: detail.run.createdAt }
  }

  test('dlq.list by workflow URL, creation time, label and failure-function state', async () => {
    broken = true
    const a = await failedRun('wf-a', '/wf/a')
    const b = await failedRun('wf-b', '/wf/b')
    const ids = async (filter: Record<string, unknown>): Promise<string[]> => (await client.dlq.list({ filter })).messages.map((message) => message.dlqId)
    expect(await ids({ workflowUrl: `${endpoint.url}/wf/a` })).toEqual([a.dlqId])
    expect(await ids({ workflowCreatedAt: b.createdAt })).toEqual([b.dlqId])
    expect(await ids({ label: ['wf-a', 'wf-b'] })).toEqual([b.dlqId, a.dlqId])
    // the SDK's serve answers the failure callback without a failure function: it succeeded
    await until(async () => ((await ids({ failureFunctionState: 'CALLBACK_SUCCESS', label: 'wf-a' })).length === 1 ? true : undefined), 5000, 'the failure callback delivered')
    expect(await ids({ failureFunctionState: 'CALLBACK_FAIL', label: 'wf-a' })).toEqual([])
    expect(await client.dlq.delete({ filter: { label: 'wf-a' } })).toEqual({ deleted: 1 })
    expect(await ids({ label: ['wf-a', 'wf-b'] })).toEqual([b.dlqId])
    expect(await client.dlq.delete(b.dlqId)).toEqual({ deleted: 1 })
  })

  test('dlq.resume and dlq.restart by filter', async () => {
    broken = true
    const resumed = await failedRun('resume-me')
    const restarted = await failedRun('restart-me')
    broken = false
    const resume = await client.dlq.resume({ filter: { label: 'resume-me' } })
    expect(resume.workflowRuns.map((run) => run.workflowRunId)).toEqual([resumed.workflowRunId])
    expect((await queue.waitForRun(resumed.workflowRunId)).run.state).toBe('RUN_SUCCESS')
    const restart = await client.dlq.restart({ filter: { workflowRunId: restarted.workflowRunId } })
    expect(restart.workflowRuns).toHaveLength(1)
    expect((await queue.waitForRun(restart.workflowRuns[0].workflowRunId)).run.state).toBe('RUN_SUCCESS')
    await expect(client.dlq.resume({ filter: { host: 'example.com' } as never })).rejects.toThrow(/filter host is not supported on dead-letter bulk actions/)
  })

  test('cancel by URL prefix, exact URL, label, and all', async () => {
    const start = async (path: string, label: string): Promise<string> => (await client.trigger({ url: `${endpoint.url}${path}`, body: { wait: true }, label })).workflowRunId
    const runs = { one: await start('/wf/sleepy/1', 'l1'), two: await start('/wf/sleepy/2', 'l2'), three: await start('/wf/other', 'l3'), four: await start('/wf/other', 'l4') }
    const stateOf = async (id: string): Promise<string> => (await queue.runs.get(id))!.run.state
    expect(await client.cancel({ filter: { workflowUrl: `${endpoint.url}/wf/sleepy` } })).toEqual({ cancelled: 0 })
    expect(await client.cancel({ filter: { workflowUrlStartingWith: `${endpoint.url}/wf/sleepy` } })).toEqual({ cancelled: 2 })
    expect([await stateOf(runs.one), await stateOf(runs.two)]).toEqual(['RUN_CANCELED', 'RUN_CANCELED'])
    expect(await client.cancel({ filter: { label: 'l3' } })).toEqual({ cancelled: 1 })
    expect(await stateOf(runs.four)).toBe('RUN_STARTED')
    expect(await client.cancel({ filter: { workflowUrl: `${endpoint.url}/wf/other`, fromDate: Date.now() + 60_000 } })).toEqual({ cancelled: 0 })
    expect(await client.cancel({ all: true })).toEqual({ cancelled: 1 })
    expect(await stateOf(runs.four)).toBe('RUN_CANCELED')
    await expect(client.cancel({ filter: { responseStatus: 500 } as never })).rejects.toThrow(/filter responseStatus is not supported on the bulk run cancel/)
  })
})
