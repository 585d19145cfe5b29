/**
 * DUMP on one server, RESTORE on the other ("compared by round trip"): payloads are not
 * byte-compared (Redis compresses and picks compact encodings the engine does not write), so
 * each value is built on both redis-server 7.0 and the engine, DUMPed on both, and each payload
 * RESTOREd on both; then every copy is read back on both sides and compared.
 *
 * Streams (no stream commands in the engine yet) go redis-server → engine RESTORE → engine
 * DUMP → redis-server, and the copy is compared with the original there.
 *
 * The values are sized and configured (CONFIG SET, DEBUG QUICKLIST-PACKED-THRESHOLD) so that
 * redis-server writes every encoding it has: LZF strings, quicklists of many, compressed and
 * plain nodes, intsets of every width, listpack and hashtable hashes and sets.
 */
import { describe, expect, test } from 'vitest'
import { ReplyError, Status, type Command, type Reply } from '../../src/reply.js'
import type { Executor } from '../../src/executor/executor.js'
import { compareReplies, showReply, withDifferentialExecutors, type Relaxation } from './harness.js'
import { liveSuiteName, redisServerSkipReason } from '../support/redis-server.js'

type ValueKind = 'string' | 'list' | 'set' | 'hash' | 'zset'

interface RoundTrip {
  readonly name: string
  /** Builds key `k` (run on both servers). */
  readonly setup: readonly Command[]
  readonly kind: ValueKind
  /** CONFIG SET on both servers for the setup, put back afterwards. */
  readonly config?: Readonly<Record<string, string>>
  /** Run on redis-server only (commands the engine does not have), before the setup. */
  readonly redisOnly?: readonly Command[]
  /** False when Redis keeps the value in a hash table (order is not comparable). */
  readonly ordered?: boolean
}

const CONFIG_DEFAULTS: Record<string, string> = {
  'list-max-listpack-size': '-2',
  'list-compress-depth': '0',
  'set-max-intset-entries': '512',
  'hash-max-listpack-entries': '512',
  'hash-max-listpack-value': '64',
  'zset-max-listpack-entries': '128',
  'zset-max-listpack-value': '64',
}

/** Deterministic pseudo-random bytes (no compression possible), as a binary string. */
function noise(length: number, seed: number): Buffer {
  const bytes = Buffer.alloc(length)
  let state = seed
  for (let i = 0; i < length; i++) {
    state = (state * 1103515245 + 12345) >>> 0
    bytes[i] = state >>> 24
  }
  return bytes
}

const range = <T,>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i))

/** Integers around every listpack / intset / RDB integer boundary, and strings of many lengths. */
const INTEGERS = [
  '0', '1', '12', '13', '127', '128', '-1', '-128', '-129', '255', '4095', '4096', '-4096', '-4097', '32767', '32768',
  '-32768', '-32769', '8388607', '8388608', '-8388608', '-8388609', '2147483647', '2147483648', '-2147483648',
  '-2147483649', '9223372036854775807', '-9223372036854775808', '9007199254740993',
]
const NOT_INTEGERS = ['01', '-0', '+1', '1.0', ' 1', '1e3', '9223372036854775808', '']

