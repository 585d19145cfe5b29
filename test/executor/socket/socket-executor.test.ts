import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { OK, ReplyError, Status, type Reply } from '../../../src/reply.js'
import { BackendUnavailableError } from '../../../src/executor/executor.js'
import { SocketExecutor } from '../../../src/executor/socket/socket-executor.js'
import { HandshakeError } from '../../../src/executor/socket/connection.js'
import { liveSuiteName, redisServerSkipReason, startRedisServer, type RedisServer } from '../../support/redis-server.js'
import { show, waitFor } from './support.js'

const text = (reply: Reply): string => Buffer.from(reply as Uint8Array).toString('utf8')

/** `CLIENT LIST` rows as maps of their fields. */
async function clients(executor: SocketExecutor): Promise<Map<string, string>[]> {
  const list = text(await executor.exec(['CLIENT', 'LIST']))
  return list
    .trim()
    .split('\n')
    .map((line) => new Map(line.split(' ').map((field) => field.split('=', 2) as [string, string])))
}

describe.skipIf(redisServerSkipReason !== undefined)(liveSuiteName('socket executor against redis-server'), () => {
  let server: RedisServer
  let executor: SocketExecutor

  beforeAll(async () => {
    server = await startRedisServer()
    // Set after start: the helper's readiness probe is an unauthenticated PING.
    const setup = new SocketExecutor({ url: server.url })
    await setup.exec(['CONFIG', 'SET', 'requirepass', 'secret'])
    await setup.close()
    executor = new SocketExecutor({ url: `redis://:secret@127.0.0.1:${server.port}` })
  })
  afterAll(async () => {
    await executor?.close()
    await server?.stop()
  })
  beforeEach(async () => {
    await executor.exec(['FLUSHALL'])
  })

  describe('connection handshake', () => {
    test('AUTH, SELECT and CLIENT SETNAME run on connect, from the URL', async () => {
      const other = new SocketExecutor({ url: `redis://:secret@127.0.0.1:${server.port}/3?clientName=restis-test` })
      try {
        expect(show(await other.exec(['SET', 'k', 'in-db-3']))).toBe('+OK')
        const info = text(await other.exec(['CLIENT', 'INFO']))
        expect(info).toContain('name=restis-test')
        expect(info).toContain('db=3')
        expect(await executor.exec(['GET', 'k'])).toBeNull()
        expect(show(await executor.exec(['GET', 'k'], { db: 3 }))).toBe('in-db-3')
      } finally {
        await other.close()
      }
    })

    test('a wrong configured password rejects with the server WRONGPASS as a BackendUnavailableError', async () => {
      const wrong = new SocketExecutor({ port: server.port, password: 'nope' })
      try {
        const failure = await wrong.exec(['PING']).then(
          () => undefined,
          (error: unknown) => error,
        )
        expect(failure).toBeInstanceOf(HandshakeError)
        expect(failure).toBeInstanceOf(BackendUnavailableError)
        expect((failure as Error).message).toBe('WRONGPASS invalid username-password pair or user is disabled.')
      } finally {
        await wrong.close()
      }
    })

    test('no password against requirepass: commands answer NOAUTH as errors', async () => {
      const anonymous = new SocketExecutor({ port: server.port })
      try {
        expect(show(await anonymous.exec(['GET', 'k']))).toBe('-NOAUTH Authentication required.')
      } finally {
        await anonymous.close()
      }
    })
  })

  describe('pipelining', () => {
    test('10 000 concurrent commands each get their own reply, in few writes', async () => {
      const before = executor.stats.writes
      const replies = await Promise.all(Array.from({ length: 10_000 }, (_, i) => executor.exec(['ECHO', `value-${i}`])))
      replies.forEach((reply, i) => expect(text(reply)).toBe(`value-${i}`))
      // Same-tick calls are coalesced: far fewer writes than commands.
      expect(executor.stats.writes - before).toBeLessThan(50)
    })

    test('concurrent INCRs are all applied and each sees a distinct value', async () => {
      const replies = await Promise.all(Array.from({ length: 5000 }, () => executor.exec(['INCR', 'counter'])))
      expect(new Set(replies).size).toBe(5000)
      expect(text(await executor.exec(['GET', 'counter']))).toBe('5000')
    })

    test('a pipeline returns one reply per command, errors in their slots', async () => {
      const replies = await executor.pipeline([['SET', 'a', 'x'], ['INCR', 'a'], ['GET', 'a'], ['LPUSH', 'a', '1']])
      expect(replies.map(show)).toEqual([
        '+OK',
        '-ERR value is not an integer or out of range',
        'x',
        '-WRONGTYPE Operation against a key holding the wrong kind of value',
      ])
    })

    test('pipelines issued concurrently keep their own order and replies', async () => {
      const pipelines = Array.from({ length: 200 }, (_, p) =>
        executor.pipeline(Array.from({ length: 20 }, (_, i) => ['ECHO', `${p}:${i}`])),
      )
      const results = await Promise.all(pipelines)
      results.forEach((replies, p) => expect(replies.map(text)).toEqual(Array.from({ length: 20 }, (_, i) => `${p}:${i}`)))
    })

    test('large values (50 MB in flight) go through the write backpressure path intact', async () => {
      const value = Buffer.alloc(256 * 1024, 'v')
      const sets = await Promise.all(Array.from({ length: 200 }, (_, i) => executor.exec(['SET', `big:${i}`, value])))
      expect(sets.every((reply) => reply === OK)).toBe(true)
      const lengths = await Promise.all(Array.from({ length: 200 }, (_, i) => executor.exec(['STRLEN', `big:${i}`])))
      expect(lengths.every((n) => n === value.length)).toBe(true)
    })

    test('binary keys and values round-trip byte for byte', async () => {
      const key = Buffer.from([0, 255, 13, 10, 42])
      const value = Buffer.from(Array.from({ length: 256 }, (_, i) => i))
      expect(await executor.exec(['SET', key, value])).toBe(OK)
      expect(Buffer.compare(Buffer.from((await executor.exec(['GET', key])) as Uint8Array), value)).toBe(0)
    })
  })

  describe('transactions', () => {
    test('MULTI/EXEC returns the replies; runtime errors stay in their slot', async () => {
      const replies = await executor.transaction([['SET', 'a', 'x'], ['INCR', 'a'], ['GET', 'a']])
      expect((replies as Reply[]).map(show)).toEqual(['+OK', '-ERR value is not an integer or out of range', 'x'])
    })

    test('a queue-time error makes EXEC answer EXECABORT and nothing runs', async () => {
      const reply = await executor.transaction([['SET', 'a', 'x'], ['GET']])
      expect(reply).toBeInstanceOf(ReplyError)
      expect((reply as ReplyError).message).toBe('EXECABORT Transaction discarded because of previous errors.')
      expect(await executor.exec(['EXISTS', 'a'])).toBe(0)
    })

    test('an empty transaction returns an empty array', async () => {
      expect(await executor.transaction([])).toEqual([])
    })

    test('a transaction never interleaves with other commands on its connection', async () => {
      const seen: string[] = []
      const abort = new AbortController()
      const monitoring = executor.monitor((event) => seen.push(event.line), abort.signal)
      await waitFor(async () => {
        await executor.exec(['PING'])
        return seen.some((line) => line.includes('"PING"'))
      }, 'MONITOR to start')
      const work: Promise<unknown>[] = []
      for (let i = 0; i < 100; i++) {
        work.push(executor.exec(['INCR', 'plain']))
        work.push(
          executor.transaction([['INCR', 'tx'], ['INCR', 'tx'], ['GET', 'tx']]).then((replies) => {
            const [a, b, c] = replies as Reply[]
            // Atomic: the two increments are consecutive and GET sees the second.
            expect(b).toBe((a as number) + 1)
            expect(text(c)).toBe(String(b))
          }),
        )
      }
      await Promise.all(work)
      await executor.exec(['ECHO', 'end-of-test'])
      await waitFor(() => seen.some((line) => line.includes('"end-of-test"')), 'the last MONITOR line')
      abort.abort()
      await monitoring
      // Per client address, everything between MULTI and EXEC is the transaction's own commands.
      const open = new Map<string, boolean>()
      let transactions = 0
      for (const line of seen) {
        const address = /\[\d+ ([^\]]+)\]/.exec(line)?.[1] ?? ''
        const command = line.slice(line.indexOf(']') + 2)
        if (command === '"multi"' || command === '"MULTI"') {
          open.set(address, true)
          transactions++
        } else if (command === '"exec"' || command === '"EXEC"') open.set(address, false)
        else if (open.get(address)) expect(command).toMatch(/^"(INCR|GET)" "tx"$/)
      }
      expect(transactions).toBe(100)
    })

    test('transactions run on connections of their own, not the shared ones', async () => {
      await Promise.all([executor.exec(['PING']), executor.transaction([['PING']])])
      const rows = await clients(executor)
      const multis = rows.filter((row) => row.get('cmd') === 'exec')
      expect(multis.length).toBeGreaterThanOrEqual(1)
      expect(multis.every((row) => row.get('multi') === '-1')).toBe(true)
    })
  })

  describe('commands that would change a shared connection', () => {
    test('MULTI, SUBSCRIBE, MONITOR, HELLO, CLIENT SETNAME are refused, others on the same pipeline still run', async () => {
      const replies = await executor.pipeline([['MULTI'], ['SUBSCRIBE', 'x'], ['MONITOR'], ['HELLO', '3'], ['CLIENT', 'SETNAME', 'x'], ['PING']])
      expect(replies.map(show)).toEqual([
        "-ERR Command is not available: 'multi'",
        "-ERR Command is not available: 'subscribe'",
        "-ERR Command is not available: 'monitor'",
        "-ERR Command is not available: 'hello'",
        "-ERR Command is not available: 'client|setname'",
        '+PONG',
      ])
    })

    test('SELECT affects only the rest of its own pipeline', async () => {
      const replies = await executor.pipeline([['SELECT', '5'], ['SET', 'k', 'five'], ['SELECT', '99']])
      expect(replies.map(show)).toEqual(['+OK', '+OK', '-ERR DB index is out of range'])
      expect(await executor.exec(['GET', 'k'])).toBeNull()
      expect(show(await executor.exec(['GET', 'k'], { db: 5 }))).toBe('five')
      expect(show(await executor.exec(['SELECT', '5']))).toBe('+OK')
      expect(await executor.exec(['GET', 'k'])).toBeNull()
    })

    test('AUTH checks credentials without changing the shared connection', async () => {
      expect(show(await executor.exec(['AUTH', 'secret']))).toBe('+OK')
      expect(show(await executor.exec(['AUTH', 'wrong']))).toBe('-WRONGPASS invalid username-password pair or user is disabled.')
      expect(show(await executor.exec(['PING']))).toBe('+PONG')
    })
  })

  describe('CallContext: databases and ACL users', () => {
    beforeAll(async () => {
      await executor.exec(['ACL', 'SETUSER', 'alice', 'on', '>alice-pw', '~*', '&*', '+@all'])
      await executor.exec(['ACL', 'SETUSER', 'reader', 'on', '>reader-pw', '~*', '+@read', '+ping'])
    })

    test('commands run on connections SELECTed to the context database', async () => {
      await executor.exec(['SET', 'k', 'db1'], { db: 1 })
      await executor.exec(['SET', 'k', 'db2'], { db: 2 })
      expect(show(await executor.pipeline([['GET', 'k']], { db: 1 }))).toEqual(['db1'])
      expect(show(await executor.transaction([['GET', 'k']], { db: 2 }))).toEqual(['db2'])
      expect(await executor.exec(['GET', 'k'])).toBeNull()
      expect(show(await executor.exec(['GET', 'k'], { db: 16 }))).toBe('-ERR DB index is out of range')
    })

    test('commands run authenticated as the context user', async () => {
      expect(show(await executor.exec(['ACL', 'WHOAMI'], { user: 'alice', password: 'alice-pw' }))).toBe('alice')
      expect(show(await executor.exec(['ACL', 'WHOAMI']))).toBe('default')
      expect(show(await executor.exec(['SET', 'k', 'v'], { user: 'reader', password: 'reader-pw' }))).toMatch(/^-NOPERM/)
      expect(show(await executor.exec(['GET', 'k'], { user: 'alice', password: 'alice-pw', db: 4 }))).toBeNull()
      // The handshake's SELECT runs as the user too: without +select, another database is refused.
      expect(show(await executor.exec(['GET', 'k'], { user: 'reader', password: 'reader-pw', db: 4 }))).toMatch(/^-NOPERM .*'select'/)
    })

    test('a wrong password answers the server WRONGPASS as a reply, on every path', async () => {
      const wrongpass = '-WRONGPASS invalid username-password pair or user is disabled.'
      const context = { user: 'alice', password: 'bad' }
      expect(show(await executor.exec(['PING'], context))).toBe(wrongpass)
      expect(show(await executor.pipeline([['PING'], ['PING']], context))).toEqual([wrongpass, wrongpass])
      expect(show(await executor.transaction([['PING']], context))).toBe(wrongpass)
      // The right password afterwards works: the failed pool was not kept.
      expect(show(await executor.exec(['PING'], { user: 'alice', password: 'alice-pw' }))).toBe('+PONG')
    })

    test('per-user connections are pooled, not opened per call', async () => {
      const context = { user: 'alice', password: 'alice-pw' }
      await Promise.all(Array.from({ length: 500 }, () => executor.exec(['PING'], context)))
      const alice = (await clients(executor)).filter((row) => row.get('user') === 'alice')
      expect(alice.length).toBeGreaterThanOrEqual(1)
      expect(alice.length).toBeLessThanOrEqual(4)
    })
  })

  test('the blocking BLPOP runs on its own connection and does not hold up other commands', async () => {
    const blocked = executor.exec(['BLPOP', 'queue', '5'])
    // Plain commands keep flowing while BLPOP waits.
    expect(show(await executor.exec(['PING']))).toBe('+PONG')
    await executor.exec(['RPUSH', 'queue', 'job'])
    expect(show(await blocked)).toEqual(['queue', 'job'])
  })

  test('stats count connections, pools and writes', async () => {
    await executor.exec(['PING'], { db: 7 })
    const stats = executor.stats
    expect(stats.connections).toBeGreaterThanOrEqual(2)
    expect(stats.pools).toBeGreaterThanOrEqual(2)
    expect(stats.writes).toBeGreaterThan(0)
  })

  test('with several pooled connections open, the commands of one turn still go out in one write', async () => {
    const pooled = new SocketExecutor({ url: `redis://:secret@127.0.0.1:${server.port}`, poolSize: 4 })
    try {
      await pooled.exec(['PING'])
      // Held by CLIENT PAUSE, the first connection's reply stays outstanding, so the next turn's
      // command makes the pool open a second connection.
      await executor.exec(['CLIENT', 'PAUSE', '300', 'ALL'])
      const held = pooled.exec(['PING'])
      await new Promise((resolve) => setImmediate(resolve))
      const second = pooled.exec(['PING'])
      await Promise.all([held, second])
      await waitFor(() => pooled.stats.connections >= 2, 'a second pooled connection')

      const writes = pooled.stats.writes
      const echoes = await Promise.all(Array.from({ length: 50 }, (_, i) => pooled.exec(['ECHO', `m${i}`])))
      expect(echoes.map(text)).toEqual(Array.from({ length: 50 }, (_, i) => `m${i}`))
      expect(pooled.stats.writes).toBe(writes + 1)
    } finally {
      await pooled.close()
    }
  })

  test('after close, calls reject with BackendUnavailableError', async () => {
    const closing = new SocketExecutor({ url: `redis://:secret@127.0.0.1:${server.port}` })
    expect(await closing.exec(['PING'])).toEqual(new Status('PONG'))
    await closing.close()
    await expect(closing.exec(['PING'])).rejects.toBeInstanceOf(BackendUnavailableError)
  })
})
