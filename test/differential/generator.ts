/**
 * Seeded random command sequences for the differential suite (`random.test.ts`).
 *
 * A PRNG (mulberry32) draws commands from a data-driven catalogue over a small key space (eight
 * keys, eight fields/members, small integers and floats, some empty and binary strings), so keys
 * change type and WRONGTYPE, range and parse errors come up often. Each family contributes one
 * array of {@link CommandSpec}s; a family added later (sorted sets, geo, HyperLogLog, streams)
 * adds its array to {@link CATALOGUE}. Commands whose replies are random or depend on the moment
 * they run are left out, or carry the relaxation the harness knows (`unordered`, `ttl`). The
 * test keeps only the specs whose command the engine implements, so a family's entries join the
 * run as soon as its handlers land.
 *
 * {@link shrink} reduces a diverging sequence to a minimal one for the failure message.
 */
import { geoSpecs, sortedSetSpecs } from './zset.generator.js'
import { streamSpecs } from './stream.generator.js'
import { hyperLogLogSpecs } from './hyperloglog.generator.js'
import type { Command } from '../../src/reply.js'
import type { Relaxation } from './harness.js'

export { Random } from './random-source.js'
import { Random } from './random-source.js'

/** One word of a command. Binary words are Buffers so the socket executor sends them as bytes. */
type Word = string | Buffer

const BINARY_A = Buffer.from([0x00, 0xff, 0x0d, 0x0a])
const BINARY_B = Buffer.from([0xc3, 0x28, 0x80])

const KEYS: readonly Word[] = ['a', 'b', 'c', 'd', 'e', 'f', 'g', BINARY_A]
/**
 * Keys for the lexicographic range commands, which Redis defines only on sorted sets whose
 * members all have the same score: with mixed scores the reply depends on the skiplist's random
 * levels. Only score-0 ZADDs, the lex commands, SET and DEL touch these keys.
 */
const LEX_KEYS: readonly Word[] = ['L0', 'L1']
const FIELDS: readonly Word[] = ['f1', 'f2', 'f3', 'f4', 'x', '1', '', BINARY_B]
const MEMBERS: readonly Word[] = ['m1', 'm2', 'm3', '1', '2', '10', '-3', '']
const VALUES: readonly Word[] = [
  '0', '1', '-1', '2', '3', '7', '10', '42', '-5', '100', '1.5', '-0.25', '3e2', '0.1', '',
  'a', 'abc', 'hello', 'x y', '9223372036854775807', '-9223372036854775808', '18446744073709551616',
  'inf', '-inf', 'nan', '1e400', '007', ' 1', BINARY_A, BINARY_B,
]
const INTEGERS: readonly string[] = ['0', '1', '-1', '2', '3', '5', '-3', '10', '100', '-100', '9223372036854775807', '-9223372036854775808', 'x', '1.5', '']
const FLOATS: readonly string[] = ['0', '1', '-1', '1.5', '-2.25', '0.1', '3e2', '1e-3', 'inf', '-inf', '+inf', 'nan', 'x', '', '1e400']

/** Helpers a spec draws its arguments with. */
export class Draw {
  constructor(readonly random: Random) {}

  key(): Word {
    return this.random.pick(KEYS)
  }

  /** A key of a sorted set whose members all score 0 (see LEX_KEYS). */
  lexKey(): Word {
    return this.random.pick(LEX_KEYS)
  }

  /** One to `max` keys, repeats allowed (Redis handles a key named twice). */
  keys(max = 3): Word[] {
    return Array.from({ length: this.random.int(1, max) }, () => this.key())
  }

  field(): Word {
    return this.random.pick(FIELDS)
  }

  member(): Word {
    return this.random.pick(MEMBERS)
  }

  members(max = 4): Word[] {
    return Array.from({ length: this.random.int(1, max) }, () => this.member())
  }

  value(): Word {
    return this.random.pick(VALUES)
  }

  /** A mostly valid small integer, sometimes a big, negative or malformed one. */
  integer(): string {
    return this.random.chance(0.8) ? String(this.random.int(-3, 10)) : this.random.pick(INTEGERS)
  }

