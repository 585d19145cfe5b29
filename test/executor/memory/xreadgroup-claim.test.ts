import { afterEach, describe, expect, test } from 'vitest'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Redis } from 'ioredis6'
import { MemoryExecutor } from '../../../src/executor/memory/memory-executor.js'
import { serveResp } from '../../../src/adapters/resp-server.js'
import { NULL_ARRAY, ReplyError, type Reply } from '../../../src/reply.js'
import { closeEngines, memoryEngine } from '../../support/engine.js'

/**
 * XREADGROUP … CLAIM min-idle-time (Redis 8.4). Redis 7.0.15 has no CLAIM, so these follow the
 * XREADGROUP page of redis.io ("The CLAIM option", "Reply extension for claimed entries",
 * "Ordering guarantees"): with `>`, the group's pending entries idle for at least min-idle-time
 * come first, longest idle first, each as `[id, fields, ms since last delivery, times delivered
 * before]`, then new entries; COUNT bounds both together; NOACK does not apply to claimed
 * entries; with an ID other than `>`, CLAIM is ignored.
 */

afterEach(closeEngines)

function decode(reply: Reply): unknown {
  if (reply instanceof Uint8Array) return Buffer.from(reply).toString('latin1')
  if (reply instanceof ReplyError) return `-${reply.message}`
  if (reply === NULL_ARRAY) return 'nil-array'
  if (Array.isArray(reply)) return reply.map(decode)
  return reply
}

/** A stream `s` with entries 1-0 … n-0 and group `g` at 0. */
function streamWithGroup(n: number) {
  const clock = memoryEngine({ start: 1_700_000_000_000, render: decode })
  for (let i = 1; i <= n; i++) clock.run('XADD', 's', `${i}-0`, 'f', `v${i}`)
  clock.run('XGROUP', 'CREATE', 's', 'g', '0')
  return clock
}

describe('XREADGROUP … CLAIM (Redis 8.4, per the XREADGROUP documentation)', () => {
  test('idle pending entries come first, longest idle first, with idle time and prior deliveries; then new entries', () => {
    const clock = streamWithGroup(3)
    const { run } = clock
    run('XREADGROUP', 'GROUP', 'g', 'alice', 'COUNT', '1', 'STREAMS', 's', '>') // 1-0 to alice
    clock.advance(100)
    run('XREADGROUP', 'GROUP', 'g', 'bob', 'COUNT', '1', 'STREAMS', 's', '>') // 2-0 to bob
    clock.advance(400)
    run('XADD', 's', '4-0', 'f', 'v4')
    // 1-0 idle 500, 2-0 idle 400: both claimable at 300; then the new 3-0 and 4-0.
    expect(run('XREADGROUP', 'GROUP', 'g', 'carol', 'CLAIM', '300', 'STREAMS', 's', '>')).toEqual([
      ['s', [['1-0', ['f', 'v1'], 500, 1], ['2-0', ['f', 'v2'], 400, 1], ['3-0', ['f', 'v3']], ['4-0', ['f', 'v4']]]],
    ])
    // Claimed as XCLAIM would: new owner, delivered now, one more delivery.
    expect(run('XPENDING', 's', 'g', '-', '+', '10')).toEqual([
      ['1-0', 'carol', 0, 2],
      ['2-0', 'carol', 0, 2],
      ['3-0', 'carol', 0, 1],
      ['4-0', 'carol', 0, 1],
    ])
  })

  test('entries idle less than min-idle-time stay where they are; nothing to read answers nil', () => {
    const clock = streamWithGroup(1)
    const { run } = clock
    run('XREADGROUP', 'GROUP', 'g', 'alice', 'STREAMS', 's', '>')
    clock.advance(99)
    expect(run('XREADGROUP', 'GROUP', 'g', 'bob', 'CLAIM', '100', 'STREAMS', 's', '>')).toBe('nil-array')
    clock.advance(1)
    expect(run('XREADGROUP', 'GROUP', 'g', 'bob', 'CLAIM', '100', 'STREAMS', 's', '>')).toEqual([['s', [['1-0', ['f', 'v1'], 100, 1]]]])
  })

  test('COUNT bounds claimed and new entries together, claimed first', () => {
    const clock = streamWithGroup(4)
    const { run } = clock
    run('XREADGROUP', 'GROUP', 'g', 'alice', 'COUNT', '2', 'STREAMS', 's', '>')
    clock.advance(1000)
    expect(run('XREADGROUP', 'GROUP', 'g', 'bob', 'COUNT', '3', 'CLAIM', '0', 'STREAMS', 's', '>')).toEqual([
      ['s', [['1-0', ['f', 'v1'], 1000, 1], ['2-0', ['f', 'v2'], 1000, 1], ['3-0', ['f', 'v3']]]],
    ])
    expect(run('XREADGROUP', 'GROUP', 'g', 'bob', 'COUNT', '1', 'CLAIM', '0', 'STREAMS', 's', '>')).toEqual([['s', [['1-0', ['f', 'v1'], 0, 2]]]])
  })

  test('NOACK leaves claimed entries pending; new entries under NOACK are not', () => {
    const clock = streamWithGroup(2)
    const { run } = clock
    run('XREADGROUP', 'GROUP', 'g', 'alice', 'COUNT', '1', 'STREAMS', 's', '>')
    clock.advance(50)
    expect(run('XREADGROUP', 'GROUP', 'g', 'bob', 'CLAIM', '10', 'NOACK', 'STREAMS', 's', '>')).toEqual([
      ['s', [['1-0', ['f', 'v1'], 50, 1], ['2-0', ['f', 'v2']]]],
    ])
    expect(run('XPENDING', 's', 'g', '-', '+', '10')).toEqual([['1-0', 'bob', 0, 2]])
  })

  test('with an ID other than `>` CLAIM is ignored: the consumer reads its own history', () => {
    const clock = streamWithGroup(1)
    const { run } = clock
    run('XREADGROUP', 'GROUP', 'g', 'alice', 'STREAMS', 's', '>')
    clock.advance(500)
    expect(run('XREADGROUP', 'GROUP', 'g', 'bob', 'CLAIM', '0', 'STREAMS', 's', '0')).toEqual([['s', []]])
    expect(run('XREADGROUP', 'GROUP', 'g', 'alice', 'CLAIM', '0', 'STREAMS', 's', '0')).toEqual([['s', [['1-0', ['f', 'v1']]]]])
  })

  test('a pending entry deleted from the stream is not claimed (it stays pending)', () => {
    const clock = streamWithGroup(2)
    const { run } = clock
    run('XREADGROUP', 'GROUP', 'g', 'alice', 'STREAMS', 's', '>')
    run('XDEL', 's', '1-0')
    clock.advance(10)
    expect(run('XREADGROUP', 'GROUP', 'g', 'bob', 'CLAIM', '0', 'STREAMS', 's', '>')).toEqual([['s', [['2-0', ['f', 'v2'], 10, 1]]]])
    expect(run('XPENDING', 's', 'g', '-', '+', '10')).toEqual([['1-0', 'alice', 10, 1], ['2-0', 'bob', 0, 2]])
  })

  test('argument errors', () => {
    const { run } = streamWithGroup(1)
    expect(run('XREADGROUP', 'GROUP', 'g', 'c', 'CLAIM', 'x', 'STREAMS', 's', '>')).toBe('-ERR value is not an integer or out of range')
    expect(run('XREADGROUP', 'GROUP', 'g', 'c', 'CLAIM', '-1', 'STREAMS', 's', '>')).toBe('-ERR min-idle-time must be a positive integer')
    expect(run('XREAD', 'CLAIM', '10', 'STREAMS', 's', '0')).toBe('-ERR The CLAIM option is only supported by XREADGROUP. You called XREAD instead.')
  })
})

