import type { DiffCase } from './harness.js'

/**
 * List commands against redis-server 7.0: every command, option and error path, in the order
 * Redis checks them (arguments before or after the key, depending on the command).
 */

export const listCases: DiffCase[] = [
  // ---- LPUSH RPUSH LPUSHX RPUSHX LLEN TYPE ----
  {
    name: 'LPUSH prepends each element in turn, RPUSH appends; both answer the new length',
    commands: [
      ['LPUSH', 'l', 'a', 'b', 'c'],
      ['RPUSH', 'l', 'x', 'y'],
      ['LRANGE', 'l', '0', '-1'],
      ['LLEN', 'l'],
      ['TYPE', 'l'],
    ],
  },
  {
    name: 'LPUSHX and RPUSHX only push onto an existing list',
    commands: [
      ['LPUSHX', 'l', 'a'],
      ['RPUSHX', 'l', 'a', 'b'],
      ['EXISTS', 'l'],
      ['RPUSH', 'l', 'm'],
      ['LPUSHX', 'l', 'h1', 'h2'],
      ['RPUSHX', 'l', 't1', 't2'],
      ['LRANGE', 'l', '0', '-1'],
    ],
  },
  {
    name: 'pushing onto, and reading, a key of another type is WRONGTYPE',
    commands: [
      ['SET', 's', 'v'],
      ['LPUSH', 's', 'a'],
      ['RPUSH', 's', 'a'],
      ['LPUSHX', 's', 'a'],
      ['RPUSHX', 's', 'a'],
      ['LLEN', 's'],
      ['LINDEX', 's', '0'],
      ['LRANGE', 's', '0', '-1'],
      ['LPOP', 's'],
      ['RPOP', 's'],
      ['LREM', 's', '0', 'a'],
      ['LTRIM', 's', '0', '1'],
      ['LPOS', 's', 'a'],
      ['LLEN', 'missing'],
    ],
  },
  {
    name: 'list elements are binary-safe and may be empty',
    commands: [
      ['RPUSH', 'l', '', 'a\x00b', '\xff\xfe', 'é'],
      ['LRANGE', 'l', '0', '-1'],
      ['LPOS', 'l', 'a\x00b'],
      ['LPOS', 'l', ''],
      ['LINDEX', 'l', '2'],
    ],
  },
  {
    name: 'push arity errors',
    commands: [['LPUSH', 'l'], ['RPUSH', 'l'], ['LPUSHX', 'l'], ['RPUSHX'], ['LLEN'], ['LLEN', 'a', 'b']],
  },

  // ---- LPOP RPOP ----
  {
    name: 'LPOP and RPOP take one element from each end and delete the emptied key',
    commands: [
      ['RPUSH', 'l', 'a', 'b', 'c'],
      ['LPOP', 'l'],
      ['RPOP', 'l'],
      ['LPOP', 'l'],
      ['EXISTS', 'l'],
      ['LPOP', 'l'],
      ['RPOP', 'l'],
    ],
  },
  {
    name: 'LPOP and RPOP with a count answer arrays, capped at the length',
    commands: [
      ['RPUSH', 'l', 'a', 'b', 'c', 'd', 'e'],
      ['LPOP', 'l', '2'],
      ['RPOP', 'l', '2'],
      ['LPOP', 'l', '1'],
      ['RPUSH', 'l', 'x', 'y'],
      ['RPOP', 'l', '10'],
      ['EXISTS', 'l'],
    ],
  },
  {
    name: 'a count of 0 answers an empty array for a list, the null array for a missing key',
    commands: [
      ['RPUSH', 'l', 'a'],
      ['LPOP', 'l', '0'],
      ['RPOP', 'l', '0'],
      ['LPOP', 'missing', '0'],
      ['RPOP', 'missing', '5'],
      ['LLEN', 'l'],
    ],
  },
  {
    name: 'a negative or non-integer pop count is refused before the key is looked at',
    commands: [
      ['SET', 's', 'v'],
      ['LPOP', 'missing', '-1'],
      ['RPOP', 'missing', 'abc'],
      ['LPOP', 's', '-1'],
      ['LPOP', 's', '1'],
      ['LPOP', 's', '0'],
      ['LPOP', 'l', '1', '2'],
      ['LPOP', 'l', '9223372036854775808'],
    ],
  },

  // ---- LINDEX LSET ----
  {
    name: 'LINDEX reads by index from either end; out of range is nil',
    commands: [
      ['RPUSH', 'l', 'a', 'b', 'c'],
      ['LINDEX', 'l', '0'],
      ['LINDEX', 'l', '2'],
      ['LINDEX', 'l', '-1'],
      ['LINDEX', 'l', '-3'],
      ['LINDEX', 'l', '3'],
      ['LINDEX', 'l', '-4'],
      ['LINDEX', 'l', '9223372036854775807'],
      ['LINDEX', 'l', '-9223372036854775808'],
    ],
  },
  {
    name: 'LINDEX looks at the key before the index',
    commands: [['RPUSH', 'l', 'a'], ['LINDEX', 'missing', 'abc'], ['LINDEX', 'l', 'abc'], ['LINDEX', 'l', '1.5'], ['LINDEX', 'l', ' 1']],
  },
  {
    name: 'LSET replaces by index; missing keys, bad indexes and range errors',
    commands: [
      ['RPUSH', 'l', 'a', 'b', 'c'],
      ['LSET', 'l', '0', 'A'],
      ['LSET', 'l', '-1', 'C'],
      ['LRANGE', 'l', '0', '-1'],
      ['LSET', 'l', '3', 'x'],
      ['LSET', 'l', '-4', 'x'],
      ['LSET', 'l', 'abc', 'x'],
      ['LSET', 'missing', '0', 'x'],
      ['LSET', 'missing', 'abc', 'x'],
      ['SET', 's', 'v'],
      ['LSET', 's', 'abc', 'x'],
    ],
  },

  // ---- LRANGE LTRIM ----
  {
    name: 'LRANGE clamps its range like Redis',
    commands: [
      ['RPUSH', 'l', 'a', 'b', 'c', 'd', 'e'],
      ['LRANGE', 'l', '1', '3'],
      ['LRANGE', 'l', '-2', '-1'],
      ['LRANGE', 'l', '-100', '1'],
      ['LRANGE', 'l', '3', '100'],
      ['LRANGE', 'l', '3', '1'],
      ['LRANGE', 'l', '5', '10'],
      ['LRANGE', 'l', '0', '-6'],
      ['LRANGE', 'l', '-9223372036854775808', '9223372036854775807'],
      ['LRANGE', 'missing', '0', '-1'],
    ],
  },
  {
    name: 'LRANGE parses its indexes before it looks at the key',
    commands: [['SET', 's', 'v'], ['LRANGE', 'missing', 'a', '0'], ['LRANGE', 's', '0', 'x'], ['LRANGE', 's', '0', '1']],
  },
  {
    name: 'LTRIM keeps a range, and an empty range deletes the key',
    commands: [
      ['RPUSH', 'l', 'a', 'b', 'c', 'd', 'e'],
      ['LTRIM', 'l', '1', '-2'],
      ['LRANGE', 'l', '0', '-1'],
      ['LTRIM', 'l', '-100', '100'],
      ['LRANGE', 'l', '0', '-1'],
      ['LTRIM', 'l', '2', '1'],
      ['EXISTS', 'l'],
      ['RPUSH', 'm', 'a', 'b'],
      ['LTRIM', 'm', '5', '10'],
      ['EXISTS', 'm'],
      ['LTRIM', 'missing', '0', '1'],
      ['LTRIM', 'missing', 'x', '1'],
      ['SET', 's', 'v'],
      ['LTRIM', 's', '0', 'y'],
    ],
  },

  // ---- LREM ----
  {
    name: 'LREM removes from the head, the tail, or everywhere',
    commands: [
      ['RPUSH', 'l', 'a', 'b', 'a', 'c', 'a', 'b', 'a'],
      ['LREM', 'l', '2', 'a'],
      ['LRANGE', 'l', '0', '-1'],
      ['LREM', 'l', '-1', 'b'],
      ['LRANGE', 'l', '0', '-1'],
      ['LREM', 'l', '0', 'a'],
      ['LRANGE', 'l', '0', '-1'],
      ['LREM', 'l', '0', 'zz'],
      ['LREM', 'l', '0', 'b'],
      ['LREM', 'l', '0', 'c'],
      ['EXISTS', 'l'],
      ['LREM', 'missing', '0', 'a'],
      ['LREM', 'missing', 'x', 'a'],
    ],
  },

  // ---- LINSERT ----
  {
    name: 'LINSERT before and after the first pivot; -1 without pivot, 0 without key',
    commands: [
      ['RPUSH', 'l', 'a', 'b', 'a'],
      ['LINSERT', 'l', 'BEFORE', 'a', 'x'],
      ['LINSERT', 'l', 'after', 'a', 'y'],
      ['LINSERT', 'l', 'After', 'b', 'z'],
      ['LRANGE', 'l', '0', '-1'],
      ['LINSERT', 'l', 'before', 'nope', 'q'],
      ['LINSERT', 'missing', 'before', 'a', 'q'],
      ['EXISTS', 'missing'],
      ['LINSERT', 'missing', 'middle', 'a', 'q'],
      ['LINSERT', 'l', 'middle', 'a', 'q'],
      ['SET', 's', 'v'],
      ['LINSERT', 's', 'before', 'a', 'q'],
      ['LINSERT', 's', 'sideways', 'a', 'q'],
    ],
  },
  {
    name: 'LINSERT in the middle of a long list keeps every element in place',
    commands: [
      ['RPUSH', 'l', ...Array.from({ length: 40 }, (_, i) => `e${i}`)],
      ['LPOP', 'l', '5'],
      ['RPUSH', 'l', 'tail1', 'tail2'],
      ['LINSERT', 'l', 'before', 'e10', 'x'],
      ['LINSERT', 'l', 'after', 'e30', 'y'],
      ['LINSERT', 'l', 'before', 'e5', 'first'],
      ['LINSERT', 'l', 'after', 'tail2', 'last'],
      ['LRANGE', 'l', '0', '-1'],
    ],
  },

  // ---- LPOS ----
  {
    name: 'LPOS finds the first match, or nil',
    commands: [['RPUSH', 'l', 'a', 'b', 'c', 'b', 'a', 'b'], ['LPOS', 'l', 'b'], ['LPOS', 'l', 'z'], ['LPOS', 'missing', 'a']],
  },
  {
    name: 'LPOS RANK counts matches from the head, or from the tail when negative',
    commands: [
      ['RPUSH', 'l', 'a', 'b', 'c', 'b', 'a', 'b'],
      ['LPOS', 'l', 'b', 'RANK', '2'],
      ['LPOS', 'l', 'b', 'RANK', '3'],
      ['LPOS', 'l', 'b', 'RANK', '4'],
      ['LPOS', 'l', 'b', 'RANK', '-1'],
      ['LPOS', 'l', 'b', 'RANK', '-3'],
      ['LPOS', 'l', 'b', 'RANK', '9223372036854775807'],
      ['LPOS', 'l', 'b', 'RANK', '-9223372036854775807'],
      ['LPOS', 'l', 'b', 'RANK', '-9223372036854775808'],
      ['LPOS', 'l', 'b', 'RANK', '-9223372036854775808', 'COUNT', '1'],
      ['LPOS', 'l', 'b', 'RANK', '1', 'RANK', '2'],
    ],
  },
  {
    name: 'LPOS COUNT answers an array; COUNT 0 means every match',
    commands: [
      ['RPUSH', 'l', 'a', 'b', 'c', 'b', 'a', 'b'],
      ['LPOS', 'l', 'b', 'COUNT', '2'],
      ['LPOS', 'l', 'b', 'COUNT', '0'],
      ['LPOS', 'l', 'b', 'COUNT', '10'],
      ['LPOS', 'l', 'b', 'COUNT', '0', 'RANK', '-1'],
      ['LPOS', 'l', 'b', 'COUNT', '2', 'RANK', '2'],
      ['LPOS', 'l', 'z', 'COUNT', '0'],
      ['LPOS', 'missing', 'z', 'COUNT', '0'],
      ['LPOS', 'l', 'b', 'count', '1', 'COUNT', '0'],
    ],
  },
  {
    name: 'LPOS MAXLEN limits how many elements are compared, from the chosen end',
    commands: [
      ['RPUSH', 'l', 'a', 'b', 'c', 'b', 'a', 'b'],
      ['LPOS', 'l', 'b', 'MAXLEN', '1'],
      ['LPOS', 'l', 'b', 'MAXLEN', '2'],
      ['LPOS', 'l', 'b', 'MAXLEN', '4', 'COUNT', '0'],
      ['LPOS', 'l', 'a', 'RANK', '-1', 'MAXLEN', '2'],
      ['LPOS', 'l', 'a', 'RANK', '-1', 'MAXLEN', '2', 'COUNT', '0'],
      ['LPOS', 'l', 'b', 'MAXLEN', '0', 'COUNT', '0'],
    ],
  },
  {
    name: 'LPOS option errors come before the key lookup',
    commands: [
      ['SET', 's', 'v'],
      ['RPUSH', 'l', 'a'],
      ['LPOS', 'l', 'a', 'RANK', '0'],
      ['LPOS', 'missing', 'a', 'RANK', '0'],
      ['LPOS', 's', 'a', 'RANK', '0'],
      ['LPOS', 'l', 'a', 'RANK', 'abc'],
      ['LPOS', 'l', 'a', 'COUNT', '-1'],
      ['LPOS', 'l', 'a', 'COUNT', 'abc'],
      ['LPOS', 'l', 'a', 'MAXLEN', '-1'],
      ['LPOS', 'l', 'a', 'MAXLEN', 'abc'],
      ['LPOS', 'l', 'a', 'COUNT'],
      ['LPOS', 'l', 'a', 'FOO', '1'],
      ['LPOS', 'l', 'a', 'RANK', '1', 'FOO'],
      ['LPOS', 's', 'a', 'COUNT', '1'],
    ],
  },

  // ---- LMOVE RPOPLPUSH ----
  {
    name: 'LMOVE moves between any ends and creates the destination',
    commands: [
      ['RPUSH', 'src', 'a', 'b', 'c', 'd'],
      ['LMOVE', 'src', 'dst', 'LEFT', 'RIGHT'],
      ['LMOVE', 'src', 'dst', 'RIGHT', 'LEFT'],
      ['LMOVE', 'src', 'dst', 'left', 'left'],
      ['LMOVE', 'src', 'dst', 'right', 'right'],
      ['LRANGE', 'dst', '0', '-1'],
      ['EXISTS', 'src'],
      ['LMOVE', 'src', 'dst', 'LEFT', 'RIGHT'],
    ],
  },
  {
    name: 'LMOVE on one key rotates the list, even a single element',
    commands: [
      ['RPUSH', 'l', 'a', 'b', 'c'],
      ['LMOVE', 'l', 'l', 'LEFT', 'RIGHT'],
      ['LRANGE', 'l', '0', '-1'],
      ['LMOVE', 'l', 'l', 'RIGHT', 'LEFT'],
      ['LMOVE', 'l', 'l', 'RIGHT', 'LEFT'],
      ['LRANGE', 'l', '0', '-1'],
      ['RPUSH', 'one', 'x'],
      ['LMOVE', 'one', 'one', 'LEFT', 'LEFT'],
      ['LRANGE', 'one', '0', '-1'],
    ],
  },
  {
    name: 'LMOVE checks directions first, then the source, then the destination type',
    commands: [
      ['SET', 's', 'v'],
      ['RPUSH', 'l', 'a'],
      ['LMOVE', 'missing', 'd', 'UP', 'LEFT'],
      ['LMOVE', 'l', 'd', 'LEFT', 'DOWN'],
      ['LMOVE', 'missing', 's', 'LEFT', 'LEFT'],
      ['LMOVE', 'l', 's', 'LEFT', 'LEFT'],
      ['LRANGE', 'l', '0', '-1'],
      ['LMOVE', 's', 'l', 'LEFT', 'LEFT'],
    ],
  },
  {
    name: 'RPOPLPUSH pops the tail and pushes the head',
    commands: [
      ['RPUSH', 'a', '1', '2', '3'],
      ['RPOPLPUSH', 'a', 'b'],
      ['RPOPLPUSH', 'a', 'b'],
      ['RPOPLPUSH', 'a', 'a'],
      ['LRANGE', 'a', '0', '-1'],
      ['LRANGE', 'b', '0', '-1'],
      ['RPOPLPUSH', 'missing', 'b'],
      ['SET', 's', 'v'],
      ['RPOPLPUSH', 'a', 's'],
      ['RPOPLPUSH', 's', 'a'],
      ['LRANGE', 'a', '0', '-1'],
    ],
  },

  // ---- LMPOP ----
  {
    name: 'LMPOP pops from the first non-empty list, one element by default',
    commands: [
      ['RPUSH', 'b', 'b1', 'b2', 'b3'],
      ['RPUSH', 'c', 'c1'],
      ['LMPOP', '3', 'a', 'b', 'c', 'LEFT'],
      ['LMPOP', '3', 'a', 'b', 'c', 'RIGHT', 'COUNT', '5'],
      ['EXISTS', 'b'],
      ['LMPOP', '3', 'a', 'b', 'c', 'left', 'count', '2'],
      ['LMPOP', '3', 'a', 'b', 'c', 'LEFT'],
      ['LMPOP', '1', 'a', 'LEFT', 'COUNT', '1'],
    ],
  },
  {
    name: 'LMPOP argument errors',
    commands: [
      ['RPUSH', 'l', 'a'],
      ['LMPOP', '0', 'l', 'LEFT'],
      ['LMPOP', '-1', 'l', 'LEFT'],
      ['LMPOP', 'abc', 'l', 'LEFT'],
      ['LMPOP', '2', 'l', 'LEFT'],
      ['LMPOP', '5', 'l', 'LEFT'],
      ['LMPOP', '1', 'l', 'MIDDLE'],
      ['LMPOP', '1', 'l', 'LEFT', 'COUNT', '0'],
      ['LMPOP', '1', 'l', 'LEFT', 'COUNT', '-1'],
      ['LMPOP', '1', 'l', 'LEFT', 'COUNT', 'x'],
      ['LMPOP', '1', 'l', 'LEFT', 'COUNT'],
      ['LMPOP', '1', 'l', 'LEFT', 'COUNT', '1', 'COUNT', '1'],
      ['LMPOP', '1', 'l', 'LEFT', 'FOO'],
      ['LMPOP', '1', 'missing', 'LEFT', 'COUNT', '0'],
      ['LMPOP', '1', 'l'],
      ['LRANGE', 'l', '0', '-1'],
    ],
  },
  {
    name: 'LMPOP stops at a key of another type, but only when it reaches it',
    commands: [
      ['SET', 's', 'v'],
      ['RPUSH', 'l', 'a'],
      ['LMPOP', '2', 'l', 's', 'LEFT'],
      ['LMPOP', '2', 'l', 's', 'LEFT'],
      ['LMPOP', '2', 'missing', 'nothing', 'RIGHT'],
    ],
  },

  // ---- larger lists: both ends, wrap-around ----
  {
    name: 'a long list grown and shrunk from both ends keeps its order',
    commands: [
      ['RPUSH', 'l', ...Array.from({ length: 100 }, (_, i) => String(i))],
      ['LPUSH', 'l', ...Array.from({ length: 50 }, (_, i) => `h${i}`)],
      ['LPOP', 'l', '30'],
      ['RPOP', 'l', '60'],
      ['RPUSH', 'l', 'x', 'y'],
      ['LLEN', 'l'],
      ['LINDEX', 'l', '10'],
      ['LINDEX', 'l', '-3'],
      ['LRANGE', 'l', '0', '-1'],
      ['LTRIM', 'l', '5', '-5'],
      ['LRANGE', 'l', '0', '-1'],
      ['LREM', 'l', '0', '20'],
      ['LLEN', 'l'],
    ],
  },
  {
    name: 'OBJECT ENCODING of any list is quicklist in Redis 7.0',
    commands: [
      ['RPUSH', 'small', 'a'],
      ['RPUSH', 'big', ...Array.from({ length: 200 }, (_, i) => String(i))],
      ['OBJECT', 'ENCODING', 'small'],
      ['OBJECT', 'ENCODING', 'big'],
    ],
  },
]
