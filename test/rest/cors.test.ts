/**
 * The opt-in CORS option: preflight answers, response headers, and the default (off: OPTIONS is
 * a 405 like any other unsupported method).
 */
import { afterAll, describe, expect, test } from 'vitest'
import { createGateway } from '../../src/rest/gateway.js'
import { createFetchHandler } from '../../src/adapters/fetch.js'
import { MemoryExecutor } from '../../src/executor/memory/memory-executor.js'
import { requester } from '../support/gateway.js'

const TOKEN = 'cors-token'
const APP = 'http://app.example:8080'

describe('CORS', () => {
  const executor = new MemoryExecutor()
  afterAll(() => executor.close())

  test('off by default: OPTIONS is a 405 and responses carry no CORS headers', async () => {
    const send = requester(createGateway({ executor, token: TOKEN }), TOKEN)
    const preflight = await send('OPTIONS', '/get/k', { token: null, headers: { origin: APP, 'access-control-request-method': 'GET' } })
    expect(preflight).toMatchObject({ status: 405, json: { error: 'ERR method not allowed' } })
    const plain = await send('GET', '/ping', { headers: { origin: APP } })
    expect(plain.headers['access-control-allow-origin']).toBeUndefined()
  })

  test('an allowed origin gets a preflight answer without a token', async () => {
    const send = requester(createGateway({ executor, token: TOKEN, cors: { origins: [APP], maxAge: 60 } }), TOKEN)
    const preflight = await send('OPTIONS', '/set/k/v', {
      token: null,
      headers: { origin: APP, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, upstash-encoding, x-telemetry' },
    })
    expect(preflight.status).toBe(204)
    expect(preflight.text).toBe('')
    expect(preflight.headers).toMatchObject({
      'access-control-allow-origin': APP,
      'access-control-allow-methods': 'GET, HEAD, POST, PUT',
      'access-control-max-age': '60',
    })
    expect(preflight.headers['access-control-allow-headers'].split(', ')).toEqual(expect.arrayContaining(['authorization', 'upstash-encoding', 'x-telemetry', 'content-type']))
    expect(preflight.headers['access-control-allow-credentials']).toBeUndefined()
  })

  test('responses to an allowed origin expose the sync token, errors included', async () => {
    const send = requester(createGateway({ executor, token: TOKEN, cors: { origins: [APP] } }), TOKEN)
    for (const sent of [await send('GET', '/ping', { headers: { origin: APP } }), await send('GET', '/nosuch', { headers: { origin: APP } }), await send('GET', '/ping', { token: 'bad', headers: { origin: APP } })]) {
      expect(sent.headers['access-control-allow-origin']).toBe(APP)
      expect(sent.headers['access-control-expose-headers']).toBe('Service-Sync-Token, Upstash-Sync-Token, Retry-After')
      expect(sent.headers.vary).toBe('Origin')
    }
  })

  test('another origin gets a 403 preflight and no CORS headers', async () => {
    const send = requester(createGateway({ executor, token: TOKEN, cors: { origins: [APP] } }), TOKEN)
    const preflight = await send('OPTIONS', '/ping', { token: null, headers: { origin: 'http://evil.example', 'access-control-request-method': 'GET' } })
    expect(preflight).toMatchObject({ status: 403, json: { error: 'ERR origin not allowed' } })
    const sent = await send('GET', '/ping', { headers: { origin: 'http://evil.example' } })
    expect(sent.status).toBe(200)
    expect(sent.headers['access-control-allow-origin']).toBeUndefined()
  })

  test('origins may be "*" or a function', async () => {
    const any = requester(createGateway({ executor, token: TOKEN, cors: { origins: '*' } }), TOKEN)
    expect((await any('GET', '/ping', { headers: { origin: 'http://x.example' } })).headers['access-control-allow-origin']).toBe('*')
    const fn = requester(createGateway({ executor, token: TOKEN, cors: { origins: (origin) => origin.endsWith('.trusted.example') } }), TOKEN)
    expect((await fn('GET', '/ping', { headers: { origin: 'https://a.trusted.example' } })).headers['access-control-allow-origin']).toBe('https://a.trusted.example')
    expect((await fn('OPTIONS', '/ping', { token: null, headers: { origin: 'https://other.example' } })).status).toBe(403)
  })

  test('the Fetch handler answers a preflight with an empty 204', async () => {
    const handler = createFetchHandler({ executor, token: TOKEN, cors: { origins: [APP] } })
    const response = await handler(new Request('http://gateway/get/k', { method: 'OPTIONS', headers: { origin: APP, 'access-control-request-method': 'GET' } }))
    expect(response.status).toBe(204)
    expect(response.headers.get('access-control-allow-origin')).toBe(APP)
    expect(await response.text()).toBe('')
  })
})
