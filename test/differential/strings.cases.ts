/**
 * Differential cases of the String family (Redis 7.0 t_string.c): every command, option and
 * error path. INCRBYFLOAT's random sequences are in `strings.incrbyfloat.cases.ts`.
 */
import type { DiffCase } from './harness.js'

const bytes = (...values: number[]): Uint8Array => Uint8Array.from(values)
/** A hash key, for WRONGTYPE paths. */
const HASH = ['HSET', 'h', 'f', 'v'] as const

const setCases: DiffCase[] = [
  { name: 'SET then GET returns the value; GET of a missing key is nil', commands: [['SET', 'k', 'v'], ['GET', 'k'], ['GET', 'missing']] },
  { name: 'SET overwrites a value of another type', commands: [HASH, ['SET', 'h', 'v'], ['TYPE', 'h'], ['GET', 'h']] },
  { name: 'GET of a non-string key is WRONGTYPE', commands: [HASH, ['GET', 'h']] },
  { name: 'SET of empty and binary values keeps every byte', commands: [['SET', 'e', ''], ['GET', 'e'], ['STRLEN', 'e'], ['SET', 'b', bytes(0, 0xff, 0x80, 13, 10)], ['GET', 'b'], ['STRLEN', 'b'], ['SET', bytes(0xfe, 0), 'x'], ['GET', bytes(0xfe, 0)]] },
  { name: 'SET NX writes only a missing key', commands: [['SET', 'k', 'v', 'NX'], ['SET', 'k', 'w', 'NX'], ['GET', 'k']] },
  { name: 'SET XX writes only an existing key', commands: [['SET', 'k', 'v', 'XX'], ['EXISTS', 'k'], ['SET', 'k', 'v'], ['SET', 'k', 'w', 'XX'], ['GET', 'k']] },
  { name: 'SET NX and XX together is a syntax error in either order', commands: [['SET', 'k', 'v', 'NX', 'XX'], ['SET', 'k', 'v', 'XX', 'NX'], ['EXISTS', 'k']] },
  { name: 'SET NX or XX against a key of another type counts it as existing', commands: [HASH, ['SET', 'h', 'v', 'NX'], ['TYPE', 'h'], ['SET', 'h', 'v', 'XX'], ['TYPE', 'h']] },
  { name: 'SET GET replies the old value, nil when there was none', commands: [['SET', 'k', 'v', 'GET'], ['SET', 'k', 'w', 'GET'], ['GET', 'k']] },
  { name: 'SET GET with NX replies the old value and does not write', commands: [['SET', 'k', 'v'], ['SET', 'k', 'w', 'NX', 'GET'], ['GET', 'k'], ['SET', 'n', 'x', 'GET', 'NX'], ['GET', 'n']] },
  { name: 'SET GET with XX on a missing key is nil and writes nothing', commands: [['SET', 'k', 'v', 'XX', 'GET'], ['EXISTS', 'k'], ['SET', 'k', 'v'], ['SET', 'k', 'w', 'XX', 'GET'], ['GET', 'k']] },
  { name: 'SET GET on a key of another type is WRONGTYPE and writes nothing', commands: [HASH, ['SET', 'h', 'v', 'GET'], ['SET', 'h', 'v', 'NX', 'GET'], ['SET', 'h', 'v', 'XX', 'GET'], ['TYPE', 'h']] },
  { name: 'SET checks the expire value before GET checks the type', commands: [HASH, ['SET', 'h', 'v', 'EX', 'abc', 'GET'], ['SET', 'h', 'v', 'GET', 'EX', '0'], ['SET', 'h', 'v', 'GET', 'PX', '-1'], ['SET', 'h', 'v', 'GET', 'EX', '10'], ['TYPE', 'h']] },
  { name: 'SET EX and PX set a TTL', commands: [['SET', 'k', 'v', 'EX', '100'], ['TTL', 'k'], ['SET', 'p', 'v', 'PX', '100000'], ['TTL', 'p']], relax: { 1: 'ttl', 3: 'ttl' } },
  { name: 'SET EXAT and PXAT set absolute deadlines', commands: [['SET', 'k', 'v', 'EXAT', '4102444800'], ['EXPIRETIME', 'k'], ['SET', 'p', 'v', 'PXAT', '4102444800123'], ['PEXPIRETIME', 'p']] },
  { name: 'SET drops the TTL unless KEEPTTL', commands: [['SET', 'k', 'v', 'EX', '100'], ['SET', 'k', 'w', 'KEEPTTL'], ['TTL', 'k'], ['GET', 'k'], ['SET', 'k', 'x'], ['TTL', 'k']], relax: { 2: 'ttl' } },
  { name: 'SET KEEPTTL on a key without TTL and on a missing key', commands: [['SET', 'k', 'v'], ['SET', 'k', 'w', 'KEEPTTL'], ['TTL', 'k'], ['SET', 'n', 'v', 'KEEPTTL'], ['TTL', 'n']] },
  { name: 'SET KEEPTTL with any expire option is a syntax error', commands: [['SET', 'k', 'v', 'KEEPTTL', 'EX', '10'], ['SET', 'k', 'v', 'EX', '10', 'KEEPTTL'], ['SET', 'k', 'v', 'PX', '10', 'KEEPTTL'], ['SET', 'k', 'v', 'KEEPTTL', 'PXAT', '10'], ['SET', 'k', 'v', 'EXAT', '10', 'KEEPTTL'], ['EXISTS', 'k']] },
  { name: 'SET accepts one expire option repeated (the last wins) but not two kinds', commands: [['SET', 'k', 'v', 'EX', '10', 'EX', '100'], ['TTL', 'k'], ['SET', 'k', 'v', 'EX', '10', 'PX', '100'], ['SET', 'k', 'v', 'PX', '10', 'EXAT', '100'], ['SET', 'k', 'v', 'EXAT', '10', 'PXAT', '100'], ['SET', 'k', 'v', 'PXAT', '1', 'EX', '5'], ['SET', 'k', 'v', 'PX', '5', 'PX', '100000'], ['TTL', 'k']], relax: { 1: 'ttl', 7: 'ttl' } },
  { name: 'SET expire options without a value are syntax errors; a following option is taken as the value', commands: [['SET', 'k', 'v', 'EX'], ['SET', 'k', 'v', 'PX'], ['SET', 'k', 'v', 'EXAT'], ['SET', 'k', 'v', 'PXAT'], ['SET', 'k', 'v', 'EX', 'NX'], ['SET', 'k', 'v', 'NX', 'PX'], ['EXISTS', 'k']] },
  { name: 'SET refuses zero, negative and malformed expire values', commands: [['SET', 'k', 'v', 'EX', '0'], ['SET', 'k', 'v', 'EX', '-1'], ['SET', 'k', 'v', 'PX', '0'], ['SET', 'k', 'v', 'EXAT', '0'], ['SET', 'k', 'v', 'PXAT', '-5'], ['SET', 'k', 'v', 'EX', '1.5'], ['SET', 'k', 'v', 'EX', 'abc'], ['SET', 'k', 'v', 'EX', ' 1'], ['SET', 'k', 'v', 'EX', '+1'], ['SET', 'k', 'v', 'EX', '01'], ['SET', 'k', 'v', 'EX', '9223372036854775808'], ['SET', 'k', 'v', 'px', ''], ['EXISTS', 'k']] },
  { name: 'SET refuses expire times that overflow 64 bits once in ms or once now is added', commands: [['SET', 'k', 'v', 'EX', '9223372036854775'], ['SET', 'k', 'v', 'EX', '9223372036854776'], ['SET', 'k', 'v', 'EX', '9223372036854774'], ['SET', 'k', 'v', 'PX', '9223372036854775807'], ['SET', 'k', 'v', 'PX', '9223372036854775000'], ['SET', 'k', 'v', 'EXAT', '9223372036854776'], ['EXISTS', 'k']] },
  { name: 'SET accepts the largest absolute deadlines', commands: [['SET', 'k', 'v', 'EXAT', '9223372036854775'], ['GET', 'k'], ['SET', 'k', 'w', 'PXAT', '9223372036854775807'], ['GET', 'k'], ['PERSIST', 'k']] },
  { name: 'SET with a deadline already past leaves no visible key', commands: [['SET', 'k', 'v', 'PXAT', '1'], ['EXISTS', 'k'], ['SET', 'k', 'v'], ['SET', 'k', 'w', 'EXAT', '1', 'GET'], ['EXISTS', 'k'], ['GET', 'k']] },
  { name: 'SET options are case-insensitive and may repeat', commands: [['set', 'k', 'v', 'nx', 'Nx'], ['set', 'k', 'w', 'xx', 'XX', 'get', 'GeT'], ['set', 'k', 'x', 'kEePtTl', 'KEEPTTL'], ['set', 'k', 'y', 'ex', '100', 'Ex', '200', 'gEt'], ['TTL', 'k']], relax: { 4: 'ttl' } },
  { name: 'SET with an unknown or misplaced option is a syntax error', commands: [['SET', 'k', 'v', 'FOO'], ['SET', 'k', 'v', 'NX', 'FOO'], ['SET', 'k', 'v', 'EX', '10', '10'], ['SET', 'k', 'v', 'PERSIST'], ['SET', 'k', 'v', 'NXX'], ['EXISTS', 'k']] },
  { name: 'SETNX sets only a missing key and replies 1 or 0', commands: [['SETNX', 'k', 'v'], ['SETNX', 'k', 'w'], ['GET', 'k'], HASH, ['SETNX', 'h', 'v'], ['TYPE', 'h']] },
  { name: 'SETEX and PSETEX set a value with a TTL', commands: [['SETEX', 'k', '100', 'v'], ['GET', 'k'], ['TTL', 'k'], ['PSETEX', 'p', '100000', 'w'], ['GET', 'p'], ['TTL', 'p'], HASH, ['SETEX', 'h', '10', 'x'], ['TYPE', 'h']], relax: { 2: 'ttl', 5: 'ttl' } },
  { name: 'SETEX and PSETEX refuse invalid times, naming the command', commands: [['SETEX', 'k', '0', 'v'], ['SETEX', 'k', '-5', 'v'], ['SETEX', 'k', 'abc', 'v'], ['PSETEX', 'k', '0', 'v'], ['PSETEX', 'k', '1.5', 'v'], ['SETEX', 'k', '9223372036854775', 'v'], ['PSETEX', 'k', '9223372036854775807', 'v'], ['setex', 'k', '-1', 'v'], ['EXISTS', 'k']] },
  { name: 'SETEX replaces the TTL of an existing key', commands: [['SET', 'k', 'v', 'EX', '1000'], ['SETEX', 'k', '100', 'w'], ['TTL', 'k'], ['GET', 'k']], relax: { 2: 'ttl' } },
]

