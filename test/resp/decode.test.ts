import { afterEach, describe, expect, it, vi } from 'vitest'
import { decodeReply, NEED_MORE, RespDecoder, RespProtocolError } from '../../src/resp/index.js'
import { OK, PONG, QUEUED, ReplyError, Status, type Reply } from '../../src/reply.js'
import { drain, feedOutcome, fixtures, outcome, splitAt, valueOf } from './helpers.js'

const bin = (s: string): Buffer => Buffer.from(s, 'latin1')

describe('decodeReply (stateless)', () => {
  it.each(fixtures)('decodes $name and reports the end offset', ({ bytes, value }) => {
    expect(decodeReply(bytes)).toStrictEqual({ value, end: bytes.length })
  })

  it.each(fixtures)('needs more for every proper prefix of $name', ({ bytes }) => {
    for (let k = 0; k < bytes.length; k++) expect(decodeReply(bytes.subarray(0, k))).toBe(NEED_MORE)
  })

  it('starts at the given offset and ignores bytes after the reply', () => {
    const buf = bin('xx:12\r\n+OK')
    expect(decodeReply(buf, 2)).toStrictEqual({ value: 12, end: 7 })
    expect(decodeReply(buf, 7)).toBe(NEED_MORE)
  })

  it('accepts a plain Uint8Array', () => {
    expect(decodeReply(new Uint8Array(bin('$2\r\nhi\r\n')))).toStrictEqual({ value: bin('hi'), end: 8 })
  })

  it('reuses the shared OK, PONG and QUEUED instances', () => {
    expect(valueOf(decodeReply(bin('+OK\r\n')))).toBe(OK)
    expect(valueOf(decodeReply(bin('+PONG\r\n')))).toBe(PONG)
    expect(valueOf(decodeReply(bin('+QUEUED\r\n')))).toBe(QUEUED)
    expect(valueOf(decodeReply(bin('+OKAY\r\n')))).toStrictEqual(new Status('OKAY'))
  })

  it('refuses an offset outside the buffer as a programming error', () => {
    for (const offset of [-1, 5, 1.5, Number.NaN]) {
      expect(() => decodeReply(bin(':1\r\n'), offset)).toThrow(RangeError)
    }
  })

  it('decodes arrays nested 100,000 deep without recursion', () => {
    const depth = 100_000
    const bytes = bin(`${'*1\r\n'.repeat(depth)}:7\r\n`)
    let value = valueOf(decodeReply(bytes))
    for (let i = 0; i < depth; i++) value = (value as unknown[])[0] as typeof value
    expect(value).toBe(7)
  })

  it('returns bulk strings that do not alias the input', () => {
    const buf = bin('$3\r\nabc\r\n')
    const value = valueOf(decodeReply(buf)) as Buffer
    buf.fill(0)
    expect(value.toString()).toBe('abc')
  })

  it('returns a bulk string that is at least half of its chunk as a view of the chunk, without a copy', () => {
    const buf = bin(`$16\r\n${'a'.repeat(16)}\r\n`)
    const value = valueOf(decodeReply(buf)) as Buffer
    expect(value.buffer).toBe(buf.buffer)
    expect(value.byteOffset).toBe(buf.byteOffset + 5)
    expect(value.toString()).toBe('a'.repeat(16))
  })

  it('copies every bulk string with copyBulks', () => {
    const buf = bin(`$16\r\n${'a'.repeat(16)}\r\n`)
    const value = valueOf(decodeReply(buf, 0, { copyBulks: true })) as Buffer
    buf.fill(0)
    expect(value.toString()).toBe('a'.repeat(16))
  })

  it('copies the small bulk strings of an array, so none keeps the chunk alive', () => {
    const buf = bin('*3\r\n$1\r\na\r\n$2\r\nbc\r\n$-1\r\n')
    const value = valueOf(decodeReply(buf)) as Buffer[]
    buf.fill(0)
    expect(value.map((v) => v?.toString() ?? null)).toEqual(['a', 'bc', null])
  })
})

