import { afterEach, describe, expect, test } from 'vitest'
import { Engine, type EngineOptions } from '../../../src/executor/memory/engine.js'
import type { Out } from '../../../src/executor/memory/command.js'
import { ReplyError } from '../../../src/reply.js'
import { entryBytes } from '../../../src/executor/memory/memory-accounting.js'
import { mulberry32 } from '../../differential/random-source.js'

/**
 * The memory bound (maxmemory and its eight policies), the per-key access clock behind OBJECT
 * IDLETIME and FREQ, and used_memory's bookkeeping. Time is an injected clock and randomness a
 * seeded generator, so every eviction below is reproducible.
 */

const START = Date.UTC(2026, 0, 1)
const OOM = "OOM command not allowed when used memory > 'maxmemory'."
const VALUE = 'v'.repeat(100)
/** What one `key:<n>` (n < 1000) holding {@link VALUE} is accounted at. */
const KEY_BYTES = entryBytes('key:000', VALUE)

const engines: Engine[] = []
afterEach(() => {
  for (const engine of engines.splice(0)) engine.close()
})


function setup(options: EngineOptions = {}) {
  let now = START
  const engine = new Engine({ clock: () => now, activeExpiryInterval: 0, random: mulberry32(7), ...options })
  engines.push(engine)
  const session = engine.createSession()
  const run = (...argv: string[]): Out => engine.call(session, argv)
  /** Moves the clock and lets the cron tick see it (what the active-expiry timer does). */
  const advance = (ms: number): void => {
    now += ms
    engine.expireDue()
  }
  /** Sets maxmemory to the baseline plus room for `keys` keys of the test's size. */
  const limitTo = (keys: number, policy: string): void => {
    expect(run('CONFIG', 'SET', 'maxmemory', String(engine.baselineMemory + keys * KEY_BYTES), 'maxmemory-policy', policy)).toEqual({ text: 'OK' })
  }
  const key = (n: number): string => `key:${String(n).padStart(3, '0')}`
  const exists = (n: number): boolean => run('EXISTS', key(n)) === 1
  return { engine, run, advance, limitTo, key, exists }
}

function infoField(out: Out, field: string): string {
  const match = new RegExp(`^${field}:(.*)\\r$`, 'm').exec(String(out))
  if (match === null) throw new Error(`no ${field} in INFO`)
  return match[1]
}

