import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { spawn, spawnSync } from 'node:child_process'
import { ReplyError, ReplyMap, type Command, type Reply } from '../../src/reply.js'
import type { CallContext, Executor } from '../../src/executor/executor.js'
import { MemoryExecutor } from '../../src/executor/memory/memory-executor.js'
import { SocketExecutor } from '../../src/executor/socket/socket-executor.js'
import { serveResp, type RespServer } from '../../src/adapters/resp-server.js'
import { liveSuiteName, redisServerSkipReason, startRedisServer, type RedisServer } from '../support/redis-server.js'
import { multibulk, RawClient, show, stubServer, waitFor } from '../executor/socket/support.js'

function toolMissing(tool: string): string | undefined {
  const probe = spawnSync(tool, ['--version'], { stdio: 'ignore' })
  if (!probe.error && probe.status === 0) return undefined
  return process.env.CI === 'true' ? undefined : `${tool} not found on PATH`
}

/** Runs a command-line tool without blocking the event loop (the listener lives in this process). */
function run(tool: string, args: readonly string[], timeoutMs = 60_000): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(tool, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.once('error', reject)
    child.once('close', (code) => {
      clearTimeout(timer)
      resolve({ code, output })
    })
  })
}

const cliMissing = toolMissing('redis-cli')
const benchmarkMissing = toolMissing('redis-benchmark')

