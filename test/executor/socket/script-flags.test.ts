/**
 * The socket executor drops the hosted service's `allow-key-locking` script flag before a script
 * reaches redis-server (which refuses it), and keeps the SHA1s the client sees those of the
 * scripts it sent: on single commands, in pipelines, in transactions, for scripts given as bytes.
 * (Single-command replies are also compared with the engine's in test/differential/scripting.cases.ts.)
 */
import { createHash } from 'node:crypto'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { ReplyError, type Reply } from '../../../src/reply.js'
import { SocketExecutor } from '../../../src/executor/socket/socket-executor.js'
import { liveSuiteName, redisServerSkipReason, startRedisServer, type RedisServer } from '../../support/redis-server.js'

const sha1 = (text: string | Uint8Array): string => createHash('sha1').update(text).digest('hex')
const bulk = (reply: Reply): string => Buffer.from(reply as Uint8Array).toString('latin1')

const INCR = "#!lua flags=allow-key-locking\nreturn redis.call('INCR', KEYS[1])"
const READ = "#!lua flags=no-writes,allow-key-locking\nreturn redis.call('GET', KEYS[1])"

describe.skipIf(redisServerSkipReason !== undefined)(liveSuiteName('socket executor: scripts with the hosted allow-key-locking flag'), () => {
  let server: RedisServer
  let executor: SocketExecutor
  /** A second executor on the same server: it never saw the scripts, so it has no SHA1 map. */
  let other: SocketExecutor
  beforeAll(async () => {
    server = await startRedisServer()
    executor = new SocketExecutor({ url: server.url })
    other = new SocketExecutor({ url: server.url })
  })
  afterAll(async () => {
    await executor?.close()
    await other?.close()
    await server?.stop()
  })
  beforeEach(async () => {
    await executor.exec(['FLUSHALL'])
    await executor.exec(['SCRIPT', 'FLUSH'])
  })

  test('a pipeline: SCRIPT LOAD answers the SHA1 of the script sent, and EVALSHA with it runs it', async () => {
    const replies = await executor.pipeline([
      ['SCRIPT', 'LOAD', INCR],
      ['EVALSHA', sha1(INCR), '1', 'n'],
      ['EVAL', INCR, '1', 'n'],
      ['SCRIPT', 'EXISTS', sha1(INCR), sha1(READ)],
      ['EVALSHA_RO', sha1(READ), '1', 'n'],
      ['EVAL_RO', READ, '1', 'n'],
      ['EVALSHA_RO', sha1(READ), '1', 'n'],
    ])
    expect(bulk(replies[0])).toBe(sha1(INCR))
    expect(replies.slice(1, 4)).toEqual([1, 2, [1, 0]])
    expect((replies[4] as ReplyError).message).toBe('NOSCRIPT No matching script. Please use EVAL.')
    expect(bulk(replies[5])).toBe('2')
    expect(bulk(replies[6])).toBe('2')
  })

  test('a transaction: the replies inside EXEC are in the client terms too', async () => {
    const replies = (await executor.transaction([
      ['SCRIPT', 'LOAD', INCR],
      ['EVALSHA', sha1(INCR), '1', 'n'],
      ['EVAL', "#!lua flags=allow-key-locking\nreturn y", '0'],
    ])) as Reply[]
    expect(bulk(replies[0])).toBe(sha1(INCR))
    expect(replies[1]).toBe(1)
    const error = (replies[2] as ReplyError).message
    expect(error).toContain(`script: ${sha1("#!lua flags=allow-key-locking\nreturn y")}`)
    expect(error).toContain('@user_script:2')
  })

  test('a script given as bytes (not UTF-8 text) is rewritten byte for byte', async () => {
    const script = Buffer.concat([Buffer.from("#!lua flags=allow-key-locking\nreturn '"), Buffer.from([0xff, 0xfe]), Buffer.from("'")])
    expect(bulk(await executor.exec(['SCRIPT', 'LOAD', script]))).toBe(sha1(script))
    expect(await executor.exec(['EVALSHA', sha1(script), '0'])).toEqual(Buffer.from([0xff, 0xfe]))
    expect(await executor.exec(['EVAL', script, '0'])).toEqual(Buffer.from([0xff, 0xfe]))
  })

  test('the SHA1 map is the executor\'s: another executor asks redis-server, which answers NOSCRIPT', async () => {
    expect(bulk(await executor.exec(['SCRIPT', 'LOAD', INCR]))).toBe(sha1(INCR))
    expect(await other.exec(['SCRIPT', 'EXISTS', sha1(INCR)])).toEqual([0])
    expect((await other.exec(['EVALSHA', sha1(INCR), '1', 'n'])) as ReplyError).toBeInstanceOf(ReplyError)
    // Once it sent the script itself, it knows it too.
    expect(await other.exec(['EVAL', INCR, '1', 'n'])).toBe(1)
    expect(await other.exec(['EVALSHA', sha1(INCR), '1', 'n'])).toBe(2)
  })

  test('FUNCTION LOAD is not rewritten: redis-server refuses the flag in register_function with its own error', async () => {
    const library = "#!lua name=hosted\nredis.register_function{function_name='f', callback=function() return 1 end, flags={'allow-key-locking'}}"
    expect(((await executor.exec(['FUNCTION', 'LOAD', library])) as ReplyError).message).toBe('ERR Error registering functions: ERR unknown flag given')
  })
})
