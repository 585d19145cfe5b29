import type { DiffCase } from './harness.js'

/**
 * Hash commands against redis-server 7.0. Small hashes are listpacks in Redis, so HGETALL, HKEYS,
 * HVALS and HSCAN replies are compared in exact order. The field-expiry commands (7.4/8.0) and
 * HSCAN NOVALUES are newer than the reference server: see test/executor/memory/hash.test.ts.
 */

const LONG_FIELD = 'f'.repeat(65)

export const hashCases: DiffCase[] = [
  // ---- HSET, HMSET, HSETNX ----
  {
    name: 'HSET counts only new fields and updates in place',
    commands: [
      ['HSET', 'h', 'a', '1', 'b', '2'],
      ['HSET', 'h', 'a', '10', 'c', '3'],
      ['HGETALL', 'h'],
      ['HLEN', 'h'],
      ['TYPE', 'h'],
    ],
  },
  {
    name: 'HSET with the same field twice counts it once and keeps the last value',
    commands: [['HSET', 'h', 'a', '1', 'a', '2'], ['HGET', 'h', 'a'], ['HLEN', 'h']],
  },
  {
    name: 'HSET and HMSET with a field but no value are arity errors',
    commands: [
      ['HSET', 'h', 'a', '1', 'b'],
      ['HMSET', 'h', 'a', '1', 'b'],
      ['HSET', 'h', 'a'],
      ['HMSET', 'h', 'a'],
      ['EXISTS', 'h'],
    ],
  },
  {
    name: 'HMSET replies OK and overwrites',
    commands: [['HMSET', 'h', 'a', '1', 'b', '2'], ['HMSET', 'h', 'a', 'x'], ['HGETALL', 'h']],
  },
  {
    name: 'HSETNX sets only missing fields and creates the key',
    commands: [
      ['HSETNX', 'h', 'a', '1'],
      ['HSETNX', 'h', 'a', '2'],
      ['HSETNX', 'h', 'b', '3'],
      ['HGETALL', 'h'],
    ],
  },
  {
    name: 'binary and empty fields and values round-trip',
    commands: [
      ['HSET', 'h', '', 'empty-field', 'e', '', Buffer.from([0, 255, 13, 10]), Buffer.from([1, 2])],
      ['HGETALL', 'h'],
      ['HSTRLEN', 'h', 'e'],
      ['HEXISTS', 'h', ''],
    ],
  },
  {
    name: 'HSET on a hash keeps the key TTL',
    commands: [['HSET', 'h', 'a', '1'], ['EXPIRE', 'h', '100'], ['HSET', 'h', 'b', '2'], ['TTL', 'h']],
    relax: { 3: 'ttl' },
  },

  // ---- reads ----
  {
    name: 'HGET, HMGET, HEXISTS, HSTRLEN and HLEN on present and missing fields and keys',
    commands: [
      ['HSET', 'h', 'a', 'hello', 'n', '12345'],
      ['HGET', 'h', 'a'],
      ['HGET', 'h', 'zz'],
      ['HGET', 'nokey', 'a'],
      ['HMGET', 'h', 'a', 'zz', 'n', 'a'],
      ['HMGET', 'nokey', 'a', 'b'],
      ['HEXISTS', 'h', 'a'],
      ['HEXISTS', 'h', 'zz'],
      ['HEXISTS', 'nokey', 'a'],
      ['HSTRLEN', 'h', 'a'],
      ['HSTRLEN', 'h', 'n'],
      ['HSTRLEN', 'h', 'zz'],
      ['HSTRLEN', 'nokey', 'a'],
      ['HLEN', 'h'],
      ['HLEN', 'nokey'],
    ],
  },
  {
    name: 'HGETALL, HKEYS and HVALS keep insertion order and answer empty arrays for a missing key',
    commands: [
      ['HSET', 'h', 'z', '1', 'y', '2', 'x', '3'],
      ['HDEL', 'h', 'y'],
      ['HSET', 'h', 'w', '4', 'z', '5'],
      ['HGETALL', 'h'],
      ['HKEYS', 'h'],
      ['HVALS', 'h'],
      ['HGETALL', 'nokey'],
      ['HKEYS', 'nokey'],
      ['HVALS', 'nokey'],
    ],
  },
  {
    name: 'a hash that outgrew the listpack still answers every field',
    commands: [
      ['HSET', 'h', LONG_FIELD, '1', 'a', '2', 'b', '3'],
      ['HGETALL', 'h'],
      ['HKEYS', 'h'],
      ['HLEN', 'h'],
      ['HGET', 'h', LONG_FIELD],
    ],
    relax: { 1: 'unorderedPairs', 2: 'unordered' },
  },

  // ---- HDEL ----
  {
    name: 'HDEL counts removed fields, ignores repeats and deletes the emptied key',
    commands: [
      ['HSET', 'h', 'a', '1', 'b', '2', 'c', '3'],
      ['HDEL', 'h', 'a', 'a', 'zz'],
      ['HDEL', 'h', 'b', 'c'],
      ['EXISTS', 'h'],
      ['HDEL', 'h', 'a'],
      ['HDEL', 'nokey', 'a'],
    ],
  },

  // ---- wrong type ----
  {
    name: 'every hash command refuses a string key with WRONGTYPE',
    commands: [
      ['SET', 's', 'x'],
      ['HSET', 's', 'a', '1'],
      ['HMSET', 's', 'a', '1'],
      ['HSETNX', 's', 'a', '1'],
      ['HGET', 's', 'a'],
      ['HMGET', 's', 'a'],
      ['HDEL', 's', 'a'],
      ['HLEN', 's'],
      ['HSTRLEN', 's', 'a'],
      ['HEXISTS', 's', 'a'],
      ['HGETALL', 's'],
      ['HKEYS', 's'],
      ['HVALS', 's'],
      ['HINCRBY', 's', 'a', '1'],
      ['HINCRBYFLOAT', 's', 'a', '1'],
      ['HRANDFIELD', 's'],
      ['HRANDFIELD', 's', '2'],
      ['HSCAN', 's', '0'],
      ['GET', 's'],
    ],
  },
  {
    name: 'argument errors come before WRONGTYPE where Redis parses first',
    commands: [
      ['SET', 's', 'x'],
      ['HINCRBY', 's', 'a', 'x'],
      ['HINCRBYFLOAT', 's', 'a', 'x'],
      ['HRANDFIELD', 's', 'x'],
      ['HSCAN', 's', 'x'],
      ['HSCAN', 's', '0', 'COUNT', '0'],
    ],
  },

  // ---- HINCRBY ----
  {
    name: 'HINCRBY creates, adds and subtracts',
    commands: [
      ['HINCRBY', 'h', 'n', '5'],
      ['HINCRBY', 'h', 'n', '-7'],
      ['HINCRBY', 'h', 'n', '0'],
      ['HGET', 'h', 'n'],
      ['HINCRBY', 'h', 'm', '-9223372036854775808'],
    ],
  },
  {
    name: 'HINCRBY refuses overflow in both directions and leaves the value',
    commands: [
      ['HSET', 'h', 'max', '9223372036854775807', 'min', '-9223372036854775808'],
      ['HINCRBY', 'h', 'max', '1'],
      ['HINCRBY', 'h', 'min', '-1'],
      ['HINCRBY', 'h', 'max', '-1'],
      ['HGET', 'h', 'min'],
      ['HINCRBY', 'h', 'new', '9223372036854775807'],
      ['HINCRBY', 'h', 'new', '1'],
    ],
  },
  {
    name: 'HINCRBY refuses non-integer values and increments',
    commands: [
      ['HSET', 'h', 'f', '1.0', 's', 'abc', 'e', '', 'sp', ' 1', 'z', '007'],
      ['HINCRBY', 'h', 'f', '1'],
      ['HINCRBY', 'h', 's', '1'],
      ['HINCRBY', 'h', 'e', '1'],
      ['HINCRBY', 'h', 'sp', '1'],
      ['HINCRBY', 'h', 'z', '1'],
      ['HINCRBY', 'h', 'n', '01'],
      ['HINCRBY', 'h', 'n', '+1'],
      ['HINCRBY', 'h', 'n', '-0'],
      ['HINCRBY', 'h', 'n', '1.5'],
      ['HINCRBY', 'h', 'n', '9223372036854775808'],
      ['HEXISTS', 'h', 'n'],
    ],
  },

  // ---- HINCRBYFLOAT ----
  {
    name: 'HINCRBYFLOAT adds in long double and prints like Redis',
    commands: [
      ['HINCRBYFLOAT', 'h', 'x', '10.5'],
      ['HINCRBYFLOAT', 'h', 'x', '0.1'],
      ['HINCRBYFLOAT', 'h', 'x', '-10.6'],
      ['HINCRBYFLOAT', 'h', 'a', '3.0'],
      ['HINCRBYFLOAT', 'h', 'b', '-0'],
      ['HINCRBYFLOAT', 'h', 'c', '5.0e3'],
      ['HINCRBYFLOAT', 'h', 'd', '0x1p3'],
      ['HINCRBYFLOAT', 'h', 'e', '.5'],
      ['HINCRBYFLOAT', 'h', 'f', '1.'],
      ['HINCRBYFLOAT', 'h', 'g', '+1.5'],
      ['HINCRBYFLOAT', 'h', 'i', '1e-20'],
      ['HGETALL', 'h'],
    ],
  },
  {
    name: 'HINCRBYFLOAT keeps long double digits (0.1 + 0.2, 1e17 + 1, 30-digit integers)',
    commands: [
      ['HINCRBYFLOAT', 'h', 'a', '0.1'],
      ['HINCRBYFLOAT', 'h', 'a', '0.2'],
      ['HINCRBYFLOAT', 'h', 'b', '1e17'],
      ['HINCRBYFLOAT', 'h', 'b', '1'],
      ['HINCRBYFLOAT', 'h', 'c', '-1.5e-5'],
      ['HINCRBYFLOAT', 'h', 'd', '123456789012345678901234567890'],
      ['HINCRBYFLOAT', 'h', 'e', '3.14159265358979323846264338327950288'],
    ],
  },
  {
    name: 'HINCRBYFLOAT on integer values and huge magnitudes',
    commands: [
      ['HSET', 'h', 'n', '10', 'big', '1e4932'],
      ['HINCRBYFLOAT', 'h', 'n', '1.25'],
      ['HINCRBYFLOAT', 'h', 'l', '1e400'],
      ['HINCRBYFLOAT', 'h', 'm', '1.7976931348623157e308'],
      ['HINCRBYFLOAT', 'h', 'm', '1.7976931348623157e308'],
      ['HINCRBYFLOAT', 'h', 'big', '1e4932'],
      ['HGET', 'h', 'big'],
    ],
  },
  {
    name: 'HINCRBYFLOAT refuses bad increments and non-float values',
    commands: [
      ['HSET', 'h', 's', 'abc', 'e', '', 'sp', ' 1'],
      ['HINCRBYFLOAT', 'h', 'x', 'inf'],
      ['HINCRBYFLOAT', 'h', 'x', '-infinity'],
      ['HINCRBYFLOAT', 'h', 'x', 'nan'],
      ['HINCRBYFLOAT', 'h', 'x', 'abc'],
      ['HINCRBYFLOAT', 'h', 'x', ''],
      ['HINCRBYFLOAT', 'h', 'x', ' 1'],
      ['HINCRBYFLOAT', 'h', 'x', '1e4933'],
      ['HINCRBYFLOAT', 'h', 's', '1'],
      ['HINCRBYFLOAT', 'h', 'e', '1'],
      ['HINCRBYFLOAT', 'h', 'sp', '1'],
      ['HEXISTS', 'h', 'x'],
      ['HINCRBYFLOAT', 'nokey', 'x', 'inf'],
      ['EXISTS', 'nokey'],
    ],
  },

  // ---- HRANDFIELD ----
  {
    name: 'HRANDFIELD on a missing key: nil without count, empty array with one',
    commands: [
      ['HRANDFIELD', 'nokey'],
      ['HRANDFIELD', 'nokey', '3'],
      ['HRANDFIELD', 'nokey', '-3', 'WITHVALUES'],
    ],
  },
  {
    name: 'HRANDFIELD with a count at least the size returns the whole hash in order',
    commands: [
      ['HSET', 'h', 'a', '1', 'b', '2', 'c', '3'],
      ['HRANDFIELD', 'h', '3'],
      ['HRANDFIELD', 'h', '10', 'WITHVALUES'],
      ['HRANDFIELD', 'h', '0'],
      ['HRANDFIELD', 'h', '0', 'withvalues'],
    ],
  },
  {
    name: 'HRANDFIELD on a single-field hash is deterministic',
    commands: [
      ['HSET', 'h', 'only', 'v'],
      ['HRANDFIELD', 'h'],
      ['HRANDFIELD', 'h', '1'],
      ['HRANDFIELD', 'h', '-3'],
      ['HRANDFIELD', 'h', '-2', 'WITHVALUES'],
    ],
  },
  {
    name: 'HRANDFIELD sample sizes: negative counts repeat, positive counts stop at distinct fields',
    commands: [
      ['HSET', 'h', 'a', '1', 'b', '2', 'c', '3', 'd', '4', 'e', '5'],
      ['HRANDFIELD', 'h', '2'],
      ['HRANDFIELD', 'h', '4', 'WITHVALUES'],
      ['HRANDFIELD', 'h', '-12'],
      ['HRANDFIELD', 'h', '-7', 'WITHVALUES'],
      ['HRANDFIELD', 'h'],
    ],
    relax: { 1: 'sameLength', 2: 'sameLength', 3: 'sameLength', 4: 'sameLength', 5: 'sameLength' },
  },
  {
    name: 'HRANDFIELD count and option errors',
    commands: [
      ['HSET', 'h', 'a', '1'],
      ['HRANDFIELD', 'h', 'x'],
      ['HRANDFIELD', 'h', '1.5'],
      ['HRANDFIELD', 'h', '-9223372036854775808'],
      ['HRANDFIELD', 'h', '9223372036854775808'],
      ['HRANDFIELD', 'h', '1', 'WITHVALUE'],
      ['HRANDFIELD', 'h', '1', 'WITHVALUES', 'x'],
      ['HRANDFIELD', 'h', '4611686018427387904', 'WITHVALUES'],
      ['HRANDFIELD', 'h', '-4611686018427387904', 'WITHVALUES'],
      ['HRANDFIELD', 'h', '4611686018427387903', 'WITHVALUES'],
      ['HRANDFIELD', 'h', 'x', 'y', 'z'],
      ['HRANDFIELD', 'nokey', 'x'],
    ],
  },

  // ---- HSCAN ----
  {
    name: 'HSCAN returns a small hash whole with cursor 0, whatever cursor and COUNT',
    commands: [
      ['HSET', 'h', 'a', '1', 'b', '2', 'c', '3'],
      ['HSCAN', 'h', '0'],
      ['HSCAN', 'h', '0', 'COUNT', '1'],
      ['HSCAN', 'h', '12345'],
      ['HSCAN', 'h', '-1'],
      ['HSCAN', 'h', ''],
      ['HSCAN', 'h', '+7'],
      ['HSCAN', 'h', '007'],
      ['HSCAN', 'h', '18446744073709551615'],
    ],
  },
  {
    name: 'HSCAN MATCH filters fields with glob patterns; the last MATCH wins',
    commands: [
      ['HSET', 'h', 'apple', '1', 'banana', '2', 'avocado', '3', 'a[1]', '4', 'a?', '5'],
      ['HSCAN', 'h', '0', 'MATCH', 'a*'],
      ['HSCAN', 'h', '0', 'MATCH', '*an*'],
      ['HSCAN', 'h', '0', 'MATCH', 'a\\[*'],
      ['HSCAN', 'h', '0', 'MATCH', 'a\\?'],
      ['HSCAN', 'h', '0', 'MATCH', '[ab]*'],
      ['HSCAN', 'h', '0', 'MATCH', '[^a]*'],
      ['HSCAN', 'h', '0', 'MATCH', 'zz*'],
      ['HSCAN', 'h', '0', 'MATCH', 'b*', 'MATCH', 'av*'],
      ['HSCAN', 'h', '0', 'match', '*', 'count', '100'],
    ],
  },
  {
    name: 'option keywords are case-insensitive',
    commands: [['HSET', 'h', 'a', '1'], ['HRANDFIELD', 'h', '1', 'WithValues'], ['HSCAN', 'h', '0', 'Match', 'a', 'cOuNt', '3']],
  },
  {
    name: 'HSCAN cursor and option errors; a missing key answers cursor 0 before options are read',
    commands: [
      ['HSET', 'h', 'a', '1'],
      ['HSCAN', 'h', 'x'],
      ['HSCAN', 'h', ' 1'],
      ['HSCAN', 'h', '1 '],
      ['HSCAN', 'h', '-'],
      ['HSCAN', 'h', '0x10'],
      ['HSCAN', 'h', '18446744073709551616'],
      ['HSCAN', 'h', '0', 'COUNT', '0'],
      ['HSCAN', 'h', '0', 'COUNT', '-1'],
      ['HSCAN', 'h', '0', 'COUNT', 'x'],
      ['HSCAN', 'h', '0', 'COUNT'],
      ['HSCAN', 'h', '0', 'MATCH'],
      ['HSCAN', 'h', '0', 'TYPE', 'string'],
      ['HSCAN', 'h', '0', 'BOGUS'],
      ['HSCAN', 'nokey', '0', 'COUNT', '0'],
      ['HSCAN', 'nokey', '0', 'BOGUS'],
      ['HSCAN', 'nokey', 'x'],
    ],
  },

  // ---- encoding (listpack until a field or value is too long or there are too many fields) ----
  {
    name: 'a hash stays a listpack until a long field or value, and never converts back',
    commands: [
      ['HSET', 'h', 'a', '1'],
      ['OBJECT', 'ENCODING', 'h'],
      ['HSETNX', 'h', 'a', 'v'.repeat(65)],
      ['OBJECT', 'ENCODING', 'h'],
      ['HSET', 'h', 'a', 'v'.repeat(64)],
      ['OBJECT', 'ENCODING', 'h'],
      ['HSET', 'h', 'a', 'v'.repeat(65)],
      ['OBJECT', 'ENCODING', 'h'],
      ['HDEL', 'h', 'a'],
      ['HSET', 'h', 'b', '1'],
      ['OBJECT', 'ENCODING', 'h'],
      ['HSET', 'h', 'c', '1', LONG_FIELD, '2'],
      ['HDEL', 'h', LONG_FIELD],
      ['OBJECT', 'ENCODING', 'h'],
      ['HINCRBY', 'i', LONG_FIELD, '1'],
      ['OBJECT', 'ENCODING', 'i'],
      ['HINCRBYFLOAT', 'j', LONG_FIELD, '1.5'],
      ['OBJECT', 'ENCODING', 'j'],
    ],
  },
  {
    name: 'a hash converts when it holds more than hash-max-listpack-entries fields; repeated fields in one HSET do not count (7.0)',
    commands: [
      ['HSET', 'h', ...Array.from({ length: 512 }, (_, i) => [`f${i}`, `${i}`]).flat()],
      ['OBJECT', 'ENCODING', 'h'],
      ['HSET', 'h', 'f0', 'again'],
      ['OBJECT', 'ENCODING', 'h'],
      ['HSET', 'h', 'one-more', 'x'],
      ['OBJECT', 'ENCODING', 'h'],
      ['HLEN', 'h'],
      ['HSET', 'g', ...Array.from({ length: 513 }, () => ['same', 'v']).flat()],
      ['OBJECT', 'ENCODING', 'g'],
      ['HLEN', 'g'],
    ],
  },
  {
    name: 'CONFIG SET hash-max-listpack-* applies to the next write',
    commands: [
      ['CONFIG', 'SET', 'hash-max-listpack-entries', '2'],
      ['HSET', 'h', 'a', '1', 'b', '2'],
      ['OBJECT', 'ENCODING', 'h'],
      ['HSET', 'h', 'c', '3'],
      ['OBJECT', 'ENCODING', 'h'],
      ['CONFIG', 'SET', 'hash-max-listpack-entries', '512'],
      ['CONFIG', 'SET', 'hash-max-listpack-value', '3'],
      ['HSET', 'g', 'abc', 'xyz'],
      ['OBJECT', 'ENCODING', 'g'],
      ['HSET', 'g', 'abcd', '1'],
      ['OBJECT', 'ENCODING', 'g'],
      ['CONFIG', 'SET', 'hash-max-listpack-value', '64'],
    ],
  },
]
