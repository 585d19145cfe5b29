/**
 * The token store on its own: kinds of token, derivation of ACL users' tokens, revocation, the
 * bound on kept tokens.
 */
import { describe, expect, test } from 'vitest'
import { TokenStore, generateToken, principalId } from '../../src/auth/tokens.js'

describe('TokenStore', () => {
  test('maps the standard and read-only tokens to their principals; anything else is unknown', () => {
    const store = new TokenStore({ token: 'std', readonlyToken: 'ro' })
    expect(store.authenticate('std')).toEqual({ kind: 'standard' })
    expect(store.authenticate('ro')).toEqual({ kind: 'readonly' })
    for (const wrong of [undefined, '', 'st', 'stdx', 'STD', 'ro ']) expect(store.authenticate(wrong)).toBeUndefined()
  })

  test('without a read-only token only the standard token works', () => {
    const store = new TokenStore({ token: 'only' })
    expect(store.authenticate('only')).toEqual({ kind: 'standard' })
    expect(store.authenticate('')).toBeUndefined()
  })

  test("an ACL user's token is derived from the user, the password and the secret", () => {
    const a = new TokenStore({ token: 't', secret: 'shared-secret' })
    const b = new TokenStore({ token: 'other', secret: 'shared-secret' })
    const c = new TokenStore({ token: 't' })
    const token = a.issueUserToken('alice', 'pw')
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(a.issueUserToken('alice', 'pw')).toBe(token)
    expect(b.deriveUserToken('alice', 'pw')).toBe(token)
    expect(c.deriveUserToken('alice', 'pw')).not.toBe(token)
    expect(a.deriveUserToken('alice', 'pw2')).not.toBe(token)
    expect(a.deriveUserToken('alicf', 'pw')).not.toBe(token)
    expect(a.authenticate(token)).toEqual({ kind: 'user', user: 'alice', password: 'pw' })
    expect(b.authenticate(token)).toBeUndefined() // derived the same, but never issued there
    expect(principalId(a.authenticate(token)!)).toBe('user:alice')
    expect(principalId({ kind: 'readonly' })).toBe('readonly')
  })

  test('revoking one user, every user (new epoch), or one entry', () => {
    const store = new TokenStore({ token: 't' })
    const alice = store.issueUserToken('alice', 'pw')
    const bob = store.issueUserToken('bob', 'pw')
    store.revokeUserTokens('alice')
    expect(store.authenticate(alice)).toBeUndefined()
    expect(store.authenticate(bob)).toBeDefined()
    store.revokeUserTokens()
    expect(store.authenticate(bob)).toBeUndefined()
    expect(store.issueUserToken('bob', 'pw')).not.toBe(bob)
    const carol = store.issueUserToken('carol', 'pw')
    store.revoke(store.lookup(carol)!.entry!)
    expect(store.authenticate(carol)).toBeUndefined()
  })

  test('markStale flags the entries of the named users (or all) for a new check', () => {
    const store = new TokenStore({ token: 't' })
    const alice = store.issueUserToken('alice', 'pw')
    const bob = store.issueUserToken('bob', 'pw')
    store.markStale(['alice'])
    expect(store.lookup(alice)!.entry!.stale).toBe(true)
    expect(store.lookup(bob)!.entry!.stale).toBe(false)
    store.markStale()
    expect(store.lookup(bob)!.entry!.stale).toBe(true)
  })

  test('keeps at most maxUserTokens, forgetting the oldest first', () => {
    const store = new TokenStore({ token: 't', maxUserTokens: 2 })
    const first = store.issueUserToken('u1', 'pw')
    const second = store.issueUserToken('u2', 'pw')
    store.issueUserToken('u1', 'pw') // issued again: now the newest
    const third = store.issueUserToken('u3', 'pw')
    expect(store.userTokenCount).toBe(2)
    expect(store.authenticate(second)).toBeUndefined()
    expect(store.authenticate(first)).toBeDefined()
    expect(store.authenticate(third)).toBeDefined()
  })

  test('rotate replaces both database tokens and keeps user tokens', () => {
    const store = new TokenStore({ token: 'a', readonlyToken: 'b' })
    const user = store.issueUserToken('u', 'pw')
    const next = store.rotate({ token: 'c' })
    expect(next.token).toBe('c')
    expect(store.authenticate('a')).toBeUndefined()
    expect(store.authenticate('b')).toBeUndefined()
    expect(store.authenticate('c')).toEqual({ kind: 'standard' })
    expect(store.authenticate(next.readonlyToken)).toEqual({ kind: 'readonly' })
    expect(store.authenticate(user)).toBeDefined()
  })

  test('a token accepted before is refused as soon as the store changes (remembered verdicts are forgotten)', () => {
    const store = new TokenStore({ token: 'a', readonlyToken: 'b', maxUserTokens: 2 })
    const alice = store.issueUserToken('alice', 'pw')
    const bob = store.issueUserToken('bob', 'pw')
    // Each accepted once, so each is remembered.
    for (const token of ['a', 'b', alice, bob]) expect(store.authenticate(token)).toBeDefined()
    expect(store.authenticate('a')).toBe(store.authenticate('a'))

    store.rotate({ token: 'c', readonlyToken: 'd' })
    expect(store.authenticate('a')).toBeUndefined()
    expect(store.authenticate('b')).toBeUndefined()
    expect(store.authenticate('c')).toEqual({ kind: 'standard' })
    expect(store.authenticate('d')).toEqual({ kind: 'readonly' })

    store.revokeUserTokens('alice')
    expect(store.authenticate(alice)).toBeUndefined()
    expect(store.authenticate(bob)).toEqual({ kind: 'user', user: 'bob', password: 'pw' })

    store.revoke(store.lookup(bob)!.entry!)
    expect(store.authenticate(bob)).toBeUndefined()

    // Forgotten to make room (maxUserTokens 2) after being accepted.
    const carol = store.issueUserToken('carol', 'pw')
    const dave = store.issueUserToken('dave', 'pw')
    expect(store.authenticate(carol)).toBeDefined()
    store.issueUserToken('erin', 'pw')
    expect(store.authenticate(carol)).toBeUndefined()
    expect(store.authenticate(dave)).toBeDefined()

    store.revokeUserTokens()
    expect(store.authenticate(dave)).toBeUndefined()
  })

  test('remembered verdicts keep the stale flag of the entry they point to', () => {
    const store = new TokenStore({ token: 't' })
    const alice = store.issueUserToken('alice', 'pw')
    const entry = store.lookup(alice)!.entry!
    store.markStale(['alice'])
    expect(store.lookup(alice)!.entry).toBe(entry)
    expect(store.lookup(alice)!.entry!.stale).toBe(true)
  })

  test('more accepted tokens than are remembered: every one is still accepted, a wrong one still refused', () => {
    const store = new TokenStore({ token: 't', maxUserTokens: 5000 })
    const tokens = Array.from({ length: 2000 }, (_, i) => store.issueUserToken(`u${i}`, 'pw'))
    for (const token of tokens) expect(store.authenticate(token)).toBeDefined()
    for (const token of tokens) expect(store.authenticate(token)).toBeDefined()
    expect(store.authenticate('wrong')).toBeUndefined()
  })

  test('generated tokens are 32 random bytes, base64url', () => {
    const a = generateToken()
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(generateToken()).not.toBe(a)
  })
})