  /** A mostly valid list index or range bound. */
  index(): string {
    return this.random.chance(0.9) ? String(this.random.int(-6, 6)) : this.random.pick(INTEGERS)
  }

  /**
   * A mostly valid small float, sometimes an infinite or malformed one. `huge` allows 1e400, whose
   * sum is written out as a 400-digit string (see {@link Draw.hashValue}).
   */
  float(huge = true): string {
    if (this.random.chance(0.7)) return String(this.random.int(-20, 20) / 4)
    const drawn = this.random.pick(FLOATS)
    return huge || drawn !== '1e400' ? drawn : '1e3'
  }

  /**
   * A hash value that keeps the hash a listpack in Redis: no `1e400`, which HINCRBYFLOAT would
   * turn into a 400-digit value. A value over hash-max-listpack-value (64 bytes) converts the hash
   * to a hash table, whose iteration order (HKEYS, HVALS, HGETALL) no one can follow; small hashes
   * keep insertion order, which is compared exactly.
   */
  hashValue(): Word {
    const drawn = this.value()
    return drawn === '1e400' ? '1e3' : drawn
  }

  /** A bit offset or small count; sometimes out of range. */
  offset(): string {
    return this.random.chance(0.9) ? String(this.random.int(0, 40)) : this.random.pick(['-1', '4294967296', 'x'])
  }

  pick<T>(items: readonly T[]): T {
    return this.random.pick(items)
  }

  chance(probability: number): boolean {
    return this.random.chance(probability)
  }

  int(min: number, max: number): number {
    return this.random.int(min, max)
  }

  /** The words of `optional` with probability `probability`, else nothing. */
  maybe(probability: number, ...optional: Word[]): Word[] {
    return this.random.chance(probability) ? optional : []
  }
}

export interface CommandSpec {
  /** Lowercase command name (subcommands as `parent|sub`): the catalogue keeps only what the engine implements. */
  readonly name: string
  readonly family: string
  /** Relative frequency; 1 unless said otherwise. */
  readonly weight?: number
  readonly build: (draw: Draw) => Command
  /** How the reply may differ from Redis's (set replies in hash-table order, TTLs). */
  readonly relax?: Relaxation
}

/** A generated command with the relaxation its reply is compared under. */
export interface GeneratedCommand {
  readonly command: Command
  readonly relax?: Relaxation
}

function spec(family: string, name: string, build: CommandSpec['build'], extra: Partial<CommandSpec> = {}): CommandSpec {
  return { family, name, build, ...extra }
}

const strings = (name: string, build: CommandSpec['build'], extra?: Partial<CommandSpec>) => spec('strings', name, build, extra)
const STRING_COMMANDS: readonly CommandSpec[] = [
  strings('get', (d) => ['GET', d.key()], { weight: 3 }),
  strings('set', (d) => ['SET', d.key(), d.value(), ...d.maybe(0.2, d.pick(['NX', 'XX'])), ...d.maybe(0.15, 'GET'), ...d.maybe(0.1, 'KEEPTTL')], { weight: 4 }),
  strings('set', (d) => ['SET', d.key(), d.value(), 'EX', d.pick(['100', '1000', '0', '-1', 'x'])]),
  strings('setnx', (d) => ['SETNX', d.key(), d.value()]),
  strings('getset', (d) => ['GETSET', d.key(), d.value()]),
  strings('getdel', (d) => ['GETDEL', d.key()]),
  strings('getex', (d) => ['GETEX', d.key(), ...d.maybe(0.5, d.pick(['PERSIST', 'EX']), ...d.maybe(0.5, '500'))]),
  strings('mget', (d) => ['MGET', ...d.keys(4)]),
  strings('mset', (d) => ['MSET', ...d.keys(3).flatMap((key) => [key, d.value()])]),
  strings('msetnx', (d) => ['MSETNX', ...d.keys(2).flatMap((key) => [key, d.value()])]),
  strings('append', (d) => ['APPEND', d.key(), d.value()], { weight: 2 }),
  strings('strlen', (d) => ['STRLEN', d.key()]),
  strings('incr', (d) => ['INCR', d.key()], { weight: 2 }),
  strings('decr', (d) => ['DECR', d.key()]),
  strings('incrby', (d) => ['INCRBY', d.key(), d.integer()], { weight: 2 }),
  strings('decrby', (d) => ['DECRBY', d.key(), d.integer()]),
  strings('incrbyfloat', (d) => ['INCRBYFLOAT', d.key(), d.float()], { weight: 2 }),
  strings('getrange', (d) => ['GETRANGE', d.key(), d.index(), d.index()]),
  strings('substr', (d) => ['SUBSTR', d.key(), d.index(), d.index()]),
  strings('setrange', (d) => ['SETRANGE', d.key(), d.pick(['0', '1', '3', '10', '-1', 'x']), d.value()]),
  strings('lcs', (d) => ['LCS', d.key(), d.key(), ...d.maybe(0.3, d.pick(['LEN', 'IDX']))]),
]

