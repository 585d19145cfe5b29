/**
 * restis `serve()` against a recording queue client: start, replay, step submission, errors,
 * signatures, schema validation, failure callbacks, adapters.
 */
import { createServer } from 'node:http'
import { describe, expect, expectTypeOf, test } from 'vitest'
import Type from 'typebox'
import {
  serve,
  serveNext,
  serveNode,
  serveManyNode,
  createWorkflow,
  signRequest,
  WorkflowNonRetryableError,
  WorkflowRetryAfterError,
  type BatchMessage,
  type QueueClient,
  type RawStep,
  type WorkflowContext,
} from '../../src/workflow/index.js'
import { Counter, listenFetch, listenServer } from '../queue/support.js'

const URL_ = 'http://app.test/api/workflow'

class FakeQueue implements QueueClient {
  readonly batches: BatchMessage[] = []
  readonly deleted: { runId: string; result: unknown; cancel: boolean }[] = []
  refuse?: { status: number; message: string }
  steps?: RawStep[]
  async batch(messages: readonly BatchMessage[]) {
    if (this.refuse) {
      const { QueueRequestError } = await import('../../src/workflow/errors.js')
      throw new QueueRequestError(this.refuse.message, this.refuse.status, this.refuse.message)
    }
    this.batches.push(...messages)
    return messages.map((_, index) => ({ messageId: `msg_${this.batches.length + index}` }))
  }
  async deleteRun(runId: string, result: unknown, cancel: boolean) {
    this.deleted.push({ runId, result, cancel })
  }
  async getRunSteps() {
    return this.steps
  }
}

const b64 = (text: string) => Buffer.from(text).toString('base64')

function delivery(payload: unknown, steps: object[], headers: Record<string, string> = {}, runId = 'wfr_test'): Request {
  const body = JSON.stringify([
    { messageId: 'm0', body: b64(JSON.stringify(payload)), callType: 'step' },
    ...steps.map((step, index) => ({ messageId: `m${index + 1}`, body: b64(JSON.stringify(step)), callType: 'step' })),
  ])
  return new Request(URL_, {
    method: 'POST',
    body,
    headers: { 'upstash-workflow-runid': runId, 'upstash-workflow-sdk-version': '1', 'content-type': 'application/json', ...headers },
  })
}

const run = (stepId: number, stepName: string, out: unknown) => ({ stepId, stepName, stepType: 'Run', out: JSON.stringify(out), concurrent: 1 })

function threeSteps(counter: Counter) {
  return async (context: { run: <T>(name: string, fn: () => T | Promise<T>) => Promise<T>; requestPayload: unknown }) => {
    const a = await context.run('a', () => {
      counter.hit('a')
      return 1
    })
    const b = await context.run('b', async () => {
      counter.hit('b')
      return a + 1
    })
    const c = await context.run('c', () => {
      counter.hit('c')
      return { sum: a + b }
    })
    return c
  }
}

