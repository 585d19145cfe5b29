import { NULL_ARRAY, ReplyError, Status, type Reply } from '../reply.js'

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
  const items = reply as readonly Reply[]
  if (items.length === 0) return '[]'
  let out = '['
  for (let i = 0; i < items.length; i++) {
    if (i !== 0) out += ','
    out += replyToJson(items[i], encoding)
  }
  return out + ']'
}

function bulkToJson(bytes: Uint8Array, encoding: StringEncoding): string {
  if (encoding === 'base64') {
    return `"${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')}"`
  }
  return JSON.stringify(utf8.decode(bytes))
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
  let out = '['
  for (let i = 0; i < replies.length; i++) {
    if (i !== 0) out += ','
    out += envelope(replies[i], encoding)
  }
  return out + ']'
}
