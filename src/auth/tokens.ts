import { createHmac, randomBytes } from 'node:crypto'
import { bytesEqual, sha256, sha256Hex } from './digest.js'

/**
 * Who a request runs as.
 * - `standard`: every command
 * - `readonly`: read commands only, minus the powerful reads (rest-protocol.md, "Read-only token")
 * - `user`: an ACL user, with that user's permissions (the executor enforces them)
 * @public
 */
export type Principal =
  | { readonly kind: 'standard' }
  | { readonly kind: 'readonly' }
  | { readonly kind: 'user'; readonly user: string; readonly password?: string }

/** Maps a presented token to a principal. @public */
export interface Authenticator {
  /** Who a request's token is, or `undefined` for a missing or unknown token (401). */
  authenticate(token: string | undefined): Principal | undefined
}

/** Options of {@link TokenStore}. @public */
export interface TokenStoreOptions {
  /** The standard token (every command). */
  readonly token: string
  /** The read-only token; none when omitted. */
  readonly readonlyToken?: string
  /**
   * Secret that ACL users' tokens are derived from (HMAC key). Give the same secret to gateways
   * that should derive the same token for the same user and password; default: random per store.
   */
  readonly secret?: string | Uint8Array
  /** Most ACL-user tokens kept; the oldest is forgotten first. Default 10 000. */
  readonly maxUserTokens?: number
}

/** A token issued with `ACL RESTTOKEN`, as the store keeps it. @public */
export interface UserTokenEntry {
  /** The principal requests with this token run as. */
  readonly principal: Extract<Principal, { kind: 'user' }>
  /** When the user's password was last confirmed against the executor (ms since the epoch). */
  verifiedAt: number
  /** Set when the user may have changed (an ACL command went through the gateway): check again before use. */
  stale: boolean
}

/** What a presented token resolved to; `entry` for an ACL user's token. */
interface TokenMatch {
  principal: Principal
  entry?: UserTokenEntry
}

const STANDARD_MATCH: TokenMatch = Object.freeze({ principal: Object.freeze({ kind: 'standard' }) })
const READONLY_MATCH: TokenMatch = Object.freeze({ principal: Object.freeze({ kind: 'readonly' }) })

/** Accepted tokens a {@link TokenStore} remembers, so their next use skips the hash. */
const VERIFIED_CACHE_SIZE = 256

/**
 * The id of a principal for usage counters and logs: `standard`, `readonly` or `user:<name>`.
 * Never the token.
 * @public
 */
export function principalId(principal: Principal): string {
  return principal.kind === 'user' ? `user:${principal.user}` : principal.kind
}

/**
 * The gateway's tokens: the standard and read-only tokens of the database, and the tokens of
 * ACL users issued by `ACL RESTTOKEN`.
 *
 * - **Comparison** is constant-time: a presented token is hashed (SHA-256) and the digest compared
 *   with `timingSafeEqual`, so neither content nor length leaks through timing. ACL-user tokens
 *   are found by their digest in a map (O(1)); the lookup key is a hash of what the client sent,
 *   which tells an attacker nothing about the stored tokens.
 * - **Derivation**: a user's token is `base64url(HMAC-SHA256(secret, epoch ‖ user ‖ SHA-256(password)))`.
 *   The same user and password give the same token (for one secret and epoch); a new password
 *   gives a new one, and the gateway refuses the old token as soon as it learns that the password
 *   changed (see `createGateway`'s `userTokenCheckInterval`).
 * - **Where the password lives**: in this store's memory only, next to the token's digest, for
 *   as long as the token is in use. The socket executor needs it to authenticate upstream as the
 *   user (`AUTH user password`), since Redis has no way to act on another user's behalf. It is
 *   never in the token, never logged, never in an error text. The trade-off: a memory dump of
 *   the gateway process shows the passwords of users whose tokens are in use; in exchange tokens
 *   carry no secret (they cannot be decrypted into a password) and are revoked by changing the
 *   password, with no state on the server. A restarted gateway forgets issued tokens: clients
 *   call `ACL RESTTOKEN` again (with a fixed `secret` they get the same token back).
 * - Tokens are never included in errors or logs.
 * - **Accepted tokens are remembered** (at most 256), so a client sending
 *   the same token on every request is not hashed every time. Any change to what the store
 *   accepts (`rotate`, a revocation, a new or forgotten ACL-user token) forgets them all.
 * @public
 */
export class TokenStore implements Authenticator {
  private standardDigest: Buffer | undefined
  private readonlyDigest: Buffer | undefined
  private readonly secret: Buffer
  private epoch = 0
  private readonly maxUserTokens: number
  /** ACL-user tokens by the base64 of their SHA-256 digest. */
  private readonly users = new Map<string, UserTokenEntry>()
  /**
   * Tokens that {@link TokenStore.lookup} accepted since the store last changed, as presented,
   * with what they resolved to.
   *
   * Why this keeps what the constant-time path protects: only accepted tokens are ever put here
   * (a refused guess never is, so guesses can neither fill the map nor push a token out of it),
   * and whether a token is accepted is what the response says anyway. The lookup of a guess
   * depends on the stored tokens only through V8's string hash (seeded at random per process):
   * characters are compared only with a stored token of the same hash and length, so a guess
   * learns, at best, that its hash collides with one (about 1 in 2^30), never a character, and
   * then takes the digest comparison below like any other miss.
   */
  private readonly verified = new Map<string, TokenMatch>()

