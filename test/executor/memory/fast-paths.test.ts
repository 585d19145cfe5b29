/**
 * What the engine's fast paths for common commands must keep: the time of a command is read
 * once at most, and only when it is needed; a plain SET still reclaims an expired key; encoding
 * limits changed in the configuration apply to the next write; command words are converted only
 * when they are not ASCII strings.
 */
import { afterEach, describe, expect, test } from 'vitest'
import { MemoryExecutor } from '../../../src/executor/memory/memory-executor.js'
import { closeEngines, memoryEngine, plain, START } from '../../support/engine.js'

afterEach(closeEngines)

/** An executor whose clock counts how often it is read. */
function countingClock(): { executor: MemoryExecutor; reads: () => number; advance: (ms: number) => void } {
  let now = START
  let reads = 0
  const executor = new MemoryExecutor({
    activeExpiryInterval: 0,
    clock: () => {
      reads++
      return now
    },
  })
  const atStart = reads
  return { executor, reads: () => reads - atStart, advance: (ms) => (now += ms) }
}

describe('the time of a command', () => {
  test('is not read when no key has a TTL and the command needs no time', async () => {
    const { executor, reads } = countingClock()
    for (const command of [
      ['SET', 'k', 'v'],
      ['GET', 'k'],
      ['INCR', 'n'],
      ['HSET', 'h', 'f', 'v'],
      ['LPUSH', 'l', 'e'],
      ['SADD', 's', 'm'],
      ['ZADD', 'z', '1', 'm'],
      ['GET', 'missing'],
    ]) {
      executor.execSync(command)
    }
    expect(reads()).toBe(0)
    await executor.close()
  })

  test('is read once per command that needs it, and then fixed for that command', async () => {
    const { executor, reads, advance } = countingClock()
    executor.execSync(['SET', 'k', 'v', 'PX', '100'])
    expect(reads()).toBe(1)
    executor.execSync(['MGET', 'k', 'k', 'k'])
    expect(reads()).toBe(2)
    advance(101)
    expect(plain(executor.execSync(['MGET', 'k', 'other']))).toEqual([null, null])
    expect(reads()).toBe(3)
    await executor.close()
  })
})

describe('SET without options', () => {
  test('reclaims a key whose TTL has passed, counted in expired_keys like any lookup', () => {
    const { run, advance } = memoryEngine()
    run('SET', 'k', 'v', 'PX', '100')
    advance(101)
    expect(run('SET', 'k', 'w')).toBe('OK')
    expect(run('INFO', 'stats')).toMatch(/\r\nexpired_keys:1\r\n/)
    expect(run('PTTL', 'k')).toBe(-1)
    expect(run('GET', 'k')).toBe('w')
  })

  test('replaces a value of any type and drops its TTL', () => {
    const { run, advance } = memoryEngine()
    run('LPUSH', 'k', 'e')
    run('PEXPIRE', 'k', '100')
    expect(run('SET', 'k', 'v')).toBe('OK')
    advance(1000)
    expect(run('TYPE', 'k')).toBe('string')
    expect(run('GET', 'k')).toBe('v')
    expect(run('INFO', 'stats')).toMatch(/\r\nexpired_keys:0\r\n/)
  })
})

describe('encoding limits', () => {
  test('changed with CONFIG SET apply to the next write of each type', () => {
    const { run } = memoryEngine()
    run('SADD', 'before', '1', '2', '3')
    run('CONFIG', 'SET', 'set-max-intset-entries', '2', 'zset-max-listpack-entries', '2', 'hash-max-listpack-entries', '2')
    run('SADD', 's', '1', '2', '3')
    run('ZADD', 'z', '1', 'a', '2', 'b', '3', 'c')
    run('HSET', 'h', 'a', '1', 'b', '2', 'c', '3')
    expect([run('OBJECT', 'ENCODING', 's'), run('OBJECT', 'ENCODING', 'z'), run('OBJECT', 'ENCODING', 'h')]).toEqual([
      'hashtable',
      'skiplist',
      'hashtable',
    ])
    expect(run('OBJECT', 'ENCODING', 'before')).toBe('intset')
    run('CONFIG', 'SET', 'set-max-intset-entries', '512')
    run('SADD', 't', '1', '2', '3')
    expect(run('OBJECT', 'ENCODING', 't')).toBe('intset')
  })

  test('changed in engine.config directly apply too', () => {
    const { run, executor } = memoryEngine()
    run('SADD', 'warm', '1')
    executor.engine.config.set('set-max-intset-entries', '1')
    run('SADD', 's', '1', '2')
    expect(run('OBJECT', 'ENCODING', 's')).toBe('hashtable')
  })

  test('of one engine do not leak into another', () => {
    const small = memoryEngine()
    const large = memoryEngine()
    small.run('CONFIG', 'SET', 'zset-max-listpack-entries', '1')
    small.run('ZADD', 'z', '1', 'a', '2', 'b')
    large.run('ZADD', 'z', '1', 'a', '2', 'b')
    expect(small.run('OBJECT', 'ENCODING', 'z')).toBe('skiplist')
    expect(large.run('OBJECT', 'ENCODING', 'z')).toBe('listpack')
  })
})

describe('connection-state commands', () => {
  test('are refused before the engine sees them: no session, no counted call', async () => {
    const { executor, run } = memoryEngine()
    const connections = (): number => Number(/total_connections_received:(\d+)/.exec(String(run('INFO', 'stats')))![1])
    const first = connections()
    for (const command of [['MULTI'], ['subscribe', 'c'], ['Client', 'SetName', 'x'], ['WATCH']]) {
      expect(plain(await executor.exec(command))).toEqual({ error: expect.stringMatching(/^ERR Command is not available: /) })
    }
    expect(connections()).toBe(first + 1)
    expect(run('INFO', 'commandstats')).not.toMatch(/cmdstat_(multi|subscribe|client\|setname|watch):/)
  })
})

describe('command words', () => {
  test('ASCII strings are used as given and left unchanged', () => {
    const { executor } = memoryEngine()
    const command = ['SET', 'k', 'v']
    executor.execSync(command)
    expect(command).toEqual(['SET', 'k', 'v'])
    expect(plain(executor.execSync(['GET', 'k']))).toBe('v')
  })

  test('non-ASCII strings are UTF-8, whichever word they are, and bytes are kept as they are', () => {
    const { executor } = memoryEngine()
    executor.execSync(['SET', 'clé', 'été'])
    expect(plain(executor.execSync(['GET', Buffer.from('clé', 'utf8')]))).toBe(Buffer.from('été', 'utf8').toString('latin1'))
    executor.execSync([Buffer.from('SET'), Buffer.from([0xff]), 'x'])
    expect(plain(executor.execSync(['STRLEN', 'clé']))).toBe(5)
    expect(plain(executor.execSync(['GET', Buffer.from([0xff])]))).toBe('x')
    expect(plain(executor.execSync(['GËT', 'k']))).toEqual({
      error: `ERR unknown command '${Buffer.from('GËT', 'utf8').toString('latin1')}', with args beginning with: 'k' `,
    })
  })
})
