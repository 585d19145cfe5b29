import { describe, expect, it } from 'vitest'
import {
  decodeRequest,
  encodeCommand,
  NEED_MORE,
  RequestDecoder,
  RespProtocolError,
  splitInlineArgs,
} from '../../src/resp/index.js'
import { drain, outcome, splitAt, valueOf } from './helpers.js'

const bin = (s: string): Buffer => Buffer.from(s, 'latin1')
const words = (...args: string[]): Buffer[] => args.map(bin)

/** Decodes `input` in one chunk and at every two-chunk split; all must agree. */
function decodesTo(input: string | Buffer, commands: Buffer[][], end = 'need-more'): void {
  const bytes = typeof input === 'string' ? bin(input) : input
  for (let k = 0; k <= bytes.length; k++) {
    expect(outcome(new RequestDecoder(), splitAt(bytes, [k]))).toStrictEqual({ values: commands, end })
  }
  const oneByOne = Array.from(bytes, (b) => Buffer.from([b]))
  expect(outcome(new RequestDecoder(), oneByOne)).toStrictEqual({ values: commands, end })
}

describe('RequestDecoder multibulk commands', () => {
  it('decodes an array of bulk strings into Buffers', () => {
    decodesTo('*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nvalue\r\n', [words('SET', 'k', 'value')])
  })

  it('keeps binary arguments intact, CRLF and NUL included', () => {
    const arg = bin('a\r\n\0b\xff')
    decodesTo(encodeCommand(['SET', 'k', arg]), [[bin('SET'), bin('k'), arg]])
  })

  it('decodes empty arguments', () => {
    decodesTo('*2\r\n$4\r\nECHO\r\n$0\r\n\r\n', [[bin('ECHO'), Buffer.alloc(0)]])
  })

  it('decodes pipelined commands in order', () => {
    const pipeline = Buffer.concat([encodeCommand(['PING']), encodeCommand(['GET', 'a']), encodeCommand(['DEL', 'a', 'b'])])
    decodesTo(pipeline, [words('PING'), words('GET', 'a'), words('DEL', 'a', 'b')])
  })

  it('accepts the same chunk instance pushed repeatedly', () => {
    const ping = bin('*1\r\n$4\r\nPING\r\n')
    const header = bin('*2\r\n')
    const decoder = new RequestDecoder()
    for (const chunk of [ping, ping, header, header]) decoder.push(chunk)
    expect(decoder.next()).toStrictEqual(words('PING'))
    expect(decoder.next()).toStrictEqual(words('PING'))
    expect(() => decoder.next()).toThrow("Protocol error: expected '$', got '*'")
  })

  it('skips empty and negative-count commands, as Redis does', () => {
    decodesTo('*0\r\n*-10\r\n*1\r\n$4\r\nPING\r\n', [words('PING')])
  })

  it('is stateless through decodeRequest, with the end offset', () => {
    const bytes = bin('*1\r\n$4\r\nPING\r\nGET')
    expect(decodeRequest(bytes)).toStrictEqual({ value: words('PING'), end: 14 })
    expect(decodeRequest(bytes, 14)).toBe(NEED_MORE)
    for (let k = 0; k < 14; k++) expect(decodeRequest(bytes.subarray(0, k))).toBe(NEED_MORE)
  })

  it('decodes a multi-megabyte argument fed in 64 KiB chunks', () => {
    const big = Buffer.alloc(5 * 1024 * 1024 + 1, 'z')
    const bytes = encodeCommand(['SET', 'k', big])
    const decoder = new RequestDecoder()
    const got = []
    for (let at = 0; at < bytes.length; at += 65536) {
      decoder.push(bytes.subarray(at, at + 65536))
      got.push(...drain(decoder))
    }
    expect(got).toHaveLength(1)
    expect(got[0][2].equals(big)).toBe(true)
  })
})

