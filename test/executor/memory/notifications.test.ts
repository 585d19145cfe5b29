/**
 * Keyspace notifications inside the engine, where a clock and a seeded generator make time and
 * eviction reproducible: `expired` from lazy and active expiry, `evicted`, `new`, nothing when
 * off, the engine's event flags following CONFIG SET (`n` hidden under `A` in CONFIG GET but
 * kept), and the REST `/psubscribe` stream receiving the same events as RESP subscribers.
 * (The events of every command are compared with redis-server in test/differential/notifications.)
 */
import { afterEach, describe, expect, test } from 'vitest'
import { Engine, type EngineOptions } from '../../../src/executor/memory/engine.js'
import { MemoryExecutor } from '../../../src/executor/memory/memory-executor.js'
import { createGateway } from '../../../src/rest/gateway.js'
import { createFetchHandler } from '../../../src/adapters/fetch.js'
import { formatEventClasses, parseEventClasses } from '../../../src/executor/memory/notify.js'
import type { PubSubReply } from '../../../src/executor/memory/pubsub.js'
import { requester, resultOf } from '../../support/gateway.js'
import { EventReader } from '../../support/sse.js'

const START = Date.UTC(2026, 0, 1)
const engines: Engine[] = []
afterEach(() => {
  for (const engine of engines.splice(0)) engine.close()
})

/** An engine on a clock the test moves, with a session that listens to every keyspace event. */
function setup(options: EngineOptions = {}, flags = 'KEA') {
  let now = START
  const engine = new Engine({ clock: () => now, activeExpiryInterval: 0, ...options })
  engines.push(engine)
  const session = engine.createSession()
  const listener = engine.createSession()
  const heard: string[] = []
  engine.pubsub.attach(listener.id, (reply: PubSubReply) => {
    if (reply[0] === 'pmessage') heard.push(`${String(reply[2])} ${String(reply[3])}`)
  })
  engine.pubsub.psubscribe(listener.id, ['__key*__:*'])
  const call = (...argv: string[]) => engine.call(session, argv)
  if (flags !== '') expect(call('CONFIG', 'SET', 'notify-keyspace-events', flags)).toEqual(expect.anything())
  return { engine, call, heard, advance: (ms: number) => (now += ms), clear: () => heard.splice(0) }
}

