/**
 * Values that cross module boundaries: commands going in, replies coming out.
 *
 * A reply keeps its RESP2 type so that every renderer (JSON envelope, RESP2 bytes, base64)
 * can be exact: a bulk string is bytes, a simple string is a {@link Status}, an error is a
 * {@link ReplyError}, integers beyond 2^53 are `bigint`.
 *
 */

/** Raw bytes. `Buffer` is a `Uint8Array` and is accepted everywhere bytes are. */
export type Bytes = Uint8Array

/**
 * One command word. A `string` is text and is sent as its UTF-8 bytes; pass `Bytes` for
 * binary data.
 * @public
 */
export type Arg = string | Bytes

/** A command: the name first, then its arguments, e.g. `["SET", "k", "v"]`. @public */
export type Command = readonly Arg[]

/** A RESP2 simple string such as `OK` or `PONG`. @public */
export class Status {
  constructor(
    /** The string without its `+` and `\r\n`, e.g. `OK`. */
    readonly text: string,
  ) {}
  /** The text, so a status prints as itself. */
  toString(): string {
    return this.text
  }
}

/**
 * A RESP2 error reply. `message` is the whole text as Redis writes it, code first:
 * `"ERR wrong number of arguments for 'get' command"`, `"WRONGTYPE …"`.
 *
 * Errors are values on the command path; an exception means a broken backend.
 * @public
 */
export class ReplyError {
  constructor(
    /** The error's text without its `-` and `\r\n`, code first. */
    readonly message: string,
  ) {}
  /** The leading word of the message: `ERR`, `WRONGTYPE`, `NOPERM`, … */
  get code(): string {
    const space = this.message.indexOf(' ')
    return space === -1 ? this.message : this.message.slice(0, space)
  }
  /** The message, so an error reply prints as Redis shows it. */
  toString(): string {
    return this.message
  }
}

/**
 * The RESP2 null array (`*-1`), which some commands (LMPOP, XREAD …) send where others send the
 * null bulk string (`$-1`, plain `null`). Kept apart so RESP2 output is byte-exact; JSON renders
 * both as `null`.
 * @public
 */
export const NULL_ARRAY: unique symbol = Symbol.for('restis.nullArray')

/** The type of {@link NULL_ARRAY}. @public */
export type NullArray = typeof NULL_ARRAY

/**
 * A RESP3 blob error (`!`): an error whose text may hold any byte, CR and LF included. In RESP2
 * it is written as a plain error, line breaks turned into spaces as Redis does.
 * @public
 */
export class BlobError extends ReplyError {}

/**
 * A RESP3 map (`%`): keys and values alternating, in the server's order (a key may be any
 * reply). In RESP2 it is the flat array of the same items, as Redis writes it there.
 * @public
 */
export class ReplyMap {
  constructor(
    /** Key, value, key, value…; always an even count. */
    readonly entries: readonly Reply[],
  ) {}
}

/** A RESP3 set (`~`). In RESP2, an array of the same items. @public */
export class ReplySet {
  constructor(readonly items: readonly Reply[]) {}
}

/**
 * A RESP3 push (`>`): out-of-band data such as a pub/sub message or an invalidation. In RESP2,
 * an array of the same items (Redis's pub/sub messages there).
 * @public
 */
export class ReplyPush {
  constructor(readonly items: readonly Reply[]) {}
}

/**
 * A RESP3 double (`,`), kept as the exact text that follows the comma (`3.14`, `inf`, `-inf`,
 * `nan`, `1.0000000000000001e+20`), so that a reply passed on is byte-identical. In RESP2, a
 * bulk string of that text, which is what Redis 7.0 sends there.
 * @public
 */
export class ReplyDouble {
  constructor(
    /** The number as written on the wire, without `,` and CRLF. */
    readonly text: string,
  ) {}
  /** The number: `Infinity`, `-Infinity` and `NaN` for `inf`, `-inf` and `nan`. */
  get value(): number {
    const text = this.text.toLowerCase()
    if (text === 'inf' || text === '+inf') return Infinity
    if (text === '-inf') return -Infinity
    return Number(text)
  }
}

/** A RESP3 big number (`(`): an integer of any size, as its decimal text. In RESP2, a bulk string. @public */
export class BigNumber {
  constructor(readonly text: string) {}
  /** The integer. */
  get value(): bigint {
    return BigInt(this.text)
  }
}

/**
 * A RESP3 verbatim string (`=`): text with a three-letter format (`txt`, `mkd`). In RESP2, a bulk
 * string of the text alone, as Redis sends INFO or CLIENT LIST there.
 * @public
 */
export class VerbatimString {
  constructor(
    /** Three characters: `txt` for plain text, `mkd` for markdown. */
    readonly format: string,
    /** The text, without its format prefix. */
    readonly text: Bytes,
  ) {}
}

