/**
 * restis's own `serve()` end to end on the restis queue (over HTTP, signed deliveries): parallel
 * steps, `context.call` (success, an error status, a refused connection, a timeout),
 * `waitForEvent` with `notify` (from a step and from the client) and with a timeout,
 * `context.invoke` through `serveMany` (a child that succeeds and one that fails) and by URL (an
 * `@upstash/workflow` child), and the
 * client's trigger, cancel, getWaiters, listRuns and getRun.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { serve as sdkServe } from '@upstash/workflow'
import { Client as SdkQueueClient, Receiver } from '@upstash/qstash'
import {
  createQueueClient,
  createWorkflow,
  serveMany,
  QueueRequestError,
  WorkflowNonRetryableError,
  type WorkflowClient,
  type WorkflowContext,
} from '../../src/workflow/index.js'
import { Counter, listenFetch, startQueue, TOKEN, until, type Listening } from '../queue/support.js'
import { closedPort, thirdParty } from '../support/third-party.js'
import type { QueueService } from '../../src/queue/index.js'

type Queue = QueueService & { url: string }

describe('restis serve() on the restis queue: parallel steps, call, waitForEvent/notify, invoke, the client', () => {
  let queue: Queue
  let upstream: Listening
  let endpoint: Listening
  let sdkEndpoint: Listening
  let client: WorkflowClient
  const hits = new Counter()
  const steps = new Counter()
  let refused = 0

  const route = (name: string) => `${endpoint.url}/workflows/${name}`

  async function finished(workflowRunId: string): Promise<unknown> {
    const detail = await queue.waitForRun(workflowRunId, 20_000)
    expect(detail.run.state, detail.run.error).toBe('RUN_SUCCESS')
    return JSON.parse(detail.run.result!)
  }

  beforeAll(async () => {
    queue = await startQueue({ deliveryTimeout: 5_000 })
    upstream = await thirdParty(hits, 'key')
    refused = await closedPort()
    client = createQueueClient({ url: queue.url, token: TOKEN })

    const parallel = createWorkflow(async (context: WorkflowContext<{ base: number }>) => {
      const base = context.requestPayload.base
      const [a, b] = await Promise.all([
        context.run('a', () => base + steps.hit('parallel a') * 0 + 1),
        context.run('b', async () => base + steps.hit('parallel b') * 0 + 2),
        context.sleep('pause', 1),
      ])
      return context.run('sum', () => {
        steps.hit('parallel sum')
        return a + b
      })
    })
    const calls = createWorkflow(async (context) => {
      const echo = await context.call<{ method: string; body: string; key: string }>('echo', {
        url: `${upstream.url}/echo`,
        method: 'POST',
        body: { hello: 'world' },
        headers: { 'x-api-key': 'k1', 'content-type': 'application/json' },
      })
      const broken = await context.call('broken', { url: `${upstream.url}/broken`, retries: 1 })
      const unreachable = await context.call('unreachable', { url: `http://127.0.0.1:${refused}/` })
      const slow = await context.call('slow', { url: `${upstream.url}/hang`, timeout: '500ms' })
      return {
        echo: { status: echo.status, body: echo.body, upstream: echo.header['x-upstream'] ?? echo.header['X-Upstream'] },
        broken: { status: broken.status, body: broken.body },
        unreachable: unreachable.status,
        slow: slow.status,
      }
    })
    const waiter = createWorkflow(async (context: WorkflowContext<{ event: string; timeout?: number }>) => {
      const before = await context.run('before', () => steps.hit(`waiter ${context.requestPayload.event}`))
      const { eventData, timeout } = await context.waitForEvent('wait', context.requestPayload.event, { timeout: context.requestPayload.timeout ?? 30 })
      return { before, eventData: eventData ?? null, timeout }
    })
    const notifier = createWorkflow(async (context: WorkflowContext<{ event: string }>) => {
      const sent = await context.notify('tell', context.requestPayload.event, { order: 7 })
      return { notified: sent.notifyResponse.length, eventData: sent.eventData }
    })
    const child = createWorkflow(async (context: WorkflowContext<{ n: number; fail?: boolean }>) => {
      const doubled = await context.run('double', () => context.requestPayload.n * 2)
      if (context.requestPayload.fail) await context.run('refuse', () => Promise.reject(new WorkflowNonRetryableError(`child refused ${doubled}`)))
      return { doubled }
    })
    const parent = createWorkflow(async (context: WorkflowContext<{ n: number; fail?: boolean }>) => {
      const outcome = await context.invoke<{ n: number; fail?: boolean }, { doubled: number }>('child', { workflow: child, body: context.requestPayload })
      const after = await context.run('after', () => steps.hit('parent after'))
      return { outcome, after }
    })
    const mixed = createWorkflow(async (context) => {
      const [call, wait, invoked, ran] = await Promise.all([
        context.call('call', { url: `${upstream.url}/echo`, method: 'PUT', body: 'x' }),
        context.waitForEvent('wait', 'mixed-never', { timeout: '1s' }),
        context.invoke('invoke', { workflow: child, body: { n: 1 } }),
        context.run('run', () => steps.hit('mixed run')),
      ])
      return { call: call.status, wait: wait.timeout, invoked: invoked.body, ran }
    })
    const { handler: sdkHandler } = sdkServe(
      async (context) => {
        const { n } = context.requestPayload as { n: number }
        return context.run('triple', () => n * 3)
      },
      {
        qstashClient: new SdkQueueClient({ baseUrl: queue.url, token: TOKEN }),
        receiver: new Receiver({ currentSigningKey: queue.signingKeys.current, nextSigningKey: queue.signingKeys.next }),
        env: {},
      },
    )
    sdkEndpoint = await listenFetch(sdkHandler)
    const byUrl = createWorkflow(async (context) => context.invoke('sdk child', { workflow: `${sdkEndpoint.url}/sdk-child`, body: { n: 4 } }))
    const handler = serveMany(
      { parallel, calls, waiter, notifier, child, parent, mixed, byUrl },
      { queueUrl: queue.url, token: TOKEN, env: {}, currentSigningKey: queue.signingKeys.current, nextSigningKey: queue.signingKeys.next },
    )
    endpoint = await listenFetch(handler)
  })

  afterAll(async () => {
    await endpoint?.close()
    await sdkEndpoint?.close()
    await upstream?.close()
    await queue?.close()
  })

  test('Promise.all of run, run and sleep: planned, each step run once, the results in order', async () => {
    const { workflowRunId } = await client.trigger({ url: route('parallel'), body: { base: 10 } })
    expect(await finished(workflowRunId)).toBe(23)
    expect(steps.toJSON()).toMatchObject({ 'parallel a': 1, 'parallel b': 1, 'parallel sum': 1 })
    const run = await client.getRun(workflowRunId)
    const recorded = run!.steps.filter((step) => step.stepName !== 'init').map((step) => `${step.stepName}:${step.stepType}`)
    expect(recorded).toEqual(expect.arrayContaining(['a:Run (plan)', 'b:Run (plan)', 'pause:SleepFor (plan)', 'a:Run', 'b:Run', 'pause:SleepFor', 'sum:Run']))
  })

  test('a parallel group of call, waitForEvent, invoke and run: each resolves in its place', async () => {
    const { workflowRunId } = await client.trigger({ url: route('mixed') })
    expect(await finished(workflowRunId)).toEqual({ call: 201, wait: true, invoked: { doubled: 2 }, ran: 1 })
    expect(steps.get('mixed run')).toBe(1)
  })

  test('context.call returns the answer whatever its status: 201 with JSON, 503 after a retry, 502 unreachable, 504 timed out', async () => {
    const { workflowRunId } = await client.trigger({ url: route('calls') })
    expect(await finished(workflowRunId)).toEqual({
      echo: { status: 201, body: { method: 'POST', body: '{"hello":"world"}', key: 'k1' }, upstream: ['yes'] },
      broken: { status: 503, body: 'upstream is down' },
      unreachable: 502,
      slow: 504,
    })
    expect(hits.get('/broken')).toBe(2)
  })

  test('waitForEvent resumes with the data of a notify step, and a notification from the client', async () => {
    const first = await client.trigger({ url: route('waiter'), body: { event: 'order-ready' } })
    await until(async () => ((await client.getWaiters('order-ready')).length === 1 ? true : undefined), 10_000, 'the waiter')
    const notifier = await client.trigger({ url: route('notifier'), body: { event: 'order-ready' } })
    expect(await finished(notifier.workflowRunId)).toEqual({ notified: 1, eventData: { order: 7 } })
    expect(await finished(first.workflowRunId)).toEqual({ before: 1, eventData: { order: 7 }, timeout: false })

    const second = await client.trigger({ url: route('waiter'), body: { event: 'from-client' } })
    await until(async () => ((await client.getWaiters('from-client')).length === 1 ? true : undefined), 10_000, 'the waiter')
    const answers = await client.notify('from-client', 'plain text')
    expect(answers).toHaveLength(1)
    expect(answers[0].error).toBe('')
    expect(await finished(second.workflowRunId)).toEqual({ before: 1, eventData: 'plain text', timeout: false })
    expect(await client.getWaiters('from-client')).toEqual([])
  })

  test('waitForEvent times out with {eventData: undefined, timeout: true}', async () => {
    const { workflowRunId } = await client.trigger({ url: route('waiter'), body: { event: 'never', timeout: 1 } })
    expect(await finished(workflowRunId)).toEqual({ before: 1, eventData: null, timeout: true })
  })

  test('context.invoke runs a served workflow and resumes with its result; a failing child resumes it with isFailed', async () => {
    const ok = await client.trigger({ url: route('parent'), body: { n: 21 } })
    expect(await finished(ok.workflowRunId)).toEqual({ outcome: { body: { doubled: 42 }, isFailed: false, isCanceled: false }, after: 1 })
    const failing = await client.trigger({ url: route('parent'), body: { n: 5, fail: true } })
    const result = (await finished(failing.workflowRunId)) as { outcome: { body: { message: string }; isFailed: boolean; isCanceled: boolean } }
    expect(result.outcome.isFailed).toBe(true)
    expect(result.outcome.isCanceled).toBe(false)
    expect(result.outcome.body.message).toBe('child refused 10')
  })

  test('context.invoke by URL starts an @upstash/workflow endpoint as the child', async () => {
    const { workflowRunId } = await client.trigger({ url: route('byUrl') })
    expect(await finished(workflowRunId)).toEqual({ body: 12, isFailed: false, isCanceled: false })
  })

  test('the client lists runs, reads one, cancels a waiting run, and says 404 for an unknown one', async () => {
    const { workflowRunId } = await client.trigger({ url: route('waiter'), body: { event: 'cancel-me' } })
    await until(async () => ((await client.getWaiters('cancel-me')).length === 1 ? true : undefined), 10_000, 'the waiter')
    const page = await client.listRuns({ count: 100 })
    expect(page.total).toBeGreaterThanOrEqual(1)
    expect(page.runs.find((run) => run.workflowRunId === workflowRunId)).toMatchObject({ state: 'RUN_STARTED', url: route('waiter'), payload: '{"event":"cancel-me"}' })
    await client.cancel(workflowRunId)
    const detail = await client.getRun(workflowRunId)
    expect(detail!.run.state).toBe('RUN_CANCELED')
    expect(detail!.steps.map((step) => step.stepName)).toEqual(expect.arrayContaining(['init', 'before', 'wait']))
    expect(await client.getWaiters('cancel-me')).toEqual([])
    expect(await client.getRun('wfr_unknown')).toBeUndefined()
    const error = await client.cancel('wfr_unknown').catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(QueueRequestError)
    expect((error as QueueRequestError).status).toBe(404)
  })

  test('serveMany answers 404 for an unknown workflow name', async () => {
    const response = await fetch(route('nope'), { method: 'POST', body: '{}' })
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: 'no workflow named "nope" here; this route serves: parallel, calls, waiter, notifier, child, parent, mixed, byUrl' })
  })
})
