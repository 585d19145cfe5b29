import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  decodeReply,
  encodeReply,
  encodeResp3Replies,
  encodeResp3Reply,
  RespDecoder,
  RespProtocolError,
} from '../../src/resp/index.js'
import {
  AttributedReply,
  BigNumber,
  BlobError,
  NULL_ARRAY,
  OK,
  ReplyDouble,
  ReplyError,
  ReplyMap,
  ReplyPush,
  ReplySet,
  Status,
  toResp2,
  VerbatimString,
  type Reply,
} from '../../src/reply.js'
import { feedOutcome, outcome, splitAt, valueOf, type Fixture } from './helpers.js'

const bin = (s: string): Buffer => Buffer.from(s, 'latin1')

/** Every RESP3 type, alone and nested, in the bytes Redis 7 writes. */
const fixtures: readonly Fixture[] = [
  { name: 'null', bytes: bin('_\r\n'), value: null },
  { name: 'true', bytes: bin('#t\r\n'), value: true },
  { name: 'false', bytes: bin('#f\r\n'), value: false },
  { name: 'double', bytes: bin(',3.1400000000000001\r\n'), value: new ReplyDouble('3.1400000000000001') },
  { name: 'double inf', bytes: bin(',inf\r\n'), value: new ReplyDouble('inf') },
  { name: 'double -inf', bytes: bin(',-inf\r\n'), value: new ReplyDouble('-inf') },
  { name: 'double nan', bytes: bin(',nan\r\n'), value: new ReplyDouble('nan') },
  { name: 'double with exponent', bytes: bin(',1.5e+300\r\n'), value: new ReplyDouble('1.5e+300') },
  {
    name: 'big number',
    bytes: bin('(3492890328409238509324850943850943825024385\r\n'),
    value: new BigNumber('3492890328409238509324850943850943825024385'),
  },
  { name: 'negative big number', bytes: bin('(-12345678901234567890\r\n'), value: new BigNumber('-12345678901234567890') },
  { name: 'verbatim', bytes: bin('=15\r\ntxt:Some string\r\n'), value: new VerbatimString('txt', bin('Some string')) },
  { name: 'empty verbatim', bytes: bin('=4\r\nmkd:\r\n'), value: new VerbatimString('mkd', bin('')) },
  { name: 'verbatim with CRLF inside', bytes: bin('=10\r\ntxt:a\r\nb\r\n\r\n'), value: new VerbatimString('txt', bin('a\r\nb\r\n')) },
  { name: 'blob error', bytes: bin('!21\r\nSYNTAX invalid syntax\r\n'), value: new BlobError('SYNTAX invalid syntax') },
  { name: 'blob error with CRLF', bytes: bin('!8\r\nERR a\r\nb\r\n'), value: new BlobError('ERR a\r\nb') },
  { name: 'empty map', bytes: bin('%0\r\n'), value: new ReplyMap([]) },
  {
    name: 'map',
    bytes: bin('%2\r\n+first\r\n:1\r\n$6\r\nsecond\r\n,2.5\r\n'),
    value: new ReplyMap([new Status('first'), 1, bin('second'), new ReplyDouble('2.5')]),
  },
  { name: 'empty set', bytes: bin('~0\r\n'), value: new ReplySet([]) },
  { name: 'set', bytes: bin('~3\r\n$1\r\na\r\n:2\r\n#f\r\n'), value: new ReplySet([bin('a'), 2, false]) },
  {
    name: 'push',
    bytes: bin('>3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$2\r\nhi\r\n'),
    value: new ReplyPush([bin('message'), bin('ch'), bin('hi')]),
  },
  {
    name: 'attribute before a reply',
    bytes: bin('|1\r\n+ttl\r\n:3600\r\n*2\r\n:1\r\n:2\r\n'),
    value: new AttributedReply([new Status('ttl'), 3600], [1, 2]),
  },
  { name: 'empty attribute', bytes: bin('|0\r\n:5\r\n'), value: new AttributedReply([], 5) },
  {
    name: 'attribute inside an array',
    bytes: bin('*2\r\n|1\r\n+k\r\n+v\r\n:1\r\n:2\r\n'),
    value: [new AttributedReply([new Status('k'), new Status('v')], 1), 2],
  },
  {
    name: 'maps of sets of arrays, nested',
    bytes: bin('%1\r\n$1\r\nk\r\n~2\r\n*2\r\n_\r\n%0\r\n>1\r\n(1\r\n'),
    value: new ReplyMap([bin('k'), new ReplySet([[null, new ReplyMap([])], new ReplyPush([new BigNumber('1')])])]),
  },
  {
    name: 'RESP2 types among RESP3 ones',
    bytes: bin('*6\r\n+OK\r\n-ERR x\r\n$-1\r\n*-1\r\n:9223372036854775807\r\n#t\r\n'),
    value: [OK, new ReplyError('ERR x'), null, NULL_ARRAY, 2n ** 63n - 1n, true],
  },
]

