import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { allCommands } from '../../../src/commands/lookup.js'
import { stringMatch as globMatch } from '../../../src/executor/memory/lib/glob.js'
import { parseMemory } from '../../../src/executor/memory/commands/server/config-parameters.js'
import type { EngineOptions } from '../../../src/executor/memory/engine.js'
import { closeEngines, engineSession, type Plain } from '../../support/engine.js'

/**
 * What the differential suite cannot compare live: session state across commands (SELECT, CLIENT
 * SETNAME, RESET — the socket executor refuses the latter two), figures that depend on time or
 * on the process (TIME, LASTSAVE, INFO counters, avg_ttl, MEMORY USAGE), and the command table's
 * commands newer than the local 7.0 server.
 */

/** An engine on a fake clock (active expiry off) and one session to talk to it. */
function setup(options: Omit<EngineOptions, 'clock'> = {}) {
  const under = engineSession({ engine: options, address: '127.0.0.1:5000' })
  return Object.assign(under, {
    info: (section: string): Map<string, string> => {
      const fields = new Map<string, string>()
      for (const line of (under.run('INFO', section) as string).split('\r\n')) {
        const colon = line.indexOf(':')
        if (colon > 0) fields.set(line.slice(0, colon), line.slice(colon + 1))
      }
      return fields
    },
  })
}

afterEach(closeEngines)

describe('SELECT, SWAPDB and MOVE keep to sessions and databases', () => {
  test('SELECT changes the session database for its next commands', () => {
    const { run } = setup()
    run('SET', 'k', 'db0')
    expect(run('SELECT', '3')).toBe('OK')
    expect(run('GET', 'k')).toBeNull()
    run('SET', 'k', 'db3')
    expect(run('SELECT', '16')).toEqual({ error: 'ERR DB index is out of range' })
    expect(run('GET', 'k')).toBe('db3')
    run('SELECT', '0')
    expect(run('GET', 'k')).toBe('db0')
  })

  test('the databases option bounds SELECT and shows in CONFIG GET databases', () => {
    const { run } = setup({ databases: 4 })
    expect(run('SELECT', '3')).toBe('OK')
    expect(run('SELECT', '4')).toEqual({ error: 'ERR DB index is out of range' })
    expect(run('CONFIG', 'GET', 'databases')).toEqual(['databases', '4'])
  })

  test('SWAPDB is seen by a session on the other database, and INFO keyspace names databases right', () => {
    const { engine, run, runAs } = setup()
    const other = engine.createSession()
    runAs(other, 'SELECT', '1')
    run('SET', 'a', '1')
    run('SET', 'b', '2')
    expect(run('SWAPDB', '0', '1')).toBe('OK')
    expect(runAs(other, 'DBSIZE')).toBe(2)
    expect(run('DBSIZE')).toBe(0)
    expect(run('INFO', 'keyspace')).toBe('# Keyspace\r\ndb1:keys=2,expires=0,avg_ttl=0\r\n')
  })

  test('MOVE keeps the absolute expiry time', () => {
    const { run, advance } = setup()
    run('SET', 'k', 'v', 'PX', '5000')
    advance(1000)
    expect(run('MOVE', 'k', '2')).toBe(1)
    run('SELECT', '2')
    expect(run('PTTL', 'k')).toBe(4000)
    advance(4001)
    expect(run('GET', 'k')).toBeNull()
  })
})