const bitmaps = (name: string, build: CommandSpec['build'], extra?: Partial<CommandSpec>) => spec('bitmap', name, build, extra)
const BITMAP_COMMANDS: readonly CommandSpec[] = [
  bitmaps('setbit', (d) => ['SETBIT', d.key(), d.offset(), d.pick(['0', '1', '1', '2'])], { weight: 2 }),
  bitmaps('getbit', (d) => ['GETBIT', d.key(), d.offset()]),
  bitmaps('bitcount', (d) => ['BITCOUNT', d.key(), ...d.maybe(0.5, d.index(), d.index(), ...d.maybe(0.3, d.pick(['BYTE', 'BIT'])))]),
  bitmaps('bitpos', (d) => ['BITPOS', d.key(), d.pick(['0', '1']), ...d.maybe(0.5, d.index(), ...d.maybe(0.5, d.index()))]),
  bitmaps('bitop', (d) => ['BITOP', d.pick(['AND', 'OR', 'XOR', 'NOT']), d.key(), ...d.keys(2)]),
  bitmaps('bitfield', (d) => [
    'BITFIELD', d.key(),
    ...d.maybe(0.3, 'OVERFLOW', d.pick(['WRAP', 'SAT', 'FAIL'])),
    d.pick(['GET', 'SET', 'INCRBY']), d.pick(['u8', 'i8', 'u4', 'i16', 'u1', 'i64', 'u63', 'u64']), d.pick(['0', '3', '#1', '8']),
    ...d.maybe(0.7, d.integer()),
  ]),
  bitmaps('bitfield_ro', (d) => ['BITFIELD_RO', d.key(), 'GET', d.pick(['u8', 'i8', 'u16']), d.pick(['0', '4', '#2'])]),
]

const hashes = (name: string, build: CommandSpec['build'], extra?: Partial<CommandSpec>) => spec('hash', name, build, extra)
const HASH_COMMANDS: readonly CommandSpec[] = [
  hashes('hset', (d) => ['HSET', d.key(), ...Array.from({ length: d.int(1, 3) }, () => [d.field(), d.hashValue()]).flat()], { weight: 4 }),
  hashes('hsetnx', (d) => ['HSETNX', d.key(), d.field(), d.hashValue()]),
  hashes('hmset', (d) => ['HMSET', d.key(), d.field(), d.hashValue()]),
  hashes('hget', (d) => ['HGET', d.key(), d.field()], { weight: 2 }),
  hashes('hmget', (d) => ['HMGET', d.key(), d.field(), d.field()]),
  hashes('hdel', (d) => ['HDEL', d.key(), d.field(), ...d.maybe(0.3, d.field())], { weight: 2 }),
  hashes('hlen', (d) => ['HLEN', d.key()]),
  hashes('hexists', (d) => ['HEXISTS', d.key(), d.field()]),
  hashes('hstrlen', (d) => ['HSTRLEN', d.key(), d.field()]),
  hashes('hincrby', (d) => ['HINCRBY', d.key(), d.field(), d.integer()], { weight: 2 }),
  hashes('hincrbyfloat', (d) => ['HINCRBYFLOAT', d.key(), d.field(), d.float(false)]),
  // Small hashes are listpacks in Redis: their order is insertion order, compared exactly.
  hashes('hkeys', (d) => ['HKEYS', d.key()]),
  hashes('hvals', (d) => ['HVALS', d.key()]),
  hashes('hgetall', (d) => ['HGETALL', d.key()], { weight: 2 }),
]