describe('RESP listener over the memory executor', () => {
  let memory: MemoryExecutor
  let server: RespServer
  let port: number
  const clients: RawClient[] = []

  const connect = async (to = port): Promise<RawClient> => {
    const client = await RawClient.connect(to)
    clients.push(client)
    return client
  }

  beforeAll(async () => {
    memory = new MemoryExecutor()
    server = await serveResp(memory, { port: 0 })
    port = server.address.port
  })
  afterAll(async () => {
    for (const client of clients) client.destroy()
    await server?.close()
    await memory?.close()
  })
  beforeEach(async () => {
    await memory.exec(['FLUSHALL'])
  })

  test.skipIf(cliMissing !== undefined)(`redis-cli ping answers PONG${cliMissing ? ` (skipped: ${cliMissing})` : ''}`, async () => {
    expect(await run('redis-cli', ['-p', String(port), 'ping'])).toEqual({ code: 0, output: 'PONG\n' })
    expect((await run('redis-cli', ['-p', String(port), 'set', 'cli', 'hello'])).output).toBe('OK\n')
    expect((await run('redis-cli', ['-p', String(port), 'get', 'cli'])).output).toBe('hello\n')
    expect((await run('redis-cli', ['-p', String(port), '-n', '2', 'get', 'cli'])).output).toBe('\n')
  })

  test('address reports the real port, clients counts connections', async () => {
    expect(server.address.address).toBe('127.0.0.1')
    expect(server.address.port).toBeGreaterThan(0)
    const before = server.clients
    const client = await connect()
    await client.call('PING')
    expect(server.clients).toBe(before + 1)
  })

  test('SELECT gives each connection its own database', async () => {
    const a = await connect()
    const b = await connect()
    expect(show(await a.call('SELECT', '1'))).toBe('+OK')
    expect(show(await a.call('SET', 'k', 'one'))).toBe('+OK')
    expect(await b.call('GET', 'k')).toBeNull()
    expect(show(await memory.exec(['GET', 'k'], { db: 1 }))).toBe('one')
    expect(show(await a.call('SELECT', '16'))).toBe('-ERR DB index is out of range')
    expect(show(await a.call('SELECT', 'x'))).toBe('-ERR value is not an integer or out of range')
    expect(show(await a.call('GET', 'k'))).toBe('one')
  })

  test('MULTI/EXEC runs the queue atomically; DISCARD drops it', async () => {
    const client = await connect()
    client.write('MULTI\r\nSET a 1\r\nINCR a\r\nGET a\r\nEXEC\r\n')
    expect((await client.read(5)).map(show)).toEqual(['+OK', '+QUEUED', '+QUEUED', '+QUEUED', [`+OK`, 2, '2']])
    client.write('MULTI\r\nSET a 100\r\nDISCARD\r\nGET a\r\n')
    expect((await client.read(4)).map(show)).toEqual(['+OK', '+QUEUED', '+OK', '2'])
  })

  test('queue-time errors are answered at once and EXEC then answers EXECABORT, as Redis does', async () => {
    const client = await connect()
    client.write('MULTI\r\nMULTI\r\nSET a 1\r\nGET\r\nNOSUCH x\r\nWATCH a\r\nEXEC\r\nGET a\r\n')
    expect((await client.read(8)).map(show)).toEqual([
      '+OK',
      '-ERR MULTI calls can not be nested',
      '+QUEUED',
      "-ERR wrong number of arguments for 'get' command",
      "-ERR unknown command 'NOSUCH', with args beginning with: 'x' ",
      '-ERR WATCH inside MULTI is not allowed',
      '-EXECABORT Transaction discarded because of previous errors.',
      null,
    ])
    client.write('EXEC\r\nDISCARD\r\n')
    expect((await client.read(2)).map(show)).toEqual(['-ERR EXEC without MULTI', '-ERR DISCARD without MULTI'])
  })

  test('SELECT inside MULTI stays in effect after EXEC', async () => {
    const client = await connect()
    client.write('MULTI\r\nSELECT 3\r\nSET k three\r\nEXEC\r\nGET k\r\n')
    expect((await client.read(5)).map(show)).toEqual(['+OK', '+QUEUED', '+QUEUED', ['+OK', '+OK'], 'three'])
    expect(show(await memory.exec(['GET', 'k'], { db: 3 }))).toBe('three')
  })

  test('inline commands, with quoting, as typed into telnet', async () => {
    const client = await connect()
    client.write('SET greeting "hello world"\r\nGET greeting\nECHO \'it\'\'s\'\r\n')
    const replies = await client.read(2)
    expect(replies.map(show)).toEqual(['+OK', 'hello world'])
    // `'it''s'` is unbalanced for sdssplitargs: a protocol error, then the connection closes.
    expect(show(await client.one())).toBe('-ERR Protocol error: unbalanced quotes in request')
    await client.closed
  })

  test('pipelined input: many commands in one write, replies in order', async () => {
    const client = await connect()
    client.write(Buffer.concat(Array.from({ length: 1000 }, (_, i) => multibulk(['ECHO', `m${i}`]))))
    const replies = await client.read(1000)
    expect(replies.map(show)).toEqual(Array.from({ length: 1000 }, (_, i) => `m${i}`))
  })

  test('HELLO 2 answers the server map; HELLO 3 switches to RESP3; other versions are refused with NOPROTO', async () => {
    const client = await connect()
    const hello = show(await client.call('HELLO', '2', 'SETNAME', 'via-hello')) as unknown[]
    expect(hello.slice(0, 2)).toEqual(['server', 'redis'])
    expect(hello.slice(4, 6)).toEqual(['proto', 2])
    expect(hello.slice(8)).toEqual(['mode', 'standalone', 'role', 'master', 'modules', []])
    expect(show(await client.call('CLIENT', 'GETNAME'))).toBe('via-hello')
    expect(show(await client.call('HELLO', '4'))).toBe('-NOPROTO unsupported protocol version')
    const resp3 = await client.call('HELLO', '3')
    expect(resp3).toBeInstanceOf(ReplyMap)
    expect((resp3 as ReplyMap).entries.slice(4, 6).map(show)).toEqual(['proto', 3])
    expect(await client.call('GET', 'missing')).toBeNull()
    expect(show(await client.call('HELLO', '2'))).toContain(2)
    expect(show(await client.call('HELLO', 'x'))).toBe('-ERR Protocol version is not an integer or out of range')
    expect(show(await client.call('HELLO', '2', 'FOO'))).toBe("-ERR Syntax error in HELLO option 'FOO'")
    expect(show(await client.call('PING'))).toBe('+PONG')
  })

  test('CLIENT SETNAME, GETNAME and ID', async () => {
    const a = await connect()
    const b = await connect()
    expect(await a.call('CLIENT', 'GETNAME')).toBeNull()
    expect(show(await a.call('CLIENT', 'SETNAME', 'worker-1'))).toBe('+OK')
    expect(show(await a.call('CLIENT', 'GETNAME'))).toBe('worker-1')
    expect(show(await a.call('CLIENT', 'SETNAME', 'has space'))).toBe('-ERR Client names cannot contain spaces, newlines or special characters.')
    const idA = await a.call('CLIENT', 'ID')
    const idB = await b.call('CLIENT', 'ID')
    expect(typeof idA).toBe('number')
    expect(idB).not.toBe(idA)
  })

  test('QUIT answers OK and closes the connection', async () => {
    const client = await connect()
    client.write('QUIT\r\nPING\r\n')
    expect(show(await client.one())).toBe('+OK')
    await client.closed
  })

  test('AUTH without a password configured is an error; AUTH default <anything> is accepted', async () => {
    const client = await connect()
    expect(show(await client.call('AUTH', 'x'))).toBe(
      '-ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?',
    )
    expect(show(await client.call('AUTH', 'default', 'x'))).toBe('+OK')
    expect(show(await client.call('AUTH', 'a', 'b', 'c'))).toBe('-ERR syntax error')
  })

  describe('bad input: an error and a clean close, and everyone else is still served', () => {
    test.each([
      ['an invalid multibulk length', '*abc\r\n', '-ERR Protocol error: invalid multibulk length'],
      ['a bulk header that is not one', '*1\r\nxx\r\n', "-ERR Protocol error: expected '$', got 'x'"],
      ['a 1 GB bulk length', '*2\r\n$3\r\nSET\r\n$1000000000\r\n', '-ERR Protocol error: invalid bulk length'],
      ['binary garbage after a valid command', Buffer.concat([Buffer.from('PING\r\n*1\r\n'), Buffer.from([0xff, 0, 0xfe, 13, 10])]), "-ERR Protocol error: expected '$', got '\\xff'"],
    ])('%s', async (_what, input, error) => {
      const bystander = await connect()
      const bad = await connect()
      bad.write(input)
      const replies = await bad.read(typeof input === 'string' ? 1 : 2)
      expect(show(replies[replies.length - 1])).toBe(error)
      await bad.closed
      expect(show(await bystander.call('PING'))).toBe('+PONG')
    })

    test('half a frame, then the client goes away', async () => {
      const bystander = await connect()
      const before = server.clients
      const half = await connect()
      half.write('*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$10\r\nabc')
      await waitFor(() => server.clients === before + 1, 'the connection to register')
      half.destroy()
      await waitFor(() => server.clients === before, 'the listener to drop the connection')
      expect(show(await bystander.call('PING'))).toBe('+PONG')
      expect(await bystander.call('GET', 'k')).toBeNull()
    })

    test('100 000 pipelined commands the listener answers itself are all answered too', async () => {
      const big = await connect()
      big.write(Buffer.concat(Array.from({ length: 100_000 }, (_, i) => multibulk(['SELECT', String(i % 16)]))))
      const replies = await big.read(100_000, 30_000)
      expect(replies.every((reply) => show(reply) === '+OK')).toBe(true)
    })

    test('100 000 pipelined commands in one write are all answered, in order, while others are served', async () => {
      const big = await connect()
      const bystander = await connect()
      big.write(Buffer.concat(Array.from({ length: 100_000 }, () => multibulk(['INCR', 'counter']))))
      expect(show(await bystander.call('PING'))).toBe('+PONG')
      const replies = await big.read(100_000, 30_000)
      expect(replies[0]).toBe(1)
      expect(replies[99_999]).toBe(100_000)
      expect(replies.every((reply, i) => reply === i + 1)).toBe(true)
      expect(show(await bystander.call('GET', 'counter'))).toBe('100000')
    })
  })

  describe('subscribe mode', () => {
    test('SUBSCRIBE confirms with counts; only pub/sub commands are allowed; messages arrive; UNSUBSCRIBE leaves the mode', async () => {
      const subscriber = await connect()
      const publisher = await connect()
      subscriber.write('SUBSCRIBE ch1 ch2\r\n')
      expect((await subscriber.read(2)).map(show)).toEqual([
        ['subscribe', 'ch1', 1],
        ['subscribe', 'ch2', 2],
      ])
      expect(show(await subscriber.call('GET', 'x'))).toBe(
        "-ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context",
      )
      expect(show(await subscriber.call('PING'))).toEqual(['pong', ''])
      expect(show(await subscriber.call('PING', 'hi'))).toEqual(['pong', 'hi'])
      expect(await publisher.call('PUBLISH', 'ch1', 'hello')).toBe(1)
      expect(show(await subscriber.one())).toEqual(['message', 'ch1', 'hello'])
      expect(show(await subscriber.call('PSUBSCRIBE', 'ch*'))).toEqual(['psubscribe', 'ch*', 3])
      expect(await publisher.call('PUBLISH', 'ch2', 'both')).toBe(2)
      expect((await subscriber.read(2)).map(show).sort()).toEqual([
        ['message', 'ch2', 'both'],
        ['pmessage', 'ch*', 'ch2', 'both'],
      ].sort())
      subscriber.write('UNSUBSCRIBE\r\n')
      expect((await subscriber.read(2)).map(show)).toEqual([
        ['unsubscribe', 'ch1', 2],
        ['unsubscribe', 'ch2', 1],
      ])
      expect(show(await subscriber.call('PUNSUBSCRIBE'))).toEqual(['punsubscribe', 'ch*', 0])
      expect(show(await subscriber.call('UNSUBSCRIBE'))).toEqual(['unsubscribe', null, 0])
      expect(show(await subscriber.call('PING'))).toBe('+PONG')
      expect(await publisher.call('PUBLISH', 'ch1', 'nobody')).toBe(0)
    })

    test('closing a subscribed connection unsubscribes it', async () => {
      const subscriber = await connect()
      const publisher = await connect()
      expect(show(await subscriber.call('SUBSCRIBE', 'gone'))).toEqual(['subscribe', 'gone', 1])
      expect(await publisher.call('PUBLISH', 'gone', 'x')).toBe(1)
      subscriber.destroy()
      await waitFor(async () => (await publisher.call('PUBLISH', 'gone', 'y')) === 0, 'the subscription to go')
    })
  })

  test('MONITOR streams the commands of other connections', async () => {
    const monitor = await connect()
    const other = await connect()
    expect(show(await monitor.call('MONITOR'))).toBe('+OK')
    await other.call('SET', 'watched', '1')
    const line = show(await monitor.one()) as string
    expect(line).toMatch(/^\+\d+\.\d{6} \[0 127\.0\.0\.1:\d+\] "SET" "watched" "1"$/)
    expect(show(await monitor.call('GET', 'watched'))).toBe("-ERR Replica can't interact with the keyspace")
    monitor.write('QUIT\r\n')
    await monitor.closed
  })

  test('COMMAND and CONFIG GET pass through to the executor', async () => {
    const client = await connect()
    expect(typeof (await client.call('COMMAND', 'COUNT'))).toBe('number')
    expect(Array.isArray(await client.call('CONFIG', 'GET', 'save'))).toBe(true)
  })

  test('the socket executor, as a Redis client, works through the listener', async () => {
    const executor = new SocketExecutor({ port })
    try {
      expect(show(await executor.exec(['SET', 'through', 'listener']))).toBe('+OK')
      expect((await executor.pipeline([['GET', 'through'], ['INCR', 'through']])).map(show)).toEqual([
        'listener',
        '-ERR value is not an integer or out of range',
      ])
      expect(show(await executor.transaction([['SET', 'a', '1'], ['GET']]))).toBe('-EXECABORT Transaction discarded because of previous errors.')
      expect(show(await executor.transaction([['INCR', 'n'], ['INCR', 'n']]))).toEqual([1, 2])
      expect(show(await executor.exec(['GET', 'through'], { db: 2 }))).toBeNull()
      const events: string[] = []
      const abort = new AbortController()
      const done = executor.subscribe({ kind: 'channel', names: ['via'] }, (event) => events.push(event.type), abort.signal)
      await waitFor(() => events.length === 1, 'the confirmation')
      expect(await memory.exec(['PUBLISH', 'via', 'x'])).toBe(1)
      await waitFor(() => events.length === 2, 'the message')
      expect(events).toEqual(['subscribe', 'message'])
      abort.abort()
      await done
    } finally {
      await executor.close()
    }
  })

  test.skipIf(benchmarkMissing !== undefined)(
    `redis-benchmark -t set,get,incr,lpush -n 20000 -q completes without errors${benchmarkMissing ? ` (skipped: ${benchmarkMissing})` : ''}`,
    async () => {
      const { code, output } = await run('redis-benchmark', ['-p', String(port), '-t', 'set,get,incr,lpush', '-n', '20000', '-q'], 120_000)
      const lines = output.split(/[\r\n]+/)
      const results = lines.filter((line) => /^\s*\w+: [\d.]+ requests per second/.test(line)).map((line) => line.trim())
      console.log(`redis-benchmark through the RESP listener over the memory executor:\n${results.join('\n')}`)
      expect(code).toBe(0)
      expect(output).not.toMatch(/error|ERR /i)
      expect(results.map((line) => line.split(':')[0])).toEqual(['SET', 'GET', 'INCR', 'LPUSH'])
    },
    150_000,
  )
})

