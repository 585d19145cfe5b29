import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  decodeReply,
  decodeRequest,
  encodeCommands,
  encodeReplies,
  encodeReply,
  NEED_MORE,
  RequestDecoder,
  RespDecoder,
  RespProtocolError,
  type Decoded,
  type NeedMore,
} from '../../src/resp/index.js'
import { NULL_ARRAY, OK, PONG, QUEUED, ReplyError, Status, type Reply } from '../../src/reply.js'
import { feedOutcome, outcome, splitAt, type Outcome, type Pull } from './helpers.js'

/** One line of text that survives a round trip: any Unicode without CR or LF. */
const lineText = fc.string({ unit: 'grapheme', maxLength: 30 }).filter((s) => !/[\r\n]/.test(s))

const bytes = fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b))

/** Integers as the decoder returns them: numbers when safe, bigints beyond, up to 64 bits. */
const integer = fc.oneof(
  fc.maxSafeInteger(),
  fc.integer({ min: -1000, max: 1000 }),
  fc.bigInt({ min: 2n ** 53n, max: 2n ** 63n - 1n }),
  fc.bigInt({ min: -(2n ** 63n), max: -(2n ** 53n) }),
  fc.constantFrom(2n ** 63n - 1n, -(2n ** 63n), 2n ** 53n + 1n),
)

const { reply } = fc.letrec<{ reply: Reply }>((tie) => ({
  reply: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    integer,
    bytes,
    fc.constantFrom<Reply>(null, NULL_ARRAY, OK, PONG, QUEUED),
    lineText.map((t) => new Status(t)),
    lineText.map((t) => new ReplyError(t)),
    fc.array(tie('reply'), { maxLength: 5 }),
  ),
}))

/** Where to cut a stream: any offsets, reduced modulo its length by {@link splitAt}. */
const cuts = fc.array(fc.nat(), { maxLength: 8 })

const command = fc.array(bytes, { minLength: 1, maxLength: 6 })

/** Bytes that reach deep into the grammars, mixed with anything at all. */
const protocolByte = fc.oneof(
  fc.constantFrom(...Buffer.from('+-:$*\r\n\r\n0123456789 "\'\\x')),
  fc.integer({ min: 0, max: 255 }),
)
const noise = fc.array(protocolByte, { maxLength: 80 }).map((b) => Buffer.from(b))

type Mutation = { at: number; kind: 'set' | 'insert' | 'delete' | 'truncate'; byte: number }
const mutation: fc.Arbitrary<Mutation> = fc.record({
  at: fc.nat(),
  kind: fc.constantFrom('set', 'insert', 'delete', 'truncate'),
  byte: protocolByte,
})

function mutate(frame: Buffer, mutations: readonly Mutation[]): Buffer {
  let out = frame
  for (const { at, kind, byte } of mutations) {
    const i = at % (out.length + 1)
    const head = out.subarray(0, i)
    const tail = out.subarray(i)
    if (kind === 'set') out = Buffer.concat([head, Buffer.from([byte]), tail.subarray(1)])
    else if (kind === 'insert') out = Buffer.concat([head, Buffer.from([byte]), tail])
    else if (kind === 'delete') out = Buffer.concat([head, tail.subarray(1)])
    else out = head
  }
  return out
}

/** The stateless decoder's answer, in the form of an outcome's first step. */
function firstOf<T>(decode: () => Decoded<T> | NeedMore): { value: T } | { end: string } {
  try {
    const result = decode()
    return result === NEED_MORE ? { end: 'need-more' } : { value: result.value }
  } catch (error) {
    if (!(error instanceof RespProtocolError)) throw error
    return { end: error.message }
  }
}

/**
 * The contract under any input: only values, need-more or a RespProtocolError; the same answer
 * whatever the chunking; and the stateless decoder agreeing with the stream on the first value.
 */
function checkAnyInput<T>(
  input: Buffer,
  chunkCuts: number[],
  create: () => Pull<T>,
  decodeOne: (buf: Buffer) => Decoded<T> | NeedMore,
): void {
  const whole: Outcome<T> = outcome(create(), [input])
  expect(outcome(create(), splitAt(input, chunkCuts))).toStrictEqual(whole)
  const first = firstOf(() => decodeOne(input))
  expect(first).toStrictEqual(whole.values.length > 0 ? { value: whole.values[0] } : { end: whole.end })
}

