/**
 * The gateway's own overload rules, on the in-memory executor: JSON bodies that are not UTF-8,
 * credentials in a form the gateway does not read, the row and reply limits, and pipelines run
 * in slices that let other clients in.
 */
import { describe, expect, test } from 'vitest'
import { createGateway } from '../../src/rest/gateway.js'
import { MemoryExecutor } from '../../src/executor/memory/memory-executor.js'
import { requester } from '../support/gateway.js'

const TOKEN = 'standard-token'

function gateway(options: { maxPipelineRows?: number; maxReplyBytes?: number } = {}) {
  const executor = new MemoryExecutor()
  const core = createGateway({ executor, token: TOKEN, ...options })
  return { core, send: requester(core, TOKEN) }
}

describe('JSON bodies carry UTF-8 text only', () => {
  test('malformed UTF-8 is a 400 naming the byte offset, and nothing is stored', async () => {
    const { send } = gateway()
    const body = Buffer.concat([Buffer.from('["SET","k","ab'), Buffer.from([0xff]), Buffer.from('"]')])
    const sent = await send('POST', '/', { body })
    expect(sent.status).toBe(400)
    expect(sent.json).toEqual({ error: expect.stringContaining('invalid UTF-8 in the JSON body at byte offset 14') })
    expect((await send('GET', '/exists/k')).json).toEqual({ result: 0 })
  })

  test('a pipeline with a truncated sequence, and one split across decoding slices, name the right offset', async () => {
    const { send } = gateway()
    const truncated = Buffer.concat([Buffer.from('[["SET","k","\u00e9'), Buffer.from([0xe2, 0x82]), Buffer.from('"]]')])
    expect((await send('POST', '/pipeline', { body: truncated })).json).toEqual({ error: expect.stringContaining(`byte offset ${truncated.indexOf(0xe2)}`) })
    const rows = Array.from({ length: 80_000 }, () => '["ECHO","\u00e9t\u00e9"]').join(',')
    const large = Buffer.concat([Buffer.from(`[${rows},["ECHO","`), Buffer.from([0xc3, 0x28]), Buffer.from('"]]')])
    expect(large.length).toBeGreaterThan(1024 * 1024)
    expect((await send('POST', '/pipeline', { body: large })).json).toEqual({ error: expect.stringContaining(`byte offset ${large.length - 5}`) })
  })

  test('a lone surrogate escape is a 400; a pair is a character', async () => {
    const { send } = gateway()
    expect((await send('POST', '/', { body: '["SET","k","\\ud800x"]' })).json).toEqual({ error: expect.stringContaining('lone UTF-16 surrogate') })
    expect((await send('POST', '/', { body: '["SET","k","x\\udc00"]' })).status).toBe(400)
    expect((await send('POST', '/', { body: '["SET","k","\\ud83d\\ude00"]' })).json).toEqual({ result: 'OK' })
    expect((await send('GET', '/get/k')).json).toEqual({ result: '\u{1f600}' })
  })
})

describe('credentials', () => {
  test('an Authorization header that is not Bearer is a 401, even with a valid ?_token', async () => {
    const { send } = gateway()
    const sent = await send('GET', `/get/a?_token=${TOKEN}`, { token: null, headers: { authorization: `Basic ${TOKEN}` } })
    expect(sent.status).toBe(401)
    expect((await send('GET', `/get/a?_token=${TOKEN}`, { token: null })).status).toBe(200)
  })

  test('the head alone settles an unauthenticated request, before any body', async () => {
    const { core } = gateway()
    const head = (authorization: string) => ({ method: 'POST', url: '/pipeline', headers: { get: (name: string) => (name === 'authorization' ? authorization : null) } })
    expect((await core.checkHead(head('Bearer nope')))?.status).toBe(401)
    expect(await core.checkHead(head(`Bearer ${TOKEN}`))).toBeUndefined()
  })
})

describe('pipeline and reply limits', () => {
  test('a pipeline over maxPipelineRows is a 400 naming the limit, and none of it runs', async () => {
    const { send } = gateway({ maxPipelineRows: 100 })
    const body = JSON.stringify(Array.from({ length: 101 }, (_, i) => ['SET', `k${i}`, 'v']))
    expect((await send('POST', '/pipeline', { body })).json).toEqual({ error: expect.stringContaining('the limit is 100 (maxPipelineRows)') })
    expect((await send('POST', '/multi-exec', { body })).status).toBe(400)
    expect((await send('GET', '/dbsize')).json).toEqual({ result: 0 })
    expect((await send('POST', '/pipeline', { body: JSON.stringify([['DBSIZE']]) })).json).toEqual([{ result: 0 }])
  })

  test('a reply over maxReplyBytes is a 400; a pipeline stops at the slice that passes it and says how much ran', async () => {
    const { send } = gateway({ maxReplyBytes: 10_000 })
    await send('POST', '/set/big', { body: 'x'.repeat(20_000) })
    expect((await send('GET', '/get/big')).json).toEqual({ error: expect.stringContaining('reply too large: over 10000 bytes (maxReplyBytes)') })
    expect((await send('GET', '/strlen/big')).json).toEqual({ result: 20_000 })
    const rows = Array.from({ length: 3000 }, (_, i) => ['INCR', `n${i}`])
    const sent = await send('POST', '/pipeline', { body: JSON.stringify(rows) })
    expect(sent.json).toEqual({ error: expect.stringContaining('the first 1024 of 3000 commands ran, the rest did not') })
    expect((await send('GET', '/exists/n1023')).json).toEqual({ result: 1 })
    expect((await send('GET', '/exists/n1024')).json).toEqual({ result: 0 })
  })

  test('a large pipeline runs in slices: other work gets turns of the event loop while it runs, replies stay in order', async () => {
    const { send } = gateway()
    const rows = Array.from({ length: 50_000 }, (_, i) => ['ECHO', `m${i}`])
    let turns = 0
    let running = true
    const tick = () => {
      turns++
      if (running) setImmediate(tick)
    }
    setImmediate(tick)
    const sent = await send('POST', '/pipeline', { body: JSON.stringify(rows) })
    running = false
    const replies = sent.json as { result: string }[]
    expect(replies.length).toBe(50_000)
    expect(replies[0]).toEqual({ result: 'm0' })
    expect(replies[49_999]).toEqual({ result: 'm49999' })
    expect(turns).toBeGreaterThan(40)
  })
})
