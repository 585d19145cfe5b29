/**
 * The gateway's responses: status, headers (content type and the sync token, which changes with
 * every write that ran through the gateway) and the body in the format the request asked for.
 */
import { ReplyError, type Reply } from '../reply.js'
import { encodeReply } from '../resp/encode.js'
import type { HttpResponse } from '../adapters/http.js'
import { RestError, badRequest } from './errors.js'
import { envelope, envelopeList, envelopes, errorEnvelope, type StringEncoding } from './render.js'
import type { EventStream } from './sse.js'
import type { RestRequest } from './request.js'

/** The reply format a request asked for (`Service-Response-Format`, `Service-Encoding`). */
export interface Format {
  readonly encoding: StringEncoding
  readonly resp2: boolean
}

const JSON_TYPE = 'application/json'
const RESP_TYPE = 'application/octet-stream'

/** Reads `Service-Response-Format` / `Service-Encoding` (and their `Upstash-` aliases). */
export function responseFormat(headers: RestRequest['headers']): Format | RestError {
  const formatValue = headers.get('service-response-format') ?? headers.get('upstash-response-format')
  const encodingValue = headers.get('service-encoding') ?? headers.get('upstash-encoding')
  let resp2 = false
  if (formatValue !== null) {
    const value = formatValue.trim().toLowerCase()
    if (value === 'resp2') resp2 = true
    else if (value !== 'json') return badRequest(`invalid Service-Response-Format '${formatValue}': use json or resp2`)
  }
  let encoding: StringEncoding = 'utf8'
  if (encodingValue !== null) {
    const value = encodingValue.trim().toLowerCase()
    if (value === 'base64') encoding = 'base64'
    else if (value !== '') return badRequest(`invalid Service-Encoding '${encodingValue}': the only encoding is base64`)
  }
  if (resp2 && encoding === 'base64') return badRequest('Service-Encoding: base64 cannot be combined with Service-Response-Format: resp2')
  return { encoding, resp2 }
}

/**
 * Whether a rendered body takes more than `max` bytes on the wire; a string is measured only when
 * its length does not settle it (a UTF-16 unit is 1 to 3 bytes of UTF-8).
 */
export function exceeds(body: string | Uint8Array, max: number): boolean {
  if (typeof body !== 'string') return body.length > max
  if (body.length * 3 <= max) return false
  return body.length > max || Buffer.byteLength(body) > max
}

/** A slice of a pipeline's replies, rendered: envelopes without brackets, or RESP2. */
export function renderSlice(replies: readonly Reply[], format: Format): string | Uint8Array {
  return format.resp2 ? Buffer.concat(replies.map(encodeReply)) : envelopeList(replies, format.encoding)
}

/** 400 for a reply the gateway will not hold and send whole. */
export function replyTooLarge(maxReplyBytes: number, ran?: { rows: number; of: number }): RestError {
  const rows = ran === undefined ? '' : `; the first ${ran.rows} of ${ran.of} commands ran, the rest did not`
  return badRequest(`reply too large: over ${maxReplyBytes} bytes (maxReplyBytes)${rows}; ask for less (GETRANGE, SCAN, smaller pipelines)`)
}

/** Makes the gateway's responses and keeps the sync token. */
export class Responses {
  private readonly syncPrefix = Date.now().toString(36)
  private writes = 0
  // Responses share one frozen headers object while no write happens in between (adapters may
  // rely on that to reuse work per headers object; see the Node adapter).
  private jsonHeaders: Readonly<Record<string, string>> | undefined
  private jsonHeadersWrites = -1

  /** A write is about to run: the sync token of the responses from now on changes. */
  wrote(): void {
    this.writes++
  }

  headers(contentType: string): Readonly<Record<string, string>> {
    if (contentType === JSON_TYPE && this.jsonHeadersWrites === this.writes && this.jsonHeaders !== undefined) return this.jsonHeaders
    const token = `${this.syncPrefix}-${this.writes}`
    const made = Object.freeze({ 'content-type': contentType, 'service-sync-token': token, 'upstash-sync-token': token })
    if (contentType === JSON_TYPE) {
      this.jsonHeaders = made
      this.jsonHeadersWrites = this.writes
    }
    return made
  }

  json(status: number, body: string): HttpResponse {
    return { status, headers: this.headers(JSON_TYPE), body }
  }

  fail(error: RestError): HttpResponse {
    const response = this.json(error.status, errorEnvelope(error.message))
    return error.headers === undefined ? response : { ...response, headers: { ...response.headers, ...error.headers } }
  }

  /** One command's reply: 200, or 400 for an error reply; a reply over `maxReplyBytes` is an error instead. */
  reply(reply: Reply, format: Format, maxReplyBytes = Infinity): HttpResponse {
    const status = reply instanceof ReplyError ? 400 : 200
    const body = format.resp2 ? encodeReply(reply) : envelope(reply, format.encoding)
    if (exceeds(body, maxReplyBytes)) return this.fail(replyTooLarge(maxReplyBytes))
    if (format.resp2) return { status, headers: this.headers(RESP_TYPE), body }
    return this.json(status, body as string)
  }

  /** A pipeline's replies, each in its envelope (or RESP2 back to back). */
  replies(replies: readonly Reply[], format: Format, maxReplyBytes = Infinity): HttpResponse {
    const body = format.resp2 ? Buffer.concat(replies.map(encodeReply)) : envelopes(replies, format.encoding)
    if (exceeds(body, maxReplyBytes)) return this.fail(replyTooLarge(maxReplyBytes))
    if (format.resp2) return { status: 200, headers: this.headers(RESP_TYPE), body }
    return this.json(200, body as string)
  }

  /** A pipeline's replies rendered slice by slice (see {@link renderSlice}). */
  slicedReplies(pieces: readonly (string | Uint8Array)[], format: Format): HttpResponse {
    if (format.resp2) return { status: 200, headers: this.headers(RESP_TYPE), body: Buffer.concat(pieces as Uint8Array[]) }
    return this.json(200, '[' + (pieces as string[]).join(',') + ']')
  }

  stream(body: EventStream): HttpResponse {
    return { status: 200, headers: { ...this.headers('text/event-stream'), 'cache-control': 'no-cache', connection: 'keep-alive' }, body }
  }
}
