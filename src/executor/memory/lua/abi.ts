/**
 * The byte formats `lua-redis-wasm` exchanges with its host (the package's `docs/abi.md`),
 * written and read directly from and to the engine's reply form ({@link Out}, binary strings).
 *
 * - Argument array (what `redis.call` sends): `[count u32le]`, then `[length u32le][bytes]` each.
 * - Reply: `[type u8][count or length u32le][payload]`; type 0 null, 1 integer (8 bytes int64le),
 *   2 bulk, 3 array (count nested replies), 4 status, 5 error, 6 script error (`[line u32le]` then
 *   the message: an error that escaped the script), 7 boolean, 8 double, 9 map, 10 set,
 *   11 big number, 12 verbatim string (`[format length u32le][format][string]`).
 *
 * Types 7 to 12 go to Lua only after `redis.setresp(3)` (the package turns them into Redis's Lua
 * shapes). The other way, the runtime sends a RESP3 value as a status reply tagged with the VM's
 * marker (see `toReply` in runtime-api.lua), decoded here when the caller speaks RESP3.
 */
import {
  AttributedReply,
  BigNumber,
  NULL_ARRAY,
  OK,
  ReplyDouble,
  ReplyError,
  ReplyMap,
  ReplyPush,
  ReplySet,
  Status,
  VerbatimString,
  type Reply,
} from '../../../reply.js'
import type { Out } from '../command.js'

export const REPLY_NULL = 0
export const REPLY_INT = 1
export const REPLY_BULK = 2
export const REPLY_ARRAY = 3
export const REPLY_STATUS = 4
export const REPLY_ERROR = 5
export const REPLY_SCRIPT_ERROR = 6
export const REPLY_BOOL = 7
export const REPLY_DOUBLE = 8
export const REPLY_MAP = 9
export const REPLY_SET = 10
export const REPLY_BIG_NUMBER = 11
export const REPLY_VERBATIM = 12

const latin1 = new TextDecoder('latin1')

/** A little-endian u32 at `offset`. */
function u32(bytes: Uint8Array, offset: number): number {
  return (bytes[offset] | (bytes[offset + 1] << 8) | (bytes[offset + 2] << 16) | (bytes[offset + 3] << 24)) >>> 0
}

/** The words of an argument array at `start` in `bytes`, as binary strings. */
export function decodeArgs(bytes: Uint8Array, start = 0): string[] {
  const count = u32(bytes, start)
  const out = new Array<string>(count)
  let offset = start + 4
  for (let i = 0; i < count; i++) {
    const length = u32(bytes, offset)
    offset += 4
    out[i] = binaryString(bytes, offset, offset + length)
    offset += length
  }
  return out
}

/** Bytes as a binary string (one char per byte). */
function binaryString(bytes: Uint8Array, start: number, end: number): string {
  // Short strings (most keys and values) are cheaper to build char by char than through a decoder.
  if (end - start < 32) {
    let text = ''
    for (let i = start; i < end; i++) text += String.fromCharCode(bytes[i])
    return text
  }
  return latin1.decode(bytes.subarray(start, end))
}

/** One writer for every reply: encoding is synchronous and the bytes are copied out at once. */
let shared: ReplyWriter | undefined

/**
 * Encodes an engine reply for the Lua side (`redis.call` results). The bytes are valid until the
 * next call: copy them before encoding another reply.
 */
export function encodeReply(out: Out): Uint8Array {
  shared ??= new ReplyWriter(256)
  shared.reset()
  shared.reply(out)
  return shared.finish()
}

/**
 * Encodes a reply in its RESP3 form (bulk strings as bytes) for a script that chose RESP3. Valid
 * until the next call, as {@link encodeReply}'s.
 */
export function encodeResp3Reply(reply: Reply): Uint8Array {
  shared ??= new ReplyWriter(256)
  shared.reset()
  shared.typed(reply)
  return shared.finish()
}

/** An engine reply as a {@link Reply}: binary strings become bytes. */
export function replyOf(out: Out): Reply {
  if (typeof out === 'string') return Buffer.from(out, 'latin1')
  if (Array.isArray(out)) return (out as readonly Out[]).map(replyOf)
  return out as Reply
}