describe('maxmemory policies', () => {
  test('noeviction refuses denyoom commands with the OOM error; reads and deletes still run', () => {
    const { run, limitTo, key } = setup()
    for (let n = 0; n < 10; n++) run('SET', key(n), VALUE)
    limitTo(5, 'noeviction')
    const refused = run('SET', key(99), VALUE)
    expect(refused).toBeInstanceOf(ReplyError)
    expect((refused as ReplyError).message).toBe(OOM)
    expect(run('GET', key(1))).toBe(VALUE)
    expect(run('DEL', key(1), key(2), key(3), key(4), key(5), key(6))).toBe(6)
    expect(run('SET', key(99), VALUE)).toEqual({ text: 'OK' })
  })

  test('a transaction over the limit is refused as a whole at EXEC', () => {
    const { engine, run, limitTo, key } = setup()
    for (let n = 0; n < 10; n++) run('SET', key(n), VALUE)
    limitTo(5, 'noeviction')
    const reply = engine.transaction(engine.createSession(), [['GET', key(0)], ['SET', key(50), VALUE]])
    // Redis aborts the block (execCommandAbort): EXECABORT naming the OOM error.
    expect((reply as ReplyError).message).toBe(`EXECABORT Transaction discarded because of: ${OOM}`)
    expect(run('EXISTS', key(50))).toBe(0)
    // Read-only blocks still run.
    expect(engine.transaction(engine.createSession(), [['GET', key(0)]])).toEqual([VALUE])
  })

  test('allkeys-lru keeps the keys read recently and evicts idle ones; evicted_keys counts them', () => {
    const { run, advance, limitTo, key, exists } = setup({ maxmemoryPolicy: 'allkeys-lru' })
    for (let n = 0; n < 100; n++) run('SET', key(n), VALUE)
    advance(100_000)
    for (let n = 0; n < 10; n++) run('GET', key(n))
    limitTo(100, 'allkeys-lru')
    for (let n = 100; n < 150; n++) expect(run('SET', key(n), VALUE)).toEqual({ text: 'OK' })
    for (let n = 0; n < 10; n++) expect(exists(n)).toBe(true)
    for (let n = 100; n < 150; n++) expect(exists(n)).toBe(true)
    const evicted = Number(infoField(run('INFO', 'stats'), 'evicted_keys'))
    // Eviction runs before each write, so the last write may leave the data one key over.
    expect(evicted).toBeGreaterThanOrEqual(49)
    expect(run('DBSIZE')).toBe(150 - evicted)
  })

  test('allkeys-lfu keeps frequently read keys over keys read once', () => {
    const { run, limitTo, key, exists } = setup()
    expect(run('CONFIG', 'SET', 'maxmemory-policy', 'allkeys-lfu')).toEqual({ text: 'OK' })
    for (let n = 0; n < 100; n++) run('SET', key(n), VALUE)
    for (let round = 0; round < 200; round++) for (let n = 0; n < 10; n++) run('GET', key(n))
    limitTo(100, 'allkeys-lfu')
    for (let n = 100; n < 150; n++) run('SET', key(n), VALUE)
    for (let n = 0; n < 10; n++) expect(exists(n)).toBe(true)
    let cold = 0
    for (let n = 10; n < 100; n++) if (exists(n)) cold++
    expect(cold).toBeLessThan(90)
  })

  test('volatile-lru and volatile-random evict only keys with a TTL, then answer OOM', () => {
    for (const policy of ['volatile-lru', 'volatile-lfu', 'volatile-random']) {
      const { run, limitTo, key, exists } = setup()
      for (let n = 0; n < 20; n++) run('SET', key(n), VALUE)
      for (let n = 0; n < 20; n += 2) run('EXPIRE', key(n), '1000')
      limitTo(20, policy)
      let n = 100
      let reply: Out
      do reply = run('SET', key(n++), VALUE)
      while (!(reply instanceof ReplyError) && n < 200)
      expect((reply as ReplyError).message, policy).toBe(OOM)
      for (let odd = 1; odd < 20; odd += 2) expect(exists(odd), policy).toBe(true)
      for (let even = 0; even < 20; even += 2) expect(exists(even), policy).toBe(false)
    }
  })

  test('volatile-ttl evicts the key with the nearest deadline first', () => {
    const { engine, run, key, exists } = setup()
    for (let n = 0; n < 10; n++) run('SET', key(n), VALUE, 'EX', String(1000 - n * 10))
    // Full now: each further write evicts about one key.
    run('CONFIG', 'SET', 'maxmemory', String(engine.usedMemory()), 'maxmemory-policy', 'volatile-ttl')
    run('SET', key(50), VALUE)
    run('SET', key(51), VALUE)
    run('SET', key(52), VALUE)
    // key 9 (910 s) and key 8 (920 s) had the nearest deadlines.
    expect(exists(9)).toBe(false)
    expect(exists(8)).toBe(false)
    for (let n = 0; n < 8; n++) expect(exists(n)).toBe(true)
  })

  test('allkeys-random evicts until the data fits, whatever the keys', () => {
    const { engine, run, limitTo, key } = setup()
    for (let n = 0; n < 50; n++) run('SET', key(n), VALUE)
    limitTo(30, 'allkeys-random')
    run('SET', key(99), VALUE)
    // Eviction runs before the command, so the write itself may go one key over.
    expect(engine.usedMemory()).toBeLessThanOrEqual(engine.baselineMemory + 31 * KEY_BYTES)
    expect(run('DBSIZE')).toBeLessThanOrEqual(31)
    expect(run('EXISTS', key(99))).toBe(1)
    expect(Number(infoField(run('INFO', 'stats'), 'evicted_keys'))).toBe(50 + 1 - (run('DBSIZE') as number))
  })

  test('options set the limit and policy; invalid values are refused', () => {
    const { run } = setup({ maxmemory: 123_456_789, maxmemoryPolicy: 'allkeys-lfu' })
    expect(run('CONFIG', 'GET', 'maxmemory')).toEqual(['maxmemory', '123456789'])
    expect(run('CONFIG', 'GET', 'maxmemory-policy')).toEqual(['maxmemory-policy', 'allkeys-lfu'])
    expect(() => new Engine({ maxmemory: -1 })).toThrow(/maxmemory/)
    expect(() => new Engine({ maxmemoryPolicy: 'lru' as never })).toThrow(/maxmemoryPolicy/)
  })
})

