import { NEED_MORE, RespProtocolError, type Decoded, type NeedMore } from '../../src/resp/index.js'
import { NULL_ARRAY, OK, PONG, QUEUED, ReplyError, Status, type Reply } from '../../src/reply.js'

/** A wire form and the reply it decodes to. */
export interface Fixture {
  readonly name: string
  readonly bytes: Buffer
  readonly value: Reply
}

const bin = (s: string): Buffer => Buffer.from(s, 'latin1')
const allBytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i))

export const fixtures: readonly Fixture[] = [
  { name: 'status OK', bytes: bin('+OK\r\n'), value: OK },
  { name: 'status PONG', bytes: bin('+PONG\r\n'), value: PONG },
  { name: 'status QUEUED', bytes: bin('+QUEUED\r\n'), value: QUEUED },
  { name: 'other status', bytes: bin('+background saving started\r\n'), value: new Status('background saving started') },
  { name: 'empty status', bytes: bin('+\r\n'), value: new Status('') },
  { name: 'error', bytes: bin('-ERR unknown command\r\n'), value: new ReplyError('ERR unknown command') },
  {
    name: 'error with UTF-8',
    bytes: Buffer.from('-WRONGTYPE clé ✓\r\n'),
    value: new ReplyError('WRONGTYPE clé ✓'),
  },
  { name: 'zero', bytes: bin(':0\r\n'), value: 0 },
  { name: 'positive integer', bytes: bin(':1000\r\n'), value: 1000 },
  { name: 'negative integer', bytes: bin(':-42\r\n'), value: -42 },
  { name: 'largest safe integer', bytes: bin(':9007199254740991\r\n'), value: Number.MAX_SAFE_INTEGER },
  { name: 'smallest safe integer', bytes: bin(':-9007199254740991\r\n'), value: Number.MIN_SAFE_INTEGER },
  { name: '2^53 as bigint', bytes: bin(':9007199254740992\r\n'), value: 2n ** 53n },
  { name: '2^53+1 as bigint', bytes: bin(':9007199254740993\r\n'), value: 2n ** 53n + 1n },
  { name: '2^63-1 as bigint', bytes: bin(':9223372036854775807\r\n'), value: 2n ** 63n - 1n },
  { name: '-2^63 as bigint', bytes: bin(':-9223372036854775808\r\n'), value: -(2n ** 63n) },
  { name: 'bulk', bytes: bin('$5\r\nhello\r\n'), value: bin('hello') },
  { name: 'empty bulk', bytes: bin('$0\r\n\r\n'), value: Buffer.alloc(0) },
  { name: 'null bulk', bytes: bin('$-1\r\n'), value: null },
  { name: 'binary bulk with CRLF inside', bytes: bin('$6\r\n\r\n\r\n\r\n\r\n'), value: bin('\r\n\r\n\r\n') },
  {
    name: 'bulk of all 256 byte values',
    bytes: Buffer.concat([bin('$256\r\n'), allBytes, bin('\r\n')]),
    value: allBytes,
  },
  { name: 'null array', bytes: bin('*-1\r\n'), value: NULL_ARRAY },
  { name: 'empty array', bytes: bin('*0\r\n'), value: [] },
  {
    name: 'flat array',
    bytes: bin('*3\r\n$3\r\nfoo\r\n$-1\r\n:7\r\n'),
    value: [bin('foo'), null, 7],
  },
  {
    name: 'nested arrays',
    bytes: bin('*3\r\n*2\r\n:1\r\n*1\r\n$1\r\na\r\n*0\r\n*-1\r\n'),
    value: [[1, [bin('a')]], [], NULL_ARRAY],
  },
  {
    name: 'array of every type',
    bytes: bin('*8\r\n+OK\r\n-ERR x\r\n:-1\r\n:9223372036854775807\r\n$0\r\n\r\n$-1\r\n*-1\r\n*1\r\n*0\r\n'),
    value: [OK, new ReplyError('ERR x'), -1, 2n ** 63n - 1n, Buffer.alloc(0), null, NULL_ARRAY, [[]]],
  },
]

