import { createHash } from 'node:crypto'
import { describe, expect, test } from 'vitest'
import { Receiver } from '@upstash/qstash'
import * as jose from 'jose'
import { bodyHash, generateSigningKey, signRequest, SignatureError, verifyRequest } from '../../src/workflow/signature.js'

const current = 'sig_current_key'
const next = 'sig_next_key'
const url = 'https://app.example/api/workflow'
const body = '[{"messageId":"msg_1","body":"e30=","callType":"step"}]'

describe('queue signatures (HS256 JWT over the URL and the body hash)', () => {
  test('a signature made here verifies with the SDK receiver (@upstash/qstash Receiver)', async () => {
    const receiver = new Receiver({ currentSigningKey: current, nextSigningKey: next })
    expect(await receiver.verify({ signature: signRequest({ url, body, key: current }), body, url })).toBe(true)
    expect(await receiver.verify({ signature: signRequest({ url, body, key: next }), body, url })).toBe(true)
    await expect(receiver.verify({ signature: signRequest({ url, body, key: current }), body: `${body} `, url })).rejects.toThrow(/body hash/)
  })

  test('a signature made with jose (as the hosted queue signs) verifies here', async () => {
    const now = Math.floor(Date.now() / 1000)
    const token = await new jose.SignJWT({ body: bodyHash(body) })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer('Upstash')
      .setSubject(url)
      .setIssuedAt(now)
      .setNotBefore(now)
      .setExpirationTime(now + 300)
      .setJti('jwt_abc')
      .sign(new TextEncoder().encode(current))
    const claims = verifyRequest({ signature: token, body, keys: [current, next], urls: [url] })
    expect(claims).toMatchObject({ iss: 'Upstash', sub: url, jti: 'jwt_abc' })
  })

  test('the claims name the destination and the base64url SHA-256 of the body', () => {
    const token = signRequest({ url, body, key: current, now: 1_700_000_000_000 })
    const [header, payload] = token.split('.')
    expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toEqual({ alg: 'HS256', typ: 'JWT' })
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString())
    expect(claims).toMatchObject({ iss: 'Upstash', sub: url, nbf: 1_700_000_000, iat: 1_700_000_000, exp: 1_700_000_300 })
    expect(claims.body).toBe(createHash('sha256').update(body).digest().toString('base64url'))
  })

  test('the current key is tried, then the next key', () => {
    expect(() => verifyRequest({ signature: signRequest({ url, body, key: next }), body, keys: [current, next] })).not.toThrow()
    expect(() => verifyRequest({ signature: signRequest({ url, body, key: 'other' }), body, keys: [current, next] })).toThrow(
      /does not match the current or the next signing key/,
    )
  })

  test.each([
    ['a missing signature', () => verifyRequest({ signature: null, body, keys: [current] }), /missing Upstash-Signature/],
    ['garbage', () => verifyRequest({ signature: 'not-a-jwt', body, keys: [current] }), /not a JWT/],
    ['a changed body', () => verifyRequest({ signature: signRequest({ url, body, key: current }), body: '[]', keys: [current] }), /body was changed/],
    [
      'another destination',
      () => verifyRequest({ signature: signRequest({ url: 'https://evil.example/x', body, key: current }), body, keys: [current], urls: [url] }),
      /not for this endpoint/,
    ],
    [
      'an expired signature',
      () => verifyRequest({ signature: signRequest({ url, body, key: current, now: Date.now() - 3_600_000 }), body, keys: [current] }),
      /expired/,
    ],
    [
      'a signature from the future',
      () => verifyRequest({ signature: signRequest({ url, body, key: current, now: Date.now() + 3_600_000 }), body, keys: [current] }),
      /not yet valid/,
    ],
    [
      'alg none',
      () => {
        const valid = signRequest({ url, body, key: current }).split('.')
        const none = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')
        return verifyRequest({ signature: `${none}.${valid[1]}.`, body, keys: [current] })
      },
      /unsupported signature algorithm/,
    ],
  ])('refuses %s', (_name, run, message) => {
    expect(run).toThrow(SignatureError)
    expect(run).toThrow(message)
  })

  test('generated keys look like the hosted queue keys', () => {
    expect(generateSigningKey()).toMatch(/^sig_[A-Za-z0-9_-]{28}$/)
    expect(generateSigningKey()).not.toBe(generateSigningKey())
  })
})
