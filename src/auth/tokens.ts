import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'

/**
 * Who a request runs as.
 * - `standard`: every command
 * - `readonly`: read commands only, minus the powerful reads (rest-protocol.md, "Read-only token")
 * - `user`: an ACL user, with that user's permissions
 * @public
 */
export type Principal =
  | { readonly kind: 'standard' }
  | { readonly kind: 'readonly' }
  | { readonly kind: 'user'; readonly user: string; readonly password?: string }

/** Maps a presented token to a principal. @public */
export interface Authenticator {
  authenticate(token: string | undefined): Principal | undefined
}

/** Options of {@link TokenStore}. @public */
export interface TokenStoreOptions {
  /** The standard token (every command). */
  readonly token: string
  /** The read-only token; none when omitted. */
  readonly readonlyToken?: string
}

const STANDARD: Principal = { kind: 'standard' }
const READONLY: Principal = { kind: 'readonly' }

/**
 * The database's tokens. Comparison is constant-time: presented tokens are hashed and the
 * digests compared with `timingSafeEqual`, so neither content nor length leaks through timing.
 * Tokens are never included in errors or logs.
 * @public
 */
export class TokenStore implements Authenticator {
  private standardDigest: Buffer | undefined
  private readonlyDigest: Buffer | undefined

  constructor(options: TokenStoreOptions) {
    this.standardDigest = digest(options.token)
    this.readonlyDigest = options.readonlyToken === undefined ? undefined : digest(options.readonlyToken)
  }

  authenticate(token: string | undefined): Principal | undefined {
    if (token === undefined || token.length === 0) return undefined
    const presented = digest(token)
    if (this.standardDigest !== undefined && timingSafeEqual(presented, this.standardDigest)) return STANDARD
    if (this.readonlyDigest !== undefined && timingSafeEqual(presented, this.readonlyDigest)) return READONLY
    return undefined
  }

  /**
   * The database password reset: revokes the standard and read-only tokens at once and installs
   * new ones (generated when not given). Returns the new tokens.
   */
  rotate(next: Partial<TokenStoreOptions> = {}): { token: string; readonlyToken: string } {
    const token = next.token ?? generateToken()
    const readonlyToken = next.readonlyToken ?? generateToken()
    this.standardDigest = digest(token)
    this.readonlyDigest = digest(readonlyToken)
    return { token, readonlyToken }
  }
}

/** A random token: 32 bytes, base64url. @public */
export function generateToken(): string {
  return randomBytes(32).toString('base64url')
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest()
}