describe('connection commands on one session', () => {
  test('CLIENT SETNAME / GETNAME, and names Redis refuses', () => {
    const { run } = setup()
    expect(run('CLIENT', 'GETNAME')).toBeNull()
    expect(run('CLIENT', 'SETNAME', 'worker-1')).toBe('OK')
    expect(run('CLIENT', 'GETNAME')).toBe('worker-1')
    for (const bad of ['a b', 'a\nb', 'é', '\x7f']) {
      expect(run('CLIENT', 'SETNAME', bad)).toEqual({ error: 'ERR Client names cannot contain spaces, newlines or special characters.' })
    }
    expect(run('CLIENT', 'SETNAME', '')).toBe('OK')
    expect(run('CLIENT', 'GETNAME')).toBeNull()
  })

  test('CLIENT INFO and CLIENT LIST describe the session', () => {
    const { run, session } = setup()
    run('CLIENT', 'SETNAME', 'app')
    run('SELECT', '2')
    const line = run('CLIENT', 'INFO') as string
    expect(line).toMatch(new RegExp(`^id=${session.id} addr=127\\.0\\.0\\.1:5000 laddr=127\\.0\\.0\\.1:6379 fd=-1 name=app age=0 idle=0 flags=N db=2 `))
    expect(line).toMatch(/ cmd=client\|info user=default redir=-1 resp=2\n$/)
    expect(run('CLIENT', 'LIST')).toMatch(/ cmd=client\|list /)
    expect(run('CLIENT', 'LIST', 'ID', String(session.id))).toMatch(/^id=/)
    expect(run('CLIENT', 'LIST', 'ID', String(session.id + 100))).toBe('')
    expect(run('CLIENT', 'LIST', 'TYPE', 'pubsub')).toBe('')
    expect(run('CLIENT', 'LIST', 'TYPE', 'NORMAL')).toMatch(/^id=/)
    expect(run('CLIENT', 'ID')).toBe(session.id)
  })

  test('CLIENT NO-EVICT takes on or off', () => {
    const { run } = setup()
    expect(run('CLIENT', 'NO-EVICT', 'on')).toBe('OK')
    expect(run('CLIENT', 'NO-EVICT', 'OFF')).toBe('OK')
    expect(run('CLIENT', 'NO-EVICT', 'maybe')).toEqual({ error: 'ERR syntax error' })
  })

  test('RESET returns the session to database 0 without a name (https://redis.io/docs/latest/commands/reset/)', () => {
    const { run, session } = setup()
    run('SELECT', '5')
    run('CLIENT', 'SETNAME', 'x')
    expect(run('RESET')).toBe('RESET')
    expect(session.db).toBe(0)
    expect(run('CLIENT', 'GETNAME')).toBeNull()
  })
})

describe('time and persistence figures', () => {
  test('TIME reads the command time snapshot', () => {
    const { run, advance } = setup()
    expect(run('TIME')).toEqual(['1700000000', '0'])
    advance(1234.5)
    expect(run('TIME')).toEqual(['1700000001', '234500'])
  })

  test('LASTSAVE is the start time until SAVE or BGSAVE runs; the change counter resets', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'restis-lastsave-'))
    try {
      const { run, advance, info, engine } = setup({ persistence: { dir, save: '' } })
      expect(run('LASTSAVE')).toBe(1_700_000_000)
      run('SET', 'a', '1')
      run('SET', 'b', '1')
      run('GET', 'a')
      run('INCR', 'b')
      expect(info('persistence').get('rdb_changes_since_last_save')).toBe('3')
      advance(10_000)
      expect(run('SAVE')).toBe('OK')
      expect(run('LASTSAVE')).toBe(1_700_000_010)
      expect(info('persistence').get('rdb_changes_since_last_save')).toBe('0')
      advance(5_000)
      expect(run('BGSAVE')).toBe('Background saving started')
      await engine.rdb!.whenIdle()
      expect(run('LASTSAVE')).toBe(1_700_000_015)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('without a data directory SAVE and BGSAVE refuse, and save points cannot be set', () => {
    const { run, engine } = setup()
    const refusal = { error: expect.stringMatching(/^ERR persistence is off/) }
    expect(run('SAVE')).toEqual(refusal)
    expect(run('BGSAVE')).toEqual(refusal)
    expect(run('BGSAVE', 'x')).toEqual({ error: 'ERR syntax error' })
    expect(engine.config.get('save')).toBe('')
    expect(run('CONFIG', 'SET', 'save', '60 1')).toEqual({ error: expect.stringMatching(/argument 'save'\) - persistence is off/) })
    expect(run('CONFIG', 'SET', 'save', '')).toBe('OK')
  })
})

