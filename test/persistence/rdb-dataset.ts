/**
 * A dataset with every value type in every encoding Redis 7.0 gives it, built by commands both
 * redis-server and the engine run: strings (integers, short, long compressible and not, binary),
 * lists (listpack nodes, many nodes, a plain node), sets (intsets of each width, hash tables),
 * hashes and sorted sets (listpack and hash table / skip list), streams with deleted entries,
 * several nodes, consumer groups, pending entries and consumers, TTLs, several databases, and a
 * function library.
 */
import type { Command } from '../../src/reply.js'

/** Deterministic bytes that LZF cannot shrink. */
export function noise(length: number, seed: number): Buffer {
  const bytes = Buffer.alloc(length)
  let state = seed
  for (let i = 0; i < length; i++) {
    state = (state * 1103515245 + 12345) >>> 0
    bytes[i] = state >>> 24
  }
  return bytes
}

const range = (n: number, f: (i: number) => string): string[] => Array.from({ length: n }, (_, i) => f(i))

/** A deadline far in the future (2100-01-01), so nothing expires during a test. */
export const FAR_DEADLINE_MS = '4102444800000'

export const LIBRARY = "#!lua name=rdblib\nredis.register_function('rdb_echo', function(keys, args) return args[1] end)\n"

/** Commands per database, run with SELECT-free contexts (the index is the database). */
export function datasetCommands(): Map<number, Command[]> {
  const db0: Command[] = [
    ['SET', 'str:int8', '100'],
    ['SET', 'str:int32', '-2000000000'],
    ['SET', 'str:int64', '9007199254740993'],
    ['SET', 'str:leading-zero', '0123'],
    ['SET', 'str:short', 'hello'],
    ['SET', 'str:empty', ''],
    ['SET', 'str:compressible', 'abc'.repeat(400)],
    ['SET', 'str:noise', noise(500, 1)],
    ['SET', 'str:binary', Buffer.from([0, 1, 2, 0xff, 0xfe, 13, 10, 0])],
    ['SET', 'str:ttl', 'soon', 'PX', '3600000'],
    ['SET', 'str:far', 'later'],
    ['PEXPIREAT', 'str:far', FAR_DEADLINE_MS],
    ['PFADD', 'hll', ...range(50, (i) => `e${i}`)],
    ['RPUSH', 'list:small', 'a', '1', 'b', '-5', 'c'],
    ['RPUSH', 'list:big', ...range(3000, (i) => (i % 3 === 0 ? String(i) : `item-${i}-${'x'.repeat(i % 40)}`))],
    ['RPUSH', 'list:plain', 'x'.repeat(9000), noise(10000, 2), 'tail'],
    ['SADD', 'set:int16', '1', '2', '3', '-100', '30000'],
    ['SADD', 'set:int32', '1', '70000', '-70000'],
    ['SADD', 'set:int64', '1', '5000000000', '-9223372036854775808'],
    ['SADD', 'set:strings', 'a', 'b', 'c'],
    ['SADD', 'set:big-ints', ...range(600, (i) => String(i * 7))],
    ['SADD', 'set:big', ...range(700, (i) => `member:${i}`)],
    ['HSET', 'hash:small', 'f1', 'v1', 'f2', '2', 'f3', 'abc'.repeat(10)],
    ['HSET', 'hash:long-value', 'f', 'v'.repeat(100)],
    ['HSET', 'hash:big', ...range(1200, (i) => (i % 2 === 0 ? `field:${i}` : `value-${i}`))],
    ['ZADD', 'zset:small', '1', 'one', '2.5', 'two-and-half', '-3', 'minus', 'inf', 'top', '-inf', 'bottom'],
    ['ZADD', 'zset:big', ...range(600, (i) => (i % 2 === 0 ? String(i / 7) : `m${i}`))],
    ['ZADD', 'zset:long-member', '1', 'm'.repeat(100)],
    ['PEXPIREAT', 'zset:big', FAR_DEADLINE_MS],
    ...streamCommands('stream:groups'),
    ...range(320, (i) => `${i}`).map((i): Command => ['XADD', 'stream:many', `${1000 + Number(i)}-1`, 'n', i, ...(Number(i) % 10 === 0 ? ['extra', 'field'] : [])]),
    ['XTRIM', 'stream:many', 'MINID', '1050'],
    ['XDEL', 'stream:many', '1100-1', '1101-1'],
    ['XADD', 'stream:emptied', '5-5', 'a', '1'],
    ['XDEL', 'stream:emptied', '5-5'],
  ]
  const db1: Command[] = [
    ['SET', 'shared-name', 'db1'],
    ['HSET', 'h', 'a', '1'],
    ['RPUSH', 'l', 'x'],
    ['PEXPIREAT', 'l', FAR_DEADLINE_MS],
  ]
  const db9: Command[] = [
    ['SET', 'shared-name', 'db9'],
    ['ZADD', 'z', '1', 'a'],
    ['SADD', 's', '1'],
  ]
  return new Map([[0, db0], [1, db1], [9, db9]])
}

/** A stream with deletions, two groups, pending entries held by consumers, acks and an idle consumer. */
function streamCommands(key: string): Command[] {
  return [
    ...range(12, (i) => String(i + 1)).map((i): Command => ['XADD', key, `${i}-0`, 'field', `value${i}`, 'n', i]),
    ['XADD', key, '13-0', 'other', 'shape'],
    ['XDEL', key, '2-0', '7-0'],
    ['XGROUP', 'CREATE', key, 'g1', '0'],
    ['XGROUP', 'CREATE', key, 'g2', '$'],
    ['XREADGROUP', 'GROUP', 'g1', 'alice', 'COUNT', '3', 'STREAMS', key, '>'],
    ['XREADGROUP', 'GROUP', 'g1', 'bob', 'COUNT', '2', 'STREAMS', key, '>'],
    ['XACK', key, 'g1', '3-0'],
    ['XGROUP', 'CREATECONSUMER', key, 'g2', 'idle'],
  ]
}

/** Commands that load {@link LIBRARY}. */
export const FUNCTION_COMMANDS: Command[] = [['FUNCTION', 'LOAD', LIBRARY]]
