import { describe, expect, test } from 'vitest'
import { envelope, envelopes, replyToJson } from '../../src/rest/render.js'
import { NULL_ARRAY, OK, ReplyError, Status, type Reply } from '../../src/reply.js'

const bytes = (text: string) => Buffer.from(text, 'latin1')

describe('JSON rendering', () => {
  test('integers beyond 2^53 are written digit for digit', () => {
    expect(envelope(9223372036854775807n)).toBe('{"result":9223372036854775807}')
    expect(envelope(-9223372036854775808n)).toBe('{"result":-9223372036854775808}')
  })

  test('bulk strings are UTF-8 with invalid bytes replaced by U+FFFD', () => {
    expect(envelope(Buffer.from([0x61, 0xff, 0x62]))).toBe('{"result":"a\uFFFDb"}')
  })

  test('null bulk and null array are both null', () => {
    expect(envelope(null)).toBe('{"result":null}')
    expect(envelope(NULL_ARRAY)).toBe('{"result":null}')
  })

  test('simple strings are their text', () => {
    expect(envelope(OK)).toBe('{"result":"OK"}')
  })

  test('errors are error envelopes', () => {
    expect(envelope(new ReplyError('ERR nope'))).toBe('{"error":"ERR nope"}')
  })

  test('nested arrays keep their shape', () => {
    expect(replyToJson([bytes('a'), [1, null, [bytes('b')]], []])).toBe('["a",[1,null,["b"]],[]]')
  })

  test('base64 encodes every string at every depth except the OK status', () => {
    expect(replyToJson([bytes('a'), [new Status('PONG'), OK, 3]], 'base64')).toBe('["YQ==",["UE9ORw==","OK",3]]')
  })

  test('base64 keeps binary bytes exactly', () => {
    expect(envelope(Buffer.from([0xff, 0x00]), 'base64')).toBe('{"result":"/wA="}')
  })

  test('pipelines render one envelope per reply', () => {
    expect(envelopes([OK, new ReplyError('ERR x'), 1])).toBe('[{"result":"OK"},{"error":"ERR x"},{"result":1}]')
  })
})

describe('JSON rendering against its definition', () => {
  /** Deterministic pseudo-random numbers (a fixed seed: the same cases every run). */
  function random(seed: number): () => number {
    let state = seed >>> 0
    return () => {
      state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0
      return state / 2 ** 32
    }
  }
  const next = random(20261121)
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]
  /** Bytes that exercise every branch: printable ASCII, `"` and `\`, controls, DEL, UTF-8, invalid UTF-8. */
  const BYTES = [0x61, 0x7a, 0x20, 0x7e, 0x22, 0x5c, 0x00, 0x0a, 0x1f, 0x7f, 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80, 0xff, 0x80]
  const bulk = (): Uint8Array => {
    const length = pick([0, 1, 3, 11, 12, 13, 20, 40])
    const plain = next() < 0.5
    const out = Buffer.alloc(length)
    for (let i = 0; i < length; i++) out[i] = plain ? 0x20 + Math.floor(next() * 95) : pick(BYTES)
    // Sometimes a view into a larger buffer, as replies often are.
    if (next() < 0.3) {
      const pool = Buffer.alloc(length + 8, 0x22)
      out.copy(pool, 4)
      return pool.subarray(4, 4 + length)
    }
    return out
  }
  const reply = (depth = 0): Reply => {
    const kind = next()
    if (kind < 0.5) return bulk()
    if (kind < 0.6) return Math.floor(next() * 2000) - 1000
    if (kind < 0.65) return 2n ** 63n - 1n
    if (kind < 0.7) return null
    if (kind < 0.75) return new ReplyError(`ERR "${Buffer.from(bulk()).toString('latin1')}"`)
    if (kind < 0.8) return new Status(pick(['OK', 'QUEUED', 'PONG']))
    if (kind < 0.9 && depth < 2) return Array.from({ length: Math.floor(next() * 4) }, () => reply(depth + 1))
    return NULL_ARRAY
  }
  const decoder = new TextDecoder()

  test('a bulk string is JSON.stringify of its UTF-8 text, for random bytes', () => {
    for (let i = 0; i < 5000; i++) {
      const value = bulk()
      expect(replyToJson(value)).toBe(JSON.stringify(decoder.decode(value)))
      expect(replyToJson(value, 'base64')).toBe(JSON.stringify(Buffer.from(value).toString('base64')))
    }
  })

  test('envelopes are the envelopes of each reply, comma-separated, for random replies', () => {
    for (let i = 0; i < 2000; i++) {
      const replies = Array.from({ length: Math.floor(next() * 6) }, () => reply())
      for (const encoding of ['utf8', 'base64'] as const) {
        const text = envelopes(replies, encoding)
        expect(text).toBe(`[${replies.map((r) => envelope(r, encoding)).join(',')}]`)
        expect(() => JSON.parse(text)).not.toThrow()
      }
    }
  })
})
