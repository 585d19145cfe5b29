/**
 * What every blocking command shares: Redis's timeout parsing (`timeout.c`), whether the caller
 * may block at all, and the registration of a client that waits (`blocking.ts`).
 */
import { NULL_ARRAY, ReplyError } from '../../../../reply.js'
import type { CommandContext, Out, Session } from '../../command.js'
import type { Engine } from '../../engine.js'
import type { BlockSpec } from '../../blocking.js'
import type { Value } from '../../keyspace.js'
import { COUNT_NOT_POSITIVE, NUMKEYS_NOT_POSITIVE, SYNTAX, TIMEOUT_NEGATIVE, WRONGTYPE } from '../../errors.js'
import { readInteger } from '../../lib/numbers.js'

const TIMEOUT_NOT_FLOAT = new ReplyError('ERR timeout is not a float or out of range')
const TIMEOUT_NOT_INTEGER = new ReplyError('ERR timeout is not an integer or out of range')
/** What `strtold` reads in full as a decimal or an infinity (Redis refuses NaN and leading space). */
const LONG_DOUBLE = /^[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity)$/i
const LONG_LONG_MAX = 2 ** 63 - 1

/**
 * A timeout in seconds, as a float (BLPOP, BZPOPMIN …): the milliseconds to wait, rounded up as
 * Redis rounds (`ceill(seconds * 1000)`); 0 waits forever.
 */
export function readSecondsTimeout(text: string): number | ReplyError {
  if (text.length === 0 || text.length > 5120 || !LONG_DOUBLE.test(text)) return TIMEOUT_NOT_FLOAT
  const ms = Math.ceil(Number(text.replace(/^([+-]?)inf(inity)?$/i, '$1Infinity')) * 1000)
  // Past LLONG_MAX (an infinity included) the conversion Redis makes lands on a negative value.
  if (ms < 0 || !(ms <= LONG_LONG_MAX)) return TIMEOUT_NEGATIVE
  return ms === 0 ? 0 : ms
}

/** A timeout in milliseconds, as an integer (XREAD BLOCK, WAIT). */
export function readMillisecondsTimeout(text: string): number | ReplyError {
  const ms = readInteger(text)
  if (ms === null) return TIMEOUT_NOT_INTEGER
  if (ms < 0) return TIMEOUT_NEGATIVE
  return ms
}

/**
 * Whether the command may block: only on a connection whose caller waits for the reply, and
 * never inside MULTI/EXEC or a script (Redis's CLIENT_DENY_BLOCKING), where a blocking command
 * that finds nothing answers as if its time had run out.
 */
export function mayBlock(ctx: CommandContext): boolean {
  return ctx.session.canBlock === true && ctx.session.script === undefined && !ctx.engine.inTransaction
}

/**
 * Blocks the client of `ctx` on `spec`. The reply returned here is a placeholder the executor
 * session replaces with the blocked call's eventual reply.
 */
export function blockClient(ctx: CommandContext, spec: BlockSpec): Out {
  ctx.engine.blocking.block(ctx.session, ctx.db.index, spec, ctx.name)
  return spec.timedOut
}

/** Who a blocked command is served for: its engine, session and database index. */
export interface Client {
  readonly engine: Engine
  readonly session: Session
  readonly db: number
}

export function clientOf(ctx: CommandContext): Client {
  return { engine: ctx.engine, session: ctx.session, db: ctx.db.index }
}

/**
 * The size of `value` when it has the type a blocking pop serves, else undefined (WRONGTYPE).
 */
export type SizeOfServed = (value: Value) => number | undefined

/**
 * Looks at `keys` in order as Redis does: the first that holds a non-empty value of the served
 * type, WRONGTYPE at the first other value, or undefined when none has one.
 */
function firstServable(ctx: CommandContext, keys: readonly string[], sizeOf: SizeOfServed): string | ReplyError | undefined {
  for (const key of keys) {
    const value = ctx.db.read(key, ctx)
    if (value === undefined) continue
    const size = sizeOf(value)
    if (size === undefined) return WRONGTYPE
    if (size !== 0) return key
  }
  return undefined
}

/**
 * BLPOP, BRPOP, BLMPOP, BZPOPMIN, BZPOPMAX and BZMPOP once their arguments are read: serve the
 * first key that has something now, or block on all of them (`pop` answers undefined when its
 * key had nothing).
 */
export function blockingPop(
  ctx: CommandContext,
  keys: readonly string[],
  kind: BlockSpec['kind'],
  timeout: number,
  sizeOf: SizeOfServed,
  pop: (client: Client, key: string) => Out | undefined,
): Out {
  const found = firstServable(ctx, keys, sizeOf)
  if (found instanceof ReplyError) return found
  const client = clientOf(ctx)
  if (found !== undefined) return pop(client, found) ?? NULL_ARRAY
  if (!mayBlock(ctx)) return NULL_ARRAY
  return blockClient(ctx, { kind, keys, timeout, timedOut: NULL_ARRAY, serve: (key) => pop(client, key) })
}

/** What BLMPOP and BZMPOP read before they run. */
export interface MpopArguments<End> {
  readonly keys: readonly string[]
  readonly end: End
  /** The COUNT given, or 1. */
  readonly count: number
  readonly timeout: number
}

/**
 * `timeout numkeys key [key ...] <end> [COUNT count]` of BLMPOP and BZMPOP, checked in Redis's
 * order: numkeys, the end word and COUNT before the timeout.
 */
export function readMpopArguments<End>(argv: readonly string[], readEnd: (word: string) => End | null): MpopArguments<End> | ReplyError {
  const numKeys = readInteger(argv[2])
  if (numKeys === null || numKeys < 1) return NUMKEYS_NOT_POSITIVE
  const endAt = 3 + numKeys
  if (endAt >= argv.length) return SYNTAX
  const end = readEnd(argv[endAt])
  if (end === null) return SYNTAX
  let count = -1
  for (let j = endAt + 1; j < argv.length; j++) {
    if (count === -1 && argv[j].toLowerCase() === 'count' && j + 1 < argv.length) {
      const parsed = readInteger(argv[++j])
      if (parsed === null || parsed < 1) return COUNT_NOT_POSITIVE
      count = parsed
    } else return SYNTAX
  }
  const timeout = readSecondsTimeout(argv[1])
  if (timeout instanceof ReplyError) return timeout
  return { keys: argv.slice(3, endAt), end, count: count === -1 ? 1 : count, timeout }
}