const getCases: DiffCase[] = [
  { name: 'GETSET replies the old value and drops the TTL', commands: [['GETSET', 'k', 'v'], ['SET', 'k', 'w', 'EX', '100'], ['GETSET', 'k', 'x'], ['GET', 'k'], ['TTL', 'k']] },
  { name: 'GETSET on a key of another type is WRONGTYPE and writes nothing', commands: [HASH, ['GETSET', 'h', 'v'], ['TYPE', 'h']] },
  { name: 'GETDEL replies the value and deletes the key', commands: [['SET', 'k', 'v'], ['GETDEL', 'k'], ['EXISTS', 'k'], ['GETDEL', 'k'], HASH, ['GETDEL', 'h'], ['TYPE', 'h']] },
  { name: 'GETEX without options is GET and keeps the TTL', commands: [['SET', 'k', 'v', 'EX', '100'], ['GETEX', 'k'], ['TTL', 'k'], ['GETEX', 'missing']], relax: { 2: 'ttl' } },
  { name: 'GETEX PERSIST removes the TTL', commands: [['SET', 'k', 'v', 'EX', '100'], ['GETEX', 'k', 'PERSIST'], ['TTL', 'k'], ['GETEX', 'k', 'persist', 'PERSIST'], ['TTL', 'k']] },
  { name: 'GETEX EX, PX, EXAT and PXAT set the TTL', commands: [['SET', 'k', 'v'], ['GETEX', 'k', 'EX', '100'], ['TTL', 'k'], ['GETEX', 'k', 'PX', '200000'], ['TTL', 'k'], ['GETEX', 'k', 'EXAT', '4102444800'], ['EXPIRETIME', 'k'], ['GETEX', 'k', 'PXAT', '4102444800555'], ['PEXPIRETIME', 'k'], ['GETEX', 'k', 'ex', '10', 'EX', '300'], ['TTL', 'k']], relax: { 2: 'ttl', 4: 'ttl', 10: 'ttl' } },
  { name: 'GETEX EXAT or PXAT in the past replies the value and deletes the key', commands: [['SET', 'k', 'v'], ['GETEX', 'k', 'EXAT', '1'], ['EXISTS', 'k'], ['SET', 'k', 'v'], ['GETEX', 'k', 'PXAT', '1000'], ['EXISTS', 'k']] },
  { name: 'GETEX options are parsed first: syntax errors even on missing keys', commands: [['GETEX', 'missing', 'FOO'], ['GETEX', 'missing', 'EX'], ['GETEX', 'missing', 'PERSIST', 'EX', '10'], ['GETEX', 'missing', 'EX', '10', 'PERSIST'], ['GETEX', 'missing', 'EX', '10', 'PX', '10'], ['GETEX', 'missing', 'KEEPTTL'], ['GETEX', 'missing', 'NX'], ['GETEX', 'missing', 'GET'], ['GETEX', 'missing', 'XX']] },
  { name: 'GETEX on a missing key is nil before the expire value is read', commands: [['GETEX', 'missing', 'EX', '0'], ['GETEX', 'missing', 'EX', 'abc'], ['GETEX', 'missing', 'PXAT', '-1']] },
  { name: 'GETEX on a key of another type is WRONGTYPE before the expire value is read', commands: [HASH, ['GETEX', 'h', 'EX', '0'], ['GETEX', 'h', 'EX', 'abc'], ['GETEX', 'h', 'PERSIST'], ['GETEX', 'h']] },
  { name: 'GETEX refuses invalid and overflowing expire values, naming getex', commands: [['SET', 'k', 'v'], ['GETEX', 'k', 'EX', '0'], ['GETEX', 'k', 'PX', '-1'], ['GETEX', 'k', 'EXAT', '0'], ['GETEX', 'k', 'EX', 'abc'], ['GETEX', 'k', 'EX', '9223372036854775'], ['GETEX', 'k', 'PX', '9223372036854775807'], ['GETEX', 'k', 'EXAT', '9223372036854776'], ['GETEX', 'k', 'EXAT', '9223372036854775'], ['GETEX', 'k', 'PXAT', '9223372036854775807'], ['GET', 'k']] },
  { name: 'MGET replies nil for missing keys and keys of other types', commands: [['SET', 'a', '1'], ['SET', 'b', bytes(0, 0xff)], HASH, ['MGET', 'a', 'missing', 'h', 'b', 'a']] },
  { name: 'MSET sets every pair, the last of a repeated key wins, TTLs and other types are replaced', commands: [['SET', 'a', 'old', 'EX', '100'], HASH, ['MSET', 'a', '1', 'b', '2', 'h', '3', 'b', '4'], ['MGET', 'a', 'b', 'h'], ['TTL', 'a'], ['TYPE', 'h']] },
  { name: 'MSET and MSETNX with an odd number of arguments are arity errors', commands: [['MSET', 'a', '1', 'b'], ['MSETNX', 'a', '1', 'b'], ['mset', 'a'], ['EXISTS', 'a']] },
  { name: 'MSETNX sets all keys only when none exists', commands: [['MSETNX', 'a', '1', 'b', '2'], ['MSETNX', 'b', '3', 'c', '4'], ['MGET', 'a', 'b', 'c'], ['MSETNX', 'c', '5', 'c', '6'], ['GET', 'c']] },
  { name: 'MSETNX counts a key of another type as existing', commands: [HASH, ['MSETNX', 'x', '1', 'h', '2'], ['EXISTS', 'x'], ['TYPE', 'h']] },
  { name: 'STRLEN of strings, integers, binary, missing and other types', commands: [['SET', 'k', 'hello'], ['STRLEN', 'k'], ['SET', 'i', '-12345'], ['STRLEN', 'i'], ['SET', 'b', bytes(0, 0, 0xff)], ['STRLEN', 'b'], ['STRLEN', 'missing'], HASH, ['STRLEN', 'h']] },
]

