/**
 * The read-only token's requests of issue 15 (items 1 and 6), over the gateway and the memory
 * executor: each must answer at once with an error instead of exhausting the process or
 * publishing.
 */
import { describe, expect, test } from 'vitest'
import { createGateway } from '../../src/rest/gateway.js'
import { MemoryExecutor } from '../../src/executor/memory/index.js'
import { requester } from '../support/gateway.js'

const READONLY = 'readonly-token'
const TOO_MANY = 'ERR reply exceeds the limit of 1048576 elements per request (maxReplyElements of the in-memory engine); ask for fewer'

function readonlyGateway() {
  const executor = new MemoryExecutor({ activeExpiryInterval: 0 })
  const send = requester(createGateway({ executor, token: 'standard-token', readonlyToken: READONLY }), READONLY)
  return { executor, send }
}

describe('issue 15 over the gateway, read-only token', () => {
  test('the 65-byte pipeline of two SRANDMEMBER -16777216 answers two errors at once', async () => {
    const { executor, send } = readonlyGateway()
    await executor.exec(['SADD', 'c', 'a'])
    await executor.exec(['ZADD', 'z', '1', 'a'])
    const started = performance.now()
    const sent = await send('POST', '/pipeline', { body: '[["SRANDMEMBER","c","-16777216"],["SRANDMEMBER","c","-16777216"]]' })
    expect(sent.json).toEqual([{ error: TOO_MANY }, { error: TOO_MANY }])
    expect(await send('POST', '/', { body: '["ZRANDMEMBER","z","-50000000"]' })).toMatchObject({ status: 400, json: { error: TOO_MANY } })
    expect(performance.now() - started).toBeLessThan(1000)
    await executor.close()
  })

  test('EVAL_RO and FCALL_RO cannot publish', async () => {
    const { executor, send } = readonlyGateway()
    await executor.exec(['FUNCTION', 'LOAD', "#!lua name=lib\nredis.register_function{function_name='pub', callback=function() return redis.call('publish', 'news', 'x') end, flags={'no-writes'}}"])
    const published: string[] = []
    const abort = new AbortController()
    const listening = executor.subscribe({ kind: 'channel', names: ['news'] }, (event) => event.type === 'message' && published.push('x'), abort.signal)
    const script = await send('POST', '/', { body: JSON.stringify(['EVAL_RO', "return redis.call('publish','news','x')", '0']) })
    expect(script.status).toBe(400)
    expect((script.json as { error: string }).error).toMatch(/^ERR Write commands are not allowed from read-only scripts\. script: /)
    const fcall = await send('POST', '/', { body: '["FCALL_RO","pub","0"]' })
    expect((fcall.json as { error: string }).error).toMatch(/^ERR Write commands are not allowed from read-only scripts\. script: pub/)
    expect(published).toEqual([])
    abort.abort()
    await listening
    await executor.close()
  })
})
