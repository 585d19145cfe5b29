/**
 * RESP3 inside Lua scripts, byte for byte against redis-server 7.0.15: what a script returns
 * (`{double = …}`, `{map = …}`, `{set = …}`, `{big_number = …}`, `{verbatim_string = …}`, Lua
 * booleans) reaches a `HELLO 3` connection as the RESP3 type and a `HELLO 2` connection in its
 * RESP2 form; after `redis.setresp(3)`, `redis.call` hands the script Redis's Lua shapes of each
 * command's RESP3 reply (maps, sets, doubles, nulls as nil), inspected and returned as they are.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { MemoryExecutor } from '../../../src/executor/memory/memory-executor.js'
import { serveResp, type RespServer } from '../../../src/adapters/resp-server.js'
import type { Command } from '../../../src/reply.js'
import { liveSuiteName, redisServerSkipReason, startRedisServer, type RedisServer } from '../../support/redis-server.js'
import { WireClient } from './wire.js'

interface LuaCase {
  readonly name: string
  readonly commands: readonly Command[]
}

const ev = (script: string, ...keys: string[]): Command => ['EVAL', script, String(keys.length), ...keys]
const resp3 = (body: string): Command => ev(`redis.setresp(3) ${body}`)

const cases: LuaCase[] = [
  {
    name: 'RESP3 tables a script returns',
    commands: [
      ev('return {double = 1.5}'), ev('return {double = 3}'), ev('return {double = 0.1}'), ev('return {double = 1e300 * 10}'),
      ev('return {double = -1/0}'), ev('return {double = 1/3}'), ev("return {double = 'x'}"),
      ev("return {map = {a = 1}}"), ev("return {map = {a = 1, b = 'two', c = {double = 3.5}, d = {set = {x = true}}}}"), ev('return {map = {}}'),
      ev("return {set = {a = true}}"), ev("return {set = {a = true, b = true, c = true}}"), ev('return {set = {}}'),
      ev("return {big_number = '123'}"), ev("return {big_number = '-99999999999999999999'}"),
      ev("return {verbatim_string = {format = 'txt', string = 'x'}}"), ev("return {verbatim_string = {format = 'markdown', string = 'y'}}"),
      ev("return {verbatim_string = {format = 'a', string = ''}}"), ev("return {verbatim_string = {format = 'txt'}}"),
      ev('return {{double = 2.5}, {map = {k = {1, 2}}}, 7}'), ev("return {err = 'E', double = 1}"), ev("return {ok = 'S', map = {a = 1}}"),
    ],
  },
  {
    name: 'Lua booleans and nil, without and with redis.setresp(3)',
    commands: [
      ev('return true'), ev('return false'), ev('return nil'), ev('return {true, false, 1}'),
      resp3('return true'), resp3('return false'), resp3('return {true, false, 1}'), resp3('return nil'),
      resp3('redis.setresp(2) return false'), resp3("return {map = {t = true, f = false}}"),
    ],
  },
  {
    name: 'redis.setresp(3): maps, sets and doubles from redis.call, returned as they came',
    commands: [
      ['HSET', 'h', 'a', '1'], ['SADD', 's', 'm'], ['ZADD', 'z', '1.5', 'x', '2', 'y'], ['XADD', 'st', '1-1', 'f', 'v'],
      resp3("return redis.call('HGETALL', 'h')"), resp3("return redis.call('HGETALL', 'nokey')"),
      resp3("return redis.call('SMEMBERS', 's')"), resp3("return redis.call('SMEMBERS', 'nokey')"),
      resp3("return redis.call('ZSCORE', 'z', 'x')"), resp3("return redis.call('ZINCRBY', 'z', '1', 'x')"),
      resp3("return redis.call('ZRANGE', 'z', 0, -1, 'WITHSCORES')"), resp3("return redis.call('ZPOPMIN', 'z')"),
      resp3("return redis.call('ZMSCORE', 'z', 'y', 'nope')"), resp3("return redis.call('XREAD', 'STREAMS', 'st', '0')"),
      resp3("return redis.call('CONFIG', 'GET', 'maxmemory-policy')"), resp3("return redis.call('INCRBYFLOAT', 'f', '1.5')"),
      resp3("return redis.call('HRANDFIELD', 'h', 1, 'WITHVALUES')"),
    ],
  },
  {
    name: 'redis.setresp(3): the Lua shapes seen from inside the script',
    commands: [
      ['HSET', 'h', 'a', '1'], ['SADD', 's', 'm'], ['ZADD', 'z', '2.5', 'x'], ['SET', 'k', 'v'],
      resp3("local r = redis.call('HGETALL', 'h') return {type(r), type(r.map), r.map.a}"),
      resp3("local r = redis.call('SMEMBERS', 's') return {type(r.set), tostring(r.set.m)}"),
      resp3("local r = redis.call('ZSCORE', 'z', 'x') return {type(r), type(r.double), tostring(r.double)}"),
      resp3("local r = redis.call('SET', 'k', 'w') return {type(r), r.ok}"),
      resp3("return redis.pcall('INCR', 'k')"), resp3("local r = redis.pcall('INCR', 'k') return r.err"),
      resp3("return redis.call('INCR', 'k')"),
    ],
  },
  {
    name: 'redis.setresp(3): nulls are nil, at the top and inside arrays',
    commands: [
      ['SET', 'k', 'v'], ['ZADD', 'z', '1', 'x'],
      resp3("return redis.call('GET', 'nokey')"), resp3("return type(redis.call('GET', 'nokey'))"),
      resp3("return redis.call('MGET', 'k', 'nokey', 'k')"), resp3("local r = redis.call('MGET', 'nokey', 'k') return {r[1] == nil, r[2]}"),
      resp3("return redis.call('ZMSCORE', 'z', 'nope', 'x')"), resp3("return type(redis.call('LPOP', 'nolist', 2))"),
      resp3("return type(redis.call('ZSCORE', 'z', 'nope'))"), resp3("return redis.call('GEOPOS', 'nogeo', 'a')"),
      resp3("redis.setresp(2) return type(redis.call('GET', 'nokey'))"),
    ],
  },
  {
    name: 'each script starts in RESP2; functions may switch too',
    commands: [
      ['HSET', 'h', 'a', '1'],
      resp3("return redis.call('HGETALL', 'h')"), ev("return redis.call('HGETALL', 'h')"), ev('return true'),
      ['FUNCTION', 'LOAD', "#!lua name=lr3\nredis.register_function('typed', function(keys) redis.setresp(3) return {redis.call('HGETALL', keys[1]), {double = 2}, false} end)"],
      ['FCALL', 'typed', '1', 'h'],
      ['FUNCTION', 'FLUSH'],
    ],
  },
  {
    name: 'inside MULTI, a queued script replies as it would alone',
    commands: [['MULTI'], ev('return {double = 0.25}'), resp3('return {true, {set = {z = true}}}'), ['EXEC']],
  },
]

function shown(command: Command): string {
  return command.map((arg) => (typeof arg === 'string' ? arg : `<${Buffer.from(arg).toString('hex')}>`)).join(' ')
}

for (const protocol of ['3', '2'] as const) {
  describe.skipIf(redisServerSkipReason !== undefined)(
    liveSuiteName(`Lua RESP3 over HELLO ${protocol}: listener vs redis-server 7.0.15, byte for byte`),
    () => {
      let redis: RedisServer
      let memory: MemoryExecutor
      let listener: RespServer
      let ours: WireClient
      let theirs: WireClient

      beforeAll(async () => {
        redis = await startRedisServer()
        memory = new MemoryExecutor()
        listener = await serveResp(memory, { port: 0 })
        ours = await WireClient.connect(listener.address.port)
        theirs = await WireClient.connect(redis.port)
        for (const client of [ours, theirs]) {
          const hello = await client.call(['HELLO', protocol])
          expect(hello.subarray(0, 1).toString()).toBe(protocol === '3' ? '%' : '*')
        }
      })
      afterAll(async () => {
        ours?.close()
        theirs?.close()
        await listener?.close()
        await memory?.close()
        await redis?.stop()
      })

      for (const entry of cases) {
        test(entry.name, async () => {
          // One call at a time per client: a WireClient waits for one reply at once.
          for (const client of [ours, theirs]) {
            await client.call(['FLUSHALL'])
            await client.call(['SCRIPT', 'FLUSH'])
          }
          for (let i = 0; i < entry.commands.length; i++) {
            const command = entry.commands[i]
            const [a, b] = await Promise.all([ours.call(command), theirs.call(command)])
            expect(a.toString('latin1'), `command ${i}: ${shown(command)}`).toBe(b.toString('latin1'))
          }
        })
      }
    },
  )
}