const lists = (name: string, build: CommandSpec['build'], extra?: Partial<CommandSpec>) => spec('list', name, build, extra)
const LIST_COMMANDS: readonly CommandSpec[] = [
  lists('lpush', (d) => ['LPUSH', d.key(), ...d.members(3)], { weight: 3 }),
  lists('rpush', (d) => ['RPUSH', d.key(), ...d.members(3)], { weight: 3 }),
  lists('lpushx', (d) => ['LPUSHX', d.key(), d.member()]),
  lists('rpushx', (d) => ['RPUSHX', d.key(), d.member()]),
  lists('lpop', (d) => ['LPOP', d.key(), ...d.maybe(0.3, d.pick(['0', '1', '2', '5', '-1', 'x']))], { weight: 2 }),
  lists('rpop', (d) => ['RPOP', d.key(), ...d.maybe(0.3, d.pick(['0', '1', '2', '5', '-1', 'x']))], { weight: 2 }),
  lists('lrange', (d) => ['LRANGE', d.key(), d.index(), d.index()], { weight: 2 }),
  lists('lindex', (d) => ['LINDEX', d.key(), d.index()]),
  lists('lset', (d) => ['LSET', d.key(), d.index(), d.member()]),
  lists('llen', (d) => ['LLEN', d.key()]),
  lists('linsert', (d) => ['LINSERT', d.key(), d.pick(['BEFORE', 'AFTER', 'x']), d.member(), d.member()]),
  lists('lrem', (d) => ['LREM', d.key(), d.index(), d.member()]),
  lists('ltrim', (d) => ['LTRIM', d.key(), d.index(), d.index()]),
  lists('lpos', (d) => ['LPOS', d.key(), d.member(), ...d.maybe(0.3, 'RANK', d.pick(['1', '-1', '2', '0'])), ...d.maybe(0.3, 'COUNT', d.pick(['0', '1', '2']))]),
  lists('lmove', (d) => ['LMOVE', d.key(), d.key(), d.pick(['LEFT', 'RIGHT']), d.pick(['LEFT', 'RIGHT'])]),
  lists('rpoplpush', (d) => ['RPOPLPUSH', d.key(), d.key()]),
  lists('lmpop', (d) => {
    const keys = d.keys(2)
    return ['LMPOP', String(keys.length), ...keys, d.pick(['LEFT', 'RIGHT']), ...d.maybe(0.4, 'COUNT', d.pick(['1', '2', '3']))]
  }),
]

const sets = (name: string, build: CommandSpec['build'], extra?: Partial<CommandSpec>) => spec('set', name, build, extra)
const SET_COMMANDS: readonly CommandSpec[] = [
  sets('sadd', (d) => ['SADD', d.key(), ...d.members(3)], { weight: 4 }),
  sets('srem', (d) => ['SREM', d.key(), ...d.members(2)], { weight: 2 }),
  sets('smembers', (d) => ['SMEMBERS', d.key()], { weight: 2, relax: 'unordered' }),
  sets('sismember', (d) => ['SISMEMBER', d.key(), d.member()]),
  sets('smismember', (d) => ['SMISMEMBER', d.key(), ...d.members(3)]),
  sets('scard', (d) => ['SCARD', d.key()]),
  sets('smove', (d) => ['SMOVE', d.key(), d.key(), d.member()]),
  sets('sinter', (d) => ['SINTER', ...d.keys(3)], { relax: 'unordered' }),
  sets('sunion', (d) => ['SUNION', ...d.keys(3)], { relax: 'unordered' }),
  sets('sdiff', (d) => ['SDIFF', ...d.keys(3)], { relax: 'unordered' }),
  sets('sinterstore', (d) => ['SINTERSTORE', d.key(), ...d.keys(2)]),
  sets('sunionstore', (d) => ['SUNIONSTORE', d.key(), ...d.keys(2)]),
  sets('sdiffstore', (d) => ['SDIFFSTORE', d.key(), ...d.keys(2)]),
  sets('sintercard', (d) => {
    const keys = d.keys(3)
    return ['SINTERCARD', String(keys.length), ...keys, ...d.maybe(0.3, 'LIMIT', d.pick(['0', '1', '2']))]
  }),
]

