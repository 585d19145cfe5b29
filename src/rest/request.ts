import type { Arg } from '../reply.js'
import { badRequest, RestError } from './errors.js'
import { parseCommandArray, parseCommandMatrix, parseCommandMatrixSliced } from './json-args.js'

/**
 * An HTTP request as the gateway sees it, independent of any server framework. Adapters build
 * one from a Fetch `Request` or a Node `IncomingMessage`.
 * @public
 */
export interface RestRequest {
  /** HTTP method, upper case. */
  readonly method: string
  /** Path and query as in the request line, still percent-encoded: `/set/a/1?EX=10`. */
  readonly url: string
  /** Header lookup by name (case-insensitive); a Fetch `Headers` object fits. */
  readonly headers: { get(name: string): string | null }
  /** The whole body, when there is one. */
  readonly body?: Uint8Array
  /** Peer address for MONITOR lines, `host:port`. */
  readonly remoteAddress?: string
}

/**
 * What a request asks for, after parsing.
 * @public
 */
export type Call =
  | { readonly type: 'command'; readonly command: Arg[] }
  | { readonly type: 'pipeline'; readonly commands: Arg[][] }
  | { readonly type: 'transaction'; readonly commands: Arg[][] }
  | { readonly type: 'monitor' }
  | { readonly type: 'subscribe'; readonly kind: 'channel' | 'pattern'; readonly names: Arg[] }

/** The path split off the query. @public */
export interface RequestTarget {
  readonly path: string
  readonly query: string
}

/** Splits `url` into path and query (without `?`). @public */
export function splitUrl(url: string): RequestTarget {
  const q = url.indexOf('?')
  return q === -1 ? { path: url, query: '' } : { path: url.slice(0, q), query: url.slice(q + 1) }
}

/**
 * The token of a request: `Authorization: Bearer <token>`, else the `_token` query parameter.
 * An `Authorization` header that is not `Bearer <token>` gives no token (the request is refused
 * with 401) rather than falling back to the query: a client that sent credentials in a form the
 * gateway does not read should learn it, not be served as whoever the URL names.
 * @public
 */
export function requestToken(headers: RestRequest['headers'], query: string): string | undefined {
  const authorization = headers.get('authorization')
  if (authorization !== null) {
    const token = plainBearer(authorization)
    if (token !== undefined) return token
    const match = BEARER.exec(authorization)
    return match === null ? undefined : match[1]
  }
  if (query.length === 0 || !query.includes('_token=')) return undefined
  for (const [name, value] of queryPairs(query)) if (name === '_token') return value
  return undefined
}

const BEARER = /^\s*bearer\s+(\S+)\s*$/i

/**
 * The token of `Bearer <token>` as clients write it (that spelling, one space, no other
 * whitespace), found without the regular expression; undefined for any other form.
 */
function plainBearer(authorization: string): string | undefined {
  if (authorization.length <= 7 || !authorization.startsWith('Bearer ')) return undefined
  for (let i = 7; i < authorization.length; i++) {
    const c = authorization.charCodeAt(i)
    // \S of the regular expression: anything but ASCII and Unicode whitespace; leave those to it.
    if (c <= 0x20 || (c >= 0x7f && c <= 0xa0) || c > 0x167f) return undefined
  }
  return authorization.slice(7)
}

/**
 * Parses a request into a {@link Call} following the protocol's request forms:
 * - `/<cmd>/<arg>…` (segments percent-decoded to bytes; a non-empty body is appended as the
 *   last argument; query parameters other than `_token` follow as `NAME value` pairs)
 * - `POST /` with a JSON array body
 * - `POST /pipeline` and `POST /multi-exec` with a two-dimensional JSON array body
 * - `POST /monitor`, `POST /subscribe/<channel>`, `POST /psubscribe/<pattern>`
 * @public
 */
