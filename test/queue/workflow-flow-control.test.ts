/**
 * Publish options on workflow runs of `@upstash/workflow` 1.3.3: a run triggered with
 * `flowControl` is held to it at every step on the local queue, and `restis queue --backoff`
 * refuses a value it does not know.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { Client as SdkQueueClient } from '@upstash/qstash'
import { Client as WorkflowClient, serve as sdkServe } from '@upstash/workflow'
import { listenFetch, startQueue, TOKEN, type Listening } from './support.js'
import { runQueueCli } from './queue-process.js'
import type { QueueService } from '../../src/queue/index.js'

describe('flow control of @upstash/workflow runs', () => {
  let queue: QueueService & { url: string }
  let endpoint: Listening
  let inFlight = 0
  let maxInFlight = 0

  beforeAll(async () => {
    queue = await startQueue()
    const { handler } = sdkServe<{ n: number }>(
      async (context) => {
        const doubled = await context.run('slow step', async () => {
          inFlight++
          maxInFlight = Math.max(maxInFlight, inFlight)
          await new Promise((resolve) => setTimeout(resolve, 60))
          inFlight--
          return context.requestPayload.n * 2
        })
        return doubled
      },
      { qstashClient: new SdkQueueClient({ baseUrl: queue.url, token: TOKEN }), env: {} },
    )
    endpoint = await listenFetch(handler)
  })
  afterAll(async () => {
    await endpoint.close()
    await queue.close()
  })

  test('runs triggered with parallelism 1: one delivery at a time across the runs, every step included', async () => {
    const client = new WorkflowClient({ baseUrl: queue.url, token: TOKEN })
    const runIds = await Promise.all(
      [1, 2, 3, 4].map(async (n) => {
        const { workflowRunId } = await client.trigger({ url: `${endpoint.url}/wf`, body: { n }, flowControl: { key: 'wf-key', parallelism: 1 } })
        return workflowRunId
      }),
    )
    for (const [index, runId] of runIds.entries()) {
      const detail = await queue.waitForRun(runId)
      expect(detail.run.state).toBe('RUN_SUCCESS')
      expect(JSON.parse(detail.run.result!)).toBe((index + 1) * 2)
    }
    expect(maxInFlight).toBe(1)
    // the start message carries the trigger's flow control, and the step message (sent by serve()
    // without it) inherits the run's
    const [init, step] = (await queue.runs.get(runIds[0]))!.steps
    for (const { messageId } of [init, step]) {
      const message = (await (await fetch(`${queue.url}/v2/messages/${messageId}`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as Record<string, unknown>
      expect(message).toMatchObject({ flowControlKey: 'wf-key', parallelism: 1 })
    }
  })
})

test('restis queue --backoff takes local or hosted and refuses anything else', async () => {
  const refused = await runQueueCli(['--port', '0', '--no-persistence', '--backoff', 'soon'])
  expect(refused.code).toBe(2)
  expect(refused.stderr).toContain('invalid --backoff: soon (local or hosted)')
})
