/**
 * The queue over a real Redis (socket executor): two queue processes share the work without
 * running a step twice, and a process that stops mid-run is replaced by another that resumes.
 * Skipped (with the reason in the suite name) without `redis-server`, except under CI=true.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { SocketExecutor } from '../../src/executor/socket/index.js'
import { serve } from '../../src/workflow/index.js'
import { liveSuiteName, redisServerSkipReason, startRedisServer, type RedisServer } from '../support/redis-server.js'
import { Counter, heldStepWorkflow, listenFetch, startQueue, TOKEN } from './support.js'

describe.skipIf(redisServerSkipReason !== undefined)(liveSuiteName('queue state in a real Redis'), () => {
  let redis: RedisServer
  beforeAll(async () => {
    redis = await startRedisServer()
  })
  afterAll(() => redis?.stop())

  test('two queue processes over one Redis share the deliveries; every step runs once', async () => {
    const executors = [new SocketExecutor({ url: redis.url }), new SocketExecutor({ url: redis.url })]
    const prefix = 'shared:'
    const a = await startQueue({ executor: executors[0], prefix, concurrency: 3, pollInterval: 20 })
    const b = await startQueue({ executor: executors[1], prefix, concurrency: 3, pollInterval: 20 })
    const counter = new Counter()
    const endpoint = await listenFetch(
      serve<{ n: number }>(
        async (context) => {
          let sum = 0
          for (const name of ['one', 'two', 'three']) {
            sum += await context.run(name, async () => {
              counter.hit(`${context.workflowRunId}/${name}`)
              await new Promise((resolve) => setTimeout(resolve, 5))
              return context.requestPayload.n
            })
          }
          return sum
        },
        { queueUrl: a.url, token: TOKEN, env: {} },
      ),
    )
    try {
      const runIds = await Promise.all(
        Array.from({ length: 30 }, async (_, n) => {
          const response = await fetch(`${endpoint.url}/wf`, { method: 'POST', body: JSON.stringify({ n }) })
          return ((await response.json()) as { workflowRunId: string }).workflowRunId
        }),
      )
      const owners = new Set<string>()
      for (const [n, runId] of runIds.entries()) {
        const detail = await b.waitForRun(runId)
        expect(detail.run.state).toBe('RUN_SUCCESS')
        expect(JSON.parse(detail.run.result!)).toBe(3 * n)
        for (const step of detail.steps) for (const entry of await b.store.attemptLog(step.messageId)) if (entry.by) owners.add(entry.by)
      }
      expect(counter.counts.size).toBe(90)
      expect([...counter.counts.values()].every((count) => count === 1)).toBe(true)
      expect(owners.size).toBe(2)
    } finally {
      await endpoint.close()
      await a.close()
      await b.close()
      await Promise.all(executors.map((executor) => executor.close()))
    }
  })

  test('a queue process that stops mid-run is replaced by a new one over the same Redis', async () => {
    const prefix = 'restart:'
    const firstExecutor = new SocketExecutor({ url: redis.url })
    const first = await startQueue({ executor: firstExecutor, prefix, leaseMs: 400 })
    const port = Number(new URL(first.url).port)
    const counter = new Counter()
    const { body, inStep, release } = heldStepWorkflow(counter)
    const endpoint = await listenFetch(serve(body, { queueUrl: first.url, token: TOKEN, env: {} }))
    const secondExecutor = new SocketExecutor({ url: redis.url })
    let second: Awaited<ReturnType<typeof startQueue>> | undefined
    try {
      const response = await fetch(`${endpoint.url}/wf`, { method: 'POST', body: '{}' })
      const { workflowRunId } = (await response.json()) as { workflowRunId: string }
      await inStep
      await first.close()
      await firstExecutor.close()
      second = await startQueue({ executor: secondExecutor, prefix, leaseMs: 400 }, port)
      release()
      const detail = await second.waitForRun(workflowRunId)
      expect(detail.run.state).toBe('RUN_SUCCESS')
      expect(JSON.parse(detail.run.result!)).toEqual([1, 1, 1])
      expect(counter.toJSON()).toEqual({ a: 1, b: 1, c: 1 })
    } finally {
      await endpoint.close()
      await second?.close()
      await secondExecutor.close()
    }
  })
})