describe('RESP3 decoding', () => {
  for (const fixture of fixtures) {
    it(`${fixture.name}: whole, and split at every byte (pull and feed)`, () => {
      expect(valueOf(decodeReply(fixture.bytes))).toStrictEqual(fixture.value)
      const twice = Buffer.concat([fixture.bytes, fixture.bytes])
      for (let cut = 0; cut <= twice.length; cut++) {
        const chunks = splitAt(twice, [cut])
        expect(outcome(new RespDecoder(), chunks)).toStrictEqual({ values: [fixture.value, fixture.value], end: 'need-more' })
        expect(feedOutcome(new RespDecoder(), chunks)).toStrictEqual({ values: [fixture.value, fixture.value], end: 'need-more' })
      }
      // One byte at a time.
      const bytes = [...twice].map((b) => Buffer.from([b]))
      expect(outcome(new RespDecoder(), bytes).values).toStrictEqual([fixture.value, fixture.value])
      expect(feedOutcome(new RespDecoder(), bytes).values).toStrictEqual([fixture.value, fixture.value])
    })
  }

  const refused: [string, string, string][] = [
    ['a map length beyond maxArrayLength', '%3000000000\r\n', 'invalid aggregate length'],
    ['a negative set length', '~-1\r\n', 'invalid aggregate length'],
    ['a push length that is not a number', '>x\r\n', 'invalid aggregate length'],
    ['a verbatim length beyond 512 MiB', '=999999999999\r\n', 'invalid bulk length'],
    ['a negative blob error length', '!-1\r\n', 'invalid bulk length'],
    ['a verbatim string without its format', '=3\r\ntxt\r\n', 'invalid verbatim string'],
    ['a verbatim string without the colon', '=5\r\ntxt-a\r\n', 'invalid verbatim string'],
    ['a boolean other than t or f', '#x\r\n', 'invalid boolean'],
    ['a null with text', '_x\r\n', 'invalid null'],
    ['a double that is not a number', ',1.2.3\r\n', 'invalid double'],
    ['an empty double', ',\r\n', 'invalid double'],
    ['a big number with a fraction', '(1.5\r\n', 'invalid big number'],
    ['a blob error body without CRLF', '!3\r\nERRxx', 'expected CRLF after bulk string'],
  ]
  for (const [name, wire, reason] of refused) {
    it(`refuses ${name} with a typed error`, () => {
      expect(() => decodeReply(bin(wire))).toThrow(new RespProtocolError(reason))
      expect(outcome(new RespDecoder(), [bin(wire)]).end).toBe(`Protocol error: ${reason}`)
    })
  }

  it('refuses an absurd map length before allocating for it', () => {
    const decoder = new RespDecoder({ maxArrayLength: 1000 })
    expect(outcome(decoder, [bin('%1001\r\n')]).end).toBe('Protocol error: invalid aggregate length')
  })

  it('refuses aggregates nested deeper than maxDepth, at any split, and accepts maxDepth itself', () => {
    const nested = (depth: number, open: string): Buffer => bin(open.repeat(depth) + ':1\r\n')
    expect(valueOf(decodeReply(nested(8, '*1\r\n'), 0, { maxDepth: 8 }))).toStrictEqual([[[[[[[[1]]]]]]]])
    for (const open of ['*1\r\n', '~1\r\n', '>1\r\n', '%1\r\n:0\r\n', '|0\r\n*1\r\n']) {
      const deep = nested(9, open)
      expect(() => decodeReply(deep, 0, { maxDepth: 8 })).toThrow('too many nested aggregates')
      for (let cut = 0; cut <= deep.length; cut++) {
        expect(feedOutcome(new RespDecoder({ maxDepth: 8 }), splitAt(deep, [cut])).end).toBe('Protocol error: too many nested aggregates')
      }
    }
    // The default bound, 2^20 levels.
    expect(() => decodeReply(bin('~1\r\n'.repeat(2 ** 20 + 1)))).toThrow('too many nested aggregates')
  })

  it('assembles a large split verbatim string with one copy per chunk', () => {
    const text = Buffer.alloc(1 << 20, 0x61)
    const wire = Buffer.concat([bin(`=${text.length + 4}\r\ntxt:`), text, bin('\r\n')])
    const chunks = splitAt(wire, Array.from({ length: 16 }, (_, i) => i * 65536 + 3))
    const [value] = outcome(new RespDecoder(), chunks).values as VerbatimString[]
    expect(value.format).toBe('txt')
    expect(Buffer.from(value.text).equals(text)).toBe(true)
  })
})