const generic = (name: string, build: CommandSpec['build'], extra?: Partial<CommandSpec>) => spec('generic', name, build, extra)
const GENERIC_COMMANDS: readonly CommandSpec[] = [
  generic('del', (d) => ['DEL', ...d.keys(2)], { weight: 2 }),
  generic('unlink', (d) => ['UNLINK', d.key()]),
  generic('exists', (d) => ['EXISTS', ...d.keys(3)]),
  generic('type', (d) => ['TYPE', d.key()], { weight: 2 }),
  generic('touch', (d) => ['TOUCH', ...d.keys(2)]),
  generic('rename', (d) => ['RENAME', d.key(), d.key()]),
  generic('renamenx', (d) => ['RENAMENX', d.key(), d.key()]),
  generic('copy', (d) => ['COPY', d.key(), d.key(), ...d.maybe(0.4, 'REPLACE')]),
  // TTLs are long, so no key expires between the two servers' clocks; TTL may read 1 apart.
  // GT and LT compare expiry times in ms: with relative times, two EXPIREs of the same length
  // compare by the milliseconds between them, which differ from one server to the other, so
  // GT and LT only come with absolute times (EXPIREAT).
  generic('expire', (d) => ['EXPIRE', d.key(), d.pick(['100', '500', '1000']), ...d.maybe(0.3, d.pick(['NX', 'XX']))]),
  generic('persist', (d) => ['PERSIST', d.key()]),
  generic('ttl', (d) => ['TTL', d.key()], { relax: 'ttl' }),
  generic('expireat', (d) => ['EXPIREAT', d.key(), d.pick(['4102444800', '4102444900']), ...d.maybe(0.3, d.pick(['NX', 'XX', 'GT', 'LT']))]),
  generic('expiretime', (d) => ['EXPIRETIME', d.key()], { relax: 'ttl' }),
  generic('keys', () => ['KEYS', '*'], { relax: 'unordered' }),
  generic('keys', (d) => ['KEYS', d.pick(['[a-c]', '?', 'a*', '*\\x*'])], { relax: 'unordered' }),
  generic('object|encoding', (d) => ['OBJECT', 'ENCODING', d.key()]),
  // Always ALPHA: Redis 7.0's numeric SORT reads errno without clearing it, so any earlier
  // command that left ERANGE behind (a huge float) makes it fail at random. Numeric SORT is
  // covered by the scripted generic cases.
  generic('sort', (d) => ['SORT', d.key(), 'ALPHA', ...d.maybe(0.3, 'DESC'), ...d.maybe(0.2, 'LIMIT', '0', '2')]),
]

const server = (name: string, build: CommandSpec['build'], extra?: Partial<CommandSpec>) => spec('server', name, build, extra)
const SERVER_COMMANDS: readonly CommandSpec[] = [
  server('dbsize', () => ['DBSIZE']),
  server('ping', (d) => ['PING', ...d.maybe(0.5, d.value())], { weight: 0.5 }),
  server('echo', (d) => ['ECHO', d.value()], { weight: 0.5 }),
  server('move', (d) => ['MOVE', d.key(), d.pick(['1', '2', '0'])], { weight: 0.5 }),
  server('swapdb', () => ['SWAPDB', '0', '1'], { weight: 0.2 }),
  server('flushdb', () => ['FLUSHDB'], { weight: 0.05 }),
  server('command|getkeys', (d) => ['COMMAND', 'GETKEYS', 'MSET', d.key(), d.value(), d.key(), d.value()], { weight: 0.2 }),
]

const SCORE_BOUNDS: readonly string[] = ['-inf', '+inf', '0', '1', '(1', '2.5', '(2.5', '-3', '10', 'x', '(']
const LEX_BOUNDS: readonly string[] = ['-', '+', '[m1', '(m2', '[1', '(', '[', 'm1', '[']