describe('starting a run', () => {
  test('answers 200 {"workflowRunId":"wfr_…"} and schedules the start message with the SDK headers', async () => {
    const queue = new FakeQueue()
    const handler = serve(threeSteps(new Counter()), { queue, env: {}, retries: 5, failureFunction: () => {} })
    const response = await handler(
      new Request(URL_, {
        method: 'POST',
        body: '{"order":1}',
        headers: { 'content-type': 'application/json', 'x-tenant': 'acme', authorization: 'Bearer secret' },
      }),
    )
    expect(response.status).toBe(200)
    const body = await response.json()
    expect(Object.keys(body)).toEqual(['workflowRunId'])
    expect(body.workflowRunId).toMatch(/^wfr_[A-Za-z0-9_-]{21}$/)
    expect(queue.batches).toHaveLength(1)
    const [message] = queue.batches
    expect(message.destination).toBe(URL_)
    expect(message.body).toBe('{"order":1}')
    expect(message.headers).toMatchObject({
      'Upstash-Workflow-Init': 'true',
      'Upstash-Workflow-RunId': body.workflowRunId,
      'Upstash-Workflow-Url': URL_,
      'Upstash-Workflow-Sdk-Version': '1',
      'Upstash-Forward-Upstash-Workflow-Sdk-Version': '1',
      'Upstash-Feature-Set': 'LazyFetch,InitialBody,WF_DetectTrigger,WF_TriggerOnConfig',
      'Upstash-Retries': '5',
      'Upstash-Forward-x-tenant': 'acme',
      'Upstash-Failure-Callback': URL_,
      'Upstash-Failure-Callback-Forward-Upstash-Workflow-Is-Failure': 'true',
      'Upstash-Failure-Callback-Workflow-Runid': body.workflowRunId,
      'content-type': 'application/json',
    })
    expect(Object.keys(message.headers).some((name) => /authorization/i.test(name))).toBe(false)
  })

  test('a typebox schema validates the start payload: 400 and no run when invalid', async () => {
    const queue = new FakeQueue()
    const schema = Type.Object({ email: Type.String(), count: Type.Integer({ minimum: 1 }) })
    const handler = serve(
      async (context) => {
        expectTypeOf(context.requestPayload).toEqualTypeOf<{ email: string; count: number }>()
        await context.run('send', () => context.requestPayload.email)
      },
      { queue, env: {}, schema },
    )
    const bad = await handler(new Request(URL_, { method: 'POST', body: JSON.stringify({ email: 3, count: 0 }) }))
    expect(bad.status).toBe(400)
    const error = (await bad.json()).error as string
    expect(error).toMatch(/^invalid payload: /)
    expect(error).toContain('/email')
    expect(queue.batches).toHaveLength(0)
    const good = await handler(new Request(URL_, { method: 'POST', body: JSON.stringify({ email: 'a@b.c', count: 2 }) }))
    expect(good.status).toBe(200)
  })

  test('only POST is accepted', async () => {
    const response = await serve(async () => {}, { queue: new FakeQueue(), env: {} })(new Request(URL_, { method: 'GET' }))
    expect(response.status).toBe(405)
  })

  test('without a queue token the answer names the missing variable', async () => {
    const response = await serve(async () => {}, { env: {} })(new Request(URL_, { method: 'POST', body: '{}' }))
    expect(response.status).toBe(500)
    expect((await response.json()).error).toMatch(/QUEUE_TOKEN/)
  })

  test('QSTASH_* aliases and SERVICE_WORKFLOW_URL come from the env option', async () => {
    const seen: { path: string; auth: string | null; body: string }[] = []
    const recorder = await listenFetch(async (request) => {
      seen.push({ path: new URL(request.url).pathname, auth: request.headers.get('authorization'), body: await request.text() })
      return Response.json([{ messageId: 'msg_1' }])
    })
    try {
      const handler = serve(async () => {}, { env: { QSTASH_TOKEN: 'alias-token', QSTASH_URL: recorder.url, SERVICE_WORKFLOW_URL: 'https://public.example' } })
      const response = await handler(new Request('http://localhost:3000/api/wf?x=1', { method: 'POST', body: '"hi"' }))
      expect(response.status).toBe(200)
      expect(seen).toHaveLength(1)
      expect(seen[0].path).toBe('/v2/batch')
      expect(seen[0].auth).toBe('Bearer alias-token')
      expect(JSON.parse(seen[0].body)[0].destination).toBe('https://public.example/api/wf?x=1')
    } finally {
      await recorder.close()
    }
  })
})

