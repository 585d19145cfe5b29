/**
 * Interoperability with the real `@upstash/workflow` SDK: its `serve()` (the Fetch adapter from
 * node_modules, behind a loopback HTTP server) runs on the restis queue service, and restis's
 * own `serve()` runs the same scenarios on the same queue.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { serve as sdkServe, WorkflowNonRetryableError as SdkNonRetryable } from '@upstash/workflow'
import { Client as SdkQueueClient, Receiver } from '@upstash/qstash'
import { serve, WorkflowNonRetryableError, WorkflowRetryAfterError, type RouteFunction, type ServeOptions } from '../../src/workflow/index.js'
import { Counter, listenFetch, startQueue, TOKEN, type Listening } from './support.js'
import type { QueueService } from '../../src/queue/index.js'

type Queue = QueueService & { url: string }

interface Failure {
  readonly runId: string
  readonly status: number
  readonly response: string
  readonly payload: unknown
}

/** One endpoint per flavour, built from the same scenario bodies. */
interface Flavour {
  readonly name: string
  mount(
    queue: Queue,
    body: (context: ScenarioContext) => Promise<unknown>,
    failures: Failure[],
    options?: { retries?: number; signed?: boolean },
  ): Promise<Listening>
}

/** What the scenarios use of a context: both SDKs offer it. */
interface ScenarioContext {
  readonly workflowRunId: string
  readonly requestPayload: unknown
  readonly headers: Headers
  readonly retried: number
  run<T>(name: string, fn: () => T | Promise<T>): Promise<T>
}

const restisFlavour: Flavour = {
  name: 'restis serve()',
  mount(queue, body, failures, options = {}) {
    const serveOptions: ServeOptions<unknown> = {
      queueUrl: queue.url,
      token: TOKEN,
      retries: options.retries,
      env: {},
      failureFunction: ({ context, failStatus, failResponse }) => {
        failures.push({ runId: context.workflowRunId, status: failStatus, response: failResponse, payload: context.requestPayload })
      },
      ...(options.signed ? { currentSigningKey: queue.signingKeys.current, nextSigningKey: queue.signingKeys.next } : {}),
    }
    return listenFetch(serve(body as unknown as RouteFunction<unknown>, serveOptions))
  },
}

const sdkFlavour: Flavour = {
  name: '@upstash/workflow serve()',
  mount(queue, body, failures, options = {}) {
    const { handler } = sdkServe(body as never, {
      qstashClient: new SdkQueueClient({ baseUrl: queue.url, token: TOKEN }),
      receiver: options.signed ? new Receiver({ currentSigningKey: queue.signingKeys.current, nextSigningKey: queue.signingKeys.next }) : undefined,
      env: {},
      failureFunction: async ({ context, failStatus, failResponse }) => {
        failures.push({ runId: context.workflowRunId, status: failStatus, response: failResponse, payload: context.requestPayload })
      },
    })
    return listenFetch(handler)
  },
}

async function start(endpoint: Listening, payload: unknown, headers: Record<string, string> = {}): Promise<string> {
  const response = await fetch(`${endpoint.url}/api/workflow`, {
    method: 'POST',
    body: JSON.stringify(payload),
    headers: { 'content-type': 'application/json', ...headers },
  })
  const text = await response.text()
  expect(response.status, text).toBe(200)
  const { workflowRunId } = JSON.parse(text) as { workflowRunId: string }
  expect(workflowRunId).toMatch(/^wfr_[A-Za-z0-9_-]+$/)
  return workflowRunId
}

