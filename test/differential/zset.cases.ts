import type { Command } from '../../src/reply.js'
import type { DiffCase } from './harness.js'

/**
 * Sorted-set commands against redis-server 7.0: ZADD and its flags, ZINCRBY, scores (parsing and
 * `%.17g` formatting), member commands, pops, ZRANDMEMBER and ZSCAN. Ranges and the set
 * operations are in zset.range.cases.ts. Small sorted sets are listpacks in Redis and large ones
 * skip lists: both are covered, and everything but ZSCAN of a skip list (hash-table order) and
 * random picks is compared exactly. ZRANK … WITHSCORE is Redis 7.2: see
 * test/executor/memory/zset.test.ts.
 */

/** A command written as one string of space-separated words. */
export function words(text: string): Command {
  return text.split(' ')
}

/** ZADD of `count` members `m0…` scored 0…count-1 (or by `score`). */
export function zaddMany(key: string, count: number, score: (i: number) => string = String, prefix = 'm'): Command {
  return ['ZADD', key, ...Array.from({ length: count }, (_, i) => [score(i), `${prefix}${i}`]).flat()]
}

const LONG_MEMBER = 'x'.repeat(65)

export const zsetCases: DiffCase[] = [
  // ---- ZADD ----
  {
    name: 'ZADD counts new members, updates scores, and orders by score then member',
    commands: [
      words('ZADD z 3 c 1 a 2 b 2 aa'),
      words('ZADD z 5 a 0 new'),
      words('ZRANGE z 0 -1 WITHSCORES'),
      words('ZCARD z'),
      words('TYPE z'),
      words('OBJECT ENCODING z'),
    ],
  },
  {
    name: 'ZADD with the same member twice keeps the last score',
    commands: [words('ZADD z 1 a 2 a 3 a'), words('ZSCORE z a'), words('ZCARD z')],
  },
  {
    name: 'ZADD NX adds only new members; XX updates only existing ones',
    commands: [
      words('ZADD z 1 a 2 b'),
      words('ZADD z NX 10 a 3 c'),
      words('ZADD z XX 20 b 4 d'),
      words('ZRANGE z 0 -1 WITHSCORES'),
      words('ZADD missing XX 1 a'),
      words('EXISTS missing'),
    ],
  },
  {
    name: 'ZADD GT and LT update only in their direction, never blocking new members; CH counts changes',
    commands: [
      words('ZADD z 5 a 5 b'),
      words('ZADD z GT CH 6 a 4 b 1 c'),
      words('ZADD z LT CH 3 a 2 b'),
      words('ZADD z XX GT CH 10 a 10 nope'),
      words('ZADD z LT 5 a'),
      words('ZRANGE z 0 -1 WITHSCORES'),
    ],
  },
  {
    name: 'ZADD CH counts added and updated, not unchanged scores',
    commands: [words('ZADD z 1 a 2 b'), words('ZADD z CH 1 a 3 b 4 c'), words('ZADD z CH 1 a 3 b 4 c')],
  },
  {
    name: 'ZADD INCR replies the new score, or nil when NX/XX/GT/LT prevent the update',
    commands: [
      words('ZADD z INCR 1.5 a'),
      words('ZADD z INCR 1.5 a'),
      words('ZADD z NX INCR 1 a'),
      words('ZADD z XX INCR 1 nope'),
      words('ZADD z GT INCR -1 a'),
      words('ZADD z LT INCR 1 a'),
      words('ZADD z LT INCR -1 a'),
      words('ZADD missing XX INCR 1 a'),
      words('ZADD z incr incr 2 b'),
    ],
  },
  {
    name: 'ZADD GT, LT and INCR still add missing members; CH counts only the scores that really change',
    commands: [
      words('ZADD z GT INCR 5 new'),
      words('ZADD z LT INCR -2 new2'),
      words('ZADD z GT CH 1 a 2 b'),
      words('ZADD z LT CH 1 a 3 b'),
      words('ZADD z GT CH 1 a 3 b'),
      words('ZADD z NX CH 9 a 9 c'),
      words('ZADD z XX CH 9 a 9 c2'),
      words('ZADD z XX GT CH INCR 1 a'),
      words('ZADD z XX LT INCR 1 a'),
      words('ZADD z GT INCR -inf new2'),
      words('ZADD z LT INCR -inf new2'),
      words('ZRANGE z 0 -1 WITHSCORES'),
    ],
  },
  {
    name: 'ZADD incompatible options and pair errors, each with its text',
    commands: [
      words('ZADD z NX XX 1 a'),
      words('ZADD z GT LT 1 a'),
      words('ZADD z NX GT 1 a'),
      words('ZADD z NX LT 1 a'),
      words('ZADD z XX NX GT 1 a'),
      words('ZADD z INCR 1 a 2 b'),
      words('ZADD z 1 a 2'),
      words('ZADD z NX 1'),
      words('ZADD z 1'),
      words('ZADD z nx xx ch'),
      words('EXISTS z'),
    ],
  },
  {
    name: 'ZADD reads every score before writing: one bad score changes nothing',
    commands: [words('ZADD z 1 a x b'), words('EXISTS z'), words('ZADD z 1 a 2 b'), words('ZADD z 5 a nan b'), words('ZSCORE z a')],
  },
  {
    name: 'ZADD score parsing: inf spellings, hex, exponents; space, overflow, underflow and NaN refused',
    commands: [
      words('ZADD z inf a -inf b +inf c Infinity d -INF e'),
      words('ZADD z 0x10 f 1e3 g .5 h 5. i -0.0e0 j 1e-320 k'),
      words('ZRANGE z 0 -1 WITHSCORES'),
      ['ZADD', 'z', ' 1', 'x'],
      ['ZADD', 'z', '1 ', 'x'],
      words('ZADD z 1e400 x'),
      words('ZADD z -1e400 x'),
      words('ZADD z 1e-400 x'),
      words('ZADD z nan x'),
      ['ZADD', 'z', '', 'x'],
      words('ZADD z 1e x'),
      words('ZADD z 0x x'),
      words('EXISTS x'),
    ],
  },
  {
    name: 'scores reply as %.17g: 1.1 is 1.1000000000000001, integers stay integers, large and tiny use exponents',
    commands: [
      words('ZADD z 1.1 a 0.1 b 1e-5 c 1e20 d 123456789012345678 e 0.500003814697265625 f 2.5 g -3.75 h 1e16 i 1e17 j 0.0001 k 0.00001 l'),
      words('ZRANGE z 0 -1 WITHSCORES'),
      words('ZSCORE z a'),
      words('ZMSCORE z f j nope'),
    ],
  },
  {
    name: 'integral scores between 2^53 and 1e17 reply with all 17 digits, not the shortest that reads back',
    commands: [
      words('ZADD z 20266198323167232 a 9007199254740994 b 99999999999999984 c -40902126021722112 d 18014398509481988 e'),
      words('ZRANGE z 0 -1 WITHSCORES'),
      words('ZSCORE z a'),
      words('ZINCRBY z 4 e'),
      words('GEOADD g 180 0 m 180 37.502669 n'),
      words('ZINTER 2 g g WITHSCORES'),
      words('ZUNIONSTORE u 2 g g'),
      words('ZRANGE u 0 -1 WITHSCORES'),
      words('ZSCAN u 0'),
      words('ZPOPMAX u'),
    ],
  },
  {
    name: '-0 is kept by a skip list, stored as 0 by a listpack; it equals 0 for updates',
    commands: [
      words('ZADD lp -0 a'),
      words('ZSCORE lp a'),
      words('ZADD lp INCR -0 b'),
      words('ZSCORE lp b'),
      words('CONFIG SET zset-max-listpack-entries 0'),
      words('ZADD sl -0 a'),
      words('ZSCORE sl a'),
      words('ZINCRBY sl 0 a'),
      words('ZSCORE sl a'),
      words('ZADD sl CH 0 a'),
      words('ZRANGE sl 0 -1 WITHSCORES'),
      words('ZUNIONSTORE out 1 sl'),
      words('ZSCORE out a'),
      words('CONFIG SET zset-max-listpack-entries 128'),
    ],
  },
  {
    name: 'ZADD on a key of another type is WRONGTYPE, after the score check',
    commands: [words('SET s v'), words('ZADD s 1 a'), words('ZADD s XX 1 a'), words('ZADD s x a'), words('ZINCRBY s 1 a'), words('GET s')],
  },
  {
    name: 'ZADD keeps the TTL of an existing sorted set',
    commands: [words('ZADD z 1 a'), words('EXPIRE z 100'), words('ZADD z 2 b'), words('TTL z')],
    relax: { 3: 'ttl' },
  },
  {
    name: 'binary members round-trip and sort by bytes',
    commands: [
      ['ZADD', 'z', '0', Buffer.from([0xff]), '0', Buffer.from([0x00]), '0', 'a', '0', Buffer.from([0x80, 0x01]), '0', ''],
      words('ZRANGE z 0 -1'),
      ['ZSCORE', 'z', Buffer.from([0x00])],
      ['ZRANK', 'z', Buffer.from([0xff])],
    ],
  },

  // ---- encodings ----
  {
    name: 'a listpack becomes a skip list past zset-max-listpack-entries and never goes back',
    commands: [
      zaddMany('z', 128),
      words('OBJECT ENCODING z'),
      words('ZADD z 128 m128'),
      words('OBJECT ENCODING z'),
      words('ZREMRANGEBYRANK z 0 100'),
      words('OBJECT ENCODING z'),
      words('ZRANGE z 0 -1 WITHSCORES'),
    ],
  },
  {
    name: 'a member longer than zset-max-listpack-value makes a skip list',
    commands: [words('ZADD z 1 a'), ['ZADD', 'z', '2', LONG_MEMBER], words('OBJECT ENCODING z'), ['ZADD', 'y', '1', LONG_MEMBER], words('OBJECT ENCODING y')],
  },
  {
    name: 'the encoding limits are read from CONFIG at each insertion',
    commands: [
      words('CONFIG SET zset-max-listpack-entries 3'),
      words('ZADD z 1 a 2 b 3 c'),
      words('OBJECT ENCODING z'),
      words('ZADD z 4 d'),
      words('OBJECT ENCODING z'),
      words('CONFIG SET zset-max-listpack-value 2'),
      words('ZADD y 1 abc'),
      words('OBJECT ENCODING y'),
      words('CONFIG SET zset-max-listpack-entries 128'),
      words('CONFIG SET zset-max-listpack-value 64'),
    ],
  },

  // ---- ZINCRBY ----
  {
    name: 'ZINCRBY creates, increments, and replies the score',
    commands: [words('ZINCRBY z 2.5 a'), words('ZINCRBY z -1 a'), words('ZINCRBY z 1e3 b'), words('ZRANGE z 0 -1 WITHSCORES')],
  },
  {
    name: 'ZINCRBY errors: non-float increment, NaN result, options as increment',
    commands: [
      words('ZINCRBY z x a'),
      words('ZINCRBY z nan a'),
      words('ZADD z inf a'),
      words('ZINCRBY z -inf a'),
      words('ZADD z INCR -inf a'),
      words('ZSCORE z a'),
      words('ZINCRBY z nx a'),
      words('ZINCRBY z incr a'),
      words('ZINCRBY z 1e400 a'),
    ],
  },

  // ---- ZCARD, ZSCORE, ZMSCORE, ZRANK, ZREVRANK, ZREM ----
  {
    name: 'member lookups on present and missing members and keys',
    commands: [
      words('ZADD z 1 a 2 b 3 c'),
      words('ZCARD z'),
      words('ZCARD nokey'),
      words('ZSCORE z b'),
      words('ZSCORE z nope'),
      words('ZSCORE nokey a'),
      words('ZMSCORE z a nope c a'),
      words('ZMSCORE nokey a b'),
      words('ZRANK z a'),
      words('ZRANK z c'),
      words('ZREVRANK z a'),
      words('ZRANK z nope'),
      words('ZRANK nokey a'),
      words('ZREVRANK nokey a'),
    ],
  },
  {
    name: 'ZRANK and ZREVRANK in a skip list',
    commands: [zaddMany('z', 300, (i) => String(i % 7)), words('ZRANK z m150'), words('ZREVRANK z m150'), words('ZRANK z m0'), words('ZREVRANK z m0'), words('ZRANK z m299')],
  },
  {
    name: 'ZRANK WITHSCORE is Redis 7.2: a 7.0 server refuses the extra argument',
    commands: [words('ZADD z 1 a'), words('ZRANK z a WITHSCORE'), words('ZREVRANK z a WITHSCORE')],
  },
  {
    name: 'member commands on a key of another type are WRONGTYPE',
    commands: [
      words('SET s v'),
      words('ZCARD s'),
      words('ZSCORE s a'),
      words('ZMSCORE s a'),
      words('ZRANK s a'),
      words('ZREVRANK s a'),
      words('ZREM s a'),
    ],
  },
  {
    name: 'ZREM counts removed members and deletes the emptied key',
    commands: [words('ZADD z 1 a 2 b 3 c'), words('ZREM z a a nope'), words('ZREM z b c'), words('EXISTS z'), words('ZREM nokey a')],
  },
  {
    name: 'ZREM in a skip list keeps ranks right',
    commands: [zaddMany('z', 200), words('ZREM z m0 m50 m199 m100'), words('ZRANK z m51'), words('ZRANGE z 45 55'), words('ZCARD z')],
  },

  // ---- ZPOPMIN, ZPOPMAX, ZMPOP ----
  {
    name: 'ZPOPMIN and ZPOPMAX pop from each end, with and without count',
    commands: [
      words('ZADD z 1 a 2 b 3 c 4 d 5 e'),
      words('ZPOPMIN z'),
      words('ZPOPMAX z'),
      words('ZPOPMIN z 2'),
      words('ZPOPMAX z 0'),
      words('ZPOPMAX z 10'),
      words('EXISTS z'),
      words('ZPOPMIN nokey'),
      words('ZPOPMIN nokey 3'),
    ],
  },
  {
    name: 'ZPOPMIN count errors come before the key is read',
    commands: [
      words('SET s v'),
      words('ZADD z 1 a'),
      words('ZPOPMIN z -1'),
      words('ZPOPMIN z x'),
      words('ZPOPMIN z 1 2'),
      words('ZPOPMIN s'),
      words('ZPOPMIN s 0'),
      words('ZPOPMAX s x'),
    ],
  },
  {
    name: 'ZMPOP pops from the first non-empty key, replying [key, [[member, score], ...]]',
    commands: [
      words('ZADD b 1 x 2 y 3 z'),
      words('ZMPOP 3 nokey b c MIN'),
      words('ZMPOP 2 nokey b MAX COUNT 5'),
      words('EXISTS b'),
      words('ZMPOP 2 nokey b MIN'),
      words('ZADD c 1.5 q'),
      words('ZMPOP 1 c min count 1'),
    ],
  },
  {
    name: 'ZMPOP argument errors',
    commands: [
      words('ZADD a 1 x'),
      words('SET s v'),
      words('ZMPOP 0 a MIN'),
      words('ZMPOP -1 a MIN'),
      words('ZMPOP x a MIN'),
      words('ZMPOP 2 a MIN'),
      words('ZMPOP 1 a FOO'),
      words('ZMPOP 1 a MIN COUNT 0'),
      words('ZMPOP 1 a MIN COUNT -2'),
      words('ZMPOP 1 a MIN COUNT x'),
      words('ZMPOP 1 a MIN COUNT 1 COUNT 1'),
      words('ZMPOP 1 a MIN COUNT'),
      words('ZMPOP 1 a MIN BAR'),
      words('ZMPOP 2 s a MIN'),
      words('ZMPOP 2 nokey s MAX'),
      words('ZMPOP 2 a s MAX'),
      words('ZCARD a'),
    ],
  },

  {
    name: 'ZPOPMIN, ZPOPMAX and ZMPOP in a skip list: infinite scores at the ends, counts past the size',
    commands: [
      zaddMany('z', 200, (i) => (i === 0 ? '-inf' : i === 199 ? 'inf' : String(i / 4))),
      words('ZPOPMIN z 3'),
      words('ZPOPMAX z 3'),
      words('ZMPOP 1 z MAX COUNT 2'),
      words('ZMPOP 2 nokey z MIN COUNT 2'),
      words('OBJECT ENCODING z'),
      words('ZCARD z'),
      words('ZPOPMIN z 9223372036854775807'),
      words('EXISTS z'),
      words('ZADD l 1 a 2 b'),
      words('ZPOPMAX l 9223372036854775807'),
      words('EXISTS l'),
    ],
  },

  // ---- ZRANDMEMBER ----
  {
    name: 'ZRANDMEMBER: one member, counts covering the set (reverse order), zero and missing keys',
    commands: [
      words('ZADD z 1 a 2 b 3 c 4 d'),
      words('ZRANDMEMBER z'),
      words('ZRANDMEMBER z 4'),
      words('ZRANDMEMBER z 100 WITHSCORES'),
      words('ZRANDMEMBER z 0'),
      words('ZRANDMEMBER z 0 WITHSCORES'),
      words('ZRANDMEMBER nokey'),
      words('ZRANDMEMBER nokey 3'),
      words('ZRANDMEMBER nokey -3 WITHSCORES'),
    ],
    relax: { 1: 'ignore' },
  },
  {
    name: 'ZRANDMEMBER random picks have the right size (distinct members for a positive count)',
    commands: [
      zaddMany('z', 200),
      words('ZRANDMEMBER z 5'),
      words('ZRANDMEMBER z 150 WITHSCORES'),
      words('ZRANDMEMBER z -7'),
      words('ZRANDMEMBER z -300 WITHSCORES'),
      words('ZRANDMEMBER z 199'),
      words('ZRANDMEMBER z 200'),
    ],
    relax: { 1: 'sameLength', 2: 'sameLength', 3: 'sameLength', 4: 'sameLength', 5: 'sameLength' },
  },
  {
    name: 'ZRANDMEMBER argument errors and their order',
    commands: [
      words('ZADD z 1 a'),
      words('SET s v'),
      words('ZRANDMEMBER z x'),
      words('ZRANDMEMBER z 1 x'),
      words('ZRANDMEMBER z 1 WITHSCORES x'),
      words('ZRANDMEMBER z -9223372036854775808'),
      words('ZRANDMEMBER z 9223372036854775807 WITHSCORES'),
      words('ZRANDMEMBER z -4611686018427387904 WITHSCORES'),
      words('ZRANDMEMBER z 4611686018427387903 WITHSCORES'),
      words('ZRANDMEMBER s'),
      words('ZRANDMEMBER s 1'),
      words('ZRANDMEMBER s 0'),
      words('ZRANDMEMBER nokey x'),
    ],
  },

  // ---- ZSCAN ----
  {
    name: 'ZSCAN of a listpack returns it whole, in order, with cursor 0 and listpack score texts',
    commands: [
      words('ZADD z 3 c 1 a 2.5 b 123456789012345678 big 1e20 huge -0 zero inf i'),
      words('ZSCAN z 0'),
      words('ZSCAN z 123'),
      words('ZSCAN z 0 MATCH [ab]* COUNT 1'),
      words('ZSCAN nokey 0'),
    ],
  },
  {
    name: 'ZSCAN of a skip list with a big COUNT ends in one call (its order is hash-table order: see the unit tests)',
    commands: [zaddMany('z', 150, (i) => String(i / 2)), words('ZSCAN z 0 MATCH nothing* COUNT 1000'), words('ZSCAN z 0 COUNT 1000')],
    relax: { 2: 'sameLength' },
  },
  {
    name: 'ZSCAN argument errors',
    commands: [
      words('ZADD z 1 a'),
      words('SET s v'),
      words('ZSCAN z x'),
      words('ZSCAN z -1'),
      words('ZSCAN z 0 COUNT 0'),
      words('ZSCAN z 0 COUNT x'),
      words('ZSCAN z 0 MATCH'),
      words('ZSCAN z 0 NOVALUES'),
      words('ZSCAN s 0'),
      words('ZSCAN s x'),
      words('ZSCAN nokey 0 COUNT 0'),
    ],
  },

  // ---- arity ----
  {
    name: 'every sorted-set command, the blocking ones included, answers the arity error with too few or too many arguments',
    commands: [
      words('ZADD z'),
      words('ZADD z 1'),
      words('ZCARD'),
      words('ZCARD z extra'),
      words('ZCOUNT z 1'),
      words('ZDIFF 1'),
      words('ZDIFFSTORE d 1'),
      words('ZINCRBY z 1'),
      words('ZINTER 1'),
      words('ZINTERCARD 1'),
      words('ZINTERSTORE d 1'),
      words('ZLEXCOUNT z -'),
      words('ZMPOP 1 z'),
      words('ZMSCORE z'),
      words('ZPOPMAX'),
      words('ZPOPMIN'),
      words('ZRANDMEMBER'),
      words('ZRANGE z 0'),
      words('ZRANGEBYLEX z -'),
      words('ZRANGEBYSCORE z 0'),
      words('ZRANGESTORE d z 0'),
      words('ZRANK z'),
      words('ZREVRANK z'),
      words('ZREM z'),
      words('ZREMRANGEBYLEX z -'),
      words('ZREMRANGEBYRANK z 0'),
      words('ZREMRANGEBYSCORE z 0'),
      words('ZREVRANGE z 0'),
      words('ZREVRANGEBYLEX z +'),
      words('ZREVRANGEBYSCORE z 0'),
      words('ZSCAN z'),
      words('ZSCORE z'),
      words('ZSCORE z a b'),
      words('ZUNION 1'),
      words('ZUNIONSTORE d 1'),
      words('BZPOPMIN z'),
      words('BZPOPMAX z'),
      words('BZMPOP 0 1 z'),
      words('EXISTS z d'),
    ],
  },

  // ---- keyspace interplay ----
  {
    name: 'COPY keeps the encoding and contents of a sorted set',
    commands: [zaddMany('z', 200), words('COPY z y'), words('OBJECT ENCODING y'), words('ZRANGE y 100 105 WITHSCORES'), words('ZADD z 5 m5'), words('ZSCORE y m5')],
  },
]