const cases: RoundTrip[] = [
  { name: 'short strings', kind: 'string', setup: [['SET', 'k', 'hello']] },
  { name: 'an integer string', kind: 'string', setup: [['SET', 'k', '-2147483649']] },
  { name: 'a 44-byte (embstr) string', kind: 'string', setup: [['SET', 'k', 'e'.repeat(44)]] },
  { name: 'a 45-byte (raw) string', kind: 'string', setup: [['SET', 'k', 'r'.repeat(45)]] },
  { name: 'a compressible 100 kB string (LZF)', kind: 'string', setup: [['SET', 'k', 'abcdefgh'.repeat(12_500)]] },
  { name: 'an incompressible 20 kB string (32-bit length)', kind: 'string', setup: [['SET', 'k', noise(20_000, 1)]] },
  { name: 'a string built by APPEND', kind: 'string', setup: [['SET', 'k', '12'], ['APPEND', 'k', '34']] },
  {
    name: 'a list of integers of every width and non-canonical integers',
    kind: 'list',
    setup: [['RPUSH', 'k', ...INTEGERS, ...NOT_INTEGERS]],
  },
  {
    name: 'a long list of mixed elements (several 8 kB nodes)',
    kind: 'list',
    setup: [['RPUSH', 'k', ...range(2000, (i) => (i % 3 === 0 ? String(i * 7919 - 5000) : 'x'.repeat(i % 90)))]],
  },
  {
    name: 'a list of many small nodes (list-max-listpack-size 3)',
    kind: 'list',
    config: { 'list-max-listpack-size': '3' },
    setup: [['RPUSH', 'k', ...range(50, (i) => `element-${i}`)]],
  },
  {
    name: 'a list with compressed inner nodes (list-compress-depth 1)',
    kind: 'list',
    config: { 'list-max-listpack-size': '8', 'list-compress-depth': '1' },
    setup: [['RPUSH', 'k', ...range(100, (i) => `compressible-element-${i % 10}-${'z'.repeat(20)}`)]],
  },
  {
    name: 'a list with plain nodes (elements over the packed threshold)',
    kind: 'list',
    redisOnly: [['DEBUG', 'QUICKLIST-PACKED-THRESHOLD', '60']],
    setup: [['RPUSH', 'k', 'small', 'p'.repeat(100), 'small2', noise(500, 2), 'q'.repeat(61), 'end']],
  },
  {
    name: 'a list with 5000-byte elements (32-bit listpack strings)',
    kind: 'list',
    setup: [['RPUSH', 'k', noise(5000, 3), 'middle', 'w'.repeat(5000)]],
  },
  { name: 'an intset of 16-bit integers', kind: 'set', setup: [['SADD', 'k', ...range(200, (i) => String(i * 150 - 15000))]] },
  { name: 'an intset of 32-bit integers', kind: 'set', setup: [['SADD', 'k', '1', '-70000', '2147483647']] },
  { name: 'an intset of 64-bit integers', kind: 'set', setup: [['SADD', 'k', ...INTEGERS]] },
  { name: 'an intset at set-max-intset-entries', kind: 'set', setup: [['SADD', 'k', ...range(512, (i) => String(i))]] },
  {
    name: 'integers over set-max-intset-entries (hashtable)',
    kind: 'set',
    ordered: false,
    setup: [['SADD', 'k', ...range(513, (i) => String(i))]],
  },
  {
    name: 'a hashtable set of strings and integers',
    kind: 'set',
    ordered: false,
    setup: [['SADD', 'k', ...NOT_INTEGERS, ...INTEGERS, 'member', noise(300, 4)]],
  },
  {
    name: 'a small set restored under a lower set-max-intset-entries',
    kind: 'set',
    ordered: false,
    config: { 'set-max-intset-entries': '4' },
    setup: [['SADD', 'k', '1', '2', '3', '4', '5']],
  },
  {
    name: 'a listpack hash with integer, empty and binary values',
    kind: 'hash',
    setup: [['HSET', 'k', 'a', '1', 'b', '', 'c', '-32769', 'd', '9223372036854775807', '', 'empty-field', 'bin', noise(40, 5)]],
  },
  {
    name: 'a hashtable hash (more than 512 fields)',
    kind: 'hash',
    ordered: false,
    setup: [['HSET', 'k', ...range(600, (i) => (i % 2 === 0 ? `field-${i}` : String(i)))]],
  },
  {
    name: 'a hashtable hash (a value over 64 bytes)',
    kind: 'hash',
    ordered: false,
    setup: [['HSET', 'k', 'a', '1', 'long', 'v'.repeat(65)]],
  },
  {
    name: 'a hash that went hashtable and shrank back under the limits',
    kind: 'hash',
    ordered: false,
    setup: [['HSET', 'k', 'a', '1', 'long', 'v'.repeat(65)], ['HDEL', 'k', 'long']],
  },
  {
    name: 'a big listpack hash (hash-max-listpack-entries 2000)',
    kind: 'hash',
    config: { 'hash-max-listpack-entries': '2000', 'hash-max-listpack-value': '200' },
    setup: [['HSET', 'k', ...range(2400, (i) => (i % 2 === 0 ? `f${i}` : 'v'.repeat(i % 150)))]],
  },
  {
    name: 'a listpack sorted set with integer, fractional and infinite scores',
    kind: 'zset',
    setup: [['ZADD', 'k', '1', 'a', '-2.5', 'b', 'inf', 'c', '-inf', 'd', '0.1', 'e', '-0', 'f', '1e-300', 'g', '123456789012345', 'h']],
  },
  {
    name: 'a skiplist sorted set (more than 128 members, equal scores ordered by member)',
    kind: 'zset',
    setup: [['ZADD', 'k', ...range(400, (i) => [String((i % 37) / 4 - 3), `member-${i}`]).flat()]],
  },
  {
    name: 'a skiplist sorted set (a member over 64 bytes) with -0 kept as a score',
    kind: 'zset',
    setup: [['ZADD', 'k', '-0', 'm'.repeat(65), '2', 'two', '1.7976931348623157e308', 'max', '5e-324', 'tiny']],
  },
  {
    name: 'a sorted set restored under a lower zset-max-listpack-entries',
    kind: 'zset',
    config: { 'zset-max-listpack-entries': '2' },
    setup: [['ZADD', 'k', '1', 'a', '2', 'b', '3', 'c']],
  },
]