const appendRangeCases: DiffCase[] = [
  { name: 'APPEND creates the key, appends, replies the length and keeps the TTL', commands: [['APPEND', 'k', 'Hello'], ['APPEND', 'k', ' World'], ['GET', 'k'], ['EXPIRE', 'k', '100'], ['APPEND', 'k', bytes(0, 0xff)], ['TTL', 'k'], ['GET', 'k']], relax: { 5: 'ttl' } },
  { name: 'APPEND of an empty value creates an empty key', commands: [['APPEND', 'k', ''], ['EXISTS', 'k'], ['STRLEN', 'k'], ['APPEND', 'k', ''], ['SET', 'i', '123'], ['APPEND', 'i', '4'], ['INCR', 'i']] },
  { name: 'APPEND to a key of another type is WRONGTYPE', commands: [HASH, ['APPEND', 'h', 'x'], ['APPEND', 'h', '']] },
  {
    name: 'GETRANGE with positive, negative and out-of-range indexes',
    commands: [
      ['SET', 's', 'Hello World'],
      ['GETRANGE', 's', '0', '-1'], ['GETRANGE', 's', '0', '4'], ['GETRANGE', 's', '-3', '-1'], ['GETRANGE', 's', '-1', '-3'],
      ['GETRANGE', 's', '5', '3'], ['GETRANGE', 's', '-100', '-50'], ['GETRANGE', 's', '-50', '-100'], ['GETRANGE', 's', '-100', '100'],
      ['GETRANGE', 's', '100', '200'], ['GETRANGE', 's', '0', '0'], ['GETRANGE', 's', '-1', '-1'], ['GETRANGE', 's', '10', '10'], ['GETRANGE', 's', '11', '-1'],
      ['GETRANGE', 's', '9223372036854775807', '-9223372036854775808'], ['GETRANGE', 's', '-9223372036854775808', '9223372036854775807'],
      ['GETRANGE', 's', '3', '-100'], ['GETRANGE', 's', '-5', '0'],
    ],
  },
  { name: 'GETRANGE of empty, missing, integer and binary values', commands: [['SET', 'e', ''], ['GETRANGE', 'e', '0', '-1'], ['GETRANGE', 'e', '-1', '0'], ['GETRANGE', 'missing', '0', '-1'], ['SET', 'i', '-1234'], ['GETRANGE', 'i', '1', '2'], ['SET', 'b', bytes(0xff, 0, 0x80)], ['GETRANGE', 'b', '1', '2']] },
  { name: 'GETRANGE reads its indexes before the key', commands: [HASH, ['GETRANGE', 'h', '0', '1'], ['GETRANGE', 'h', 'a', '1'], ['GETRANGE', 'missing', '0', 'b'], ['GETRANGE', 's', '1.5', '2'], ['GETRANGE', 's', '0', ' 1']] },
  { name: 'SUBSTR is GETRANGE', commands: [['SET', 's', 'Hello World'], ['SUBSTR', 's', '0', '4'], ['SUBSTR', 's', '-3', '-2'], ['SUBSTR', 's', '-50', '-100'], ['SUBSTR', 'missing', '0', '1'], ['SUBSTR', 's', 'x', '1'], HASH, ['SUBSTR', 'h', '0', '1']] },
  { name: 'SETRANGE creates zero-padded strings and overwrites in place', commands: [['SETRANGE', 'k', '5', 'ab'], ['GET', 'k'], ['SETRANGE', 'k', '0', 'xyz'], ['GET', 'k'], ['SETRANGE', 'k', '6', 'long tail'], ['GET', 'k'], ['SETRANGE', 'k', '20', bytes(0xff)], ['GET', 'k'], ['STRLEN', 'k']] },
  { name: 'SETRANGE keeps the TTL and replaces integers by their text', commands: [['SET', 'k', '12345', 'EX', '100'], ['SETRANGE', 'k', '1', 'x'], ['GET', 'k'], ['TTL', 'k']], relax: { 3: 'ttl' } },
  { name: 'SETRANGE with an empty value changes nothing and creates nothing', commands: [['SETRANGE', 'missing', '10', ''], ['EXISTS', 'missing'], ['SET', 'k', 'hello'], ['SETRANGE', 'k', '100', ''], ['GET', 'k'], ['SETRANGE', 'k', '536870912', ''], ['SETRANGE', 'n', '9223372036854775807', '']] },
  { name: 'SETRANGE refuses negative and malformed offsets before the type check', commands: [HASH, ['SETRANGE', 'h', '-1', 'a'], ['SETRANGE', 'k', '-1', 'a'], ['SETRANGE', 'k', 'abc', 'a'], ['SETRANGE', 'k', '1.0', 'a'], ['SETRANGE', 'h', '0', 'a'], ['SETRANGE', 'h', '0', '']] },
  { name: 'SETRANGE and APPEND refuse strings beyond 512 MB', commands: [['SETRANGE', 'k', '536870912', 'a'], ['SETRANGE', 'k', '536870911', 'ab'], ['SETRANGE', 'k', '9223372036854775807', 'a'], ['EXISTS', 'k'], ['SET', 'k', 'hello'], ['SETRANGE', 'k', '536870910', 'abc'], ['GET', 'k']] },
]