describe('XREADGROUP … CLAIM … BLOCK through the RESP listener', () => {
  test('a blocked reader is served once a pending entry reaches min-idle-time', async () => {
    const executor = new MemoryExecutor()
    const server = await serveResp(executor, { port: 0 })
    const client = new Redis({ port: server.address.port, host: '127.0.0.1', protocol: 2 })
    try {
      await client.xadd('s', '1-0', 'f', 'v')
      await client.xgroup('CREATE', 's', 'g', '0')
      await client.call('XREADGROUP', 'GROUP', 'g', 'alice', 'STREAMS', 's', '>')
      const started = Date.now()
      const reply = (await client.call('XREADGROUP', 'GROUP', 'g', 'bob', 'BLOCK', '5000', 'CLAIM', '150', 'STREAMS', 's', '>')) as [string, [string, string[], number, number][]][]
      expect(Date.now() - started).toBeLessThan(4000)
      expect(reply[0][0]).toBe('s')
      const [id, fields, idle, deliveries] = reply[0][1][0]
      expect([id, fields, deliveries]).toEqual(['1-0', ['f', 'v'], 1])
      expect(idle).toBeGreaterThanOrEqual(150)
      expect(executor.engine.blocking.count).toBe(0)
    } finally {
      client.disconnect()
      await server.close()
      await executor.close()
    }
  })
})

describe('XREADGROUP … CLAIM in the AOF', () => {
  test('claimed entries (NOACK or not) are logged as XCLAIM: a reload has the same PEL', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'restis-claim-aof-'))
    let now = 1_700_000_000_000
    const clock = (): number => now
    const text = (reply: Reply): unknown => (reply instanceof Uint8Array ? Buffer.from(reply).toString('latin1') : Array.isArray(reply) ? reply.map(text) : reply)
    const first = new MemoryExecutor({ activeExpiryInterval: 0, clock, persistence: { dir, appendonly: true, appendfsync: 'always' } })
    try {
      await first.pipeline([
        ['XADD', 's', '1-0', 'f', 'v1'],
        ['XADD', 's', '2-0', 'f', 'v2'],
        ['XADD', 's', '3-0', 'f', 'v3'],
        ['XGROUP', 'CREATE', 's', 'g', '0'],
        ['XREADGROUP', 'GROUP', 'g', 'alice', 'COUNT', '2', 'STREAMS', 's', '>'],
      ])
      now += 1000
      await first.exec(['XREADGROUP', 'GROUP', 'g', 'bob', 'COUNT', '1', 'CLAIM', '500', 'STREAMS', 's', '>'])
      await first.exec(['XREADGROUP', 'GROUP', 'g', 'carol', 'CLAIM', '500', 'NOACK', 'STREAMS', 's', '>'])
      const pending = text(await first.exec(['XPENDING', 's', 'g', '-', '+', '10']))
      expect(pending).toEqual([
        ['1-0', 'bob', 0, 2],
        ['2-0', 'carol', 0, 2],
      ])
      const groups = text(await first.exec(['XINFO', 'GROUPS', 's']))
      await first.close()
      const second = new MemoryExecutor({ activeExpiryInterval: 0, clock, persistence: { dir, appendonly: true } })
      try {
        expect(text(await second.exec(['XPENDING', 's', 'g', '-', '+', '10']))).toEqual(pending)
        expect(text(await second.exec(['XINFO', 'GROUPS', 's']))).toEqual(groups)
      } finally {
        await second.close()
      }
    } finally {
      await first.close()
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