/** A growing byte buffer for replies. */
class ReplyWriter {
  private buffer: Uint8Array
  private view: DataView
  private length = 0

  constructor(capacity: number) {
    this.buffer = new Uint8Array(capacity)
    this.view = new DataView(this.buffer.buffer)
  }

  reply(out: Out): void {
    if (out === null || out === NULL_ARRAY) return this.header(REPLY_NULL, 0)
    if (typeof out === 'string') {
      this.header(REPLY_BULK, out.length)
      return this.text(out)
    }
    if (typeof out === 'number' || typeof out === 'bigint') {
      this.header(REPLY_INT, 8)
      this.reserve(8)
      this.view.setBigInt64(this.length, BigInt(out), true)
      this.length += 8
      return
    }
    if (out instanceof Status) {
      this.header(REPLY_STATUS, out.text.length)
      return this.text(out.text)
    }
    if (out instanceof ReplyError) {
      this.header(REPLY_ERROR, out.message.length)
      return this.text(out.message)
    }
    const items = out as readonly Out[]
    this.header(REPLY_ARRAY, items.length)
    for (const item of items) this.reply(item)
  }

  /** A reply of any RESP3 type (see {@link encodeResp3Reply}). */
  typed(reply: Reply): void {
    if (reply === null || reply === NULL_ARRAY) return this.header(REPLY_NULL, 0)
    if (reply instanceof Uint8Array) {
      this.header(REPLY_BULK, reply.length)
      return this.bytes(reply)
    }
    if (typeof reply === 'boolean') {
      this.header(REPLY_BOOL, 1)
      this.buffer[this.length++] = reply ? 1 : 0
      return
    }
    if (reply instanceof ReplyDouble) {
      this.header(REPLY_DOUBLE, 8)
      this.reserve(8)
      this.view.setFloat64(this.length, reply.value, true)
      this.length += 8
      return
    }
    if (reply instanceof BigNumber) {
      this.header(REPLY_BIG_NUMBER, reply.text.length)
      return this.text(reply.text)
    }
    if (reply instanceof VerbatimString) {
      this.header(REPLY_VERBATIM, 4 + reply.format.length + reply.text.length)
      this.reserve(4)
      this.view.setUint32(this.length, reply.format.length, true)
      this.length += 4
      this.text(reply.format)
      return this.bytes(reply.text)
    }
    if (reply instanceof ReplyMap) {
      this.header(REPLY_MAP, reply.entries.length / 2)
      for (const item of reply.entries) this.typed(item)
      return
    }
    if (reply instanceof ReplySet) {
      this.header(REPLY_SET, reply.items.length)
      for (const item of reply.items) this.typed(item)
      return
    }
    // Redis's Lua parser skips attributes; commands send no pushes as replies.
    if (reply instanceof AttributedReply) return this.typed(reply.reply)
    if (reply instanceof ReplyPush) return this.typed(reply.items)
    if (Array.isArray(reply)) {
      const items = reply as readonly Reply[]
      this.header(REPLY_ARRAY, items.length)
      for (const item of items) this.typed(item)
      return
    }
    this.reply(reply as Out)
  }

  reset(): void {
    this.length = 0
  }

  finish(): Uint8Array {
    return this.buffer.subarray(0, this.length)
  }

  private header(type: number, size: number): void {
    this.reserve(5)
    this.buffer[this.length] = type
    this.view.setUint32(this.length + 1, size, true)
    this.length += 5
  }

  private text(text: string): void {
    this.reserve(text.length)
    const buffer = this.buffer
    let at = this.length
    for (let i = 0; i < text.length; i++) buffer[at++] = text.charCodeAt(i)
    this.length = at
  }

  private bytes(bytes: Uint8Array): void {
    this.reserve(bytes.length)
    this.buffer.set(bytes, this.length)
    this.length += bytes.length
  }

