import { describe, expect, test } from 'vitest'
import { keySlot } from '../../../src/executor/cluster/slot.js'
import { route, transactionSlot, CROSSSLOT } from '../../../src/executor/cluster/route.js'
import { combineInfo, combineReplies } from '../../../src/executor/cluster/combine.js'
import { redirectOf } from '../../../src/executor/cluster/redirect.js'
import { splitSeeds } from '../../../src/executor/cluster/options.js'
import { SlotMap } from '../../../src/executor/cluster/slot-map.js'
import { ReplyError } from '../../../src/reply.js'

describe('key slots', () => {
  test('CRC16 of the key modulo 16384, as CLUSTER KEYSLOT answers', () => {
    // Values from redis-server 7.0.15's CLUSTER KEYSLOT.
    expect(keySlot('123456789')).toBe(12739)
    expect(keySlot('a')).toBe(15495)
    expect(keySlot('')).toBe(0)
    expect(keySlot('foo')).toBe(12182)
  })

  test('only the hash tag is hashed: the first {…} with something inside', () => {
    expect(keySlot('{user1000}.following')).toBe(keySlot('user1000'))
    expect(keySlot('{user1000}.followers')).toBe(keySlot('{user1000}.following'))
    expect(keySlot('foo{}{bar}')).toBe(keySlot('foo{}{bar}')) // empty tag: the whole key
    expect(keySlot('foo{}{bar}')).not.toBe(keySlot('bar'))
    expect(keySlot('foo{{bar}}zap')).toBe(keySlot('{bar'))
    expect(keySlot('foo{bar}{zap}')).toBe(keySlot('bar'))
  })

  test('string keys hash as their UTF-8 bytes', () => {
    expect(keySlot('é')).toBe(keySlot(Buffer.from('é', 'utf8')))
  })
})

