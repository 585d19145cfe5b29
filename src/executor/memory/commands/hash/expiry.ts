import { ReplyError } from '../../../../reply.js'
import { NOTIFY_HASH, notify } from '../../notify.js'
import type { CommandTable, CommandContext, Out } from '../../command.js'
import { NOT_INTEGER, invalidExpire, wrongArity } from '../../errors.js'
import { readInteger } from '../../lib/numbers.js'
import { trackFieldDeadline, type HashValue } from '../../types/hash.js'
import { deleteIfEmpty, hashForWrite, hashLimits, readHash } from './access.js'

/**
 * Hash field expiry: HEXPIRE, HPEXPIRE, HEXPIREAT, HPEXPIREAT, HTTL, HPTTL, HEXPIRETIME,
 * HPEXPIRETIME, HPERSIST (Redis 7.4) and HGETDEL, HGETEX, HSETEX (Redis 8.0).
 *
 * The local reference server is 7.0, which has none of them, so this follows the Redis command
 * pages (https://redis.io/docs/latest/commands/hexpire/ …) and, for argument checks and error
 * texts the pages do not spell out, Redis 8.0's t_hash.c. Per-field reply codes: -2 no such field
 * (or no such key), -1 no TTL, 0 NX/XX/GT/LT not met, 1 done, 2 deleted because the time is due.
 */

const FIELDS_MISSING = new ReplyError('ERR Mandatory argument FIELDS is missing or not at the right position')
const NUMFIELDS_MISMATCH = new ReplyError('ERR The `numfields` parameter must match the number of arguments')
/** HEXPIRE and friends word a bad `numfields` differently from the other commands. */
const NUMFIELDS_NOT_POSITIVE_HEXPIRE = new ReplyError('ERR Parameter `numFields` should be greater than 0')
const NUMFIELDS_NOT_POSITIVE = new ReplyError('ERR Number of fields must be a positive integer')
const HSETEX_NUMFIELDS = new ReplyError('ERR invalid number of fields')
const EXPIRE_NEGATIVE = new ReplyError('ERR invalid expire time, must be >= 0')
const MISSING_EXPIRE_TIME = new ReplyError('ERR missing expire time')
const HSETEX_ONE_EXPIRY = new ReplyError('ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified')
const HSETEX_ONE_CONDITION = new ReplyError('ERR Only one of FXX or FNX arguments can be specified')
const INT_MAX = 2 ** 31 - 1
const LINE_BREAKS = /[\r\n]/g

/**
 * Field deadlines are limited to 2^46 - 1 ms (`HFE_MAX_ABS_TIME_MSEC`: 48-bit ebuckets times
 * with two bits reserved), about the year 4199.
 */
const MAX_FIELD_DEADLINE = 2 ** 46 - 1

type Condition = 'nx' | 'xx' | 'gt' | 'lt'
const CONDITIONS: ReadonlySet<string> = new Set(['nx', 'xx', 'gt', 'lt'])
/** EX / PX / EXAT / PXAT: milliseconds per unit and whether the time is relative. */
const EXPIRY_UNITS: ReadonlyMap<string, { readonly unitMs: number; readonly relative: boolean }> = new Map([
  ['ex', { unitMs: 1000, relative: true }],
  ['px', { unitMs: 1, relative: true }],
  ['exat', { unitMs: 1000, relative: false }],
  ['pxat', { unitMs: 1, relative: false }],
])

/** `parseExpireTime` of t_hash.c: an absolute deadline in ms, or the error Redis answers. */
function parseDeadline(ctx: CommandContext, text: string, unitMs: number, relative: boolean): number | ReplyError {
  const value = readInteger(text)
  if (value === null) return NOT_INTEGER
  if (value < 0) return EXPIRE_NEGATIVE
  if (unitMs === 1000 && value > Math.floor(MAX_FIELD_DEADLINE / 1000)) return invalidExpire(ctx.name)
  const base = relative ? ctx.now : 0
  const ms = value * unitMs
  if (ms > MAX_FIELD_DEADLINE - base) return invalidExpire(ctx.name)
  return ms + base
}

/**
 * Checks `FIELDS numfields field …` starting at `argv[fieldsAt]`; returns numfields, which must
 * account for every remaining argument.
 */
