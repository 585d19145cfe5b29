/**
 * `context.call` of the real `@upstash/workflow` SDK on the restis queue: the queue calls the
 * third party, delivers the outcome to the workflow as a callback, and the run goes on with the
 * call's status, headers and body, whether the third party answered well, answered with an
 * error, timed out or refused the connection.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { serve as sdkServe } from '@upstash/workflow'
import { Client as SdkQueueClient, Receiver } from '@upstash/qstash'
import { Counter, listenFetch, listenServer, startQueue, TOKEN, until, type Listening } from './support.js'
import type { QueueService } from '../../src/queue/index.js'

type Queue = QueueService & { url: string }

interface CallResult {
  readonly status: number
  readonly body: unknown
  readonly header: Record<string, string[]>
}

/** The third party: `/echo` answers what it got, `/broken` answers 503, `/hang` never answers. */
function thirdParty(counter: Counter): Promise<Listening> {
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const path = request.url ?? '/'
      counter.hit(path)
      if (path === '/echo') {
        response.writeHead(201, { 'content-type': 'application/json', 'x-upstream': 'yes' })
        response.end(JSON.stringify({ method: request.method, body: Buffer.concat(chunks).toString('utf8'), auth: request.headers['x-api-key'] ?? null }))
      } else if (path === '/broken') {
        response.writeHead(503, { 'content-type': 'text/plain' })
        response.end('upstream is down')
      }
      // /hang: no answer; the queue's timeout ends the attempt
    })
  })
  return listenServer(server)
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const probe = await listenServer(createServer())
  await probe.close()
  return probe.port
}

describe('context.call of @upstash/workflow through the restis queue', () => {
  let queue: Queue
  let upstream: Listening
  const hits = new Counter()
  const endpoints: Listening[] = []

  async function mount(body: (context: never) => Promise<unknown>): Promise<Listening> {
    const { handler } = sdkServe(body as never, {
      qstashClient: new SdkQueueClient({ baseUrl: queue.url, token: TOKEN }),
      receiver: new Receiver({ currentSigningKey: queue.signingKeys.current, nextSigningKey: queue.signingKeys.next }),
      env: {},
    })
    const endpoint = await listenFetch(handler)
    endpoints.push(endpoint)
    return endpoint
  }

  /** Starts a run through the queue (the endpoint checks signatures, so it takes no direct call). */
  async function start(endpoint: Listening, payload: unknown): Promise<string> {
    const url = `${endpoint.url}/api/workflow`
    const response = await fetch(`${queue.url}/v2/publish/${url}`, {
      method: 'POST',
      body: JSON.stringify(payload),
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    })
    expect(response.status).toBe(201)
    return until(async () => (await queue.runs.list()).runs.find((run) => run.url === url)?.workflowRunId, 10_000, 'the run to start')
  }

  beforeAll(async () => {
    queue = await startQueue({ deliveryTimeout: 5_000 })
    upstream = await thirdParty(hits)
  })
  afterAll(async () => {
    await Promise.all(endpoints.map((endpoint) => endpoint.close()))
    await upstream.close()
    await queue.close()
  })

  test('a call returns the third party answer (status, headers, body) and the run goes on', async () => {
    const seen: CallResult[] = []
    const after = new Counter()
    const endpoint = await mount(async (context: never) => {
      const ctx = context as { requestPayload: { item: string }; call: (name: string, settings: object) => Promise<CallResult>; run: <T>(name: string, fn: () => T) => Promise<T> }
      const result = await ctx.call('ask upstream', { url: `${upstream.url}/echo`, method: 'PUT', body: JSON.stringify({ item: ctx.requestPayload.item }), headers: { 'x-api-key': 'k1' } })
      seen.push(result)
      return await ctx.run('after', () => {
        after.hit('after')
        return result.status
      })
    })
    const runId = await start(endpoint, { item: 'lamp' })
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
    const endpoint = await mount(async (context: never) => {
      const ctx = context as { call: (name: string, settings: object) => Promise<CallResult> }
      const result = await ctx.call('flaky upstream', { url: `${upstream.url}/broken`, retries: 2 })
      seen.push(result)
      return result.status
    })
    const before = hits.get('/broken')
    const runId = await start(endpoint, {})
    const detail = await queue.waitForRun(runId)
    expect(detail.run.state).toBe('RUN_SUCCESS')
    expect(JSON.parse(detail.run.result!)).toBe(503)
    expect(hits.get('/broken') - before).toBe(3)
    expect(seen[seen.length - 1]).toMatchObject({ status: 503, body: 'upstream is down' })
  })

  test('a call that times out returns 504 with the reason', async () => {
    const seen: CallResult[] = []
    const endpoint = await mount(async (context: never) => {
      const ctx = context as { call: (name: string, settings: object) => Promise<CallResult> }
      const result = await ctx.call('slow upstream', { url: `${upstream.url}/hang`, timeout: 1 })
      seen.push(result)
      return result.status
    })
    const runId = await start(endpoint, {})
    const detail = await queue.waitForRun(runId)
    expect(detail.run.state).toBe('RUN_SUCCESS')
    expect(seen[seen.length - 1].status).toBe(504)
    expect(String(seen[seen.length - 1].body)).toContain('timed out after 1000 ms')
  })

  test('a refused connection returns 502 with the reason', async () => {
    const port = await closedPort()
    const seen: CallResult[] = []
    const endpoint = await mount(async (context: never) => {
      const ctx = context as { call: (name: string, settings: object) => Promise<CallResult> }
      const result = await ctx.call('gone upstream', { url: `http://127.0.0.1:${port}/x` })
      seen.push(result)
      return result.status
    })
    const runId = await start(endpoint, {})
    const detail = await queue.waitForRun(runId)
    expect(detail.run.state).toBe('RUN_SUCCESS')
    expect(seen[seen.length - 1].status).toBe(502)
    expect(String(seen[seen.length - 1].body)).toContain('request failed')
  })

  test('a timeout above the queue delivery timeout is refused, and the run fails with that reason', async () => {
    const endpoint = await mount(async (context: never) => {
      const ctx = context as { call: (name: string, settings: object) => Promise<CallResult> }
      return (await ctx.call('too patient', { url: `${upstream.url}/echo`, timeout: '1h' })).status
    })
    const runId = await start(endpoint, {})
    const detail = await queue.waitForRun(runId)
    expect(detail.run.state).toBe('RUN_FAILED')
    expect(detail.run.error).toBeDefined()
    const dlq = await queue.dlq.list()
    const letter = dlq.find((entry) => entry.workflowRunId === runId)
    expect(letter?.responseBody).toContain("longer than this queue's delivery timeout")
  })
})
