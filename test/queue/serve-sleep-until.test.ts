/**
 * restis's own `serve()`: `context.sleepUntil` holds the next step until the given time
 * (`Upstash-Not-Before` on the restis queue), and a replay matches the recorded step.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { serve, type RouteFunction } from '../../src/workflow/index.js'
import { listenFetch, startQueue, TOKEN, until, type Listening } from './support.js'
import type { QueueService } from '../../src/queue/index.js'

describe('context.sleepUntil of restis serve() on the restis queue', () => {
  let queue: QueueService & { url: string }
  let endpoint: Listening
  const ranAt: number[] = []

  beforeAll(async () => {
    queue = await startQueue()
    const body: RouteFunction<{ until: number }> = async (context) => {
      await context.run('before', () => 'a')
      await context.sleepUntil('wait for the time', context.requestPayload.until)
      await context.run('after', () => {
        ranAt.push(Date.now())
        return 'b'
      })
    }
    endpoint = await listenFetch(serve(body, { queueUrl: queue.url, token: TOKEN, env: {} }))
  })
  afterAll(async () => {
    await endpoint.close()
    await queue.close()
  })

  test('the step after sleepUntil runs once, not before the time', async () => {
    const target = Math.ceil(Date.now() / 1000) + 2
    const response = await fetch(`${endpoint.url}/api/workflow`, { method: 'POST', body: JSON.stringify({ until: target }), headers: { 'content-type': 'application/json' } })
    expect(response.status).toBe(200)
    const { workflowRunId } = (await response.json()) as { workflowRunId: string }
    const detail = await queue.waitForRun(workflowRunId, 15_000)
    expect(detail.run.state).toBe('RUN_SUCCESS')
    expect(ranAt).toHaveLength(1)
    expect(ranAt[0]).toBeGreaterThanOrEqual(target * 1000)
    const sleep = await until(() => detail.steps.find((step) => step.stepType === 'SleepUntil'))
    expect(JSON.parse(sleep.body)).toMatchObject({ stepName: 'wait for the time', stepType: 'SleepUntil', sleepUntil: target })
  })
})
