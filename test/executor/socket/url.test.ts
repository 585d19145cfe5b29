import { describe, expect, test } from 'vitest'
import { parseRedisUrl, redact, resolveOptions, DEFAULTS } from '../../../src/executor/socket/options.js'

describe('redis:// URLs', () => {
  test('host, port, password and database in the path', () => {
    expect(parseRedisUrl('redis://:secret@example.com:6380/2')).toEqual({ host: 'example.com', port: 6380, password: 'secret', database: 2 })
  })

  test('a user and a password, percent-decoded', () => {
    expect(parseRedisUrl('redis://alice:p%40ss%3Aword@127.0.0.1')).toEqual({ host: '127.0.0.1', username: 'alice', password: 'p@ss:word' })
  })

  test('an IPv6 host loses its brackets', () => {
    expect(parseRedisUrl('redis://[::1]:7000')).toEqual({ host: '::1', port: 7000 })
  })

  test('query options: db, clientName, timeouts, pool size, limits', () => {
    expect(
      parseRedisUrl('redis://h/?db=3&clientName=gw&connectTimeout=100&commandTimeout=200&poolSize=2&maxPending=10&maxReplyBytes=1024'),
    ).toEqual({ host: 'h', database: 3, clientName: 'gw', connectTimeout: 100, commandTimeout: 200, poolSize: 2, maxPending: 10, maxReplyBytes: 1024 })
  })

  test('rediss:// turns TLS on, with rejectUnauthorized and servername from the query', () => {
    expect(parseRedisUrl('rediss://h:6390')).toEqual({ host: 'h', port: 6390, tls: {} })
    expect(parseRedisUrl('rediss://h?rejectUnauthorized=false&servername=redis.local')).toEqual({
      host: 'h',
      tls: { rejectUnauthorized: false, servername: 'redis.local' },
    })
  })

  test('other schemes, unknown options and malformed numbers are refused', () => {
    expect(() => parseRedisUrl('http://h')).toThrow(/unsupported Redis URL scheme/)
    expect(() => parseRedisUrl('redis://h/?colour=blue')).toThrow(/unknown Redis URL option 'colour'/)
    expect(() => parseRedisUrl('redis://h/abc')).toThrow(/invalid database/)
    expect(() => parseRedisUrl('redis://h/?commandTimeout=-1')).toThrow(/invalid commandTimeout/)
    expect(() => parseRedisUrl('redis://h/?rejectUnauthorized=false')).toThrow(/needs a rediss:\/\/ URL/)
    expect(() => parseRedisUrl('not a url')).toThrow(/invalid Redis URL/)
  })

  test('redact hides the password', () => {
    expect(redact('redis://alice:secret@h:1/0')).toBe('redis://alice:***@h:1/0')
    expect(redact('redis://:secret@h')).toBe('redis://:***@h')
    expect(redact('redis://h:1')).toBe('redis://h:1')
  })
})

describe('resolving options', () => {
  test('defaults: 127.0.0.1:6379, database 0, pool of 4, 5 s connect and 10 s command timeouts, 512 MiB replies', () => {
    const config = resolveOptions({})
    expect(config).toMatchObject({ host: '127.0.0.1', port: 6379, database: 0, tls: undefined, poolSize: 4, connectTimeout: 5000, commandTimeout: 10000 })
    expect(config.maxReplyBytes).toBe(512 * 1024 * 1024)
    expect(config.maxPending).toBe(DEFAULTS.maxPending)
  })

  test('explicit options win over the URL', () => {
    const config = resolveOptions({ url: 'redis://u:p@h:1/2?poolSize=8', port: 2, database: 5, password: 'q' })
    expect(config).toMatchObject({ host: 'h', port: 2, username: 'u', password: 'q', database: 5, poolSize: 8 })
  })

  test('TLS options pass through, merged over the URL; servername defaults to a host name, not an IP', () => {
    const ca = 'PEM'
    expect(resolveOptions({ url: 'rediss://redis.example', tls: { ca } }).tls).toEqual({ servername: 'redis.example', ca })
    expect(resolveOptions({ host: '127.0.0.1', tls: true }).tls).toEqual({ servername: undefined })
    expect(resolveOptions({ url: 'rediss://h', tls: false }).tls).toBeUndefined()
  })

  test('impossible values are refused at construction', () => {
    expect(() => resolveOptions({ poolSize: 0 })).toThrow(/poolSize/)
    expect(() => resolveOptions({ port: 70000 })).toThrow(/invalid port/)
    expect(() => resolveOptions({ clientName: 'has space' })).toThrow(/clientName/)
    expect(() => resolveOptions({ database: -1 })).toThrow(/invalid database/)
  })
})