describe('keyspace notifications in the engine', () => {
  test('off by default: commands publish nothing, and the flags stay 0', () => {
    const { engine, call, heard } = setup({}, '')
    call('SET', 'a', '1')
    call('DEL', 'a')
    expect(heard).toEqual([])
    expect(engine.notifier.flags).toBe(0)
    expect(call('CONFIG', 'GET', 'notify-keyspace-events')).toEqual(['notify-keyspace-events', ''])
  })

  test('a key read after its deadline is deleted and reported expired (lazy expiry), before the command misses it', () => {
    const { call, heard, advance, clear } = setup({}, 'KEAm')
    call('SET', 'session', 'v', 'PX', '100')
    clear()
    advance(101)
    expect(call('GET', 'session')).toBe(null)
    expect(heard).toEqual([
      '__keyspace@0__:session expired',
      '__keyevent@0__:expired session',
      '__keyspace@0__:session keymiss',
      '__keyevent@0__:keymiss session',
    ])
  })

  test('the active expiry cycle reports each key it reclaims, in the database it lived in', () => {
    const { engine, call, heard, advance, clear } = setup({}, 'Ex')
    call('SET', 'a', '1', 'PX', '10')
    call('SELECT', '3')
    call('SET', 'b', '1', 'PX', '20')
    call('SET', 'c', '1', 'PX', '1000')
    clear()
    advance(50)
    expect(engine.expireDue()).toBe(2)
    expect(heard).toEqual(['__keyevent@0__:expired a', '__keyevent@3__:expired b'])
  })

  test('evicted: each key the memory bound removes is reported', () => {
    const { call, heard, clear } = setup({ maxmemory: 1, maxmemoryPolicy: 'allkeys-random', random: () => 0.5 }, 'Ee')
    clear()
    call('CONFIG', 'SET', 'maxmemory', '0')
    for (let i = 0; i < 5; i++) call('SET', `key:${i}`, 'x'.repeat(200))
    call('CONFIG', 'SET', 'maxmemory', '1')
    expect(heard.length).toBe(5)
    for (const line of heard) expect(line).toMatch(/^__keyevent@0__:evicted key:\d$/)
  })

  test('new is reported once per key added, never for an overwrite', () => {
    const { call, heard } = setup({}, 'En')
    call('SET', 'a', '1')
    call('SET', 'a', '2')
    call('LPUSH', 'l', 'x')
    call('LPUSH', 'l', 'y')
    expect(heard).toEqual(['__keyevent@0__:new a', '__keyevent@0__:new l'])
  })

  test('n stays on under A though CONFIG GET does not show it; setting A again turns it off', () => {
    const { engine, call, heard, clear } = setup({}, 'AnE')
    expect(call('CONFIG', 'GET', 'notify-keyspace-events')).toEqual(['notify-keyspace-events', 'AE'])
    call('SET', 'a', '1')
    expect(heard).toEqual(['__keyevent@0__:new a', '__keyevent@0__:set a'])
    clear()
    call('CONFIG', 'SET', 'notify-keyspace-events', 'AE')
    expect(formatEventClasses(engine.notifier.flags)).toBe('AE')
    call('SET', 'b', '1')
    expect(heard).toEqual(['__keyevent@0__:set b'])
  })

  test('a refused class character leaves the flags as they were', () => {
    const { engine, call } = setup({}, 'KEA')
    const before = engine.notifier.flags
    const reply = call('CONFIG', 'SET', 'notify-keyspace-events', 'KEq')
    expect(String(reply)).toContain("Invalid event class character. Use 'Ag$lshzxeKEtmdn'.")
    expect(engine.notifier.flags).toBe(before)
  })

  test('hash-field expiry (Redis 7.4): hexpire, hpersist, hdel for a deadline already past, hexpired lazy and active, del when the last field goes', () => {
    const { engine, call, heard, advance, clear } = setup({}, 'Ehg')
    call('HSET', 'h', 'a', '1', 'b', '2', 'c', '3')
    clear()
    call('HPEXPIRE', 'h', '100', 'FIELDS', '1', 'a')
    call('HPEXPIRE', 'h', '100', 'NX', 'FIELDS', '1', 'a')
    call('HPERSIST', 'h', 'FIELDS', '2', 'a', 'b')
    call('HPERSIST', 'h', 'FIELDS', '1', 'a')
    call('HPEXPIREAT', 'h', '1', 'FIELDS', '1', 'c')
    expect(heard).toEqual(['__keyevent@0__:hexpire h', '__keyevent@0__:hpersist h', '__keyevent@0__:hdel h'])
    clear()
    call('HPEXPIRE', 'h', '100', 'FIELDS', '1', 'a')
    advance(200)
    expect(call('HGET', 'h', 'a')).toBe(null)
    expect(heard).toEqual(['__keyevent@0__:hexpire h', '__keyevent@0__:hexpired h'])
    clear()
    call('HPEXPIRE', 'h', '100', 'FIELDS', '1', 'b')
    advance(200)
    engine.expireDue()
    expect(heard).toEqual(['__keyevent@0__:hexpire h', '__keyevent@0__:hexpired h', '__keyevent@0__:del h'])
    expect(call('EXISTS', 'h')).toBe(0)
  })

  test("JSON.* report RedisJSON's module events (class d), once per command that changed a document", () => {
    const { call, heard } = setup({}, 'Ed')
    call('JSON.SET', 'doc', '$', '{"n":1,"s":"a","b":true,"arr":[1,2],"o":{}}')
    call('JSON.SET', 'doc', '$.n', '5', 'NX')
    call('JSON.NUMINCRBY', 'doc', '$.n', '2')
    call('JSON.NUMINCRBY', 'doc', '$.s', '2')
    call('JSON.NUMMULTBY', 'doc', '.n', '2')
    call('JSON.STRAPPEND', 'doc', '$.s', '"b"')
    call('JSON.TOGGLE', 'doc', '$.b')
    call('JSON.ARRAPPEND', 'doc', '$.arr', '3')
    call('JSON.ARRAPPEND', 'doc', '$.n', '3')
    call('JSON.ARRINSERT', 'doc', '$.arr', '0', '0')
    call('JSON.ARRPOP', 'doc', '$.arr')
    call('JSON.ARRTRIM', 'doc', '$.arr', '0', '0')
    call('JSON.MERGE', 'doc', '$', '{"m":1}')
    call('JSON.CLEAR', 'doc', '$.o')
    call('JSON.DEL', 'doc', '$.nothing')
    call('JSON.FORGET', 'doc', '$.m')
    call('JSON.MSET', 'doc', '$.n', '0', 'other', '$', '[]')
    call('JSON.DEL', 'doc')
    expect(heard.map((line) => line.replace('__keyevent@0__:', ''))).toEqual([
      'json.set doc', 'json.numincrby doc', 'json.nummultby doc', 'json.strappend doc', 'json.toggle doc', 'json.arrappend doc',
      'json.arrinsert doc', 'json.arrpop doc', 'json.arrtrim doc', 'json.merge doc', 'json.del doc', 'json.mset doc', 'json.mset other',
      'json.del doc',
    ])
  })

  test('class parsing and the CONFIG GET form follow Redis (A, then K, E, m; n and d shown only without A)', () => {
    expect(formatEventClasses(parseEventClasses('$gK')!)).toBe('g$K')
    expect(formatEventClasses(parseEventClasses('mEKA')!)).toBe('AKEm')
    expect(formatEventClasses(parseEventClasses('dn')!)).toBe('dn')
    expect(formatEventClasses(parseEventClasses('g$lshzxetd')!)).toBe('A')
    expect(parseEventClasses('KE?')).toBe(null)
  })
})

