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
 * A reply from a RESP2 server.
 * - `null`: null bulk string; {@link NULL_ARRAY}: null array
 * - `number | bigint`: integer (`bigint` only outside the safe-integer range)
 * - `Bytes`: bulk string
 * - {@link Status}: simple string; {@link ReplyError}: error
 * - array: nested replies
 * @public
 */
export type Reply = null | NullArray | number | bigint | Bytes | Status | ReplyError | readonly Reply[]

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
