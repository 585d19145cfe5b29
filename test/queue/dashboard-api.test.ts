/**
 * The dashboard's read API: the run list's server-side filters (state, URL prefix, date range,
 * run id, label) and pagination, refusal of unknown parameters, and the run page's step rows for
 * every step type of the real `@upstash/workflow` SDK (run, sleep, call, invoke, notify, wait),
 * with decoded input and output, attempts and the failed attempt's own error text.
 */
import { createServer } from 'node:http'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { Client as WorkflowClient, WorkflowNonRetryableError, type WorkflowContext } from '@upstash/workflow'
import { createWorkflow, serveMany } from '@upstash/workflow/cloudflare'
import { Client as SdkQueueClient, Receiver } from '@upstash/qstash'
import { listenFetch, listenServer, startQueue, TOKEN, until, type Listening } from './support.js'
import type { QueueService } from '../../src/queue/index.js'
import type { StepRow } from '../../src/queue/dashboard-steps.js'

type Queue = QueueService & { url: string }
const auth = { authorization: `Bearer ${TOKEN}` }

type Ctx = WorkflowContext<Record<string, unknown>>

let queue: Queue
let endpoint: Listening
let priceApi: Listening
let flakyFinish = 0

async function get<T = Record<string, unknown>>(path: string): Promise<{ status: number; body: T }> {
  const response = await fetch(`${queue.url}${path}`, { headers: auth })
  return { status: response.status, body: (await response.json()) as T }
}

/** Starts a run of `/api/<name>` with the SDK's client; resolves with its id. */
async function start(name: string, payload: unknown, options: { label?: string; retries?: number; headers?: Record<string, string> } = {}): Promise<string> {
  const client = new WorkflowClient({ baseUrl: queue.url, token: TOKEN })
  const { workflowRunId } = await client.trigger({ url: `${endpoint.url}/api/${name}`, body: payload, ...options })
  return workflowRunId
}

beforeAll(async () => {
  queue = await startQueue()
  priceApi = await listenServer(
    createServer((request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' })
      response.end(JSON.stringify({ price: 42 }))
    }),
  )
  const options = {
    qstashClient: new SdkQueueClient({ baseUrl: queue.url, token: TOKEN }),
    receiver: new Receiver({ currentSigningKey: queue.signingKeys.current, nextSigningKey: queue.signingKeys.next }),
  }
  const simple = createWorkflow(async (context: Ctx) => context.run('only step', () => ({ n: context.requestPayload.n })))
  const broken = createWorkflow(async (context: Ctx) => {
    await context.run('prepare', () => 'ready')
    await context.run('explode', () => {
      throw new WorkflowNonRetryableError('the warehouse is on fire')
    })
  })
  const child = createWorkflow(async (context: Ctx) => context.run('double', () => (context.requestPayload.n as number) * 2))
  const everything = createWorkflow(async (context: Ctx) => {
    const order = await context.run('fetch order', () => ({ order: 'A-1', items: [1, 2] }))
    await context.sleep('cool down', 1)
    const price = await context.call('price api', { url: `${priceApi.url}/price`, method: 'POST', body: JSON.stringify({ order: order.order }) })
    const doubled = await context.invoke('double it', { workflow: child, body: { n: 21 }, retries: 0 })
    await context.notify('tell others', 'nobody-listens', { hello: 1 })
    const approval = await context.waitForEvent('await approval', 'approve-A-1', { timeout: 60 })
    return context.run('finish', () => {
      if (flakyFinish++ === 0) throw new Error('flaky finish, try again')
      return { price: price.body, doubled: doubled.body, approval }
    })
  })
  const { fetch: handler } = serveMany({ simple, broken, child, everything } as never, options as never) as unknown as {
    fetch: (request: Request, env: object) => Promise<Response>
  }
  endpoint = await listenFetch((request) => handler(request, {}))
}, 30_000)
afterAll(async () => {
  await endpoint?.close()
  await priceApi?.close()
  await queue?.close()
})

