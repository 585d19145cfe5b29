import type { DiffCase } from './harness.js'

/**
 * Server family against redis-server 7.0: DBSIZE, FLUSHDB/FLUSHALL, SWAPDB, MOVE, INFO, TIME,
 * LASTSAVE, ROLE, SLOWLOG, MEMORY, DEBUG. CONFIG and COMMAND have their own case files
 * (server.config.cases.ts, server.command.cases.ts). Replies that describe the process
 * (LASTSAVE) are compared relaxed; INFO's figures are compared by shape in server.test.ts.
 */

export const databaseCases: DiffCase[] = [
  {
    name: 'DBSIZE counts the keys of the selected database',
    commands: [['DBSIZE'], ['SET', 'a', '1'], ['SET', 'b', '2'], ['DBSIZE'], ['DEL', 'a'], ['DBSIZE'], ['DBSIZE', 'x']],
  },
  {
    name: 'FLUSHDB and FLUSHALL take ASYNC or SYNC in any case, nothing else',
    commands: [
      ['SET', 'a', '1'],
      ['FLUSHDB', 'x'],
      ['FLUSHDB', 'ASYNC', 'SYNC'],
      ['DBSIZE'],
      ['FLUSHDB', 'async'],
      ['DBSIZE'],
      ['SET', 'a', '1'],
      ['FLUSHDB', 'Sync'],
      ['DBSIZE'],
      ['SET', 'a', '1'],
      ['FLUSHALL', 'now'],
      ['FLUSHALL', 'sync', 'async'],
      ['FLUSHALL', 'ASYNC'],
      ['DBSIZE'],
      ['FLUSHALL', 'SYNC'],
      ['FLUSHALL'],
    ],
  },
  {
    name: 'FLUSHDB empties only the selected database, FLUSHALL every one',
    commands: [
      ['SET', 'a', '1'],
      ['MOVE', 'a', '1'],
      ['SET', 'b', '1'],
      ['FLUSHDB'],
      ['DBSIZE'],
      ['SWAPDB', '0', '1'],
      ['DBSIZE'],
      ['GET', 'a'],
      ['SWAPDB', '0', '1'],
      ['SET', 'c', '1'],
      ['FLUSHALL'],
      ['SWAPDB', '0', '1'],
      ['DBSIZE'],
    ],
  },
  {
    name: 'SWAPDB exchanges databases and validates both indexes',
    commands: [
      ['SET', 'k', 'zero'],
      ['SWAPDB', '0', '2'],
      ['GET', 'k'],
      ['DBSIZE'],
      ['SWAPDB', '2', '0'],
      ['GET', 'k'],
      ['SWAPDB', '0', '0'],
      ['GET', 'k'],
      ['SWAPDB', '0', 'x'],
      ['SWAPDB', 'x', '0'],
      ['SWAPDB', 'x', 'y'],
      ['SWAPDB', '0', '16'],
      ['SWAPDB', '-1', '0'],
      ['SWAPDB', '4294967296', '0'],
      ['SWAPDB', '0', '2147483648'],
      ['SWAPDB', '0'],
    ],
  },
  {
    name: 'MOVE moves a key with its TTL and refuses when the target has it',
    commands: [
      ['SET', 'a', '1', 'EX', '100'],
      ['MOVE', 'a', '1'],
      ['EXISTS', 'a'],
      ['MOVE', 'a', '1'],
      ['SWAPDB', '0', '1'],
      ['TTL', 'a'],
      ['GET', 'a'],
      ['SWAPDB', '0', '1'],
      ['SET', 'a', 'other'],
      ['SWAPDB', '0', '1'],
      ['MOVE', 'a', '1'],
      ['SWAPDB', '0', '1'],
      ['GET', 'a'],
    ],
    relax: { 5: 'ttl' },
  },
  {
    name: 'MOVE errors: same database, bad index, out of range',
    commands: [
      ['SET', 'a', '1'],
      ['MOVE', 'a', '0'],
      ['MOVE', 'missing', '0'],
      ['MOVE', 'a', 'x'],
      ['MOVE', 'a', '16'],
      ['MOVE', 'a', '-1'],
      ['MOVE', 'a', '4294967296'],
      ['MOVE', 'a', '9223372036854775808'],
      ['MOVE', 'a', '01'],
      ['MOVE', 'missing', '1'],
      ['MOVE', 'a'],
    ],
  },
  {
    name: 'MOVE of a hash keeps its contents',
    commands: [['HSET', 'h', 'f', 'v'], ['MOVE', 'h', '3'], ['SWAPDB', '0', '3'], ['HGETALL', 'h'], ['TYPE', 'h'], ['SWAPDB', '0', '3']],
  },
]