  constructor(options: TokenStoreOptions) {
    this.standardDigest = digest(options.token)
    this.readonlyDigest = options.readonlyToken === undefined ? undefined : digest(options.readonlyToken)
    const secret = options.secret
    this.secret = secret === undefined ? randomBytes(32) : typeof secret === 'string' ? Buffer.from(secret, 'utf8') : Buffer.from(secret)
    this.maxUserTokens = options.maxUserTokens ?? 10_000
  }

  authenticate(token: string | undefined): Principal | undefined {
    return this.lookup(token)?.principal
  }

  /**
   * Like {@link TokenStore.authenticate}, with the entry of an ACL user's token (for the
   * gateway's re-checks).
   */
  lookup(token: string | undefined): { principal: Principal; entry?: UserTokenEntry } | undefined {
    if (token === undefined || token.length === 0) return undefined
    const remembered = this.verified.get(token)
    if (remembered !== undefined) return remembered
    const found = this.compare(token)
    if (found !== undefined) {
      if (this.verified.size >= VERIFIED_CACHE_SIZE) this.verified.delete(this.verified.keys().next().value as string)
      this.verified.set(token, found)
    }
    return found
  }

  /** The constant-time comparison of a presented token with the store's tokens. */
  private compare(token: string): TokenMatch | undefined {
    const presented = digest(token)
    let match: TokenMatch | undefined
    // Both comparisons always run, so the time does not tell which token matched.
    if (this.standardDigest !== undefined && bytesEqual(presented, this.standardDigest)) match = STANDARD_MATCH
    if (this.readonlyDigest !== undefined && bytesEqual(presented, this.readonlyDigest)) match ??= READONLY_MATCH
    if (match !== undefined) return match
    const entry = this.users.get(presented.toString('base64'))
    return entry === undefined ? undefined : Object.freeze({ principal: entry.principal, entry })
  }

  /** Forgets the remembered verdicts: called on every change to the accepted tokens. */
  private changed(): void {
    this.verified.clear()
  }

  /**
   * Issues (registers) the token of an ACL user whose password the caller has verified, and
   * returns it. The same user and password give the same token.
   */
  issueUserToken(user: string, password: string, now = Date.now()): string {
    const token = this.deriveUserToken(user, password)
    const key = digest(token).toString('base64')
    this.users.delete(key) // re-inserted: the map stays in least-recently-issued order
    this.users.set(key, { principal: { kind: 'user', user, password }, verifiedAt: now, stale: false })
    for (const oldest of this.users.keys()) {
      if (this.users.size <= this.maxUserTokens) break
      this.users.delete(oldest)
    }
    this.changed()
    return token
  }

  /** The token `user` with `password` has, without registering it. */
  deriveUserToken(user: string, password: string): string {
    const passwordHash = sha256Hex(password)
    return createHmac('sha256', this.secret)
      .update(`restis/user-token\0${this.epoch}\0${user}\0${passwordHash}`, 'utf8')
      .digest('base64url')
  }

  /** Marks the tokens of `users` (every user when omitted) to be checked again before their next use. */
  markStale(users?: readonly string[]): void {
    const names = users === undefined ? undefined : new Set(users)
    for (const entry of this.users.values()) if (names === undefined || names.has(entry.principal.user)) entry.stale = true
  }

  /** Forgets the token of an entry (its password no longer opens the user). */
  revoke(entry: UserTokenEntry): void {
    for (const [key, candidate] of this.users) if (candidate === entry) this.users.delete(key)
    this.changed()
  }

  /**
   * Revokes ACL users' tokens: those of `user`, or, without it, every one (and no token issued
   * before is ever accepted again: the derivation epoch changes).
   */
  revokeUserTokens(user?: string): void {
    this.changed()
    if (user === undefined) {
      this.users.clear()
      this.epoch++
      return
    }
    for (const [key, entry] of this.users) if (entry.principal.user === user) this.users.delete(key)
  }

  /** Number of ACL-user tokens in use. */
  get userTokenCount(): number {
    return this.users.size
  }

  /**
   * The database password reset: revokes the standard and read-only tokens at once and installs
   * new ones (generated when not given). Returns the new tokens. ACL users' tokens are not
   * affected: they follow their users' passwords.
   */
  rotate(next: Partial<Pick<TokenStoreOptions, 'token' | 'readonlyToken'>> = {}): { token: string; readonlyToken: string } {
    const token = next.token ?? generateToken()
    const readonlyToken = next.readonlyToken ?? generateToken()
    this.standardDigest = digest(token)
    this.readonlyDigest = digest(readonlyToken)
    this.changed()
    return { token, readonlyToken }
  }
}

/** A random token: 32 bytes, base64url. @public */
export function generateToken(): string {
  return randomBytes(32).toString('base64url')
}

function digest(token: string): Buffer {
  return sha256(token)
}
