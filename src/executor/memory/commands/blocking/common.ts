/**
 * What every blocking command shares: Redis's timeout parsing (`timeout.c`), whether the caller
 * may block at all, and the registration of a client that waits (`blocking.ts`).
 */
import { ReplyError } from '../../../../reply.js'
import type { CommandContext, Out, Session } from '../../command.js'
import type { Engine } from '../../engine.js'
import type { BlockSpec } from '../../blocking.js'
import { TIMEOUT_NEGATIVE } from '../../errors.js'
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