describe('step deliveries', () => {
  test('the first delivery runs step 1 and sends its record to the queue', async () => {
    const queue = new FakeQueue()
    const counter = new Counter()
    const response = await serve(threeSteps(counter), { queue, env: {} })(delivery({ n: 1 }, []))
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ workflowRunId: 'wfr_test', finishCondition: 'step-finished' })
    expect(counter.toJSON()).toEqual({ a: 1 })
    expect(queue.batches).toHaveLength(1)
    expect(JSON.parse(queue.batches[0].body!)).toEqual({ stepId: 1, stepName: 'a', stepType: 'Run', out: '1', concurrent: 1 })
    expect(queue.batches[0].headers).toMatchObject({ 'Upstash-Workflow-Init': 'false', 'Upstash-Workflow-RunId': 'wfr_test' })
  })

  test('recorded steps are replayed, never executed again; the last delivery ends the run with the result', async () => {
    const queue = new FakeQueue()
    const counter = new Counter()
    const handler = serve(threeSteps(counter), { queue, env: {} })
    const second = await handler(delivery({}, [run(1, 'a', 1)]))
    expect(second.status).toBe(200)
    expect(counter.toJSON()).toEqual({ b: 1 })
    expect(JSON.parse(queue.batches[0].body!)).toMatchObject({ stepId: 2, stepName: 'b', out: '2' })
    const last = await handler(delivery({}, [run(1, 'a', 1), run(2, 'b', 2), run(3, 'c', { sum: 3 })]))
    expect(await last.json()).toEqual({ workflowRunId: 'wfr_test', finishCondition: 'workflow-finished' })
    expect(counter.toJSON()).toEqual({ b: 1 })
    expect(queue.deleted).toEqual([{ runId: 'wfr_test', result: { sum: 3 }, cancel: false }])
  })

  test('a step name that differs from the history is a non-retryable replay error', async () => {
    const queue = new FakeQueue()
    const response = await serve(threeSteps(new Counter()), { queue, env: {} })(delivery({}, [run(1, 'renamed', 1)]))
    expect(response.status).toBe(489)
    expect(response.headers.get('upstash-nonretryable-error')).toBe('true')
    const body = await response.json()
    expect(body.error).toBe('WorkflowReplayError')
    expect(body.message).toMatch(/step 1 does not match the run's history: the workflow called context.run\('a'\) but the history has 'renamed'/)
    expect(queue.batches).toHaveLength(0)
  })

  test('a history with a gap is refused before any step runs', async () => {
    const counter = new Counter()
    const response = await serve(threeSteps(counter), { queue: new FakeQueue(), env: {} })(delivery({}, [run(1, 'a', 1), run(3, 'c', 3)]))
    expect(response.status).toBe(489)
    expect((await response.json()).message).toMatch(/inconsistent history: record 2 \('c'\) has stepId 3, expected 2/)
    expect(counter.toJSON()).toEqual({})
  })

  test('parallel steps: the first delivery plans the group, a plan runs its step, a result alone is discarded, all results continue', async () => {
    const counter = new Counter()
    const body = async (context: WorkflowContext) => {
      const [x, y] = await Promise.all([context.run('x', () => counter.hit('x') * 10), context.run('y', () => counter.hit('y') * 20)])
      return context.run('sum', () => x + y)
    }
    const plan = (targetStep: number, stepName: string) => ({ stepId: 0, targetStep, stepName, stepType: 'Run', concurrent: 2 })
    const result = (stepId: number, stepName: string, out: unknown) => ({ stepId, stepName, stepType: 'Run', out: JSON.stringify(out), concurrent: 2 })
    const queue = new FakeQueue()
    const handler = serve(body, { queue, env: {} })
    expect(await (await handler(delivery({}, []))).json()).toEqual({ workflowRunId: 'wfr_test', finishCondition: 'parallel-planned' })
    expect(queue.batches.map((message) => JSON.parse(message.body!))).toEqual([plan(1, 'x'), plan(2, 'y')])
    expect(counter.toJSON()).toEqual({})
    expect(await (await handler(delivery({}, [plan(1, 'x'), plan(2, 'y')]))).json()).toMatchObject({ finishCondition: 'step-finished' })
    expect(JSON.parse(queue.batches[2].body!)).toEqual(result(2, 'y', 20))
    expect(await (await handler(delivery({}, [plan(1, 'x'), plan(2, 'y'), result(2, 'y', 20)]))).json()).toMatchObject({ finishCondition: 'discarded' })
    expect(await (await handler(delivery({}, [plan(1, 'x'), plan(2, 'y'), result(2, 'y', 20), plan(1, 'x')]))).json()).toMatchObject({ finishCondition: 'duplicate-step' })
    // the queue delivers each plan with the history up to it: the first plan's delivery runs 'x'
    expect(await (await handler(delivery({}, [plan(1, 'x')]))).json()).toMatchObject({ finishCondition: 'step-finished' })
    expect(JSON.parse(queue.batches[3].body!)).toEqual(result(1, 'x', 10))
    expect(counter.toJSON()).toEqual({ x: 1, y: 1 })
    expect(await (await handler(delivery({}, [plan(1, 'x'), plan(2, 'y'), result(2, 'y', 20), result(1, 'x', 10)]))).json()).toMatchObject({ finishCondition: 'step-finished' })
    expect(JSON.parse(queue.batches.at(-1)!.body!)).toEqual({ stepId: 3, stepName: 'sum', stepType: 'Run', out: '30', concurrent: 1 })
  })

  test('a parallel group that differs from the history, nested steps, and overlapping steps fail without retries', async () => {
    const plan = (targetStep: number, stepName: string, concurrent = 2) => ({ stepId: 0, targetStep, stepName, stepType: 'Run', concurrent })
    const pair = async (context: WorkflowContext) => Promise.all([context.run('x', () => 1), context.run('y', () => 2)])
    const renamed = await serve(pair, { queue: new FakeQueue(), env: {} })(delivery({}, [plan(1, 'x'), plan(2, 'z')]))
    expect(renamed.status).toBe(489)
    expect((await renamed.json()).message).toMatch(/step 2 does not match the run's history: the workflow called context.run\('y'\) in a parallel group of 2 but the history has 'z'/)
    const single = await serve(async (context) => context.run('x', () => 1), { queue: new FakeQueue(), env: {} })(delivery({}, [plan(1, 'x'), plan(2, 'y')]))
    expect(single.status).toBe(489)
    expect((await single.json()).message).toMatch(/step 1 does not match the run's history: the workflow called context.run\('x'\) but the history has 'x' \(Run, in a parallel group of 2\)/)
    const nested = await serve(async (context) => context.run('outer', () => context.run('inner', () => 1)), { queue: new FakeQueue(), env: {} })(delivery({}, []))
    expect(nested.status).toBe(489)
    expect((await nested.json()).message).toMatch(/step 'inner' was started inside step 'outer'/)
    const overlapping = await serve(
      async (context) => {
        const first = context.run('x', () => 1)
        await Promise.resolve()
        await Promise.resolve()
        await Promise.resolve()
        return Promise.all([first, context.run('y', () => 2)])
      },
      { queue: new FakeQueue(), env: {} },
    )(delivery({}, [{ stepId: 1, stepName: 'x', stepType: 'Run', out: '1', concurrent: 1 }]))
    expect(overlapping.status).toBe(489)
    expect((await overlapping.json()).message).toMatch(/step 'y' was started while step 'x' is still running/)
  })

  test("a call's callback is recorded as the call step; a callback without the step's headers is malformed", async () => {
    const queue = new FakeQueue()
    const handler = serve(async (context) => context.call('fetch', { url: 'http://api.test/x' }), { queue, env: {} })
    const outcome = { status: 200, header: { 'Content-Type': ['application/json'] }, body: b64('{"ok":true}'), retried: 0, maxRetries: 0 }
    const stepHeaders = {
      'upstash-workflow-runid': 'wfr_test',
      'upstash-workflow-callback': 'true',
      'upstash-workflow-stepid': '1',
      'upstash-workflow-stepname': 'fetch',
      'upstash-workflow-steptype': 'Call',
      'upstash-workflow-concurrent': '1',
    }
    const answer = await handler(new Request(URL_, { method: 'POST', body: JSON.stringify(outcome), headers: stepHeaders }))
    expect(await answer.json()).toEqual({ workflowRunId: 'wfr_test', finishCondition: 'is-call-return' })
    const record = JSON.parse(queue.batches[0].body!)
    expect(record).toEqual({ stepId: 1, stepName: 'fetch', stepType: 'Call', concurrent: 1, out: JSON.stringify({ status: 200, body: '{"ok":true}', header: outcome.header }) })
    const replayed = await handler(delivery({}, [record]))
    expect(await replayed.json()).toMatchObject({ finishCondition: 'workflow-finished' })
    expect(queue.deleted[0].result).toEqual({ status: 200, body: { ok: true }, header: outcome.header })
    const { 'upstash-workflow-stepid': _id, ...withoutId } = stepHeaders
    const malformed = await handler(new Request(URL_, { method: 'POST', body: JSON.stringify(outcome), headers: withoutId }))
    expect(malformed.status).toBe(400)
    expect((await malformed.json()).error).toBe("malformed workflow delivery: a call's callback needs the Upstash-Workflow-StepId header")
  })

  test('a notification the queue refuses fails the notify step (retried), and a queue client without wait() fails waitForEvent without retries', async () => {
    const { QueueRequestError } = await import('../../src/workflow/errors.js')
    const queue = Object.assign(new FakeQueue(), {
      notify: async () => {
        throw new QueueRequestError('notifying failed with status 400: bad event', 400, 'bad event')
      },
    })
    const notified = await serve(async (context) => context.notify('tell', 'e', 1), { queue, env: {} })(delivery({}, []))
    expect(notified.status).toBe(500)
    expect(notified.headers.get('upstash-error-step-name')).toBe('tell')
    expect((await notified.json()).message).toBe('notifying event "e" failed: notifying failed with status 400: bad event')
    const waited = await serve(async (context) => context.waitForEvent('wait', 'e'), { queue: new FakeQueue(), env: {} })(delivery({}, []))
    expect(waited.status).toBe(489)
    expect((await waited.json()).message).toBe("context.waitForEvent('wait') needs a queue client with wait(): the queue option given to serve() has none")
  })

  test('a body that returns before replaying its whole history fails without retries', async () => {
    const response = await serve(async (context) => context.run('a', () => 1), { queue: new FakeQueue(), env: {} })(delivery({}, [run(1, 'a', 1), run(2, 'b', 2)]))
    expect(response.status).toBe(489)
    expect((await response.json()).message).toMatch(/the workflow returned after step 1 but the run's history has 2 steps/)
  })

  test('errors map to the protocol: non-retryable 489, retry-after 429, others 500 with the step name', async () => {
    const respond = (error: Error) => serve(async (context) => context.run('boom', () => Promise.reject(error)), { queue: new FakeQueue(), env: {} })(delivery({}, []))
    const nonRetryable = await respond(new WorkflowNonRetryableError('card declined'))
    expect(nonRetryable.status).toBe(489)
    expect(await nonRetryable.json()).toEqual({ error: 'WorkflowNonRetryableError', message: 'card declined' })
    const later = await respond(new WorkflowRetryAfterError('slow down', 7))
    expect(later.status).toBe(429)
    expect(later.headers.get('retry-after')).toBe('7')
    const plain = await respond(new TypeError('x is undefined'))
    expect(plain.status).toBe(500)
    expect(plain.headers.get('upstash-error-step-name')).toBe('boom')
    expect(await plain.json()).toEqual({ error: 'TypeError', message: 'x is undefined' })
  })

  test('a result that is not JSON-serializable fails the step without retries', async () => {
    const response = await serve(async (context) => context.run('big', () => 10n), { queue: new FakeQueue(), env: {} })(delivery({}, []))
    expect(response.status).toBe(489)
    expect((await response.json()).message).toMatch(/step 'big' returned a value that is not JSON-serializable/)
  })

  test('context fields: run id, payload, user headers without queue headers, retried', async () => {
    let seen: Record<string, unknown> = {}
    const response = await serve(
      async (context) => {
        seen = {
          id: context.workflowRunId,
          payload: context.requestPayload,
          tenant: context.headers.get('x-tenant'),
          signature: context.headers.get('upstash-signature'),
          retried: context.retried,
        }
        await context.run('s', () => 1)
      },
      { queue: new FakeQueue(), env: {} },
    )(delivery({ a: 1 }, [], { 'x-tenant': 'acme', 'upstash-retried': '2', 'upstash-signature': 'x.y.z' }))
    expect(response.status).toBe(200)
    expect(seen).toEqual({ id: 'wfr_test', payload: { a: 1 }, tenant: 'acme', signature: null, retried: 2 })
  })

  test('malformed deliveries get 400 with the reason', async () => {
    const handler = serve(async () => {}, { queue: new FakeQueue(), env: {} })
    const headers = { 'upstash-workflow-runid': 'wfr_x', 'upstash-workflow-sdk-version': '1' }
    const notJson = await handler(new Request(URL_, { method: 'POST', body: 'hello', headers }))
    expect(notJson.status).toBe(400)
    expect((await notJson.json()).error).toBe('malformed workflow delivery: the body is not JSON')
    const noRun = await handler(new Request(URL_, { method: 'POST', body: '[]', headers: { 'upstash-workflow-sdk-version': '1' } }))
    expect((await noRun.json()).error).toMatch(/missing Upstash-Workflow-RunId/)
    const version = await handler(new Request(URL_, { method: 'POST', body: '[]', headers: { ...headers, 'upstash-workflow-sdk-version': '9' } }))
    expect(version.status).toBe(400)
    expect((await version.json()).error).toMatch(/incompatible workflow protocol version/)
  })

  test('an empty delivery body fetches the steps from the queue (LazyFetch)', async () => {
    const queue = new FakeQueue()
    queue.steps = [
      { messageId: 'm0', body: b64('{}'), callType: 'step' },
      { messageId: 'm1', body: b64(JSON.stringify(run(1, 'a', 1))), callType: 'step' },
    ]
    const counter = new Counter()
    const response = await serve(threeSteps(counter), { queue, env: {} })(
      new Request(URL_, { method: 'POST', body: '', headers: { 'upstash-workflow-runid': 'wfr_test', 'upstash-workflow-sdk-version': '1' } }),
    )
    expect(response.status).toBe(200)
    expect(counter.toJSON()).toEqual({ b: 1 })
  })

  test('LazyFetch with Upstash-Message-Id: the fetched history ends at that message (a parallel plan runs its own step)', async () => {
    const queue = new FakeQueue()
    const plan = (targetStep: number, stepName: string) => ({ stepId: 0, targetStep, stepName, stepType: 'Run', concurrent: 2 })
    queue.steps = [
      { messageId: 'm0', body: b64('{}'), callType: 'step' },
      { messageId: 'm1', body: b64(JSON.stringify(plan(1, 'x'))), callType: 'step' },
      { messageId: 'm2', body: b64(JSON.stringify(plan(2, 'y'))), callType: 'step' },
    ]
    const counter = new Counter()
    const body = async (context: WorkflowContext) => Promise.all([context.run('x', () => counter.hit('x')), context.run('y', () => counter.hit('y'))])
    const response = await serve(body, { queue, env: {} })(
      new Request(URL_, { method: 'POST', body: '', headers: { 'upstash-workflow-runid': 'wfr_test', 'upstash-workflow-sdk-version': '1', 'upstash-message-id': 'm1' } }),
    )
    expect(await response.json()).toMatchObject({ finishCondition: 'step-finished' })
    expect(counter.toJSON()).toEqual({ x: 1 })
    expect(JSON.parse(queue.batches[0].body!)).toMatchObject({ stepId: 1, stepName: 'x', concurrent: 2 })
  })

  test('a queue that says the run ended (400) ends the delivery quietly; an unknown run (404) is reported', async () => {
    const queue = new FakeQueue()
    queue.refuse = { status: 400, message: 'workflow run wfr_test is not running (RUN_CANCELED)' }
    const ended = await serve(threeSteps(new Counter()), { queue, env: {} })(delivery({}, []))
    expect(await ended.json()).toEqual({ workflowRunId: 'wfr_test', finishCondition: 'workflow-already-ended' })
    queue.refuse = { status: 404, message: 'workflow run wfr_test not found' }
    const unknown = await serve(threeSteps(new Counter()), { queue, env: {} })(delivery({}, []))
    expect(unknown.status).toBe(404)
    expect((await unknown.json()).error).toMatch(/the queue does not know run wfr_test/)
  })

  test('context.cancel ends the run as cancelled', async () => {
    const queue = new FakeQueue()
    const counter = new Counter()
    const response = await serve(
      async (context) => {
        await context.cancel()
        counter.hit('after')
      },
      { queue, env: {} },
    )(delivery({}, []))
    expect(await response.json()).toEqual({ workflowRunId: 'wfr_test', finishCondition: 'canceled' })
    expect(queue.deleted).toEqual([{ runId: 'wfr_test', result: undefined, cancel: true }])
    expect(counter.get('after')).toBe(0)
  })
})

describe('signatures', () => {
  const current = 'sig_current'
  const next = 'sig_next'
  const signed = (request: Request, body: string, key = current) => {
    const headers = new Headers(request.headers)
    headers.set('upstash-signature', signRequest({ url: URL_, body, key }))
    return new Request(URL_, { method: 'POST', body, headers })
  }

  test('with keys configured, unsigned and badly signed requests get 401; current and next keys pass', async () => {
    const counter = new Counter()
    const handler = serve(threeSteps(counter), { queue: new FakeQueue(), env: { QUEUE_CURRENT_SIGNING_KEY: current, QUEUE_NEXT_SIGNING_KEY: next } })
    const plain = delivery({}, [])
    const body = await plain.clone().text()
    const unsigned = await handler(delivery({}, []))
    expect(unsigned.status).toBe(401)
    expect((await unsigned.json()).error).toBe('invalid signature: missing Upstash-Signature header')
    const wrongKey = await handler(signed(delivery({}, []), body, 'sig_attacker'))
    expect(wrongKey.status).toBe(401)
    expect(counter.toJSON()).toEqual({})
    expect((await handler(signed(delivery({}, []), body, current))).status).toBe(200)
    expect((await handler(signed(delivery({}, []), body, next))).status).toBe(200)
  })

  test('a tampered step list with the original signature is refused: the body hash no longer matches', async () => {
    const counter = new Counter()
    const handler = serve(threeSteps(counter), { queue: new FakeQueue(), currentSigningKey: current, env: {} })
    const original = await delivery({}, [run(1, 'a', 1)]).text()
    const signature = signRequest({ url: URL_, body: original, key: current })
    const tampered = await delivery({}, [run(1, 'a', 1000)]).text()
    const response = await handler(
      new Request(URL_, {
        method: 'POST',
        body: tampered,
        headers: { 'upstash-workflow-runid': 'wfr_test', 'upstash-workflow-sdk-version': '1', 'upstash-signature': signature },
      }),
    )
    expect(response.status).toBe(401)
    expect((await response.json()).error).toBe('invalid signature: body hash does not match the signature (the body was changed)')
    expect(counter.toJSON()).toEqual({})
  })
})

describe('failure callbacks', () => {
  const failureRequest = (body: object) =>
    new Request(URL_, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'upstash-workflow-runid': 'wfr_f', 'upstash-workflow-is-failure': 'true', 'upstash-workflow-failure-callback': 'true', 'x-tenant': 'acme' },
    })

  test('call the failure function with the failed status, message and the start payload', async () => {
    const calls: unknown[] = []
    const handler = serve(async () => {}, {
      queue: new FakeQueue(),
      env: {},
      failureFunction: ({ context, failStatus, failResponse, failHeaders }) => {
        calls.push({ id: context.workflowRunId, payload: context.requestPayload, tenant: context.headers.get('x-tenant'), failStatus, failResponse, failHeaders })
        return 'handled'
      },
    })
    const response = await handler(
      failureRequest({
        status: 500,
        header: { 'content-type': ['application/json'] },
        body: b64(JSON.stringify({ error: 'Error', message: 'db down' })),
        sourceBody: b64('{"user":"ada"}'),
        workflowRunId: 'wfr_f',
      }),
    )
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ result: 'handled' })
    expect(calls).toEqual([{ id: 'wfr_f', payload: { user: 'ada' }, tenant: 'acme', failStatus: 500, failResponse: 'db down', failHeaders: { 'content-type': ['application/json'] } }])
  })

  test('without a failure function the callback is acknowledged with the not-found header', async () => {
    const response = await serve(async () => {}, { queue: new FakeQueue(), env: {} })(failureRequest({ status: 500 }))
    expect(response.status).toBe(200)
    expect(response.headers.get('upstash-workflow-failure-callback-notfound')).toBe('true')
  })
})