/** Anything with the decoders' pull API. */
export interface Pull<T> {
  push(chunk: Uint8Array): void
  next(): T | NeedMore
}

/** Everything `next` yields now. Guards against a decoder that never says need-more. */
export function drain<T>(decoder: Pull<T>, limit = 1e7): T[] {
  const out: T[] = []
  for (let value = decoder.next(); value !== NEED_MORE; value = decoder.next()) {
    out.push(value)
    if (out.length > limit) throw new Error('decoder does not stop')
  }
  return out
}

/** Splits `bytes` at the given offsets (any order, duplicates and out-of-range ones allowed). */
export function splitAt(bytes: Uint8Array, cuts: readonly number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)
  const chunks: Buffer[] = []
  let start = 0
  for (const point of [...points, bytes.length]) {
    if (point > start) chunks.push(Buffer.from(bytes.subarray(start, point)))
    start = Math.max(start, point)
  }
  return chunks
}

/** What a stream of chunks decodes to: the values, then `need-more` or the protocol error's message. */
export interface Outcome<T> {
  values: T[]
  end: string
}

/**
 * Pushes `chunks` one by one, pulling after each. Anything thrown other than a
 * {@link RespProtocolError} escapes and fails the test.
 */
export function outcome<T>(decoder: Pull<T>, chunks: readonly Uint8Array[]): Outcome<T> {
  const values: T[] = []
  let total = 0
  try {
    for (const chunk of chunks) {
      total += chunk.length
      decoder.push(chunk)
      // One at a time, so values before an error are kept.
      for (let value = decoder.next(); value !== NEED_MORE; value = decoder.next()) {
        values.push(value)
        if (values.length > total) throw new Error('decoder yields more values than bytes')
      }
    }
    return { values, end: 'need-more' }
  } catch (error) {
    if (!(error instanceof RespProtocolError)) throw error
    // The error is sticky: the stream cannot resynchronise.
    let again: unknown
    try {
      decoder.next()
    } catch (e) {
      again = e
    }
    if (again !== error) throw new Error('protocol error is not sticky')
    return { values, end: error.message }
  }
}

/** The value of a stateless decode that must be complete. */
export function valueOf<T>(result: Decoded<T> | NeedMore): T {
  if (result === NEED_MORE) throw new Error('expected a complete value, got need-more')
  return result.value
}

/** Anything with the decoders' push API (and `next`, to check that errors stick). */
export interface Feed<T> {
  feed(chunk: Uint8Array, onValue: (value: T) => void): void
  next(): T | NeedMore
}

/**
 * {@link outcome} through `feed`: feeds `chunks` one by one, collecting what the handler gets.
 * Anything thrown other than a {@link RespProtocolError} escapes and fails the test.
 */
export function feedOutcome<T>(decoder: Feed<T>, chunks: readonly Uint8Array[]): Outcome<T> {
  const values: T[] = []
  let total = 0
  const collect = (value: T): void => {
    values.push(value)
    if (values.length > total) throw new Error('decoder yields more values than bytes')
  }
  try {
    for (const chunk of chunks) {
      total += chunk.length
      decoder.feed(chunk, collect)
    }
    return { values, end: 'need-more' }
  } catch (error) {
    if (!(error instanceof RespProtocolError)) throw error
    // The error is sticky, through either API: the stream cannot resynchronise.
    const again = [
      () => decoder.feed(new Uint8Array(0), collect),
      () => decoder.feed(Buffer.from(':1\r\n'), collect),
      () => decoder.next(),
    ].map((call) => {
      try {
        call()
      } catch (e) {
        return e
      }
      return undefined
    })
    if (again.some((e) => e !== error)) throw new Error('protocol error is not sticky')
    return { values, end: error.message }
  }
}
