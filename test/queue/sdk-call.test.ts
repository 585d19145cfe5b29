/**
 * `context.call` of the real `@upstash/workflow` SDK on the restis queue: the queue calls the
 * third party, delivers the outcome to the workflow as a callback, and the run goes on with the
 * call's status, headers and body, whether the third party answered well, answered with an
 * error, timed out or refused the connection.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { Counter, type Listening } from './support.js'
import { startSdkWorkflows, type Queue, type SdkWorkflows } from './sdk-workflows.js'
import { closedPort, thirdParty } from '../support/third-party.js'

interface CallResult {
  readonly status: number
  readonly body: unknown
  readonly header: Record<string, string[]>
}

describe('context.call of @upstash/workflow through the restis queue', () => {
  let workflows: SdkWorkflows
  let queue: Queue
  let upstream: Listening
  const hits = new Counter()

  beforeAll(async () => {
    workflows = await startSdkWorkflows({ deliveryTimeout: 5_000 })
    queue = workflows.queue
    upstream = await thirdParty(hits, 'auth')
  })
  afterAll(async () => {
    await workflows.close()
    await upstream.close()
  })

  test('a call returns the third party answer (status, headers, body) and the run goes on', async () => {
    const seen: CallResult[] = []
    const after = new Counter()
    const url = await workflows.mount(async (context: never) => {
      const ctx = context as { requestPayload: { item: string }; call: (name: string, settings: object) => Promise<CallResult>; run: <T>(name: string, fn: () => T) => Promise<T> }
      const result = await ctx.call('ask upstream', { url: `${upstream.url}/echo`, method: 'PUT', body: JSON.stringify({ item: ctx.requestPayload.item }), headers: { 'x-api-key': 'k1' } })
      seen.push(result)
      return await ctx.run('after', () => {
        after.hit('after')
        return result.status
      })
    })
    const runId = await workflows.start(url, { item: 'lamp' })
    const detail = await queue.waitForRun(runId)
    expect(detail.run.state).toBe('RUN_SUCCESS')
    expect(JSON.parse(detail.run.result!)).toBe(201)
    expect(after.toJSON()).toEqual({ after: 1 })
    const last = seen[seen.length - 1]
    expect(last.status).toBe(201)
    expect(last.body).toEqual({ method: 'PUT', body: JSON.stringify({ item: 'lamp' }), auth: 'k1' })
    expect(last.header['x-upstream']).toEqual(['yes'])
    expect(hits.get('/echo')).toBe(1)
    const kinds = detail.steps.map((step) => [step.kind, step.stepName, step.status])
    expect(kinds).toContainEqual(['call', 'ask upstream', 'delivered'])
    expect(kinds).toContainEqual(['callback', 'ask upstream', 'delivered'])
  })

  test('a third party that keeps failing is retried, then the call returns its status and body', async () => {
    const seen: CallResult[] = []
    const url = await workflows.mount(async (context: never) => {
      const ctx = context as { call: (name: string, settings: object) => Promise<CallResult> }
      const result = await ctx.call('flaky upstream', { url: `${upstream.url}/broken`, retries: 2 })
      seen.push(result)
      return result.status
    })
    const before = hits.get('/broken')
    const runId = await workflows.start(url, {})
    const detail = await queue.waitForRun(runId)
    expect(detail.run.state).toBe('RUN_SUCCESS')
    expect(JSON.parse(detail.run.result!)).toBe(503)
    expect(hits.get('/broken') - before).toBe(3)
    expect(seen[seen.length - 1]).toMatchObject({ status: 503, body: 'upstream is down' })
  })

  test('a call that times out returns 504 with the reason', async () => {
    const seen: CallResult[] = []
    const url = await workflows.mount(async (context: never) => {
      const ctx = context as { call: (name: string, settings: object) => Promise<CallResult> }
      const result = await ctx.call('slow upstream', { url: `${upstream.url}/hang`, timeout: 1 })
      seen.push(result)
      return result.status
    })
    const runId = await workflows.start(url, {})
    const detail = await queue.waitForRun(runId)
    expect(detail.run.state).toBe('RUN_SUCCESS')
    expect(seen[seen.length - 1].status).toBe(504)
    expect(String(seen[seen.length - 1].body)).toContain('timed out after 1000 ms')
  })

  test('a refused connection returns 502 with the reason', async () => {
    const port = await closedPort()
    const seen: CallResult[] = []
    const url = await workflows.mount(async (context: never) => {
      const ctx = context as { call: (name: string, settings: object) => Promise<CallResult> }
      const result = await ctx.call('gone upstream', { url: `http://127.0.0.1:${port}/x` })
      seen.push(result)
      return result.status
    })
    const runId = await workflows.start(url, {})
    const detail = await queue.waitForRun(runId)
    expect(detail.run.state).toBe('RUN_SUCCESS')
    expect(seen[seen.length - 1].status).toBe(502)
    expect(String(seen[seen.length - 1].body)).toContain('request failed')
  })

  test('a timeout above the queue delivery timeout is refused, and the run fails with that reason', async () => {
    const url = await workflows.mount(async (context: never) => {
      const ctx = context as { call: (name: string, settings: object) => Promise<CallResult> }
      return (await ctx.call('too patient', { url: `${upstream.url}/echo`, timeout: '1h' })).status
    })
    const runId = await workflows.start(url, {})
    const detail = await queue.waitForRun(runId)
    expect(detail.run.state).toBe('RUN_FAILED')
    expect(detail.run.error).toBeDefined()
    const dlq = await queue.dlq.list()
    const letter = dlq.find((entry) => entry.workflowRunId === runId)
    expect(letter?.responseBody).toContain("longer than this queue's delivery timeout")
  })
})