describe('INFO figures', () => {
  test('keyspace: keys, expires and the average remaining TTL in ms', () => {
    const { run, advance } = setup()
    run('SET', 'a', '1', 'PX', '10000')
    run('SET', 'b', '1', 'PX', '20000')
    run('SET', 'c', '1')
    advance(5000)
    expect(run('INFO', 'keyspace')).toBe('# Keyspace\r\ndb0:keys=3,expires=2,avg_ttl=10000\r\n')
  })

  test('stats: commands processed, expired keys, errors, connections; CONFIG RESETSTAT zeroes them', () => {
    const { run, advance, info, engine } = setup()
    engine.createSession()
    run('SET', 'a', '1', 'PX', '10')
    run('GET')
    run('NOSUCH')
    run('HGET', 'a', 'f')
    advance(20)
    run('GET', 'a')
    const stats = info('stats')
    expect(stats.get('total_commands_processed')).toBe('3')
    expect(stats.get('expired_keys')).toBe('1')
    expect(stats.get('total_error_replies')).toBe('3')
    expect(stats.get('total_connections_received')).toBe('2')
    expect(run('INFO', 'errorstats')).toBe('# Errorstats\r\nerrorstat_ERR:count=2\r\nerrorstat_WRONGTYPE:count=1\r\n')
    const commandstats = run('INFO', 'commandstats') as string
    expect(commandstats).toMatch(/cmdstat_get:calls=1,usec=\d+,usec_per_call=[\d.]+,rejected_calls=1,failed_calls=0\r\n/)
    expect(commandstats).toMatch(/cmdstat_hget:calls=1,usec=\d+,usec_per_call=[\d.]+,rejected_calls=0,failed_calls=1\r\n/)
    run('CONFIG', 'RESETSTAT')
    const reset = info('stats')
    expect(reset.get('total_commands_processed')).toBe('1')
    expect(reset.get('expired_keys')).toBe('0')
    expect(reset.get('total_error_replies')).toBe('0')
    expect(run('INFO', 'errorstats')).toBe('# Errorstats\r\n')
  })

  test('server: uptime from the clock, hz and port from CONFIG; every line ends with CRLF', () => {
    const { run, advance, info } = setup()
    advance(2 * 86400 * 1000 + 5000)
    run('CONFIG', 'SET', 'hz', '20')
    const server = info('server')
    expect(server.get('uptime_in_seconds')).toBe(String(2 * 86400 + 5))
    expect(server.get('uptime_in_days')).toBe('2')
    expect(server.get('hz')).toBe('20')
    expect(server.get('tcp_port')).toBe('6379')
    expect(server.get('redis_version')).toBe('7.0.15')
    expect(server.get('run_id')).toMatch(/^[0-9a-f]{40}$/)
    const text = run('INFO') as string
    expect(text.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/)
    expect(text.endsWith('\r\n')).toBe(true)
  })

  test('memory: used_memory grows with the dataset and maxmemory follows CONFIG', () => {
    const { run, info } = setup()
    const before = Number(info('memory').get('used_memory'))
    for (let i = 0; i < 100; i++) run('SET', `key:${i}`, 'x'.repeat(100))
    const after = info('memory')
    expect(Number(after.get('used_memory'))).toBeGreaterThan(before + 100 * 100)
    expect(after.get('used_memory_human')).toMatch(/^\d+\.\d\dM|^\d+\.\d\dK$/)
    run('CONFIG', 'SET', 'maxmemory', '1mb', 'maxmemory-policy', 'allkeys-lru')
    const configured = info('memory')
    expect(configured.get('maxmemory')).toBe('1048576')
    expect(configured.get('maxmemory_human')).toBe('1.00M')
    expect(configured.get('maxmemory_policy')).toBe('allkeys-lru')
  })
})

describe('MEMORY USAGE estimates', () => {
  test('small strings as Redis counts them; larger values cost more; SAMPLES 0 walks everything', () => {
    const { run } = setup()
    run('SET', 'a', 'hello')
    expect(run('MEMORY', 'USAGE', 'a')).toBe(64)
    run('SET', 'big', 'x'.repeat(1000))
    expect(run('MEMORY', 'USAGE', 'big')).toBeGreaterThan(1000)
    run('HSET', 'h', 'f1', 'v1', 'f2', 'v2')
    const small = run('MEMORY', 'USAGE', 'h') as number
    for (let i = 0; i < 50; i++) run('HSET', 'h', `field:${i}`, 'value')
    expect(run('MEMORY', 'USAGE', 'h', 'SAMPLES', '0')).toBeGreaterThan(small)
  })
})