describe('RespDecoder chunking', () => {
  it.each(fixtures)('decodes $name split in two at every offset', ({ bytes, value }) => {
    for (let k = 0; k <= bytes.length; k++) {
      const decoder = new RespDecoder()
      decoder.push(bytes.subarray(0, k))
      const early = drain(decoder)
      decoder.push(bytes.subarray(k))
      expect([...early, ...drain(decoder)]).toStrictEqual([value])
      expect(decoder.bufferedBytes).toBe(0)
    }
  })

  it.each(fixtures)('decodes $name fed one byte at a time', ({ bytes, value }) => {
    const decoder = new RespDecoder()
    const got = []
    for (let i = 0; i < bytes.length; i++) {
      decoder.push(bytes.subarray(i, i + 1))
      got.push(...drain(decoder))
    }
    expect(got).toStrictEqual([value])
  })

  it.each(fixtures)('decodes $name from one-byte chunks pushed before any pull', ({ bytes, value }) => {
    const decoder = new RespDecoder()
    for (let i = 0; i < bytes.length; i++) decoder.push(bytes.subarray(i, i + 1))
    expect(drain(decoder)).toStrictEqual([value])
  })

  it('decodes all fixtures pipelined in one chunk, in order', () => {
    const decoder = new RespDecoder()
    decoder.push(Buffer.concat(fixtures.map((f) => f.bytes)))
    expect(drain(decoder)).toStrictEqual(fixtures.map((f) => f.value))
    expect(decoder.bufferedBytes).toBe(0)
  })

  it('decodes the pipeline identically at every two-chunk split', () => {
    const all = Buffer.concat(fixtures.map((f) => f.bytes))
    const expected = fixtures.map((f) => f.value)
    for (let k = 0; k <= all.length; k++) {
      expect(outcome(new RespDecoder(), splitAt(all, [k]))).toStrictEqual({ values: expected, end: 'need-more' })
    }
  })

  it('accepts the same chunk instance pushed repeatedly', () => {
    const header = bin('*2\r\n')
    const decoder = new RespDecoder()
    decoder.push(header)
    decoder.push(header)
    decoder.push(bin(':1\r\n:2\r\n:3\r\n'))
    expect(drain(decoder)).toStrictEqual([[[1, 2], 3]])
  })

  it('ignores empty chunks', () => {
    const decoder = new RespDecoder()
    decoder.push(new Uint8Array(0))
    expect(decoder.next()).toBe(NEED_MORE)
    decoder.push(bin(':1\r\n'))
    decoder.push(new Uint8Array(0))
    expect(drain(decoder)).toStrictEqual([1])
  })

  it('keeps an incomplete reply buffered until it completes', () => {
    const decoder = new RespDecoder()
    decoder.push(bin('*2\r\n:1\r\n$5\r\nhel'))
    expect(decoder.next()).toBe(NEED_MORE)
    decoder.push(bin('lo\r\n:9'))
    expect(decoder.next()).toStrictEqual([1, bin('hello')])
    expect(decoder.next()).toBe(NEED_MORE)
    decoder.push(bin('\r\n'))
    expect(decoder.next()).toBe(9)
  })
})

/** Feeds `chunks` one by one and returns every reply handed to the handler. */
function feedAll(decoder: RespDecoder, chunks: readonly Uint8Array[]): Reply[] {
  const got: Reply[] = []
  for (const chunk of chunks) decoder.feed(chunk, (reply) => got.push(reply))
  return got
}

