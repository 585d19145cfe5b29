/**
 * `context.invoke` of the real `@upstash/workflow` SDK (`serveMany`) on the restis queue: the
 * child gets the invoked payload (not the envelope) and the parent resumes with the child's
 * result when it succeeds, and with `isFailed: true` when it fails.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { WorkflowNonRetryableError } from '@upstash/workflow'
import { createWorkflow, serveMany } from '@upstash/workflow/cloudflare'
import { Client as SdkQueueClient, Receiver } from '@upstash/qstash'
import { listenFetch, startQueue, TOKEN, until, type Listening } from './support.js'
import type { QueueService } from '../../src/queue/index.js'

type Queue = QueueService & { url: string }

interface Ctx<T> {
  readonly requestPayload: T
  readonly workflowRunId: string
  run<R>(name: string, fn: () => R): Promise<R>
  invoke(name: string, settings: { workflow: unknown; body: unknown; retries?: number }): Promise<{ body: unknown; isFailed?: boolean; isCanceled?: boolean }>
}

describe('context.invoke of @upstash/workflow through the restis queue', () => {
  let queue: Queue
  let endpoint: Listening
  const childPayloads: unknown[] = []

  beforeAll(async () => {
    queue = await startQueue()
    const options = {
      qstashClient: new SdkQueueClient({ baseUrl: queue.url, token: TOKEN }),
      receiver: new Receiver({ currentSigningKey: queue.signingKeys.current, nextSigningKey: queue.signingKeys.next }),
    }
    const double = createWorkflow(async (context: Ctx<{ n: number }>) => {
      childPayloads.push(context.requestPayload)
      return await context.run('double', () => context.requestPayload.n * 2)
    })
    const broken = createWorkflow(async (context: Ctx<unknown>) => {
      await context.run('explode', () => {
        throw new WorkflowNonRetryableError('the child cannot do it')
      })
    })
    const parent = createWorkflow(async (context: Ctx<{ n: number; child: 'double' | 'broken' }>) => {
      const workflow = context.requestPayload.child === 'double' ? double : broken
      const result = await context.invoke('call child', { workflow, body: { n: context.requestPayload.n }, retries: 0 })
      return await context.run('after', () => result)
    })
    const { fetch: handler } = serveMany({ parent, double, broken } as never, options as never) as unknown as { fetch: (request: Request, env: object) => Promise<Response> }
    endpoint = await listenFetch((request) => handler(request, {}))
  })
  afterAll(async () => {
    await endpoint.close()
    await queue.close()
  })

  async function start(payload: unknown): Promise<string> {
    const url = `${endpoint.url}/api/parent`
    const before = new Set((await queue.runs.list()).runs.map((run) => run.workflowRunId))
    const response = await fetch(`${queue.url}/v2/publish/${url}`, {
      method: 'POST',
      body: JSON.stringify(payload),
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    })
    expect(response.status).toBe(201)
    return until(async () => (await queue.runs.list()).runs.find((run) => run.url === url && !before.has(run.workflowRunId))?.workflowRunId, 10_000, 'the run to start')
  }

  test('the child gets the invoked payload and the parent resumes with its result', async () => {
    const runId = await start({ n: 21, child: 'double' })
    const detail = await queue.waitForRun(runId)
    expect(detail.run.state).toBe('RUN_SUCCESS')
    expect(JSON.parse(detail.run.result!)).toEqual({ body: 42, isFailed: false, isCanceled: false })
    expect(childPayloads).toContainEqual({ n: 21 })
    const child = (await queue.runs.list()).runs.find((run) => run.url === `${endpoint.url}/api/double`)!
    expect(child.state).toBe('RUN_SUCCESS')
    expect(JSON.parse(child.payload)).toEqual({ n: 21 })
  })

  test('a failing child resumes the parent with isFailed: true', async () => {
    const runId = await start({ n: 1, child: 'broken' })
    const detail = await queue.waitForRun(runId)
    expect(detail.run.state).toBe('RUN_SUCCESS')
    const result = JSON.parse(detail.run.result!) as { body: unknown; isFailed: boolean }
    expect(result.isFailed).toBe(true)
    expect(JSON.stringify(result.body)).toContain('the child cannot do it')
    const child = (await queue.runs.list()).runs.find((run) => run.url === `${endpoint.url}/api/broken`)!
    expect(child.state).toBe('RUN_FAILED')
  })
})