describe('RESP listener with a password', () => {
  let memory: MemoryExecutor
  let server: RespServer
  const seen: string[] = []
  const clients: RawClient[] = []

  beforeAll(async () => {
    memory = new MemoryExecutor()
    // Commands after AUTH run as alice: the engine enforces her ACL rules, so she must exist there.
    await memory.exec(['ACL', 'SETUSER', 'alice', 'on', '>alice-pw', '~*', '&*', '+@all'])
    server = await serveResp(memory, {
      port: 0,
      password: 'pw',
      authenticate: (user, password) => {
        seen.push(user)
        return user === 'alice' && password === 'alice-pw'
      },
    })
  })
  afterAll(async () => {
    for (const client of clients) client.destroy()
    await server?.close()
    await memory?.close()
  })

  const connect = async (): Promise<RawClient> => {
    const client = await RawClient.connect(server.address.port)
    clients.push(client)
    return client
  }

  test('commands before AUTH answer NOAUTH; a wrong password WRONGPASS; the right one OK', async () => {
    const client = await connect()
    expect(show(await client.call('GET', 'x'))).toBe('-NOAUTH Authentication required.')
    expect(show(await client.call('HELLO', '2'))).toMatch(/^-NOAUTH HELLO must be called with the client already authenticated/)
    expect(show(await client.call('AUTH', 'nope'))).toBe('-WRONGPASS invalid username-password pair or user is disabled.')
    expect(show(await client.call('AUTH', 'default', 'nope'))).toBe('-WRONGPASS invalid username-password pair or user is disabled.')
    expect(show(await client.call('AUTH', 'pw'))).toBe('+OK')
    expect(show(await client.call('PING'))).toBe('+PONG')
  })

  test('HELLO 2 AUTH default <password> authenticates', async () => {
    const client = await connect()
    const hello = show(await client.call('HELLO', '2', 'AUTH', 'default', 'pw')) as unknown[]
    expect(hello[0]).toBe('server')
    expect(show(await client.call('PING'))).toBe('+PONG')
  })

  test('AUTH <user> <password> for other users goes to the authenticate option', async () => {
    const client = await connect()
    expect(show(await client.call('AUTH', 'alice', 'wrong'))).toBe('-WRONGPASS invalid username-password pair or user is disabled.')
    expect(show(await client.call('AUTH', 'alice', 'alice-pw'))).toBe('+OK')
    expect(seen.slice(-2)).toEqual(['alice', 'alice'])
    expect(show(await client.call('PING'))).toBe('+PONG')
  })

  test('a pipelined AUTH that the listener checks asynchronously holds back the commands behind it', async () => {
    const client = await connect()
    client.write(Buffer.concat([multibulk(['AUTH', 'alice', 'alice-pw']), multibulk(['PING'])]))
    expect((await client.read(2)).map(show)).toEqual(['+OK', '+PONG'])
  })

  test('RESET logs the connection out again', async () => {
    const client = await connect()
    expect(show(await client.call('AUTH', 'pw'))).toBe('+OK')
    expect(show(await client.call('RESET'))).toBe('+RESET')
    expect(show(await client.call('GET', 'x'))).toBe('-NOAUTH Authentication required.')
  })

  test.skipIf(cliMissing !== undefined)(`redis-cli -a authenticates${cliMissing ? ` (skipped: ${cliMissing})` : ''}`, async () => {
    const result = await run('redis-cli', ['-p', String(server.address.port), '-a', 'pw', '--no-auth-warning', 'ping'])
    expect(result.output).toBe('PONG\n')
  })
})

