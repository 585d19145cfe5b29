/**
 * RESP2 encoding: commands as a client writes them, replies as a server writes them.
 *
 * Every encoder measures first and then writes into one `Buffer.allocUnsafe` of the exact size,
 * so a command or a whole pipeline costs a single allocation and no intermediate strings.
 *
 */

import { isResp3Reply, NULL_ARRAY, OK, ReplyError, Status, toResp2, type Command, type Reply } from '../reply.js'
import { asBuffer, CR, LF } from './protocol.js'
import { resp3ByteLength, writeResp3 } from './encode3.js'

const STAR = 42
const DOLLAR = 36
const PLUS = 43
const MINUS = 45
const COLON = 58

/**
 * Up to these lengths a JS loop beats the native call behind `Buffer#write` / `Uint8Array#set`
 * (measured on Node 20: the crossover is ~24 chars for strings, ~8 bytes for byte arrays).
 */
const SHORT_STRING = 24
const SHORT_BYTES = 8

/**
 * Byte lengths of the arguments being encoded, filled by the measuring pass and read by the
 * writing pass, so UTF-8 lengths are computed once. Shared: encoding is synchronous.
 */
let argLengths: number[] = []

/** @internal */
export function digitCount(n: number): number {
  if (n < 10) return 1
  if (n < 100) return 2
  if (n < 1000) return 3
  if (n < 10000) return 4
  if (n < 100000) return 5
  return String(n).length
}

/** Writes a non-negative safe integer in decimal, returning the offset after it. */
/** @internal */
export function writeDecimal(out: Buffer, offset: number, n: number): number {
  const end = offset + digitCount(n)
  let at = end
  do {
    const q = Math.floor(n / 10)
    out[--at] = 48 + (n - q * 10) // parenthesised: 48 + n could exceed 2^53 and round
    n = q
  } while (n > 0)
  return end
}

/** UTF-8 length of `s`; equal to `s.length` exactly when `s` is ASCII. */
function utf8Length(s: string): number {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x80) return Buffer.byteLength(s, 'utf8')
  return s.length
}

function writeText(out: Buffer, offset: number, s: string, byteLength: number): void {
  if (byteLength !== s.length) out.write(s, offset, byteLength, 'utf8')
  else if (byteLength > SHORT_STRING) out.write(s, offset, byteLength, 'latin1')
  else for (let i = 0; i < byteLength; i++) out[offset + i] = s.charCodeAt(i)
}

/** @internal */
export function writeBytes(out: Buffer, offset: number, bytes: Uint8Array): void {
  if (bytes.length > SHORT_BYTES) out.set(bytes, offset)
  else for (let i = 0; i < bytes.length; i++) out[offset + i] = bytes[i]
}

/** `<type><n>\r\n`, the header of arrays and bulk strings. */
/** @internal */
export function writeHeader(out: Buffer, offset: number, type: number, n: number): number {
  out[offset] = type
  offset = writeDecimal(out, offset + 1, n)
  out[offset] = CR
  out[offset + 1] = LF
  return offset + 2
}

/** @internal */
export function headerLength(n: number): number {
  return digitCount(n) + 3
}

/** Measures `command`, recording argument lengths in `argLengths` from `base`. */
function measureCommand(command: Command, base: number): number {
  let size = headerLength(command.length)
  for (let i = 0; i < command.length; i++) {
    const arg = command[i]
    const length = typeof arg === 'string' ? utf8Length(arg) : arg.length
    argLengths[base + i] = length
    size += headerLength(length) + length + 2
  }
  return size
}

function writeCommand(command: Command, out: Buffer, offset: number, base: number): number {
  offset = writeHeader(out, offset, STAR, command.length)
  for (let i = 0; i < command.length; i++) {
    const arg = command[i]
    const length = argLengths[base + i]
    offset = writeHeader(out, offset, DOLLAR, length)
    if (typeof arg === 'string') writeText(out, offset, arg, length)
    else writeBytes(out, offset, arg)
    offset += length
    out[offset] = CR
    out[offset + 1] = LF
    offset += 2
  }
  return offset
}

