/**
 * Command sequences for the keyspace-notification differential: each runs on redis-server 7.0.15
 * and on the RESP listener over the memory engine, with `notify-keyspace-events KEAn`, and the
 * ordered `__keyspace@*` / `__keyevent@*` messages a pattern subscriber receives are compared.
 * Sequences avoid the clock (expiry by time is tested apart) and randomness that changes events.
 */
import type { Command } from '../../src/reply.js'

export interface NotificationCase {
  readonly name: string
  readonly commands: readonly Command[]
}

export const notificationCases: readonly NotificationCase[] = [
  {
    name: 'strings: SET (with EX, NX, XX, GET, KEEPTTL), SETNX, SETEX, MSET, MSETNX, GETSET, GETDEL, GETEX',
    commands: [
      ['SET', 's', '1'], ['SET', 's', '2', 'EX', '100'], ['SET', 's', '3', 'NX'], ['SET', 'n', '3', 'XX'],
      ['SET', 's', '4', 'XX', 'GET'], ['SET', 's', '5', 'KEEPTTL'], ['SETNX', 's', 'x'], ['SETNX', 't', 'x'],
      ['SETEX', 'u', '100', 'v'], ['PSETEX', 'u', '100000', 'v'], ['MSET', 'a', '1', 'b', '2'], ['MSETNX', 'a', '1', 'c', '3'],
      ['MSETNX', 'd', '1', 'e', '2'], ['GETSET', 'a', '9'], ['GETDEL', 'a'], ['GETDEL', 'a'], ['GETEX', 'b', 'EX', '100'],
      ['GETEX', 'b', 'PERSIST'], ['GETEX', 'b', 'PERSIST'], ['GETEX', 'b', 'PXAT', '1'], ['GETEX', 'missing', 'EX', '5'],
      ['SET', 'w', 'x', 'PXAT', '1'], ['GET', 'w'],
    ],
  },
  {
    name: 'strings: APPEND, SETRANGE (empty value, padding), INCR family, INCRBYFLOAT, errors emit nothing',
    commands: [
      ['APPEND', 'a', 'x'], ['APPEND', 'a', 'y'], ['SETRANGE', 'b', '3', 'z'], ['SETRANGE', 'b', '0', ''], ['SETRANGE', 'nokey', '0', ''],
      ['INCR', 'i'], ['INCRBY', 'i', '5'], ['DECR', 'i'], ['DECRBY', 'i', '2'], ['INCRBYFLOAT', 'f', '1.5'],
      ['INCR', 'a'], ['INCRBYFLOAT', 'a', '1'], ['LPUSH', 'l', 'x'], ['SET', 'l', 'y'], ['APPEND', 'l', 'x'],
    ],
  },
  {
    name: 'bitmaps: SETBIT (changed or not), BITFIELD (SET, INCRBY, FAIL overflow, GET only), BITOP store and empty result',
    commands: [
      ['SETBIT', 'b', '7', '1'], ['SETBIT', 'b', '7', '1'], ['SETBIT', 'b', '7', '0'], ['SETBIT', 'b', '100', '0'],
      ['BITFIELD', 'f', 'SET', 'u8', '0', '255'], ['BITFIELD', 'f', 'SET', 'u8', '0', '255'], ['BITFIELD', 'f', 'GET', 'u8', '0'],
      ['BITFIELD', 'f', 'OVERFLOW', 'FAIL', 'INCRBY', 'u8', '0', '1'], ['BITFIELD', 'g', 'OVERFLOW', 'FAIL', 'INCRBY', 'u2', '0', '7'],
      ['BITFIELD', 'f', 'INCRBY', 'u8', '8', '1'], ['BITOP', 'AND', 'd', 'b', 'f'], ['BITOP', 'OR', 'd', 'x1', 'x2'],
      ['BITOP', 'OR', 'd', 'x1', 'x2'], ['BITOP', 'NOT', 'e', 'b'],
    ],
  },
  {
    name: 'lists: pushes, X forms, pops with and without count, LSET, LINSERT, LREM, LTRIM, LMOVE, RPOPLPUSH, LMPOP, deletion when emptied',
    commands: [
      ['LPUSHX', 'l', 'a'], ['RPUSH', 'l', 'a', 'b', 'c', 'd'], ['LPUSH', 'l', 'z'], ['RPUSHX', 'l', 'e'], ['LPOP', 'l'],
      ['RPOP', 'l', '2'], ['LPOP', 'l', '0'], ['LSET', 'l', '0', 'A'], ['LINSERT', 'l', 'BEFORE', 'A', 'p'],
      ['LINSERT', 'l', 'AFTER', 'nope', 'q'], ['LREM', 'l', '0', 'nope'], ['LREM', 'l', '1', 'p'], ['LMOVE', 'l', 'm', 'LEFT', 'RIGHT'],
      ['RPOPLPUSH', 'l', 'm'], ['RPOPLPUSH', 'm', 'm'], ['LMPOP', '2', 'x', 'm', 'LEFT', 'COUNT', '5'], ['RPUSH', 't', '1', '2', '3'],
      ['LTRIM', 't', '0', '1'], ['LTRIM', 't', '5', '10'], ['LTRIM', 'nokey', '0', '1'], ['LPOP', 'nokey'],
    ],
  },
  {
    name: 'hashes: HSET, HMSET, HSETNX, HINCRBY, HINCRBYFLOAT, HDEL to empty',
    commands: [
      ['HSET', 'h', 'a', '1', 'b', '2'], ['HSET', 'h', 'a', '1'], ['HMSET', 'h', 'c', '3'], ['HSETNX', 'h', 'a', 'x'],
      ['HSETNX', 'h', 'd', 'x'], ['HINCRBY', 'h', 'n', '5'], ['HINCRBYFLOAT', 'h', 'f', '1.5'], ['HDEL', 'h', 'zz'],
      ['HDEL', 'h', 'a', 'b'], ['HDEL', 'h', 'c', 'd', 'n', 'f'], ['HDEL', 'h', 'a'],
    ],
  },
  {
    name: 'sets: SADD, SREM, SMOVE (to new, existing, same key), SPOP (one, count, whole set), *STORE with empty results',
    commands: [
      ['SADD', 's', 'a', 'b', 'c'], ['SADD', 's', 'a'], ['SREM', 's', 'zz'], ['SREM', 's', 'a'], ['SMOVE', 's', 't', 'b'],
      ['SMOVE', 's', 't', 'nope'], ['SADD', 't', 'c'], ['SMOVE', 's', 't', 'c'], ['SMOVE', 't', 't', 'b'], ['SADD', 'p', 'x'],
      ['SPOP', 'p'], ['SADD', 'p', 'x', 'y', 'z'], ['SPOP', 'p', '0'], ['SPOP', 'p', '1'], ['SPOP', 'p', '10'],
      ['SADD', 'a', '1', '2'], ['SADD', 'b', '2', '3'], ['SINTERSTORE', 'd', 'a', 'b'], ['SUNIONSTORE', 'd', 'a', 'b'],
      ['SDIFFSTORE', 'd', 'a', 'b'], ['SINTERSTORE', 'd', 'a', 'missing'], ['SINTERSTORE', 'd', 'a', 'missing'],
      ['SDIFFSTORE', 'e', 'a', 'a'],
    ],
  },
  {
    name: 'sorted sets: ZADD (new, update, no change, INCR, XX on missing), ZINCRBY, ZREM, ZREMRANGEBY*, ZPOP*, ZMPOP, stores',
    commands: [
      ['ZADD', 'z', '1', 'a', '2', 'b', '3', 'c', '4', 'd'], ['ZADD', 'z', '1', 'a'], ['ZADD', 'z', '5', 'a'], ['ZADD', 'z', 'XX', '1', 'new'],
      ['ZADD', 'nokey', 'XX', '1', 'a'], ['ZADD', 'z', 'INCR', '1', 'a'], ['ZINCRBY', 'z', '2', 'b'], ['ZADD', 'z', 'GT', '0', 'b'],
      ['ZREM', 'z', 'nope'], ['ZREM', 'z', 'c'], ['ZREMRANGEBYSCORE', 'z', '100', '200'], ['ZREMRANGEBYRANK', 'z', '0', '0'],
      ['ZPOPMIN', 'z'], ['ZPOPMAX', 'z', '0'], ['ZADD', 'y', '0', 'a', '0', 'b', '0', 'c'], ['ZREMRANGEBYLEX', 'y', '[a', '[a'],
      ['ZMPOP', '2', 'nokey', 'y', 'MAX', 'COUNT', '1'], ['ZPOPMAX', 'y', '5'], ['ZPOPMAX', 'z', '5'],
      ['ZADD', 'p', '1', 'a', '2', 'b'], ['ZADD', 'q', '2', 'b', '3', 'c'], ['ZUNIONSTORE', 'o', '2', 'p', 'q'],
      ['ZINTERSTORE', 'o', '2', 'p', 'q'], ['ZDIFFSTORE', 'o', '2', 'p', 'p'], ['ZDIFFSTORE', 'o', '2', 'p', 'p'],
      ['ZRANGESTORE', 'r', 'p', '0', '-1'], ['ZRANGESTORE', 'r', 'nokey', '0', '-1'],
    ],
  },
  {
    name: 'generic: DEL, UNLINK, EXPIRE family (future, past, conditions), PERSIST, RENAME over an existing key, RENAMENX, COPY, MOVE',
    commands: [
      ['MSET', 'a', '1', 'b', '2', 'c', '3'], ['DEL', 'a', 'nokey', 'b'], ['UNLINK', 'c'], ['SET', 'k', 'v'], ['EXPIRE', 'k', '100'],
      ['EXPIRE', 'k', '100', 'NX'], ['PEXPIRE', 'k', '200000', 'GT'], ['PERSIST', 'k'], ['PERSIST', 'k'], ['EXPIREAT', 'k', '1'],
      ['SET', 'k', 'v'], ['PEXPIREAT', 'k', '1'], ['EXPIRE', 'nokey', '10'], ['SET', 'x', '1'], ['SET', 'y', '2'], ['RENAME', 'x', 'y'],
      ['RENAME', 'y', 'z'], ['SET', 'q', '1'], ['RENAMENX', 'q', 'z'], ['RENAMENX', 'q', 'r'], ['COPY', 'r', 's'], ['COPY', 'r', 's'],
      ['COPY', 'r', 's', 'REPLACE'], ['COPY', 'r', 'r2', 'DB', '1'], ['MOVE', 's', '2'], ['MOVE', 'nokey', '2'], ['SELECT', '2'],
      ['SET', 'in2', 'v'], ['DEL', 's'], ['SELECT', '0'],
    ],
  },
  {
    name: 'SORT ... STORE: a result, an empty result over an existing key, an empty result over nothing',
    commands: [
      ['RPUSH', 'l', '3', '1', '2'], ['SORT', 'l', 'STORE', 'd'], ['SORT', 'nokey', 'STORE', 'd'], ['SORT', 'nokey', 'STORE', 'd'],
      ['SORT', 'l', 'BY', 'nosort', 'STORE', 'l'],
    ],
  },
  {
    name: 'HyperLogLog: PFADD (new, changed, unchanged), PFMERGE; GEOADD and GEO*STORE',
    commands: [
      ['PFADD', 'h', 'a', 'b'], ['PFADD', 'h', 'a'], ['PFADD', 'h2'], ['PFADD', 'h3', 'c'], ['PFMERGE', 'm', 'h', 'h3'],
      ['GEOADD', 'g', '13.361389', '38.115556', 'Palermo', '15.087269', '37.502669', 'Catania'],
      ['GEOADD', 'g', '13.361389', '38.115556', 'Palermo'],
      ['GEOSEARCHSTORE', 'gs', 'g', 'FROMLONLAT', '15', '37', 'BYRADIUS', '200', 'km', 'ASC'],
      ['GEORADIUS', 'g', '15', '37', '200', 'km', 'STORE', 'gr'], ['GEORADIUS', 'g', '0', '0', '1', 'km', 'STORE', 'gr'],
      ['GEOSEARCHSTORE', 'gs', 'nokey', 'FROMLONLAT', '15', '37', 'BYRADIUS', '200', 'km'],
    ],
  },
  {
    name: 'streams: XADD (with trimming, NOMKSTREAM), XTRIM, XDEL, XSETID, XGROUP subcommands, XREADGROUP and XCLAIM creating consumers',
    commands: [
      ['XADD', 'nokey', 'NOMKSTREAM', '*', 'f', 'v'], ['XADD', 'x', '1-1', 'f', 'v'], ['XADD', 'x', '2-1', 'f', 'v'],
      ['XADD', 'x', 'MAXLEN', '1', '3-1', 'f', 'v'], ['XADD', 'x', 'MAXLEN', '5', '4-1', 'f', 'v'], ['XTRIM', 'x', 'MAXLEN', '10'],
      ['XTRIM', 'x', 'MAXLEN', '1'], ['XDEL', 'x', '1-1'], ['XDEL', 'x', '4-1'], ['XSETID', 'x', '10-1'],
      ['XGROUP', 'CREATE', 'x', 'g', '0'], ['XGROUP', 'CREATE', 'x', 'g', '0'], ['XGROUP', 'CREATE', 'ms', 'g', '$', 'MKSTREAM'],
      ['XGROUP', 'SETID', 'x', 'g', '0'], ['XGROUP', 'CREATECONSUMER', 'x', 'g', 'alice'], ['XGROUP', 'CREATECONSUMER', 'x', 'g', 'alice'],
      ['XADD', 'x', '11-1', 'f', 'v'], ['XREADGROUP', 'GROUP', 'g', 'bob', 'STREAMS', 'x', '>'],
      ['XREADGROUP', 'GROUP', 'g', 'bob', 'STREAMS', 'x', '>'], ['XREADGROUP', 'GROUP', 'g', 'carol', 'STREAMS', 'x', '>'],
      ['XCLAIM', 'x', 'g', 'dave', '0', '11-1'], ['XAUTOCLAIM', 'x', 'g', 'erin', '0', '0'],
      ['XGROUP', 'DELCONSUMER', 'x', 'g', 'alice'], ['XGROUP', 'DELCONSUMER', 'x', 'g', 'nobody'], ['XGROUP', 'DESTROY', 'x', 'g'],
      ['XGROUP', 'DESTROY', 'x', 'g'],
    ],
  },
  {
    name: 'writes over keys whose TTL passed: each is reported expired, then new, then written (MSET, RENAME, the *STORE commands, SORT STORE, BITOP)',
    commands: [
      ['SET', 'src', 'v'], ['SADD', 'a', 'x'], ['ZADD', 'z', '1', 'x'], ['RPUSH', 'l', '1'],
      ['SET', 'k1', 'old', 'PXAT', '1'], ['MSET', 'k1', 'new', 'k2', 'new'],
      ['SET', 'dst', 'old', 'PXAT', '1'], ['RENAME', 'src', 'dst'],
      ['SET', 'sd', 'old', 'PXAT', '1'], ['SUNIONSTORE', 'sd', 'a'],
      ['SET', 'zd', 'old', 'PXAT', '1'], ['ZUNIONSTORE', 'zd', '1', 'z'],
      ['SET', 'ld', 'old', 'PXAT', '1'], ['SORT', 'l', 'STORE', 'ld'],
      ['SET', 'bd', 'old', 'PXAT', '1'], ['BITOP', 'OR', 'bd', 'k1'],
      ['SET', 'rn', 'old', 'PXAT', '1'], ['RENAMENX', 'dst', 'rn'],
    ],
  },
  {
    name: 'scripts and transactions: events in the order the commands ran, errors in a block emit nothing',
    commands: [
      ['EVAL', "redis.call('set', KEYS[1], '1'); redis.call('lpush', KEYS[2], 'a'); redis.call('del', KEYS[1]); return 1", '2', 'a', 'b'],
      ['EVAL', "redis.call('incr', KEYS[1]); return redis.pcall('lpush', KEYS[1], 'x')", '1', 'c'],
      ['MULTI'], ['SET', 'm', '1'], ['INCR', 'm'], ['LPUSH', 'm', 'x'], ['EXPIRE', 'm', '100'], ['EXEC'],
      ['FUNCTION', 'LOAD', "#!lua name=notifylib\nredis.register_function('touchall', function(keys) redis.call('sadd', keys[1], 'x'); redis.call('srem', keys[1], 'x'); return 1 end)"],
      ['FCALL', 'touchall', '1', 'fs'], ['FUNCTION', 'DELETE', 'notifylib'],
    ],
  },
]
