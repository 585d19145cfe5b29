/**
 * Retries running out: the dead-letter list (listed, replayed, deleted over HTTP and from
 * code), failure callbacks of plain messages, and resuming a failed workflow run with the SDK's
 * own client (`@upstash/workflow` Client.dlq.resume).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { Client as WorkflowClient } from '@upstash/workflow'
import { serve } from '../../src/workflow/index.js'
import { Counter, listenFetch, startQueue, TOKEN, until, type Listening } from './support.js'
import type { QueueService } from '../../src/queue/index.js'

const auth = { authorization: `Bearer ${TOKEN}` }

describe('dead letters', () => {
  let queue: QueueService & { url: string }
  let target: Listening
  let recorder: Listening
  let healthy = false
  const received: { headers: Headers; body: string }[] = []
  const callbacks: { headers: Headers; body: string }[] = []
  beforeAll(async () => {
    queue = await startQueue()
    target = await listenFetch(async (request) => {
      received.push({ headers: request.headers, body: await request.text() })
      return healthy ? new Response('ok') : new Response('{"error":"maintenance"}', { status: 503, headers: { 'x-reason': 'maintenance' } })
    })
    recorder = await listenFetch(async (request) => {
      callbacks.push({ headers: request.headers, body: await request.text() })
      return new Response('thanks')
    })
  })
  afterAll(async () => {
    await target.close()
    await recorder.close()
    await queue.close()
  })

  test('a message whose retries run out is dead-lettered, its failure callback called, and it can be replayed', async () => {
    const published = await fetch(`${queue.url}/v2/publish/${target.url}/hook`, {
      method: 'POST',
      body: 'payload-1',
      headers: {
        ...auth,
        'content-type': 'text/plain',
        'Upstash-Retries': '1',
        'Upstash-Forward-X-Trace': 'trace-1',
        'Upstash-Failure-Callback': `${recorder.url}/failed`,
        'Upstash-Failure-Callback-Forward-X-Trace': 'trace-1-failure',
      },
    })
    expect(published.status).toBe(201)
    const { messageId } = (await published.json()) as { messageId: string }
    const letters = await until(async () => {
      const answer = (await (await fetch(`${queue.url}/v2/dlq`, { headers: auth })).json()) as { messages: { dlqId: string }[] }
      return answer.messages.some((letter) => letter.dlqId === messageId) ? answer.messages : undefined
    })
    const letter = letters.find((entry) => entry.dlqId === messageId) as Record<string, unknown>
    expect(letter).toMatchObject({ url: `${target.url}/hook`, method: 'POST', body: 'payload-1', responseStatus: 503, responseBody: '{"error":"maintenance"}', retried: 2, maxRetries: 1 })
    expect(received.map((request) => [request.body, request.headers.get('x-trace'), request.headers.get('upstash-retried')])).toEqual([
      ['payload-1', 'trace-1', '0'],
      ['payload-1', 'trace-1', '1'],
    ])
    const callback = await until(() => callbacks[0])
    expect(callback.headers.get('x-trace')).toBe('trace-1-failure')
    const failure = JSON.parse(callback.body)
    expect(failure).toMatchObject({ status: 503, sourceMessageId: messageId, url: `${target.url}/hook`, retried: 2, maxRetries: 1 })
    expect(Buffer.from(failure.sourceBody, 'base64').toString()).toBe('payload-1')
    expect(failure.sourceHeader['x-trace']).toEqual(['trace-1'])
    expect(Buffer.from(failure.body, 'base64').toString()).toBe('{"error":"maintenance"}')
    expect(failure.header['x-reason']).toEqual(['maintenance'])

    healthy = true
    const replay = await fetch(`${queue.url}/v2/dlq/${messageId}/replay`, { method: 'POST', headers: auth })
    expect(replay.status).toBe(200)
    await until(async () => ((await queue.store.loadMessage(messageId))?.state === 'delivered' ? true : undefined))
    expect(received.at(-1)?.body).toBe('payload-1')
    expect((await queue.dlq.list()).some((entry) => entry.dlqId === messageId)).toBe(false)
    const log = await queue.store.attemptLog(messageId)
    expect(log.map((entry) => entry.outcome)).toEqual(['created', 'retry', 'failed', 'replayed', 'delivered'])
  })

  test('a dead letter can be deleted', async () => {
    healthy = false
    const published = await fetch(`${queue.url}/v2/publish/${target.url}/hook`, { method: 'POST', body: 'payload-2', headers: { ...auth, 'Upstash-Retries': '0' } })
    const { messageId } = (await published.json()) as { messageId: string }
    await until(async () => ((await queue.dlq.list()).some((entry) => entry.dlqId === messageId) ? true : undefined))
    expect((await fetch(`${queue.url}/v2/dlq/${messageId}`, { method: 'DELETE', headers: auth })).status).toBe(200)
    expect((await fetch(`${queue.url}/v2/dlq/${messageId}`, { method: 'DELETE', headers: auth })).status).toBe(404)
  })
})

describe('a failed workflow run resumed from the dead-letter list', () => {
  test("the SDK client's dlq.resume puts the run back on track; finished steps are not run again", async () => {
    const queue = await startQueue()
    const counter = new Counter()
    let broken = true
    const failures: string[] = []
    const endpoint = await listenFetch(
      serve(
        async (context) => {
          const a = await context.run('a', () => counter.hit('a'))
          const b = await context.run('b', () => {
            counter.hit('b')
            if (broken) throw new Error('dependency down')
            return 2
          })
          return a + b
        },
        { queueUrl: queue.url, token: TOKEN, env: {}, retries: 1, failureFunction: ({ failResponse }) => void failures.push(failResponse) },
      ),
    )
    try {
      const start = await fetch(`${endpoint.url}/wf`, { method: 'POST', body: '{}' })
      const { workflowRunId } = (await start.json()) as { workflowRunId: string }
      const failed = await queue.waitForRun(workflowRunId)
      expect(failed.run.state).toBe('RUN_FAILED')
      expect(failures).toEqual(['dependency down'])
      const [letter] = (await queue.dlq.list()).filter((entry) => entry.workflowRunId === workflowRunId)
      expect(letter).toBeDefined()

      broken = false
      const client = new WorkflowClient({ baseUrl: queue.url, token: TOKEN })
      const resumed = await client.dlq.resume({ dlqId: letter.dlqId })
      expect(resumed).toMatchObject({ workflowRunId })
      const done = await queue.waitForRun(workflowRunId)
      expect(done.run.state).toBe('RUN_SUCCESS')
      expect(JSON.parse(done.run.result!)).toBe(3)
      expect(counter.toJSON()).toEqual({ a: 1, b: 3 })
      expect(failures).toEqual(['dependency down'])
    } finally {
      await endpoint.close()
      await queue.close()
    }
  })
})
