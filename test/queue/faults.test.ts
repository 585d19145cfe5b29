/**
 * Bad input and faults: malformed API calls, unknown runs, tampered histories, an endpoint that
 * crashes or hangs, and a queue process that stops mid-run. Every scenario counts executions per
 * step: no step result may be lost or executed twice.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { MemoryExecutor } from '../../src/executor/memory/memory-executor.js'
import { serve, signRequest, type RouteFunction } from '../../src/workflow/index.js'
import { Counter, listenServer, startQueue, TOKEN, type Listening } from './support.js'
import type { QueueService } from '../../src/queue/index.js'

type Queue = QueueService & { url: string }
type Hook = (info: { records: number; body: string }) => 'crash-before' | 'crash-after' | 'hang' | undefined

/** Serves a workflow handler on a raw Node server whose `hook` can crash or hang a delivery. */
async function endpointWithHook(handler: (request: Request) => Promise<Response>, hook: Hook = () => undefined): Promise<Listening> {
  let base = ''
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      let records = -1
      try {
        const parsed = JSON.parse(body) as unknown
        if (Array.isArray(parsed) && request.headers['upstash-workflow-sdk-version']) records = parsed.length
      } catch {
        // a start request
      }
      const action = hook({ records, body })
      if (action === 'crash-before') return request.socket.destroy()
      if (action === 'hang') return
      const headers = new Headers()
      for (const [name, value] of Object.entries(request.headers)) if (typeof value === 'string') headers.set(name, value)
      void handler(new Request(new URL(request.url ?? '/', base), { method: request.method, headers, body }))
        .then(async (answer) => {
          if (action === 'crash-after') return request.socket.destroy()
          const text = await answer.text()
          response.writeHead(answer.status, { 'content-type': 'application/json' })
          response.end(text)
        })
        .catch(() => request.socket.destroy())
    })
  })
  const listening = await listenServer(server, 0, (url) => (base = url))
  return listening
}

async function startRun(endpoint: Listening, payload: unknown = {}): Promise<string> {
  const response = await fetch(`${endpoint.url}/workflow`, { method: 'POST', body: JSON.stringify(payload) })
  expect(response.status).toBe(200)
  return ((await response.json()) as { workflowRunId: string }).workflowRunId
}

function fourSteps(counter: Counter, before?: Partial<Record<string, () => Promise<void>>>): RouteFunction<unknown> {
  return async (context) => {
    const outputs: number[] = []
    for (const name of ['s1', 's2', 's3', 's4']) {
      outputs.push(
        await context.run(name, async () => {
          const count = counter.hit(name)
          await before?.[name]?.()
          return count * 10 + outputs.length
        }),
      )
    }
    return outputs
  }
}

const auth = { authorization: `Bearer ${TOKEN}` }

