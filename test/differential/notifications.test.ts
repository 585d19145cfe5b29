/**
 * Keyspace notifications against redis-server 7.0.15: the same command sequences run on the real
 * server and on the RESP listener over the memory engine, each with a pattern subscriber to
 * `__key*__:*`; the ordered messages each subscriber received are compared (event names, keys,
 * databases, and the keyspace-then-keyevent order of each event). A PING on the subscriber after
 * each sequence marks the end of what the sequence caused (both servers deliver in order).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { MemoryExecutor } from '../../src/executor/memory/memory-executor.js'
import { serveResp, type RespServer } from '../../src/adapters/resp-server.js'
import type { Command, Reply } from '../../src/reply.js'
import { liveSuiteName, redisServerSkipReason, startRedisServer, type RedisServer } from '../support/redis-server.js'
import { showReply } from './harness.js'
import { RawClient } from './pubsub.support.js'
import { notificationCases } from './notifications.cases.js'

/** One side of the comparison: a connection that runs commands and one that listens. */
interface Side {
  readonly commands: RawClient
  readonly listener: RawClient
}

const text = (value: Reply): string => (value instanceof Uint8Array ? Buffer.from(value).toString('latin1') : showReply(value))

async function openSide(port: number, flags: string): Promise<Side> {
  const commands = await RawClient.connect(port)
  const listener = await RawClient.connect(port)
  commands.send(['FLUSHALL'])
  await commands.next()
  commands.send(['CONFIG', 'SET', 'notify-keyspace-events', flags])
  expect(text(await commands.next())).toBe('+OK')
  listener.send(['PSUBSCRIBE', '__key*__:*'])
  await listener.next()
  return { commands, listener }
}

/** Runs `commands` on one side; returns the replies and the notifications they caused, in order. */
async function runOn(side: Side, commands: readonly Command[]): Promise<{ replies: string[]; events: string[] }> {
  const replies: string[] = []
  for (const command of commands) {
    side.commands.send(command)
    const reply = await side.commands.next()
    // SPOP picks members at random: only the number it popped is compared; its events are not random.
    const random = String(command[0]).toUpperCase() === 'SPOP' && Array.isArray(reply)
    replies.push(random ? `${(reply as Reply[]).length} random members` : showReply(reply))
  }
  const pushed = await side.listener.barrier()
  const events = pushed.map((message) => (Array.isArray(message) ? message.slice(2).map(text).join(' ') : text(message)))
  return { replies, events }
}

