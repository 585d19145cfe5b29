import type { DiffCase } from './harness.js'

/**
 * Connection family against redis-server 7.0. Each command of a case runs as its own call, so
 * session state (SELECT) does not carry over between commands. The socket executor refuses the
 * commands that would change its shared connections (RESET, CLIENT SETNAME, CLIENT NO-EVICT …),
 * so those are covered by test/executor/memory/server.test.ts instead.
 */
export const connectionCases: DiffCase[] = [
  {
    name: 'PING with and without a message; ECHO any bytes',
    commands: [
      ['PING'],
      ['PING', 'hello'],
      ['PING', ''],
      ['PING', '-x'],
      ['PING', 'a', 'b'],
      ['ECHO', 'hello'],
      ['ECHO', ''],
      ['ECHO', Buffer.from([0, 1, 255, 13, 10])],
      ['ECHO'],
      ['ECHO', 'a', 'b'],
    ],
  },
  {
    name: 'SELECT validates the index',
    commands: [
      ['SELECT', '0'],
      ['SELECT', '15'],
      ['SELECT', '16'],
      ['SELECT', '-1'],
      ['SELECT', 'x'],
      ['SELECT', '01'],
      ['SELECT', ' 1'],
      ['SELECT', '1.0'],
      ['SELECT', '4294967296'],
      ['SELECT', '2147483648'],
      ['SELECT', '9223372036854775808'],
      ['SELECT', '0', 'x'],
      ['SELECT', '0'],
    ],
  },
  {
    name: 'READONLY and READWRITE need cluster mode',
    commands: [['READONLY'], ['READWRITE'], ['READONLY', 'x']],
  },
  {
    name: 'CLIENT subcommands about the calling connection',
    commands: [
      ['CLIENT', 'GETNAME', 'x'],
      ['CLIENT', 'ID', 'x'],
      ['CLIENT', 'INFO', 'x'],
      ['CLIENT', 'GETREDIR'],
      ['CLIENT', 'UNBLOCK', '987654'],
      ['CLIENT', 'UNBLOCK', '987654', 'ERROR'],
      ['CLIENT', 'UNBLOCK', '987654', 'timeout'],
      ['CLIENT', 'UNBLOCK', 'x'],
      ['CLIENT', 'UNBLOCK', '987654', 'x'],
      ['CLIENT', 'LIST', 'TYPE', 'x'],
      ['CLIENT', 'LIST', 'TYPE', 'pubsub'],
      ['CLIENT', 'LIST', 'ID', 'x'],
      ['CLIENT', 'LIST', 'ID', '987654'],
      ['CLIENT', 'HELP'],
      ['CLIENT'],
      ['CLIENT', 'NOSUCH'],
    ],
  },
  {
    name: 'CLIENT ID, INFO and LIST describe the connection',
    commands: [['CLIENT', 'ID'], ['CLIENT', 'INFO'], ['CLIENT', 'LIST'], ['CLIENT', 'LIST', 'TYPE', 'normal']],
    relax: { 0: 'ignore', 1: 'ignore', 2: 'ignore', 3: 'ignore' },
  },
]
