import { NULL_ARRAY, ReplyError, Status, toResp2, type Reply } from '../reply.js'
import { asBuffer } from '../resp/protocol.js'

/**
 * Replies as the protocol's JSON: `{"result":…}` / `{"error":"…"}` envelopes with integers
 * written exactly (a `bigint` is printed digit for digit), bulk strings as UTF-8 text with
 * invalid bytes replaced by U+FFFD, or as base64 when the client asked for it.
 */

/** How strings are written in JSON results. @public */
export type StringEncoding = 'utf8' | 'base64'

const utf8 = new TextDecoder()

/** A reply as a JSON value (text). Errors nested in arrays become `{"error":"…"}` objects. @public */
export function replyToJson(reply: Reply, encoding: StringEncoding = 'utf8'): string {
  if (reply instanceof Uint8Array) return bulkToJson(reply, encoding)
  if (typeof reply === 'number') return Number.isFinite(reply) ? String(reply) : 'null'
  if (typeof reply === 'bigint') return reply.toString()
  if (reply === null || reply === NULL_ARRAY) return 'null'
  if (reply instanceof Status) {
    if (encoding === 'base64' && reply.text !== 'OK') return `"${Buffer.from(reply.text, 'utf8').toString('base64')}"`
    return JSON.stringify(reply.text)
  }
  if (reply instanceof ReplyError) return `{"error":${JSON.stringify(reply.message)}}`
  // The RESP3 types (which the engines do not produce) render as their RESP2 form: see docs/protocol.md.
  if (!Array.isArray(reply)) return replyToJson(toResp2(reply), encoding)
  const items = reply as readonly Reply[]
  if (items.length === 0) return '[]'
  let out = '['
  for (let i = 0; i < items.length; i++) {
    if (i !== 0) out += ','
    out += replyToJson(items[i], encoding)
  }
  return out + ']'
}

/** Bulks up to this many bytes are copied into a string character by character. */
const SHORT_BULK = 12

function bulkToJson(bytes: Uint8Array, encoding: StringEncoding): string {
  if (encoding === 'base64') {
    return `"${asBuffer(bytes).toString('base64')}"`
  }
  // Printable ASCII other than `"` and `\` is its own JSON text: no decoding, no escaping. Most
  // values are short, and a short string is cheaper to build here than through the decoder.
  const length = bytes.length
  if (length <= SHORT_BULK) {
    let out = '"'
    for (let i = 0; i < length; i++) {
      const c = bytes[i]
      if (!isPlainJsonByte(c)) return JSON.stringify(utf8.decode(bytes))
      out += String.fromCharCode(c)
    }
    return out + '"'
  }
  for (let i = 0; i < length; i++) if (!isPlainJsonByte(bytes[i])) return JSON.stringify(utf8.decode(bytes))
  return '"' + utf8.decode(bytes) + '"'
}

/** A byte JSON.stringify writes as itself: printable ASCII except `"` and `\`. */
function isPlainJsonByte(c: number): boolean {
  return c >= 0x20 && c <= 0x7e && c !== 0x22 && c !== 0x5c
}

/**
 * The envelope of one reply: `{"result":…}`, or `{"error":"…"}` for an error reply.
 * @public
 */
export function envelope(reply: Reply, encoding: StringEncoding = 'utf8'): string {
  if (reply instanceof ReplyError) return errorEnvelope(reply.message)
  return `{"result":${replyToJson(reply, encoding)}}`
}

/** `{"error":"…"}` @public */
export function errorEnvelope(message: string): string {
  return `{"error":${JSON.stringify(message)}}`
}

/** A JSON array of envelopes, one per reply (pipelines and transactions). @public */
export function envelopes(replies: readonly Reply[], encoding: StringEncoding = 'utf8'): string {
  return '[' + envelopeList(replies, encoding) + ']'
}

/** The envelopes of `replies` separated by commas, without the brackets (a slice of a larger array). */
export function envelopeList(replies: readonly Reply[], encoding: StringEncoding = 'utf8'): string {
  // Few, large pieces: the separator, the closing brace of the result before and the opening of
  // the next one are appended as one constant (the text is joined once, when it is written).
  let out = ''
  let resultOpen = false
  for (let i = 0; i < replies.length; i++) {
    const reply = replies[i]
    if (reply instanceof ReplyError) {
      out += (resultOpen ? '},' : i === 0 ? '' : ',') + errorEnvelope(reply.message)
      resultOpen = false
    } else {
      out += resultOpen ? '},{"result":' : i === 0 ? '{"result":' : ',{"result":'
      out += replyToJson(reply, encoding)
      resultOpen = true
    }
  }
  return resultOpen ? out + '}' : out
}
