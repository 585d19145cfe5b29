import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { OK, PONG, type Reply } from '../../../src/reply.js'
import { BackendUnavailableError } from '../../../src/executor/executor.js'
import { SocketExecutor } from '../../../src/executor/socket/socket-executor.js'
import { ReplyTooLargeError } from '../../../src/executor/socket/connection.js'
import { liveSuiteName, redisServerSkipReason, startRedisServer, type RedisServer } from '../../support/redis-server.js'
import { RestartableRedis, stubServer, waitFor } from './support.js'

const text = (reply: Reply): string => Buffer.from(reply as Uint8Array).toString('utf8')

interface Outcome {
  readonly sent: string
  readonly reply?: Reply
  readonly error?: unknown
}

/** Sends ECHO with a unique payload and records how it settled: a misdelivered reply shows at once. */
function echo(executor: SocketExecutor, payload: string): Promise<Outcome> {
  return executor.exec(['ECHO', payload]).then(
    (reply) => ({ sent: payload, reply }),
    (error: unknown) => ({ sent: payload, error }),
  )
}

function checkOutcomes(outcomes: readonly Outcome[]): { ok: number; failed: number } {
  let ok = 0
  let failed = 0
  for (const outcome of outcomes) {
    if (outcome.error !== undefined) {
      expect(outcome.error).toBeInstanceOf(BackendUnavailableError)
      failed++
    } else {
      // Never someone else's reply.
      expect(text(outcome.reply as Reply)).toBe(outcome.sent)
      ok++
    }
  }
  return { ok, failed }
}

describe.skipIf(redisServerSkipReason !== undefined)(liveSuiteName('socket executor: the server is killed and restarted under load'), () => {
  let redis: RestartableRedis
  let executor: SocketExecutor

  beforeAll(async () => {
    redis = await RestartableRedis.start()
    executor = new SocketExecutor({ url: redis.url, commandTimeout: 5000, reconnectDelay: 10, maxReconnectDelay: 200 })
  })
  afterAll(async () => {
    await executor?.close()
    await redis?.stop()
  })

  test('in-flight commands reject with BackendUnavailableError, none hangs or is misdelivered, and service resumes', async () => {
    // Warm up: the whole pool is open.
    await Promise.all(Array.from({ length: 2000 }, (_, i) => echo(executor, `warm-${i}`)))

    // Pause the server (it keeps connections but answers nothing), put 20 000 commands and 50
    // transactions in flight, then kill it: every one of them is in flight at that moment.
    expect(await executor.exec(['CLIENT', 'PAUSE', '20000', 'ALL'])).toBe(OK)
    const started = Date.now()
    const inFlight = Array.from({ length: 20_000 }, (_, i) => echo(executor, `load-${i}`))
    const transactions = Array.from({ length: 50 }, () =>
      executor.transaction([['INCR', 'tx'], ['INCR', 'tx']]).then(
        (replies) => ({ replies, error: undefined as unknown }),
        (error: unknown) => ({ replies: undefined, error }),
      ),
    )
    await redis.kill()
    const outcomes = await Promise.all(inFlight)
    const settledIn = Date.now() - started
    const { ok, failed } = checkOutcomes(outcomes)
    expect(failed).toBe(20_000) // the kill hit every one of them in flight
    expect(ok).toBe(0)
    expect(settledIn).toBeLessThan(5000) // rejected by the closed sockets, not by the timeout
    for (const outcome of await Promise.all(transactions)) expect(outcome.error).toBeInstanceOf(BackendUnavailableError)

    // While the server is down, calls fail fast instead of hanging.
    const down = Date.now()
    const whileDown = await Promise.all(Array.from({ length: 100 }, (_, i) => echo(executor, `down-${i}`)))
    expect(whileDown.every((outcome) => outcome.error instanceof BackendUnavailableError)).toBe(true)
    expect(Date.now() - down).toBeLessThan(1000)
    await expect(executor.pipeline([['PING']])).rejects.toBeInstanceOf(BackendUnavailableError)
    await expect(executor.transaction([['PING']])).rejects.toBeInstanceOf(BackendUnavailableError)

    // Back on the same port: the executor reconnects by itself and serves correctly again.
    await redis.startAgain()
    await waitFor(async () => (await executor.exec(['PING']).catch(() => null)) === PONG, 'the executor to reconnect')
    const after = await Promise.all(Array.from({ length: 10_000 }, (_, i) => echo(executor, `after-${i}`)))
    expect(checkOutcomes(after)).toEqual({ ok: 10_000, failed: 0 })
    expect(await executor.transaction([['SET', 'k', 'v'], ['GET', 'k']])).toEqual([OK, Buffer.from('v')])
  })

  test('continuous load through a kill and a restart: every reply is the right one', async () => {
    let running = true
    const outcomes: Outcome[] = []
    let n = 0
    const worker = async (): Promise<void> => {
      while (running) {
        const batch = await Promise.all(Array.from({ length: 200 }, () => echo(executor, `c-${n++}`)))
        outcomes.push(...batch)
        // Fail-fast rejections come back at once: yield to timers so the test itself can go on.
        if (batch.some((outcome) => outcome.error !== undefined)) await new Promise((resolve) => setImmediate(resolve))
      }
    }
    const workers = [worker(), worker(), worker()]
    await waitFor(() => outcomes.length > 5000, 'load before the kill')
    await redis.kill()
    await waitFor(() => outcomes.some((outcome) => outcome.error !== undefined), 'failures while down')
    await redis.startAgain()
    const mark = outcomes.length
    await waitFor(() => outcomes.slice(mark).filter((outcome) => outcome.error === undefined).length > 5000, 'load after the restart')
    running = false
    await Promise.all(workers)
    const { ok, failed } = checkOutcomes(outcomes)
    expect(ok).toBeGreaterThan(10_000)
    expect(failed).toBeGreaterThan(0)
  })
})