const counterCases: DiffCase[] = [
  { name: 'INCR, DECR, INCRBY and DECRBY count from 0 on a missing key', commands: [['INCR', 'a'], ['INCR', 'a'], ['DECR', 'b'], ['INCRBY', 'c', '10'], ['INCRBY', 'c', '-25'], ['DECRBY', 'd', '7'], ['DECRBY', 'd', '-100'], ['MGET', 'a', 'b', 'c', 'd']] },
  { name: 'INCR keeps the TTL', commands: [['SET', 'k', '10', 'EX', '100'], ['INCR', 'k'], ['TTL', 'k'], ['INCRBYFLOAT', 'k', '1.5'], ['TTL', 'k']], relax: { 2: 'ttl', 4: 'ttl' } },
  {
    name: 'INCR refuses values that are not canonical 64-bit integers',
    commands: [
      ['SET', 'k', ' 1'], ['INCR', 'k'], ['SET', 'k', '1 '], ['INCR', 'k'], ['SET', 'k', '+1'], ['INCR', 'k'], ['SET', 'k', '01'], ['INCR', 'k'],
      ['SET', 'k', '-0'], ['INCR', 'k'], ['SET', 'k', ''], ['INCR', 'k'], ['SET', 'k', '1.0'], ['INCR', 'k'], ['SET', 'k', 'abc'], ['DECR', 'k'],
      ['SET', 'k', '9223372036854775808'], ['INCR', 'k'], ['SET', 'k', bytes(0x31, 0)], ['INCR', 'k'], ['SET', 'k', '0x10'], ['INCRBY', 'k', '1'],
    ],
  },
  { name: 'INCRBY and DECRBY refuse malformed increments before reading the key', commands: [HASH, ['INCRBY', 'h', 'abc'], ['DECRBY', 'h', '1.5'], ['INCRBY', 'k', '9223372036854775808'], ['INCRBY', 'k', ''], ['INCR', 'h'], ['DECRBY', 'h', '1']] },
  { name: 'INCR and DECR stop at the 64-bit limits', commands: [['SET', 'k', '9223372036854775807'], ['INCR', 'k'], ['INCRBY', 'k', '0'], ['DECR', 'k'], ['SET', 'n', '-9223372036854775808'], ['DECR', 'n'], ['INCRBY', 'n', '-1'], ['INCRBY', 'n', '9223372036854775807'], ['GET', 'n']] },
  {
    name: 'INCR, INCRBY and DECRBY across the 2^53 boundary and with 15- and 16-digit increments',
    commands: [
      ['SET', 'k', '9007199254740990'], ['INCR', 'k'], ['INCR', 'k'], ['INCR', 'k'], ['DECR', 'k'], ['DECR', 'k'], ['GET', 'k'],
      ['SET', 'n', '-9007199254740990'], ['DECR', 'n'], ['DECR', 'n'], ['INCRBY', 'n', '3'], ['GET', 'n'],
      ['INCRBY', 'a', '999999999999999'], ['INCRBY', 'a', '999999999999999'], ['INCRBY', 'a', '-1999999999999998'], ['INCRBY', 'a', '1000000000000000'],
      ['DECRBY', 'b', '0'], ['DECRBY', 'b', '-999999999999999'], ['INCRBY', 'b', '-0'], ['INCRBY', 'b', '+5'], ['INCRBY', 'b', '05'], ['GET', 'b'],
      ['SET', 'c', '999999999999999'], ['INCR', 'c'], ['SET', 'c', '-999999999999999'], ['DECR', 'c'], ['INCRBY', 'c', '-9007199254740991'],
    ],
  },
  { name: 'INCRBY and DECRBY with extreme increments', commands: [['INCRBY', 'k', '-9223372036854775808'], ['DECRBY', 'k', '-9223372036854775808'], ['DECRBY', 'j', '9223372036854775807'], ['DECR', 'j'], ['DECR', 'j'], ['INCRBY', 'j', '9223372036854775807'], ['INCRBY', 'j', '9223372036854775807'], ['INCRBY', 'x', '9223372036854775807'], ['INCRBY', 'x', '1']] },
  {
    name: 'INCRBYFLOAT computes in long double and trims the result',
    commands: [
      ['SET', 'k', '10.5'], ['INCRBYFLOAT', 'k', '0.1'], ['INCRBYFLOAT', 'k', '5.0e3'], ['INCRBYFLOAT', 'k', '-5.0e3'], ['GET', 'k'],
      ['INCRBYFLOAT', 'z', '0.1'], ['INCRBYFLOAT', 'z', '0.2'], ['INCRBYFLOAT', 'z', '-0.3'], ['INCRBYFLOAT', 'z', '3.0000000000000000001'],
      ['INCRBYFLOAT', 'big', '1e30'], ['INCRBYFLOAT', 'big', '1'], ['INCRBYFLOAT', 'sm', '123456789012345678901234567890.123456789'],
      ['INCRBYFLOAT', 'x', '9223372036854775807'], ['INCRBYFLOAT', 'x', '1'], ['INCRBYFLOAT', 'y', '18446744073709551615'],
      ['INCRBYFLOAT', 'w', '0.99999999999999999999'], ['INCRBYFLOAT', 'w', '1e-300'],
    ],
  },
  {
    name: 'INCRBYFLOAT rounds the 17th decimal half to even and prints -0 as 0',
    commands: [
      ['SET', 'k', '0.000003814697265625'], ['INCRBYFLOAT', 'k', '0'], ['SET', 'k', '0.000011444091796875'], ['INCRBYFLOAT', 'k', '0'],
      ['INCRBYFLOAT', 'a', '0.000000000000000005'], ['INCRBYFLOAT', 'b', '-0.000000000000000005'], ['INCRBYFLOAT', 'c', '0.000000000000000015'],
      ['INCRBYFLOAT', 'd', '-0.000000000000000025'], ['INCRBYFLOAT', 'e', '-1e-20'], ['INCRBYFLOAT', 'f', '-0'], ['INCRBYFLOAT', 'g', '-1.5'], ['INCRBYFLOAT', 'g', '1.5'],
    ],
  },
  {
    name: 'INCRBYFLOAT reads values and increments as strtold: exponents, hex, signs, dots',
    commands: [
      ['INCRBYFLOAT', 'k', '.5'], ['INCRBYFLOAT', 'k', '5.'], ['INCRBYFLOAT', 'k', '+1'], ['INCRBYFLOAT', 'k', '1E2'], ['INCRBYFLOAT', 'k', '-2.5e-1'],
      ['INCRBYFLOAT', 'k', '0x10'], ['INCRBYFLOAT', 'k', '0x1.8p1'], ['INCRBYFLOAT', 'k', '0X.8P-1'], ['INCRBYFLOAT', 'k', '00012.500'],
      ['SET', 'j', '1e3'], ['INCRBYFLOAT', 'j', '1'], ['SET', 'j', '0x1p4'], ['INCRBYFLOAT', 'j', '0'], ['SET', 'j', '-.0e99999'], ['INCRBYFLOAT', 'j', '0'],
    ],
  },
  {
    name: 'INCRBYFLOAT refuses malformed numbers and NaN',
    commands: [
      ['SET', 'k', '1'],
      ['INCRBYFLOAT', 'k', 'abc'], ['INCRBYFLOAT', 'k', ''], ['INCRBYFLOAT', 'k', ' 1'], ['INCRBYFLOAT', 'k', '1 '], ['INCRBYFLOAT', 'k', '.'], ['INCRBYFLOAT', 'k', '1e'],
      ['INCRBYFLOAT', 'k', '1e+'], ['INCRBYFLOAT', 'k', '--1'], ['INCRBYFLOAT', 'k', '0x'], ['INCRBYFLOAT', 'k', '0x1p'], ['INCRBYFLOAT', 'k', 'nan'], ['INCRBYFLOAT', 'k', '-NaN'],
      ['INCRBYFLOAT', 'k', 'infinit'], ['INCRBYFLOAT', 'k', bytes(0x31, 0, 0x32)], ['INCRBYFLOAT', 'k', '1,5'], ['GET', 'k'],
      ['SET', 'v', 'abc'], ['INCRBYFLOAT', 'v', '1'], ['SET', 'v', 'nan'], ['INCRBYFLOAT', 'v', '1'], ['SET', 'v', '\t1'], ['INCRBYFLOAT', 'v', '1'],
    ],
  },
  {
    name: 'INCRBYFLOAT refuses infinite results and values out of long double range',
    commands: [
      ['INCRBYFLOAT', 'k', 'inf'], ['INCRBYFLOAT', 'k', '-Infinity'], ['INCRBYFLOAT', 'k', 'INF'], ['EXISTS', 'k'],
      ['SET', 'i', 'inf'], ['INCRBYFLOAT', 'i', '1'], ['GET', 'i'],
      ['INCRBYFLOAT', 'n', '1.2e4932'], ['INCRBYFLOAT', 'n', '1e-5000'], ['INCRBYFLOAT', 'n', '1e-4951'], ['INCRBYFLOAT', 'n', '0e-5000'], ['INCRBYFLOAT', 'n', '2e-4951'],
      ['INCRBYFLOAT', 'm', '1e4932'], ['INCRBYFLOAT', 'm', '1.1e4932'], ['INCRBYFLOAT', 'm', '-1e4932'],
      ['INCRBYFLOAT', 'd', '1e308'], ['INCRBYFLOAT', 'd', '1e308'],
    ],
  },
  {
    name: 'INCRBYFLOAT refuses texts of 5120 bytes or more',
    commands: [['INCRBYFLOAT', 'k', '0'.repeat(5118) + '1'], ['INCRBYFLOAT', 'k', '0'.repeat(5119) + '1'], ['INCRBYFLOAT', 'k', '1.' + '0'.repeat(5117)], ['SET', 'l', '1' + '0'.repeat(5119)], ['INCRBYFLOAT', 'l', '1'], ['INCRBYFLOAT', 'l2', '1'.repeat(4000)]],
  },
  { name: 'INCRBYFLOAT checks the type, then the value, then the increment', commands: [HASH, ['INCRBYFLOAT', 'h', '1'], ['INCRBYFLOAT', 'h', 'abc'], ['SET', 'k', 'abc'], ['INCRBYFLOAT', 'k', 'nan']] },
]

