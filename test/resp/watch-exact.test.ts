/**
 * Exact WATCH: a write that leaves a watched key unchanged does not doom the EXEC, where Redis
 * 7.0 does not call `signalModifiedKey` (t_set.c, t_hash.c, t_zset.c, t_list.c, t_stream.c,
 * bitops.c); a write that changes it does. The same cases run through the RESP listener over the
 * memory engine and against a real redis-server 7.0, with the same expected answers.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { Redis } from 'ioredis6'
import { RESP_TARGETS, respTargetTitle, type RunningTarget } from '../support/resp-targets.js'

type Command = readonly (string | number)[]

/** A case: commands that set the data up, the key watched, the write another client makes, whether EXEC fails. */
interface WatchCase {
  readonly name: string
  readonly setup: readonly Command[]
  readonly watch: string
  readonly write: Command
  readonly doomed: boolean
}

const CASES: readonly WatchCase[] = [
  // Sets.
  { name: 'SADD of a member already there', setup: [['SADD', 's', 'a']], watch: 's', write: ['SADD', 's', 'a'], doomed: false },
  { name: 'SADD of a new member', setup: [['SADD', 's', 'a']], watch: 's', write: ['SADD', 's', 'b'], doomed: true },
  { name: 'SREM of a missing member', setup: [['SADD', 's', 'a', 'b']], watch: 's', write: ['SREM', 's', 'x'], doomed: false },
  { name: 'SREM of a member', setup: [['SADD', 's', 'a', 'b']], watch: 's', write: ['SREM', 's', 'a'], doomed: true },
  { name: 'SMOVE into a set that has the member (destination)', setup: [['SADD', 'src', 'a', 'b'], ['SADD', 'dst', 'a']], watch: 'dst', write: ['SMOVE', 'src', 'dst', 'a'], doomed: false },
  { name: 'SMOVE into a set that has the member (source)', setup: [['SADD', 'src', 'a', 'b'], ['SADD', 'dst', 'a']], watch: 'src', write: ['SMOVE', 'src', 'dst', 'a'], doomed: true },
  { name: 'SMOVE of a member the source lacks', setup: [['SADD', 'src', 'a'], ['SADD', 'dst', 'b']], watch: 'dst', write: ['SMOVE', 'src', 'dst', 'x'], doomed: false },
  { name: 'SINTERSTORE reading the watched set', setup: [['SADD', 's', 'a'], ['SADD', 't', 'a']], watch: 's', write: ['SINTERSTORE', 'out', 's', 't'], doomed: false },
  { name: 'SPOP of a member', setup: [['SADD', 's', 'a', 'b']], watch: 's', write: ['SPOP', 's'], doomed: true },
  // Hashes.
  { name: 'HSET of the same value', setup: [['HSET', 'h', 'f', 'v']], watch: 'h', write: ['HSET', 'h', 'f', 'v'], doomed: true },
  { name: 'HSETNX of a field already there', setup: [['HSET', 'h', 'f', 'v']], watch: 'h', write: ['HSETNX', 'h', 'f', 'w'], doomed: false },
  { name: 'HDEL of a missing field', setup: [['HSET', 'h', 'f', 'v', 'g', 'w']], watch: 'h', write: ['HDEL', 'h', 'x'], doomed: false },
  { name: 'HDEL of a field', setup: [['HSET', 'h', 'f', 'v', 'g', 'w']], watch: 'h', write: ['HDEL', 'h', 'f'], doomed: true },
  { name: 'HINCRBY by 0', setup: [['HSET', 'h', 'n', '1']], watch: 'h', write: ['HINCRBY', 'h', 'n', 0], doomed: true },
  // Sorted sets (and GEOADD, a ZADD).
  { name: 'ZADD of the same score', setup: [['ZADD', 'z', 1, 'a']], watch: 'z', write: ['ZADD', 'z', 1, 'a'], doomed: false },
  { name: 'ZADD of a new score', setup: [['ZADD', 'z', 1, 'a']], watch: 'z', write: ['ZADD', 'z', 2, 'a'], doomed: true },
  { name: 'ZADD NX of a member already there', setup: [['ZADD', 'z', 1, 'a']], watch: 'z', write: ['ZADD', 'z', 'NX', 5, 'a'], doomed: false },
  { name: 'ZINCRBY by 0', setup: [['ZADD', 'z', 1, 'a']], watch: 'z', write: ['ZINCRBY', 'z', 0, 'a'], doomed: false },
  { name: 'ZREM of a missing member', setup: [['ZADD', 'z', 1, 'a', 2, 'b']], watch: 'z', write: ['ZREM', 'z', 'x'], doomed: false },
  { name: 'ZREMRANGEBYSCORE that removes nothing', setup: [['ZADD', 'z', 1, 'a', 2, 'b']], watch: 'z', write: ['ZREMRANGEBYSCORE', 'z', 10, 20], doomed: false },
  { name: 'ZUNIONSTORE reading the watched set', setup: [['ZADD', 'z', 1, 'a']], watch: 'z', write: ['ZUNIONSTORE', 'out', 1, 'z'], doomed: false },
  { name: 'GEOADD of the same position', setup: [['GEOADD', 'g', 13.361389, 38.115556, 'p']], watch: 'g', write: ['GEOADD', 'g', 13.361389, 38.115556, 'p'], doomed: false },
  // Lists.
  { name: 'LREM that removes nothing', setup: [['RPUSH', 'l', 'a', 'b']], watch: 'l', write: ['LREM', 'l', 0, 'x'], doomed: false },
  { name: 'LREM that removes', setup: [['RPUSH', 'l', 'a', 'b']], watch: 'l', write: ['LREM', 'l', 0, 'a'], doomed: true },
  { name: 'LINSERT with a missing pivot', setup: [['RPUSH', 'l', 'a']], watch: 'l', write: ['LINSERT', 'l', 'BEFORE', 'x', 'y'], doomed: false },
  { name: 'LTRIM that keeps everything', setup: [['RPUSH', 'l', 'a', 'b']], watch: 'l', write: ['LTRIM', 'l', 0, -1], doomed: true },
  { name: 'LSET of the same value', setup: [['RPUSH', 'l', 'a']], watch: 'l', write: ['LSET', 'l', 0, 'a'], doomed: true },
  { name: 'LMOVE reading the watched list as its source', setup: [['RPUSH', 'l', 'a', 'b']], watch: 'l', write: ['LMOVE', 'l', 'l2', 'LEFT', 'RIGHT'], doomed: true },
  { name: 'LPOS (a read) of the watched list', setup: [['RPUSH', 'l', 'a']], watch: 'l', write: ['LPOS', 'l', 'a'], doomed: false },
  // Streams: consumer-group bookkeeping touches no WATCH in Redis 7.0.
  {
    name: 'XREADGROUP delivering entries',
    setup: [['XADD', 'x', '1-1', 'f', 'v'], ['XGROUP', 'CREATE', 'x', 'g', '0']],
    watch: 'x',
    write: ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', 'x', '>'],
    doomed: false,
  },
  {
    name: 'XACK of a pending entry',
    setup: [['XADD', 'x', '1-1', 'f', 'v'], ['XGROUP', 'CREATE', 'x', 'g', '0'], ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', 'x', '>']],
    watch: 'x',
    write: ['XACK', 'x', 'g', '1-1'],
    doomed: false,
  },
  { name: 'XGROUP SETID', setup: [['XADD', 'x', '1-1', 'f', 'v'], ['XGROUP', 'CREATE', 'x', 'g', '0']], watch: 'x', write: ['XGROUP', 'SETID', 'x', 'g', '$'], doomed: false },
  { name: 'XGROUP CREATE on an existing stream', setup: [['XADD', 'x', '1-1', 'f', 'v']], watch: 'x', write: ['XGROUP', 'CREATE', 'x', 'g', '0'], doomed: false },
  { name: 'XTRIM that trims nothing', setup: [['XADD', 'x', '1-1', 'f', 'v']], watch: 'x', write: ['XTRIM', 'x', 'MAXLEN', 10], doomed: false },
  { name: 'XDEL of an entry', setup: [['XADD', 'x', '1-1', 'f', 'v'], ['XADD', 'x', '1-2', 'f', 'v']], watch: 'x', write: ['XDEL', 'x', '1-1'], doomed: true },
  // Bitmaps.
  { name: 'SETBIT of a bit already so', setup: [['SETBIT', 'b', 3, 1]], watch: 'b', write: ['SETBIT', 'b', 3, 1], doomed: false },
  { name: 'SETBIT that flips a bit', setup: [['SETBIT', 'b', 3, 1]], watch: 'b', write: ['SETBIT', 'b', 3, 0], doomed: true },
  { name: 'BITFIELD SET of the same value', setup: [['BITFIELD', 'b', 'SET', 'u8', 0, 7]], watch: 'b', write: ['BITFIELD', 'b', 'SET', 'u8', 0, 7], doomed: false },
]

for (const respTarget of RESP_TARGETS) {
  describe.skipIf(respTarget.skip !== undefined)(`exact WATCH: ${respTargetTitle(respTarget)}`, () => {
    let target: RunningTarget
    let watcher: Redis
    let writer: Redis
    const call = (c: Redis, command: Command): Promise<unknown> => c.call(String(command[0]), ...command.slice(1).map(String))

    beforeAll(async () => {
      target = await respTarget.start()
      watcher = new Redis({ port: target.port, host: '127.0.0.1', protocol: 2 })
      writer = new Redis({ port: target.port, host: '127.0.0.1', protocol: 2 })
    })
    afterAll(async () => {
      watcher.disconnect()
      writer.disconnect()
      await target.stop()
    })

    test.each(CASES)('$name: EXEC fails = $doomed', async ({ setup, watch, write, doomed }) => {
      await writer.flushall()
      for (const command of setup) await call(writer, command)
      expect(await watcher.watch(watch)).toBe('OK')
      await call(writer, write)
      const reply = await watcher.multi().ping().exec()
      expect(reply === null).toBe(doomed)
    })

    test('the tcl case: SMOVE whose addition fails leaves a transaction on the destination to run', async () => {
      await writer.flushall()
      await writer.sadd('srcset', 'a', 'b')
      await writer.sadd('dstset', 'a')
      await watcher.watch('dstset')
      await call(watcher, ['MULTI'])
      await call(watcher, ['SADD', 'dstset', 'c'])
      expect(await writer.smove('srcset', 'dstset', 'a')).toBe(1)
      expect(await call(watcher, ['EXEC'])).toEqual([1])
      expect(await writer.scard('dstset')).toBe(2)
    })

    test('rdb_changes_since_last_save moves only when SETBIT or BITFIELD changed the value', async () => {
      const changes = async (): Promise<number> => Number(/rdb_changes_since_last_save:(\d+)/.exec(await writer.info('persistence'))?.[1])
      await writer.flushall()
      const before = await changes()
      await call(writer, ['SETBIT', 'foo', 0, 0])
      await call(writer, ['BITFIELD', 'foo2', 'SET', 'i5', 0, 0])
      expect(await changes()).toBe(before + 2)
      await call(writer, ['SETBIT', 'foo', 0, 0])
      await call(writer, ['BITFIELD', 'foo2', 'SET', 'i5', 0, 0])
      await call(writer, ['SADD', 'set', 'a'])
      await call(writer, ['SADD', 'set', 'a'])
      expect(await changes()).toBe(before + 3)
      await call(writer, ['SETBIT', 'foo', 0, 1])
      await call(writer, ['BITFIELD', 'foo3', 'INCRBY', 'i5', 0, 1])
      await call(writer, ['BITFIELD', 'foo3', 'INCRBY', 'i5', 0, 1])
      expect(await changes()).toBe(before + 6)
    })
  })
}