/** Lets a one-off huge command's scratch space go. */
function releaseScratch(): void {
  if (argLengths.length > 65536) argLengths = []
}

/**
 * A command as a RESP array of bulk strings, the form every Redis client sends.
 * String arguments are sent as UTF-8.
 * @public
 */
export function encodeCommand(command: Command): Buffer {
  const out = Buffer.allocUnsafe(measureCommand(command, 0))
  writeCommand(command, out, 0, 0)
  releaseScratch()
  return out
}

/**
 * Several commands in one buffer, so a pipeline goes out in one write.
 * @public
 */
export function encodeCommands(commands: readonly Command[]): Buffer {
  let size = 0
  let base = 0
  for (const command of commands) {
    size += measureCommand(command, base)
    base += command.length
  }
  const out = Buffer.allocUnsafe(size)
  let offset = 0
  base = 0
  for (const command of commands) {
    offset = writeCommand(command, out, offset, base)
    base += command.length
  }
  releaseScratch()
  return out
}

const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n

/** The decimal text of an integer reply too large for the fast path; refuses what RESP cannot carry. */
/** @internal */
export function bigIntegerText(n: number | bigint): string {
  if (typeof n === 'number' && !Number.isInteger(n)) throw new RangeError(`Not an integer reply: ${n}`)
  const big = BigInt(n)
  if (big < INT64_MIN || big > INT64_MAX) throw new RangeError(`Integer reply out of 64-bit range: ${n}`)
  return big.toString()
}

/** A simple string or error must stay on one line; Redis too turns CR/LF in errors into spaces. */
/** @internal */
export function lineText(text: string): string {
  return text.includes('\r') || text.includes('\n') ? text.replace(/[\r\n]/g, ' ') : text
}

/**
 * Bytes {@link writeReply} will write for `reply`.
 * @throws RangeError for a number that is not an integer in the 64-bit range; TypeError for a non-reply.
 * @public
 */
export function replyByteLength(reply: Reply): number {
  if (reply instanceof Uint8Array) return headerLength(reply.length) + reply.length + 2
  if (typeof reply === 'number' && Number.isSafeInteger(reply)) {
    return (reply < 0 ? digitCount(-reply) + 1 : digitCount(reply)) + 3
  }
  if (typeof reply === 'number' || typeof reply === 'bigint') return bigIntegerText(reply).length + 3
  if (reply === null || reply === NULL_ARRAY) return 5
  if (Array.isArray(reply)) {
    let size = headerLength(reply.length)
    for (const item of reply as readonly Reply[]) size += replyByteLength(item)
    return size
  }
  if (reply instanceof Status) return Buffer.byteLength(lineText(reply.text), 'utf8') + 3
  if (reply instanceof ReplyError) return Buffer.byteLength(lineText(reply.message), 'utf8') + 3
  if (isResp3Reply(reply)) return replyByteLength(toResp2(reply))
  throw new TypeError(`Not a RESP reply: ${String(reply)}`)
}

/** @internal */
export function writeLine(out: Buffer, offset: number, type: number, text: string): number {
  out[offset++] = type
  offset += out.write(text, offset, 'utf8')
  out[offset] = CR
  out[offset + 1] = LF
  return offset + 2
}

const OK_BYTES = Buffer.from('+OK\r\n')
const NULL_BULK_BYTES = Buffer.from('$-1\r\n')
const NULL_ARRAY_BYTES = Buffer.from('*-1\r\n')

/** Five bytes by hand: a native `write` or `set` costs more than the copy itself. */
function writeConstant(out: Buffer, offset: number, bytes: Buffer): number {
  for (let i = 0; i < bytes.length; i++) out[offset + i] = bytes[i]
  return offset + bytes.length
}