describe('routing from the command table', () => {
  const slotOf = (...command: string[]) => {
    const where = route(command)
    return where.kind === 'slot' ? where.slot : where.kind
  }

  test('keys found by key specs, including numkeys and keyword searches', () => {
    expect(slotOf('GET', 'a')).toBe(keySlot('a'))
    expect(slotOf('EVAL', 'return 1', '2', '{t}a', '{t}b', 'arg')).toBe(keySlot('t'))
    expect(slotOf('EVAL', 'return 1', '0', 'arg')).toBe('keyless')
    expect(slotOf('FCALL', 'f', '1', 'k', 'x')).toBe(keySlot('k'))
    expect(slotOf('XREAD', 'COUNT', '1', 'STREAMS', '{s}1', '{s}2', '0', '0')).toBe(keySlot('s'))
    expect(slotOf('XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', 's', '>')).toBe(keySlot('s'))
    expect(slotOf('ZUNIONSTORE', '{z}d', '2', '{z}a', '{z}b')).toBe(keySlot('z'))
    expect(slotOf('ZINTER', '2', '{z}a', '{z}b')).toBe(keySlot('z'))
    expect(slotOf('SORT', '{l}src', 'BY', 'nosort', 'STORE', '{l}dst')).toBe(keySlot('l'))
    expect(slotOf('GEORADIUS', '{g}src', '0', '0', '1', 'km', 'STORE', '{g}dst')).toBe(keySlot('g'))
    expect(slotOf('LMPOP', '2', '{q}a', '{q}b', 'LEFT')).toBe(keySlot('q'))
    expect(slotOf('ZMPOP', '1', 'z', 'MIN')).toBe(keySlot('z'))
    expect(slotOf('OBJECT', 'ENCODING', 'k')).toBe(keySlot('k'))
    expect(slotOf('MEMORY', 'USAGE', 'k')).toBe(keySlot('k'))
  })

  test('keys in several slots: CROSSSLOT, except the commands split per slot', () => {
    expect(route(['SORT', 'src', 'STORE', 'dst'])).toEqual({ kind: 'refused', error: CROSSSLOT })
    expect(route(['GEORADIUS', 'src', '0', '0', '1', 'km', 'STORE', 'dst'])).toEqual({ kind: 'refused', error: CROSSSLOT })
    expect(route(['EVAL', 'return 1', '2', 'a', 'b'])).toEqual({ kind: 'refused', error: CROSSSLOT })
    expect(route(['XREAD', 'STREAMS', 'a', 'b', '0', '0'])).toEqual({ kind: 'refused', error: CROSSSLOT })
    expect(route(['MSETNX', 'a', '1', 'b', '2'])).toEqual({ kind: 'refused', error: CROSSSLOT })
    expect(route(['RENAME', 'a', 'b'])).toEqual({ kind: 'refused', error: CROSSSLOT })
    for (const name of ['MGET', 'DEL', 'UNLINK', 'EXISTS', 'TOUCH']) expect(route([name, 'a', 'b']).kind).toBe('split')
    expect(route(['MSET', 'a', '1', 'b', '2'])).toEqual({ kind: 'split', split: 'mset', keys: [1, 3] })
  })

  test('cluster-wide commands follow the request and response policies', () => {
    expect(route(['DBSIZE'])).toEqual({ kind: 'fanout', nodes: 'masters', combine: 'agg_sum' })
    expect(route(['KEYS', '*'])).toEqual({ kind: 'fanout', nodes: 'masters', combine: 'concat' })
    expect(route(['FLUSHALL'])).toEqual({ kind: 'fanout', nodes: 'masters', combine: 'all_succeeded' })
    expect(route(['SCRIPT', 'LOAD', 'return 1'])).toEqual({ kind: 'fanout', nodes: 'all', combine: 'all_succeeded' })
    expect(route(['FUNCTION', 'LOAD', 'x'])).toEqual({ kind: 'fanout', nodes: 'masters', combine: 'all_succeeded' })
    expect(route(['SCAN', '0']).kind).toBe('scan')
    expect(route(['RANDOMKEY']).kind).toBe('randomkey')
    expect(route(['INFO', 'keyspace']).kind).toBe('info')
    expect(route(['PING']).kind).toBe('keyless')
    expect(route(['TIME']).kind).toBe('keyless')
    expect(route(['NOSUCHCOMMAND', 'x']).kind).toBe('keyless')
  })

  test('PUBLISH and SPUBLISH route by their channel', () => {
    expect(slotOf('PUBLISH', 'news', 'hi')).toBe(keySlot('news'))
    expect(slotOf('SPUBLISH', 'news', 'hi')).toBe(keySlot('news'))
  })

  test('a transaction has one slot, none, or is CROSSSLOT', () => {
    expect(transactionSlot([['SET', '{u}a', '1'], ['PING'], ['GET', '{u}b']])).toBe(keySlot('u'))
    expect(transactionSlot([['PING'], ['TIME']])).toBeUndefined()
    expect(transactionSlot([['SET', 'a', '1'], ['GET', 'b']])).toBe(CROSSSLOT)
  })
})

describe('replies put together', () => {
  test('response policies', () => {
    expect(combineReplies('agg_sum', [1, 2, 3])).toBe(6)
    expect(combineReplies('agg_min', [4, 2, 3])).toBe(2)
    expect(combineReplies('agg_logical_and', [[1, 1, 0], [1, 0, 0]])).toEqual([1, 0, 0])
    expect(combineReplies('concat', [[Buffer.from('a')], [Buffer.from('b')]])).toEqual([Buffer.from('a'), Buffer.from('b')])
    const error = new ReplyError('ERR boom')
    expect(combineReplies('all_succeeded', [Buffer.from('x'), error])).toBe(error)
    expect(combineReplies('one_succeeded', [error, Buffer.from('x')])).toEqual(Buffer.from('x'))
  })

  test("INFO's keyspace section is summed; other sections are the first node's", () => {
    const node = (keys: number, expires: number, ttl: number) =>
      Buffer.from(`# Server\r\nredis_version:7.0.15\r\n\r\n# Keyspace\r\ndb0:keys=${keys},expires=${expires},avg_ttl=${ttl}\r\n`)
    const merged = combineInfo([node(2, 1, 100), node(3, 1, 300)]) as Buffer
    expect(merged.toString()).toBe('# Server\r\nredis_version:7.0.15\r\n\r\n# Keyspace\r\ndb0:keys=5,expires=2,avg_ttl=200\r\n')
  })

  test('redirections are recognised, other errors are not', () => {
    expect(redirectOf(new ReplyError('MOVED 3999 127.0.0.1:6381'))).toEqual({ kind: 'moved', slot: 3999, node: '127.0.0.1:6381' })
    expect(redirectOf(new ReplyError('ASK 3999 ::1:6381'))).toEqual({ kind: 'ask', slot: 3999, node: '::1:6381' })
    expect(redirectOf(new ReplyError('TRYAGAIN Multiple keys request during rehashing of slot'))).toEqual({ kind: 'tryagain' })
    expect(redirectOf(new ReplyError('CLUSTERDOWN The cluster is down'))).toEqual({ kind: 'clusterdown' })
    expect(redirectOf(new ReplyError('ERR MOVED is not a command'))).toBeUndefined()
    expect(redirectOf(Buffer.from('MOVED 1 a:1'))).toBeUndefined()
  })

  test('several seeds in one value, split at the commas before a scheme', () => {
    expect(splitSeeds('redis://a:7000,redis://:p@b:7001,rediss://c')).toEqual(['redis://a:7000', 'redis://:p@b:7001', 'rediss://c'])
  })
})

