import { describe, expect, test } from 'vitest'
import { classify } from '../../src/adapters/resp/protocol-sniff.js'

const of = (text: string): ReturnType<typeof classify> => classify(Buffer.from(text, 'latin1'))

describe('telling RESP from HTTP by the first bytes', () => {
  test('a multibulk is RESP at its first byte', () => {
    expect(of('*')).toBe('resp')
    expect(of('*1\r\n$4\r\nPING\r\n')).toBe('resp')
  })

  test('HTTP/1.x request lines of every method are HTTP, with CRLF or a bare LF', () => {
    for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH']) {
      expect(of(`${method} /get/k HTTP/1.1\r\nHost: x\r\n`)).toBe('http')
    }
    expect(of('OPTIONS * HTTP/1.0\n')).toBe('http')
  })

  test('inline commands are RESP, even ones that start like a method', () => {
    expect(of('PING\r\n')).toBe('resp')
    expect(of('GET key\r\n')).toBe('resp')
    expect(of('GET / HTTP\r\n')).toBe('resp')
    expect(of('get /x HTTP/1.1\r\n')).toBe('resp') // methods are case-sensitive (RFC 9110, section 9.1)
    expect(of('POST /x HTTP/2\r\n')).toBe('resp')
  })

  test('an unfinished first line waits, up to 8 KiB, then is RESP', () => {
    expect(of('')).toBeUndefined()
    expect(of('GET /get/k HT')).toBeUndefined()
    expect(of('P')).toBeUndefined()
    expect(of('x'.repeat(8 * 1024))).toBe('resp')
  })
})
