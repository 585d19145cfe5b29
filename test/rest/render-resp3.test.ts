import { describe, expect, test } from 'vitest'
import { replyToJson } from '../../src/rest/render.js'
import {
  AttributedReply,
  BigNumber,
  BlobError,
  ReplyDouble,
  ReplyMap,
  ReplyPush,
  ReplySet,
  VerbatimString,
} from '../../src/reply.js'

const bytes = (text: string): Buffer => Buffer.from(text)

describe('RESP3 reply types in JSON (docs/protocol.md): their RESP2 form', () => {
  test('maps as flat arrays, sets and pushes as arrays, doubles and big numbers as strings, booleans as 1/0', () => {
    const reply = [
      new ReplyMap([bytes('a'), new ReplyDouble('1.5')]),
      new ReplySet([bytes('m')]),
      new ReplyPush([bytes('message'), bytes('c'), bytes('x')]),
      true,
      false,
      new BigNumber('123456789012345678901234567890'),
      new VerbatimString('txt', bytes('hello')),
      new AttributedReply([bytes('k'), 1], 7),
      new ReplyDouble('-inf'),
    ]
    expect(replyToJson(reply)).toBe(
      '[["a","1.5"],["m"],["message","c","x"],1,0,"123456789012345678901234567890","hello",7,"-inf"]',
    )
    expect(replyToJson(new ReplyMap([bytes('k'), bytes('v')]), 'base64')).toBe('["aw==","dg=="]')
  })

  test('a blob error as an error object, its text whole (JSON escapes the line breaks)', () => {
    expect(replyToJson(new BlobError('ERR a\r\nb'))).toBe('{"error":"ERR a\\r\\nb"}')
  })
})