describe('queue API input', () => {
  let queue: Queue
  beforeAll(async () => {
    queue = await startQueue()
  })
  afterAll(() => queue.close())

  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${queue.url}${path}`, { method: 'POST', body, headers: { ...auth, ...headers } })

  test('every API call needs the token (Bearer or ?_token=)', async () => {
    expect((await fetch(`${queue.url}/v2/keys`)).status).toBe(401)
    expect((await fetch(`${queue.url}/v2/keys`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401)
    expect((await fetch(`${queue.url}/v2/keys?_token=${TOKEN}`)).status).toBe(200)
    const keys = await (await fetch(`${queue.url}/v2/keys`, { headers: auth })).json()
    expect(keys).toEqual({ current: queue.signingKeys.current, next: queue.signingKeys.next })
  })

  test.each([
    ['a body that is not JSON', '{', 400, /JSON array of messages/],
    ['an object instead of an array', '{"destination":"http://x"}', 400, /JSON array of messages/],
    ['a message without destination', '[{"headers":{}}]', 400, /batch message 0: "destination"/],
    ['a destination that is not http(s)', '[{"destination":"file:///etc/passwd"}]', 400, /only http and https/],
    ['a relative destination', '[{"destination":"/x"}]', 400, /absolute http\(s\) URL/],
    ['a non-string body', '[{"destination":"http://127.0.0.1:1/x","body":{"a":1}}]', 400, /"body" must be a string/],
    ['an invalid retries header', '[{"destination":"http://127.0.0.1:1/x","headers":{"Upstash-Retries":"-1"}}]', 400, /invalid Upstash-Retries/],
    ['an invalid delay', '[{"destination":"http://127.0.0.1:1/x","headers":{"Upstash-Delay":"soon"}}]', 400, /invalid Upstash-Delay/],
    [
      'a workflow step that is not a step record',
      JSON.stringify([{ destination: 'http://127.0.0.1:1/x', headers: { 'Upstash-Workflow-RunId': 'wfr_x', 'Upstash-Workflow-Init': 'false' }, body: '{"stepId":"one"}' }]),
      // 422, not 400: the SDK reads a 400 as "the run was cancelled" and stops without a trace
      422,
      /invalid workflow step: stepId must be an integer/,
    ],
    [
      'a step of an unknown run',
      JSON.stringify([
        {
          destination: 'http://127.0.0.1:1/x',
          headers: { 'Upstash-Workflow-RunId': 'wfr_nobody', 'Upstash-Workflow-Init': 'false' },
          body: '{"stepId":1,"stepName":"a","stepType":"Run","concurrent":1}',
        },
      ]),
      404,
      /workflow run wfr_nobody not found/,
    ],
    [
      'a context.call message without its callback URL',
      JSON.stringify([{ destination: 'http://127.0.0.1:1/x', headers: { 'Upstash-Workflow-RunId': 'wfr_x', 'Upstash-Workflow-Init': 'false', 'Upstash-Workflow-CallType': 'toCallback' } }]),
      422,
      /third-party call .* needs an Upstash-Callback URL/,
    ],
  ])('POST /v2/batch with %s is refused', async (_name, body, status, message) => {
    const response = await post('/v2/batch', body)
    expect(response.status).toBe(status)
    expect((await response.json()).error).toMatch(message)
  })

  test('unknown runs, messages and routes are 404 with a reason', async () => {
    const get = (path: string, method = 'GET') => fetch(`${queue.url}${path}`, { method, headers: auth })
    for (const [path, method, message] of [
      ['/v2/workflows/runs/wfr_missing', 'GET', /wfr_missing not found/],
      ['/v2/workflows/runs/wfr_missing?cancel=false', 'DELETE', /wfr_missing not found/],
      ['/v2/dashboard/runs/wfr_missing', 'GET', /wfr_missing not found/],
      ['/v2/dashboard/messages/msg_missing', 'GET', /msg_missing not found/],
      ['/v2/dlq/msg_missing/replay', 'POST', /dead letter msg_missing not found/],
      ['/v2/nothing', 'GET', /not found: GET \/v2\/nothing/],
    ] as const) {
      const response = await get(path, method)
      expect(response.status, path).toBe(404)
      expect((await response.json()).error).toMatch(message)
    }
    expect((await get('/v2/batch', 'GET')).status).toBe(405)
  })

  test('a step for a run that already ended is refused with 400 (the SDK treats it as finished)', async () => {
    const create = await post(
      '/v2/batch',
      JSON.stringify([{ destination: 'http://127.0.0.1:1/x', headers: { 'Upstash-Workflow-RunId': 'wfr_ended', 'Upstash-Workflow-Init': 'true', 'Upstash-Delay': '1h' }, body: '{}' }]),
    )
    expect(create.status).toBe(200)
    const duplicate = await post(
      '/v2/batch',
      JSON.stringify([{ destination: 'http://127.0.0.1:1/x', headers: { 'Upstash-Workflow-RunId': 'wfr_ended', 'Upstash-Workflow-Init': 'true' }, body: '{}' }]),
    )
    expect((await duplicate.json())[0].deduplicated).toBe(true)
    expect((await fetch(`${queue.url}/v2/workflows/runs/wfr_ended?cancel=true`, { method: 'DELETE', headers: auth })).status).toBe(200)
    const late = await post(
      '/v2/batch',
      JSON.stringify([
        {
          destination: 'http://127.0.0.1:1/x',
          headers: { 'Upstash-Workflow-RunId': 'wfr_ended', 'Upstash-Workflow-Init': 'false' },
          body: '{"stepId":1,"stepName":"a","stepType":"Run","concurrent":1}',
        },
      ]),
    )
    expect(late.status).toBe(400)
    expect((await late.json()).error).toMatch(/wfr_ended is not running \(RUN_CANCELED\)/)
    const detail = await queue.runs.get('wfr_ended')
    expect(detail?.steps[0].status).toBe('canceled')
  })
})

describe('faulty endpoints', () => {
  let queue: Queue
  let endpoint: Listening | undefined
  afterEach(async () => {
    await endpoint?.close()
    endpoint = undefined
    await queue?.close()
  })

  test('a tampered history signed by the queue is refused as inconsistent; a forged signature gets 401', async () => {
    queue = await startQueue()
    const counter = new Counter()
    const handler = serve(fourSteps(counter), {
      queueUrl: queue.url,
      token: TOKEN,
      env: {},
      currentSigningKey: queue.signingKeys.current,
      nextSigningKey: queue.signingKeys.next,
    })
    endpoint = await endpointWithHook(handler)
    const url = `${endpoint.url}/workflow`
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64')
    const body = JSON.stringify([
      { messageId: 'm0', body: b64({}), callType: 'step' },
      { messageId: 'm2', body: b64({ stepId: 2, stepName: 's2', stepType: 'Run', out: '1', concurrent: 1 }), callType: 'step' },
    ])
    const headers = { 'upstash-workflow-runid': 'wfr_t', 'upstash-workflow-sdk-version': '1' }
    const inconsistent = await fetch(url, { method: 'POST', body, headers: { ...headers, 'upstash-signature': signRequest({ url, body, key: queue.signingKeys.current }) } })
    expect(inconsistent.status).toBe(489)
    expect((await inconsistent.json()).message).toMatch(/inconsistent history: record 1 \('s2'\) has stepId 2, expected 1/)
    const forged = await fetch(url, { method: 'POST', body, headers: { ...headers, 'upstash-signature': signRequest({ url, body, key: 'sig_forged' }) } })
    expect(forged.status).toBe(401)
    expect(counter.toJSON()).toEqual({})
  })

  test('an endpoint that crashes before answering is retried; the step runs once', async () => {
    queue = await startQueue()
    const counter = new Counter()
    let crashes = 0
    endpoint = await endpointWithHook(serve(fourSteps(counter), { queueUrl: queue.url, token: TOKEN, env: {} }), ({ records }) =>
      records === 3 && crashes++ === 0 ? 'crash-before' : undefined,
    )
    const runId = await startRun(endpoint)
    const detail = await queue.waitForRun(runId)
    expect(detail.run.state).toBe('RUN_SUCCESS')
    expect(JSON.parse(detail.run.result!)).toEqual([10, 11, 12, 13])
    expect(counter.toJSON()).toEqual({ s1: 1, s2: 1, s3: 1, s4: 1 })
    const log = await queue.store.attemptLog(detail.steps[2].messageId)
    expect(log.map((entry) => entry.outcome)).toEqual(['created', 'retry', 'delivered'])
    expect(log[1].error).toMatch(/request failed/)
  })

  test('an endpoint that crashes after its step was recorded is not asked again: the step is not executed twice', async () => {
    queue = await startQueue()
    const counter = new Counter()
    let crashes = 0
    endpoint = await endpointWithHook(serve(fourSteps(counter), { queueUrl: queue.url, token: TOKEN, env: {} }), ({ records }) =>
      records === 2 && crashes++ === 0 ? 'crash-after' : undefined,
    )
    const runId = await startRun(endpoint)
    const detail = await queue.waitForRun(runId)
    expect(detail.run.state).toBe('RUN_SUCCESS')
    expect(counter.toJSON()).toEqual({ s1: 1, s2: 1, s3: 1, s4: 1 })
    const log = await queue.store.attemptLog(detail.steps[1].messageId)
    expect(log.map((entry) => entry.outcome)).toEqual(['created', 'retry', 'superseded'])
  })

  test('an endpoint that never answers times out (deliveryTimeout) and is retried', async () => {
    queue = await startQueue({ deliveryTimeout: 300 })
    const counter = new Counter()
    let hangs = 0
    endpoint = await endpointWithHook(serve(fourSteps(counter), { queueUrl: queue.url, token: TOKEN, env: {} }), ({ records }) =>
      records === 4 && hangs++ === 0 ? 'hang' : undefined,
    )
    const runId = await startRun(endpoint)
    const detail = await queue.waitForRun(runId)
    expect(detail.run.state).toBe('RUN_SUCCESS')
    expect(counter.toJSON()).toEqual({ s1: 1, s2: 1, s3: 1, s4: 1 })
    const log = await queue.store.attemptLog(detail.steps[3].messageId)
    expect(log[1]).toMatchObject({ outcome: 'retry', error: 'timed out after 300 ms' })
  })

  test('a step slower than deliveryTimeout that still records its result is not run again on retry', async () => {
    queue = await startQueue({ deliveryTimeout: 300, backoff: () => 1500 })
    const counter = new Counter()
    let finished!: () => void
    const slowDone = new Promise<void>((resolve) => (finished = resolve))
    endpoint = await endpointWithHook(
      serve(
        fourSteps(counter, {
          s2: async () => {
            if (counter.get('s2') === 1) await new Promise((resolve) => setTimeout(resolve, 700))
            finished()
          },
        }),
        { queueUrl: queue.url, token: TOKEN, env: {} },
      ),
    )
    const runId = await startRun(endpoint)
    await slowDone
    const detail = await queue.waitForRun(runId)
    expect(detail.run.state).toBe('RUN_SUCCESS')
    expect(counter.toJSON()).toEqual({ s1: 1, s2: 1, s3: 1, s4: 1 })
    const log = await queue.store.attemptLog(detail.steps[1].messageId)
    expect(log.map((entry) => [entry.outcome, entry.error])).toEqual([
      ['created', undefined],
      ['retry', 'timed out after 300 ms'],
      ['superseded', undefined],
    ])
  })
})

describe('queue restart mid-run', () => {
  test('a new queue service over the same executor resumes the run: nothing lost, nothing run twice', async () => {
    const executor = new MemoryExecutor()
    const first = await startQueue({ executor, leaseMs: 400 })
    const port = Number(new URL(first.url).port)
    const counter = new Counter()
    let entered!: () => void
    const inStep2 = new Promise<void>((resolve) => (entered = resolve))
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const endpoint = await endpointWithHook(
      serve(
        fourSteps(counter, {
          s2: async () => {
            entered()
            await gate
          },
        }),
        { queueUrl: first.url, token: TOKEN, env: {} },
      ),
    )
    let second: Queue | undefined
    try {
      const runId = await startRun(endpoint)
      await inStep2
      await first.close() // the delivery of step 2 is abandoned mid-flight
      expect(counter.toJSON()).toEqual({ s1: 1, s2: 1 })
      second = await startQueue({ executor, leaseMs: 400 }, port)
      release() // step 2 finishes and reports to the queue, now the second process
      const detail = await second.waitForRun(runId)
      expect(detail.run.state).toBe('RUN_SUCCESS')
      expect(JSON.parse(detail.run.result!)).toEqual([10, 11, 12, 13])
      expect(counter.toJSON()).toEqual({ s1: 1, s2: 1, s3: 1, s4: 1 })
      // the abandoned delivery was reclaimed after its lease and found its work already done
      const log = await second.store.attemptLog(detail.steps[1].messageId)
      expect(log.map((entry) => entry.outcome)).toEqual(['created', 'superseded'])
    } finally {
      await endpoint.close()
      await second?.close()
      await executor.close()
    }
  })

  test('a restarted queue delivers what was still waiting', async () => {
    const executor = new MemoryExecutor()
    const first = await startQueue({ executor, autoStart: false })
    const port = Number(new URL(first.url).port)
    const counter = new Counter()
    const endpoint = await endpointWithHook(serve(fourSteps(counter), { queueUrl: first.url, token: TOKEN, env: {} }))
    let second: Queue | undefined
    try {
      const runIds = [await startRun(endpoint), await startRun(endpoint)]
      await first.close()
      expect(counter.toJSON()).toEqual({})
      second = await startQueue({ executor }, port)
      for (const runId of runIds) expect((await second.waitForRun(runId)).run.state).toBe('RUN_SUCCESS')
      expect(counter.toJSON()).toEqual({ s1: 2, s2: 2, s3: 2, s4: 2 })
    } finally {
      await endpoint.close()
      await second?.close()
      await executor.close()
    }
  })
})
