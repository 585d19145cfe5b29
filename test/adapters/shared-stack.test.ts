/**
 * The queue service and the workflow endpoint over the shared Node and Fetch adapters: one body
 * limit answered the same way on both stacks (413, where the REST gateway keeps its protocol's
 * 400), and the queue's routing table (404, 405 with Allow, 501, the pages before the token).
 */
import { createServer } from 'node:http'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createQueueService, type QueueService } from '../../src/queue/index.js'
import { matchRoute, type Route } from '../../src/queue/routes.js'
import { serve, serveNode } from '../../src/workflow/index.js'
import type { BatchMessage, QueueClient } from '../../src/workflow/client.js'
import { createFetchHandler } from '../../src/adapters/fetch.js'
import { MemoryExecutor } from '../../src/executor/memory/memory-executor.js'
import { listenServer, type Listening } from '../queue/support.js'

const TOKEN = 'shared-stack-token'
const auth = { authorization: `Bearer ${TOKEN}` }

describe('queue service', () => {
  let queue: QueueService
  let url: string

  beforeAll(async () => {
    queue = createQueueService({ token: TOKEN, maxBodySize: 64, autoStart: false })
    url = (await queue.listen()).url
  })
  afterAll(() => queue.close())

  test('a body over maxBodySize is 413 with the limit, from the Node listener and the Fetch handler alike', async () => {
    const body = JSON.stringify([{ destination: 'http://127.0.0.1:1/x', body: 'y'.repeat(100) }])
    const overNode = await fetch(`${url}/v2/batch`, { method: 'POST', headers: auth, body })
    const overFetch = await queue.fetch(new Request('http://queue.test/v2/batch', { method: 'POST', headers: auth, body }))
    for (const response of [overNode, overFetch]) {
      expect(response.status).toBe(413)
      expect(await response.json()).toEqual({ error: 'request body larger than 64 bytes' })
    }
    const within = await fetch(`${url}/v2/batch`, { method: 'POST', headers: auth, body: JSON.stringify([{ destination: 'http://127.0.0.1:1/x' }]) })
    expect(within.status).toBe(200)
  })

  test('a path that exists for other methods is 405 with Allow listing them', async () => {
    const batch = await fetch(`${url}/v2/batch`, { headers: auth })
    expect(batch.status).toBe(405)
    expect(batch.headers.get('allow')).toBe('POST')
    expect(await batch.json()).toEqual({ error: 'method GET not allowed here' })
    const run = await fetch(`${url}/v2/workflows/runs/wfr_1`, { method: 'PUT', headers: auth })
    expect(run.status).toBe(405)
    expect(run.headers.get('allow')).toBe('GET, DELETE')
  })

  test('unknown paths are 404, and a missing token 401 before that', async () => {
    expect((await fetch(`${url}/v2/nowhere/at/all`, { headers: auth })).status).toBe(404)
    expect((await fetch(`${url}/v2/nowhere/at/all`)).status).toBe(401)
    // the flow-control API answers 404 for a key nothing used yet, 401 without the token
    expect((await fetch(`${url}/v2/flowControl/k1`, { headers: auth })).status).toBe(404)
    expect((await fetch(`${url}/v2/flowControl/k1`)).status).toBe(401)
    expect((await fetch(`${url}/v2/keys`, { headers: auth })).status).toBe(200)
  })

  test('the pages need no token: / redirects to the dashboard with the query kept', async () => {
    const root = await fetch(`${url}/?_token=abc`, { redirect: 'manual' })
    expect(root.status).toBe(302)
    expect(root.headers.get('location')).toBe('/dashboard?_token=abc')
    const page = await fetch(`${url}/dashboard/`)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
  })
})

describe('route table', () => {
  const hit = (name: string) => () => ({ status: 200, headers: {}, body: name })
  const routes: Route[] = [
    { method: 'POST', path: 'publish/*', run: hit('publish') },
    { method: 'GET', path: 'runs/:id', run: hit('get run') },
    { method: 'DELETE', path: 'runs/:id', run: hit('delete run') },
  ]

  test('`:name` takes one decoded, non-empty segment; `*` one or more', () => {
    const found = matchRoute(routes, 'GET', 'runs/wfr%201')
    expect(found.kind === 'found' && found.params).toEqual({ id: 'wfr 1' })
    expect(matchRoute(routes, 'GET', 'runs/').kind).toBe('none')
    expect(matchRoute(routes, 'GET', 'runs/a/b').kind).toBe('none')
    expect(matchRoute(routes, 'POST', 'publish').kind).toBe('none')
    expect(matchRoute(routes, 'POST', 'publish/https://example.com/a').kind).toBe('found')
    expect(matchRoute(routes, 'PATCH', 'runs/x')).toEqual({ kind: 'method', allow: ['GET', 'DELETE'] })
  })
})

describe('workflow endpoint', () => {
  const batches: BatchMessage[][] = []
  const queue: QueueClient = {
    batch: async (messages) => {
      batches.push([...messages])
      return messages.map((_, i) => ({ messageId: `msg_${i}` }))
    },
    deleteRun: async () => {},
    getRunSteps: async () => undefined,
  }
  const options = { queue, env: {}, maxBodySize: 32 }
  const body = async () => 'done'
  let node: Listening

  beforeAll(async () => {
    node = await listenServer(createServer(serveNode(body, options)))
  })
  afterAll(() => node.close())

  test('a body over maxBodySize is 413 from serveNode and serve, and no run starts', async () => {
    const payload = JSON.stringify({ text: 'x'.repeat(64) })
    const overNode = await fetch(`${node.url}/workflow`, { method: 'POST', body: payload })
    const overFetch = await serve(body, options)(new Request('http://app.test/workflow', { method: 'POST', body: payload }))
    for (const response of [overNode, overFetch]) {
      expect(response.status).toBe(413)
      expect(await response.json()).toEqual({ error: 'request body larger than 32 bytes' })
    }
    expect(batches).toHaveLength(0)
  })

  test('a body within the limit starts a run, with the URL the client asked for', async () => {
    const started = await fetch(`${node.url}/workflow?x=1`, { method: 'POST', body: '{"a":1}' })
    expect(started.status).toBe(200)
    expect((await started.json()).workflowRunId).toMatch(/^wfr_/)
    expect(batches.at(-1)?.[0].destination).toBe(`${node.url}/workflow?x=1`)
  })

  test('maxBodySize must be a non-negative integer', () => {
    expect(() => serve(body, { ...options, maxBodySize: -1 })).toThrow(TypeError)
  })
})

test('the REST gateway keeps its protocol status for an oversized body: 400 ERR max request size exceeded', async () => {
  const handler = createFetchHandler({ executor: new MemoryExecutor(), token: TOKEN, maxRequestSize: 16 })
  const response = await handler(new Request('http://gateway.test/set/key', { method: 'POST', headers: auth, body: 'v'.repeat(32) }))
  expect(response.status).toBe(400)
  expect(await response.json()).toEqual({ error: 'ERR max request size exceeded' })
})
