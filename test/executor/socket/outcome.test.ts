/**
 * "Not sent, safe to retry" against "sent, outcome unknown": which error a failed call gets, and
 * proof with a real redis-server frozen by SIGSTOP that a call reported not sent never runs,
 * while calls reported as outcome unknown may run once the server resumes.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type net from 'node:net'
import { BackendUnavailableError, OutcomeUnknownError } from '../../../src/executor/executor.js'
import { SocketExecutor } from '../../../src/executor/socket/socket-executor.js'
import { ReplyTooLargeError } from '../../../src/executor/socket/connection.js'
import type { Reply } from '../../../src/reply.js'
import { createNodeHandler } from '../../../src/adapters/node.js'
import { serveResp, type RespServer } from '../../../src/adapters/resp-server.js'
import { liveSuiteName, redisServerSkipReason } from '../../support/redis-server.js'
import { listen } from '../../support/http.js'
import { RawClient, RestartableRedis, show, stubServer, waitFor } from './support.js'

type Settled = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: Error }

function settle(promise: Promise<unknown>): Promise<Settled> {
  return promise.then(
    (value) => ({ ok: true, value }),
    (error: Error) => ({ ok: false, error }),
  )
}

function errorOf(outcome: Settled): Error {
  if (outcome.ok) throw new Error(`expected a failure, got ${String(outcome.value)}`)
  return outcome.error
}

const text = (reply: Reply): string => Buffer.from(reply as Uint8Array).toString('utf8')

const isNotSent = (error: Error): boolean => error instanceof BackendUnavailableError && !(error instanceof OutcomeUnknownError)

describe.skipIf(redisServerSkipReason !== undefined)(liveSuiteName('socket executor: a server frozen by SIGSTOP'), () => {
  let redis: RestartableRedis
  let executor: SocketExecutor
  let checker: SocketExecutor | undefined

  beforeAll(async () => {
    redis = await RestartableRedis.start()
    // One shared connection, a small queue, a handshake (CLIENT SETNAME) so a connection opened
    // while the server is frozen fails before any command is written, and a long backoff.
    executor = new SocketExecutor({
      url: redis.url,
      clientName: 'outcome',
      poolSize: 1,
      maxPending: 40,
      commandTimeout: 2000, // wide enough that a loaded machine queues every call below before it passes
      connectTimeout: 300,
      reconnectDelay: 60_000,
      maxReconnectDelay: 60_000,
    })
  })
  afterAll(async () => {
    redis?.resume()
    await executor?.close()
    await checker?.close()
    await redis?.stop()
  }, 20_000)

  test('calls reported not sent never run; only calls reported outcome-unknown run after SIGCONT', async () => {
    await executor.exec(['PING'])
    await executor.transaction([['PING']]) // an idle exclusive connection for the transaction below
    redis.pause()

    const calls = new Map<string, Promise<Settled>>()
    const set = (key: string, value: string | Buffer = '1'): void => void calls.set(key, settle(executor.exec(['SET', key, value])))

    // Written: 20 small SETs and one of 32 MiB in the same write; the kernel takes a few MiB,
    // the rest waits in the socket for a `drain` that cannot come.
    const writesBefore = executor.stats.writes
    for (let i = 0; i < 20; i++) set(`written:${i}`)
    set('written:big', Buffer.alloc(32 * 1024 * 1024, 'x'))
    await waitFor(() => executor.stats.writes > writesBefore, 'the first write')
    // Not written: queued behind the write that does not drain (10), then over maxPending:
    // 40 - 31 = 9 more are queued and 11 are refused at once.
    for (let i = 0; i < 10; i++) set(`queued:${i}`)
    for (let i = 0; i < 20; i++) set(`overflow:${i}`)
    // A transaction: MULTI is written alone first; it times out before EXEC is sent.
    calls.set('tx', settle(executor.transaction([['SET', 'tx:a', '1'], ['SET', 'tx:b', '1']])))
    await Promise.all(calls.values())

    // A new connection is accepted by the kernel, but its handshake is never answered; then the
    // backoff fails calls fast.
    set('connect:0')
    await calls.get('connect:0')
    set('backoff:0')
    await calls.get('backoff:0')

    const outcomes = new Map<string, Settled>()
    for (const [key, promise] of calls) outcomes.set(key, await promise)
    const unknown = [...outcomes].filter(([, outcome]) => !outcome.ok && outcome.error instanceof OutcomeUnknownError).map(([key]) => key)
    const notSent = [...outcomes].filter(([, outcome]) => !outcome.ok && isNotSent(outcome.error)).map(([key]) => key)
    expect(unknown.sort()).toEqual([...Array.from({ length: 20 }, (_, i) => `written:${i}`), 'written:big'].sort())
    expect(notSent.length).toBe(outcomes.size - unknown.length)
    expect(errorOf(outcomes.get('written:0') as Settled).message).toMatch(/^command timed out after 2000 ms waiting for 127\.0\.0\.1:\d+$/)
    const overflow = Array.from({ length: 20 }, (_, i) => errorOf(outcomes.get(`overflow:${i}`) as Settled).message)
    expect(overflow.filter((message) => message === 'too many commands pending on one connection (maxPending 40)').length).toBe(11)
    expect(errorOf(outcomes.get('tx') as Settled).message).toMatch(/timed out .*; the transaction was dropped before EXEC$/)
    expect(errorOf(outcomes.get('connect:0') as Settled).message).toMatch(/^connect to 127\.0\.0\.1:\d+ timed out after 300 ms$/)
    expect(errorOf(outcomes.get('backoff:0') as Settled).message).toMatch(/next attempt in \d+ ms/)

    // Resume, and wait until the server has read and dropped every connection of the frozen
    // period: only the checker's own is left.
    redis.resume()
    checker = new SocketExecutor({ url: redis.url })
    const probe = checker
    const clients = async (): Promise<number> => text(await probe.exec(['CLIENT', 'LIST'])).trim().split('\n').length
    await waitFor(async () => (await clients()) === 1, 'the old connections to close')

    const ran: string[] = []
    for (const key of outcomes.keys()) {
      const names = key === 'tx' ? ['tx:a', 'tx:b'] : [key]
      for (const name of names) if ((await checker.exec(['EXISTS', name])) === 1) ran.push(name)
    }
    // Nothing reported not sent ran. The small written SETs reached the server before the
    // timeout and ran after SIGCONT although their callers were told of a failure: that is why
    // a timeout is "outcome unknown", never "safe to retry".
    for (const key of notSent) expect(ran).not.toContain(key)
    expect(ran.filter((key) => key.startsWith('written:') && key !== 'written:big').length).toBe(20)
    expect(ran.every((key) => unknown.includes(key))).toBe(true)
  }, 30_000)
})

describe.skipIf(redisServerSkipReason !== undefined)(liveSuiteName('socket executor: pipelines and transactions longer than maxPending'), () => {
  let redis: RestartableRedis
  let executor: SocketExecutor

  beforeAll(async () => {
    redis = await RestartableRedis.start()
    executor = new SocketExecutor({ url: redis.url, maxPending: 100_000, commandTimeout: 20_000 })
  })
  afterAll(async () => {
    await executor?.close()
    await redis?.stop()
  })

  test('a 250,000-row pipeline is sent in slices, in order, every row with its own reply, beside other callers', async () => {
    const rows = 250_000
    const pipeline = executor.pipeline(Array.from({ length: rows }, (_, i) => (i % 1000 === 999 ? ['ECHO', `row-${i}`] : ['INCR', 'counter'])))
    // A bystander is served meanwhile, on another connection.
    expect(String(await executor.exec(['SET', 'bystander', 'yes']))).toBe('OK')
    const replies = await pipeline
    expect(replies.length).toBe(rows)
    // One assertion over all rows (250,000 expect calls would dominate the test's time).
    let expected = 0
    const wrong = replies.findIndex((reply, i) => (i % 1000 === 999 ? text(reply) !== `row-${i}` : reply !== ++expected))
    expect(wrong).toBe(-1)
    expect(text(await executor.exec(['GET', 'counter']))).toBe(String(expected))
  }, 60_000)

  test('a 250,000-command transaction is sent in slices and runs atomically', async () => {
    const commands = Array.from({ length: 250_000 }, () => ['INCR', 'tx-counter'])
    const replies = (await executor.transaction(commands)) as Reply[]
    expect(replies.length).toBe(250_000)
    expect(replies[0]).toBe(1)
    expect(replies[249_999]).toBe(250_000)
  }, 60_000)
})

describe('socket executor: classification against stub servers', () => {
  test('a server that closes the connection: written commands are outcome-unknown', async () => {
    const closing = await stubServer((socket) => socket.once('data', () => socket.destroy()))
    const executor = new SocketExecutor({ port: closing.port, reconnectDelay: 60_000 })
    try {
      const failure = await executor.exec(['SET', 'a', '1']).catch((error: Error) => error)
      expect(failure).toBeInstanceOf(OutcomeUnknownError)
      expect((failure as Error).message).toMatch(/closed the connection|connection closed/)
    } finally {
      await executor.close()
      await closing.close()
    }
  })

  test('a transaction whose EXEC was written and not answered is outcome-unknown', async () => {
    // Answers MULTI, then nothing.
    const stub = await stubServer((socket) => socket.once('data', () => socket.write('+OK\r\n')))
    const executor = new SocketExecutor({ port: stub.port, commandTimeout: 200 })
    try {
      const failure = await executor.transaction([['SET', 'a', '1']]).catch((error: Error) => error)
      expect(failure).toBeInstanceOf(OutcomeUnknownError)
      expect((failure as Error).message).toMatch(/^command timed out after 200 ms/)
    } finally {
      await executor.close()
      await stub.close()
    }
  })

  test('a pipeline in slices that fails after its first slice ran is outcome-unknown, naming how much ran', async () => {
    // Answers the first two commands it reads, then closes.
    const stub = await stubServer((socket: net.Socket) => {
      socket.once('data', () => {
        socket.write('+PONG\r\n+PONG\r\n')
        socket.once('data', () => socket.destroy())
      })
    })
    const executor = new SocketExecutor({ port: stub.port, maxPending: 2, reconnectDelay: 60_000 })
    try {
      const failure = await executor.pipeline(Array.from({ length: 5 }, () => ['PING'])).catch((error: Error) => error)
      expect(failure).toBeInstanceOf(OutcomeUnknownError)
      expect((failure as Error).message).toMatch(/; 2 of the pipeline's 5 commands had run$/)
    } finally {
      await executor.close()
      await stub.close()
    }
  })

  test('an oversized reply fails its own command as such, and those written behind it as outcome-unknown', async () => {
    // The start of a 4 KiB reply: past the limit before it is complete.
    const stub = await stubServer((socket) => socket.once('data', () => socket.write(`$4096\r\n${'x'.repeat(2048)}`)))
    const executor = new SocketExecutor({ port: stub.port, maxReplyBytes: 1024, reconnectDelay: 60_000 })
    try {
      const [big, behind] = await Promise.all([executor.exec(['GET', 'big']), executor.exec(['SET', 'a', '1'])].map((call) => call.catch((error: Error) => error)))
      expect(big).toBeInstanceOf(ReplyTooLargeError)
      expect(behind).not.toBeInstanceOf(ReplyTooLargeError)
      expect(behind).toBeInstanceOf(OutcomeUnknownError)
      expect((behind as Error).message).toBe('an earlier reply on the connection was too large: reply larger than maxReplyBytes (1024 bytes); the connection was closed')
    } finally {
      await executor.close()
      await stub.close()
    }
  })

  test('a connection refused is not sent', async () => {
    const gone = await stubServer(() => {})
    const port = gone.port
    await gone.close()
    const executor = new SocketExecutor({ port })
    try {
      const failure = await executor.exec(['SET', 'a', '1']).catch((error: Error) => error)
      expect(isNotSent(failure as Error)).toBe(true)
    } finally {
      await executor.close()
    }
  })
})

describe.skipIf(redisServerSkipReason !== undefined)(liveSuiteName('gateway and RESP listener over a server frozen by SIGSTOP'), () => {
  let redis: RestartableRedis
  let executor: SocketExecutor
  let http: Awaited<ReturnType<typeof listen>>
  let resp: RespServer

  beforeAll(async () => {
    redis = await RestartableRedis.start()
    executor = new SocketExecutor({ url: redis.url, clientName: 'outcome', poolSize: 1, commandTimeout: 1500, connectTimeout: 300, reconnectDelay: 60_000, maxReconnectDelay: 60_000 })
    http = await listen(createNodeHandler({ executor, token: 'frozen-token' }))
    resp = await serveResp(executor, { port: 0 })
  })
  afterAll(async () => {
    redis?.resume()
    await http?.close()
    await resp?.close()
    await executor?.close()
    await redis?.stop()
  }, 20_000)

  test('timed-out SETs answer 504 "may have run" (and did run); the fail-fast ones answer 503 "safe to retry" with Retry-After', async () => {
    const headers = { authorization: 'Bearer frozen-token' }
    expect((await fetch(`${http.url}/set/warm/1`, { headers })).status).toBe(200)
    const client = await RawClient.connect(resp.address.port)
    try {
      redis.pause()
      const respSent = client.call('SET', 'resp:sent', '1')
      const timedOut = await Promise.all(
        Array.from({ length: 23 }, async (_, i) => {
          const response = await fetch(`${http.url}/set/http:${i}/1`, { headers })
          return { status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.text() }
        }),
      )
      for (const answer of timedOut) {
        expect(answer.status).toBe(504)
        expect(answer.retryAfter).toBeNull()
        expect(answer.body).toMatch(/^\{"error":"ERR backend outcome unknown: command timed out after 1500 ms waiting for 127\.0\.0\.1:\d+ \(sent; it may have run\)"\}$/)
      }
      expect(show(await respSent)).toMatch(/^-ERR backend outcome unknown: command timed out after 1500 ms waiting for 127\.0\.0\.1:\d+ \(sent; it may have run\)$/)
      // The frozen server accepts a new connection but never answers its handshake: not sent.
      expect(show(await client.call('SET', 'resp:0', '1'))).toMatch(/^-ERR backend unavailable: connect to 127\.0\.0\.1:\d+ timed out after 300 ms \(not executed; safe to retry\)$/)
      const failFast = await fetch(`${http.url}/set/http:late/1`, { headers })
      expect(failFast.status).toBe(503)
      expect(failFast.headers.get('retry-after')).toBe('1')
      expect(await failFast.text()).toMatch(/^\{"error":"ERR backend unavailable: .*next attempt in \d+ ms\) \(not executed; safe to retry\)"\}$/)

      redis.resume()
      const checker = new SocketExecutor({ url: redis.url })
      try {
        const clients = async (): Promise<number> => text(await checker.exec(['CLIENT', 'LIST'])).trim().split('\n').length
        await waitFor(async () => (await clients()) === 1, 'the old connections to close')
        // What was reported "may have run" did run; what was reported "not executed" did not.
        expect(await checker.exec(['EXISTS', 'resp:sent', ...Array.from({ length: 23 }, (_, i) => `http:${i}`)])).toBe(24)
        expect(await checker.exec(['EXISTS', 'resp:0', 'http:late'])).toBe(0)
      } finally {
        await checker.close()
      }
    } finally {
      client.destroy()
    }
  }, 30_000)
})