describe.skipIf(redisServerSkipReason !== undefined)(liveSuiteName('keyspace notifications against redis-server'), () => {
  let redis: RedisServer
  let memory: MemoryExecutor
  let listener: RespServer
  let real: Side
  let ours: Side

  beforeAll(async () => {
    redis = await startRedisServer()
    memory = new MemoryExecutor()
    listener = await serveResp(memory, { port: 0 })
    real = await openSide(redis.port, 'KEAn')
    ours = await openSide(listener.address.port, 'KEAn')
  })
  afterAll(async () => {
    for (const side of [real, ours]) {
      side?.commands.close()
      side?.listener.close()
    }
    await listener?.close()
    await memory?.close()
    await redis?.stop()
  })

  for (const sequence of notificationCases) {
    test(sequence.name, async () => {
      const commands: Command[] = [['FLUSHALL'], ...sequence.commands]
      const expected = await runOn(real, commands)
      const actual = await runOn(ours, commands)
      expect(actual.replies).toEqual(expected.replies)
      expect(actual.events).toEqual(expected.events)
      expect(expected.events.length).toBeGreaterThan(0)
    })
  }

  test('RESTORE reports new and restore; with REPLACE over a key and a TTL already past, del', async () => {
    const setup: Command[] = [['FLUSHALL'], ['SET', 'src', 'value'], ['DUMP', 'src']]
    for (const side of [real, ours]) {
      for (const command of setup.slice(0, 2)) {
        side.commands.send(command)
        await side.commands.next()
      }
      await side.listener.barrier()
    }
    real.commands.send(setup[2])
    const payload = (await real.commands.next()) as Uint8Array
    const restores: Command[] = [
      ['RESTORE', 'copy', '0', payload], ['RESTORE', 'copy', '0', payload], ['RESTORE', 'copy', '0', payload, 'REPLACE'],
      ['RESTORE', 'copy', '1', payload, 'REPLACE', 'ABSTTL'], ['RESTORE', 'other', '1', payload, 'ABSTTL'],
      ['RESTORE', 'ttl', '100000', payload],
    ]
    const expected = await runOn(real, restores)
    const actual = await runOn(ours, restores)
    expect(actual).toEqual(expected)
  })

  test('CONFIG GET shows the classes as Redis 7.0 does, n hidden under A, and refuses an unknown class', async () => {
    const values = ['', 'K', 'E', 'KEA', 'AKE', 'gx$', 'xg$lshzetdn', 'Kn', 'An', 'KEAnm', 'g$lshzxetd', 'Em', 'KA', 'q', 'Ag$lshzxeKEtmdn']
    const probe: Command[] = []
    for (const value of values) probe.push(['CONFIG', 'SET', 'notify-keyspace-events', value], ['CONFIG', 'GET', 'notify-keyspace-events'])
    const expected = await runOn(real, probe)
    const actual = await runOn(ours, probe)
    expect(actual.replies).toEqual(expected.replies)
    for (const side of [real, ours]) {
      side.commands.send(['CONFIG', 'SET', 'notify-keyspace-events', 'KEAn'])
      await side.commands.next()
    }
  })

  test('m: read-only commands report keymiss for each lookup that finds nothing (write commands do not)', async () => {
    const commands: Command[] = [
      ['FLUSHALL'], ['CONFIG', 'SET', 'notify-keyspace-events', 'KEm'], ['SET', 'here', '1'], ['GET', 'nokey'], ['GET', 'here'],
      ['MGET', 'a', 'here', 'b'], ['EXISTS', 'c', 'here'], ['TYPE', 'd'], ['TTL', 'e'], ['PTTL', 'here'], ['STRLEN', 'f'],
      ['HGET', 'g', 'x'], ['LRANGE', 'h', '0', '-1'], ['SMEMBERS', 'i'], ['ZSCORE', 'j', 'x'], ['XRANGE', 'k', '-', '+'],
      ['LPUSHX', 'l', 'x'], ['INCR', 'counter'], ['DEL', 'nothing'], ['EVAL_RO', "return redis.call('get', KEYS[1])", '1', 'm'],
      ['SET', 'old', 'v', 'PXAT', '1'], ['GET', 'old'], ['CONFIG', 'SET', 'notify-keyspace-events', 'KEAn'],
    ]
    const expected = await runOn(real, commands)
    const actual = await runOn(ours, commands)
    expect(actual).toEqual(expected)
  })

  test('only the classes selected are published: K without E, a class alone, n alone', async () => {
    const run = async (flags: string): Promise<void> => {
      const commands: Command[] = [
        ['CONFIG', 'SET', 'notify-keyspace-events', flags], ['SET', 'a', '1'], ['LPUSH', 'l', 'x'], ['EXPIRE', 'a', '10'], ['DEL', 'a', 'l'],
        ['SADD', 's', 'm'], ['HSET', 'h', 'f', 'v'], ['ZADD', 'z', '1', 'm'], ['XADD', 'x', '1-1', 'f', 'v'],
      ]
      const expected = await runOn(real, commands)
      const actual = await runOn(ours, commands)
      expect(actual.events, flags).toEqual(expected.events)
    }
    for (const flags of ['K$', 'El', 'Kg', 'Es', 'Eh', 'Ez', 'Et', 'En', 'KEn', 'AnE', 'E', '']) await run(flags)
    for (const side of [real, ours]) {
      side.commands.send(['CONFIG', 'SET', 'notify-keyspace-events', 'KEAn'])
      await side.commands.next()
    }
  })
})