describe('RespDecoder.feed', () => {
  it.each(fixtures)('decodes $name split in two at every offset', ({ bytes, value }) => {
    for (let k = 0; k <= bytes.length; k++) {
      const decoder = new RespDecoder()
      expect(feedAll(decoder, [bytes.subarray(0, k), bytes.subarray(k)])).toStrictEqual([value])
      expect(decoder.bufferedBytes).toBe(0)
    }
  })

  it.each(fixtures)('decodes $name fed one byte at a time', ({ bytes, value }) => {
    const oneByOne = Array.from(bytes, (byte) => Buffer.from([byte]))
    expect(feedOutcome(new RespDecoder(), oneByOne)).toStrictEqual({ values: [value], end: 'need-more' })
  })

  it('decodes all fixtures pipelined in one chunk, in order', () => {
    const decoder = new RespDecoder()
    expect(feedAll(decoder, [Buffer.concat(fixtures.map((f) => f.bytes))])).toStrictEqual(fixtures.map((f) => f.value))
    expect(decoder.bufferedBytes).toBe(0)
  })

  it('decodes the pipeline identically at every two-chunk split, and one byte at a time', () => {
    const all = Buffer.concat(fixtures.map((f) => f.bytes))
    const expected = { values: fixtures.map((f) => f.value), end: 'need-more' }
    for (let k = 0; k <= all.length; k++) expect(feedOutcome(new RespDecoder(), splitAt(all, [k]))).toStrictEqual(expected)
    expect(feedOutcome(new RespDecoder(), Array.from(all, (byte) => Buffer.from([byte])))).toStrictEqual(expected)
  })

  it('decodes the pipeline identically at every three-chunk split', () => {
    const all = Buffer.concat([bin('*3\r\n$3\r\nfoo\r\n:-12\r\n*1\r\n+OK\r\n'), bin('$5\r\nhello\r\n-ERR x\r\n$-1\r\n')])
    const expected = { values: [[bin('foo'), -12, [OK]], bin('hello'), new ReplyError('ERR x'), null], end: 'need-more' }
    for (let a = 0; a <= all.length; a++) {
      for (let b = a; b <= all.length; b++) {
        expect(feedOutcome(new RespDecoder(), splitAt(all, [a, b]))).toStrictEqual(expected)
      }
    }
  })

  it('mixes with push and next on one decoder', () => {
    const decoder = new RespDecoder()
    decoder.push(bin(':1\r\n:2'))
    expect(feedAll(decoder, [bin('\r\n$3\r\nab')])).toStrictEqual([1, 2])
    expect(decoder.next()).toBe(NEED_MORE)
    decoder.push(bin('c\r\n*2\r\n:3\r\n'))
    expect(decoder.next()).toStrictEqual(bin('abc'))
    expect(decoder.next()).toBe(NEED_MORE)
    expect(feedAll(decoder, [bin(':4\r\n+OK\r\n')])).toStrictEqual([[3, 4], OK])
    expect(decoder.bufferedBytes).toBe(0)
  })

  it('accepts plain Uint8Array chunks, and still returns Buffers and text', () => {
    const wire = Buffer.concat(fixtures.map((f) => f.bytes))
    const expected = { values: fixtures.map((f) => f.value), end: 'need-more' }
    const plain = (bytes: Uint8Array): Uint8Array => new Uint8Array(bytes)
    for (const k of [0, 1, 7, 100, wire.length >> 1, wire.length - 1]) {
      const got = feedOutcome(new RespDecoder(), splitAt(wire, [k]).map(plain))
      expect(got).toStrictEqual(expected)
    }
    const [bulk] = feedAll(new RespDecoder(), [plain(bin('$16\r\nabcdefghijklmnop\r\n'))]) as [Buffer]
    expect(Buffer.isBuffer(bulk)).toBe(true)
    expect(bulk.toString()).toBe('abcdefghijklmnop')
  })

  it('returns a bulk string that is at least half of its chunk as a view, and copies smaller ones', () => {
    const chunk = bin(`$16\r\n${'a'.repeat(16)}\r\n$1\r\nb\r\n`)
    const [big, small] = feedAll(new RespDecoder(), [chunk]) as [Buffer, Buffer]
    expect(big.buffer).toBe(chunk.buffer)
    expect(big.byteOffset).toBe(chunk.byteOffset + 5)
    chunk.fill(0)
    expect(small.toString()).toBe('b')
    expect(big.equals(Buffer.alloc(16))).toBe(true)
  })

  it('copies every bulk string with copyBulks', () => {
    const chunk = bin(`$16\r\n${'a'.repeat(16)}\r\n`)
    const [value] = feedAll(new RespDecoder({ copyBulks: true }), [chunk]) as [Buffer]
    chunk.fill(0)
    expect(value.toString()).toBe('a'.repeat(16))
  })

  it('copies bulk strings of every length, up to and past the short-copy sizes, exactly', () => {
    for (const size of [0, 1, 3, 4, 5, 15, 16, 17, 31, 32, 33, 63, 64, 65, 200]) {
      const body = Buffer.from(Array.from({ length: size }, (_, i) => (i * 7 + size) & 0xff))
      // Padding keeps each bulk under half its chunk, so it is copied, not viewed.
      const chunk = Buffer.concat([bin(`$${size}\r\n`), body, bin('\r\n'), bin(`+${'p'.repeat(2 * size + 8)}\r\n`)])
      const [value] = feedAll(new RespDecoder(), [chunk]) as [Buffer]
      chunk.fill(0)
      expect(value.equals(body)).toBe(true)
    }
  })

  it('keeps what follows when the handler throws, and delivers it on the next call', () => {
    const decoder = new RespDecoder()
    const boom = new Error('handler failed')
    const got: Reply[] = []
    const handler = (reply: Reply): void => {
      got.push(reply)
      if (reply === 1 || reply === 3) throw boom
    }
    expect(() => decoder.feed(bin(':1\r\n*2\r\n:2\r\n:3\r\n:3\r\n$2\r\nh'), handler)).toThrow(boom)
    expect(got).toStrictEqual([1])
    expect(decoder.next()).toStrictEqual([2, 3])
    expect(() => decoder.feed(new Uint8Array(0), handler)).toThrow(boom)
    expect(got).toStrictEqual([1, 3])
    decoder.feed(bin('i\r\n'), handler)
    expect(got).toStrictEqual([1, 3, bin('hi')])
    expect(decoder.bufferedBytes).toBe(0)
  })

  it('does not take a RespProtocolError thrown by the handler for bad input', () => {
    const decoder = new RespDecoder()
    const own = new RespProtocolError('not from the decoder')
    expect(() =>
      decoder.feed(bin(':1\r\n:2\r\n'), () => {
        throw own
      }),
    ).toThrow(own)
    expect(decoder.next()).toBe(2)
    expect(feedAll(decoder, [bin(':3\r\n')])).toStrictEqual([3])
  })

  it('counts the received part of a split bulk string as buffered', () => {
    const decoder = new RespDecoder()
    expect(feedAll(decoder, [bin('$10\r\nabc')])).toStrictEqual([])
    expect(decoder.bufferedBytes).toBe(3)
    expect(feedAll(decoder, [bin('defg')])).toStrictEqual([])
    expect(decoder.bufferedBytes).toBe(7)
    expect(feedAll(decoder, [bin('hij\r'), bin('\n:5')])).toStrictEqual([bin('abcdefghij')])
    expect(decoder.bufferedBytes).toBe(2)
  })

  it.each([
    ['x', "invalid reply type byte 'x'"],
    ['$-2\r\n', 'invalid bulk length'],
    ['$01\r\n', 'invalid bulk length'],
    ['*1x\r\n', 'invalid multibulk length'],
    [':-0\r\n', 'invalid integer'],
    [':9223372036854775808\r\n', 'invalid integer'],
    [':1\n', 'invalid integer'],
    ['+OK\n', 'expected CRLF at end of line'],
    ['$3\r\nabcd\r\n', 'expected CRLF after bulk string'],
    ['*2\r\n:1\r\n?', "invalid reply type byte '?'"],
  ])('rejects %j at every split with "Protocol error: %s", after the replies before it', (input, reason) => {
    const bytes = Buffer.concat([bin(':7\r\n+OK\r\n'), bin(input)])
    for (let k = 0; k <= bytes.length; k++) {
      expect(feedOutcome(new RespDecoder(), splitAt(bytes, [k]))).toStrictEqual({ values: [7, OK], end: `Protocol error: ${reason}` })
    }
  })

  it('applies the limits', () => {
    expect(() => new RespDecoder().feed(bin('$1073741824\r\n'), () => {})).toThrow('Protocol error: invalid bulk length')
    expect(() => new RespDecoder({ maxArrayLength: 2 }).feed(bin('*3\r\n'), () => {})).toThrow(
      'Protocol error: invalid multibulk length',
    )
    const decoder = new RespDecoder({ maxLineLength: 10 })
    expect(feedAll(decoder, [bin('+1234567890\r')])).toStrictEqual([])
    expect(() => decoder.feed(bin('1'), () => {})).toThrow('Protocol error: too big simple string or error line')
  })

  it('decodes a chunk longer than one parsing pass (1 GiB) like any other', () => {
    // Allocated, not filled: only the few bytes written here are ever touched.
    const bodySize = 2 ** 30 - 20
    const header = bin(`$${bodySize}\r\n`)
    // The bulk ends in the first GiB; the integer after it straddles the cut.
    const tail = bin('\r\n:123456789\r\n')
    const size = header.length + bodySize + tail.length
    const buf = Buffer.allocUnsafe(size)
    header.copy(buf, 0)
    buf[header.length] = 0x61
    buf[header.length + bodySize - 1] = 0x7a
    tail.copy(buf, header.length + bodySize)
    const options = { maxBulkLength: 2 ** 30 }
    const check = (replies: Reply[]): void => {
      expect(replies).toHaveLength(2)
      const bulk = replies[0] as Buffer
      expect(bulk.length).toBe(bodySize)
      expect([bulk[0], bulk[bodySize - 1]]).toStrictEqual([0x61, 0x7a])
      expect(replies[1]).toBe(123456789)
    }
    check(feedAll(new RespDecoder(options), [buf]))
    const pulled = new RespDecoder(options)
    pulled.push(buf)
    check(drain(pulled))
    const first = decodeReply(buf, 0, options)
    expect(first).toMatchObject({ end: header.length + bodySize + 2 })
    expect(decodeReply(buf, header.length + bodySize + 2, options)).toStrictEqual({ value: 123456789, end: size })
  })
})

