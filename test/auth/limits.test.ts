/**
 * Request limits and usage: the per-command size limit against the whole-body cap, the daily
 * request limit (shared by every token, reset at 00:00 UTC), and per-token usage for billing.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { request as httpRequest } from 'node:http'
import { Limits, type UsageEvent } from '../../src/auth/limits.js'
import { createGateway } from '../../src/rest/gateway.js'
import { createNodeHandler } from '../../src/adapters/node.js'
import { createFetchHandler } from '../../src/adapters/fetch.js'
import { MemoryExecutor } from '../../src/executor/memory/memory-executor.js'
import { listen } from '../support/http.js'
import { requester, resultOf } from '../support/gateway.js'

const TOKEN = 'limits-token'
const READONLY = 'limits-readonly'
const TOO_LARGE = { error: 'ERR max request size exceeded' }
const DAILY = { error: 'ERR max daily request limit exceeded' }

describe('Limits', () => {
  test('defaults: 10 MiB per command, a body cap of ten commands, no daily limit', () => {
    const limits = new Limits()
    expect(limits.maxRequestSize).toBe(10 * 1024 * 1024)
    expect(limits.maxBodySize).toBe(100 * 1024 * 1024)
    expect(limits.dailyRequestLimit).toBe(Infinity)
    expect(limits.take(1_000_000)).toBe(true)
  })

  test('JSON bodies may reach maxBodySize; a raw value in the body only maxRequestSize', () => {
    const limits = new Limits({ maxRequestSize: 100, maxBodySize: 1000 })
    expect(limits.bodyLimit('/pipeline')).toBe(1000)
    expect(limits.bodyLimit('/multi-exec')).toBe(1000)
    expect(limits.bodyLimit('/')).toBe(1000)
    expect(limits.bodyLimit('/set/k?EX=10')).toBe(100)
    expect(limits.bodyLimit('/pipeline/x')).toBe(100)
  })

  test('a command is measured by the bytes of its words', () => {
    const limits = new Limits({ maxRequestSize: 10 })
    expect(limits.tooLarge(['SET', 'k', 'abcdef'])).toBe(false)
    expect(limits.tooLarge(['SET', 'k', 'abcdefg'])).toBe(true)
    expect(limits.tooLarge(['SET', 'k', 'éééé'])).toBe(true)
    expect(limits.tooLarge(['SET', 'k', new Uint8Array(6)])).toBe(false)
  })

  test('the daily allowance resets at 00:00 UTC', () => {
    let now = Date.UTC(2026, 0, 1, 23, 59, 59, 999)
    const limits = new Limits({ dailyRequestLimit: 3, clock: () => now })
    expect(limits.take(2)).toBe(true)
    expect(limits.take(2)).toBe(false)
    expect(limits.remaining()).toBe(1)
    expect(limits.take(1)).toBe(true)
    expect(limits.take(1)).toBe(false)
    now += 1
    expect(limits.remaining()).toBe(3)
    expect(limits.take(3)).toBe(true)
  })

  test('usage is counted per token id and reported to onUsage; a failing hook is ignored', () => {
    const events: UsageEvent[] = []
    const limits = new Limits({
      clock: () => Date.UTC(2026, 4, 2, 10),
      onUsage: (event) => {
        events.push(event)
        throw new Error('billing down')
      },
    })
    limits.record('standard', 'pipeline', 3)
    limits.record('standard', 'command', 1)
    limits.record('user:alice', 'subscribe', 1)
    expect(events[0]).toEqual({ tokenId: 'standard', endpoint: 'pipeline', commands: 3, day: '2026-05-02' })
    expect(Object.fromEntries(limits.usage())).toEqual({ standard: { requests: 2, commands: 4 }, 'user:alice': { requests: 1, commands: 1 } })
  })
})

describe('limits through the gateway', () => {
  const executor = new MemoryExecutor()
  afterAll(() => executor.close())

  test('per command: a pipeline row over the limit fails in its slot; a transaction is discarded', async () => {
    const send = requester(createGateway({ executor, token: TOKEN, maxRequestSize: 20, maxBodySize: 1000 }), TOKEN)
    const big = 'x'.repeat(20)
    const rows = JSON.stringify([['SET', 'small', 'v'], ['SET', 'big', big], ['GET', 'small']])
    expect((await send('POST', '/pipeline', { body: rows })).json).toEqual([{ result: 'OK' }, TOO_LARGE, { result: 'v' }])
    expect(await send('POST', '/multi-exec', { body: JSON.stringify([['INCR', 'n'], ['SET', 'big', big]]) })).toMatchObject({ status: 400, json: TOO_LARGE })
    expect(resultOf(await send('GET', '/exists/n/big'))).toBe(0)
    // The whole pipeline is larger than one command may be, and that is fine.
    const many = JSON.stringify(Array.from({ length: 30 }, (_, i) => ['SET', `k${i}`, 'vvvv']))
    expect(many.length).toBeGreaterThan(20)
    expect(((await send('POST', '/pipeline', { body: many })).json as unknown[]).length).toBe(30)
    expect(await send('POST', '/', { body: JSON.stringify(['SET', 'big', big]) })).toMatchObject({ status: 400, json: TOO_LARGE })
  })

  test('the whole-body cap is enforced while the body streams in, for both adapters', async () => {
    const gateway = createGateway({ executor, token: TOKEN, maxRequestSize: 100, maxBodySize: 1000 })
    const fetchHandler = createFetchHandler(gateway)
    const auth = { authorization: `Bearer ${TOKEN}` }
    const fits = JSON.stringify(Array.from({ length: 20 }, () => ['PING', 'x'.repeat(20)]))
    expect(fits.length).toBeLessThan(1000)
    expect((await fetchHandler(new Request('http://x/pipeline', { method: 'POST', headers: auth, body: fits }))).status).toBe(200)
    const over = JSON.stringify(Array.from({ length: 60 }, () => ['PING', 'x'.repeat(20)]))
    const refused = await fetchHandler(new Request('http://x/pipeline', { method: 'POST', headers: auth, body: over }))
    expect(refused.status).toBe(400)
    expect(await refused.json()).toEqual(TOO_LARGE)
    const raw = await fetchHandler(new Request('http://x/set/k', { method: 'POST', headers: auth, body: 'x'.repeat(101) }))
    expect(await raw.json()).toEqual(TOO_LARGE)

    const server = await listen(createNodeHandler(gateway))
    try {
      const status = await new Promise<number>((resolve, reject) => {
        const req = httpRequest(`${server.url}/pipeline`, { method: 'POST', headers: { ...auth, 'transfer-encoding': 'chunked' } }, (res) => {
          res.resume()
          resolve(res.statusCode ?? 0)
        })
        req.on('error', () => {})
        req.write('[')
        const row = JSON.stringify(['PING', 'x'.repeat(50)])
        const pump = () => {
          while (req.write(`${row},`)) {
            /* keep writing until the server answers */
          }
          req.once('drain', pump)
        }
        pump()
        setTimeout(() => reject(new Error('no answer')), 10_000).unref()
      })
      expect(status).toBe(400)
    } finally {
      await server.close()
    }
  })

  test('the daily limit is shared by every token, counts commands, and discards a transaction that does not fit', async () => {
    let now = Date.UTC(2026, 2, 3, 12)
    const gateway = createGateway({ executor, token: TOKEN, readonlyToken: READONLY, dailyRequestLimit: 5, clock: () => now })
    const send = requester(gateway, TOKEN)
    expect(resultOf(await send('GET', '/set/d/1'))).toBe('OK')
    expect(resultOf(await send('GET', '/get/d', { token: READONLY }))).toBe('1')
    expect(await send('POST', '/multi-exec', { body: '[["INCR","d"],["INCR","d"],["INCR","d"],["INCR","d"]]' })).toMatchObject({ status: 400, json: DAILY })
    expect(resultOf(await send('GET', '/get/d'))).toBe('1')
    const pipeline = await send('POST', '/pipeline', { body: '[["INCR","d"],["INCR","d"],["INCR","d"]]' })
    expect(pipeline.json).toEqual([{ result: 2 }, { result: 3 }, DAILY])
    expect(await send('GET', '/ping', { token: READONLY })).toMatchObject({ status: 400, json: DAILY })
    expect(gateway.limits.remaining()).toBe(0)
    now = Date.UTC(2026, 2, 4, 0, 0, 0)
    expect(resultOf(await send('GET', '/get/d'))).toBe('3')
    expect(gateway.limits.remaining()).toBe(4)
  })

  test('onUsage reports each request with the token id (never the token) and its command count', async () => {
    const events: UsageEvent[] = []
    const gateway = createGateway({ executor, token: TOKEN, readonlyToken: READONLY, onUsage: (event) => events.push(event) })
    const send = requester(gateway, TOKEN)
    await send('GET', '/set/u/1')
    await send('POST', '/pipeline', { body: '[["GET","u"],["GET","u"],["BLPOP","l","0"]]' })
    await send('GET', '/get/u', { token: READONLY })
    await send('GET', '/set/u/2', { token: READONLY }) // refused: not counted
    await send('GET', '/get/u', { token: 'wrong' }) // 401: not counted
    await send('POST', '/', { body: '["ACL","SETUSER","biller","on",">pw","+@all","~*"]' })
    const token = resultOf(await send('GET', '/acl/resttoken/biller/pw')) as string
    await send('POST', '/multi-exec', { token, body: '[["INCR","u"],["INCR","u"]]' })
    expect(events.map(({ tokenId, endpoint, commands }) => [tokenId, endpoint, commands])).toEqual([
      ['standard', 'command', 1],
      ['standard', 'pipeline', 2],
      ['readonly', 'command', 1],
      ['standard', 'command', 1],
      ['standard', 'command', 1],
      ['user:biller', 'transaction', 2],
    ])
    expect(JSON.stringify(events)).not.toContain(TOKEN)
    expect(JSON.stringify(events)).not.toContain(token)
    expect(gateway.limits.usage().get('standard')).toEqual({ requests: 4, commands: 5 })
  })
})

describe('a discarded transaction runs nothing, for every discard reason', () => {
  const executor = new MemoryExecutor()
  let send: ReturnType<typeof requester>
  beforeAll(() => {
    send = requester(createGateway({ executor, token: TOKEN, readonlyToken: READONLY, maxRequestSize: 50, dailyRequestLimit: 1000 }), TOKEN)
  })
  afterAll(() => executor.close())

  test.each([
    ['syntax error', '[["SET","t","1"],["GET"]]', 'EXECABORT Transaction discarded because of previous errors.'],
    ['unsupported command', '[["SET","t","1"],["WATCH","t"]]', "ERR Command is not available: 'watch'"],
    ['over the size limit', `[["SET","t","1"],["SET","t","${'x'.repeat(60)}"]]`, 'ERR max request size exceeded'],
  ])('%s', async (_reason, body, error) => {
    expect(await send('POST', '/multi-exec', { body })).toMatchObject({ status: 400, json: { error } })
    expect(resultOf(await send('GET', '/exists/t'))).toBe(0)
  })
})