export function parseCall(method: string, target: RequestTarget, body: Uint8Array | undefined, maxRows = Infinity): Call | RestError {
  const segments = splitPath(target.path)
  if (segments instanceof RestError) return segments
  const hasBody = body !== undefined && body.length > 0

  if (segments.length === 1 && method === 'POST' && typeof segments[0] === 'string') {
    const endpoint = segments[0].toLowerCase()
    if (endpoint === 'pipeline' || endpoint === 'multi-exec') {
      if (!hasBody) return badRequest(`empty body: ${endpoint} takes a JSON array of commands, e.g. [["SET","k","v"],["GET","k"]]`)
      const text = decodeUtf8(body)
      if (text instanceof RestError) return text
      return matrixCall(endpoint, parseCommandMatrix(text, maxRows))
    }
    if (endpoint === 'monitor') return { type: 'monitor' }
  }
  if (segments.length >= 2 && method === 'POST' && typeof segments[0] === 'string') {
    const endpoint = segments[0].toLowerCase()
    if (endpoint === 'subscribe') return { type: 'subscribe', kind: 'channel', names: segments.slice(1) }
    if (endpoint === 'psubscribe') return { type: 'subscribe', kind: 'pattern', names: segments.slice(1) }
  }

  if (segments.length === 0) {
    if (!hasBody) return badRequest('empty command: put it in the path (/get/key) or POST a JSON array (["GET","key"])')
    const text = decodeUtf8(body)
    if (text instanceof RestError) return text
    const command = parseCommandArray(text)
    if (command instanceof RestError) return command
    if (command.length === 0) return badRequest('empty command in the request body')
    return { type: 'command', command }
  }

  const command: Arg[] = segments
  if (hasBody) command.push(body)
  if (target.query.length !== 0) {
    for (const [name, value] of queryPairs(target.query)) {
      if (name === '_token') continue
      command.push(name)
      if (value.length !== 0) command.push(value)
    }
  }
  return { type: 'command', command }
}

/** A body of at least this many bytes to `/pipeline` or `/multi-exec` is decoded and parsed in slices. */
export const SLICED_BODY_BYTES = 256 * 1024

/**
 * {@link parseCall}, with a large `/pipeline` or `/multi-exec` body decoded and parsed in slices,
 * awaiting `pause` between them, so that other clients are served while it is read.
 */
export async function parseCallSliced(method: string, target: RequestTarget, body: Uint8Array | undefined, maxRows: number, pause: () => Promise<void>): Promise<Call | RestError> {
  const endpoint = target.path.replace(/^\/+|\/+$/g, '').toLowerCase()
  if (method !== 'POST' || body === undefined || body.length < SLICED_BODY_BYTES || (endpoint !== 'pipeline' && endpoint !== 'multi-exec')) {
    return parseCall(method, target, body, maxRows)
  }
  const text = await decodeUtf8Sliced(body, pause)
  if (text instanceof RestError) return text
  return matrixCall(endpoint, await parseCommandMatrixSliced(text, maxRows, pause))
}

function matrixCall(endpoint: 'pipeline' | 'multi-exec', commands: Arg[][] | RestError): Call | RestError {
  if (commands instanceof RestError) return commands
  if (commands.length === 0) return badRequest(`${endpoint} needs at least one command`)
  for (const command of commands) if (command.length === 0) return badRequest('empty command in the request body')
  return endpoint === 'pipeline' ? { type: 'pipeline', commands } : { type: 'transaction', commands }
}

/**
 * Path segments as command words. ASCII segments without escapes stay strings; escaped
 * segments are decoded to bytes, so keys need not be UTF-8. A single trailing slash is
 * tolerated; an empty segment elsewhere (`/set//v`) is refused, since it is almost always a
 * client bug (send empty arguments in a JSON body).
 */
function splitPath(path: string): Arg[] | RestError {
  let start = path.charCodeAt(0) === 0x2f ? 1 : 0
  const end = path.length > start && path.charCodeAt(path.length - 1) === 0x2f ? path.length - 1 : path.length
  const segments: Arg[] = []
  if (start >= end) return segments
  while (start <= end) {
    let slash = path.indexOf('/', start)
    if (slash === -1 || slash > end) slash = end
    if (slash === start) return badRequest(`empty path segment at position ${segments.length + 1}: send empty arguments in a JSON body`)
    const segment = path.slice(start, slash)
    segments.push(segment.includes('%') ? percentDecode(segment) : segment)
    start = slash + 1
  }
  return segments
}