describe.each([sdkFlavour, restisFlavour])('$name on the restis queue', (flavour) => {
  let queue: Queue
  const endpoints: Listening[] = []
  const mount = async (...args: Parameters<Flavour['mount']>) => {
    const endpoint = await flavour.mount(...args)
    endpoints.push(endpoint)
    return endpoint
  }

  beforeAll(async () => {
    queue = await startQueue()
  })
  afterAll(async () => {
    await Promise.all(endpoints.map((endpoint) => endpoint.close()))
    await queue.close()
  })

  test('a multi-step run replays stored results and executes each step once', async () => {
    const counter = new Counter()
    const seen: unknown[] = []
    const endpoint = await mount(
      queue,
      async (context) => {
        const a = await context.run('fetch order', () => {
          counter.hit('fetch order')
          return { id: (context.requestPayload as { order: number }).order, items: 3 }
        })
        const b = await context.run('charge', async () => {
          counter.hit('charge')
          return a.items * 10
        })
        const c = await context.run('ship', () => {
          counter.hit('ship')
          return `shipped ${a.id} for ${b} to ${context.headers.get('x-customer')}`
        })
        seen.push(c)
        return { done: c }
      },
      [],
    )
    const runId = await start(endpoint, { order: 42 }, { 'x-customer': 'ada' })
    const detail = await queue.waitForRun(runId)
    expect(detail.run.state).toBe('RUN_SUCCESS')
    expect(JSON.parse(detail.run.result!)).toEqual({ done: 'shipped 42 for 30 to ada' })
    expect(counter.toJSON()).toEqual({ 'fetch order': 1, charge: 1, ship: 1 })
    expect(detail.steps.map((step) => [step.stepName, step.status])).toEqual([
      ['init', 'delivered'],
      ['fetch order', 'delivered'],
      ['charge', 'delivered'],
      ['ship', 'delivered'],
    ])
    expect(JSON.parse(detail.steps[1].body)).toMatchObject({ stepId: 1, stepName: 'fetch order', stepType: 'Run', concurrent: 1 })
  })

  test('a step that fails once is retried and then succeeds', async () => {
    const counter = new Counter()
    const retriedSeen: number[] = []
    const endpoint = await mount(
      queue,
      async (context) => {
        await context.run('first', () => counter.hit('first'))
        await context.run('flaky', () => {
          retriedSeen.push(context.retried)
          if (counter.hit('flaky') === 1) throw new Error('temporary outage')
          return 'ok'
        })
        await context.run('last', () => counter.hit('last'))
      },
      [],
    )
    const runId = await start(endpoint, {})
    const detail = await queue.waitForRun(runId)
    expect(detail.run.state).toBe('RUN_SUCCESS')
    expect(counter.toJSON()).toEqual({ first: 1, flaky: 2, last: 1 })
    expect(retriedSeen).toEqual([0, 1])
    const flakyDelivery = detail.steps.find((step) => step.stepName === 'first')!
    const log = await (await fetch(`${queue.url}/v2/dashboard/messages/${flakyDelivery.messageId}`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()
    expect(log.log.map((entry: { outcome: string }) => entry.outcome)).toEqual(['created', 'retry', 'delivered'])
    expect(log.log[1].status).toBe(500)
    expect(log.log[1].responseBody).toContain('temporary outage')
  })

  test('a step that always fails ends in the failure function after the retries', async () => {
    const counter = new Counter()
    const failures: Failure[] = []
    const endpoint = await mount(
      queue,
      async (context) => {
        await context.run('ok', () => counter.hit('ok'))
        await context.run('broken', () => {
          counter.hit('broken')
          throw new Error('the payment provider is down')
        })
        await context.run('never', () => counter.hit('never'))
      },
      failures,
    )
    const runId = await start(endpoint, { user: 'grace' })
    const detail = await queue.waitForRun(runId)
    expect(detail.run.state).toBe('RUN_FAILED')
    // the first attempt and the default 3 retries
    expect(counter.toJSON()).toEqual({ ok: 1, broken: 4 })
    expect(failures).toEqual([{ runId, status: 500, response: 'the payment provider is down', payload: { user: 'grace' } }])
    const callback = detail.steps.find((step) => step.kind === 'failure')!
    expect(callback.status).toBe('delivered')
    const dlq = await queue.dlq.list()
    expect(dlq.some((letter) => letter.workflowRunId === runId && letter.responseStatus === 500)).toBe(true)
  })

  test('a non-retryable error fails the run at once', async () => {
    const counter = new Counter()
    const failures: Failure[] = []
    const NonRetryable = flavour === sdkFlavour ? SdkNonRetryable : WorkflowNonRetryableError
    const endpoint = await mount(
      queue,
      async (context) => {
        await context.run('validate', () => {
          counter.hit('validate')
          throw new NonRetryable('order 7 does not exist')
        })
      },
      failures,
    )
    const runId = await start(endpoint, {})
    const detail = await queue.waitForRun(runId)
    expect(detail.run.state).toBe('RUN_FAILED')
    expect(counter.get('validate')).toBe(1)
    expect(failures).toHaveLength(1)
    expect(failures[0].status).toBe(489)
    expect(failures[0].response).toBe('order 7 does not exist')
  })

  test('signed deliveries: a run started through the queue is verified at every step', async () => {
    const counter = new Counter()
    const endpoint = await mount(
      queue,
      async (context) => {
        const x = await context.run('a', () => counter.hit('a'))
        await context.run('b', () => counter.hit('b') + x)
      },
      [],
      { signed: true },
    )
    const direct = await fetch(`${endpoint.url}/api/workflow`, { method: 'POST', body: '{}' })
    expect(direct.status).not.toBe(200)
    const published = await fetch(`${queue.url}/v2/publish/${endpoint.url}/api/workflow`, {
      method: 'POST',
      body: JSON.stringify({ via: 'queue' }),
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    })
    expect(published.status).toBe(201)
    const runId = await until(async () => (await queue.runs.list()).runs.find((run) => run.url === `${endpoint.url}/api/workflow`)?.workflowRunId)
    const detail = await queue.waitForRun(runId)
    expect(detail.run.state).toBe('RUN_SUCCESS')
    expect(counter.toJSON()).toEqual({ a: 1, b: 1 })
  })
})

describe('restis serve() specifics on the restis queue', () => {
  let queue: Queue
  let endpoint: Listening
  const counter = new Counter()
  beforeAll(async () => {
    queue = await startQueue()
    endpoint = await listenFetch(
      serve(
        async (context) => {
          await context.run('call api', () => {
            if (counter.hit('call api') === 1) throw new WorkflowRetryAfterError('rate limited', 0.2)
            return 1
          })
        },
        { queueUrl: queue.url, token: TOKEN, env: {} },
      ),
    )
  })
  afterAll(async () => {
    await endpoint.close()
    await queue.close()
  })

  test("the retries option sets the run's retry budget on the queue", async () => {
    const failing = new Counter()
    const failures: string[] = []
    const endpoint = await listenFetch(
      serve(
        async (context) => {
          await context.run('always', () => {
            failing.hit('always')
            throw new Error('nope')
          })
        },
        { queueUrl: queue.url, token: TOKEN, env: {}, retries: 1, failureFunction: ({ failResponse }) => void failures.push(failResponse) },
      ),
    )
    try {
      const runId = await start(endpoint, {})
      const detail = await queue.waitForRun(runId)
      expect(detail.run.state).toBe('RUN_FAILED')
      expect(detail.run.retries).toBe(1)
      expect(failing.get('always')).toBe(2)
      expect(failures).toEqual(['nope'])
    } finally {
      await endpoint.close()
    }
  })

  test('WorkflowRetryAfterError answers 429 with Retry-After and the queue waits that long', async () => {
    const runId = await start(endpoint, {})
    const detail = await queue.waitForRun(runId)
    expect(detail.run.state).toBe('RUN_SUCCESS')
    expect(counter.get('call api')).toBe(2)
    const log = (await queue.store.attemptLog(detail.steps[0].messageId)).filter((entry) => entry.outcome === 'retry')
    expect(log).toHaveLength(1)
    expect(log[0].status).toBe(429)
    expect(log[0].responseHeaders?.['retry-after']).toBe('0.2')
    expect(log[0].nextAttemptAt! - (log[0].at + log[0].durationMs!)).toBeGreaterThanOrEqual(190)
  })
})

async function until<T>(check: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error('timed out')
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

describe('@upstash/workflow features beyond sequential steps', () => {
  test('parallel steps (Promise.all of context.run) and context.sleep run on the restis queue', async () => {
    const queue = await startQueue()
    const counter = new Counter()
    const { handler } = sdkServe(
      async (context) => {
        const a = await context.run('a', () => counter.hit('a'))
        const [x, y, z] = await Promise.all([
          context.run('x', () => counter.hit('x') * 10),
          context.run('y', async () => counter.hit('y') * 20),
          context.run('z', () => counter.hit('z') * 30),
        ])
        await context.sleep('nap', 1)
        return { a, sum: await context.run('b', () => counter.hit('b') + x + y + z) }
      },
      { qstashClient: new SdkQueueClient({ baseUrl: queue.url, token: TOKEN }), env: {} },
    )
    const endpoint = await listenFetch(handler)
    try {
      const started = Date.now()
      const runId = await start(endpoint, {})
      const detail = await queue.waitForRun(runId)
      expect(detail.run.state).toBe('RUN_SUCCESS')
      expect(JSON.parse(detail.run.result!)).toEqual({ a: 1, sum: 61 })
      expect(counter.toJSON()).toEqual({ a: 1, x: 1, y: 1, z: 1, b: 1 })
      expect(detail.steps.filter((step) => step.stepType === 'Run (plan)').map((step) => step.stepName)).toEqual(['x', 'y', 'z'])
      expect(Date.now() - started).toBeGreaterThanOrEqual(1000)
    } finally {
      await endpoint.close()
      await queue.close()
    }
  })
})