/**
 * Sorted sets tie-break equal scores by member, so every range reply has one right order. The
 * lexicographic range commands work on LEX_KEYS only (see there).
 */
const zsets = (name: string, build: CommandSpec['build'], extra?: Partial<CommandSpec>) => spec('zset', name, build, extra)
const ZSET_COMMANDS: readonly CommandSpec[] = [
  zsets('zadd', (d) => [
    'ZADD', d.key(), ...d.maybe(0.2, d.pick(['NX', 'XX'])), ...d.maybe(0.15, d.pick(['GT', 'LT'])), ...d.maybe(0.2, 'CH'),
    ...(d.chance(0.1) ? ['INCR', d.float(), d.member()] : Array.from({ length: d.int(1, 3) }, () => [d.float(), d.member()]).flat()),
  ], { weight: 4 }),
  zsets('zincrby', (d) => ['ZINCRBY', d.key(), d.float(), d.member()], { weight: 2 }),
  zsets('zrem', (d) => ['ZREM', d.key(), ...d.members(2)], { weight: 2 }),
  zsets('zscore', (d) => ['ZSCORE', d.key(), d.member()]),
  zsets('zmscore', (d) => ['ZMSCORE', d.key(), ...d.members(3)]),
  zsets('zcard', (d) => ['ZCARD', d.key()]),
  zsets('zcount', (d) => ['ZCOUNT', d.key(), d.pick(SCORE_BOUNDS), d.pick(SCORE_BOUNDS)]),
  zsets('zadd', (d) => ['ZADD', d.lexKey(), ...d.members(3).flatMap((member) => ['0', member])], { weight: 2 }),
  zsets('set', (d) => ['SET', d.lexKey(), d.value()], { weight: 0.1 }),
  zsets('del', (d) => ['DEL', d.lexKey()], { weight: 0.2 }),
  zsets('zlexcount', (d) => ['ZLEXCOUNT', d.lexKey(), d.pick(LEX_BOUNDS), d.pick(LEX_BOUNDS)]),
  zsets('zrank', (d) => ['ZRANK', d.key(), d.member()]),
  zsets('zrevrank', (d) => ['ZREVRANK', d.key(), d.member()]),
  zsets('zrange', (d) => ['ZRANGE', d.key(), d.index(), d.index(), ...d.maybe(0.2, 'REV'), ...d.maybe(0.4, 'WITHSCORES')], { weight: 2 }),
  zsets('zrange', (d) => [
    'ZRANGE', d.key(), d.pick(SCORE_BOUNDS), d.pick(SCORE_BOUNDS), 'BYSCORE', ...d.maybe(0.3, 'REV'),
    ...d.maybe(0.3, 'LIMIT', d.pick(['0', '1']), d.pick(['1', '2', '-1'])), ...d.maybe(0.3, 'WITHSCORES'),
  ]),
  zsets('zrange', (d) => ['ZRANGE', d.lexKey(), d.pick(LEX_BOUNDS), d.pick(LEX_BOUNDS), 'BYLEX', ...d.maybe(0.3, 'REV'), ...d.maybe(0.2, 'LIMIT', '0', '1')]),
  zsets('zrangebyscore', (d) => ['ZRANGEBYSCORE', d.key(), d.pick(SCORE_BOUNDS), d.pick(SCORE_BOUNDS), ...d.maybe(0.4, 'WITHSCORES')]),
  zsets('zrevrangebyscore', (d) => ['ZREVRANGEBYSCORE', d.key(), d.pick(SCORE_BOUNDS), d.pick(SCORE_BOUNDS)]),
  zsets('zrangebylex', (d) => ['ZRANGEBYLEX', d.lexKey(), d.pick(LEX_BOUNDS), d.pick(LEX_BOUNDS)]),
  zsets('zrevrangebylex', (d) => ['ZREVRANGEBYLEX', d.lexKey(), d.pick(LEX_BOUNDS), d.pick(LEX_BOUNDS)]),
  zsets('zrangestore', (d) => ['ZRANGESTORE', d.key(), d.key(), d.index(), d.index()]),
  zsets('zremrangebyrank', (d) => ['ZREMRANGEBYRANK', d.key(), d.index(), d.index()]),
  zsets('zremrangebyscore', (d) => ['ZREMRANGEBYSCORE', d.key(), d.pick(SCORE_BOUNDS), d.pick(SCORE_BOUNDS)]),
  zsets('zremrangebylex', (d) => ['ZREMRANGEBYLEX', d.lexKey(), d.pick(LEX_BOUNDS), d.pick(LEX_BOUNDS)]),
  zsets('zpopmin', (d) => ['ZPOPMIN', d.key(), ...d.maybe(0.4, d.pick(['0', '1', '2', '-1']))]),
  zsets('zpopmax', (d) => ['ZPOPMAX', d.key(), ...d.maybe(0.4, d.pick(['0', '1', '2', '-1']))]),
  zsets('zmpop', (d) => {
    const keys = d.keys(2)
    return ['ZMPOP', String(keys.length), ...keys, d.pick(['MIN', 'MAX']), ...d.maybe(0.4, 'COUNT', d.pick(['1', '2', '0']))]
  }),
  zsets('zunionstore', (d) => {
    const keys = d.keys(2)
    return [
      'ZUNIONSTORE', d.key(), String(keys.length), ...keys, ...d.maybe(0.3, 'WEIGHTS', ...keys.map(() => d.pick(['1', '2', '-1', '0.5']))),
      ...d.maybe(0.3, 'AGGREGATE', d.pick(['SUM', 'MIN', 'MAX'])),
    ]
  }),
  zsets('zinterstore', (d) => {
    const keys = d.keys(2)
    return ['ZINTERSTORE', d.key(), String(keys.length), ...keys, ...d.maybe(0.3, 'AGGREGATE', d.pick(['SUM', 'MIN', 'MAX']))]
  }),
  zsets('zdiffstore', (d) => {
    const keys = d.keys(2)
    return ['ZDIFFSTORE', d.key(), String(keys.length), ...keys]
  }),
  zsets('zunion', (d) => {
    const keys = d.keys(3)
    return ['ZUNION', String(keys.length), ...keys, ...d.maybe(0.5, 'WITHSCORES')]
  }),
  zsets('zinter', (d) => {
    const keys = d.keys(2)
    return ['ZINTER', String(keys.length), ...keys, ...d.maybe(0.5, 'WITHSCORES')]
  }),
  zsets('zdiff', (d) => {
    const keys = d.keys(2)
    return ['ZDIFF', String(keys.length), ...keys, ...d.maybe(0.5, 'WITHSCORES')]
  }),
  zsets('zintercard', (d) => {
    const keys = d.keys(2)
    return ['ZINTERCARD', String(keys.length), ...keys, ...d.maybe(0.3, 'LIMIT', d.pick(['0', '1']))]
  }),
]

