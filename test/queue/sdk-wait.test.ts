/**
 * `context.waitForEvent`, `context.notify`, `client.notify` and `client.getWaiters` of the real
 * `@upstash/workflow` SDK on the restis queue: a notified waiter resumes with the event data, an
 * unnotified one resumes at its deadline with `timeout: true`.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { Client as WorkflowClient } from '@upstash/workflow'
import { TOKEN, until } from './support.js'
import { startSdkWorkflows, type Queue, type SdkWorkflows } from './sdk-workflows.js'

interface WaitResult {
  readonly timeout: boolean
  readonly eventData: unknown
}

interface Ctx {
  readonly requestPayload: { eventId: string; timeout?: number }
  waitForEvent(name: string, eventId: string, options?: { timeout?: number }): Promise<WaitResult>
  notify(name: string, eventId: string, data: unknown): Promise<{ notifyResponse: unknown[] }>
  run<T>(name: string, fn: () => T): Promise<T>
}

describe('waitForEvent and notify of @upstash/workflow through the restis queue', () => {
  let workflows: SdkWorkflows
  let queue: Queue

  beforeAll(async () => {
    workflows = await startSdkWorkflows()
    queue = workflows.queue
  })
  afterAll(() => workflows.close())

  test('client.getWaiters lists the waiting run; client.notify resumes it with the event data', async () => {
    const client = new WorkflowClient({ baseUrl: queue.url, token: TOKEN })
    const url = await workflows.mount<Ctx>(async (context) => {
      const result = await context.waitForEvent('await approval', context.requestPayload.eventId, { timeout: 60 })
      return await context.run('after', () => result)
    })
    const runId = await workflows.start(url, { eventId: 'order-7-approved' })
    const waiters = await until(async () => {
      const list = (await client.getWaiters({ eventId: 'order-7-approved' })) as unknown as { url: string; deadline: number }[]
      return list.length > 0 ? list : undefined
    })
    expect(waiters).toHaveLength(1)
    expect(waiters[0].url).toBe(url)
    expect(waiters[0].deadline).toBeGreaterThan(Date.now() / 1000 + 30)
    const notified = await client.notify({ eventId: 'order-7-approved', eventData: { approvedBy: 'ada' } })
    expect(notified).toHaveLength(1)
    expect((notified as unknown as { messageId: string; error: string }[])[0]).toMatchObject({ error: '' })
    const detail = await queue.waitForRun(runId)
    expect(detail.run.state).toBe('RUN_SUCCESS')
    expect(JSON.parse(detail.run.result!)).toEqual({ timeout: false, eventData: { approvedBy: 'ada' } })
    expect(await client.getWaiters({ eventId: 'order-7-approved' })).toEqual([])
    // a second notification finds nobody waiting
    expect(await client.notify({ eventId: 'order-7-approved', eventData: 'late' })).toEqual([])
  })

  test('a wait that nobody notifies resumes at its deadline with timeout: true', async () => {
    const url = await workflows.mount<Ctx>(async (context) => {
      const result = await context.waitForEvent('await payment', context.requestPayload.eventId, { timeout: 1 })
      return await context.run('after', () => result)
    })
    const started = Date.now()
    const runId = await workflows.start(url, { eventId: 'never-paid' })
    const detail = await queue.waitForRun(runId)
    expect(detail.run.state).toBe('RUN_SUCCESS')
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000)
    expect(JSON.parse(detail.run.result!)).toEqual({ timeout: true })
  })

  test('context.notify of one run resumes another run waiting for the event', async () => {
    const waiting = await workflows.mount<Ctx>(async (context) => {
      const result = await context.waitForEvent('await shipment', context.requestPayload.eventId, { timeout: 60 })
      return await context.run('after', () => result.eventData)
    })
    const notifying = await workflows.mount<Ctx>(async (context) => {
      const { notifyResponse } = await context.notify('ship it', context.requestPayload.eventId, { parcel: 12 })
      return notifyResponse.length
    })
    const waiter = await workflows.start(waiting, { eventId: 'parcel-12' })
    const client = new WorkflowClient({ baseUrl: queue.url, token: TOKEN })
    await until(async () => ((await client.getWaiters({ eventId: 'parcel-12' })).length > 0 ? true : undefined))
    const notifier = await workflows.start(notifying, { eventId: 'parcel-12' })
    const notified = await queue.waitForRun(notifier)
    expect(notified.run.state).toBe('RUN_SUCCESS')
    expect(JSON.parse(notified.run.result!)).toBe(1)
    const resumed = await queue.waitForRun(waiter)
    expect(resumed.run.state).toBe('RUN_SUCCESS')
    expect(JSON.parse(resumed.run.result!)).toEqual({ parcel: 12 })
  })
})
