/**
 * The workflow DLQ actions of `@upstash/workflow` 1.3.3's `client.dlq` on the local queue:
 * restart (a new run from the first step), bulk resume, failure-callback retry, and refusals of
 * options the queue does not honour there.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { Client as WorkflowClient } from '@upstash/workflow'
import { serve } from '../../src/workflow/index.js'
import { Counter, listenFetch, startQueue, TOKEN, type Listening } from './support.js'
import type { QueueService } from '../../src/queue/index.js'

describe('workflow DLQ actions with @upstash/workflow', () => {
  let queue: QueueService & { url: string }
  let endpoint: Listening
  let client: WorkflowClient
  const counter = new Counter()
  let broken = true
  let failureFunctionBroken = false
  const failures: string[] = []

  beforeAll(async () => {
    queue = await startQueue()
    endpoint = await listenFetch(
      serve<{ n: number }>(
        async (context) => {
          const a = await context.run('a', () => counter.hit(`a${context.requestPayload.n}`))
          const b = await context.run('b', () => {
            counter.hit(`b${context.requestPayload.n}`)
            if (broken) throw new Error('dependency down')
            return 10
          })
          return a + b
        },
        {
          queueUrl: queue.url,
          token: TOKEN,
          env: {},
          retries: 0,
          failureFunction: ({ failResponse }) => {
            failures.push(failResponse)
            if (failureFunctionBroken) throw new Error('failure handler down')
          },
        },
      ),
    )
    client = new WorkflowClient({ baseUrl: queue.url, token: TOKEN })
  })
  afterAll(async () => {
    await endpoint.close()
    await queue.close()
  })

  async function failedRun(n: number): Promise<{ workflowRunId: string; dlqId: string }> {
    const start = await fetch(`${endpoint.url}/wf`, { method: 'POST', body: JSON.stringify({ n }) })
    const { workflowRunId } = (await start.json()) as { workflowRunId: string }
    expect((await queue.waitForRun(workflowRunId)).run.state).toBe('RUN_FAILED')
    const letter = (await queue.dlq.list()).find((entry) => entry.workflowRunId === workflowRunId && entry.url.endsWith('/wf'))
    return { workflowRunId, dlqId: letter!.messageId }
  }

  test('restart starts a new run from the first step with the same payload; the failed run stays failed', async () => {
    broken = true
    const { workflowRunId, dlqId } = await failedRun(1)
    broken = false
    const restarted = await client.dlq.restart({ dlqId })
    expect(restarted.workflowRunId).toMatch(/^wfr_/)
    expect(restarted.workflowRunId).not.toBe(workflowRunId)
    const done = await queue.waitForRun(restarted.workflowRunId)
    expect(done.run.state).toBe('RUN_SUCCESS')
    expect(JSON.parse(done.run.result!)).toBe(12)
    expect((await queue.runs.get(workflowRunId))!.run.state).toBe('RUN_FAILED')
    expect(counter.get('a1')).toBe(2)
    expect((await queue.dlq.list()).map((letter) => letter.dlqId)).not.toContain(dlqId)
  })

  test('bulk resume by ids continues each run at its failed step', async () => {
    broken = true
    const runs = [await failedRun(2), await failedRun(3)]
    broken = false
    const resumed = await client.dlq.resume({ dlqId: runs.map((run) => run.dlqId) })
    expect(resumed.map((run) => run.workflowRunId)).toEqual(runs.map((run) => run.workflowRunId))
    for (const run of runs) expect((await queue.waitForRun(run.workflowRunId)).run.state).toBe('RUN_SUCCESS')
    expect([counter.get('a2'), counter.get('a3')]).toEqual([1, 1])
  })

  test('retries and flow control on resume and restart set the run’s settings; bad values are refused', async () => {
    broken = true
    const first = await failedRun(4)
    await expect(client.dlq.resume({ dlqId: first.dlqId, retries: 101 })).rejects.toThrow(/invalid Upstash-Retries .*101.*: an integer from 0 to 100/)
    expect((await queue.runs.get(first.workflowRunId))!.run.state).toBe('RUN_FAILED')
    // still broken: the resumed step gets its new budget of 2 retries (3 attempts) and fails again
    await client.dlq.resume({ dlqId: first.dlqId, retries: 2, flowControl: { key: 'resumed-key', parallelism: 1 } })
    const resumed = await queue.waitForRun(first.workflowRunId)
    expect(resumed.run.state).toBe('RUN_FAILED')
    const step = resumed.steps.find((entry) => entry.messageId === first.dlqId)!
    expect(step.maxRetries).toBe(2)
    expect(await client.dlq.list({ filter: { flowControlKey: 'resumed-key' } })).toMatchObject({ messages: [{ dlqId: first.dlqId }] })
    broken = false
    const restarted = await client.dlq.restart({ dlqId: first.dlqId, retries: 1, flowControl: { key: 'restarted-key', parallelism: 1 } })
    const run = await queue.waitForRun(restarted.workflowRunId)
    expect(run.run).toMatchObject({ state: 'RUN_SUCCESS', retries: 1 })
    const info = await fetch(`${queue.url}/v2/flowControl/restarted-key`, { headers: { authorization: `Bearer ${TOKEN}` } })
    expect(await info.json()).toMatchObject({ flowControlKey: 'restarted-key', parallelismMax: 1 })
    await expect(client.dlq.resume({ dlqId: 'msg_missing' })).rejects.toThrow(/dead letter msg_missing not found/)
  })

  test('dlq.list filters by run id and refuses filters the DLQ does not take', async () => {
    broken = true
    const { workflowRunId, dlqId } = await failedRun(6)
    const { messages } = await client.dlq.list({ filter: { workflowRunId } })
    expect(messages.map((letter) => letter.dlqId)).toEqual([dlqId])
    expect((await client.dlq.list({ filter: { label: 'x' } })).messages).toEqual([])
    await expect(client.dlq.list({ filter: { host: 'example.com' } as never })).rejects.toThrow(/filter host is not supported on the dead-letter list/)
  })

  test('retryFailureFunction delivers a failed failure callback again', async () => {
    broken = true
    failureFunctionBroken = true
    failures.length = 0
    const { workflowRunId, dlqId } = await failedRun(5)
    expect(failures).toEqual(['dependency down'])
    const detail = await queue.runs.get(workflowRunId)
    expect(detail!.run.failureCallback).toBe('failed')
    failureFunctionBroken = false
    expect(await client.dlq.retryFailureFunction({ dlqId })).toMatchObject({ workflowRunId })
    await queue.waitForRun(workflowRunId)
    expect(failures).toEqual(['dependency down', 'dependency down'])
    expect((await queue.runs.get(workflowRunId))!.run.failureCallback).toBe('delivered')
  })
})