describe('RESP3 encoding', () => {
  for (const fixture of fixtures) {
    // A null array has no RESP3 form of its own: it is written `_`, like the null bulk.
    if (fixture.name === 'RESP2 types among RESP3 ones') continue
    it(`${fixture.name}: written as Redis writes it`, () => {
      expect(encodeResp3Reply(fixture.value).toString('latin1')).toBe(fixture.bytes.toString('latin1'))
    })
  }

  it('writes both RESP2 nulls as _', () => {
    expect(encodeResp3Replies([null, NULL_ARRAY, [null, NULL_ARRAY]]).toString()).toBe('_\r\n_\r\n*2\r\n_\r\n_\r\n')
  })

  it('refuses a map with an odd number of items', () => {
    expect(() => encodeResp3Reply(new ReplyMap([bin('k')]))).toThrow(TypeError)
  })

  it('writes the RESP3 types in RESP2 as Redis writes the same data there', () => {
    const reply: Reply = [
      new ReplyMap([bin('a'), new ReplyDouble('1.5')]),
      new ReplySet([bin('m')]),
      new ReplyPush([bin('message'), bin('c'), bin('x')]),
      true,
      false,
      new BigNumber('123456789012345678901234567890'),
      new VerbatimString('txt', bin('hello')),
      new AttributedReply([bin('k'), 1], 7),
      new BlobError('ERR a\r\nb'),
      new ReplyDouble('inf'),
    ]
    expect(encodeReply(reply).toString()).toBe(
      '*10\r\n*2\r\n$1\r\na\r\n$3\r\n1.5\r\n*1\r\n$1\r\nm\r\n*3\r\n$7\r\nmessage\r\n$1\r\nc\r\n$1\r\nx\r\n:1\r\n:0\r\n' +
        '$30\r\n123456789012345678901234567890\r\n$5\r\nhello\r\n:7\r\n-ERR a  b\r\n$3\r\ninf\r\n',
    )
    expect(toResp2(reply)).toStrictEqual(valueOf(decodeReply(encodeReply(reply))))
  })
})

const bytes = fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b))
const lineText = fc.string({ maxLength: 20 }).filter((s) => !/[\r\n]/.test(s))
const doubleText = fc.oneof(
  fc.double().map((d) => (Number.isNaN(d) ? 'nan' : d === Infinity ? 'inf' : d === -Infinity ? '-inf' : String(d))),
  fc.constantFrom('inf', '-inf', 'nan', '0', '-0', '1.7976931348623157e+308'),
)
const pairs = (item: fc.Arbitrary<Reply>): fc.Arbitrary<Reply[]> =>
  fc.array(fc.tuple(item, item), { maxLength: 3 }).map((list) => list.flat())

const { reply } = fc.letrec<{ reply: Reply }>((tie) => ({
  reply: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.oneof(fc.maxSafeInteger(), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map((n) => (Number.isSafeInteger(Number(n)) ? Number(n) : n))),
    bytes,
    fc.constantFrom<Reply>(null, OK, true, false),
    lineText.map((t) => new Status(t)),
    lineText.map((t) => new ReplyError(t)),
    fc.string({ maxLength: 20 }).map((t) => new BlobError(t)),
    doubleText.map((t) => new ReplyDouble(t)),
    fc.bigInt().map((n) => new BigNumber(n.toString())),
    fc.tuple(fc.constantFrom('txt', 'mkd'), bytes).map(([format, text]) => new VerbatimString(format, text)),
    fc.array(tie('reply'), { maxLength: 4 }),
    pairs(tie('reply')).map((entries) => new ReplyMap(entries)),
    fc.array(tie('reply'), { maxLength: 4 }).map((items) => new ReplySet(items)),
    fc.array(tie('reply'), { maxLength: 4 }).map((items) => new ReplyPush(items)),
    fc.tuple(pairs(tie('reply')), tie('reply')).map(([attributes, value]) => new AttributedReply(attributes, value)),
  ),
}))

/** Bytes that reach deep into the RESP3 grammar, mixed with anything at all. */
const noise = fc
  .array(fc.oneof(fc.constantFrom(...Buffer.from('_,#!=(%~|>*$:+-\r\n\r\n0123456789tfinax:')), fc.integer({ min: 0, max: 255 })), { maxLength: 80 })
  .map((b) => Buffer.from(b))

describe('RESP3 fuzzing', () => {
  it('decode(encodeResp3(x)) is x, whatever the chunking, through pull and feed', () => {
    fc.assert(
      fc.property(fc.array(reply, { minLength: 1, maxLength: 4 }), fc.array(fc.nat(), { maxLength: 8 }), (replies, cuts) => {
        const wire = encodeResp3Replies(replies)
        const chunks = splitAt(wire, cuts)
        expect(outcome(new RespDecoder(), chunks)).toStrictEqual({ values: replies, end: 'need-more' })
        expect(feedOutcome(new RespDecoder(), chunks)).toStrictEqual({ values: replies, end: 'need-more' })
        // And RESP2 writing of the same replies decodes to their RESP2 form.
        expect(valueOf(decodeReply(encodeReply(replies)))).toStrictEqual(toResp2(replies))
      }),
      { numRuns: 400 },
    )
  })

  it('any bytes give values, need-more or a RespProtocolError, the same at any chunking', () => {
    fc.assert(
      fc.property(noise, fc.array(fc.nat(), { maxLength: 8 }), (input, cuts) => {
        const whole = outcome(new RespDecoder({ maxDepth: 16 }), [input])
        expect(outcome(new RespDecoder({ maxDepth: 16 }), splitAt(input, cuts))).toStrictEqual(whole)
        expect(feedOutcome(new RespDecoder({ maxDepth: 16 }), splitAt(input, cuts))).toStrictEqual(whole)
      }),
      { numRuns: 2000 },
    )
  })
})