const LONGITUDES: readonly string[] = ['0', '13.361389', '15.087269', '-122.27652', '180', '-180', '181', 'x']
const LATITUDES: readonly string[] = ['0', '38.115556', '37.502669', '37.805186', '85.05112878', '-85.05112878', '86', 'x']

/** GEOSEARCH without ASC/DESC answers in Redis's box-scan order: compared as a set. */
const geo = (name: string, build: CommandSpec['build'], extra?: Partial<CommandSpec>) => spec('geo', name, build, extra)
const GEO_COMMANDS: readonly CommandSpec[] = [
  geo('geoadd', (d) => [
    'GEOADD', d.key(), ...d.maybe(0.2, d.pick(['NX', 'XX'])), ...d.maybe(0.2, 'CH'),
    ...Array.from({ length: d.int(1, 2) }, () => [d.pick(LONGITUDES), d.pick(LATITUDES), d.member()]).flat(),
  ], { weight: 3 }),
  geo('geopos', (d) => ['GEOPOS', d.key(), ...d.members(2)]),
  geo('geodist', (d) => ['GEODIST', d.key(), d.member(), d.member(), ...d.maybe(0.5, d.pick(['m', 'km', 'mi', 'ft', 'KM', 'x']))]),
  geo('geohash', (d) => ['GEOHASH', d.key(), ...d.members(2)]),
  geo('geosearch', (d) => [
    'GEOSEARCH', d.key(), ...(d.chance(0.5) ? ['FROMMEMBER', d.member()] : ['FROMLONLAT', d.pick(LONGITUDES), d.pick(LATITUDES)]),
    ...(d.chance(0.5) ? ['BYRADIUS', d.pick(['100', '500', '5000']), 'km'] : ['BYBOX', d.pick(['100', '2000']), d.pick(['100', '2000']), 'km']),
    d.pick(['ASC', 'DESC']), ...d.maybe(0.3, 'COUNT', d.pick(['1', '2'])), ...d.maybe(0.3, 'WITHDIST'), ...d.maybe(0.2, 'WITHCOORD'),
  ]),
  geo('geosearch', (d) => ['GEOSEARCH', d.key(), 'FROMMEMBER', d.member(), 'BYRADIUS', d.pick(['100', '5000']), 'km'], { relax: 'unordered' }),
]

