import { OK, ReplyError } from '../../../../reply.js'
import { NOTIFY_GENERIC, NOTIFY_STRING, notify } from '../../notify.js'
import type { CommandContext, Out } from '../../command.js'
import { NOT_INTEGER, SYNTAX, invalidExpire } from '../../errors.js'
import { readInt64 } from '../../lib/numbers.js'
import { readString } from './value.js'
import { conditionHolds, isConditionKind, readCondition, type ValueCondition } from './conditional.js'

/**
 * SET and the commands sharing its machinery in Redis 7.0 (`setGenericCommand`,
 * `parseExtendedStringArgumentsOrReply`, `getExpireMillisecondsOrReply` in t_string.c):
 * SETNX, SETEX, PSETEX and GETEX; with Redis 8.4's IFEQ / IFNE / IFDEQ / IFDNE conditions on SET
 * (strings/conditional.ts).
 */

export type ExpireOption = 'EX' | 'PX' | 'EXAT' | 'PXAT'

interface ExtendedOptions {
  nx: boolean
  xx: boolean
  get: boolean
  keepTtl: boolean
  persist: boolean
  expire?: { readonly option: ExpireOption; readonly amount: string }
  /** SET's Redis 8.4 compare-and-set condition; excludes NX, XX and any other condition. */
  condition?: ValueCondition
}

const INT64_MAX = 2n ** 63n - 1n
const MAX_SECONDS = INT64_MAX / 1000n

/**
 * Options of SET (`forSet`) or GETEX, with Redis's acceptance rules: NX and XX exclude each
 * other, and the IF* conditions exclude both and each other (Redis 8.4); KEEPTTL (SET) and
 * PERSIST (GETEX) exclude every expire option; one kind of expire
 * option only, though the same one may repeat (the last wins); any option may repeat. An expire
 * option without a value, or anything else, is a syntax error. Values are read later, after
 * every option has been accepted, as Redis does.
 */
function parseExtendedOptions(argv: readonly string[], from: number, forSet: boolean): ExtendedOptions | ReplyError {
  const options: ExtendedOptions = { nx: false, xx: false, get: false, keepTtl: false, persist: false }
  for (let i = from; i < argv.length; i++) {
    const option = argv[i].toUpperCase()
    const hasValue = i + 1 < argv.length
    const expireKind = options.expire?.option
    const exclusive = options.condition === undefined
    if (forSet && option === 'NX' && !options.xx && exclusive) options.nx = true
    else if (forSet && option === 'XX' && !options.nx && exclusive) options.xx = true
    else if (forSet && isConditionKind(option) && !options.nx && !options.xx && exclusive && hasValue) {
      const condition = readCondition(option, argv[++i])
      if (condition instanceof ReplyError) return condition
      options.condition = condition
    }
    else if (forSet && option === 'GET') options.get = true
    else if (forSet && option === 'KEEPTTL' && expireKind === undefined) options.keepTtl = true
    else if (!forSet && option === 'PERSIST' && expireKind === undefined) options.persist = true
    else if (
      (option === 'EX' || option === 'PX' || option === 'EXAT' || option === 'PXAT') &&
      !options.keepTtl &&
      !options.persist &&
      (expireKind === undefined || expireKind === option) &&
      hasValue
    ) {
      options.expire = { option, amount: argv[++i] }
    } else {
      return SYNTAX
    }
  }
  return options
}

/**
 * The absolute deadline in ms of an expire option, or its error: not an integer; not positive,
 * or seconds that overflow when turned into ms; or a deadline past INT64_MAX once `now` is added
 * (Redis sees the signed overflow as a negative time). Deadlines beyond 2^53 are kept as the
 * nearest double.
 */
export function expireAt(ctx: CommandContext, option: ExpireOption, text: string): number | ReplyError {
  const amount = readInt64(text)
  if (amount === null) return NOT_INTEGER
  const inSeconds = option === 'EX' || option === 'EXAT'
  if (amount <= 0n || (inSeconds && amount > MAX_SECONDS)) return invalidExpire(ctx.name)
  let at = inSeconds ? amount * 1000n : amount
  if (option === 'EX' || option === 'PX') at += BigInt(ctx.now)
  if (at > INT64_MAX) return invalidExpire(ctx.name)
  return Number(at)
}

/**
 * The core of SET, SETNX, SETEX and PSETEX. Order as in Redis: the expire value is checked
 * first, then GET reads the old value (WRONGTYPE stops everything), then NX/XX decide. A write
 * drops the TTL unless KEEPTTL; with GET the reply is the old value whether or not it wrote.
 */
