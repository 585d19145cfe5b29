import { describe, expect, test } from 'vitest'
import { envelope, envelopes, replyToJson } from '../../src/rest/render.js'
import { NULL_ARRAY, OK, ReplyError, Status } from '../../src/reply.js'

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
