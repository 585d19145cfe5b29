import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { createGateway } from '../../src/rest/gateway.js'
import type { Executor } from '../../src/executor/executor.js'
import { executorsUnderTest } from '../support/executors.js'
import { requester, type Send } from '../support/gateway.js'

const TOKEN = 'standard-token'
const READONLY = 'readonly-token'

for (const entry of executorsUnderTest()) {
  describe.skipIf(entry.skipReason !== null)(`gateway over the ${entry.name} executor${entry.skipReason ? ` (${entry.skipReason})` : ''}`, () => {
    let executor: Executor
    let release: () => Promise<void>
    let send: Send

    beforeAll(async () => {
      ;({ executor, release } = await entry.create())
      send = requester(createGateway({ executor, token: TOKEN, readonlyToken: READONLY }), TOKEN)
    })
    afterAll(() => release())
    beforeEach(async () => {
      await executor.exec(['FLUSHALL'])
    })

    test('a command in the path runs and returns a result envelope', async () => {
      expect((await send('GET', '/set/a/1')).json).toEqual({ result: 'OK' })
      expect((await send('GET', '/get/a')).json).toEqual({ result: '1' })
    })

    test('POST and PUT and HEAD run commands too; HEAD has no body', async () => {
      expect((await send('POST', '/set/a/2')).json).toEqual({ result: 'OK' })
      expect((await send('PUT', '/get/a')).json).toEqual({ result: '2' })
      const head = await send('HEAD', '/get/a')
      expect(head.status).toBe(200)
      expect(head.text).toBe('')
    })

    test('a value in the body with options as query parameters', async () => {
      expect((await send('POST', '/set/k?EX=100', { body: 'hello world' })).json).toEqual({ result: 'OK' })
      expect((await send('GET', '/get/k')).json).toEqual({ result: 'hello world' })
      const ttl = (await send('GET', '/ttl/k')).json as { result: number }
      expect(ttl.result).toBeGreaterThan(90)
    })

    test('the whole command as a JSON array', async () => {
      expect((await send('POST', '/', { body: '["SET","n",41]' })).json).toEqual({ result: 'OK' })
      expect((await send('POST', '/', { body: '["INCR","n"]' })).json).toEqual({ result: 42 })
    })

    test('64-bit integers are exact in JSON', async () => {
      await send('POST', '/', { body: '["SET","n","9223372036854775806"]' })
      const sent = await send('POST', '/', { body: '["INCR","n"]' })
      expect(sent.text).toBe('{"result":9223372036854775807}')
    })

    test('a pipeline returns one envelope per command and a failing row does not stop the rest', async () => {
      const sent = await send('POST', '/pipeline', { body: '[["SET","a","x"],["INCR","a"],["GET","a"]]' })
      expect(sent.status).toBe(200)
      expect(sent.json).toEqual([{ result: 'OK' }, { error: 'ERR value is not an integer or out of range' }, { result: 'x' }])
    })

    test('a transaction runs atomically; a runtime error stays in its slot', async () => {
      const sent = await send('POST', '/multi-exec', { body: '[["SET","a","x"],["INCR","a"],["SET","b","y"]]' })
      expect(sent.status).toBe(200)
      expect(sent.json).toEqual([{ result: 'OK' }, { error: 'ERR value is not an integer or out of range' }, { result: 'OK' }])
    })

    test('a transaction with a queue-time error is discarded as a whole', async () => {
      const sent = await send('POST', '/multi-exec', { body: '[["SET","a","x"],["GET"]]' })
      expect(sent.status).toBe(400)
      expect(sent.json).toEqual({ error: 'EXECABORT Transaction discarded because of previous errors.' })
      expect((await send('GET', '/exists/a')).json).toEqual({ result: 0 })
    })

    test('a transaction with an unsupported command is discarded with the spec error', async () => {
      const sent = await send('POST', '/multi-exec', { body: '[["SET","a","x"],["BLPOP","l","0"]]' })
      expect(sent.status).toBe(400)
      expect(sent.json).toEqual({ error: "ERR Command is not available: 'blpop'" })
      expect((await send('GET', '/exists/a')).json).toEqual({ result: 0 })
    })

    test('a command error is a 400 with the Redis error text', async () => {
      const sent = await send('GET', '/get')
      expect(sent.status).toBe(400)
      expect(sent.json).toEqual({ error: "ERR wrong number of arguments for 'get' command" })
    })

    test('an unknown command is a 400 with Redis\'s text', async () => {
      const sent = await send('GET', '/nosuchcommand/a')
      expect(sent.status).toBe(400)
      expect((sent.json as { error: string }).error).toMatch(/^ERR unknown command 'nosuchcommand'/)
    })

    test.each(['blpop/l/0', 'watch/a', 'unwatch', 'discard', 'multi', 'exec', 'subscribe/ch', 'select/1', 'client/list', 'cluster/info', 'monitor'])(
      'unsupported command /%s is refused with the spec error',
      async (path) => {
        const sent = await send('GET', `/${path}`)
        expect(sent.status).toBe(400)
        expect(sent.json).toEqual({ error: `ERR Command is not available: '${path.split('/')[0]}'` })
      },
    )

    test('missing or wrong token is a 401', async () => {
      expect(await send('GET', '/get/a', { token: null })).toMatchObject({ status: 401, json: { error: 'WRONGPASS invalid or missing auth token' } })
      expect(await send('GET', '/get/a', { token: 'wrong' })).toMatchObject({ status: 401 })
    })

    test('the _token query parameter authenticates', async () => {
      expect((await send('GET', `/set/a/1?_token=${TOKEN}`, { token: null })).json).toEqual({ result: 'OK' })
    })

    test.each(['DELETE', 'PATCH', 'OPTIONS', 'TRACE'])('method %s is a 405', async (method) => {
      expect(await send(method, '/get/a')).toMatchObject({ status: 405, json: { error: 'ERR method not allowed' } })
    })

    test('the read-only token runs reads and is refused writes with NOPERM', async () => {
      await send('GET', '/set/a/1')
      expect((await send('GET', '/get/a', { token: READONLY })).json).toEqual({ result: '1' })
      const refused = await send('GET', '/set/a/2', { token: READONLY })
      expect(refused).toMatchObject({ status: 400, json: { error: "NOPERM this user has no permissions to run the 'set' command" } })
      expect((await send('GET', '/get/a')).json).toEqual({ result: '1' })
    })

    test('the read-only token is refused powerful reads such as KEYS and SCAN', async () => {
      expect((await send('GET', '/keys/*', { token: READONLY })).status).toBe(400)
      expect((await send('GET', '/scan/0', { token: READONLY })).status).toBe(400)
    })

    test('Service-Encoding: base64 encodes strings but not OK, integers or nulls', async () => {
      const headers = { 'Service-Encoding': 'base64' }
      expect((await send('GET', '/set/a/hello', { headers })).json).toEqual({ result: 'OK' })
      expect((await send('GET', '/get/a', { headers })).json).toEqual({ result: 'aGVsbG8=' })
      expect((await send('GET', '/mget/a/missing', { headers })).json).toEqual({ result: ['aGVsbG8=', null] })
      expect((await send('GET', '/incr/n', { headers })).json).toEqual({ result: 1 })
    })

    test('the Upstash- header aliases work', async () => {
      await send('GET', '/set/a/hello')
      expect((await send('GET', '/get/a', { headers: { 'Upstash-Encoding': 'base64' } })).json).toEqual({ result: 'aGVsbG8=' })
    })

    test('binary values round-trip through base64', async () => {
      await send('POST', '/set/bin', { body: Buffer.from([0, 255, 13, 10]) })
      expect((await send('GET', '/get/bin', { headers: { 'Service-Encoding': 'base64' } })).json).toEqual({ result: 'AP8NCg==' })
    })

    test('invalid UTF-8 is replaced by U+FFFD without base64', async () => {
      await send('POST', '/set/bin', { body: Buffer.from([0x61, 0xff]) })
      expect((await send('GET', '/get/bin')).json).toEqual({ result: 'a\uFFFD' })
    })

    test('Service-Response-Format: resp2 returns the raw RESP2 bytes', async () => {
      const headers = { 'Service-Response-Format': 'resp2' }
      const ok = await send('GET', '/set/a/hello', { headers })
      expect(ok.headers['content-type']).toBe('application/octet-stream')
      expect(ok.text).toBe('+OK\r\n')
      expect((await send('GET', '/get/a', { headers })).text).toBe('$5\r\nhello\r\n')
      expect((await send('GET', '/get/none', { headers })).text).toBe('$-1\r\n')
      expect((await send('POST', '/pipeline', { headers, body: '[["INCR","n"],["GET","a"]]' })).text).toBe(':1\r\n$5\r\nhello\r\n')
    })

    test('an unknown Service-Response-Format is a 400', async () => {
      expect((await send('GET', '/get/a', { headers: { 'Service-Response-Format': 'xml' } })).status).toBe(400)
    })

    test('base64 together with resp2 is a 400', async () => {
      const headers = { 'Service-Encoding': 'base64', 'Service-Response-Format': 'resp2' }
      expect((await send('GET', '/get/a', { headers })).status).toBe(400)
    })

    test('/multi-exec answers JSON even when resp2 is asked for', async () => {
      const sent = await send('POST', '/multi-exec', { headers: { 'Service-Response-Format': 'resp2' }, body: '[["INCR","n"]]' })
      expect(sent.json).toEqual([{ result: 1 }])
    })

    test('every response carries a Service-Sync-Token that changes after a write', async () => {
      const first = (await send('GET', '/get/a')).headers['service-sync-token']
      const second = (await send('GET', '/get/a')).headers['service-sync-token']
      const afterWrite = (await send('GET', '/set/a/1')).headers['service-sync-token']
      expect(first).toBeTruthy()
      expect(second).toBe(first)
      expect(afterWrite).not.toBe(first)
    })

    test('/info runs INFO', async () => {
      const sent = await send('POST', '/info')
      expect(sent.status).toBe(200)
      expect((sent.json as { result: string }).result).toContain('redis_version')
    })

    test('a command over the maximum request size is refused', async () => {
      const small = requester(createGateway({ executor, token: TOKEN, maxRequestSize: 16 }), TOKEN)
      expect((await small('POST', '/set/k', { body: 'x'.repeat(32) })).json).toEqual({ error: 'ERR max request size exceeded' })
    })
  })
}
