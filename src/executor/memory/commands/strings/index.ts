import { OK, ReplyError } from '../../../../reply.js'
import { NOTIFY_GENERIC, NOTIFY_STRING, notify } from '../../notify.js'
import type { CommandTable, CommandContext, Out } from '../../command.js'
import { NOT_INTEGER, wrongArity } from '../../errors.js'
import { readInteger } from '../../lib/numbers.js'
import { readString, checkStringLength, padTo } from './value.js'
import { set, setnx, setex, psetex, getex } from './set.js'
import { incr, decr, incrby, decrby, incrbyfloat } from './counters.js'
import { lcs } from './lcs.js'
import { delex, digest } from './conditional.js'
import { msetex } from './msetex.js'

/**
 * The String family (https://redis.io/commands/?group=string), as Redis 7.0 `t_string.c`
 * behaves. Values are binary strings; integers are stored as their decimal text. SET and its
 * expiry variants live in `strings/set.ts`, the counters in `strings/counters.ts`, LCS in
 * `strings/lcs.ts`.
 */

const OFFSET_OUT_OF_RANGE = new ReplyError('ERR offset is out of range')

/** GET key */
function get(ctx: CommandContext, argv: readonly string[]): Out {
  return readString(ctx, argv[1]) ?? null
}

/** GETDEL key: the value, then the key is gone. */
function getdel(ctx: CommandContext, argv: readonly string[]): Out {
  const key = argv[1]
  const value = readString(ctx, key)
  if (value === undefined) return null
  if (value instanceof ReplyError) return value
  ctx.db.remove(key)
  notify(ctx, NOTIFY_GENERIC, 'del', key)
  return value
}

/** GETSET key value: the old value; the new one replaces it and drops any TTL. */
function getset(ctx: CommandContext, argv: readonly string[]): Out {
  const [, key, value] = argv
  const old = readString(ctx, key)
  if (old instanceof ReplyError) return old
  ctx.db.set(key, value)
  notify(ctx, NOTIFY_STRING, 'set', key)
  return old ?? null
}

/** MGET key [key ...]: nil for missing keys and for keys of other types. */
function mget(ctx: CommandContext, argv: readonly string[]): Out {
  const replies: Out[] = new Array(argv.length - 1)
  for (let i = 1; i < argv.length; i++) {
    const value = ctx.db.read(argv[i], ctx)
    replies[i - 1] = typeof value === 'string' ? value : null
  }
  return replies
}

/** MSET key value [key value ...]: an odd pair count is reported as wrong arity. */
function mset(ctx: CommandContext, argv: readonly string[]): Out {
  if (argv.length % 2 === 0) return wrongArity(ctx.name)
  setPairs(ctx, argv)
  return OK
}

/** MSETNX key value [key value ...]: sets all (1) only when none of the keys exists, else 0. */
function msetnx(ctx: CommandContext, argv: readonly string[]): Out {
  if (argv.length % 2 === 0) return wrongArity(ctx.name)
  for (let i = 1; i < argv.length; i += 2) if (ctx.db.has(argv[i], ctx.now)) return 0
  setPairs(ctx, argv)
  return 1
}

/** The writes of MSET and MSETNX, each reported `set` as it is made. */
function setPairs(ctx: CommandContext, argv: readonly string[]): void {
  for (let i = 1; i < argv.length; i += 2) {
    // A key whose TTL passed is reclaimed (and reported expired) before it is written anew.
    ctx.db.reclaimIfExpired(argv[i], ctx)
    ctx.db.set(argv[i], argv[i + 1])
    notify(ctx, NOTIFY_STRING, 'set', argv[i])
  }
}

/** STRLEN key */
function strlen(ctx: CommandContext, argv: readonly string[]): Out {
  const value = readString(ctx, argv[1])
  if (value instanceof ReplyError) return value
  return value === undefined ? 0 : value.length
}

/** APPEND key value: the new length; creates the key when missing; keeps the TTL. */
function append(ctx: CommandContext, argv: readonly string[]): Out {
  const [, key, suffix] = argv
  const current = readString(ctx, key)
  if (current instanceof ReplyError) return current
  if (current === undefined) {
    ctx.db.set(key, suffix)
    notify(ctx, NOTIFY_STRING, 'append', key)
    return suffix.length
  }
  const tooLong = checkStringLength(ctx, current.length + suffix.length)
  if (tooLong !== null) return tooLong
  const next = current + suffix
  ctx.db.update(key, next)
  ctx.db.setStringEncoding(key, 'raw')
  notify(ctx, NOTIFY_STRING, 'append', key)
  return next.length
}

/**
 * GETRANGE key start end (and its old name SUBSTR). Negative indexes count from the end; both
 * ends are then clamped to the string, so `GETRANGE k -100 -50` is the first byte, but two
 * negative indexes in the wrong order are an empty range before any clamping.
 */
function getrange(ctx: CommandContext, argv: readonly string[]): Out {
  let start = readInteger(argv[2])
  let end = readInteger(argv[3])
  if (start === null || end === null) return NOT_INTEGER
  const value = readString(ctx, argv[1])
  if (value instanceof ReplyError) return value
  if (value === undefined) return ''
  if (start < 0 && end < 0 && start > end) return ''
  const length = value.length
  if (start < 0) start = length + start
  if (end < 0) end = length + end
  if (start < 0) start = 0
  if (end < 0) end = 0
  if (end >= length) end = length - 1
  if (start > end || length === 0) return ''
  return value.slice(start, end + 1)
}

/**
 * SETRANGE key offset value: overwrites from `offset`, zero-padding as needed; the new length.
 * An empty value changes nothing (and creates nothing) but still reports the length.
 */
function setrange(ctx: CommandContext, argv: readonly string[]): Out {
  const [, key, , patch] = argv
  const offset = readInteger(argv[2])
  if (offset === null) return NOT_INTEGER
  if (offset < 0) return OFFSET_OUT_OF_RANGE
  const current = readString(ctx, key)
  if (current instanceof ReplyError) return current
  if (patch.length === 0) return current === undefined ? 0 : current.length
  const tooLong = checkStringLength(ctx, offset + patch.length)
  if (tooLong !== null) return tooLong
  const base = padTo(current ?? '', offset)
  const next = base.slice(0, offset) + patch + base.slice(offset + patch.length)
  if (current === undefined) ctx.db.set(key, next)
  else ctx.db.update(key, next)
  ctx.db.setStringEncoding(key, 'raw')
  notify(ctx, NOTIFY_STRING, 'setrange', key)
  return next.length
}

/** String commands. */
export const stringCommands: CommandTable = {
  append,
  decr,
  decrby,
  delex,
  digest,
  get,
  getdel,
  getex,
  getrange,
  getset,
  incr,
  incrby,
  incrbyfloat,
  lcs,
  mget,
  mset,
  msetex,
  msetnx,
  psetex,
  set,
  setex,
  setnx,
  setrange,
  strlen,
  substr: getrange,
}
