/**
 * SHA-256 and constant-time comparison, the one home of both for every place that checks a
 * secret: gateway tokens, ACL passwords, the RESP listener's AUTH, the queue token, workflow
 * signatures.
 *
 * Why digests: `timingSafeEqual` takes time proportional to its inputs and refuses inputs of
 * different lengths, so comparing raw secrets would leak their length. Comparing fixed-size
 * digests leaks neither content nor length.
 */
import * as crypto from 'node:crypto'

/** One-shot `crypto.hash` (Node 20.12 / 21.7 and later) where there is one: no Hash object per call. */
const oneShotHash = (crypto as { hash?: (algorithm: string, data: string | Uint8Array, encoding: 'buffer') => Buffer }).hash

/** SHA-256 of `data`: a string is hashed as its UTF-8 bytes. */
export function sha256(data: string | Uint8Array): Buffer {
  if (oneShotHash !== undefined) return oneShotHash('sha256', data, 'buffer')
  return crypto.createHash('sha256').update(data).digest()
}

/** SHA-256 of `data` in lowercase hex (how Redis stores ACL passwords). */
export function sha256Hex(data: string | Uint8Array): string {
  return sha256(data).toString('hex')
}

/**
 * Constant-time equality of two byte strings of public length (digests, MACs). Different lengths
 * are unequal without comparing; for secrets whose length must not leak, use {@link secretsEqual}.
 */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && crypto.timingSafeEqual(a, b)
}

/** Constant-time equality of two secrets (strings as UTF-8): compares their SHA-256 digests. */
export function secretsEqual(given: string | Uint8Array, expected: string | Uint8Array): boolean {
  return crypto.timingSafeEqual(sha256(given), sha256(expected))
}
