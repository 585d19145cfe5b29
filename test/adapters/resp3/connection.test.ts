/**
 * The connection side of RESP3 in the listener, compared byte for byte with redis-server 7.0.15:
 * HELLO's forms (3, 2, none, AUTH, SETNAME, refused versions), pub/sub confirmations and
 * messages as pushes on a connection that keeps running commands, RESET going back to RESP2,
 * and bad input that must end one connection cleanly while the listener keeps serving.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { MemoryExecutor } from '../../../src/executor/memory/memory-executor.js'
import { serveResp, type RespServer } from '../../../src/adapters/resp-server.js'
import type { Command } from '../../../src/reply.js'
import { liveSuiteName, redisServerSkipReason, startRedisServer, type RedisServer } from '../../support/redis-server.js'
import { WireClient } from './wire.js'

/** HELLO's reply with the connection id (which differs between servers) masked. */
function maskId(bytes: Buffer): string {
  return bytes.toString('latin1').replace(/\$2\r\nid\r\n:\d+\r\n/, '$2\r\nid\r\n:<id>\r\n')
}

interface Pair {
  ours: WireClient
  theirs: WireClient
}

function setup(options: { password?: string }) {
  const state = {} as { redis: RedisServer; memory: MemoryExecutor; listener: RespServer; opened: WireClient[] }
  beforeAll(async () => {
    state.redis = await startRedisServer()
    if (options.password !== undefined) {
      // Set once it is up: the launcher's readiness check pings without a password.
      const admin = await WireClient.connect(state.redis.port)
      expect((await admin.call(['CONFIG', 'SET', 'requirepass', options.password])).toString()).toBe('+OK\r\n')
      admin.close()
    }
    state.memory = new MemoryExecutor()
    state.listener = await serveResp(state.memory, { port: 0, password: options.password })
    state.opened = []
  })
  afterAll(async () => {
    for (const client of state.opened ?? []) client.close()
    await state.listener?.close()
    await state.memory?.close()
    await state.redis?.stop()
  })
  const pair = async (): Promise<Pair> => {
    const ours = await WireClient.connect(state.listener.address.port)
    const theirs = await WireClient.connect(state.redis.port)
    state.opened.push(ours, theirs)
    return { ours, theirs }
  }
  /** Sends `command` on both and expects the same bytes back (HELLO's id masked). */
  const same = async ({ ours, theirs }: Pair, command: Command): Promise<string> => {
    const [a, b] = await Promise.all([ours.call(command), theirs.call(command)])
    expect(maskId(a), command.join(' ')).toBe(maskId(b))
    return maskId(a)
  }
  /** Reads one more frame (a push) on both and expects the same bytes. */
  const samePush = async ({ ours, theirs }: Pair): Promise<string> => {
    const [a, b] = await Promise.all([ours.next(), theirs.next()])
    expect(a.bytes.toString('latin1')).toBe(b.bytes.toString('latin1'))
    return a.bytes.toString('latin1')
  }
  return { state, pair, same, samePush }
}