/** Percent-decodes to bytes; a malformed escape is kept literally, as browsers do. */
function percentDecode(segment: string): Arg {
  const bytes = Buffer.from(segment, 'utf8')
  const out = Buffer.allocUnsafe(bytes.length)
  let n = 0
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]
    if (b === 0x25 && i + 2 < bytes.length && isHex(bytes[i + 1]) && isHex(bytes[i + 2])) {
      out[n++] = parseInt(String.fromCharCode(bytes[i + 1], bytes[i + 2]), 16)
      i += 2
    } else out[n++] = b
  }
  return out.subarray(0, n)
}

function isHex(b: number | undefined): boolean {
  return b !== undefined && ((b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66))
}

/** Query parameters in order, `+` as space, values percent-decoded as UTF-8 text. */
function* queryPairs(query: string): Generator<[string, string]> {
  for (const [name, value] of new URLSearchParams(query)) yield [name, value]
}

/** Refuses malformed UTF-8 instead of replacing it with U+FFFD, which would store other bytes than sent. */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true })

/**
 * The text of a JSON body, or a 400 naming the byte offset of the first malformed UTF-8 sequence:
 * binary values travel in the path (percent-encoded) or as a raw body, never inside JSON.
 */
function decodeUtf8(bytes: Uint8Array): string | RestError {
  try {
    return strictUtf8.decode(bytes)
  } catch {
    return badRequest(`invalid UTF-8 in the JSON body at byte offset ${invalidUtf8Offset(bytes)}: send binary values in the path (percent-encoded) or as a raw body`)
  }
}

/** Bytes decoded between two pauses of {@link decodeUtf8Sliced}. */
const DECODE_SLICE = 1024 * 1024

/** {@link decodeUtf8} a slice at a time (the decoder carries a sequence split between slices). */
async function decodeUtf8Sliced(bytes: Uint8Array, pause: () => Promise<void>): Promise<string | RestError> {
  const decoder = new TextDecoder('utf-8', { fatal: true })
  const parts: string[] = []
  for (let start = 0; start < bytes.length; start += DECODE_SLICE) {
    const end = Math.min(start + DECODE_SLICE, bytes.length)
    try {
      parts.push(decoder.decode(bytes.subarray(start, end), { stream: end < bytes.length }))
    } catch {
      // The bad sequence starts in this slice or in the last bytes of the one before.
      let from = Math.max(0, start - 3)
      while (from > 0 && (bytes[from] & 0xc0) === 0x80) from--
      return badRequest(`invalid UTF-8 in the JSON body at byte offset ${from + invalidUtf8Offset(bytes.subarray(from))}: send binary values in the path (percent-encoded) or as a raw body`)
    }
    await pause()
  }
  return parts.join('')
}

/** The offset of the first byte that does not start or continue a well-formed UTF-8 sequence (RFC 3629, 4). */
export function invalidUtf8Offset(bytes: Uint8Array): number {
  let i = 0
  while (i < bytes.length) {
    const b = bytes[i]
    if (b < 0x80) {
      i++
      continue
    }
    let length: number
    let low = 0x80
    let high = 0xbf
    if (b >= 0xc2 && b <= 0xdf) length = 2
    else if (b >= 0xe0 && b <= 0xef) {
      length = 3
      if (b === 0xe0) low = 0xa0
      else if (b === 0xed) high = 0x9f // no UTF-16 surrogates
    } else if (b >= 0xf0 && b <= 0xf4) {
      length = 4
      if (b === 0xf0) low = 0x90
      else if (b === 0xf4) high = 0x8f
    } else return i
    for (let k = 1; k < length; k++) {
      const c = bytes[i + k]
      const min = k === 1 ? low : 0x80
      const max = k === 1 ? high : 0xbf
      if (c === undefined || c < min || c > max) return i
    }
    i += length
  }
  return bytes.length
}
