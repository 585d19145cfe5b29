import { describe, expect, test } from 'vitest'
import { parseCall, requestToken, splitUrl } from '../../src/rest/request.js'
import { RestError } from '../../src/rest/errors.js'

const parse = (method: string, url: string, body?: string | Uint8Array) =>
  parseCall(method, splitUrl(url), typeof body === 'string' ? Buffer.from(body) : body)

const words = (call: ReturnType<typeof parse>) => {
  if (call instanceof RestError || call.type !== 'command') throw new Error(`not a command: ${JSON.stringify(call)}`)
  return call.command.map((arg) => (typeof arg === 'string' ? arg : `<${Buffer.from(arg).toString('hex')}>`))
}

describe('request forms', () => {
  test('command and arguments come from the path segments', () => {
    expect(words(parse('GET', '/set/key/value/EX/100'))).toEqual(['set', 'key', 'value', 'EX', '100'])
  })

  test('percent-escaped segments are decoded to their bytes, even when not UTF-8', () => {
    expect(words(parse('GET', '/set/a%2Fb/%FF%00'))).toEqual(['set', '<612f62>', '<ff00>'])
  })

  test('UTF-8 escapes decode to the same bytes as the text', () => {
    expect(words(parse('GET', '/get/caf%C3%A9'))).toEqual(['get', '<636166c3a9>'])
  })

  test('a POST body is appended as the last argument, query parameters follow it', () => {
    const call = parse('POST', '/set/key?EX=10&NX', 'the value')
    expect(words(call)).toEqual(['set', 'key', '<7468652076616c7565>', 'EX', '10', 'NX'])
  })

  test('the _token query parameter is not a command argument', () => {
    expect(words(parse('GET', '/get/key?_token=secret'))).toEqual(['get', 'key'])
  })

  test('a single trailing slash is tolerated', () => {
    expect(words(parse('GET', '/get/key/'))).toEqual(['get', 'key'])
  })

  test('an empty segment in the middle of the path is refused with 400', () => {
    const call = parse('GET', '/set//value')
    expect(call).toBeInstanceOf(RestError)
    expect((call as RestError).status).toBe(400)
    expect((call as RestError).message).toMatch(/^ERR empty path segment/)
  })

  test('POST / takes the whole command as a JSON array of strings and numbers', () => {
    expect(words(parse('POST', '/', '["SET", "k", 12, -1.5e3]'))).toEqual(['SET', 'k', '12', '-1.5e3'])
  })

  test('numbers in a JSON command keep their exact digits beyond 2^53', () => {
    expect(words(parse('POST', '/', '["SET","k",12345678901234567890]'))).toEqual(['SET', 'k', '12345678901234567890'])
  })

  test('JSON string escapes are decoded', () => {
    expect(words(parse('POST', '/', '["SET","k","a\\"b\\u00e9\\n"]'))).toEqual(['SET', 'k', 'a"bé\n'])
  })

  test.each([
    ['not JSON', 'SET k v'],
    ['an object', '{"cmd":"SET"}'],
    ['a nested array', '[["SET","k","v"]]'],
    ['a misspelt boolean', '["SET","k",tru]'],
    ['a word after a boolean', '["SET","k",truex]'],
    ['trailing garbage', '["PING"] x'],
    ['an unterminated string', '["PING'],
    ['an empty array', '[]'],
  ])('POST / with %s is a 400 with an ERR text', (_what, body) => {
    const call = parse('POST', '/', body)
    expect(call).toBeInstanceOf(RestError)
    expect((call as RestError).status).toBe(400)
    expect((call as RestError).message).toMatch(/^ERR /)
  })

  test('JSON booleans are the arguments "true" and "false", as the hosted service stores them', () => {
    expect(words(parse('POST', '/', '["HSET","h","a",true,"b", false ]'))).toEqual(['HSET', 'h', 'a', 'true', 'b', 'false'])
    const call = parse('POST', '/pipeline', '[["SET","a",true],["SET","b",false]]')
    expect(call).toEqual({ type: 'pipeline', commands: [['SET', 'a', 'true'], ['SET', 'b', 'false']] })
  })

  test('a JSON null argument is a 400 naming its index (and its row in a pipeline)', () => {
    const single = parse('POST', '/', '["SET","k",null]') as RestError
    expect(single).toBeInstanceOf(RestError)
    expect(single.status).toBe(400)
    expect(single.message).toBe('ERR null is not a command argument (index 2 of the command): send a string, a number or a boolean (at offset 11 of the request body)')
    const row = parse('POST', '/multi-exec', '[["SET","a","1"],["HSET","h","f",null]]') as RestError
    expect(row).toBeInstanceOf(RestError)
    expect(row.message).toMatch(/^ERR null is not a command argument \(index 3 of command 1\)/)
  })

  test('/pipeline takes a two-dimensional array', () => {
    const call = parse('POST', '/pipeline', '[["SET","a","1"],["GET","a"]]')
    expect(call).toEqual({ type: 'pipeline', commands: [['SET', 'a', '1'], ['GET', 'a']] })
  })

  test('/multi-exec takes a two-dimensional array', () => {
    const call = parse('POST', '/multi-exec', '[["INCR","a"]]')
    expect(call).toEqual({ type: 'transaction', commands: [['INCR', 'a']] })
  })

  test.each([
    ['a flat array', '["SET","a","1"]'],
    ['an empty command', '[["SET","a","1"],[]]'],
    ['no commands', '[]'],
    ['no body', ''],
  ])('/pipeline with %s is a 400', (_what, body) => {
    expect(parse('POST', '/pipeline', body)).toBeInstanceOf(RestError)
  })

  test('/monitor, /subscribe/<channel> and /psubscribe/<pattern> are streams', () => {
    expect(parse('POST', '/monitor')).toEqual({ type: 'monitor' })
    expect(parse('POST', '/subscribe/news')).toEqual({ type: 'subscribe', kind: 'channel', names: ['news'] })
    expect(parse('POST', '/psubscribe/news.*')).toEqual({ type: 'subscribe', kind: 'pattern', names: ['news.*'] })
  })

  test('GET / without a body is an empty command', () => {
    expect(parse('GET', '/')).toBeInstanceOf(RestError)
  })
})

describe('tokens', () => {
  const headers = (entries: Record<string, string>) => ({ get: (name: string) => entries[name.toLowerCase()] ?? null })

  test('Authorization: Bearer is read, scheme case-insensitive', () => {
    expect(requestToken(headers({ authorization: 'bearer abc' }), '')).toBe('abc')
  })

  test('_token query parameter is read when there is no header', () => {
    expect(requestToken(headers({}), 'a=1&_token=xyz')).toBe('xyz')
  })

  test('no token at all is undefined', () => {
    expect(requestToken(headers({ authorization: 'Basic abc' }), '')).toBeUndefined()
  })
})