describe('keyspace notifications through the REST /psubscribe stream', () => {
  test('a stream on __keyevent@0__:* receives the events of commands sent over REST, in order', async () => {
    const executor = new MemoryExecutor()
    try {
      const gateway = createGateway({ executor, token: 't', sse: { keepAliveInterval: 0 } })
      const send = requester(gateway, 't')
      expect(resultOf(await send('POST', '/', { body: '["CONFIG","SET","notify-keyspace-events","Eg$l"]' }))).toBe('OK')
      const controller = new AbortController()
      const response = await createFetchHandler(gateway)(
        new Request('http://gateway/psubscribe/__keyevent@0__:*', { method: 'POST', headers: { authorization: 'Bearer t' }, signal: controller.signal }),
      )
      const reader = new EventReader(response.body!)
      expect(await reader.next()).toBe('psubscribe,__keyevent@0__:*,1')
      await send('POST', '/', { body: '["SET","k","v"]' })
      await send('POST', '/', { body: '["RPUSH","list","a"]' })
      await send('POST', '/', { body: '["DEL","k","list"]' })
      expect([await reader.next(), await reader.next(), await reader.next(), await reader.next()]).toEqual([
        'pmessage,__keyevent@0__:*,__keyevent@0__:set,k',
        'pmessage,__keyevent@0__:*,__keyevent@0__:rpush,list',
        'pmessage,__keyevent@0__:*,__keyevent@0__:del,k',
        'pmessage,__keyevent@0__:*,__keyevent@0__:del,list',
      ])
      controller.abort()
    } finally {
      await executor.close()
    }
  })
})