/** An executor whose replies come back late and out of order (random delays). */
class SlowExecutor implements Executor {
  constructor(private readonly inner: Executor) {}
  #later<T>(value: () => Promise<T>): Promise<T> {
    return new Promise((resolve, reject) => setTimeout(() => value().then(resolve, reject), Math.random() * 5))
  }
  exec(command: Command, context?: CallContext): Promise<Reply> {
    return this.#later(() => this.inner.exec(command, context))
  }
  pipeline(commands: readonly Command[], context?: CallContext): Promise<Reply[]> {
    return this.#later(() => this.inner.pipeline(commands, context))
  }
  transaction(commands: readonly Command[], context?: CallContext): Promise<Reply[] | ReplyError> {
    return this.#later(() => this.inner.transaction(commands, context))
  }
  subscribe(...args: Parameters<Executor['subscribe']>): Promise<void> {
    return this.inner.subscribe(...args)
  }
  monitor(...args: Parameters<Executor['monitor']>): Promise<void> {
    return this.inner.monitor(...args)
  }
  close(): Promise<void> {
    return this.inner.close()
  }
}

describe('RESP listener over an executor that answers late and out of order', () => {
  test('replies still go out in request order', async () => {
    const executor = new SlowExecutor(new MemoryExecutor())
    const server = await serveResp(executor, { port: 0 })
    const client = await RawClient.connect(server.address.port)
    try {
      client.write(Buffer.concat(Array.from({ length: 500 }, (_, i) => multibulk(i % 50 === 0 ? ['CLIENT', 'ID'] : ['ECHO', `r${i}`]))))
      const replies = await client.read(500)
      replies.forEach((reply, i) => {
        if (i % 50 === 0) expect(typeof reply).toBe('number')
        else expect(show(reply)).toBe(`r${i}`)
      })
    } finally {
      client.destroy()
      await server.close()
      await executor.close()
    }
  })
})