function setGeneric(ctx: CommandContext, key: string, value: string, options: ExtendedOptions, written: Out, skipped: Out): Out {
  let at: number | undefined
  if (options.expire !== undefined) {
    const deadline = expireAt(ctx, options.expire.option, options.expire.amount)
    if (typeof deadline !== 'number') return deadline
    at = deadline
  }
  let old: string | undefined
  if (options.get) {
    const current = readString(ctx, key)
    if (current instanceof ReplyError) return current
    old = current
  }
  if (options.condition !== undefined) {
    const holds = conditionHolds(ctx, key, options.condition)
    if (holds instanceof ReplyError) return holds
    if (!holds) return options.get ? old ?? null : skipped
  }
  const found = ctx.db.read(key, ctx) !== undefined
  if ((options.nx && found) || (options.xx && !found)) return options.get ? old ?? null : skipped
  if (options.keepTtl) ctx.db.update(key, value)
  else ctx.db.set(key, value)
  // A deadline already past is stored as is: the key then expires on its next access (Redis 7.0).
  if (at !== undefined) ctx.db.setExpire(key, at)
  notify(ctx, NOTIFY_STRING, 'set', key)
  if (at !== undefined) notify(ctx, NOTIFY_GENERIC, 'expire', key)
  return options.get ? old ?? null : written
}

/** SET key value [NX | XX | IFEQ v | IFNE v | IFDEQ digest | IFDNE digest] [GET] [EX s | PX ms | EXAT ts | PXAT ms-ts | KEEPTTL] */
export function set(ctx: CommandContext, argv: readonly string[]): Out {
  if (argv.length === 3) {
    // No option: setGeneric's lookup only matters for a key whose TTL has passed.
    ctx.db.reclaimIfExpired(argv[1], ctx)
    ctx.db.set(argv[1], argv[2])
    notify(ctx, NOTIFY_STRING, 'set', argv[1])
    return OK
  }
  const options = parseExtendedOptions(argv, 3, true)
  if (options instanceof ReplyError) return options
  return setGeneric(ctx, argv[1], argv[2], options, OK, null)
}

/** SETNX key value: 1 when set, 0 when the key existed. */
export function setnx(ctx: CommandContext, argv: readonly string[]): Out {
  return setGeneric(ctx, argv[1], argv[2], { ...noOptions(), nx: true }, 1, 0)
}

/** SETEX key seconds value */
export function setex(ctx: CommandContext, argv: readonly string[]): Out {
  return setGeneric(ctx, argv[1], argv[3], { ...noOptions(), expire: { option: 'EX', amount: argv[2] } }, OK, null)
}

/** PSETEX key milliseconds value */
export function psetex(ctx: CommandContext, argv: readonly string[]): Out {
  return setGeneric(ctx, argv[1], argv[3], { ...noOptions(), expire: { option: 'PX', amount: argv[2] } }, OK, null)
}

/**
 * GETEX key [EX s | PX ms | EXAT ts | PXAT ms-ts | PERSIST]: the value, then the TTL change.
 * Options are checked first; a missing key is nil and a wrong type WRONGTYPE before the expire
 * value is read. An EXAT/PXAT deadline already past deletes the key (after replying its value).
 */
export function getex(ctx: CommandContext, argv: readonly string[]): Out {
  const options = parseExtendedOptions(argv, 2, false)
  if (options instanceof ReplyError) return options
  const key = argv[1]
  const value = readString(ctx, key)
  if (value === undefined) return null
  if (value instanceof ReplyError) return value
  if (options.expire !== undefined) {
    const { option, amount } = options.expire
    const at = expireAt(ctx, option, amount)
    if (typeof at !== 'number') return at
    if ((option === 'EXAT' || option === 'PXAT') && at <= ctx.now && !ctx.engine.loading) {
      ctx.db.remove(key)
      notify(ctx, NOTIFY_GENERIC, 'del', key)
    } else {
      ctx.db.setExpire(key, at)
      notify(ctx, NOTIFY_GENERIC, 'expire', key)
    }
  } else if (options.persist) {
    if (ctx.db.persist(key)) notify(ctx, NOTIFY_GENERIC, 'persist', key)
  }
  return value
}

function noOptions(): ExtendedOptions {
  return { nx: false, xx: false, get: false, keepTtl: false, persist: false }
}
