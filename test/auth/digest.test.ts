import { describe, expect, test } from 'vitest'
import { bytesEqual, secretsEqual, sha256, sha256Hex } from '../../src/auth/digest.js'

describe('digest: SHA-256 and constant-time comparison', () => {
  test('sha256 matches the FIPS 180-2 example, strings hashed as UTF-8', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
    expect(sha256('é').equals(sha256(Buffer.from('é', 'utf8')))).toBe(true)
    expect(sha256('é').equals(sha256(Buffer.from('é', 'latin1')))).toBe(false)
  })

  test('bytesEqual: equal bytes only, different lengths unequal instead of throwing', () => {
    expect(bytesEqual(Buffer.from('abc'), Buffer.from('abc'))).toBe(true)
    expect(bytesEqual(Buffer.from('abc'), Buffer.from('abd'))).toBe(false)
    expect(bytesEqual(Buffer.from('abc'), Buffer.from('abcd'))).toBe(false)
  })

  test('secretsEqual compares any two secrets, of any lengths, strings and bytes alike', () => {
    expect(secretsEqual('s3cret', 's3cret')).toBe(true)
    expect(secretsEqual(Buffer.from('s3cret'), 's3cret')).toBe(true)
    expect(secretsEqual('s3cret', 's3cret!')).toBe(false)
    expect(secretsEqual('', 'x')).toBe(false)
  })
})
