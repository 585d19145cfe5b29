/**
 * Reply-size accounting: how much one request may receive, charged while replies are built.
 *
 * Redis streams a reply into the client's output buffer as it builds it, so a command such as
 * `SRANDMEMBER key -10000000` costs it memory in proportion to the bytes sent. This engine builds
 * each reply whole, then the executor converts it and the gateway renders it: every element costs
 * a few hundred bytes of heap along the way, and a 65-byte pipeline could ask for tens of millions
 * of them. So replies are bounded, in elements and in bytes, per request:
 *
 * - commands whose reply size an argument sets (the RAND* commands with a count) or that answer a
 *   whole collection or a range of it check the room left BEFORE building anything, and charge
 *   what they built;
 * - the engine charges bulk-string replies after every command, and refuses an array reply
 *   longer than the element limit (a second line for the commands that do not charge: it cannot
 *   stop them from building, only from being delivered).
 *
 * A request is a pipeline or a transaction of the memory executor (its commands share one
 * {@link ReplyBudget} on their session); a command alone, or one on the RESP listener, gets
 * the whole limits for itself.
 */
import { ReplyError } from '../../reply.js'
import type { CommandContext, Session } from './command.js'

/** What a request may still receive. Mutable: charges subtract from it. */
export interface ReplyBudget {
  /** Elements (array items, at any depth) still allowed. */
  elements: number
  /** Bytes of bulk strings still allowed. */
  bytes: number
}

/** The limits of one engine (`EngineOptions.maxReplyElements`, `maxReplyBytes`). */
export interface ReplyLimits {
  readonly maxReplyElements: number
  readonly maxReplyBytes: number
}

/** Default of `EngineOptions.maxReplyElements`: 2^20 elements (~200 MiB of heap once rendered as JSON). */
export const DEFAULT_MAX_REPLY_ELEMENTS = 2 ** 20
/** Default of `EngineOptions.maxReplyBytes`: 512 MiB, Redis's `proto-max-bulk-len`. */
export const DEFAULT_MAX_REPLY_BYTES = 512 * 2 ** 20

/** Bulk-string replies shorter than this are not charged: one subtraction would cost GET more than it saves. */
export const UNCHARGED_STRING_BYTES = 256

/** A new budget holding the full limits, for a request. */
export function requestBudget(limits: ReplyLimits): ReplyBudget {
  return { elements: limits.maxReplyElements, bytes: limits.maxReplyBytes }
}

/** The room left for the command in `ctx`: its request's budget, or the full limits for a command alone. */
export function replyRoom(ctx: CommandContext): ReplyBudget {
  return ctx.session.replyBudget ?? requestBudget(ctx.engine)
}

/** `ERR reply exceeds … elements …`: the reply would pass the element limit. */
export function tooManyElements(limits: ReplyLimits): ReplyError {
  return new ReplyError(
    `ERR reply exceeds the limit of ${limits.maxReplyElements} elements per request (maxReplyElements of the in-memory engine); ask for fewer`,
  )
}

/** `ERR reply exceeds … bytes …`: the reply would pass the byte limit. */
export function tooManyBytes(limits: ReplyLimits): ReplyError {
  return new ReplyError(
    `ERR reply exceeds the limit of ${limits.maxReplyBytes} bytes per request (maxReplyBytes of the in-memory engine); ask for less`,
  )
}

/**
 * Refuses a reply of `elements` elements before it is built (null: it fits). Charges nothing:
 * call {@link chargeReply} with what was built.
 */
export function checkElements(ctx: CommandContext, elements: number): ReplyError | null {
  return elements > replyRoom(ctx).elements ? tooManyElements(ctx.engine) : null
}

/** Charges a built reply to the request's budget; an error when it does not fit. */
export function chargeReply(session: Session, limits: ReplyLimits, elements: number, bytes: number): ReplyError | null {
  const budget = session.replyBudget
  if (budget === undefined) {
    if (elements > limits.maxReplyElements) return tooManyElements(limits)
    return bytes > limits.maxReplyBytes ? tooManyBytes(limits) : null
  }
  if (elements > budget.elements) return tooManyElements(limits)
  if (bytes > budget.bytes) return tooManyBytes(limits)
  budget.elements -= elements
  budget.bytes -= bytes
  return null
}

/** Bytes of the strings among `items` (one level): what a flat reply of members costs. */
export function stringBytes(items: readonly unknown[]): number {
  let bytes = 0
  for (let i = 0; i < items.length; i++) {
    const item = items[i]
    if (typeof item === 'string') bytes += item.length
  }
  return bytes
}

/**
 * Charges a flat reply of strings built by the command in `ctx` and returns it, or the error
 * when it does not fit.
 */
export function chargedReply<T extends readonly unknown[]>(ctx: CommandContext, items: T): T | ReplyError {
  const refused = chargeReply(ctx.session, ctx.engine, items.length, stringBytes(items))
  return refused ?? items
}

/**
 * A random sample with repetition (the RAND* commands with a negative count): `count` picks,
 * each pushing `width` strings (a member, or a member and its score or value). Refused before
 * anything is built when its elements do not fit, and as soon as its bytes stop fitting; the
 * built sample is charged.
 */
export function chargedSample(ctx: CommandContext, count: number, width: 1 | 2, pick: (out: string[]) => void): string[] | ReplyError {
  const elements = count * width
  const room = replyRoom(ctx)
  if (elements > room.elements) return tooManyElements(ctx.engine)
  const out: string[] = []
  let bytes = 0
  for (let n = count; n > 0; n--) {
    const from = out.length
    pick(out)
    for (let i = from; i < out.length; i++) bytes += out[i].length
    if (bytes > room.bytes) return tooManyBytes(ctx.engine)
  }
  return chargeReply(ctx.session, ctx.engine, elements, bytes) ?? out
}