describe('RequestDecoder inline commands', () => {
  it('splits a line on spaces and tabs', () => {
    decodesTo('PING\r\n  set  a \t b  \r\n', [words('PING'), words('set', 'a', 'b')])
  })

  it('accepts a bare LF line ending', () => {
    decodesTo('GET k\nGET j\r\n', [words('GET', 'k'), words('GET', 'j')])
  })

  it('skips empty and blank lines', () => {
    decodesTo('\r\n\n   \r\nPING\r\n', [words('PING')])
  })

  it('mixes with multibulk commands on one connection', () => {
    decodesTo('PING\r\n*1\r\n$4\r\nPING\r\nECHO hi\n', [words('PING'), words('PING'), words('ECHO', 'hi')])
  })

  it('waits for the end of the line', () => {
    const decoder = new RequestDecoder()
    decoder.push(bin('SET k v'))
    expect(decoder.next()).toBe(NEED_MORE)
    decoder.push(bin('\r\n'))
    expect(decoder.next()).toStrictEqual(words('SET', 'k', 'v'))
  })
})

describe('splitInlineArgs (Redis sdssplitargs rules)', () => {
  const cases: [string, string[]][] = [
    ['', []],
    ['   ', []],
    ['a b', ['a', 'b']],
    ['\v\fa', ['a']],
    ['set "a b" c', ['set', 'a b', 'c']],
    ['""', ['']],
    ["''", ['']],
    ['"\\x41\\x4a\\x7e"', ['AJ~']],
    ['"\\xff\\x00"', ['\xff\x00']],
    ['"\\x4g"', ['x4g']],
    ['"\\n\\r\\t\\b\\a\\\\\\"\\q"', ['\n\r\t\b\x07\\"q']],
    ["'it\\'s'", ["it's"]],
    ["'a\\nb'", ['a\\nb']],
    ["'say \"hi\"'", ['say "hi"']],
    ['"it\'s"', ["it's"]],
    ['foo"bar"', ['foobar']],
    ["x'y z'", ['xy z']],
    ['"a"\t"b"', ['a', 'b']],
    ['a\rb', ['a', 'b']],
    ['a\0b', ['a\0b']],
  ]

  it.each(cases)('splits %j', (line, expected) => {
    expect(splitInlineArgs(bin(line))).toStrictEqual(words(...expected))
  })

  it.each(['"abc', "'abc", '"a"b', "'a'b", '"\\', '"abc\\"', "'abc\\'", 'a "b'])(
    'rejects %j with unbalanced quotes',
    (line) => {
      expect(() => splitInlineArgs(bin(line))).toThrow(new RespProtocolError('unbalanced quotes in request'))
    },
  )

  it('is applied to inline requests', () => {
    decodesTo('SET "k 1" \'v\\\'1\'\r\n', [words('SET', 'k 1', "v'1")])
    decodesTo('SET "k\r\n', [], 'Protocol error: unbalanced quotes in request')
  })
})