describe('CONFIG values reach engine.config', () => {
  test('defaults are Redis 7.0 defaults; aliases write the canonical name', () => {
    const { run, engine } = setup()
    expect(engine.config.get('hash-max-listpack-entries')).toBe('512')
    expect(engine.config.get('set-max-intset-entries')).toBe('512')
    expect(engine.config.get('maxmemory-policy')).toBe('noeviction')
    expect(engine.config.get('save')).toBe('')
    run('CONFIG', 'SET', 'hash-max-ziplist-entries', '64', 'notify-keyspace-events', 'KEA')
    expect(engine.config.get('hash-max-listpack-entries')).toBe('64')
    expect(engine.config.has('hash-max-ziplist-entries')).toBe(false)
    expect(engine.config.get('notify-keyspace-events')).toBe('AKE')
    expect(run('CONFIG', 'REWRITE')).toEqual({ error: 'ERR The server is running without a config file' })
  })

  test('memory values as memtoull reads them', () => {
    expect(parseMemory('1gb')).toBe(1073741824n)
    expect(parseMemory('1G')).toBe(1000000000n)
    expect(parseMemory('')).toBe(0n)
    expect(parseMemory('-1')).toBeNull()
    expect(parseMemory('99999999999999999999999')).toBe(18446744073709551615n)
    expect(parseMemory('1x')).toBeNull()
  })
})

describe('COMMAND and the generated table', () => {
  test('COMMAND COUNT counts every top-level command of the table, newer ones included', () => {
    const { run } = setup()
    const topLevel = [...allCommands()].filter((info) => info.parent === undefined).length
    expect(run('COMMAND', 'COUNT')).toBe(topLevel)
    expect((run('COMMAND') as Plain[]).length).toBe(topLevel)
    expect(pairsOf(run('COMMAND', 'DOCS') as Plain[]).length).toBe(topLevel)
  })

  test('COMMAND INFO HEXPIRE as a 7.4 server reports it (https://redis.io/docs/latest/commands/hexpire/)', () => {
    const { run } = setup()
    expect(run('COMMAND', 'INFO', 'hexpire')).toEqual([
      [
        'hexpire', -6, ['write', 'denyoom', 'fast'], 1, 1, 1, ['@write', '@hash', '@fast'], [],
        [['flags', ['RW', 'update'], 'begin_search', ['type', 'index', 'spec', ['index', 1]], 'find_keys', ['type', 'range', 'spec', ['lastkey', 0, 'keystep', 1, 'limit', 0]]]],
        [],
      ],
    ])
  })

  test('COMMAND DOCS of a module command names its module (https://redis.io/docs/latest/commands/json.get/)', () => {
    const { run } = setup()
    const docs = pairsOf(run('COMMAND', 'DOCS', 'json.get') as Plain[])
    expect(docs[0][0]).toBe('json.get')
    const fields = new Map(pairsOf(docs[0][1] as Plain[]))
    expect(fields.get('module')).toBe('ReJSON')
    expect(fields.get('group')).toBe('module')
    expect(run('COMMAND', 'LIST', 'FILTERBY', 'MODULE', 'rejson')).toContain('json.get')
  })
})

describe('glob patterns follow stringmatchlen', () => {
  test.each([
    ['*', '', false], // stringmatchlen's loop needs a byte of subject: '*' never matches an empty string
    ['a*b', 'ab', true],
    ['a*b', 'axxb', true],
    ['a*b', 'axxbc', false],
    ['a?c', 'abc', true],
    ['a?c', 'ac', false],
    ['[abc]x', 'bx', true],
    ['[^abc]x', 'bx', false],
    ['[^abc]x', 'dx', true],
    ['[a-c]', 'b', true],
    ['[c-a]', 'b', true],
    ['[]a', 'a', false],
    ['[a', 'a', true],
    ['[a', 'b', false],
    ['a\\*', 'a*', true],
    ['a\\*', 'ab', false],
    ['a\\', 'a\\', true],
    ['[\\]]', ']', true],
    ['*a*a*a*a*a*a*a*b', 'a'.repeat(40), false],
  ])('%s against %s is %s', (pattern, text, expected) => {
    expect(globMatch(pattern, text)).toBe(expected)
  })

  test('NOCASE folds letters, including ranges, but not escaped class members', () => {
    expect(globMatch('MAXMEM*', 'maxmemory', true)).toBe(true)
    expect(globMatch('[A-Z]x', 'qx', true)).toBe(true)
    expect(globMatch('[\\A]', 'a', true)).toBe(false)
  })
})

function pairsOf(items: readonly Plain[]): [Plain, Plain][] {
  const pairs: [Plain, Plain][] = []
  for (let i = 0; i < items.length; i += 2) pairs.push([items[i], items[i + 1]])
  return pairs
}
