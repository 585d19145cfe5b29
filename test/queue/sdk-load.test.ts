/**
 * Load with the official `@upstash/workflow` SDK (the smaller sibling of
 * `bench/queue-workflows.mjs`): 200 concurrent runs, each `run` → `sleep` → `call` → `run`,
 * through the in-process queue service, with the SDK's `serve()` on node:http verifying every
 * delivery's signature. Every run must end with the right result; every step body must have run
 * once, unless its delivery was redelivered (at-least-once delivery: the same message id reached
 * the endpoint twice), and the third party must have been called once per run. The dispatch
 * delay of the due messages (first arrival minus due time) is printed.
 */
import { expect, test } from 'vitest'
import { Client as QueueClient, Receiver } from '@upstash/qstash'
import { Client as WorkflowClient, serve } from '@upstash/workflow'
import type { RunDetail } from '../../src/queue/index.js'
import { Counter, listenFetch, startQueue, TOKEN } from './support.js'

const RUNS = 200
const SLEEP_S = 1

interface Payload {
  readonly index: number
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((sorted.length * p) / 100) - 1)]
}

test(`${RUNS} concurrent @upstash/workflow runs with sleep and call finish once each, with the right results`, { timeout: 180_000 }, async () => {
  const ended = new Set<string>()
  let allEnded!: () => void
  const everyRunEnded = new Promise<void>((resolve) => (allEnded = resolve))
  const queue = await startQueue({
    pollInterval: 500,
    backoff: () => 200,
    deliveryTimeout: 30_000,
    onEvent: (event) => {
      if (event.type !== 'run') return
      ended.add(event.runId)
      if (ended.size === RUNS) allEnded()
    },
  })
  const arrivals = new Map<string, number>()
  const redelivered = new Set<string>()
  const note = (messageId: string | null): void => {
    if (messageId === null) return
    if (arrivals.has(messageId)) redelivered.add(messageId)
    else arrivals.set(messageId, Date.now())
  }
  const bodies = new Counter()
  const calls = new Counter()
  const upstream = await listenFetch(async (request) => {
    note(request.headers.get('upstash-message-id'))
    const { n, runId } = (await request.json()) as { n: number; runId: string }
    calls.hit(runId)
    return Response.json({ doubled: n * 2 })
  })
  const { handler } = serve<Payload>(
    async (context) => {
      const before = await context.run('before', () => {
        bodies.hit(`${context.workflowRunId}/before`)
        return context.requestPayload.index + 1
      })
      await context.sleep('nap', SLEEP_S)
      const call = await context.call<{ doubled: number }>('double', {
        url: `${upstream.url}/double`,
        method: 'POST',
        body: JSON.stringify({ n: before, runId: context.workflowRunId }),
        headers: { 'content-type': 'application/json' },
      })
      return context.run('after', () => {
        bodies.hit(`${context.workflowRunId}/after`)
        return call.body.doubled + 1
      })
    },
    {
      qstashClient: new QueueClient({ baseUrl: queue.url, token: TOKEN }),
      receiver: new Receiver({ currentSigningKey: queue.signingKeys.current, nextSigningKey: queue.signingKeys.next }),
      env: {},
    },
  )
  const endpoint = await listenFetch(async (request) => {
    note(request.headers.get('upstash-message-id'))
    return handler(request)
  })
  const client = new WorkflowClient({ baseUrl: queue.url, token: TOKEN })
  try {
    const started = performance.now()
    const runs = new Map<string, number>()
    let next = 0
    await Promise.all(
      Array.from({ length: 50 }, async () => {
        while (next < RUNS) {
          const index = next++
          const { workflowRunId } = await client.trigger({ url: `${endpoint.url}/wf`, body: { index } })
          runs.set(workflowRunId, index)
        }
      }),
    )
    let timer: ReturnType<typeof setTimeout> | undefined
    const outOfTime = new Promise<void>((_, reject) => (timer = setTimeout(() => reject(new Error(`${ended.size} of ${RUNS} runs ended in time`)), 150_000)))
    await Promise.race([everyRunEnded, outOfTime]).finally(() => clearTimeout(timer))
    const seconds = (performance.now() - started) / 1000
    const details = new Map<string, RunDetail>()
    for (const id of runs.keys()) details.set(id, (await queue.runs.get(id))!)

    const delays: number[] = []
    const redeliveredRuns = new Set<string>()
    for (const [id, detail] of details) {
      expect(detail.run.state, `run ${id}: ${detail.run.error ?? ''}`).toBe('RUN_SUCCESS')
      expect(JSON.parse(detail.run.result!)).toBe((runs.get(id)! + 1) * 2 + 1)
      for (const step of detail.steps) {
        if (redelivered.has(step.messageId)) redeliveredRuns.add(id)
        const arrived = arrivals.get(step.messageId)
        expect(arrived, `message ${step.messageId} (${step.stepName}) of run ${id} reached its destination`).toBeDefined()
        // a retried message's dueAt is its last retry's: only first attempts are timed
        if (step.attempts <= 1) delays.push(arrived! - step.dueAt)
      }
    }
    // each step body once, and one call per run, unless at-least-once redelivery repeated one
    for (const id of runs.keys()) {
      const limit = redeliveredRuns.has(id) ? 2 : 1
      expect(bodies.get(`${id}/before`)).toBeGreaterThanOrEqual(1)
      expect(bodies.get(`${id}/before`)).toBeLessThanOrEqual(limit)
      expect(bodies.get(`${id}/after`)).toBeGreaterThanOrEqual(1)
      expect(bodies.get(`${id}/after`)).toBeLessThanOrEqual(limit)
      expect(calls.get(id)).toBeGreaterThanOrEqual(1)
      expect(calls.get(id)).toBeLessThanOrEqual(limit)
    }
    delays.sort((a, b) => a - b)
    console.log(
      `sdk load: ${RUNS} runs (run, sleep ${SLEEP_S} s, call, run) in ${seconds.toFixed(1)} s = ${(RUNS / seconds).toFixed(1)} runs/s; ` +
        `dispatch delay of ${delays.length} due messages p50 ${percentile(delays, 50)} ms, p99 ${percentile(delays, 99)} ms; ` +
        `${redelivered.size} redeliveries`,
    )
    // 7 messages a run: start, before, sleep, the call, its callback, after, and the last answer's
    expect(delays.length).toBeGreaterThanOrEqual(RUNS * 6)
  } finally {
    await endpoint.close()
    await upstream.close()
    await queue.close()
  }
})
