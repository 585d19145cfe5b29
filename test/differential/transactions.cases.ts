import type { Command } from '../../src/reply.js'
import type { Relaxation } from './harness.js'

/**
 * MULTI/EXEC against redis-server 7.0: `setup` runs command by command, then `transaction` runs
 * through `Executor.transaction` on both sides (the socket executor sends MULTI … EXEC), then
 * `after` shows what the block left behind. The whole EXEC reply is compared, or the single
 * EXECABORT error.
 */
export interface TransactionCase {
  readonly name: string
  readonly setup?: readonly Command[]
  readonly transaction: readonly Command[]
  readonly after?: readonly Command[]
  /** Relaxations by slot of the EXEC reply. */
  readonly relax?: Readonly<Record<number, Relaxation>>
}

export const transactionCases: TransactionCase[] = [
  {
    name: 'every command runs and replies in its slot',
    transaction: [['SET', 'a', '1'], ['INCR', 'a'], ['GET', 'a'], ['PING'], ['ECHO', 'x'], ['EXISTS', 'a', 'b']],
    after: [['GET', 'a']],
  },
  {
    name: 'an empty transaction replies an empty array',
    transaction: [],
  },
  {
    name: 'a runtime error lands in its slot and the rest still runs',
    transaction: [['SET', 'a', 'x'], ['INCR', 'a'], ['SET', 'b', '2'], ['INCRBY', 'b', 'y'], ['GET', 'b']],
    after: [['GET', 'a'], ['GET', 'b']],
  },
  {
    name: 'WRONGTYPE inside a transaction does not stop it',
    setup: [['HSET', 'h', 'f', 'v']],
    transaction: [['GET', 'h'], ['HGET', 'h', 'f'], ['SET', 'h', 's'], ['HGET', 'h', 'f'], ['GET', 'h']],
    after: [['TYPE', 'h']],
  },
  {
    name: 'an unknown command discards the whole block',
    setup: [['SET', 'a', 'before']],
    transaction: [['SET', 'a', 'inside'], ['NOSUCH', 'x'], ['DEL', 'a']],
    after: [['GET', 'a']],
  },
  {
    name: 'wrong arity discards the whole block, wherever it is',
    transaction: [['SET', 'a', '1'], ['INCR', 'a'], ['GET']],
    after: [['EXISTS', 'a']],
  },
  {
    name: 'an unknown subcommand discards the whole block',
    transaction: [['SET', 'a', '1'], ['CONFIG', 'NOSUCH']],
    after: [['EXISTS', 'a']],
  },
  {
    name: 'a container command without a subcommand discards the whole block',
    transaction: [['SET', 'a', '1'], ['CONFIG']],
    after: [['EXISTS', 'a']],
  },
  {
    name: 'SAVE is not allowed inside a transaction and discards it',
    transaction: [['SET', 'a', '1'], ['SAVE']],
    after: [['EXISTS', 'a']],
  },
  {
    name: 'queue-time and runtime errors together: the queue-time one wins',
    transaction: [['SET', 'a', 'x'], ['INCR', 'a'], ['GET', 'a', 'b']],
    after: [['EXISTS', 'a']],
  },
  {
    name: 'syntax errors found by the command itself are runtime errors',
    transaction: [['SET', 'a', '1', 'NX', 'XX'], ['SET', 'a', '2'], ['CONFIG', 'SET', 'hz', 'x'], ['FLUSHDB', 'x'], ['GET', 'a']],
    after: [['GET', 'a']],
  },
  {
    name: 'SELECT inside a transaction applies to the rest of the block only',
    setup: [['SET', 'a', 'zero']],
    transaction: [['SELECT', '1'], ['GET', 'a'], ['SET', 'a', 'one'], ['SELECT', '0'], ['GET', 'a']],
    after: [['GET', 'a'], ['MOVE', 'a', '1']],
  },
  {
    name: 'several families in one block',
    setup: [['RPUSH', 'l', 'x']],
    transaction: [
      ['HSET', 'h', 'a', '1', 'b', '2'],
      ['HINCRBY', 'h', 'a', '5'],
      ['SADD', 's', 'm1', 'm2'],
      ['SCARD', 's'],
      ['LPUSH', 'l', 'y'],
      ['LRANGE', 'l', '0', '-1'],
      ['HGETALL', 'h'],
      ['TYPE', 's'],
      ['DEL', 'h', 's'],
      ['DBSIZE'],
    ],
  },
  {
    name: 'FLUSHALL and DBSIZE inside a block',
    setup: [['SET', 'a', '1'], ['SET', 'b', '2']],
    transaction: [['DBSIZE'], ['FLUSHALL'], ['DBSIZE'], ['SET', 'c', '3'], ['DBSIZE']],
  },
  {
    name: 'keys with a TTL keep it through a block; PERSIST and EXPIRE inside',
    setup: [['SET', 'a', '1', 'EX', '100']],
    transaction: [['TTL', 'a'], ['PERSIST', 'a'], ['TTL', 'a'], ['EXPIRE', 'a', '50'], ['TTL', 'a']],
    relax: { 0: 'ttl', 4: 'ttl' },
  },
  {
    name: 'binary values survive a transaction',
    transaction: [['SET', Buffer.from([0, 255, 13, 10]), Buffer.from([1, 2, 0])], ['GET', Buffer.from([0, 255, 13, 10])], ['STRLEN', Buffer.from([0, 255, 13, 10])]],
  },
]