interface StreamCase {
  readonly name: string
  /** Builds stream `k` on redis-server. */
  readonly setup: readonly Command[]
  readonly config?: Readonly<Record<string, string>>
  /** Groups whose PEL and consumers are compared. */
  readonly groups?: readonly string[]
}

const STREAM_DEFAULTS: Record<string, string> = { 'stream-node-max-entries': '100', 'stream-node-max-bytes': '4096' }

const streamCases: StreamCase[] = [
  {
    name: 'entries with the master fields and with others',
    setup: [['XADD', 'k', '1-1', 'f', 'v', 'n', '5'], ['XADD', 'k', '1-2', 'f', 'w', 'n', '-6'], ['XADD', 'k', '5-0', 'other', 'x'], ['XADD', 'k', '6-0', 'f', 'x']],
  },
  {
    name: 'tombstones, including the first entry',
    setup: [['XADD', 'k', '1-1', 'a', '1'], ['XADD', 'k', '2-1', 'a', '2'], ['XADD', 'k', '3-1', 'a', '3'], ['XADD', 'k', '4-1', 'a', '4'], ['XDEL', 'k', '1-1', '3-1']],
  },
  {
    name: 'several nodes, trimmed approximately and exactly',
    config: { 'stream-node-max-entries': '3' },
    setup: [
      ['XADD', 'k', '1-0', 'a', '1'], ['XADD', 'k', '2-0', 'b', '2'], ['XADD', 'k', '3-0', 'a', '3'], ['XADD', 'k', '4-0', 'a', '4'],
      ['XADD', 'k', '5-0', 'a', '5'], ['XADD', 'k', '6-0', 'a', '6'], ['XADD', 'k', '7-0', 'a', '7'], ['XADD', 'k', '8-0', 'a', '8'],
      ['XTRIM', 'k', 'MAXLEN', '~', '5'], ['XTRIM', 'k', 'MAXLEN', '4'],
    ],
  },
  {
    name: 'many entries in byte-limited nodes',
    config: { 'stream-node-max-bytes': '256' },
    setup: Array.from({ length: 300 }, (_, i): Command => ['XADD', 'k', `${1000 + i}-${i % 3}`, 'field', 'v'.repeat(i % 40), 'n', String(i * 1001)]),
  },
  {
    name: 'an empty stream that remembers its last ID',
    setup: [['XADD', 'k', 'MAXLEN', '0', '7-7', 'a', '1']],
  },
  {
    name: 'IDs near the 64-bit limit and XSETID',
    setup: [
      ['XADD', 'k', '9007199254740993-18446744073709551614', 'a', '1'],
      ['XADD', 'k', '18446744073709551614-1', 'a', '2'],
      ['XDEL', 'k', '9007199254740993-18446744073709551614'],
      ['XSETID', 'k', '18446744073709551615-5', 'ENTRIESADDED', '10', 'MAXDELETEDID', '18446744073709551614-0'],
    ],
  },
  {
    name: 'consumer groups with pending entries, acknowledgements and idle consumers',
    groups: ['g0', 'g1', 'g2'],
    setup: [
      ['XADD', 'k', '1-1', 'a', '1'], ['XADD', 'k', '2-1', 'a', '2'], ['XADD', 'k', '3-1', 'a', '3'], ['XADD', 'k', '4-1', 'b', '4'],
      ['XGROUP', 'CREATE', 'k', 'g1', '0'],
      ['XGROUP', 'CREATE', 'k', 'g0', '$'],
      ['XGROUP', 'CREATE', 'k', 'g2', '2-1', 'ENTRIESREAD', '2'],
      ['XREADGROUP', 'GROUP', 'g1', 'alice', 'COUNT', '2', 'STREAMS', 'k', '>'],
      ['XREADGROUP', 'GROUP', 'g1', 'bob', 'COUNT', '1', 'STREAMS', 'k', '>'],
      ['XGROUP', 'CREATECONSUMER', 'k', 'g1', 'carol'],
      ['XACK', 'k', 'g1', '1-1'],
      ['XCLAIM', 'k', 'g1', 'carol', '0', '3-1', 'RETRYCOUNT', '7'],
      ['XREADGROUP', 'GROUP', 'g2', 'dave', 'STREAMS', 'k', '>'],
      ['XDEL', 'k', '4-1'],
    ],
  },
]