describe('transactions on a cluster', () => {
  test('a cluster-wide command cannot run in a transaction', () => {
    expect(transactionSlot([['SET', 'a', '1'], ['DBSIZE']])).toEqual(new ReplyError("ERR 'dbsize' speaks for the whole cluster and cannot run in a transaction on a cluster"))
    expect(transactionSlot([['ACL', 'SETUSER', 'u', 'on']])).toEqual(new ReplyError("ERR 'acl|setuser' speaks for the whole cluster and cannot run in a transaction on a cluster"))
  })

  test('ACL changes reach every node', () => {
    expect(route(['ACL', 'SETUSER', 'u', 'on'])).toEqual({ kind: 'fanout', nodes: 'all', combine: 'all_succeeded' })
    expect(route(['ACL', 'WHOAMI']).kind).toBe('keyless')
  })
})

describe('slot maps', () => {
  const b = (text: string) => Buffer.from(text)
  const node = (port: number, role: string, health: string, endpoint = '127.0.0.1') =>
    [b('id'), b(`id${port}`), b('port'), port, b('ip'), b('127.0.0.1'), b('endpoint'), b(endpoint), b('role'), b(role), b('replication-offset'), 0, b('health'), b(health)]

  test('from CLUSTER SHARDS: a failed master gives way to the promoted one; failed replicas are left out', () => {
    const map = SlotMap.fromShards([
      [b('slots'), [0, 8191], b('nodes'), [node(7000, 'master', 'fail'), node(7003, 'master', 'online'), node(7004, 'replica', 'fail')]],
      [b('slots'), [8192, 16383], b('nodes'), [node(7001, 'master', 'online', '?'), node(7005, 'replica', 'loading')]],
      [b('slots'), [], b('nodes'), [node(7002, 'master', 'online')]],
    ], '10.0.0.1') as SlotMap
    expect(map.complete).toBe(true)
    expect(map.shard(0)).toEqual({ master: '127.0.0.1:7003', replicas: [] })
    // An unknown endpoint is reached at the host that was asked.
    expect(map.shard(16383)).toEqual({ master: '10.0.0.1:7001', replicas: ['127.0.0.1:7005'] })
    expect(map.masters()).toEqual(['127.0.0.1:7003', '10.0.0.1:7001'])
  })

  test('from CLUSTER SLOTS, and patched by MOVED', () => {
    const map = SlotMap.fromSlots([
      [0, 100, [b('127.0.0.1'), 7000, b('a')], [b('127.0.0.1'), 7003, b('d')]],
      [101, 16383, [b(''), 7001, b('b')]],
    ], '10.0.0.2') as SlotMap
    expect(map.shard(50)).toEqual({ master: '127.0.0.1:7000', replicas: ['127.0.0.1:7003'] })
    expect(map.shard(200)?.master).toBe('10.0.0.2:7001')
    map.moved(50, '127.0.0.1:7009')
    expect(map.shard(50)).toEqual({ master: '127.0.0.1:7009', replicas: [] })
    expect(map.shard(51)?.master).toBe('127.0.0.1:7000')
    expect(SlotMap.fromSlots(new ReplyError('ERR unknown command'), 'x')).toEqual(new ReplyError('ERR unknown command'))
  })
})