describe('RespDecoder with big bulk strings', () => {
  const CHUNK = 64 * 1024

  function bigFrame(size: number): { frame: Buffer; body: Buffer } {
    const body = Buffer.allocUnsafe(size)
    for (let i = 0; i < size; i++) body[i] = (i * 31 + (i >> 13)) & 0xff
    return { frame: Buffer.concat([bin(`*3\r\n:1\r\n$${size}\r\n`), body, bin('\r\n+OK\r\n')]), body }
  }

  it('decodes a multi-megabyte bulk fed in 64 KiB chunks', () => {
    const { frame, body } = bigFrame(8 * 1024 * 1024 + 3)
    const decoder = new RespDecoder()
    const got = []
    for (let at = 0; at < frame.length; at += CHUNK) {
      decoder.push(frame.subarray(at, at + CHUNK))
      got.push(...drain(decoder))
    }
    expect(got).toHaveLength(1)
    const [reply] = got as [[number, Buffer, Status]]
    expect(reply[0]).toBe(1)
    expect(reply[1].equals(body)).toBe(true)
    expect(reply[2]).toBe(OK)
  })

  describe('copies each byte a bounded number of times', () => {
    afterEach(() => {
      vi.restoreAllMocks()
    })

    /** Counts bytes copied or allocated by any Buffer/Uint8Array API the decoder could use to join. */
    function instrument(): { copied: () => number; allocated: () => number } {
      let copied = 0
      let allocated = 0
      const copy = Buffer.prototype.copy
      vi.spyOn(Buffer.prototype, 'copy').mockImplementation(function (this: Buffer, ...args) {
        const n = copy.apply(this, args)
        copied += n
        return n
      })
      const set = Uint8Array.prototype.set
      vi.spyOn(Uint8Array.prototype, 'set').mockImplementation(function (this: Uint8Array, ...args) {
        copied += (args[0] as ArrayLike<number>).length
        return set.apply(this, args as Parameters<typeof set>)
      })
      const concat = Buffer.concat
      vi.spyOn(Buffer, 'concat').mockImplementation((list, length) => {
        const out = concat(list, length)
        copied += out.length
        return out
      })
      for (const name of ['allocUnsafe', 'allocUnsafeSlow', 'alloc'] as const) {
        const original = Buffer[name] as (size: number) => Buffer
        vi.spyOn(Buffer, name).mockImplementation(((size: number, ...rest: unknown[]) => {
          allocated += size
          return (original as (...a: unknown[]) => Buffer)(size, ...rest)
        }) as never)
      }
      return { copied: () => copied, allocated: () => allocated }
    }

    function feed(chunks: readonly Buffer[], decoder = new RespDecoder()): unknown[] {
      const got = []
      for (const chunk of chunks) {
        decoder.push(chunk)
        got.push(...drain(decoder))
      }
      return got
    }

    it.each([
      [64, 'push'],
      [512, 'push'],
      [64, 'feed'],
      [512, 'feed'],
    ])('for a bulk arriving in %i chunks of 64 KiB, through %s', (count, api) => {
      const { frame, body } = bigFrame(count * CHUNK)
      const chunks = splitAt(frame, Array.from({ length: count + 1 }, (_, i) => i * CHUNK))
      const meter = instrument()
      const got = api === 'push' ? feed(chunks) : feedAll(new RespDecoder(), chunks)
      expect(got).toHaveLength(1)
      // Copied once into a buffer of the declared length; re-concatenating per chunk would copy
      // ~count/2 times.
      expect(meter.copied()).toBeLessThanOrEqual(frame.length + 1024)
      expect(meter.allocated()).toBeLessThanOrEqual(frame.length + 1024)
      expect(((got[0] as Reply[])[1] as Buffer).equals(body)).toBe(true)
    })

    it('for a long error line arriving in 1 KiB chunks, searching it for LF at most twice', () => {
      const text = `ERR ${'x'.repeat(1024 * 1024)}`
      const frame = bin(`-${text}\r\n`)
      const chunks = splitAt(
        frame,
        Array.from({ length: frame.length >> 10 }, (_, i) => i * 1024),
      )
      const meter = instrument()
      let searched = 0
      const indexOf = Buffer.prototype.indexOf
      vi.spyOn(Buffer.prototype, 'indexOf').mockImplementation(function (this: Buffer, value, from, ...rest) {
        searched += this.length - (typeof from === 'number' ? from : 0)
        return indexOf.call(this, value, from as number, ...(rest as [BufferEncoding]))
      })
      expect(feed(chunks)).toStrictEqual([new ReplyError(text)])
      expect(meter.copied()).toBeLessThanOrEqual(frame.length + 1024)
      // Once across the chunks, once more in the joined line; rescanning per chunk would be ~512 times.
      expect(searched).toBeLessThanOrEqual(2 * frame.length + 1024)
    })

    it('for a large array arriving in small chunks, parsing each element once', () => {
      const count = 50_000
      const frame = Buffer.concat([bin(`*${count}\r\n`), ...Array.from({ length: count }, (_, i) => bin(`$4\r\n${String(i % 10000).padStart(4, '0')}\r\n`))])
      const chunks = splitAt(frame, Array.from({ length: frame.length / 100 }, (_, i) => i * 100 + 7))
      const meter = instrument()
      const [reply] = feed(chunks) as [Buffer[]]
      expect(reply).toHaveLength(count)
      expect(reply[12345].toString()).toBe('2345')
      // Every element's bytes are copied into its value once, plus once for tokens straddling chunks.
      expect(meter.copied()).toBeLessThanOrEqual(2 * frame.length)
    })
  })
})