describe('adapters', () => {
  test('serveNode works as a Node http listener and reconstructs the URL from Host', async () => {
    const queue = new FakeQueue()
    const server = createServer(serveNode(async (context) => context.run('s', () => 1), { queue, env: {} }))
    const listening = await listenServer(server)
    try {
      const response = await fetch(`${listening.url}/workflow?tenant=1`, { method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json' } })
      expect(response.status).toBe(200)
      expect((await response.json()).workflowRunId).toMatch(/^wfr_/)
      expect(queue.batches[0].destination).toBe(`${listening.url}/workflow?tenant=1`)
      expect(queue.batches[0].body).toBe('{"a":1}')
    } finally {
      await listening.close()
    }
  })

  test('serveManyNode routes by the last path segment on a Node listener; an unknown name is 404', async () => {
    const queue = new FakeQueue()
    const one = createWorkflow(async (context) => context.run('s', () => 1))
    const two = createWorkflow(async (context) => context.run('s', () => 2), { retries: 5 })
    const listening = await listenServer(createServer(serveManyNode({ one, two }, { queue, env: {} })))
    try {
      for (const name of ['one', 'two']) {
        const response = await fetch(`${listening.url}/api/workflows/${name}`, { method: 'POST', body: '{}' })
        expect(response.status).toBe(200)
      }
      expect(queue.batches.map((message) => [message.destination, message.headers['Upstash-Retries']])).toEqual([
        [`${listening.url}/api/workflows/one`, undefined],
        [`${listening.url}/api/workflows/two`, '5'],
      ])
      expect(one.workflowId).toBe('one')
      const unknown = await fetch(`${listening.url}/api/workflows/three`, { method: 'POST', body: '{}' })
      expect(unknown.status).toBe(404)
      expect(await unknown.json()).toEqual({ error: 'no workflow named "three" here; this route serves: one, two' })
      expect(() => serveManyNode({ again: one }, { queue, env: {} })).toThrow("the workflow named 'again' is already served as 'one'")
      expect(() => serveManyNode({ 'a/b': createWorkflow(async () => {}) })).toThrow(/invalid workflow name "a\/b"/)
    } finally {
      await listening.close()
    }
  })

  test('serveNext gives a { POST } route handler', async () => {
    const queue = new FakeQueue()
    const { POST } = serveNext(async () => {}, { queue, env: {} })
    const response = await POST(new Request(URL_, { method: 'POST', body: '{}' }))
    expect(response.status).toBe(200)
  })
})
