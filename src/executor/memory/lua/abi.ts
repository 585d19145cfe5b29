/**
 * The byte formats `lua-redis-wasm` exchanges with its host (the package's `docs/abi.md`),
 * written and read directly from and to the engine's reply form ({@link Out}, binary strings).
 *
 * - Argument array (what `redis.call` sends): `[count u32le]`, then `[length u32le][bytes]` each.
 * - Reply: `[type u8][count or length u32le][payload]`; type 0 null, 1 integer (8 bytes int64le),
 *   2 bulk, 3 array (count nested replies), 4 status, 5 error, 6 script error (`[line u32le]` then
 *   the message: an error that escaped the script), 7 boolean, 8 double, 9 map, 10 set,
 *   11 big number, 12 verbatim string.
 *
 */
import { NULL_ARRAY, OK, ReplyError, Status } from '../../../reply.js'
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

/** Decodes a whole reply. */
export function decodeReply(bytes: Uint8Array): Decoded {
  const reader = new ReplyReader(bytes)
  return reader.reply()
}

class ReplyReader {
  private readonly view: DataView
  private offset = 0

  constructor(private readonly bytes: Uint8Array) {
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
        return items
      }
      case REPLY_BOOL: {
        // Only under RESP3, which the runtime never selects; RESP2's mapping.
        const value = this.bytes[this.offset++]
        return value === 0 ? null : 1
      }
      default:
        // The runtime converts RESP3 shapes (double, map, set …) to RESP2 ones before returning.
        throw new Error(`unexpected Lua reply type ${type}`)
    }
  }

  private text(size: number): string {
    const text = binaryString(this.bytes, this.offset, this.offset + size)
    this.offset += size
    return text
  }
}
