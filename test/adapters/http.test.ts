import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { request as httpRequest } from 'node:http'
import { createNodeHandler } from '../../src/adapters/node.js'
import { createFetchHandler } from '../../src/adapters/fetch.js'
import { MemoryExecutor } from '../../src/executor/memory/memory-executor.js'
import { listen } from '../support/http.js'

const TOKEN = 'tok'
const auth = { authorization: `Bearer ${TOKEN}` }

describe('Node http handler on a real server', () => {
  const executor = new MemoryExecutor()
  let server: Awaited<ReturnType<typeof listen>>
  beforeAll(async () => {
    server = await listen(createNodeHandler({ executor, token: TOKEN, maxRequestSize: 1024 }))
  })
  afterAll(async () => {
    await server.close()
    await executor.close()
  })

  test('fetch runs a command through node:http', async () => {
    const set = await fetch(`${server.url}/set/a/1`, { headers: auth })
    expect(set.status).toBe(200)
    expect(await set.json()).toEqual({ result: 'OK' })
    expect(await (await fetch(`${server.url}/get/a`, { headers: auth })).json()).toEqual({ result: '1' })
  })

  test('a body over the maximum request size is refused while streaming, and the server keeps serving', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${server.url}/set/big`, { method: 'POST', headers: { ...auth, 'transfer-encoding': 'chunked' } }, (res) => {
        res.resume()
        resolve(res.statusCode ?? 0)
      })
      req.on('error', () => {})
      // Keep writing past the limit: the server answers 400 without waiting for the end.
      const chunk = Buffer.alloc(512, 120)
      let sent = 0
      const pump = () => {
        while (sent < 64 && req.write(chunk)) sent++
        if (sent < 64) req.once('drain', pump)
      }
      pump()
      setTimeout(() => reject(new Error('no answer')), 10_000).unref()
    })
    expect(status).toBe(400)
    expect(await (await fetch(`${server.url}/ping`, { headers: auth })).json()).toEqual({ result: 'PONG' })
  })

  test('works as Express-style middleware mounted under a path', async () => {
    const handler = createNodeHandler({ executor, token: TOKEN })
    const mounted = await listen((req, res) => {
      if (!req.url?.startsWith('/redis/')) {
        res.writeHead(404).end('not here')
        return
      }
      req.url = req.url.slice('/redis'.length)
      handler(req, res, (error) => {
        res.writeHead(500).end(String(error))
      })
    })
    try {
      expect(await (await fetch(`${mounted.url}/redis/echo/hi`, { headers: auth })).json()).toEqual({ result: 'hi' })
      expect((await fetch(`${mounted.url}/other`)).status).toBe(404)
    } finally {
      await mounted.close()
    }
  })

  test('a body parsed by earlier middleware is used', async () => {
    const handler = createNodeHandler({ executor, token: TOKEN })
    const withParser = await listen((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        ;(req as typeof req & { body: unknown }).body = JSON.parse(Buffer.concat(chunks).toString())
        handler(req, res)
      })
    })
    try {
      const response = await fetch(withParser.url, { method: 'POST', headers: auth, body: '["ECHO","parsed"]' })
      expect(await response.json()).toEqual({ result: 'parsed' })
    } finally {
      await withParser.close()
    }
  })
})

describe('Fetch handler', () => {
  const executor = new MemoryExecutor()
  const handler = createFetchHandler({ executor, token: TOKEN, maxRequestSize: 64 })
  afterAll(() => executor.close())

  test('answers a Request with a Response', async () => {
    const response = await handler(new Request('http://x/set/k/v', { headers: auth }))
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('application/json')
    expect(response.headers.get('service-sync-token')).toBeTruthy()
    expect(await response.json()).toEqual({ result: 'OK' })
  })

  test('reads POST bodies', async () => {
    const response = await handler(new Request('http://x/pipeline', { method: 'POST', headers: auth, body: '[["INCR","c"],["INCR","c"]]' }))
    expect(await response.json()).toEqual([{ result: 1 }, { result: 2 }])
  })

  test('refuses a body over the limit', async () => {
    const response = await handler(new Request('http://x/set/k', { method: 'POST', headers: auth, body: 'x'.repeat(100) }))
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({ error: 'ERR max request size exceeded' })
  })

  test('a 405 for DELETE', async () => {
    const response = await handler(new Request('http://x/get/k', { method: 'DELETE', headers: auth }))
    expect(response.status).toBe(405)
  })
})