describe.skipIf(redisServerSkipReason !== undefined)(liveSuiteName('RESP3 connections: listener vs redis-server 7.0.15'), () => {
  const { state, pair, same, samePush } = setup({})

  test('HELLO 3 answers a map and switches the connection; HELLO alone keeps it; HELLO 2 goes back', async () => {
    const p = await pair()
    expect(await same(p, ['HELLO', '3'])).toMatch(/^%7\r\n\$6\r\nserver\r\n\$5\r\nredis\r\n\$7\r\nversion\r\n\$6\r\n7\.0\.15\r\n\$5\r\nproto\r\n:3\r\n/)
    expect(await same(p, ['GET', 'missing'])).toBe('_\r\n')
    expect(await same(p, ['HELLO'])).toMatch(/^%7\r\n/)
    expect(await same(p, ['HELLO', '2', 'SETNAME', 'back-to-two'])).toMatch(/^\*14\r\n.*proto\r\n:2\r\n/s)
    expect(await same(p, ['GET', 'missing'])).toBe('$-1\r\n')
    expect(await same(p, ['CLIENT', 'GETNAME'])).toBe('$11\r\nback-to-two\r\n')
    await same(p, ['HELLO', '3'])
    expect(await same(p, ['RESET'])).toBe('+RESET\r\n')
    expect(await same(p, ['GET', 'missing'])).toBe('$-1\r\n')
  })

  test('HELLO refuses other versions and bad options without switching', async () => {
    const p = await pair()
    for (const command of [['HELLO', '4'], ['HELLO', '1'], ['HELLO', 'x'], ['HELLO', '3', 'AUTH', 'a'], ['HELLO', '3', 'FOO'], ['HELLO', '3', 'SETNAME', 'a b']]) {
      expect(await same(p, command)).toMatch(/^-/)
    }
    expect(await same(p, ['GET', 'missing'])).toBe('$-1\r\n')
  })

  test('pub/sub in RESP3: pushes for confirmations and messages, commands and PING while subscribed', async () => {
    const subscriber = await pair()
    const publisher = await pair()
    await same(subscriber, ['HELLO', '3'])
    expect(await same(subscriber, ['SUBSCRIBE', 'ch', 'other'])).toBe('>3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n')
    expect(await samePush(subscriber)).toBe('>3\r\n$9\r\nsubscribe\r\n$5\r\nother\r\n:2\r\n')
    expect(await same(subscriber, ['PSUBSCRIBE', 'c*'])).toBe('>3\r\n$10\r\npsubscribe\r\n$2\r\nc*\r\n:3\r\n')
    // RESP3 lifts RESP2's subscribed-mode limits: any command runs and answers normally.
    expect(await same(subscriber, ['SET', 'k', 'v'])).toBe('+OK\r\n')
    expect(await same(subscriber, ['HGETALL', 'missing'])).toBe('%0\r\n')
    expect(await same(subscriber, ['PING'])).toBe('+PONG\r\n')
    expect(await same(publisher, ['PUBLISH', 'ch', 'hello'])).toBe(':2\r\n')
    expect(await samePush(subscriber)).toBe('>3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$5\r\nhello\r\n')
    expect(await samePush(subscriber)).toBe('>4\r\n$8\r\npmessage\r\n$2\r\nc*\r\n$2\r\nch\r\n$5\r\nhello\r\n')
    expect(await same(subscriber, ['UNSUBSCRIBE', 'ch'])).toBe('>3\r\n$11\r\nunsubscribe\r\n$2\r\nch\r\n:2\r\n')
    expect(await same(subscriber, ['PUNSUBSCRIBE'])).toBe('>3\r\n$12\r\npunsubscribe\r\n$2\r\nc*\r\n:1\r\n')
    expect(await same(subscriber, ['UNSUBSCRIBE'])).toBe('>3\r\n$11\r\nunsubscribe\r\n$5\r\nother\r\n:0\r\n')
    expect(await same(subscriber, ['UNSUBSCRIBE'])).toBe('>3\r\n$11\r\nunsubscribe\r\n_\r\n:0\r\n')
    expect(subscriber.ours.pending).toBe(0)
  })

  test('pub/sub in RESP2 is unchanged: arrays, and subscribed mode limits commands', async () => {
    const subscriber = await pair()
    expect(await same(subscriber, ['SUBSCRIBE', 'ch'])).toBe('*3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n')
    expect(await same(subscriber, ['GET', 'k'])).toMatch(/^-ERR Can't execute 'get'/)
    expect(await same(subscriber, ['PING'])).toBe('*2\r\n$4\r\npong\r\n$0\r\n\r\n')
  })

  test('MONITOR lines stay simple strings in RESP3, as Redis 7.0 writes them', async () => {
    const monitor = await pair()
    const other = await pair()
    await same(monitor, ['HELLO', '3'])
    await same(monitor, ['MONITOR'])
    await same(other, ['SET', 'watched', '1'])
    const [a, b] = await Promise.all([monitor.ours.next(), monitor.theirs.next()])
    expect(String.fromCharCode(a.bytes[0])).toBe('+')
    expect(String.fromCharCode(b.bytes[0])).toBe('+')
    expect(a.bytes.toString()).toMatch(/"SET" "watched" "1"\r\n$/)
  })

  test('CLIENT TRACKING: ON is refused with the reason; the forms that describe tracking off answer as Redis does', async () => {
    const p = await pair()
    for (const resp of ['2', '3']) {
      await same(p, ['HELLO', resp])
      expect(await same(p, ['CLIENT', 'TRACKING', 'OFF'])).toBe('+OK\r\n')
      await same(p, ['CLIENT', 'TRACKINGINFO'])
      expect(await same(p, ['CLIENT', 'GETREDIR'])).toBe(':-1\r\n')
      await same(p, ['CLIENT', 'CACHING', 'yes'])
      await same(p, ['CLIENT', 'TRACKING'])
      await same(p, ['CLIENT', 'TRACKING', 'maybe'])
    }
    expect((await p.ours.call(['CLIENT', 'TRACKING', 'ON'])).toString()).toBe(
      '-ERR CLIENT TRACKING ON is not supported by this server: client-side caching needs invalidation messages, which it does not send\r\n',
    )
    expect((await p.ours.call(['CLIENT', 'TRACKING', 'ON', 'BCAST'])).toString()).toMatch(/^-ERR CLIENT TRACKING ON is not supported/)
  })

  test('bad input: inline RESP3 type bytes are unknown commands, nested or absurd multibulks end the connection, the listener keeps serving', async () => {
    const p = await pair()
    // Redis reads a request not starting with '*' as an inline command.
    for (const line of ['%99999999999\r\n', '~1\r\n', '>3\r\n', '|1\r\n', '_\r\n']) {
      p.ours.send(Buffer.from(line))
      p.theirs.send(Buffer.from(line))
      const [a, b] = await Promise.all([p.ours.next(), p.theirs.next()])
      expect(a.bytes.toString()).toBe(b.bytes.toString())
    }
    for (const frame of ['*1\r\n*1\r\n$1\r\na\r\n', '*99999999999\r\n', '*1\r\n$99999999999\r\n', '*1\r\n%1\r\n']) {
      const q = await pair()
      q.ours.send(Buffer.from(frame))
      q.theirs.send(Buffer.from(frame))
      const [a, b] = await Promise.all([q.ours.next(), q.theirs.next()])
      expect(a.bytes.toString(), JSON.stringify(frame)).toBe(b.bytes.toString())
      await expect.poll(() => q.ours.closed).toBe(true)
    }
    expect(await same(p, ['PING'])).toBe('+PONG\r\n')
    const fresh = await pair()
    await same(fresh, ['HELLO', '3'])
    expect(await same(fresh, ['SET', 'still', 'serving'])).toBe('+OK\r\n')
    expect(state.listener).toBeDefined()
  })
})

describe.skipIf(redisServerSkipReason !== undefined)(liveSuiteName('RESP3 HELLO with AUTH: listener vs redis-server 7.0.15'), () => {
  const { pair, same } = setup({ password: 'sesame' })

  test('HELLO 3 AUTH default <password> SETNAME authenticates, names and switches in one command', async () => {
    const p = await pair()
    expect(await same(p, ['HELLO', '3'])).toMatch(/^-NOAUTH HELLO must be called/)
    expect(await same(p, ['HELLO', '3', 'AUTH', 'default', 'wrong'])).toMatch(/^-WRONGPASS/)
    expect(await same(p, ['GET', 'x'])).toMatch(/^-NOAUTH/)
    expect(await same(p, ['HELLO', '3', 'AUTH', 'default', 'sesame', 'SETNAME', 'app'])).toMatch(/^%7\r\n.*proto\r\n:3\r\n/s)
    expect(await same(p, ['GET', 'x'])).toBe('_\r\n')
    expect(await same(p, ['CLIENT', 'GETNAME'])).toBe('$3\r\napp\r\n')
  })
})
