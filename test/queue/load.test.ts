/**
 * Load: 1,000 concurrent runs of 5 steps each through restis `serveNode()` on node:http and the
 * local queue (in-memory executor), to completion, with the throughput printed.
 */
import { createServer } from 'node:http'
import { expect, test } from 'vitest'
import { serveNode } from '../../src/workflow/index.js'
import { listenServer, startQueue, TOKEN } from './support.js'

const RUNS = 1000
const STEPS = 5

test(`${RUNS} concurrent runs of ${STEPS} steps complete through the local queue`, { timeout: 90_000 }, async () => {
  const executions = new Map<string, number>()
  const finished = new Set<string>()
  const problems: string[] = []
  let allDone!: () => void
  const done = new Promise<void>((resolve) => (allDone = resolve))
  const queue = await startQueue({
    concurrency: 128,
    deliveryTimeout: 30_000,
    backoff: () => 10,
    onEvent: (event) => {
      if (event.type === 'attempt' && event.outcome !== 'delivered') problems.push(`${event.outcome} ${event.status ?? ''} ${event.error ?? ''}`)
      if (event.type !== 'run') return
      expect(event.state).toBe('RUN_SUCCESS')
      finished.add(event.runId)
      if (finished.size === RUNS) allDone()
    },
  })
  const endpoint = await listenServer(
    createServer(
      serveNode<{ index: number }>(
      async (context) => {
        let total = 0
        for (let step = 1; step <= STEPS; step++) {
          total += await context.run(`step ${step}`, () => {
            const key = `${context.workflowRunId}/${step}`
            executions.set(key, (executions.get(key) ?? 0) + 1)
            return context.requestPayload.index * step
          })
        }
        return total
      },
        { queueUrl: queue.url, token: TOKEN, env: {} },
      ),
    ),
  )
  try {
    const started = performance.now()
    const runIds: string[] = []
    let next = 0
    // 1,000 start requests, 100 at a time
    await Promise.all(
      Array.from({ length: 100 }, async () => {
        while (next < RUNS) {
          const index = next++
          const response = await fetch(`${endpoint.url}/workflow`, { method: 'POST', body: JSON.stringify({ index }) })
          expect(response.status).toBe(200)
          runIds.push(((await response.json()) as { workflowRunId: string }).workflowRunId)
        }
      }),
    )
    const startedAll = performance.now()
    await done
    const elapsed = (performance.now() - started) / 1000
    const deliveries = RUNS * (STEPS + 1)
    console.log(
      `load: ${RUNS} runs x ${STEPS} steps in ${elapsed.toFixed(2)} s = ${(RUNS / elapsed).toFixed(1)} runs/s, ` +
        `${(deliveries / elapsed).toFixed(0)} deliveries/s (starting all runs took ${((startedAll - started) / 1000).toFixed(2)} s)`,
    )
    expect(problems.slice(0, 10)).toEqual([])
    expect(new Set(runIds).size).toBe(RUNS)
    expect(executions.size).toBe(RUNS * STEPS)
    expect([...executions.values()].every((count) => count === 1)).toBe(true)
    const sample = await queue.runs.get(runIds[7])
    expect(sample?.run.state).toBe('RUN_SUCCESS')
    expect(sample?.steps).toHaveLength(STEPS + 1)
    expect(elapsed).toBeLessThan(60)
  } finally {
    await endpoint.close()
    await queue.close()
  }
})