function parseFieldCount(ctx: CommandContext, argv: readonly string[], fieldsAt: number, notPositive: ReplyError): number | ReplyError {
  if (argv[fieldsAt].toLowerCase() !== 'fields') return FIELDS_MISSING
  // Only `HGETEX key EX n FIELDS` gets here without a count; Redis would read past argv.
  if (fieldsAt + 1 >= argv.length) return wrongArity(ctx.name)
  const count = readInteger(argv[fieldsAt + 1])
  if (count === null || count < 1) return notPositive
  if (count !== argv.length - fieldsAt - 2) return NUMFIELDS_MISMATCH
  return count
}

// ---- HEXPIRE, HPEXPIRE, HEXPIREAT, HPEXPIREAT ----

function hexpire(ctx: CommandContext, argv: readonly string[]): Out {
  return expireFields(ctx, argv, 1000, true)
}

function hpexpire(ctx: CommandContext, argv: readonly string[]): Out {
  return expireFields(ctx, argv, 1, true)
}

function hexpireat(ctx: CommandContext, argv: readonly string[]): Out {
  return expireFields(ctx, argv, 1000, false)
}

function hpexpireat(ctx: CommandContext, argv: readonly string[]): Out {
  return expireFields(ctx, argv, 1, false)
}

/** `H[P]EXPIRE[AT] key time [NX | XX | GT | LT] FIELDS numfields field …` */
function expireFields(ctx: CommandContext, argv: readonly string[], unitMs: number, relative: boolean): Out {
  const key = argv[1]
  const hash = readHash(ctx, key)
  if (hash instanceof ReplyError) return hash
  const at = parseDeadline(ctx, argv[2], unitMs, relative)
  if (at instanceof ReplyError) return at
  const option = argv[3].toLowerCase()
  const condition = CONDITIONS.has(option) ? (option as Condition) : undefined
  const fieldsAt = condition === undefined ? 3 : 4
  const count = parseFieldCount(ctx, argv, fieldsAt, NUMFIELDS_NOT_POSITIVE_HEXPIRE)
  if (count instanceof ReplyError) return count
  if (hash === undefined) return new Array<Out>(count).fill(-2)
  hash.enableFieldExpiry()
  const codes: Out[] = []
  for (let i = fieldsAt + 2; i < argv.length; i++) codes.push(expireField(ctx, key, hash, argv[i], at, condition))
  // Redis 7.4's hashTypeSetExDone: `hdel` when a deadline already past deleted fields (then
  // `del` if none is left), else `hexpire` when a deadline was set.
  const deleted = codes.includes(2)
  if (deleted || codes.includes(1)) notify(ctx, NOTIFY_HASH, deleted ? 'hdel' : 'hexpire', key)
  deleteIfEmpty(ctx, key, hash)
  return codes
}

/**
 * One field of HEXPIRE: -2 missing, 0 condition not met, 2 deleted (deadline not in the
 * future), 1 set. A field without TTL counts as an infinite TTL for GT and LT, as documented.
 */
function expireField(ctx: CommandContext, key: string, hash: HashValue, field: string, at: number, condition: Condition | undefined): number {
  if (!hash.has(field)) return -2
  const previous = hash.deadlineOf(field)
  if (previous === undefined) {
    if (condition === 'xx' || condition === 'gt') return 0
  } else if (condition === 'nx' || (condition === 'gt' && previous >= at) || (condition === 'lt' && previous <= at)) {
    return 0
  }
  if (at <= ctx.now && !ctx.engine.loading) {
    hash.delete(field)
    return 2
  }
  setFieldDeadline(ctx, key, hash, field, at)
  return 1
}

function setFieldDeadline(ctx: CommandContext, key: string, hash: HashValue, field: string, at: number): void {
  hash.setDeadline(field, at)
  trackFieldDeadline(ctx.db, key, hash, at)
}

// ---- HTTL, HPTTL, HEXPIRETIME, HPEXPIRETIME ----

function httl(ctx: CommandContext, argv: readonly string[]): Out {
  return fieldTimes(ctx, argv, 1000, true)
}

function hpttl(ctx: CommandContext, argv: readonly string[]): Out {
  return fieldTimes(ctx, argv, 1, true)
}

function hexpiretime(ctx: CommandContext, argv: readonly string[]): Out {
  return fieldTimes(ctx, argv, 1000, false)
}

function hpexpiretime(ctx: CommandContext, argv: readonly string[]): Out {
  return fieldTimes(ctx, argv, 1, false)
}