describe('GET /v2/dashboard/runs: filters and pagination done by the server', () => {
  const early: string[] = []
  const late: string[] = []
  let boundary = 0

  beforeAll(async () => {
    for (const n of [1, 2, 3]) early.push(await start('simple', { n }, n === 1 ? { label: 'blue' } : {}))
    await Promise.all(early.map((id) => queue.waitForRun(id)))
    const lastEarly = Math.max(...(await queue.runs.list(0, 1000)).runs.map((run) => run.createdAt))
    boundary = await until(() => (Date.now() > lastEarly + 1 ? lastEarly + 1 : undefined))
    await until(() => (Date.now() > boundary + 1 ? true : undefined))
    late.push(await start('simple', { n: 4 }, { label: 'blue' }))
    late.push(await start('broken', {}, { retries: 0 }))
    late.push(await start('broken', {}, { retries: 0 }))
    await Promise.all(late.map((id) => queue.waitForRun(id)))
  }, 60_000)

  test('pages of `count` runs, newest first, with the total and the next offset', async () => {
    const all = [...early, ...late].reverse()
    const first = await get<{ runs: { workflowRunId: string }[]; total: number; nextOffset?: number }>('/v2/dashboard/runs?count=4')
    expect(first.body.total).toBe(6)
    expect(first.body.nextOffset).toBe(4)
    const second = await get<{ runs: { workflowRunId: string }[]; nextOffset?: number }>('/v2/dashboard/runs?count=4&offset=4')
    expect(second.body.nextOffset).toBeUndefined()
    expect([...first.body.runs, ...second.body.runs].map((run) => run.workflowRunId)).toEqual(all)
  })

  test('state, URL prefix, label and run id', async () => {
    const ids = async (query: string) => (await get<{ runs: { workflowRunId: string }[]; total: number }>(`/v2/dashboard/runs?${query}`)).body.runs.map((run) => run.workflowRunId).sort()
    expect(await ids('state=RUN_FAILED')).toEqual([late[1], late[2]].sort())
    expect(await ids(`url=${encodeURIComponent(`${endpoint.url}/api/simple`)}`)).toEqual([...early, late[0]].sort())
    expect(await ids('label=blue')).toEqual([early[0], late[0]].sort())
    expect(await ids(`runId=${late[1]}`)).toEqual([late[1]])
    expect(await ids(`runId=${late[1].slice(0, 12)}`)).toContain(late[1])
    expect(await ids('state=RUN_SUCCESS&label=blue&count=1')).toHaveLength(1)
  })

  test('a date range (ms or ISO 8601) bounds the creation time', async () => {
    const ids = async (query: string) => (await get<{ runs: { workflowRunId: string }[] }>(`/v2/dashboard/runs?${query}`)).body.runs.map((run) => run.workflowRunId).sort()
    expect(await ids(`fromDate=${boundary}`)).toEqual([...late].sort())
    expect(await ids(`toDate=${boundary}`)).toEqual([...early].sort())
    expect(await ids(`toDate=${encodeURIComponent(new Date(boundary).toISOString())}`)).toEqual([...early].sort())
  })

  test('unknown parameters are refused with 400 naming them, bad values with the reason', async () => {
    const unknown = await get<{ error: string }>('/v2/dashboard/runs?sort=asc&workflowUrl=x&state=RUN_FAILED')
    expect(unknown.status).toBe(400)
    expect(unknown.body.error).toContain('unknown run list parameters sort, workflowUrl')
    expect((await get<{ error: string }>('/v2/dashboard/runs?state=DONE')).body.error).toContain('invalid state "DONE"')
    expect((await get<{ error: string }>('/v2/dashboard/runs?count=0')).status).toBe(400)
    expect((await get<{ error: string }>('/v2/dashboard/runs?fromDate=yesterday')).body.error).toContain('invalid fromDate')
  })

  test('a failed run: the failing step is a row with its error text, and the run names its dead letter', async () => {
    const { body } = await get<{ rows: StepRow[]; dlqId?: string; run: { state: string } }>(`/v2/dashboard/runs/${late[1]}`)
    expect(body.run.state).toBe('RUN_FAILED')
    expect(body.rows.map((row) => [row.name, row.type, row.status])).toEqual([
      ['prepare', 'run', 'succeeded'],
      ['(step after prepare)', 'step', 'failed'],
    ])
    expect(body.rows[0].output).toBe('ready')
    expect(body.rows[1].errors.map((entry) => entry.error)).toEqual(['the warehouse is on fire'])
    expect(body.dlqId).toBe(body.rows[1].messageIds[0])
  })
})

