/**
 * The workflow run log (`GET /v2/workflows/events`) through `@upstash/workflow` 1.3.3's
 * `client.logs()`, with runs of the SDK's own `serve()`: steps grouped as the SDK's
 * `WorkflowRunLog` declares (sequential, parallel, the failing `next` step with its errors),
 * the failure function and DLQ id of a failed run, the filters, cursor paging and bad input.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { Client as WorkflowClient, serve as sdkServe } from '@upstash/workflow'
import { Client as QueueClient } from '@upstash/qstash'
import { listenFetch, startQueue, TOKEN, type Listening } from './support.js'
import type { QueueService } from '../../src/queue/index.js'

describe('client.logs() of @upstash/workflow on the restis queue', () => {
  let queue: QueueService & { url: string }
  let endpoint: Listening
  let client: WorkflowClient
  let okRun: string
  let failedRun: string

  beforeAll(async () => {
    queue = await startQueue()
    const { handler } = sdkServe<{ fail?: boolean }>(
      async (context) => {
        const a = await context.run('a', () => ({ value: 1 }))
        const [x, y] = await Promise.all([context.run('x', () => 10), context.run('y', () => 20)])
        return await context.run('b', () => {
          if (context.requestPayload.fail) throw new Error('b is broken')
          return a.value + x + y
        })
      },
      { qstashClient: new QueueClient({ baseUrl: queue.url, token: TOKEN }), env: {}, failureFunction: async () => 'handled' },
    )
    endpoint = await listenFetch(handler)
    client = new WorkflowClient({ baseUrl: queue.url, token: TOKEN })
    okRun = (await client.trigger({ url: `${endpoint.url}/wf`, body: {}, label: 'good' })).workflowRunId
    expect((await queue.waitForRun(okRun)).run.state).toBe('RUN_SUCCESS')
    failedRun = (await client.trigger({ url: `${endpoint.url}/wf`, body: { fail: true }, label: ['bad', 'second'] })).workflowRunId
    expect((await queue.waitForRun(failedRun)).run.state).toBe('RUN_FAILED')
  }, 60_000)
  afterAll(async () => {
    await endpoint?.close()
    await queue?.close()
  })

  test('a finished run with its steps: start, sequential and parallel steps, decoded outputs', async () => {
    const { runs, cursor } = await client.logs({ filter: { workflowRunId: okRun } })
    expect(cursor).toBeUndefined()
    expect(runs).toHaveLength(1)
    const [run] = runs
    expect(run).toMatchObject({ workflowRunId: okRun, workflowUrl: `${endpoint.url}/wf`, workflowState: 'RUN_SUCCESS', workflowRunResponse: '31', label: 'good', labels: ['good'] })
    expect(run.workflowRunCompletedAt).toBeGreaterThanOrEqual(run.workflowRunCreatedAt)
    expect(run.steps.map((group) => [group.type, group.steps.map((step) => ('stepName' in step ? step.stepName : undefined))])).toEqual([
      ['sequential', ['init']],
      ['sequential', ['a']],
      ['parallel', ['x', 'y']],
      ['sequential', ['b']],
    ])
    const [init, a, parallel, b] = run.steps.map((group) => group.steps) as unknown as Record<string, unknown>[][]
    expect(init[0]).toMatchObject({ stepId: 0, stepType: 'Initial', state: 'STEP_SUCCESS', out: {} })
    expect(a[0]).toMatchObject({ stepId: 1, stepType: 'Run', callType: 'step', out: { value: 1 }, concurrent: 1, state: 'STEP_SUCCESS', messageId: expect.stringMatching(/^msg_/) })
    expect(parallel.map((step) => [step.out, step.concurrent])).toEqual([
      [10, 2],
      [20, 2],
    ])
    expect(b[0]).toMatchObject({ out: 31 })
    expect(run.failureFunction).toBeUndefined()
    expect(run.dlqId).toBeUndefined()
  })

  test('a failed run: the failing step as `next` with its errors, the failure function, the DLQ id', async () => {
    const { runs } = await client.logs({ filter: { state: 'RUN_FAILED', label: 'second' } })
    expect(runs.map((run) => run.workflowRunId)).toEqual([failedRun])
    const [run] = runs
    expect(run).toMatchObject({ workflowState: 'RUN_FAILED', labels: ['bad', 'second'], label: 'bad' })
    const next = run.steps[run.steps.length - 1]
    expect(next.type).toBe('next')
    const failing = next.steps[0] as { state: string; stepName?: string; retries: number; errors?: { error: string; status: number; body: string }[] }
    expect(failing).toMatchObject({ state: 'STEP_FAILED', stepName: 'b' })
    // every attempt failed: one error per attempt, the first one not a retry
    expect(failing.errors!.length).toBeGreaterThan(1)
    expect(failing.retries).toBe(failing.errors!.length - 1)
    expect(failing.errors![0].status).toBe(500)
    expect(failing.errors![0].body).toContain('b is broken')
    expect(run.dlqId).toBe(next.steps[0].messageId)
    expect(run.failureFunction).toMatchObject({ state: 'CALLBACK_SUCCESS', failStatus: 500, dlqId: run.dlqId })
    expect(run.failureFunction!.failResponse).toContain('b is broken')
  })

  test('filters: url, creation time, dates, caller IP, state; each combination narrows', async () => {
    const all = (await client.logs({ count: 100 })).runs.map((run) => run.workflowRunId)
    expect(all).toEqual([failedRun, okRun])
    const created = (await client.logs({ filter: { workflowRunId: okRun } })).runs[0].workflowRunCreatedAt
    expect((await client.logs({ filter: { workflowCreatedAt: created } })).runs.map((run) => run.workflowRunId)).toEqual([okRun])
    expect((await client.logs({ filter: { workflowUrl: `${endpoint.url}/wf` } })).runs).toHaveLength(2)
    expect((await client.logs({ filter: { workflowUrl: `${endpoint.url}/other` } })).runs).toHaveLength(0)
    expect((await client.logs({ filter: { fromDate: created + 1 } })).runs.map((run) => run.workflowRunId)).toEqual([failedRun])
    expect((await client.logs({ filter: { toDate: created } })).runs.map((run) => run.workflowRunId)).toEqual([okRun])
    expect((await client.logs({ filter: { callerIp: '127.0.0.1' } })).runs).toHaveLength(2)
    expect((await client.logs({ filter: { callerIp: '10.9.9.9' } })).runs).toHaveLength(0)
    expect((await client.logs({ filter: { state: 'RUN_SUCCESS', host: new URL(endpoint.url).host } })).runs.map((run) => run.workflowRunId)).toEqual([okRun])
    expect((await client.logs({ workflowRunId: failedRun })).runs.map((run) => run.workflowRunId)).toEqual([failedRun])
  })

  test('the cursor pages through every run once', async () => {
    const seen: string[] = []
    let cursor: string | undefined
    do {
      const page = await client.logs({ count: 1, cursor })
      seen.push(...page.runs.map((run) => run.workflowRunId))
      cursor = page.cursor
    } while (cursor && seen.length < 10)
    expect(seen).toEqual([failedRun, okRun])
  })

  test('bad input is refused with the reason', async () => {
    await expect(client.logs({ filter: { state: 'RUN_NOPE' as never } })).rejects.toThrow(/invalid state .*RUN_NOPE/)
    await expect(client.logs({ count: 0 })).rejects.toThrow(/invalid count/)
    await expect(client.logs({ cursor: 'nope' })).rejects.toThrow(/invalid cursor/)
    await expect(client.logs({ filter: { responseStatus: 500 } as never })).rejects.toThrow(/filter .*responseStatus.* is not supported on the workflow run log/)
    await expect(client.logs({ filter: { fromDate: 'soon' as never } })).rejects.toThrow(/invalid fromDate/)
  })
})