describe('socket executor against misbehaving servers', () => {
  test('a server that accepts and never answers: commands reject after commandTimeout, the connection is destroyed', async () => {
    const used = new Set<import('node:net').Socket>()
    const silent = await stubServer((socket) => socket.on('data', () => used.add(socket)))
    const executor = new SocketExecutor({ port: silent.port, commandTimeout: 200 })
    try {
      const started = Date.now()
      const results = await Promise.allSettled([executor.exec(['GET', 'a']), executor.pipeline([['GET', 'b'], ['GET', 'c']]), executor.exec(['GET', 'd'])])
      const elapsed = Date.now() - started
      for (const result of results) {
        expect(result.status).toBe('rejected')
        expect((result as PromiseRejectedResult).reason).toBeInstanceOf(BackendUnavailableError)
        expect(String((result as PromiseRejectedResult).reason.message)).toMatch(/timed out after 200 ms/)
      }
      expect(elapsed).toBeGreaterThanOrEqual(190)
      expect(elapsed).toBeLessThan(3000)
      // The stuck connection is not reused: the server sees it closed.
      expect(used.size).toBeGreaterThan(0)
      await waitFor(() => [...used].every((socket) => !silent.sockets.has(socket)), 'the timed-out connection to close')
    } finally {
      await executor.close()
      await silent.close()
    }
  })

  test('a late reply after a timeout is never delivered to a later caller', async () => {
    // Answers each GET with its key, but the first one 300 ms late.
    let first = true
    const slow = await stubServer((socket) => {
      socket.on('data', (chunk: Buffer) => {
        const keys = [...chunk.toString('latin1').matchAll(/\$3\r\nGET\r\n\$\d+\r\n([^\r]*)\r\n/g)].map((m) => m[1])
        const reply = keys.map((key) => `$${key.length}\r\n${key}\r\n`).join('')
        if (first) {
          first = false
          setTimeout(() => socket.write(reply), 300).unref()
        } else socket.write(reply)
      })
    })
    const executor = new SocketExecutor({ port: slow.port, commandTimeout: 100 })
    try {
      await expect(executor.exec(['GET', 'early'])).rejects.toThrow(/timed out/)
      // A new connection: its reply is its own, not the late one for 'early'.
      expect(text(await executor.exec(['GET', 'later']))).toBe('later')
    } finally {
      await executor.close()
      await slow.close()
    }
  })

  test('garbage from the server rejects every pending command and destroys the connection', async () => {
    const garbage = await stubServer((socket) => socket.on('data', () => socket.write('?what\r\n')))
    const executor = new SocketExecutor({ port: garbage.port })
    try {
      const results = await Promise.allSettled([executor.exec(['PING']), executor.exec(['PING'])])
      for (const result of results) {
        expect((result as PromiseRejectedResult).reason).toBeInstanceOf(BackendUnavailableError)
        expect(String((result as PromiseRejectedResult).reason.message)).toMatch(/invalid reply .*Protocol error: invalid reply type byte '\?'/)
      }
      await waitFor(() => garbage.sockets.size === 0, 'the connection to close')
    } finally {
      await executor.close()
      await garbage.close()
    }
  })

  test('maxPending caps the commands queued on a connection', async () => {
    const silent = await stubServer(() => {})
    const executor = new SocketExecutor({ port: silent.port, poolSize: 1, maxPending: 10, commandTimeout: 500 })
    try {
      const calls = Array.from({ length: 11 }, () => executor.exec(['PING']).catch((error: Error) => error))
      const results = await Promise.all(calls)
      expect(String((results[10] as Error).message)).toMatch(/too many commands pending on one connection \(maxPending 10\)/)
      expect(results.slice(0, 10).every((result) => result instanceof BackendUnavailableError && /timed out/.test(result.message))).toBe(true)
    } finally {
      await executor.close()
      await silent.close()
    }
  })

  test('a refused connection fails fast, and the backoff keeps it from being retried on every call', async () => {
    const closed = await stubServer(() => {})
    const port = closed.port
    await closed.close()
    const executor = new SocketExecutor({ port, reconnectDelay: 10_000, maxReconnectDelay: 10_000 })
    try {
      const first = await executor.exec(['PING']).catch((error: Error) => error)
      expect(first).toBeInstanceOf(BackendUnavailableError)
      expect((first as Error).message).toMatch(/cannot connect to 127\.0\.0\.1:\d+: connect ECONNREFUSED/)
      const second = await executor.exec(['PING']).catch((error: Error) => error)
      expect((second as Error).message).toMatch(/next attempt in \d+ ms/)
    } finally {
      await executor.close()
    }
  })

  test('connectTimeout: a TLS handshake that never completes', async () => {
    const silent = await stubServer(() => {})
    const executor = new SocketExecutor({ port: silent.port, tls: true, connectTimeout: 150 })
    try {
      const started = Date.now()
      const failure = await executor.exec(['PING']).catch((error: Error) => error)
      expect(failure).toBeInstanceOf(BackendUnavailableError)
      expect((failure as Error).message).toMatch(/connect to 127\.0\.0\.1:\d+ timed out after 150 ms/)
      expect(Date.now() - started).toBeLessThan(2000)
    } finally {
      await executor.close()
      await silent.close()
    }
  })
})

