/**
 * Request signatures between the queue and a workflow endpoint: an HS256 JWT in the
 * `Upstash-Signature` header, signed with the queue's current signing key, whose claims name
 * the destination URL (`sub`) and the SHA-256 of the body (`body`, base64url). The endpoint
 * verifies against the current key, then the next one (key rotation). Built on node:crypto.
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto'
import { bytesEqual, sha256 } from '../auth/digest.js'
import { asBuffer } from '../resp/protocol.js'

/** Claims of a queue signature. @public */
export interface SignatureClaims {
  /** Always `Upstash`. */
  readonly iss: string
  /** The destination URL the queue called. */
  readonly sub: string
  /** Expiry, seconds since the epoch. */
  readonly exp: number
  /** Not valid before, seconds since the epoch. */
  readonly nbf: number
  readonly iat: number
  readonly jti: string
  /** base64url SHA-256 of the request body (padding optional). */
  readonly body: string
}

/** A signature that does not verify. The message says why. @public */
export class SignatureError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'SignatureError'
  }
}

const ISSUER = 'Upstash'
const HEADER = base64url(Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })))

function base64url(bytes: Uint8Array): string {
  return asBuffer(bytes).toString('base64url')
}

function toBytes(body: string | Uint8Array | undefined): Uint8Array {
  if (body === undefined) return new Uint8Array(0)
  return typeof body === 'string' ? Buffer.from(body, 'utf8') : body
}

/** base64url (unpadded) SHA-256 of a body, as the `body` claim carries it. @public */
export function bodyHash(body: string | Uint8Array | undefined): string {
  return base64url(sha256(toBytes(body)))
}

function hmac(key: string, data: string): Buffer {
  return createHmac('sha256', Buffer.from(key, 'utf8')).update(data).digest()
}

/** Options of {@link signRequest}. @public */
export interface SignOptions {
  /** The destination URL (the `sub` claim). */
  readonly url: string
  readonly body: string | Uint8Array | undefined
  /** The signing key (the queue's current key). */
  readonly key: string
  /** Seconds the signature stays valid. Default 300. */
  readonly ttlSeconds?: number
  /** Clock, milliseconds since the epoch. Default `Date.now()`. */
  readonly now?: number
}

/** Signs one delivery: the value of its `Upstash-Signature` header. @public */
export function signRequest(options: SignOptions): string {
  const now = Math.floor((options.now ?? Date.now()) / 1000)
  const claims: SignatureClaims = {
    iss: ISSUER,
    sub: options.url,
    exp: now + (options.ttlSeconds ?? 300),
    nbf: now,
    iat: now,
    jti: `jwt_${randomUUID().replaceAll('-', '')}`,
    body: bodyHash(options.body),
  }
  const payload = base64url(Buffer.from(JSON.stringify(claims)))
  const signed = `${HEADER}.${payload}`
  return `${signed}.${base64url(hmac(options.key, signed))}`
}

/** Options of {@link verifyRequest}. @public */
export interface VerifyOptions {
  /** The `Upstash-Signature` header; missing is an error. */
  readonly signature: string | null | undefined
  readonly body: string | Uint8Array | undefined
  /** Keys to try in order: current, then next. Empty or undefined entries are skipped. */
  readonly keys: readonly (string | undefined)[]
  /** URLs the `sub` claim may name (the endpoint's public URL and the URL it was called on). Empty: not checked. */
  readonly urls?: readonly string[]
  /** Allowed clock skew in seconds. Default 5. */
  readonly clockTolerance?: number
  readonly now?: number
}

/**
 * Verifies a delivery's signature: HS256 with one of the keys, issuer `Upstash`, inside its
 * validity window, for one of the expected URLs, over exactly this body. Returns the claims or
 * throws {@link SignatureError}.
 * @public
 */
export function verifyRequest(options: VerifyOptions): SignatureClaims {
  const { signature } = options
  if (!signature) throw new SignatureError('missing Upstash-Signature header')
  const parts = signature.split('.')
  if (parts.length !== 3) throw new SignatureError('signature is not a JWT')
  const [headerPart, payloadPart, macPart] = parts
  let header: { alg?: unknown }
  let claims: Partial<SignatureClaims>
  try {
    header = JSON.parse(Buffer.from(headerPart, 'base64url').toString('utf8')) as { alg?: unknown }
    claims = JSON.parse(Buffer.from(payloadPart, 'base64url').toString('utf8')) as Partial<SignatureClaims>
  } catch {
    throw new SignatureError('signature is not a JWT (undecodable header or claims)')
  }
  if (header.alg !== 'HS256') throw new SignatureError(`unsupported signature algorithm ${JSON.stringify(header.alg)} (want HS256)`)
  const mac = Buffer.from(macPart, 'base64url')
  const keys = options.keys.filter((key): key is string => typeof key === 'string' && key.length > 0)
  if (keys.length === 0) throw new SignatureError('no signing key configured')
  const signed = `${headerPart}.${payloadPart}`
  const matches = keys.some((key) => {
    const expected = hmac(key, signed)
    return bytesEqual(expected, mac)
  })
  if (!matches) throw new SignatureError('signature does not match the current or the next signing key')
  if (claims.iss !== ISSUER) throw new SignatureError(`invalid issuer ${JSON.stringify(claims.iss)}`)
  const now = Math.floor((options.now ?? Date.now()) / 1000)
  const tolerance = options.clockTolerance ?? 5
  if (typeof claims.exp !== 'number' || claims.exp + tolerance < now) throw new SignatureError('signature expired')
  if (typeof claims.nbf === 'number' && claims.nbf - tolerance > now) throw new SignatureError('signature not yet valid')
  const urls = options.urls ?? []
  if (urls.length > 0 && !urls.includes(String(claims.sub))) {
    throw new SignatureError(`signature is for ${JSON.stringify(claims.sub)}, not for this endpoint (${urls.join(', ')})`)
  }
  if (typeof claims.body !== 'string' || claims.body.replace(/=+$/, '') !== bodyHash(options.body)) {
    throw new SignatureError('body hash does not match the signature (the body was changed)')
  }
  return claims as SignatureClaims
}

/** A random signing key in the hosted queue's format (`sig_…`). @public */
export function generateSigningKey(): string {
  return `sig_${randomBytes(21).toString('base64url')}`
}
