import { OK, ReplyError, Status } from '../../../../reply.js'
import { NOTIFY_GENERIC, notify } from '../../notify.js'
import type { CommandContext, CommandTable, Out } from '../../command.js'
import { DB_INDEX_OUT_OF_RANGE, NOT_INTEGER, NO_SUCH_KEY, SYNTAX } from '../../errors.js'
import { typeOf, type Database, type TypedValue, type Value, type ValueType } from '../../keyspace.js'
import { readInteger } from '../../lib/numbers.js'
import { readDeadline, setDeadline } from './expire.js'

/** Key-level commands: DEL UNLINK EXISTS TOUCH TYPE COPY RENAME RENAMENX (Redis 7.0 `db.c`). */

const SAME_OBJECT = new ReplyError('ERR source and destination objects are the same')

/** TYPE replies, one shared Status per type name. */
const typeReplies = new Map<ValueType | 'none', Status>()
function typeReply(name: ValueType | 'none'): Status {
  let status = typeReplies.get(name)
  if (status === undefined) typeReplies.set(name, (status = new Status(name)))
  return status
}

/** Values of every type other than string can copy themselves (COPY). */
interface Copyable extends TypedValue {
  clone(): TypedValue
}

/** An independent copy of `value`: strings are immutable and shared, other types clone. */
function copyOf(value: Value): Value {
  if (typeof value === 'string') return value
  const copyable = value as Partial<Copyable>
  if (typeof copyable.clone !== 'function') throw new Error(`values of type ${value.type} cannot be copied yet`)
  return copyable.clone()
}

/** Stores `value` at `key` with the deadline `at` (the TTL a COPY or RENAME carries over). */
function storeWithDeadline(db: Database, key: string, value: Value, at: bigint | undefined): void {
  db.set(key, value)
  if (at !== undefined) setDeadline(db, key, at)
}

/** DEL and UNLINK (the engine has no background freeing, so UNLINK is DEL). */
function del(ctx: CommandContext, argv: readonly string[]): Out {
  let removed = 0
  for (let i = 1; i < argv.length; i++) {
    if (ctx.db.delete(argv[i], ctx.now)) {
      removed++
      notify(ctx, NOTIFY_GENERIC, 'del', argv[i])
    }
  }
  return removed
}

/**
 * EXISTS: how many of the keys exist, a key named twice counting twice. Not an access of them
 * (Redis looks them up with LOOKUP_NOTOUCH): their idle time and LFU counter stay.
 */
function exists(ctx: CommandContext, argv: readonly string[]): Out {
  let count = 0
  for (let i = 1; i < argv.length; i++) if (ctx.db.peek(argv[i], ctx) !== undefined) count++
  return count
}

/** TOUCH: EXISTS's count, and an access of each key (its idle time restarts). */
function touch(ctx: CommandContext, argv: readonly string[]): Out {
  let count = 0
  for (let i = 1; i < argv.length; i++) if (ctx.db.has(argv[i], ctx.now)) count++
  return count
}

/** TYPE is not an access of the key (LOOKUP_NOTOUCH). */
function type(ctx: CommandContext, argv: readonly string[]): Out {
  const value = ctx.db.peek(argv[1], ctx)
  return typeReply(value === undefined ? 'none' : typeOf(value))
}

/**
 * COPY source destination [DB destination-db] [REPLACE]: 1 when copied, 0 when the source is
 * missing or the destination exists without REPLACE. The TTL comes along.
 */
function copy(ctx: CommandContext, argv: readonly string[]): Out {
  const source = argv[1]
  const destination = argv[2]
  let target = ctx.db
  let replace = false
  for (let i = 3; i < argv.length; i++) {
    const option = argv[i].toLowerCase()
    if (option === 'replace') {
      replace = true
    } else if (option === 'db' && i + 1 < argv.length) {
      const index = readInteger(argv[++i])
      if (index === null) return NOT_INTEGER
      if (index < 0 || index >= ctx.engine.databases.length) return DB_INDEX_OUT_OF_RANGE
      target = ctx.engine.databases[index]
    } else {
      return SYNTAX
    }
  }
  if (target === ctx.db && source === destination) return SAME_OBJECT
  const value = ctx.db.read(source, ctx)
  if (value === undefined) return 0
  if (target.has(destination, ctx.now)) {
    if (!replace) return 0
    // Redis deletes the old value and adds the copy as a new key (its `new` event included).
    target.remove(destination)
  }
  storeWithDeadline(target, destination, copyOf(value), readDeadline(ctx.db, source))
  ctx.db.carryStringEncoding(source, target, destination)
  ctx.engine.notifier.emit(NOTIFY_GENERIC, 'copy_to', destination, target.index)
  return 1
}

/**
 * RENAME and RENAMENX. A missing source is an error even when both names are equal; an existing
 * one renamed to itself is a no-op (OK, or 0 for RENAMENX). The TTL moves with the value.
 */
function renameKey(ctx: CommandContext, argv: readonly string[], onlyIfNew: boolean): Out {
  const source = argv[1]
  const destination = argv[2]
  const value = ctx.db.read(source, ctx)
  if (value === undefined) return NO_SUCH_KEY
  if (source === destination) return onlyIfNew ? 0 : OK
  // The destination is looked up as Redis does: one whose TTL passed expires here.
  if (ctx.db.has(destination, ctx.now) && onlyIfNew) return 0
  const deadline = readDeadline(ctx.db, source)
  const encoding = ctx.db.stringEncodings.get(source)
  ctx.db.remove(source)
  // The destination is deleted, then added: a new key for `new`, as Redis's rename does.
  ctx.db.remove(destination)
  storeWithDeadline(ctx.db, destination, value, deadline)
  if (encoding !== undefined) ctx.db.setStringEncoding(destination, encoding)
  notify(ctx, NOTIFY_GENERIC, 'rename_from', source)
  notify(ctx, NOTIFY_GENERIC, 'rename_to', destination)
  return onlyIfNew ? 1 : OK
}

function rename(ctx: CommandContext, argv: readonly string[]): Out {
  return renameKey(ctx, argv, false)
}

function renamenx(ctx: CommandContext, argv: readonly string[]): Out {
  return renameKey(ctx, argv, true)
}

/** Key-level commands. */
export const keyCommands: CommandTable = {
  del,
  unlink: del,
  exists,
  touch,
  type,
  copy,
  rename,
  renamenx,
}