/** Every family's specs. A family added later appends its array here. */
export const CATALOGUE: readonly CommandSpec[] = [
  ...STRING_COMMANDS,
  ...BITMAP_COMMANDS,
  ...HASH_COMMANDS,
  ...LIST_COMMANDS,
  ...SET_COMMANDS,
  ...ZSET_COMMANDS,
  // ZSCAN and the lex ranges over mixed scores run on keys SORT never sees (see zset.generator.ts):
  // SORT turns a sorted set into a skip list, whose ZSCAN walks Redis's hash table and whose lex
  // ranges over mixed scores follow its random levels.
  ...sortedSetSpecs(),
  ...hyperLogLogSpecs(),
  ...GEO_COMMANDS,
  ...geoSpecs(),
  ...streamSpecs(),
  ...GENERIC_COMMANDS,
  ...SERVER_COMMANDS,
]

/** Draws `length` commands from `specs` for `seed`, weighted. */
export function generateSequence(seed: number, length: number, specs: readonly CommandSpec[]): GeneratedCommand[] {
  const random = new Random(seed)
  const draw = new Draw(random)
  const cumulative: number[] = []
  let total = 0
  for (const entry of specs) cumulative.push((total += entry.weight ?? 1))
  const sequence: GeneratedCommand[] = []
  for (let i = 0; i < length; i++) {
    const target = random.next() * total
    let low = 0
    let high = cumulative.length - 1
    while (low < high) {
      const middle = (low + high) >> 1
      if (cumulative[middle] > target) high = middle
      else low = middle + 1
    }
    const chosen = specs[low]
    sequence.push(chosen.relax === undefined ? { command: chosen.build(draw) } : { command: chosen.build(draw), relax: chosen.relax })
  }
  return sequence
}

/**
 * Reduces `sequence` to a smaller one that still diverges: chunks are dropped while `diverges`
 * stays true, halving the chunk size down to single commands (delta debugging). `diverges`
 * returns the length of the diverging prefix (up to and including the first differing
 * command), or 0 when both executors agree; the result is cut there.
 */
export async function shrink(
  sequence: readonly GeneratedCommand[],
  diverges: (candidate: readonly GeneratedCommand[]) => Promise<number>,
): Promise<GeneratedCommand[]> {
  let current = [...sequence]
  const first = await diverges(current)
  if (first === 0) return current
  current = current.slice(0, first)
  for (let chunk = Math.max(1, current.length >> 1); chunk >= 1; chunk >>= 1) {
    let start = 0
    while (start < current.length) {
      const candidate = [...current.slice(0, start), ...current.slice(start + chunk)]
      const prefix = candidate.length === 0 ? 0 : await diverges(candidate)
      if (prefix > 0) current = candidate.slice(0, prefix)
      else start += chunk
    }
  }
  return current
}

/** A command as one line, binary words as hex: `SET a <00ff0d0a>`. */
export function showCommand(command: Command): string {
  return command
    .map((word) => {
      if (typeof word !== 'string') return `<${Buffer.from(word).toString('hex')}>`
      return word === '' || /[\s"]/.test(word) ? JSON.stringify(word) : word
    })
    .join(' ')
}