describe('RESP listener over an unreachable backend', () => {
  test('commands answer an error reply and the connection stays usable', async () => {
    const gone = await stubServer(() => {})
    const deadPort = gone.port
    await gone.close()
    const executor = new SocketExecutor({ port: deadPort })
    const server = await serveResp(executor, { port: 0 })
    const client = await RawClient.connect(server.address.port)
    try {
      expect(show(await client.call('GET', 'x'))).toMatch(/^-ERR backend unavailable: cannot connect to 127\.0\.0\.1:\d+/)
      expect(show(await client.call('CLIENT', 'ID'))).toEqual(expect.any(Number))
    } finally {
      client.destroy()
      await server.close()
      await executor.close()
    }
  })
})

describe.skipIf(redisServerSkipReason !== undefined)(liveSuiteName('RESP listener over the socket executor and redis-server'), () => {
  let redis: RedisServer
  let executor: SocketExecutor
  let server: RespServer

  beforeAll(async () => {
    redis = await startRedisServer()
    executor = new SocketExecutor({ url: redis.url })
    server = await serveResp(executor, { port: 0 })
  })
  afterAll(async () => {
    await server?.close()
    await executor?.close()
    await redis?.stop()
  })

  test('subscribe mode and MULTI work in front of a real server', async () => {
    const subscriber = await RawClient.connect(server.address.port)
    const client = await RawClient.connect(server.address.port)
    try {
      subscriber.write('SUBSCRIBE a b\r\n')
      expect((await subscriber.read(2)).map(show)).toEqual([
        ['subscribe', 'a', 1],
        ['subscribe', 'b', 2],
      ])
      expect(await client.call('PUBLISH', 'b', 'real')).toBe(1)
      expect(show(await subscriber.one())).toEqual(['message', 'b', 'real'])
      client.write('MULTI\r\nSET k v\r\nGET\r\nEXEC\r\nMULTI\r\nSET k v\r\nGET k\r\nEXEC\r\n')
      expect((await client.read(8)).map(show)).toEqual([
        '+OK',
        '+QUEUED',
        "-ERR wrong number of arguments for 'get' command",
        '-EXECABORT Transaction discarded because of previous errors.',
        '+OK',
        '+QUEUED',
        '+QUEUED',
        ['+OK', 'v'],
      ])
      expect(show(await client.call('SELECT', '4'))).toBe('+OK')
      expect(await client.call('GET', 'k')).toBeNull()
    } finally {
      subscriber.destroy()
      client.destroy()
    }
  })

  test('AUTH <user> <password> is checked upstream by the socket executor', async () => {
    await executor.exec(['ACL', 'SETUSER', 'bob', 'on', '>bob-pw', '~*', '+@all'])
    const client = await RawClient.connect(server.address.port)
    try {
      expect(show(await client.call('AUTH', 'bob', 'bad'))).toBe('-WRONGPASS invalid username-password pair or user is disabled.')
      expect(show(await client.call('AUTH', 'bob', 'bob-pw'))).toBe('+OK')
      expect(show(await client.call('ACL', 'WHOAMI'))).toBe('bob')
    } finally {
      client.destroy()
    }
  })
})
