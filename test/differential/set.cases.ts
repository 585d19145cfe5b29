import type { DiffCase } from './harness.js'

/**
 * Set commands against redis-server 7.0. Sets of integers are intsets in Redis and iterate in
 * ascending order, so their replies are compared exactly; sets of strings are hash tables whose
 * order Redis does not define (`unordered`). Random replies are compared by size only.
 */

export const setCases: DiffCase[] = [
  // ---- SADD, SREM, SCARD, SISMEMBER, SMISMEMBER, SMEMBERS ----
  {
    name: 'SADD counts new members; SMEMBERS of an integer set is sorted',
    commands: [
      ['SADD', 's', '3', '1', '2', '-5', '10', '3'],
      ['SADD', 's', '1', '4'],
      ['SMEMBERS', 's'],
      ['SCARD', 's'],
      ['TYPE', 's'],
    ],
  },
  {
    name: 'SMEMBERS of a string set holds every member',
    commands: [['SADD', 's', 'c', 'b', 'a', '1'], ['SMEMBERS', 's'], ['SCARD', 's']],
    relax: { 1: 'unordered' },
  },
  {
    name: 'integer-looking members that are not canonical integers stay strings',
    commands: [
      ['SADD', 's', '007', '-0', '+1', '1', ' 2'],
      ['SMEMBERS', 's'],
      ['SISMEMBER', 's', '7'],
      ['SISMEMBER', 's', '007'],
      ['SISMEMBER', 's', '0'],
    ],
    relax: { 1: 'unordered' },
  },
  {
    name: 'large integers order numerically',
    commands: [
      ['SADD', 's', '9223372036854775807', '-9223372036854775808', '9007199254740993', '9007199254740992', '-1', '0', '100', '99'],
      ['SMEMBERS', 's'],
    ],
  },
  {
    name: 'SISMEMBER and SMISMEMBER on present and missing members and keys',
    commands: [
      ['SADD', 's', 'a', 'b'],
      ['SISMEMBER', 's', 'a'],
      ['SISMEMBER', 's', 'z'],
      ['SISMEMBER', 'nokey', 'a'],
      ['SMISMEMBER', 's', 'a', 'z', 'b', 'a'],
      ['SMISMEMBER', 'nokey', 'a', 'b'],
      ['SCARD', 'nokey'],
      ['SMEMBERS', 'nokey'],
    ],
  },
  {
    name: 'SREM counts removed members and deletes the emptied key',
    commands: [
      ['SADD', 's', '1', '2', '3'],
      ['SREM', 's', '1', '1', '9'],
      ['SREM', 's', '2', '3'],
      ['EXISTS', 's'],
      ['SREM', 'nokey', 'a'],
    ],
  },
  {
    name: 'binary members round-trip',
    commands: [['SADD', 's', Buffer.from([0, 255, 10])], ['SMEMBERS', 's'], ['SISMEMBER', 's', Buffer.from([0, 255, 10])]],
  },
  {
    name: 'SADD on a set keeps the key TTL; a *STORE destination loses it',
    commands: [
      ['SADD', 's', 'a'],
      ['EXPIRE', 's', '100'],
      ['SADD', 's', 'b'],
      ['TTL', 's'],
      ['SADD', 'd', 'x'],
      ['EXPIRE', 'd', '100'],
      ['SUNIONSTORE', 'd', 's'],
      ['TTL', 'd'],
    ],
    relax: { 3: 'ttl' },
  },

  // ---- wrong type ----
  {
    name: 'every set command refuses a string key with WRONGTYPE',
    commands: [
      ['SET', 'str', 'x'],
      ['SADD', 'str', 'a'],
      ['SREM', 'str', 'a'],
      ['SCARD', 'str'],
      ['SISMEMBER', 'str', 'a'],
      ['SMISMEMBER', 'str', 'a'],
      ['SMEMBERS', 'str'],
      ['SPOP', 'str'],
      ['SPOP', 'str', '1'],
      ['SPOP', 'str', '0'],
      ['SRANDMEMBER', 'str'],
      ['SRANDMEMBER', 'str', '1'],
      ['SRANDMEMBER', 'str', '0'],
      ['SSCAN', 'str', '0'],
      ['SINTER', 'str'],
      ['SUNION', 'str'],
      ['SDIFF', 'str'],
      ['SINTERCARD', '1', 'str'],
      ['GET', 'str'],
    ],
  },
  {
    name: 'multi-key commands check every key type, even after a missing key',
    commands: [
      ['SET', 'str', 'x'],
      ['SADD', 's', 'a'],
      ['SINTER', 'nokey', 'str'],
      ['SINTER', 'str', 'nokey'],
      ['SINTER', 's', 'str'],
      ['SUNION', 'nokey', 'str'],
      ['SDIFF', 'nokey', 'str'],
      ['SDIFF', 's', 'str'],
      ['SINTERSTORE', 'd', 'nokey', 'str'],
      ['SUNIONSTORE', 'd', 's', 'str'],
      ['SDIFFSTORE', 'd', 's', 'str'],
      ['SINTERCARD', '2', 'nokey', 'str'],
      ['EXISTS', 'd'],
    ],
  },

  // ---- SMOVE ----
  {
    name: 'SMOVE moves a member, deletes the emptied source and creates the destination',
    commands: [
      ['SADD', 'src', 'a', 'b'],
      ['SMOVE', 'src', 'dst', 'a'],
      ['SMOVE', 'src', 'dst', 'b'],
      ['EXISTS', 'src'],
      ['SMEMBERS', 'dst'],
      ['SMOVE', 'dst', 'src', 'zz'],
      ['SMOVE', 'nokey', 'dst', 'a'],
    ],
    relax: { 4: 'unordered' },
  },
  {
    name: 'SMOVE into a set that already has the member still answers 1 and removes it from the source',
    commands: [['SADD', 'src', '1', '2'], ['SADD', 'dst', '1'], ['SMOVE', 'src', 'dst', '1'], ['SMEMBERS', 'src'], ['SMEMBERS', 'dst']],
  },
  {
    name: 'SMOVE within one key answers membership and changes nothing',
    commands: [['SADD', 's', '1', '2'], ['SMOVE', 's', 's', '1'], ['SMOVE', 's', 's', '9'], ['SMEMBERS', 's']],
  },
  {
    name: 'SMOVE type checks: a missing source answers 0 before the destination is checked',
    commands: [
      ['SET', 'str', 'x'],
      ['SADD', 's', 'a'],
      ['SMOVE', 'nokey', 'str', 'a'],
      ['SMOVE', 'str', 's', 'a'],
      ['SMOVE', 's', 'str', 'a'],
      ['SMOVE', 's', 'str', 'zz'],
      ['SMEMBERS', 's'],
    ],
  },

  // ---- SPOP ----
  {
    name: 'SPOP on a missing key: nil without count, empty array with one',
    commands: [['SPOP', 'nokey'], ['SPOP', 'nokey', '3'], ['SPOP', 'nokey', '0']],
  },
  {
    name: 'SPOP with a count at least the size pops the whole set in order and deletes the key',
    commands: [['SADD', 's', '3', '1', '2'], ['SPOP', 's', '0'], ['SPOP', 's', '5'], ['EXISTS', 's']],
  },
  {
    name: 'SPOP of a single member is deterministic and deletes the key',
    commands: [['SADD', 's', 'only'], ['SPOP', 's'], ['EXISTS', 's'], ['SADD', 's', 'x'], ['SPOP', 's', '1'], ['EXISTS', 's']],
  },
  {
    name: 'SPOP removes as many members as it returns',
    commands: [
      ['SADD', 's', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'],
      ['SPOP', 's'],
      ['SPOP', 's', '3'],
      ['SCARD', 's'],
      ['SPOP', 's', '5'],
      ['SCARD', 's'],
    ],
    relax: { 1: 'sameLength', 2: 'sameLength', 4: 'sameLength' },
  },
  {
    name: 'SPOP of most of a set leaves the survivors in a new set, an intset when they are integers',
    commands: [
      ['SADD', 's', 'x', '1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11'],
      ['SREM', 's', 'x'],
      ['SPOP', 's', '10'],
      ['SCARD', 's'],
      ['OBJECT', 'ENCODING', 's'],
      ['SADD', 't', '1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11', '12'],
      ['EXPIRE', 't', '100'],
      ['SPOP', 't', '10'],
      ['TTL', 't'],
    ],
    relax: { 2: 'sameLength', 7: 'sameLength', 8: 'ttl' },
  },
  {
    name: 'SPOP count errors',
    commands: [
      ['SADD', 's', 'a'],
      ['SPOP', 's', '-1'],
      ['SPOP', 's', 'x'],
      ['SPOP', 's', '1.5'],
      ['SPOP', 'nokey', '-1'],
      ['SPOP', 's', '1', '2'],
      ['SCARD', 's'],
    ],
  },

  // ---- SRANDMEMBER ----
  {
    name: 'SRANDMEMBER on a missing key: nil without count, empty array with one',
    commands: [['SRANDMEMBER', 'nokey'], ['SRANDMEMBER', 'nokey', '5'], ['SRANDMEMBER', 'nokey', '-5']],
  },
  {
    name: 'SRANDMEMBER with a count at least the size returns the whole set, 0 returns nothing',
    commands: [['SADD', 's', '3', '1', '2', '-5', '10'], ['SRANDMEMBER', 's', '5'], ['SRANDMEMBER', 's', '10'], ['SRANDMEMBER', 's', '0'], ['SCARD', 's']],
  },
  {
    name: 'SRANDMEMBER of a single member is deterministic, a negative count repeats it',
    commands: [['SADD', 's', 'only'], ['SRANDMEMBER', 's'], ['SRANDMEMBER', 's', '1'], ['SRANDMEMBER', 's', '-3']],
  },
  {
    name: 'SRANDMEMBER sample sizes',
    commands: [
      ['SADD', 's', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'],
      ['SRANDMEMBER', 's', '3'],
      ['SRANDMEMBER', 's', '8'],
      ['SRANDMEMBER', 's', '-25'],
      ['SRANDMEMBER', 's'],
      ['SCARD', 's'],
    ],
    relax: { 1: 'sameLength', 2: 'sameLength', 3: 'sameLength', 4: 'sameLength' },
  },
  {
    name: 'SRANDMEMBER count errors',
    commands: [
      ['SADD', 's', 'a'],
      ['SRANDMEMBER', 's', 'x'],
      ['SRANDMEMBER', 's', '-9223372036854775808'],
      ['SRANDMEMBER', 's', '9223372036854775808'],
      ['SRANDMEMBER', 's', '1', '2'],
      ['SRANDMEMBER', 'nokey', 'x'],
    ],
  },

  // ---- SINTER, SUNION, SDIFF ----
  {
    name: 'SINTER, SUNION and SDIFF of integer sets answer in ascending order',
    commands: [
      ['SADD', 'a', '1', '2', '3', '4', '5'],
      ['SADD', 'b', '4', '5', '6', '-1'],
      ['SADD', 'c', '5', '4', '100'],
      ['SINTER', 'a', 'b'],
      ['SINTER', 'a', 'b', 'c'],
      ['SUNION', 'a', 'b', 'c'],
      ['SDIFF', 'a', 'b'],
      ['SDIFF', 'a', 'b', 'c'],
      ['SDIFF', 'b', 'a'],
      ['SUNION', 'a', 'nokey'],
      ['SDIFF', 'a', 'nokey'],
      ['SDIFF', 'nokey', 'a'],
      ['SINTER', 'a', 'nokey'],
      ['SINTER', 'a'],
      ['SINTER', 'a', 'a'],
      ['SDIFF', 'a', 'a'],
      ['SUNION', 'nokey'],
    ],
  },
  {
    name: 'SINTER, SUNION and SDIFF of string sets',
    commands: [
      ['SADD', 'a', 'x', 'y', 'z', 'w'],
      ['SADD', 'b', 'y', 'z', 'q'],
      ['SADD', 'c', 'z', '1'],
      ['SINTER', 'a', 'b'],
      ['SINTER', 'a', 'b', 'c'],
      ['SUNION', 'a', 'b', 'c'],
      ['SDIFF', 'a', 'b'],
      ['SDIFF', 'a', 'b', 'c'],
      ['SDIFF', 'c', 'a', 'b'],
    ],
    relax: { 3: 'unordered', 4: 'unordered', 5: 'unordered', 6: 'unordered', 7: 'unordered', 8: 'unordered' },
  },
  {
    name: 'SDIFF with a small first set against big ones (the walking algorithm)',
    commands: [
      ['SADD', 'a', '1', '2', '3'],
      ['SADD', 'b', '2', '10', '11', '12', '13', '14', '15', '16'],
      ['SADD', 'c', '3', '20', '21', '22', '23', '24', '25', '26'],
      ['SDIFF', 'a', 'b', 'c'],
      ['SDIFFSTORE', 'd', 'a', 'b', 'c'],
      ['SMEMBERS', 'd'],
    ],
  },

  // ---- *STORE ----
  {
    name: 'SINTERSTORE, SUNIONSTORE and SDIFFSTORE store the result and reply its size',
    commands: [
      ['SADD', 'a', '1', '2', '3'],
      ['SADD', 'b', '2', '3', '4'],
      ['SINTERSTORE', 'i', 'a', 'b'],
      ['SMEMBERS', 'i'],
      ['SUNIONSTORE', 'u', 'a', 'b'],
      ['SMEMBERS', 'u'],
      ['SDIFFSTORE', 'd', 'a', 'b'],
      ['SMEMBERS', 'd'],
    ],
  },
  {
    name: 'an empty *STORE result deletes the destination, whatever its type',
    commands: [
      ['SADD', 'a', '1'],
      ['SADD', 'b', '2'],
      ['SET', 'dst', 'x'],
      ['SINTERSTORE', 'dst', 'a', 'b'],
      ['EXISTS', 'dst'],
      ['SET', 'dst', 'x'],
      ['SDIFFSTORE', 'dst', 'a', 'a'],
      ['EXISTS', 'dst'],
      ['SET', 'dst', 'x'],
      ['SUNIONSTORE', 'dst', 'nokey'],
      ['EXISTS', 'dst'],
      ['SINTERSTORE', 'dst', 'nokey', 'a'],
    ],
  },
  {
    name: 'a *STORE destination of another type is replaced by a set',
    commands: [['SET', 'dst', 'x'], ['SADD', 'a', 'm'], ['SUNIONSTORE', 'dst', 'a'], ['TYPE', 'dst'], ['SMEMBERS', 'dst']],
  },
  {
    name: '*STORE may name a source as destination',
    commands: [
      ['SADD', 'a', '1', '2', '3'],
      ['SADD', 'b', '3', '4'],
      ['SUNIONSTORE', 'a', 'a', 'b'],
      ['SMEMBERS', 'a'],
      ['SDIFFSTORE', 'a', 'a', 'b'],
      ['SMEMBERS', 'a'],
      ['SINTERSTORE', 'b', 'a', 'b'],
      ['EXISTS', 'b'],
    ],
  },

  {
    name: 'a key named several times counts once',
    commands: [
      ['SADD', 'a', '1', '2', '3'],
      ['SINTER', 'a', 'a', 'a'],
      ['SINTERCARD', '3', 'a', 'a', 'a', 'LiMiT', '2'],
      ['SUNION', 'a', 'a'],
      ['SMOVE', 'nokey', 'nokey', 'a'],
      ['SDIFFSTORE', 'a', 'nokey', 'a'],
      ['EXISTS', 'a'],
    ],
  },

  // ---- SINTERCARD ----
  {
    name: 'SINTERCARD counts the intersection, LIMIT caps it, LIMIT 0 means none',
    commands: [
      ['SADD', 'a', '1', '2', '3', '4'],
      ['SADD', 'b', '2', '3', '4', '5'],
      ['SINTERCARD', '2', 'a', 'b'],
      ['SINTERCARD', '2', 'a', 'b', 'LIMIT', '2'],
      ['SINTERCARD', '2', 'a', 'b', 'limit', '0'],
      ['SINTERCARD', '2', 'a', 'b', 'LIMIT', '10'],
      ['SINTERCARD', '1', 'a', 'LIMIT', '1', 'LIMIT', '3'],
      ['SINTERCARD', '2', 'a', 'nokey'],
      ['SINTERCARD', '1', 'nokey'],
    ],
  },
  {
    name: 'SINTERCARD argument errors, checked before the keys',
    commands: [
      ['SET', 'str', 'x'],
      ['SADD', 'a', '1'],
      ['SINTERCARD', '0', 'a'],
      ['SINTERCARD', '-1', 'a'],
      ['SINTERCARD', 'x', 'a'],
      ['SINTERCARD', '2', 'a'],
      ['SINTERCARD', '1', 'a', 'LIMIT', '-1'],
      ['SINTERCARD', '1', 'a', 'LIMIT', 'x'],
      ['SINTERCARD', '1', 'a', 'LIMIT'],
      ['SINTERCARD', '1', 'a', 'FOO', '1'],
      ['SINTERCARD', '1', 'nokey', 'str'],
      ['SINTERCARD', '1', 'str', 'LIMIT', '-1'],
    ],
  },

  // ---- SSCAN ----
  {
    name: 'SSCAN returns an intset whole and sorted with cursor 0, whatever cursor and COUNT',
    commands: [
      ['SADD', 's', '5', '3', '1', '4', '2', '10', '9', '8', '7', '6', '11', '12'],
      ['SSCAN', 's', '0'],
      ['SSCAN', 's', '0', 'COUNT', '2'],
      ['SSCAN', 's', '99'],
      ['SSCAN', 's', '0', 'MATCH', '1*'],
      ['SSCAN', 's', '0', 'MATCH', '[2-4]'],
    ],
  },
  {
    name: 'SSCAN of a small string set returns everything in one call',
    commands: [['SADD', 's', 'only'], ['SSCAN', 's', '0'], ['SSCAN', 's', '0', 'MATCH', 'o*'], ['SSCAN', 's', '0', 'MATCH', 'x*']],
  },
  {
    name: 'SSCAN cursor and option errors; NOVALUES is for HSCAN only',
    commands: [
      ['SADD', 's', '1'],
      ['SSCAN', 's', 'x'],
      ['SSCAN', 's', '-'],
      ['SSCAN', 's', '0', 'COUNT', '0'],
      ['SSCAN', 's', '0', 'COUNT', 'x'],
      ['SSCAN', 's', '0', 'MATCH'],
      ['SSCAN', 's', '0', 'NOVALUES'],
      ['SSCAN', 's', '0', 'TYPE', 'set'],
      ['SSCAN', 'nokey', '0'],
      ['SSCAN', 'nokey', '0', 'COUNT', '0'],
      ['SSCAN', 'nokey', 'x'],
    ],
  },

  // ---- encoding (intset while every member is an integer and there are at most 512) ----
  {
    name: 'a set is an intset until a non-integer member or the 513th member, and never converts back',
    commands: [
      ['SADD', 's', '1', '2'],
      ['OBJECT', 'ENCODING', 's'],
      ['SADD', 's', 'x'],
      ['SREM', 's', 'x'],
      ['OBJECT', 'ENCODING', 's'],
      ['SMEMBERS', 's'],
      ['SADD', 'big', ...Array.from({ length: 512 }, (_, i) => `${i}`)],
      ['OBJECT', 'ENCODING', 'big'],
      ['SADD', 'big', '512'],
      ['OBJECT', 'ENCODING', 'big'],
      ['SADD', 't', 'x', '1'],
      ['OBJECT', 'ENCODING', 't'],
    ],
    relax: { 5: 'unordered' },
  },
  {
    name: 'store results, SMOVE destinations and SPOP survivors take the intset encoding when they can',
    commands: [
      ['SADD', 'a', 'x', '1', '2', '3'],
      ['SADD', 'b', '1', '2', 'y'],
      ['SINTERSTORE', 'i', 'a', 'b'],
      ['OBJECT', 'ENCODING', 'i'],
      ['SMEMBERS', 'i'],
      ['SDIFFSTORE', 'd', 'a', 'b'],
      ['OBJECT', 'ENCODING', 'd'],
      ['SMOVE', 'a', 'm', '3'],
      ['OBJECT', 'ENCODING', 'm'],
      ['SMOVE', 'a', 'n', 'x'],
      ['OBJECT', 'ENCODING', 'n'],
    ],
  },
  {
    name: 'CONFIG SET set-max-intset-entries applies to the next write',
    commands: [
      ['CONFIG', 'SET', 'set-max-intset-entries', '2'],
      ['SADD', 's', '1', '2'],
      ['OBJECT', 'ENCODING', 's'],
      ['SADD', 's', '3'],
      ['OBJECT', 'ENCODING', 's'],
      ['CONFIG', 'SET', 'set-max-intset-entries', '512'],
    ],
  },
]