/** Remaining TTL (relative) or deadline (absolute) per field; seconds are rounded up, as Redis does. */
function fieldTimes(ctx: CommandContext, argv: readonly string[], unitMs: number, relative: boolean): Out {
  const hash = readHash(ctx, argv[1])
  if (hash instanceof ReplyError) return hash
  const count = parseFieldCount(ctx, argv, 2, NUMFIELDS_NOT_POSITIVE)
  if (count instanceof ReplyError) return count
  if (hash === undefined) return new Array<Out>(count).fill(-2)
  const base = relative ? ctx.now : 0
  const times: Out[] = []
  for (let i = 4; i < argv.length; i++) {
    const field = argv[i]
    const at = hash.deadlineOf(field)
    if (!hash.has(field)) times.push(-2)
    else if (at === undefined) times.push(-1)
    else times.push(unitMs === 1 ? at - base : Math.floor((at + 999 - base) / 1000))
  }
  return times
}

// ---- HPERSIST ----

/** `HPERSIST key FIELDS numfields field …`: -2 missing, -1 no TTL, 1 TTL removed. */
function hpersist(ctx: CommandContext, argv: readonly string[]): Out {
  const hash = readHash(ctx, argv[1])
  if (hash instanceof ReplyError) return hash
  const count = parseFieldCount(ctx, argv, 2, NUMFIELDS_NOT_POSITIVE)
  if (count instanceof ReplyError) return count
  if (hash === undefined) return new Array<Out>(count).fill(-2)
  const codes: Out[] = []
  for (let i = 4; i < argv.length; i++) {
    const field = argv[i]
    codes.push(!hash.has(field) ? -2 : hash.persist(field) ? 1 : -1)
  }
  if (codes.includes(1)) notify(ctx, NOTIFY_HASH, 'hpersist', argv[1])
  return codes
}

// ---- HGETDEL, HGETEX (Redis 8.0) ----

/** `HGETDEL key FIELDS numfields field …`: the values (nil when missing), then the fields are gone. */
function hgetdel(ctx: CommandContext, argv: readonly string[]): Out {
  const key = argv[1]
  const hash = readHash(ctx, key)
  if (hash instanceof ReplyError) return hash
  const count = parseFieldCount(ctx, argv, 2, NUMFIELDS_NOT_POSITIVE)
  if (count instanceof ReplyError) return count
  if (hash === undefined) return new Array<Out>(count).fill(null)
  const values: Out[] = []
  for (let i = 4; i < argv.length; i++) {
    const value = hash.get(argv[i])
    if (value !== undefined) hash.delete(argv[i])
    values.push(value ?? null)
  }
  deleteIfEmpty(ctx, key, hash)
  return values
}

/**
 * `HGETEX key [EX s | PX ms | EXAT s | PXAT ms | PERSIST] FIELDS numfields field …`: the values,
 * and the TTL of each existing field set (deleted when due) or removed.
 */
function hgetex(ctx: CommandContext, argv: readonly string[]): Out {
  const key = argv[1]
  const hash = readHash(ctx, key)
  if (hash instanceof ReplyError) return hash
  const option = argv[2].toLowerCase()
  const unit = EXPIRY_UNITS.get(option)
  const persist = option === 'persist'
  let at: number | undefined
  let fieldsAt = 2
  if (unit !== undefined) {
    const parsed = parseDeadline(ctx, argv[3], unit.unitMs, unit.relative)
    if (parsed instanceof ReplyError) return parsed
    at = parsed
    fieldsAt = 4
  } else if (persist) {
    fieldsAt = 3
  }
  const count = parseFieldCount(ctx, argv, fieldsAt, NUMFIELDS_NOT_POSITIVE)
  if (count instanceof ReplyError) return count
  if (hash === undefined) return new Array<Out>(count).fill(null)
  if (at !== undefined || persist) hash.enableFieldExpiry()
  const values: Out[] = []
  for (let i = fieldsAt + 2; i < argv.length; i++) {
    const field = argv[i]
    const value = hash.get(field)
    values.push(value ?? null)
    if (value === undefined) continue
    if (persist) hash.persist(field)
    else if (at !== undefined && at <= ctx.now && !ctx.engine.loading) hash.delete(field)
    else if (at !== undefined) setFieldDeadline(ctx, key, hash, field, at)
  }
  deleteIfEmpty(ctx, key, hash)
  return values
}