describe('round trips', () => {
  it('decodeReply(encodeReply(x)) is x', () => {
    fc.assert(
      fc.property(reply, (x) => {
        const wire = encodeReply(x)
        expect(decodeReply(wire)).toStrictEqual({ value: x, end: wire.length })
      }),
      { numRuns: 2000 },
    )
  })

  it('a pipeline of replies decodes back in order under any chunking', () => {
    fc.assert(
      fc.property(fc.array(reply, { maxLength: 6 }), cuts, (replies, at) => {
        const wire = encodeReplies(replies)
        expect(outcome(new RespDecoder(), splitAt(wire, at))).toStrictEqual({ values: replies, end: 'need-more' })
      }),
      { numRuns: 1000 },
    )
  })

  it('a pipeline of replies decodes back in order under any chunking, through feed', () => {
    fc.assert(
      fc.property(fc.array(reply, { maxLength: 6 }), cuts, (replies, at) => {
        const wire = encodeReplies(replies)
        expect(feedOutcome(new RespDecoder(), splitAt(wire, at))).toStrictEqual({ values: replies, end: 'need-more' })
      }),
      { numRuns: 1000 },
    )
  })

  it('a pipeline of replies decodes back in order one byte at a time, through feed', () => {
    fc.assert(
      fc.property(fc.array(reply, { maxLength: 4 }), (replies) => {
        const wire = encodeReplies(replies)
        const oneByOne = Array.from(wire, (byte) => Buffer.from([byte]))
        expect(feedOutcome(new RespDecoder(), oneByOne)).toStrictEqual({ values: replies, end: 'need-more' })
      }),
      { numRuns: 300 },
    )
  })

  it('a pipeline of commands decodes back in order under any chunking', () => {
    fc.assert(
      fc.property(fc.array(command, { maxLength: 5 }), cuts, (commands, at) => {
        const wire = encodeCommands(commands)
        expect(outcome(new RequestDecoder(), splitAt(wire, at))).toStrictEqual({ values: commands, end: 'need-more' })
      }),
      { numRuns: 1000 },
    )
  })
})

/**
 * Decodes `chunks` choosing, chunk by chunk, `feed` or `push` then `next` until need-more: mixing
 * the two APIs on one decoder must not change what comes out.
 */
function mixedOutcome(chunks: readonly Buffer[], useFeed: readonly boolean[]): Outcome<Reply> {
  const decoder = new RespDecoder()
  const values: Reply[] = []
  try {
    chunks.forEach((chunk, i) => {
      if (useFeed[i % useFeed.length]) decoder.feed(chunk, (value) => values.push(value))
      else {
        decoder.push(chunk)
        for (let value = decoder.next(); value !== NEED_MORE; value = decoder.next()) values.push(value)
      }
    })
    return { values, end: 'need-more' }
  } catch (error) {
    if (!(error instanceof RespProtocolError)) throw error
    return { values, end: error.message }
  }
}

describe('fuzzing: feed agrees with push and next', () => {
  const replyInput = fc.oneof(
    noise,
    fc
      .tuple(fc.array(reply, { minLength: 1, maxLength: 3 }), fc.array(mutation, { maxLength: 3 }))
      .map(([xs, mutations]) => mutate(encodeReplies(xs), mutations)),
  )

  it('on random and mutated input, under any chunking', () => {
    fc.assert(
      fc.property(replyInput, cuts, cuts, (input, at, otherCuts) => {
        const pulled = outcome(new RespDecoder(), splitAt(input, at))
        expect(feedOutcome(new RespDecoder(), splitAt(input, at))).toStrictEqual(pulled)
        expect(feedOutcome(new RespDecoder(), splitAt(input, otherCuts))).toStrictEqual(pulled)
      }),
      { numRuns: 3000 },
    )
  })

  it('on random and mutated input, one byte at a time', () => {
    fc.assert(
      fc.property(replyInput, (input) => {
        const oneByOne = Array.from(input, (byte) => Buffer.from([byte]))
        expect(feedOutcome(new RespDecoder(), oneByOne)).toStrictEqual(outcome(new RespDecoder(), [input]))
      }),
      { numRuns: 1000 },
    )
  })

  it('with feed and push/next mixed on one decoder', () => {
    fc.assert(
      fc.property(replyInput, cuts, fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }), (input, at, useFeed) => {
        const chunks = splitAt(input, at)
        expect(mixedOutcome(chunks, useFeed)).toStrictEqual(outcome(new RespDecoder(), [input]))
      }),
      { numRuns: 2000 },
    )
  })
})

describe('fuzzing: values, need-more or RespProtocolError, nothing else', () => {
  const replies = { create: () => new RespDecoder(), decodeOne: (b: Buffer) => decodeReply(b) }
  const requests = { create: () => new RequestDecoder(), decodeOne: (b: Buffer) => decodeRequest(b) }

  it('reply decoder on random bytes', () => {
    fc.assert(
      fc.property(noise, cuts, (input, at) => checkAnyInput(input, at, replies.create, replies.decodeOne)),
      { numRuns: 3000 },
    )
  })

  it('request decoder on random bytes', () => {
    fc.assert(
      fc.property(noise, cuts, (input, at) => checkAnyInput(input, at, requests.create, requests.decodeOne)),
      { numRuns: 3000 },
    )
  })

  it('reply decoder on mutated valid replies', () => {
    fc.assert(
      fc.property(fc.array(reply, { minLength: 1, maxLength: 3 }), fc.array(mutation, { minLength: 1, maxLength: 3 }), cuts, (xs, mutations, at) =>
        checkAnyInput(mutate(encodeReplies(xs), mutations), at, replies.create, replies.decodeOne),
      ),
      { numRuns: 2000 },
    )
  })

  it('request decoder on mutated valid commands', () => {
    fc.assert(
      fc.property(fc.array(command, { minLength: 1, maxLength: 3 }), fc.array(mutation, { minLength: 1, maxLength: 3 }), cuts, (xs, mutations, at) =>
        checkAnyInput(mutate(encodeCommands(xs), mutations), at, requests.create, requests.decodeOne),
      ),
      { numRuns: 2000 },
    )
  })
})