describe('RequestDecoder errors match Redis', () => {
  const cases: [string, string][] = [
    ['*3\r\n$3\r\nSET\r\n$1\r\nx\r\nfooz\r\n', "expected '$', got 'f'"],
    ['*1\r\nfoo\r\n', "expected '$', got 'f'"],
    ['*1\r\n\x00', "expected '$', got '\\x00'"],
    ['*3\r\n$3\r\nSET\r\n$1\r\nx\r\n$-10\r\n', 'invalid bulk length'],
    ['*3\r\n$3\r\nSET\r\n$1\r\nx\r\n$2000000000\r\n', 'invalid bulk length'],
    ['*3\r\n$3\r\nSET\r\n$1\r\nx\r\n$blabla\r\n', 'invalid bulk length'],
    ['*1\r\n$1073741824\r\n', 'invalid bulk length'],
    ['*1\r\n$4\n', 'invalid bulk length'],
    ['*abc\r\n', 'invalid multibulk length'],
    ['*2147483648\r\n', 'invalid multibulk length'],
    ['*99999999999999999999\r\n', 'invalid multibulk length'],
    ['*1\n', 'invalid multibulk length'],
    ['*1\r\n$4\r\nPINGxx', 'expected CRLF after bulk string'],
  ]

  it.each(cases)('rejects %j with "Protocol error: %s"', (input, reason) => {
    decodesTo(input, [], `Protocol error: ${reason}`)
  })

  it('refuses a 1 GB argument as soon as its header arrives', () => {
    const decoder = new RequestDecoder()
    decoder.push(bin('*2\r\n$3\r\nGET\r\n$1073741824\r\n'))
    expect(() => decoder.next()).toThrow('Protocol error: invalid bulk length')
  })

  it('refuses an inline request longer than 64 KiB, with or without its line end', () => {
    const long = 'x'.repeat(64 * 1024 + 1)
    const longest = bin(`${'x'.repeat(64 * 1024 - 1)}\r\n`)
    for (const cuts of [[], [1000], [65535], Array.from({ length: 70 }, (_, i) => i * 1000)]) {
      expect(outcome(new RequestDecoder(), splitAt(longest, cuts)).values).toStrictEqual([[longest.subarray(0, -2)]])
    }
    expect(outcome(new RequestDecoder(), [bin(long)]).end).toBe('Protocol error: too big inline request')
    expect(outcome(new RequestDecoder(), [bin(`${long}\r\n`)]).end).toBe('Protocol error: too big inline request')
    const pieces = splitAt(bin(long), Array.from({ length: 70 }, (_, i) => i * 1000))
    expect(outcome(new RequestDecoder(), pieces).end).toBe('Protocol error: too big inline request')
  })

  it('refuses count and length lines longer than 64 KiB before they end', () => {
    const digits = '1'.repeat(64 * 1024 + 1)
    expect(outcome(new RequestDecoder(), [bin(`*${digits}`)]).end).toBe('Protocol error: too big mbulk count string')
    expect(outcome(new RequestDecoder(), [bin(`*1\r\n$${digits}`)]).end).toBe(
      'Protocol error: too big bulk count string',
    )
  })

  it('applies maxBulkLength, maxArrayLength and maxInlineLength', () => {
    const options = { maxBulkLength: 3, maxArrayLength: 2, maxInlineLength: 8 }
    expect(valueOf(decodeRequest(bin('*2\r\n$3\r\nGET\r\n$3\r\nkey\r\n'), 0, options))).toStrictEqual(words('GET', 'key'))
    expect(() => decodeRequest(bin('*1\r\n$4\r\n'), 0, options)).toThrow('Protocol error: invalid bulk length')
    expect(() => decodeRequest(bin('*3\r\n'), 0, options)).toThrow('Protocol error: invalid multibulk length')
    expect(valueOf(decodeRequest(bin('GET key\r\n'), 0, options))).toStrictEqual(words('GET', 'key'))
    expect(() => decodeRequest(bin('GET keys\r\n'), 0, options)).toThrow('Protocol error: too big inline request')
  })
})

describe('RequestDecoder.authRequired: Redis 7 limits before authentication', () => {
  const failsWith = (decoder: RequestDecoder, input: string, message: string): void => {
    decoder.push(bin(input))
    expect(() => decoder.next()).toThrow(new RespProtocolError(message))
  }

  it('refuses more than 10 arguments and arguments over 16384 bytes, with Redis\'s texts', () => {
    failsWith(new RequestDecoder({ authRequired: true }), '*11\r\n', 'unauthenticated multibulk length')
    failsWith(new RequestDecoder({ authRequired: true }), '*1\r\n$16385\r\n', 'unauthenticated bulk length')
    // Redis's own limits come first.
    failsWith(new RequestDecoder({ authRequired: true, maxBulkLength: 100 }), '*1\r\n$101\r\n', 'invalid bulk length')
  })

  it('accepts commands at the limits, and anything once lifted (from the next command on)', () => {
    const decoder = new RequestDecoder({ authRequired: true })
    const ten = encodeCommand(Array.from({ length: 10 }, () => 'a'))
    const long = encodeCommand(['AUTH', 'x'.repeat(16384)])
    const big = encodeCommand(Array.from({ length: 11 }, () => 'b'))
    decoder.push(Buffer.concat([ten, long, big]))
    expect(decoder.next()).toHaveLength(10)
    expect(decoder.next()).toHaveLength(2)
    expect(decoder.authRequired).toBe(true)
    decoder.authRequired = false
    expect(decoder.next()).toHaveLength(11)
    decoder.authRequired = true
    failsWith(decoder, '*1\r\n$20000\r\n', 'unauthenticated bulk length')
  })
})