describe('RespDecoder limits', () => {
  it('refuses a 1 GB bulk as soon as its header arrives', () => {
    const decoder = new RespDecoder()
    decoder.push(bin('$1073741824\r\n'))
    expect(() => decoder.next()).toThrow(new RespProtocolError('invalid bulk length'))
  })

  it('refuses an over-long bulk length line before its end arrives', () => {
    const decoder = new RespDecoder()
    decoder.push(bin(`$${'9'.repeat(40)}`))
    expect(() => decoder.next()).toThrow(RespProtocolError)
  })

  it('applies maxBulkLength', () => {
    expect(decodeReply(bin('$3\r\nabc\r\n'), 0, { maxBulkLength: 3 })).toStrictEqual({ value: bin('abc'), end: 9 })
    expect(() => decodeReply(bin('$4\r\n'), 0, { maxBulkLength: 3 })).toThrow('Protocol error: invalid bulk length')
  })

  it('applies maxArrayLength', () => {
    expect(decodeReply(bin('*2\r\n:1\r\n:2\r\n'), 0, { maxArrayLength: 2 })).toMatchObject({ value: [1, 2] })
    expect(() => decodeReply(bin('*3\r\n'), 0, { maxArrayLength: 2 })).toThrow(
      'Protocol error: invalid multibulk length',
    )
  })

  it('applies maxLineLength to simple strings and errors, even before the line ends', () => {
    const options = { maxLineLength: 10 }
    expect(decodeReply(bin('+1234567890\r\n'), 0, options)).toMatchObject({ value: new Status('1234567890') })
    expect(() => decodeReply(bin('-12345678901\r\n'), 0, options)).toThrow(RespProtocolError)
    const decoder = new RespDecoder(options)
    decoder.push(bin('+1234567890\r'))
    expect(decoder.next()).toBe(NEED_MORE)
    decoder.push(bin('1'))
    expect(() => decoder.next()).toThrow('Protocol error: too big simple string or error line')
  })
})

