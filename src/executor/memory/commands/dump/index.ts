import { OK, ReplyError } from '../../../../reply.js'
import { NOTIFY_GENERIC, notify } from '../../notify.js'
import type { CommandContext, CommandTable, Out } from '../../command.js'
import { NOT_INTEGER, SYNTAX } from '../../errors.js'
import { typeOf, type Value } from '../../keyspace.js'
import { readInt64, readInteger } from '../../lib/numbers.js'
import type { LoadContext } from '../../rdb/codec.js'
import { createDumpPayload, loadDumpPayload, verifyDumpPayload } from '../../rdb/payload.js'
import { CorruptPayload } from '../../rdb/reader.js'
import { HashValue, purgeExpiredFields, trackVolatileHash } from '../../types/hash.js'
import { intsetLimit } from '../set/index.js'
import { setDeadline } from '../generic/expire.js'
import { hashLimits } from '../hash/access.js'
import { zsetLimits } from '../zset/access.js'

/**
 * DUMP and RESTORE (Redis 7.0 `cluster.c`): values serialized in Redis's RDB format, so that a
 * payload DUMPed by redis-server RESTOREs here and the other way round. The format itself lives
 * in `../rdb/` (one codec per value type).
 *
 * RESTORE's IDLETIME and FREQ set the restored key's access clock as Redis does: IDLETIME under
 * the LRU clock (every policy but the LFU ones), FREQ under an LFU policy; the other is ignored.
 */

const BUSY_KEY = new ReplyError('BUSYKEY Target key name already exists.')
const INVALID_TTL = new ReplyError('ERR Invalid TTL value, must be >= 0')
const INVALID_IDLETIME = new ReplyError('ERR Invalid IDLETIME value, must be >= 0')
const INVALID_FREQ = new ReplyError('ERR Invalid FREQ value, must be >= 0 and <= 255')
const WRONG_VERSION_OR_CHECKSUM = new ReplyError('ERR DUMP payload version or checksum are wrong')
const BAD_DATA_FORMAT = new ReplyError('ERR Bad data format')

/** DUMP key: the payload, or nil when the key does not exist. */
function dump(ctx: CommandContext, argv: readonly string[]): Out {
  const key = argv[1]
  const value = ctx.db.read(key, ctx)
  if (value === undefined) return null
  // Hash fields past their deadline are gone for every reader (Redis 7.4 lazy field expiry).
  if (value instanceof HashValue && !purgeExpiredFields(ctx.db, key, value, ctx.now)) return null
  const payload = createDumpPayload(value)
  if (payload === null) return new ReplyError(`ERR DUMP of ${typeOf(value)} values is not supported by the in-memory engine`)
  return payload
}

interface RestoreOptions {
  readonly replace: boolean
  readonly absoluteTtl: boolean
  readonly idleSeconds?: number
  readonly frequency?: number
}

/**
 * REPLACE, ABSTTL, IDLETIME seconds, FREQ frequency, from `argv[4]` on. As in Redis, IDLETIME
 * and FREQ exclude each other (the second one is a syntax error), a missing argument is a syntax
 * error, and a repeated option is accepted.
 */
function parseRestoreOptions(argv: readonly string[]): RestoreOptions | ReplyError {
  let replace = false
  let absoluteTtl = false
  let idleSeconds: number | undefined
  let frequency: number | undefined
  for (let i = 4; i < argv.length; i++) {
    const option = argv[i].toLowerCase()
    const hasArgument = i + 1 < argv.length
    if (option === 'replace') {
      replace = true
    } else if (option === 'absttl') {
      absoluteTtl = true
    } else if (option === 'idletime' && hasArgument && frequency === undefined) {
      const idle = readInteger(argv[++i])
      if (idle === null) return NOT_INTEGER
      if (idle < 0) return INVALID_IDLETIME
      idleSeconds = idle
    } else if (option === 'freq' && hasArgument && idleSeconds === undefined) {
      const counter = readInteger(argv[++i])
      if (counter === null) return NOT_INTEGER
      if (counter < 0 || counter > 255) return INVALID_FREQ
      frequency = counter
    } else {
      return SYNTAX
    }
  }
  return { replace, absoluteTtl, idleSeconds, frequency }
}

/**
 * RESTORE key ttl payload [REPLACE] [ABSTTL] [IDLETIME seconds] [FREQ frequency].
 *
 * Redis's order of checks: options, then an existing key (BUSYKEY unless REPLACE), then the TTL,
 * then version and checksum, then the value itself. A TTL of 0 means none; a relative TTL is
 * added to the current time with 64-bit wrap-around, as in C. A deadline already passed answers
 * OK without creating the key (deleting the old one under REPLACE).
 */
function restore(ctx: CommandContext, argv: readonly string[]): Out {
  const key = argv[1]
  const options = parseRestoreOptions(argv)
  if (options instanceof ReplyError) return options
  if (!options.replace && ctx.db.has(key, ctx.now)) return BUSY_KEY
  const ttl = readInt64(argv[2])
  if (ttl === null) return NOT_INTEGER
  if (ttl < 0n) return INVALID_TTL
  const payload = argv[3]
  if (!verifyDumpPayload(payload)) return WRONG_VERSION_OR_CHECKSUM
  let value: Value
  try {
    value = loadDumpPayload(payload, loadContext(ctx))
  } catch (error) {
    if (error instanceof CorruptPayload) return BAD_DATA_FORMAT
    throw error
  }
  const deleted = options.replace && ctx.db.remove(key)
  const now = BigInt(ctx.now)
  const deadline = ttl === 0n || options.absoluteTtl ? ttl : BigInt.asIntN(64, ttl + now)
  // `checkAlreadyExpired`: a deadline at or before now. A 7.4 hash whose every field has expired
  // is left out the same way.
  if ((deadline !== 0n && deadline <= now && !ctx.engine.loading) || (value instanceof HashValue && value.size === 0)) {
    if (deleted) notify(ctx, NOTIFY_GENERIC, 'del', key)
    return OK
  }
  ctx.db.set(key, value)
  // The time is read first: the LRU clock moves with the command's time.
  if (options.idleSeconds !== undefined) void ctx.now
  ctx.db.setAccess(key, options.idleSeconds, options.frequency)
  if (deadline !== 0n) setDeadline(ctx.db, key, deadline)
  if (value instanceof HashValue) trackVolatileHash(ctx.db, key, value)
  notify(ctx, NOTIFY_GENERIC, 'restore', key)
  return OK
}

/** The encoding limits in force now: a restored value is encoded as Redis would encode it. */
function loadContext(ctx: CommandContext): LoadContext {
  return {
    hash: hashLimits(ctx),
    maxIntsetEntries: intsetLimit(ctx),
    zset: zsetLimits(ctx),
    now: ctx.now,
  }
}

/** DUMP and RESTORE; RESTORE-ASKING (the cluster-migration form) behaves as RESTORE outside a cluster. */
export const dumpCommands: CommandTable = {
  dump,
  restore,
  'restore-asking': restore,
}
