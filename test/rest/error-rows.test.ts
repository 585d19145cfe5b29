/**
 * Every error row of the protocol (rest-protocol.md, "Errors"), over real HTTP with raw
 * requests, as curl would send them.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { request as httpRequest } from 'node:http'
import { createNodeHandler } from '../../src/adapters/node.js'
import { MemoryExecutor } from '../../src/executor/memory/memory-executor.js'
import { BackendUnavailableError, OutcomeUnknownError, type Executor } from '../../src/executor/executor.js'
import { listen } from '../support/http.js'

const TOKEN = 'rows-token'
const READONLY = 'rows-readonly'

function raw(url: string, method: string, path: string, headers: Record<string, string>, body?: string) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
    const req = httpRequest(url + path, { method, headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

describe('error rows over raw HTTP', () => {
  const executor = new MemoryExecutor()
  let server: Awaited<ReturnType<typeof listen>>
  const bearer = { authorization: `Bearer ${TOKEN}` }
  beforeAll(async () => {
    server = await listen(createNodeHandler({ executor, token: TOKEN, readonlyToken: READONLY, maxRequestSize: 1000 }))
  })
  afterAll(async () => {
    await server.close()
    await executor.close()
  })

  const rows: [string, string, string, Record<string, string>, string | undefined, number, string][] = [
    ['missing token', 'GET', '/get/a', {}, undefined, 401, '{"error":"WRONGPASS invalid or missing auth token"}'],
    ['invalid token', 'GET', '/get/a', { authorization: 'Bearer nope' }, undefined, 401, '{"error":"WRONGPASS invalid or missing auth token"}'],
    ['method DELETE', 'DELETE', '/get/a', bearer, undefined, 405, '{"error":"ERR method not allowed"}'],
    ['method PATCH', 'PATCH', '/get/a', bearer, undefined, 405, '{"error":"ERR method not allowed"}'],
    ['unsupported command', 'GET', '/blpop/l/0', bearer, undefined, 400, `{"error":"ERR Command is not available: 'blpop'"}`],
    ['read-only token writes', 'GET', '/set/a/1', { authorization: `Bearer ${READONLY}` }, undefined, 400, `{"error":"NOPERM this user has no permissions to run the 'set' command"}`],
    ['command failure', 'GET', '/incrby/a/notanumber', bearer, undefined, 400, '{"error":"ERR value is not an integer or out of range"}'],
    ['oversize body', 'POST', '/set/a', bearer, 'x'.repeat(2000), 400, '{"error":"ERR max request size exceeded"}'],
    ['daily limit is off by default', 'GET', '/ping', bearer, undefined, 200, '{"result":"PONG"}'],
  ]

  test.each(rows)('%s', async (_name, method, path, headers, body, status, expected) => {
    const response = await raw(server.url, method, path, headers, body)
    expect(response.status).toBe(status)
    expect(response.body).toBe(expected)
    expect(response.headers['content-type']).toBe('application/json')
  })

  test('invalid JSON body is a 400 with an ERR text', async () => {
    const response = await raw(server.url, 'POST', '/', bearer, '["SET", "a"')
    expect(response.status).toBe(400)
    expect(JSON.parse(response.body).error).toMatch(/^ERR invalid JSON/)
  })

  test('wrong body shape is a 400 with an ERR text', async () => {
    const response = await raw(server.url, 'POST', '/pipeline', bearer, '{"a":1}')
    expect(response.status).toBe(400)
    expect(JSON.parse(response.body).error).toMatch(/^ERR expected a JSON array of commands/)
  })
})

describe('backend failures', () => {
  const failing = (error: Error): Executor => ({
    exec: () => Promise.reject(error),
    pipeline: () => Promise.reject(error),
    transaction: () => Promise.reject(error),
    subscribe: () => Promise.reject(error),
    monitor: () => Promise.reject(error),
    close: () => Promise.resolve(),
  })

  test('a call that never reached the backend is a 503 with the reason, safe to retry, and Retry-After', async () => {
    const server = await listen(createNodeHandler({ executor: failing(new BackendUnavailableError('connection refused')), token: TOKEN }))
    try {
      for (const path of ['/get/a', '/pipeline', '/multi-exec']) {
        const method = path === '/get/a' ? 'GET' : 'POST'
        const response = await raw(server.url, method, path, { authorization: `Bearer ${TOKEN}` }, method === 'POST' ? '[["GET","a"]]' : undefined)
        expect(response.status).toBe(503)
        expect(response.headers['retry-after']).toBe('1')
        expect(response.body).toBe('{"error":"ERR backend unavailable: connection refused (not executed; safe to retry)"}')
      }
    } finally {
      await server.close()
    }
  })

  test('a call sent to the backend and not answered is a 504 that says it may have run, without Retry-After', async () => {
    const reason = 'command timed out after 100 ms waiting for 127.0.0.1:6379'
    const server = await listen(createNodeHandler({ executor: failing(new OutcomeUnknownError(reason)), token: TOKEN }))
    try {
      for (const path of ['/set/a/1', '/pipeline', '/multi-exec']) {
        const method = path === '/set/a/1' ? 'GET' : 'POST'
        const response = await raw(server.url, method, path, { authorization: `Bearer ${TOKEN}` }, method === 'POST' ? '[["SET","a","1"]]' : undefined)
        expect(response.status).toBe(504)
        expect(response.headers['retry-after']).toBeUndefined()
        expect(response.body).toBe(`{"error":"ERR backend outcome unknown: ${reason} (sent; it may have run)"}`)
      }
    } finally {
      await server.close()
    }
  })

  test('a bug in the executor is a 500 without stack trace or detail', async () => {
    const server = await listen(createNodeHandler({ executor: failing(new Error('secret detail at foo.ts:12')), token: TOKEN }))
    try {
      const response = await raw(server.url, 'GET', '/get/a', { authorization: `Bearer ${TOKEN}` })
      expect(response.status).toBe(500)
      expect(response.body).toBe('{"error":"ERR internal error"}')
    } finally {
      await server.close()
    }
  })
})