describe.skipIf(redisServerSkipReason !== undefined)(liveSuiteName('socket executor: oversized replies'), () => {
  let server: RedisServer
  let executor: SocketExecutor

  beforeAll(async () => {
    server = await startRedisServer()
    executor = new SocketExecutor({ url: server.url, maxReplyBytes: 1024 * 1024 })
    await executor.exec(['SET', 'big', Buffer.alloc(2 * 1024 * 1024, 'x')])
    await executor.exec(['SET', 'small', 'fine'])
    await executor.exec(['RPUSH', 'list', ...Array.from({ length: 600 }, () => Buffer.alloc(2048, 'y'))])
  })
  afterAll(async () => {
    await executor?.close()
    await server?.stop()
  })

  test('a bulk reply larger than maxReplyBytes is refused with a clear error; the executor keeps serving', async () => {
    const failure = await executor.exec(['GET', 'big']).catch((error: Error) => error)
    expect(failure).toBeInstanceOf(ReplyTooLargeError)
    expect(failure).toBeInstanceOf(BackendUnavailableError)
    expect((failure as Error).message).toBe('reply larger than maxReplyBytes (1048576 bytes); the connection was closed')
    expect(text(await executor.exec(['GET', 'small']))).toBe('fine')
  })

  test('an array reply whose elements add up beyond the limit is refused too', async () => {
    await expect(executor.exec(['LRANGE', 'list', '0', '-1'])).rejects.toBeInstanceOf(ReplyTooLargeError)
    expect(((await executor.exec(['LRANGE', 'list', '0', '99'])) as Reply[]).length).toBe(100)
  })

  test('many small replies in one chunk are not mistaken for one large reply', async () => {
    const replies = await executor.pipeline(Array.from({ length: 2000 }, () => ['LRANGE', 'list', '0', '0']))
    expect(replies.length).toBe(2000)
  })
})