export const infoCases: DiffCase[] = [
  {
    name: 'INFO keyspace lists non-empty databases with keys and expires',
    commands: [
      ['INFO', 'keyspace'],
      ['SET', 'a', '1'],
      ['SET', 'b', '2'],
      ['INFO', 'keyspace'],
      ['MOVE', 'b', '5'],
      ['INFO', 'KEYSPACE'],
      ['INFO', 'keyspace', 'keyspace'],
    ],
  },
  {
    name: 'INFO with an unknown section is an empty bulk string',
    commands: [['INFO', 'nosuch'], ['INFO', 'nosuch', 'other'], ['INFO', '']],
  },
  {
    name: 'INFO cluster is fixed for a standalone server',
    commands: [['INFO', 'cluster'], ['INFO', 'Cluster', 'keyspace']],
  },
]

export const miscCases: DiffCase[] = [
  {
    name: 'TIME is seconds and microseconds; LASTSAVE an integer',
    commands: [['TIME'], ['TIME', 'x'], ['LASTSAVE'], ['LASTSAVE', 'x']],
    relax: { 0: 'sameLength', 2: 'ignore' },
  },
  {
    name: 'ROLE of a standalone master',
    commands: [['ROLE'], ['ROLE', 'x']],
  },
  {
    name: 'BGSAVE takes only SCHEDULE',
    commands: [['BGSAVE', 'x'], ['BGSAVE', 'SCHEDULE', 'x']],
  },
  {
    name: 'SLOWLOG after a reset is empty; GET validates its count',
    commands: [
      ['SLOWLOG', 'RESET'],
      ['SLOWLOG', 'LEN'],
      ['SLOWLOG', 'GET'],
      ['SLOWLOG', 'GET', '0'],
      ['SLOWLOG', 'GET', '-1'],
      ['SLOWLOG', 'GET', 'x'],
      ['SLOWLOG', 'GET', '-2'],
      ['SLOWLOG', 'LEN', 'x'],
      ['SLOWLOG', 'HELP'],
    ],
  },
  {
    name: 'MEMORY USAGE: nil for a missing key, option errors, a figure for a key',
    commands: [
      ['MEMORY', 'USAGE', 'nokey'],
      ['SET', 'a', 'hello'],
      ['MEMORY', 'USAGE', 'a'],
      ['MEMORY', 'USAGE', 'a', 'SAMPLES', '0'],
      ['MEMORY', 'USAGE', 'a', 'samples', 'x'],
      ['MEMORY', 'USAGE', 'a', 'samples', '-1'],
      ['MEMORY', 'USAGE', 'a', 'foo'],
      ['MEMORY', 'USAGE', 'a', 'SAMPLES'],
      ['MEMORY', 'USAGE', 'a', 'samples', '0', 'samples', '1'],
      ['MEMORY', 'HELP'],
      ['MEMORY', 'PURGE'],
    ],
  },
  {
    name: 'DEBUG is refused while enable-debug-command is off',
    commands: [['DEBUG', 'SLEEP', '0'], ['DEBUG', 'help'], ['DEBUG']],
  },
]
