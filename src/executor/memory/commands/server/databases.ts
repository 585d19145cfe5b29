/** DBSIZE, FLUSHDB, FLUSHALL, SWAPDB and MOVE: whole-database operations. */
import { NOTIFY_GENERIC, notify } from '../../notify.js'
import { OK, ReplyError } from '../../../../reply.js'
import type { CommandContext, Out } from '../../command.js'
import { DB_INDEX_OUT_OF_RANGE, NOT_INTEGER, SYNTAX } from '../../errors.js'
import type { Engine } from '../../engine.js'
import type { Database } from '../../keyspace.js'
import { readInteger } from '../../lib/numbers.js'

export const INT_RANGE = new ReplyError('ERR value is out of range, value must between -2147483648 and 2147483647')
const SAME_OBJECT = new ReplyError('ERR source and destination objects are the same')
const INVALID_FIRST_DB = new ReplyError('ERR invalid first DB index')
const INVALID_SECOND_DB = new ReplyError('ERR invalid second DB index')

/**
 * A database index as Redis's getIntFromObjectOrReply reads it: a 64-bit integer (else "not an
 * integer"), then within a C int (else the range error). Range against the configured databases
 * is the caller's check.
 */
export function readDbIndex(text: string): number | ReplyError {
  const index = readInteger(text)
  if (index === null) return NOT_INTEGER
  if (index < -2147483648 || index > 2147483647) return INT_RANGE
  return index
}

function validDb(engine: Engine, index: number): boolean {
  return index >= 0 && index < engine.databases.length
}

/** DBSIZE: keys in the selected database (expired keys not yet reclaimed included, as in Redis). */
function dbsize(ctx: CommandContext): Out {
  return ctx.db.size
}

/** FLUSHDB / FLUSHALL take at most one of ASYNC or SYNC; both free memory at once here. */
function flushMode(argv: readonly string[]): ReplyError | undefined {
  if (argv.length === 1) return undefined
  const mode = argv[1].toLowerCase()
  return argv.length === 2 && (mode === 'async' || mode === 'sync') ? undefined : SYNTAX
}

function flushdb(ctx: CommandContext, argv: readonly string[]): Out {
  const invalid = flushMode(argv)
  if (invalid) return invalid
  emptyDatabase(ctx, ctx.db)
  return OK
}

/**
 * Empties `db`: its watched keys that held a value are touched first, and the clients blocked on
 * its keys are readied after (a group reader's stream is gone), as Redis's `emptyData` does.
 */
function emptyDatabase(ctx: CommandContext, db: Database): void {
  const engine = ctx.engine
  if (engine.watches.count !== 0) engine.watches.touchDatabase(db, undefined, ctx.now)
  db.clear()
  if (engine.blocking.count !== 0) engine.blocking.signalDatabase(db.index)
}

function flushall(ctx: CommandContext, argv: readonly string[]): Out {
  const invalid = flushMode(argv)
  if (invalid) return invalid
  for (const db of ctx.engine.databases) emptyDatabase(ctx, db)
  return OK
}

/**
 * SWAPDB index1 index2: exchanges two databases in O(1). Sessions hold indexes, so clients of
 * either database see the other's data from their next command, as in Redis.
 */
function swapdb(ctx: CommandContext, argv: readonly string[]): Out {
  const first = readDbIndex(argv[1])
  if (first instanceof ReplyError) return INVALID_FIRST_DB
  const second = readDbIndex(argv[2])
  if (second instanceof ReplyError) return INVALID_SECOND_DB
  const engine = ctx.engine
  if (!validDb(engine, first) || !validDb(engine, second)) return DB_INDEX_OUT_OF_RANGE
  if (first === second) return OK
  const databases = engine.databases
  const a = databases[first]
  const b = databases[second]
  // Watches and blocked clients stay with the index, as in Redis: what the swap changes under them touches or readies them.
  if (engine.watches.count !== 0) {
    engine.watches.touchDatabase(a, b, ctx.now)
    engine.watches.touchDatabase(b, a, ctx.now)
  }
  databases[first] = b
  databases[second] = a
  // Each Database records its own index (INFO keyspace names it): keep it true after the swap.
  ;(a as { index: number }).index = second
  ;(b as { index: number }).index = first
  if (engine.blocking.count !== 0) {
    engine.blocking.signalDatabase(first)
    engine.blocking.signalDatabase(second)
  }
  return OK
}

/** MOVE key db: 1 when moved (with its TTL), 0 when the key is missing or exists in the target. */
function move(ctx: CommandContext, argv: readonly string[]): Out {
  const key = argv[1]
  const target = readDbIndex(argv[2])
  if (target instanceof ReplyError) return target
  if (!validDb(ctx.engine, target)) return DB_INDEX_OUT_OF_RANGE
  const destination = ctx.engine.databases[target]
  if (destination === ctx.db) return SAME_OBJECT
  const value = ctx.db.read(key, ctx)
  if (value === undefined) return 0
  if (destination.has(key, ctx.now)) return 0
  const expireAt = ctx.db.getExpire(key)
  destination.set(key, value)
  if (expireAt !== undefined) destination.setExpire(key, expireAt)
  ctx.db.carryStringEncoding(key, destination, key)
  ctx.db.remove(key)
  notify(ctx, NOTIFY_GENERIC, 'move_from', key)
  ctx.engine.notifier.emit(NOTIFY_GENERIC, 'move_to', key, destination.index)
  return 1
}

export const databaseCommands = { dbsize, flushdb, flushall, swapdb, move }