// ---- HSETEX (Redis 8.0) ----

interface HsetexArguments {
  readonly condition: 'fnx' | 'fxx' | undefined
  /** The deadline for EX / PX / EXAT / PXAT. */
  readonly at: number | undefined
  readonly keepTtl: boolean
  readonly firstField: number
}

/**
 * `HSETEX key [FNX | FXX] [EX s | PX ms | EXAT s | PXAT ms | KEEPTTL] FIELDS numfields field value …`.
 * Options come in any order before FIELDS; FIELDS ends the options.
 */
function parseHsetex(ctx: CommandContext, argv: readonly string[]): HsetexArguments | ReplyError {
  let condition: 'fnx' | 'fxx' | undefined
  let at: number | undefined
  let keepTtl = false
  for (let i = 2; i < argv.length; i++) {
    const option = argv[i].toLowerCase()
    if (option === 'fields') {
      if (i >= argv.length - 3) return wrongArity(ctx.name)
      const count = readInteger(argv[i + 1])
      if (count === null || count < 1 || count > INT_MAX) return HSETEX_NUMFIELDS
      const remaining = argv.length - i - 2
      if (remaining % 2 !== 0 || count !== remaining / 2) return wrongArity(ctx.name)
      return { condition, at, keepTtl, firstField: i + 2 }
    }
    const unit = EXPIRY_UNITS.get(option)
    if (unit !== undefined) {
      if (at !== undefined || keepTtl) return HSETEX_ONE_EXPIRY
      if (i >= argv.length - 1) return MISSING_EXPIRE_TIME
      const parsed = parseDeadline(ctx, argv[++i], unit.unitMs, unit.relative)
      if (parsed instanceof ReplyError) return parsed
      at = parsed
    } else if (option === 'keepttl') {
      if (at !== undefined || keepTtl) return HSETEX_ONE_EXPIRY
      keepTtl = true
    } else if (option === 'fnx' || option === 'fxx') {
      if (condition !== undefined) return HSETEX_ONE_CONDITION
      condition = option
    } else {
      // addReplyErrorFormat: %s stops at a NUL byte, and line breaks become spaces.
      const shown = argv[i].split('\0', 1)[0].replace(LINE_BREAKS, ' ')
      return new ReplyError(`ERR unknown argument: ${shown}`)
    }
  }
  // Unreachable: the arity (-6) leaves no way to run out of arguments without an error above.
  return wrongArity(ctx.name)
}

/** Sets the fields (all or none under FNX/FXX) and replies 1, or 0 when the condition fails. */
function hsetex(ctx: CommandContext, argv: readonly string[]): Out {
  const parsed = parseHsetex(ctx, argv)
  if (parsed instanceof ReplyError) return parsed
  const { condition, at, keepTtl, firstField } = parsed
  const key = argv[1]
  const existing = readHash(ctx, key)
  if (existing instanceof ReplyError) return existing
  if (existing === undefined && condition === 'fxx') return 0
  if (condition !== undefined) {
    for (let i = firstField; i < argv.length; i += 2) {
      const exists = existing?.has(argv[i]) ?? false
      if (exists !== (condition === 'fxx')) return 0
    }
  }
  const limits = hashLimits(ctx)
  const hash = hashForWrite(ctx, key, existing)
  if (at !== undefined) hash.enableFieldExpiry()
  for (let i = firstField; i < argv.length; i += 2) {
    const field = argv[i]
    // With a new TTL or KEEPTTL the old TTL is not discarded by the write itself.
    hash.set(field, argv[i + 1], limits, at !== undefined || keepTtl)
    if (at === undefined) continue
    if (at <= ctx.now && !ctx.engine.loading) hash.delete(field)
    else setFieldDeadline(ctx, key, hash, field, at)
  }
  // A deadline already due deletes the fields just written, and maybe the whole hash.
  deleteIfEmpty(ctx, key, hash)
  return 1
}

/** Hash field-expiry commands (Redis 7.4 and 8.0). */
export const hashExpiryCommands: CommandTable = {
  hexpire,
  hpexpire,
  hexpireat,
  hpexpireat,
  httl,
  hpttl,
  hexpiretime,
  hpexpiretime,
  hpersist,
  hgetdel,
  hgetex,
  hsetex,
}