/**
 * A reply that came with a RESP3 attribute (`|`): auxiliary key/value data a client may ignore.
 * In RESP2 only the reply is written, as Redis does.
 * @public
 */
export class AttributedReply {
  constructor(
    /** Key, value, key, value… */
    readonly attributes: readonly Reply[],
    readonly reply: Reply,
  ) {}
}

/**
 * A reply from a RESP2 or RESP3 server.
 * - `null`: null bulk string (RESP3 null `_` too); {@link NULL_ARRAY}: null array
 * - `number | bigint`: integer (`bigint` only outside the safe-integer range)
 * - `Bytes`: bulk string
 * - {@link Status}: simple string; {@link ReplyError}: error ({@link BlobError} for RESP3 `!`)
 * - array: nested replies
 * - RESP3 only: `boolean` (`#t` / `#f`), {@link ReplyMap}, {@link ReplySet}, {@link ReplyPush},
 *   {@link ReplyDouble}, {@link BigNumber}, {@link VerbatimString}, {@link AttributedReply}.
 *   The engines produce these only from a script run for a RESP3 caller (`CallContext.resp`);
 *   the RESP listener shapes other replies into them for RESP3 connections, and the reply
 *   decoder reads them.
 * @public
 */
export type Reply =
  | null
  | NullArray
  | number
  | bigint
  | Bytes
  | Status
  | ReplyError
  | readonly Reply[]
  | Resp3Reply

/** The reply types RESP3 added. @public */
export type Resp3Reply = boolean | ReplyMap | ReplySet | ReplyPush | ReplyDouble | BigNumber | VerbatimString | AttributedReply

/** True for a reply of a type only RESP3 has. @public */
export function isResp3Reply(reply: Reply): reply is Resp3Reply {
  return (
    typeof reply === 'boolean' ||
    reply instanceof ReplyMap ||
    reply instanceof ReplySet ||
    reply instanceof ReplyPush ||
    reply instanceof ReplyDouble ||
    reply instanceof BigNumber ||
    reply instanceof VerbatimString ||
    reply instanceof AttributedReply
  )
}

/**
 * A RESP3 reply as Redis writes the same data in RESP2: maps, sets and pushes as flat arrays,
 * doubles, big numbers and verbatim strings as bulk strings, booleans as 1 / 0, attributes
 * dropped, blob errors as plain errors (line breaks as spaces). Nested replies are converted too;
 * RESP2 replies are returned as they are.
 * @public
 */
export function toResp2(reply: Reply): Exclude<Reply, Resp3Reply> {
  if (typeof reply === 'boolean') return reply ? 1 : 0
  if (Array.isArray(reply)) {
    const items = reply as readonly Reply[]
    return items.some(needsResp2) ? items.map(toResp2) : items
  }
  if (reply instanceof ReplyMap) return reply.entries.map(toResp2)
  if (reply instanceof ReplySet || reply instanceof ReplyPush) return reply.items.map(toResp2)
  if (reply instanceof ReplyDouble || reply instanceof BigNumber) return textBytes(reply.text)
  if (reply instanceof VerbatimString) return reply.text
  if (reply instanceof AttributedReply) return toResp2(reply.reply)
  if (reply instanceof BlobError) return new ReplyError(reply.message.replace(/[\r\n]/g, ' '))
  return reply as Exclude<Reply, Resp3Reply>
}

/** A `Buffer` where there is one (as the decoders return), else plain bytes. */
function textBytes(text: string): Bytes {
  return typeof Buffer === 'function' ? Buffer.from(text, 'utf8') : utf8Encoder.encode(text)
}

function needsResp2(reply: Reply): boolean {
  if (Array.isArray(reply)) return (reply as readonly Reply[]).some(needsResp2)
  return isResp3Reply(reply) || reply instanceof BlobError
}

/** Shared simple strings, so hot paths allocate nothing. @public */
export const OK: Status = new Status('OK')
/** The simple string `PONG`, shared. @public */
export const PONG: Status = new Status('PONG')
/** The simple string `QUEUED` (a command queued in MULTI), shared. @public */
export const QUEUED: Status = new Status('QUEUED')

/** True for a bulk-string reply. @public */
export function isBytes(reply: Reply): reply is Bytes {
  return reply instanceof Uint8Array
}

/** True for an error reply. @public */
export function isReplyError(reply: unknown): reply is ReplyError {
  return reply instanceof ReplyError
}

const utf8Encoder = new TextEncoder()

/** The bytes of one command word: strings as UTF-8. @public */
export function argBytes(arg: Arg): Bytes {
  return typeof arg === 'string' ? utf8Encoder.encode(arg) : arg
}