  private reserve(size: number): void {
    if (this.length + size <= this.buffer.length) return
    let capacity = this.buffer.length * 2
    while (capacity < this.length + size) capacity *= 2
    const next = new Uint8Array(capacity)
    next.set(this.buffer.subarray(0, this.length))
    this.buffer = next
    this.view = new DataView(next.buffer)
  }
}

/** A reply of the Lua side, decoded. An error that escaped the script keeps its line apart. */
export type Decoded = Out | ScriptFailure

/** Type 6: an error that escaped the script's own protected call. */
export class ScriptFailure {
  constructor(
    readonly message: string,
    readonly line: number,
  ) {}
}

/**
 * Decodes a whole reply. With `typedMarker` (the result of a script run for a RESP3 caller), the
 * runtime's tagged status replies become the RESP3 values they stand for.
 */
export function decodeReply(bytes: Uint8Array, typedMarker?: string): Decoded {
  const reader = new ReplyReader(bytes, typedMarker)
  return reader.reply()
}

/** The tags that lead the array of a map or a set (runtime-api.lua's MAP_TAG, SET_TAG). */
const MAP_TAG = Symbol('map')
const SET_TAG = Symbol('set')

/** What a tagged status stands for: the text after the marker is a RESP3 type character, then the payload. */
function tagged(text: string): Out | typeof MAP_TAG | typeof SET_TAG {
  const payload = text.slice(1)
  switch (text[0]) {
    case '#':
      return payload === 't'
    case ',':
      return new ReplyDouble(payload)
    case '(':
      return new BigNumber(payload)
    case '=':
      return new VerbatimString(payload.slice(0, 3), Buffer.from(payload.slice(3), 'latin1'))
    case '%':
      return MAP_TAG
    case '~':
      return SET_TAG
    default:
      throw new Error(`unexpected tag in a Lua reply: ${JSON.stringify(text[0])}`)
  }
}

class ReplyReader {
  private readonly view: DataView
  private offset = 0

  constructor(
    private readonly bytes: Uint8Array,
    private readonly marker?: string,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  }

  reply(): Decoded {
    // An empty reply is how the package reports "nothing to encode" (a nil result).
    if (this.bytes.length === 0) return null
    const type = this.bytes[this.offset]
    const size = this.view.getUint32(this.offset + 1, true)
    this.offset += 5
    switch (type) {
      case REPLY_NULL:
        return null
      case REPLY_INT: {
        const value = this.view.getBigInt64(this.offset, true)
        this.offset += 8
        return value >= -9007199254740991n && value <= 9007199254740991n ? Number(value) : value
      }
      case REPLY_BULK:
        return this.text(size)
      case REPLY_STATUS: {
        const text = this.text(size)
        if (this.marker !== undefined && text.startsWith(this.marker)) return tagged(text.slice(this.marker.length)) as Out
        return text === 'OK' ? OK : new Status(text)
      }
      case REPLY_ERROR:
        return new ReplyError(this.text(size))
      case REPLY_SCRIPT_ERROR: {
        const line = this.view.getUint32(this.offset, true)
        this.offset += 4
        return new ScriptFailure(this.text(size - 4), line)
      }
      case REPLY_ARRAY: {
        const items = new Array<Out>(size)
        for (let i = 0; i < size; i++) items[i] = this.reply() as Out
        if (this.marker !== undefined && size > 0) {
          const first = items[0] as unknown
          if (first === MAP_TAG) return new ReplyMap(items.slice(1).map(replyOf))
          if (first === SET_TAG) return new ReplySet(items.slice(1).map(replyOf))
        }
        return items
      }
      case REPLY_BOOL: {
        // Only under the package's own RESP3 mode, which the runtime never selects; RESP2's mapping.
        const value = this.bytes[this.offset++]
        return value === 0 ? null : 1
      }
      default:
        // The runtime sends RESP3 values as tagged statuses, never as types 8 to 12.
        throw new Error(`unexpected Lua reply type ${type}`)
    }
  }

  private text(size: number): string {
    const text = binaryString(this.bytes, this.offset, this.offset + size)
    this.offset += size
    return text
  }
}