describe('GET /v2/dashboard/runs/<id>: one row per step', () => {
  let runId: string
  let waiting: StepRow[]
  beforeAll(async () => {
    runId = await start('everything', { customer: 'ada' }, { headers: { 'x-shop': 'berlin' } })
    waiting = await until(async () => {
      const { body } = await get<{ rows: StepRow[] }>(`/v2/dashboard/runs/${runId}`)
      return body.rows.some((row) => row.status === 'waiting') ? body.rows : undefined
    }, 20_000, 'the run to wait for its event')
    const notified = await fetch(`${queue.url}/v2/notify/approve-A-1`, { method: 'POST', body: JSON.stringify({ approvedBy: 'grace' }), headers: auth })
    expect(await notified.json()).toHaveLength(1)
    await queue.waitForRun(runId, 20_000)
  }, 40_000)

  test('while it waits, the wait is a row with status waiting and the event id to notify', () => {
    const wait = waiting.find((row) => row.name === 'await approval')!
    expect(wait).toMatchObject({ type: 'wait', status: 'waiting', eventId: 'approve-A-1', input: { eventId: 'approve-A-1' } })
    expect(wait.endedAt).toBeUndefined()
  })

  test('names, types, statuses and attempts of every step, in order', async () => {
    const { body } = await get<{ rows: StepRow[] }>(`/v2/dashboard/runs/${runId}`)
    expect(body.rows.map((row) => [row.stepId, row.name, row.type, row.status, row.attempts])).toEqual([
      [1, 'fetch order', 'run', 'succeeded', 1],
      [2, 'cool down', 'sleep', 'succeeded', 1],
      [3, 'price api', 'call', 'succeeded', 1],
      [4, 'double it', 'invoke', 'succeeded', 1],
      [5, 'tell others', 'notify', 'succeeded', 1],
      [6, 'await approval', 'wait', 'succeeded', 1],
      [7, 'finish', 'run', 'succeeded', 2],
    ])
  })

  test('input and output decoded once: objects, not JSON text inside strings', async () => {
    const { body } = await get<{ rows: StepRow[] }>(`/v2/dashboard/runs/${runId}`)
    const row = (name: string) => body.rows.find((entry) => entry.name === name)!
    expect(row('fetch order').output).toEqual({ order: 'A-1', items: [1, 2] })
    expect(row('cool down').input).toEqual({ sleepFor: 1 })
    expect(row('price api').input).toEqual({ method: 'POST', url: `${priceApi.url}/price`, body: { order: 'A-1' } })
    expect(row('price api').output).toMatchObject({ status: 200, body: { price: 42 } })
    expect(row('double it').output).toMatchObject({ body: 42, isFailed: false })
    expect(row('tell others').output).toMatchObject({ eventId: 'nobody-listens', eventData: { hello: 1 } })
    expect(row('await approval').output).toEqual({ eventData: { approvedBy: 'grace' }, timeout: false })
    expect(row('finish').output).toEqual({ price: { price: 42 }, doubled: 42, approval: { eventData: { approvedBy: 'grace' }, timeout: false } })
  })

  test('timing, headers and the failed attempt’s own error text', async () => {
    const { body } = await get<{ rows: StepRow[] }>(`/v2/dashboard/runs/${runId}`)
    for (const row of body.rows) {
      expect(row.startedAt).toBeTypeOf('number')
      expect(row.endedAt).toBeGreaterThanOrEqual(row.startedAt!)
      expect(row.headers['x-shop']).toBe('berlin')
    }
    const sleep = body.rows.find((row) => row.type === 'sleep')!
    expect(sleep.endedAt! - sleep.startedAt!).toBeGreaterThanOrEqual(900)
    const finish = body.rows.find((row) => row.name === 'finish')!
    expect(finish.errors).toHaveLength(1)
    expect(finish.errors[0]).toMatchObject({ status: 500, error: 'flaky finish, try again' })
  })

  test('the run page refuses parameters it does not take', async () => {
    const answer = await get<{ error: string }>(`/v2/dashboard/runs/${runId}?expand=all`)
    expect(answer.status).toBe(400)
    expect(answer.body.error).toContain('expand')
  })
})

describe('GET /v2/dashboard/pending and the change stream', () => {
  test('a delayed message is listed as waiting, soonest first', async () => {
    const published = await fetch(`${queue.url}/v2/publish/${priceApi.url}/later`, { method: 'POST', body: 'hello', headers: { ...auth, 'Upstash-Delay': '1h' } })
    const { messageId } = (await published.json()) as { messageId: string }
    const { body } = await get<{ messages: { messageId: string; state: string; body: string }[]; total: number }>('/v2/dashboard/pending')
    expect(body.messages.find((message) => message.messageId === messageId)).toMatchObject({ state: 'pending', body: 'hello' })
    expect((await get('/v2/dashboard/pending?state=pending')).status).toBe(400)
  })

  test('GET /v2/dashboard/stream says hello, then change when the state changes', async () => {
    const controller = new AbortController()
    const response = await fetch(`${queue.url}/v2/dashboard/stream`, { headers: auth, signal: controller.signal })
    expect(response.headers.get('content-type')).toBe('text/event-stream')
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
    let seen = ''
    const next = async (what: string) => {
      while (!seen.includes(what)) seen += (await reader.read()).value ?? ''
    }
    await next('"hello"')
    await fetch(`${queue.url}/v2/publish/${priceApi.url}/now`, { method: 'POST', body: 'now', headers: auth })
    await next('"change"')
    controller.abort()
    expect((await fetch(`${queue.url}/v2/dashboard/stream`)).status).toBe(401)
  })
})