const lcsCases: DiffCase[] = [
  {
    name: 'LCS replies the subsequence, LEN its length, IDX the matching ranges',
    commands: [
      ['MSET', 'a', 'ohmytext', 'b', 'mynewtext'],
      ['LCS', 'a', 'b'], ['LCS', 'a', 'b', 'LEN'], ['LCS', 'a', 'b', 'IDX'], ['LCS', 'a', 'b', 'IDX', 'MINMATCHLEN', '4'],
      ['LCS', 'a', 'b', 'IDX', 'MINMATCHLEN', '4', 'WITHMATCHLEN'], ['LCS', 'a', 'b', 'idx', 'withmatchlen'], ['LCS', 'b', 'a', 'IDX', 'WITHMATCHLEN'],
      ['LCS', 'a', 'b', 'WITHMATCHLEN'], ['LCS', 'a', 'b', 'LEN', 'WITHMATCHLEN', 'MINMATCHLEN', '3'], ['LCS', 'a', 'b', 'MINMATCHLEN', '-5', 'IDX'],
    ],
  },
  {
    name: 'LCS on repetitive and binary strings picks the same subsequence as Redis',
    commands: [
      ['MSET', 'a', 'ABCBDAB', 'b', 'BDCABA', 'c', 'aaaaabbbbbaaaaa', 'd', 'ababababab'],
      ['LCS', 'a', 'b'], ['LCS', 'a', 'b', 'IDX', 'WITHMATCHLEN'], ['LCS', 'c', 'd'], ['LCS', 'c', 'd', 'IDX'], ['LCS', 'd', 'c', 'IDX', 'MINMATCHLEN', '2', 'WITHMATCHLEN'],
      ['SET', 'x', bytes(0, 1, 2, 0xff, 3, 0)], ['SET', 'y', bytes(0xff, 0, 2, 3, 0)], ['LCS', 'x', 'y'], ['LCS', 'x', 'y', 'IDX'], ['LCS', 'a', 'a', 'IDX'],
    ],
  },
  { name: 'LCS with missing keys compares against the empty string', commands: [['SET', 'a', 'hello'], ['LCS', 'a', 'missing'], ['LCS', 'missing', 'a', 'LEN'], ['LCS', 'missing', 'other', 'IDX'], ['SET', 'e', ''], ['LCS', 'e', 'a', 'IDX', 'WITHMATCHLEN']] },
  { name: 'LCS checks the key types before the options', commands: [HASH, ['SET', 'a', 'x'], ['LCS', 'a', 'h'], ['LCS', 'h', 'a', 'LEN'], ['LCS', 'h', 'a', 'FOO'], ['LCS', 'missing', 'h']] },
  {
    name: 'LCS option errors: unknown option, missing or malformed MINMATCHLEN, LEN with IDX',
    commands: [
      ['MSET', 'a', 'ohmytext', 'b', 'mynewtext'],
      ['LCS', 'a', 'b', 'FOO'], ['LCS', 'a', 'b', 'MINMATCHLEN'], ['LCS', 'a', 'b', 'MINMATCHLEN', 'abc'], ['LCS', 'a', 'b', 'LEN', 'IDX'], ['LCS', 'a', 'b', 'IDX', 'LEN'],
      ['LCS', 'a', 'b', 'LEN', 'FOO'], ['LCS', 'a', 'b', 'LEN', 'IDX', 'MINMATCHLEN', 'abc'], ['LCS', 'a', 'b', 'MINMATCHLEN', '9223372036854775808'],
    ],
  },
  { name: 'LCS refuses a table larger than proto-max-bulk-len', commands: [['SETRANGE', 'a', '11584', 'x'], ['SETRANGE', 'b', '11584', 'y'], ['LCS', 'a', 'b', 'LEN'], ['LCS', 'a', 'b', 'IDX']] },
]

export const stringCases: readonly DiffCase[] = [...setCases, ...getCases, ...appendRangeCases, ...counterCases, ...lcsCases]