describe('the access clock', () => {
  test('OBJECT IDLETIME counts seconds since the last access; OBJECT itself does not touch', () => {
    const { run, advance } = setup({ maxmemoryPolicy: 'allkeys-lru' })
    run('SET', 'k', 'v')
    advance(10_000)
    expect(run('OBJECT', 'IDLETIME', 'k')).toBe(10)
    advance(5_000)
    expect(run('OBJECT', 'IDLETIME', 'k')).toBe(15)
    run('GET', 'k')
    expect(run('OBJECT', 'IDLETIME', 'k')).toBe(0)
    expect(run('OBJECT', 'IDLETIME', 'missing')).toBe(null)
  })

  test('OBJECT FREQ starts at 5, grows logarithmically with hits and decays with idle minutes', () => {
    const { run, advance } = setup({ maxmemoryPolicy: 'allkeys-lfu' })
    run('SET', 'k', 'v')
    expect(run('OBJECT', 'FREQ', 'k')).toBe(5)
    for (let i = 0; i < 1000; i++) run('GET', 'k')
    const hot = run('OBJECT', 'FREQ', 'k') as number
    // lfu-log-factor 10: Redis's table gives about 18 for 1000 hits; far below the 255 ceiling.
    expect(hot).toBeGreaterThan(12)
    expect(hot).toBeLessThan(30)
    advance(3 * 60_000)
    expect(run('OBJECT', 'FREQ', 'k')).toBe(hot - 3)
    expect(run('CONFIG', 'SET', 'lfu-decay-time', '0')).toEqual({ text: 'OK' })
    // No decay: the stored counter, which OBJECT FREQ never wrote back, shows undecayed.
    advance(60 * 60_000)
    expect(run('OBJECT', 'FREQ', 'k')).toBe(hot)
  })

  test('the policy decides which of the two OBJECT answers: IDLETIME under every non-LFU policy, FREQ under LFU', () => {
    const { run, advance } = setup()
    run('SET', 'k', 'v')
    expect((run('OBJECT', 'FREQ', 'k') as ReplyError).message).toMatch(/^ERR An LFU maxmemory policy is not selected/)
    for (const policy of ['noeviction', 'allkeys-random', 'volatile-random', 'volatile-ttl', 'volatile-lru']) {
      run('CONFIG', 'SET', 'maxmemory-policy', policy)
      run('GET', 'k')
      advance(3_000)
      expect(run('OBJECT', 'IDLETIME', 'k')).toBe(3)
      // TOUCH looks the key up as a read does, so it counts as an access.
      run('TOUCH', 'k')
      expect(run('OBJECT', 'IDLETIME', 'k')).toBe(0)
    }
    run('CONFIG', 'SET', 'maxmemory-policy', 'volatile-lfu')
    expect((run('OBJECT', 'IDLETIME', 'k') as ReplyError).message).toMatch(/^ERR An LFU maxmemory policy is selected/)
    // Switching to LRU: keys not accessed since count as idle from the switch.
    run('CONFIG', 'SET', 'maxmemory-policy', 'allkeys-lru')
    advance(7_000)
    expect(run('OBJECT', 'IDLETIME', 'k')).toBe(7)
  })
})

describe('used_memory', () => {
  test('follows writes, overwrites, TTLs, deletes and flushes exactly for strings', () => {
    const { engine, run, key } = setup()
    const base = engine.usedMemory()
    expect(base).toBe(engine.baselineMemory)
    for (let n = 0; n < 10; n++) run('SET', key(n), VALUE)
    expect(engine.usedMemory() - base).toBe(10 * KEY_BYTES)
    run('SET', key(0), 'short')
    expect(engine.usedMemory() - base).toBe(9 * KEY_BYTES + entryBytes(key(0), 'short'))
    run('EXPIRE', key(1), '100')
    const withTtl = engine.usedMemory()
    expect(withTtl).toBeGreaterThan(base + 9 * KEY_BYTES + entryBytes(key(0), 'short'))
    run('PERSIST', key(1))
    run('DEL', key(0))
    expect(engine.usedMemory() - base).toBe(9 * KEY_BYTES)
    run('SELECT', '1')
    run('FLUSHALL')
    expect(engine.usedMemory()).toBe(base)
    const info = run('INFO', 'memory')
    expect(Number(infoField(info, 'used_memory'))).toBe(base)
    expect(Number(infoField(info, 'used_memory_rss'))).toBeGreaterThan(0)
  })

  test('collections changed in place are re-estimated after the command', () => {
    const { engine, run } = setup()
    const base = engine.usedMemory()
    run('RPUSH', 'list', 'a')
    const one = engine.usedMemory() - base
    for (let i = 0; i < 100; i++) run('RPUSH', 'list', VALUE)
    const many = engine.usedMemory() - base
    expect(many).toBeGreaterThan(one + 100 * VALUE.length)
    run('HSET', 'hash', 'f', VALUE)
    run('DEL', 'list', 'hash')
    expect(engine.usedMemory()).toBe(base)
  })
})