describe('RespDecoder on malformed input', () => {
  const cases: [string, string][] = [
    ['x', "invalid reply type byte 'x'"],
    ['\x00', "invalid reply type byte '\\x00'"],
    ['\r\n', "invalid reply type byte '\\x0d'"],
    ['$-2\r\n', 'invalid bulk length'],
    ['$abc\r\n', 'invalid bulk length'],
    ['$01\r\n', 'invalid bulk length'],
    ['$\r\n', 'invalid bulk length'],
    ['*-2\r\n', 'invalid multibulk length'],
    ['*1x\r\n', 'invalid multibulk length'],
    [':\r\n', 'invalid integer'],
    [':abc\r\n', 'invalid integer'],
    [':01\r\n', 'invalid integer'],
    [':-0\r\n', 'invalid integer'],
    [':+1\r\n', 'invalid integer'],
    [':1 \r\n', 'invalid integer'],
    [':9223372036854775808\r\n', 'invalid integer'],
    [':-9223372036854775809\r\n', 'invalid integer'],
    [':12345678901234567890123\r\n', 'invalid integer'],
    [':1\n', 'invalid integer'],
    ['+OK\n', 'expected CRLF at end of line'],
    ['$3\r\nabcd\r\n', 'expected CRLF after bulk string'],
    ['$3\r\nabc\n\n', 'expected CRLF after bulk string'],
    ['*2\r\n:1\r\n?', "invalid reply type byte '?'"],
  ]

  it.each(cases)('rejects %j with "Protocol error: %s"', (input, reason) => {
    const bytes = bin(input)
    expect(() => decodeReply(bytes)).toThrow(new RespProtocolError(reason))
    for (let k = 0; k <= bytes.length; k++) {
      expect(outcome(new RespDecoder(), splitAt(bytes, [k]))).toStrictEqual({
        values: [],
        end: `Protocol error: ${reason}`,
      })
    }
  })

  it('delivers the replies before the error, then keeps failing and ignores new input', () => {
    const decoder = new RespDecoder()
    decoder.push(bin(':1\r\n:2\r\n@'))
    expect(decoder.next()).toBe(1)
    expect(decoder.next()).toBe(2)
    let first: unknown
    try {
      decoder.next()
    } catch (error) {
      first = error
    }
    expect(first).toBeInstanceOf(RespProtocolError)
    decoder.push(bin(':3\r\n'))
    expect(() => decoder.next()).toThrow(first as Error)
    expect(decoder.bufferedBytes).toBe(0)
  })

  it('is an Error named RespProtocolError with a Redis-style message', () => {
    const error = new RespProtocolError('invalid bulk length')
    expect(error).toBeInstanceOf(Error)
    expect(error.name).toBe('RespProtocolError')
    expect(error.message).toBe('Protocol error: invalid bulk length')
  })
})