function writeAny(reply: Reply, out: Buffer, offset: number): number {
  if (reply instanceof Uint8Array) {
    offset = writeHeader(out, offset, DOLLAR, reply.length)
    writeBytes(out, offset, reply)
    offset += reply.length
    out[offset] = CR
    out[offset + 1] = LF
    return offset + 2
  }
  if (typeof reply === 'number' && Number.isSafeInteger(reply)) {
    out[offset++] = COLON
    if (reply < 0) out[offset++] = MINUS
    offset = writeDecimal(out, offset, Math.abs(reply))
    out[offset] = CR
    out[offset + 1] = LF
    return offset + 2
  }
  if (typeof reply === 'number' || typeof reply === 'bigint') return writeLine(out, offset, COLON, bigIntegerText(reply))
  if (reply === null) return writeConstant(out, offset, NULL_BULK_BYTES)
  if (reply === NULL_ARRAY) return writeConstant(out, offset, NULL_ARRAY_BYTES)
  if (Array.isArray(reply)) {
    offset = writeHeader(out, offset, STAR, reply.length)
    for (const item of reply as readonly Reply[]) offset = writeAny(item, out, offset)
    return offset
  }
  if (reply === OK) return writeConstant(out, offset, OK_BYTES)
  if (reply instanceof Status) return writeLine(out, offset, PLUS, lineText(reply.text))
  if (reply instanceof ReplyError) return writeLine(out, offset, MINUS, lineText(reply.message))
  if (isResp3Reply(reply)) return writeAny(toResp2(reply), out, offset)
  throw new TypeError(`Not a RESP reply: ${String(reply)}`)
}

/**
 * Writes `reply` into `out` at `offset`, which must have {@link replyByteLength} bytes free, and
 * returns the offset after it. For servers that gather several replies into one buffer.
 * @public
 */
export function writeReply(reply: Reply, out: Uint8Array, offset: number): number {
  return writeAny(reply, asBuffer(out), offset)
}

/**
 * A reply in the exact bytes Redis would send: `+OK\r\n`, `-ERR …\r\n`, `:1\r\n`, `$-1\r\n` for
 * `null`, `*-1\r\n` for {@link NULL_ARRAY}, bulk strings and nested arrays. A RESP3 type is
 * written as Redis writes the same data in RESP2 (see `toResp2`); {@link encodeResp3Reply}
 * writes RESP3.
 * @throws RangeError for a number that is not an integer in the 64-bit range; TypeError for a non-reply.
 * @public
 */
export function encodeReply(reply: Reply): Buffer {
  const out = Buffer.allocUnsafe(replyByteLength(reply))
  writeAny(reply, out, 0)
  return out
}

/**
 * Several replies back to back in one buffer: the answer to a pipeline in one write.
 * @public
 */
export function encodeReplies(replies: readonly Reply[]): Buffer {
  let size = 0
  for (const reply of replies) size += replyByteLength(reply)
  const out = Buffer.allocUnsafe(size)
  let offset = 0
  for (const reply of replies) offset = writeAny(reply, out, offset)
  return out
}

/**
 * A reply in RESP3, as Redis writes it to a connection that said `HELLO 3`: both nulls as
 * `_\r\n`, maps `%`, sets `~`, pushes `>`, doubles `,`, booleans `#`, big numbers `(`, verbatim
 * strings `=`, attributes `|`, blob errors `!`.
 * @throws RangeError for a number that is not an integer in the 64-bit range; TypeError for a
 * non-reply or a map with an odd number of items.
 * @public
 */
export function encodeResp3Reply(reply: Reply): Buffer {
  const out = Buffer.allocUnsafe(resp3ByteLength(reply))
  writeResp3(reply, out, 0)
  return out
}

/** Several RESP3 replies back to back in one buffer. @public */
export function encodeResp3Replies(replies: readonly Reply[]): Buffer {
  let size = 0
  for (const reply of replies) size += resp3ByteLength(reply)
  const out = Buffer.allocUnsafe(size)
  let offset = 0
  for (const reply of replies) offset = writeResp3(reply, out, offset)
  return out
}