/** Reads of a stream that do not depend on the time (delivery and seen times are compared apart). */
function streamReads(groups: readonly string[]): ((key: string) => Command)[] {
  return [
    (key) => ['XRANGE', key, '-', '+'],
    (key) => ['XLEN', key],
    (key) => ['XINFO', 'STREAM', key],
    (key) => ['XINFO', 'GROUPS', key],
    ...groups.flatMap((group): ((key: string) => Command)[] => [
      (key) => ['XPENDING', key, group],
      (key) => ['XPENDING', key, group, '-', '+', '100'],
      (key) => ['XINFO', 'CONSUMERS', key, group],
    ]),
  ]
}

/**
 * A reply with idle times (ms since a delivery or since a consumer was seen) blanked: the copy
 * keeps the original's times, but the two reads happen a moment apart.
 */
function withoutIdleTimes(reply: Reply): Reply {
  if (!Array.isArray(reply)) return reply
  const items = reply as Reply[]
  // XPENDING extended rows: [id, consumer, idle, count].
  if (items.length === 4 && items[0] instanceof Uint8Array && items[1] instanceof Uint8Array && typeof items[2] === 'number') {
    return [items[0], items[1], 0, items[3]]
  }
  // XINFO CONSUMERS rows: name, pending, idle (flat key/value).
  const out = items.map(withoutIdleTimes)
  for (let i = 0; i + 1 < out.length; i += 2) {
    if (out[i] instanceof Uint8Array && Buffer.from(out[i] as Uint8Array).toString() === 'idle') out[i + 1] = 0
  }
  return out
}

/** The commands that read all of `key`, and how to compare each. */
function reads(kind: ValueKind, key: string, ordered: boolean): { commands: Command[]; relax: Record<number, Relaxation> } {
  const whole: Record<ValueKind, Command> = {
    string: ['GET', key],
    list: ['LRANGE', key, '0', '-1'],
    set: ['SMEMBERS', key],
    hash: ['HGETALL', key],
    zset: ['ZRANGE', key, '0', '-1', 'WITHSCORES'],
  }
  const relaxation: Relaxation | undefined = ordered ? undefined : kind === 'hash' ? 'unorderedPairs' : 'unordered'
  return {
    commands: [['TYPE', key], ['OBJECT', 'ENCODING', key], ['PTTL', key], whole[kind]],
    relax: relaxation === undefined ? {} : { 3: relaxation },
  }
}

async function must(executor: Executor, command: Command): Promise<Reply> {
  const reply = await executor.exec(command)
  if (reply instanceof ReplyError) throw new Error(`${command.map(String).join(' ').slice(0, 80)} -> ${reply.message}`)
  return reply
}

