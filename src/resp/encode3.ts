/**
 * RESP3 reply encoding: what a server writes to a connection that said `HELLO 3`.
 *
 * The same measure-then-write scheme as the RESP2 encoder (one allocation per reply or
 * pipeline); the scalar pieces are shared with it. Both nulls are `_`, and the types RESP3 added
 * get their own type bytes.
 */

import {
  AttributedReply,
  BigNumber,
  BlobError,
  NULL_ARRAY,
  ReplyDouble,
  ReplyError,
  ReplyMap,
  ReplyPush,
  ReplySet,
  Status,
  VerbatimString,
  type Reply,
} from '../reply.js'
import { bigIntegerText, digitCount, headerLength, lineText, writeBytes, writeDecimal, writeHeader, writeLine } from './encode.js'
import { CR, LF } from './protocol.js'

const enum Type {
  Array = 42, // *
  Bulk = 36, // $
  Status = 43, // +
  Error = 45, // -
  Integer = 58, // :
  Null = 95, // _
  Double = 44, // ,
  Boolean = 35, // #
  BlobError = 33, // !
  Verbatim = 61, // =
  BigNumber = 40, // (
  Map = 37, // %
  Set = 126, // ~
  Attribute = 124, // |
  Push = 62, // >
}

const utf8 = new TextEncoder()

/** Bytes {@link writeResp3} writes for `reply`. @internal */
export function resp3ByteLength(reply: Reply): number {
  if (reply instanceof Uint8Array) return headerLength(reply.length) + reply.length + 2
  if (typeof reply === 'number' && Number.isSafeInteger(reply)) return (reply < 0 ? digitCount(-reply) + 1 : digitCount(reply)) + 3
  if (typeof reply === 'number' || typeof reply === 'bigint') return bigIntegerText(reply).length + 3
  if (reply === null || reply === NULL_ARRAY) return 3
  if (Array.isArray(reply)) return aggregateLength(reply as readonly Reply[], reply.length)
  if (reply instanceof Status) return Buffer.byteLength(lineText(reply.text), 'utf8') + 3
  if (reply instanceof BlobError) {
    const length = Buffer.byteLength(reply.message, 'utf8')
    return headerLength(length) + length + 2
  }
  if (reply instanceof ReplyError) return Buffer.byteLength(lineText(reply.message), 'utf8') + 3
  if (typeof reply === 'boolean') return 4
  if (reply instanceof ReplyMap) return aggregateLength(reply.entries, reply.entries.length / 2)
  if (reply instanceof ReplySet || reply instanceof ReplyPush) return aggregateLength(reply.items, reply.items.length)
  if (reply instanceof ReplyDouble || reply instanceof BigNumber) return Buffer.byteLength(lineText(reply.text), 'utf8') + 3
  if (reply instanceof VerbatimString) {
    const length = reply.text.length + 4
    return headerLength(length) + length + 2
  }
  if (reply instanceof AttributedReply) {
    return aggregateLength(reply.attributes, reply.attributes.length / 2) + resp3ByteLength(reply.reply)
  }
  throw new TypeError(`Not a RESP reply: ${String(reply)}`)
}

function aggregateLength(items: readonly Reply[], count: number): number {
  checkPairs(items, count)
  let size = headerLength(count)
  for (const item of items) size += resp3ByteLength(item)
  return size
}

function checkPairs(items: readonly Reply[], count: number): void {
  if (!Number.isInteger(count)) throw new TypeError(`A RESP3 map or attribute needs key/value pairs, got ${items.length} items`)
}

/** Writes `reply` at `offset` (which has {@link resp3ByteLength} bytes free); the offset after it. @internal */
export function writeResp3(reply: Reply, out: Buffer, offset: number): number {
  if (reply instanceof Uint8Array) return writeBody(out, writeHeader(out, offset, Type.Bulk, reply.length), reply)
  if (typeof reply === 'number' && Number.isSafeInteger(reply)) {
    out[offset++] = Type.Integer
    if (reply < 0) out[offset++] = 45
    offset = writeDecimal(out, offset, Math.abs(reply))
    return writeCRLF(out, offset)
  }
  if (typeof reply === 'number' || typeof reply === 'bigint') return writeLine(out, offset, Type.Integer, bigIntegerText(reply))
  if (reply === null || reply === NULL_ARRAY) {
    out[offset] = Type.Null
    return writeCRLF(out, offset + 1)
  }
  if (Array.isArray(reply)) return writeItems(out, writeHeader(out, offset, Type.Array, reply.length), reply as readonly Reply[])
  if (reply instanceof Status) return writeLine(out, offset, Type.Status, lineText(reply.text))
  if (reply instanceof BlobError) {
    const bytes = utf8.encode(reply.message)
    return writeBody(out, writeHeader(out, offset, Type.BlobError, bytes.length), bytes)
  }
  if (reply instanceof ReplyError) return writeLine(out, offset, Type.Error, lineText(reply.message))
  return writeResp3Only(reply, out, offset)
}

/** The types RESP2 does not have. */
function writeResp3Only(reply: Reply, out: Buffer, offset: number): number {
  if (typeof reply === 'boolean') {
    out[offset] = Type.Boolean
    out[offset + 1] = reply ? 116 : 102 // t / f
    return writeCRLF(out, offset + 2)
  }
  if (reply instanceof ReplyMap) return writeItems(out, writeHeader(out, offset, Type.Map, reply.entries.length / 2), reply.entries)
  if (reply instanceof ReplySet) return writeItems(out, writeHeader(out, offset, Type.Set, reply.items.length), reply.items)
  if (reply instanceof ReplyPush) return writeItems(out, writeHeader(out, offset, Type.Push, reply.items.length), reply.items)
  if (reply instanceof ReplyDouble) return writeLine(out, offset, Type.Double, lineText(reply.text))
  if (reply instanceof BigNumber) return writeLine(out, offset, Type.BigNumber, lineText(reply.text))
  if (reply instanceof VerbatimString) {
    offset = writeHeader(out, offset, Type.Verbatim, reply.text.length + 4)
    out.write(reply.format.padEnd(3, ' ').slice(0, 3), offset, 3, 'latin1')
    out[offset + 3] = 58 // :
    return writeBody(out, offset + 4, reply.text)
  }
  if (reply instanceof AttributedReply) {
    offset = writeItems(out, writeHeader(out, offset, Type.Attribute, reply.attributes.length / 2), reply.attributes)
    return writeResp3(reply.reply, out, offset)
  }
  throw new TypeError(`Not a RESP reply: ${String(reply)}`)
}

function writeItems(out: Buffer, offset: number, items: readonly Reply[]): number {
  for (const item of items) offset = writeResp3(item, out, offset)
  return offset
}

function writeBody(out: Buffer, offset: number, bytes: Uint8Array): number {
  writeBytes(out, offset, bytes)
  return writeCRLF(out, offset + bytes.length)
}

function writeCRLF(out: Buffer, offset: number): number {
  out[offset] = CR
  out[offset + 1] = LF
  return offset + 2
}