describe.skipIf(redisServerSkipReason !== undefined)(liveSuiteName('DUMP/RESTORE round trips between redis-server and the engine'), () => {
  const live = withDifferentialExecutors({ serverArgs: ['--enable-debug-command', 'yes'] })

  for (const entry of cases) {
    test(entry.name, async () => {
      const both = (command: Command) => Promise.all([must(live.memory, command), must(live.redis, command)])
      const config = Object.entries(entry.config ?? {})
      try {
        for (const [name, value] of config) await both(['CONFIG', 'SET', name, value])
        for (const command of entry.redisOnly ?? []) await must(live.redis, command)
        for (const command of entry.setup) await both(command)

        const fromRedis = await must(live.redis, ['DUMP', 'k'])
        const fromMemory = await must(live.memory, ['DUMP', 'k'])
        expect(fromRedis).toBeInstanceOf(Uint8Array)
        expect(fromMemory).toBeInstanceOf(Uint8Array)
        for (const executor of [live.memory, live.redis]) {
          await must(executor, ['RESTORE', 'from-redis', '0', fromRedis as Uint8Array])
          await must(executor, ['RESTORE', 'from-memory', '0', fromMemory as Uint8Array])
        }

        const ordered = entry.ordered ?? true
        const reference = reads(entry.kind, 'k', ordered)
        const original = await live.redis.exec(reference.commands[3])
        for (const key of ['k', 'from-redis', 'from-memory']) {
          const { commands, relax } = reads(entry.kind, key, ordered)
          for (let i = 0; i < commands.length; i++) {
            // The original's encoding is its family's business (the engine does not remember that a
            // string grew by APPEND, for one); the copies' encodings are RESTORE's.
            if (key === 'k' && commands[i][0] === 'OBJECT') continue
            const [ours, theirs] = await live.both(commands[i])
            const difference = compareReplies(ours, theirs, relax[i])
            expect(difference, `${key}: ${commands[i].join(' ')}\n${difference}`).toBeNull()
          }
          // Every copy holds the original value.
          const copy = await live.memory.exec(commands[3])
          const same = compareReplies(copy, original, relax[3])
          expect(same, `${key} differs from the original: ${showReply(copy).slice(0, 200)}`).toBeNull()
        }
      } finally {
        for (const [name] of config) await both(['CONFIG', 'SET', name, CONFIG_DEFAULTS[name]])
        if (entry.redisOnly !== undefined) await must(live.redis, ['DEBUG', 'QUICKLIST-PACKED-THRESHOLD', '1073741824'])
      }
    })
  }

  /**
   * Streams: the engine has the stream type but (as of writing) not the stream commands, so a
   * stream built on redis-server goes through the engine's RESTORE and DUMP and back into
   * redis-server, where the copy is compared with the original: entries, tombstones, node
   * layout (radix-tree counters), IDs and counters, groups, PELs and consumers.
   */
  for (const entry of streamCases) {
    test(`stream: ${entry.name}`, async () => {
      const config = Object.entries(entry.config ?? {})
      try {
        for (const [name, value] of config) await must(live.redis, ['CONFIG', 'SET', name, value])
        for (const command of entry.setup) await must(live.redis, command)
        const original = await must(live.redis, ['DUMP', 'k'])
        await must(live.memory, ['RESTORE', 'k', '0', original as Uint8Array])
        expect(await live.memory.exec(['TYPE', 'k'])).toEqual(new Status('stream'))
        const fromMemory = await must(live.memory, ['DUMP', 'k'])
        await must(live.redis, ['RESTORE', 'copy', '0', fromMemory as Uint8Array])
        for (const read of streamReads(entry.groups ?? [])) {
          const [a, b] = await Promise.all([live.redis.exec(read('k')), live.redis.exec(read('copy'))])
          const difference = compareReplies(withoutIdleTimes(b), withoutIdleTimes(a))
          expect(difference, `${read('k').join(' ')}\n${difference}`).toBeNull()
        }
      } finally {
        for (const [name] of config) await must(live.redis, ['CONFIG', 'SET', name, STREAM_DEFAULTS[name]])
      }
    })
  }

  test('a TTL carried by the caller survives the trip both ways (PTTL relative, PEXPIRETIME with ABSTTL)', async () => {
    await Promise.all([must(live.memory, ['SET', 'k', 'v', 'PX', '500000']), must(live.redis, ['SET', 'k', 'v', 'PX', '500000'])])
    const fromRedis = (await must(live.redis, ['DUMP', 'k'])) as Uint8Array
    const fromMemory = (await must(live.memory, ['DUMP', 'k'])) as Uint8Array
    const deadline = String(await must(live.redis, ['PEXPIRETIME', 'k']))
    for (const [executor, bytes] of [[live.memory, fromRedis], [live.redis, fromMemory]] as const) {
      await must(executor, ['RESTORE', 'relative', '500000', bytes])
      await must(executor, ['RESTORE', 'absolute', deadline, bytes, 'ABSTTL'])
      expect(Number(await must(executor, ['TTL', 'relative']))).toBeGreaterThanOrEqual(499)
      expect(String(await must(executor, ['PEXPIRETIME', 'absolute']))).toBe(deadline)
      expect(Buffer.from((await must(executor, ['GET', 'absolute'])) as Uint8Array).toString()).toBe('v')
    }
  })
})
