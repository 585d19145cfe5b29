import { afterEach, describe, expect, test } from 'vitest'
import { crc64 } from '../../../src/executor/memory/rdb/crc64.js'
import { lzfDecompress } from '../../../src/executor/memory/rdb/lzf.js'
import { readListpack, writeListpack } from '../../../src/executor/memory/rdb/listpack.js'
import { readZiplist } from '../../../src/executor/memory/rdb/ziplist.js'
import { readIntset } from '../../../src/executor/memory/rdb/intset.js'
import { readZipmap } from '../../../src/executor/memory/rdb/zipmap.js'
import { CorruptPayload, RdbReader } from '../../../src/executor/memory/rdb/reader.js'
import { RdbWriter } from '../../../src/executor/memory/rdb/writer.js'
import { createDumpPayload, loadDumpPayload, verifyDumpPayload } from '../../../src/executor/memory/rdb/payload.js'
import type { LoadContext } from '../../../src/executor/memory/rdb/codec.js'
import { ListValue } from '../../../src/executor/memory/types/list.js'
import { SetValue } from '../../../src/executor/memory/types/set.js'
import { HashValue } from '../../../src/executor/memory/types/hash.js'
import { CAPTURED, CAPTURED_STREAMS } from '../../differential/dump.cases.js'
import { closeEngines, memoryEngine, plainExact } from '../../support/engine.js'
import { StreamValue } from '../../../src/executor/memory/types/stream.js'
import {
  bin, fromHex, intset, le, lzfLiteralString, payload, rdbLength, rdbString, ziplist, zipmap,
} from '../../differential/dump.payloads.js'

/**
 * The RDB codec of DUMP/RESTORE piece by piece (checksum, LZF, the RDB primitives, listpacks,
 * ziplists, intsets, zipmaps), decoding of payloads captured from redis-server 7.0.15 without a
 * server, and what the live differential suite cannot show: expiry against an injected clock,
 * and the Redis 7.2 / 7.4 payload forms newer than the reference server.
 */

const CONTEXT: LoadContext = { hash: { entries: 512, value: 64 }, maxIntsetEntries: 512, zset: { entries: 128, value: 64 }, now: 1_000_000 }

const toHex = (binary: string): string => Buffer.from(binary, 'latin1').toString('hex')
const binaryOf = (bytes: Buffer): string => bytes.toString('latin1')

function corrupt(run: () => unknown): string {
  try {
    run()
  } catch (error) {
    if (error instanceof CorruptPayload) return error.message
    throw error
  }
  throw new Error('expected a CorruptPayload')
}

describe('crc64 (Jones polynomial, as Redis crc64.c)', () => {
  test('check value of "123456789" is 0xe9c6d914c4b8d9ca, written little-endian', () => {
    expect(toHex(crc64('123456789'))).toBe('cad9b8c414d9c6e9')
  })
  test('the checksum of a redis-server payload matches its last 8 bytes', () => {
    const captured = fromHex(CAPTURED.hashListpack)
    expect(crc64(captured, 0, captured.length - 8)).toBe(captured.slice(-8))
  })
  test('empty input', () => {
    expect(toHex(crc64(''))).toBe('0000000000000000')
  })
})

describe('LZF decompression', () => {
  test('literal runs', () => {
    expect(lzfDecompress(bin(2) + 'abc', 0, 4, 3)).toBe('abc')
  })
  test('an overlapping back reference repeats the bytes it produces', () => {
    // 'a', then copy 7 + 0 + 2 bytes from distance 1 (run-length style): 'a' * 10.
    expect(lzfDecompress(bin(0) + 'a' + bin(0xe0, 0, 0), 0, 5, 10)).toBe('a'.repeat(10))
  })
  test('a wrong length, a reference before the start and a truncated stream fail', () => {
    expect(lzfDecompress(bin(2) + 'abc', 0, 4, 4)).toBeNull()
    expect(lzfDecompress(bin(2) + 'abc', 0, 4, 2)).toBeNull()
    expect(lzfDecompress(bin(0) + 'a' + bin(0x20, 5), 0, 4, 4)).toBeNull()
    expect(lzfDecompress(bin(5) + 'ab', 0, 3, 6)).toBeNull()
    expect(lzfDecompress(bin(0) + 'a' + bin(0xe0), 0, 3, 10)).toBeNull()
  })
})

describe('RDB primitives', () => {
  test('lengths in all four forms, at their boundaries', () => {
    for (const n of [0, 63, 64, 16383, 16384, 2 ** 32 - 1, 2 ** 32, 2 ** 40 + 5]) {
      const writer = new RdbWriter()
      writer.length(n)
      const bytes = writer.finish()
      expect(bytes.length).toBe(n < 64 ? 1 : n < 16384 ? 2 : n <= 0xffffffff ? 5 : 9)
      expect(new RdbReader(bytes).length()).toBe(n)
    }
    expect(new RdbReader(bin(0x81, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff)).length64()).toBe(2n ** 64n - 1n)
  })
  test('strings: integer encodings where Redis uses them, verbatim otherwise', () => {
    const cases: [string, string][] = [
      ['0', 'c000'], ['-128', 'c080'], ['127', 'c07f'], ['128', 'c18000'], ['-32768', 'c10080'], ['32768', 'c200800000'],
      ['2147483647', 'c2ffffff7f'], ['-2147483648', 'c200000080'], ['2147483648', '0a32313437343833363438'],
      ['007', '03303037'], ['-0', '022d30'], ['', '00'],
    ]
    for (const [text, hex] of cases) {
      const writer = new RdbWriter()
      writer.string(text)
      expect(toHex(writer.finish()), text).toBe(hex)
      expect(new RdbReader(fromHex(hex)).string()).toBe(text)
    }
  })
  test('an LZF string', () => {
    expect(new RdbReader(lzfLiteralString('hello world, hello')).string()).toBe('hello world, hello')
  })
  test('LZF claiming an impossible expansion is refused before allocating', () => {
    expect(corrupt(() => new RdbReader(bin(0xc3, 1, 0x80, 0x40, 0, 0, 0, 0) + 'a').string())).toMatch(/LZF/)
  })
  test('doubles, binary and as text', () => {
    const writer = new RdbWriter()
    writer.binaryDouble(-2.5)
    writer.binaryDouble(Infinity)
    const reader = new RdbReader(writer.finish())
    expect(reader.binaryDouble()).toBe(-2.5)
    expect(reader.binaryDouble()).toBe(Infinity)
    const text = new RdbReader(bin(253, 254, 255, 3) + '1.5' + bin(6) + ' 2e3xy')
    expect(text.textDouble()).toBeNaN()
    expect(text.textDouble()).toBe(Infinity)
    expect(text.textDouble()).toBe(-Infinity)
    expect(text.textDouble()).toBe(1.5)
    expect(text.textDouble()).toBe(2000)
  })
  test('millisecond times are signed 64-bit little-endian', () => {
    const writer = new RdbWriter()
    writer.millis(-2n)
    writer.millis(2n ** 63n - 1n)
    const reader = new RdbReader(writer.finish())
    expect(reader.millis()).toBe(-2n)
    expect(reader.millis()).toBe(2n ** 63n - 1n)
  })
  test('reading past the end, an encoded value as a length, an unknown length form', () => {
    expect(corrupt(() => new RdbReader(bin(5) + 'abc').string())).toMatch(/end/)
    expect(corrupt(() => new RdbReader(bin(0xc0, 1)).length())).toMatch(/encoded/)
    expect(corrupt(() => new RdbReader(bin(0x82, 0, 0, 0, 1)).length())).toMatch(/length encoding/)
    expect(corrupt(() => new RdbReader(bin(0xc5)).string())).toMatch(/string encoding/)
  })
})

describe('listpacks', () => {
  const integers = [
    '0', '127', '128', '-1', '4095', '-4096', '4096', '-4097', '32767', '-32768', '32768', '8388607', '-8388608', '8388608',
    '2147483647', '-2147483648', '2147483648', '9223372036854775807', '-9223372036854775808',
  ]
  test('every integer width round-trips, in the smallest encoding', () => {
    const blob = writeListpack(integers)
    expect(readListpack(blob)).toEqual(integers)
    // 7-bit: 1 byte; 13-bit: 2; 16-bit: 3; 24-bit: 4; 32-bit: 5; 64-bit: 9; one backlen byte each.
    const entryBytes = 1 + 1 + 2 + 2 + 2 + 2 + 3 + 3 + 3 + 3 + 4 + 4 + 4 + 5 + 5 + 5 + 9 + 9 + 9
    expect(blob.length).toBe(6 + entryBytes + integers.length + 1)
  })
  test('strings of 6-, 12- and 32-bit lengths, with 1-, 2- and 3-byte back lengths', () => {
    const strings = ['', 'a', 'x'.repeat(63), 'y'.repeat(64), 'z'.repeat(4095), 'w'.repeat(4096), 'v'.repeat(20_000), 'u'.repeat(70_000), '01', '-0', '1.5']
    expect(readListpack(writeListpack(strings))).toEqual(strings)
  })
  test('more than 65534 elements: the header count says "unknown"', () => {
    const many = Array.from({ length: 70_000 }, (_, i) => String(i % 200))
    const blob = writeListpack(many)
    expect(blob.charCodeAt(4) | (blob.charCodeAt(5) << 8)).toBe(0xffff)
    expect(readListpack(blob)).toEqual(many)
  })
  test('the listpack inside a redis-server payload', () => {
    const hash = loadDumpPayload(fromHex(CAPTURED.hashListpack), CONTEXT) as HashValue
    const entries: string[] = []
    hash.forEach((field, value) => entries.push(field, value))
    expect(entries).toEqual(['f1', 'v1', 'n', '42', 'neg', '-7', 'empty', ''])
  })
  test('corruption is detected', () => {
    const blob = writeListpack(['ab', 'c'])
    expect(corrupt(() => readListpack(blob.slice(0, -1)))).toMatch(/size/)
    expect(corrupt(() => readListpack(blob.slice(0, 9) + bin(9) + blob.slice(10)))).toMatch(/back length/)
    expect(corrupt(() => readListpack(blob.slice(0, 4) + bin(3, 0) + blob.slice(6)))).toMatch(/count/)
    expect(corrupt(() => readListpack(blob.slice(0, 6) + bin(0xf6) + blob.slice(7)))).toMatch(/encoding/)
    const truncatedEntry = le(10, 4) + le(1, 2) + bin(0x85, 0x61, 0x62, 0xff)
    expect(corrupt(() => readListpack(truncatedEntry))).toMatch(/beyond/)
  })
})

describe('ziplists, intsets, zipmaps', () => {
  test('every ziplist encoding, and the 5-byte previous length', () => {
    const entries = [0, 12, 13, -1, 200, -200, 40_000, -40_000, 9_000_000, -9_000_000, 3_000_000_000, 9223372036854775807n, 'a', 'b'.repeat(300), 'c', 'd'.repeat(17_000)]
    expect(readZiplist(ziplist(entries))).toEqual(entries.map(String))
  })
  test('a wrong tail offset is corrupt', () => {
    const zl = ziplist(['a', 'b'])
    expect(corrupt(() => readZiplist(zl.slice(0, 4) + le(10, 4) + zl.slice(8)))).toMatch(/tail/)
  })
  test('intsets of each width; unsorted or duplicate members are corrupt', () => {
    expect(readIntset(intset(2, [-3, 5]))).toEqual(['-3', '5'])
    expect(readIntset(intset(4, [-70000, 70000]))).toEqual(['-70000', '70000'])
    expect(readIntset(intset(8, [-(2n ** 63n), 2n ** 63n - 1n]))).toEqual(['-9223372036854775808', '9223372036854775807'])
    expect(corrupt(() => readIntset(intset(2, [5, -3])))).toMatch(/ascending/)
    expect(corrupt(() => readIntset(intset(2, [5, 5])))).toMatch(/ascending/)
  })
  test('zipmaps, with 5-byte lengths and free bytes', () => {
    const long = 'k'.repeat(300)
    expect(readZipmap(zipmap([['a', '1'], [long, 'v'.repeat(254)]], 3))).toEqual(['a', '1', long, 'v'.repeat(254)])
    expect(corrupt(() => readZipmap(zipmap([['a', '1']]).slice(0, -2) + bin(0xff)))).toMatch(/beyond/)
  })
})

describe('payloads', () => {
  test('every payload captured from redis-server 7.0.15 verifies and loads', () => {
    for (const [name, hex] of Object.entries(CAPTURED)) {
      const bytes = fromHex(hex)
      expect(verifyDumpPayload(bytes), name).toBe(true)
      expect(() => loadDumpPayload(bytes, CONTEXT), name).not.toThrow()
    }
  })
  test('captured lists decode element for element', () => {
    const list = loadDumpPayload(fromHex(CAPTURED.listIntegers), CONTEXT) as ListValue
    expect(list.toArray()).toEqual([
      '0', '127', '128', '-1', '4095', '-4096', '4096', '32767', '-32768', '32768', '8388607', '-8388608', '8388608',
      '2147483647', '-2147483648', '2147483648', '9223372036854775807', '-9223372036854775808', '01', '-0', '1.5',
    ])
    const plain = loadDumpPayload(fromHex(CAPTURED.listPlainNode), CONTEXT) as ListValue
    expect(plain.toArray()).toEqual(['a', 'P'.repeat(101), 'b'])
  })
  test('the engine writes RDB_TYPE_LIST / SET / HASH at RDB version 10, and reads them back', () => {
    const list = new ListValue(['a', '1', 'x'.repeat(100)])
    const set = new SetValue()
    for (const member of ['3', '1', '2']) set.add(member)
    const hash = new HashValue()
    hash.set('f', 'v')
    for (const [value, type] of [[list, 1], [set, 2], [hash, 4], ['text', 0]] as const) {
      const bytes = createDumpPayload(value)!
      expect(bytes.charCodeAt(0)).toBe(type)
      expect(bytes.charCodeAt(bytes.length - 10)).toBe(10)
      expect(verifyDumpPayload(bytes)).toBe(true)
      const back = loadDumpPayload(bytes, CONTEXT)
      expect(createDumpPayload(back)).toBe(bytes)
    }
    expect((loadDumpPayload(createDumpPayload(set)!, CONTEXT) as SetValue).encoding).toBe('intset')
  })
  test('versions above 12 and wrong checksums are refused; 0 to 12 are read', () => {
    const body = bin(0) + rdbString('v')
    for (const version of [0, 9, 10, 11, 12]) expect(verifyDumpPayload(binaryOf(payload(body, version)))).toBe(true)
    expect(verifyDumpPayload(binaryOf(payload(body, 13)))).toBe(false)
    const good = binaryOf(payload(body))
    expect(verifyDumpPayload(good.slice(0, -1) + String.fromCharCode(good.charCodeAt(good.length - 1) ^ 1))).toBe(false)
    expect(verifyDumpPayload('123456789')).toBe(false)
  })
  test('RDB_TYPE_SET_LISTPACK (Redis 7.2) loads into the engine set encodings', () => {
    const set = loadDumpPayload(binaryOf(payload(bin(20) + rdbString(writeListpack(['5', '-1', '3'])), 11)), CONTEXT) as SetValue
    expect(set.encoding).toBe('intset')
    expect(set.members()).toEqual(['-1', '3', '5'])
    expect(corrupt(() => loadDumpPayload(binaryOf(payload(bin(20) + rdbString(writeListpack(['a', 'a'])), 11)), CONTEXT))).toMatch(/duplicate/)
  })
  test('module values (types 6 and 7) and unknown types are refused', () => {
    for (const type of [6, 7, 8, 26, 255]) {
      expect(corrupt(() => loadDumpPayload(binaryOf(payload(bin(type, 1) + rdbString('m'))), CONTEXT))).toMatch(/unsupported/)
    }
  })
})

describe('streams', () => {
  test('redis-server stream payloads re-encode byte for byte', () => {
    for (const [name, hex] of Object.entries(CAPTURED_STREAMS)) {
      const bytes = fromHex(hex)
      expect(toHex(createDumpPayload(loadDumpPayload(bytes, CONTEXT))!), name).toBe(hex)
    }
  })
  test('groups, PEL owners and counters of a captured stream', () => {
    const stream = loadDumpPayload(fromHex(CAPTURED_STREAMS.groups), CONTEXT) as StreamValue
    expect(stream.length).toBe(3)
    const g1 = stream.groups.get('g1')!
    expect(g1.entriesRead).toBe(3)
    expect(g1.pending.values().map((entry) => [entry.id.ms, entry.id.seq, entry.consumer?.name, entry.deliveryCount])).toEqual([
      [2, 1, 'alice', 1], [3, 1, 'bob', 1],
    ])
    expect([...g1.consumers.keys()].sort()).toEqual(['alice', 'bob', 'carol'])
    expect(stream.groups.get('g0')!.entriesRead).toBe(-1)
  })

  /** A one-node stream (entries 1-1 and 2-1, field a), one group g at 1-1 with 1-1 pending for c. */
  function streamBody(type: 15 | 19 | 21, options: { length?: number; lpCount?: string } = {}): string {
    const writer = new RdbWriter()
    writer.length(1)
    writer.string(le(0, 4) + bin(0, 0, 0, 1) + le(0, 4) + bin(0, 0, 0, 1))
    writer.string(writeListpack(['2', '0', '1', 'a', '0', '2', '0', '0', '1', options.lpCount ?? '4', '2', '1', '0', '2', '4']))
    writer.length(options.length ?? 2)
    writer.length(2)
    writer.length(1)
    if (type !== 15) {
      for (const part of [1, 1, 0, 0, 2]) writer.length(part)
    }
    writer.length(1)
    writer.string('g')
    writer.length(1)
    writer.length(1)
    if (type !== 15) writer.length(1)
    writer.length(1)
    const rawId = le(0, 4) + bin(0, 0, 0, 1) + le(0, 4) + bin(0, 0, 0, 1)
    writer.raw(rawId)
    writer.millis(5000n)
    writer.length(2)
    writer.length(1)
    writer.string('c')
    writer.millis(6000n)
    if (type === 21) writer.millis(7000n)
    writer.length(1)
    writer.raw(rawId)
    return bin(type) + writer.finish()
  }

  test('the Redis 5.0 form (type 15) derives first ID, entries-added and entries-read', () => {
    const stream = loadDumpPayload(binaryOf(payload(streamBody(15), 9)), CONTEXT) as StreamValue
    expect([stream.firstId, stream.entriesAdded, stream.maxDeletedId]).toEqual([{ ms: 1, seq: 1 }, 2, { ms: 0, seq: 0 }])
    const group = stream.groups.get('g')!
    expect(group.entriesRead).toBe(1)
    expect(group.pending.values()[0].consumer?.name).toBe('c')
    expect(group.pending.values()[0].deliveryTime).toBe(5000)
  })
  test('the Redis 7.2 form (type 21) carries a consumer active time, which is read past', () => {
    const stream = loadDumpPayload(binaryOf(payload(streamBody(21), 11)), CONTEXT) as StreamValue
    expect(stream.groups.get('g')!.consumers.get('c')!.seenTime).toBe(6000)
    expect(stream.range({ ms: 0, seq: 0 }, { ms: 9, seq: 9 }, 0).map((entry) => entry.fields)).toEqual([['a', '1'], ['a', '2']])
  })
  test('a wrong lp-count or a length contradicting the entries is corrupt', () => {
    expect(() => loadDumpPayload(binaryOf(payload(streamBody(19))), CONTEXT)).not.toThrow()
    expect(corrupt(() => loadDumpPayload(binaryOf(payload(streamBody(19, { lpCount: '5' }))), CONTEXT))).toMatch(/lp-count/)
    expect(corrupt(() => loadDumpPayload(binaryOf(payload(streamBody(19, { length: 3 }))), CONTEXT))).toMatch(/length/)
  })
})

describe('hash field TTLs in payloads (Redis 7.4 RDB_TYPE_HASH_METADATA / HASH_LISTPACK_EX)', () => {
  function volatileHash(): HashValue {
    const hash = new HashValue()
    hash.set('keep', '1')
    hash.set('soon', '2')
    hash.set('later', '3')
    hash.setDeadline('soon', 2_000_000)
    hash.setDeadline('later', 3_000_000)
    return hash
  }
  function fieldsOf(hash: HashValue): [string, string, number | undefined][] {
    const out: [string, string, number | undefined][] = []
    hash.forEach((field, value) => out.push([field, value, hash.deadlineOf(field)]))
    return out.sort()
  }

  test('a hash with field TTLs is written as RDB_TYPE_HASH_METADATA at RDB version 12 and read back', () => {
    const bytes = createDumpPayload(volatileHash())!
    expect(bytes.charCodeAt(0)).toBe(24)
    expect(bytes.charCodeAt(bytes.length - 10)).toBe(12)
    const back = loadDumpPayload(bytes, CONTEXT) as HashValue
    expect(fieldsOf(back)).toEqual([['keep', '1', undefined], ['later', '3', 3_000_000], ['soon', '2', 2_000_000]])
    expect(back.encoding).toBe('listpackex')
  })
  test('fields whose deadline has passed are left out; none left means an empty hash', () => {
    const bytes = createDumpPayload(volatileHash())!
    const later = loadDumpPayload(bytes, { ...CONTEXT, now: 2_500_000 }) as HashValue
    expect(fieldsOf(later).map(([field]) => field)).toEqual(['keep', 'later'])
    const hash = new HashValue()
    hash.set('only', 'x')
    hash.setDeadline('only', 5)
    expect((loadDumpPayload(createDumpPayload(hash)!, CONTEXT) as HashValue).size).toBe(0)
  })
  test('the release-candidate form (type 22) has absolute TTLs and no minimum', () => {
    const body = bin(22) + rdbLength(2) + rdbLength(0) + rdbString('a') + rdbString('1') + rdbLength(4_000_000) + rdbString('b') + rdbString('2')
    const hash = loadDumpPayload(binaryOf(payload(body, 12)), CONTEXT) as HashValue
    expect(fieldsOf(hash)).toEqual([['a', '1', undefined], ['b', '2', 4_000_000]])
  })
  test('listpack triplets (types 25 and 23)', () => {
    const triplets = rdbString(writeListpack(['a', '1', '0', 'b', '2', '4000000']))
    const minimum = (() => {
      const writer = new RdbWriter()
      writer.millis(4_000_000n)
      return writer.finish()
    })()
    for (const body of [bin(25) + minimum + triplets, bin(23) + triplets]) {
      const hash = loadDumpPayload(binaryOf(payload(body, 12)), CONTEXT) as HashValue
      expect(fieldsOf(hash)).toEqual([['a', '1', undefined], ['b', '2', 4_000_000]])
    }
    expect(corrupt(() => loadDumpPayload(binaryOf(payload(bin(23) + rdbString(writeListpack(['a', '1'])), 12)), CONTEXT))).toMatch(/triplets/)
    expect(corrupt(() => loadDumpPayload(binaryOf(payload(bin(23) + rdbString(writeListpack(['a', '1', 'x'])), 12)), CONTEXT))).toMatch(/TTL/)
    expect(corrupt(() => loadDumpPayload(binaryOf(payload(bin(23) + rdbString(writeListpack(['a', '1', '0', 'a', '2', '0'])), 12)), CONTEXT))).toMatch(/duplicate/)
  })
})

afterEach(closeEngines)

/** An engine on a clock the test moves by hand (`time.now`); 64-bit integers come back as exact text. */
function engineAt(start: number) {
  const time = memoryEngine({ start, render: plainExact })
  return { time, run: time.run, executor: time.executor }
}

describe('RESTORE and DUMP with an injected clock', () => {
  const STRING = Buffer.from(CAPTURED.stringRaw, 'hex')

  test('a relative TTL counts from the command time', () => {
    const { time, run } = engineAt(1_000_000)
    expect(run('RESTORE', 'k', '5000', STRING)).toBe('OK')
    expect(run('PEXPIRETIME', 'k')).toBe(1_005_000)
    time.now = 1_005_000
    expect(run('GET', 'k')).toBe('hello world')
    time.now = 1_005_001
    expect(run('GET', 'k')).toBeNull()
  })
  test('ABSTTL at exactly now is already expired (checkAlreadyExpired: deadline <= now)', () => {
    const { run } = engineAt(1_000_000)
    expect(run('RESTORE', 'k', '1000000', STRING, 'ABSTTL')).toBe('OK')
    expect(run('EXISTS', 'k')).toBe(0)
    expect(run('RESTORE', 'k', '1000001', STRING, 'ABSTTL')).toBe('OK')
    expect(run('EXISTS', 'k')).toBe(1)
  })
  test('a key past its TTL does not make RESTORE busy (lookupKeyWrite expires it first)', () => {
    const { time, run } = engineAt(1_000_000)
    run('SET', 'k', 'old', 'PX', '10')
    time.now = 1_000_011
    expect(run('RESTORE', 'k', '0', STRING)).toBe('OK')
    expect(run('GET', 'k')).toBe('hello world')
  })
  test('IDLETIME sets the idle time of a restored key under a non-LFU policy, FREQ its counter under an LFU one', () => {
    const { run } = engineAt(1_000_000)
    expect(run('RESTORE', 'k', '0', STRING, 'IDLETIME', '1000')).toBe('OK')
    expect(run('OBJECT', 'IDLETIME', 'k')).toBe(1000)
    expect(run('RESTORE', 'f', '0', STRING, 'FREQ', '100')).toBe('OK')
    expect(run('OBJECT', 'IDLETIME', 'f')).toBe(0)
    expect(run('CONFIG', 'SET', 'maxmemory-policy', 'allkeys-lfu')).toEqual(expect.anything())
    expect(run('RESTORE', 'g', '0', STRING, 'FREQ', '100')).toBe('OK')
    expect(run('OBJECT', 'FREQ', 'g')).toBe(100)
  })
  test('hash field TTLs survive DUMP and RESTORE (Redis 7.4, https://redis.io/docs/latest/commands/hexpire/)', () => {
    const { time, run, executor } = engineAt(1_000_000)
    run('HSET', 'h', 'a', '1', 'b', '2', 'c', '3')
    run('HPEXPIREAT', 'h', '2000000', 'FIELDS', '1', 'a')
    run('HPEXPIREAT', 'h', '3000000', 'FIELDS', '1', 'b')
    const bytes = Buffer.from(run('DUMP', 'h') as string, 'latin1')
    expect(run('RESTORE', 'copy', '0', bytes)).toBe('OK')
    expect(run('HPEXPIRETIME', 'copy', 'FIELDS', '3', 'a', 'b', 'c')).toEqual([2_000_000, 3_000_000, -1])
    time.now = 2_500_000
    expect(run('RESTORE', 'late', '0', bytes)).toBe('OK')
    expect((run('HKEYS', 'late') as string[]).sort()).toEqual(['b', 'c'])
    // The active cycle knows the restored hash.
    time.now = 3_000_001
    executor.engine.expireDue()
    expect(run('HKEYS', 'copy')).toEqual(['c'])
  })
  test('a payload whose every field has expired answers OK and creates nothing (REPLACE still deletes)', () => {
    const { time, run } = engineAt(1_000_000)
    run('HSET', 'h', 'a', '1')
    run('HPEXPIREAT', 'h', '2000000', 'FIELDS', '1', 'a')
    const bytes = Buffer.from(run('DUMP', 'h') as string, 'latin1')
    time.now = 2_000_001
    run('SET', 'target', 'x')
    expect(run('RESTORE', 'target', '0', bytes, 'REPLACE')).toBe('OK')
    expect(run('EXISTS', 'target')).toBe(0)
    expect(run('DUMP', 'h')).toBeNull()
  })
  test('DUMP of a value without a codec (a JSON document: a module type in Redis) answers an error', () => {
    const { run, executor } = engineAt(1_000_000)
    executor.engine.databases[0].set('doc', { type: 'ReJSON-RL' })
    expect(run('DUMP', 'doc')).toEqual({ error: 'ERR DUMP of ReJSON-RL values is not supported by the in-memory engine' })
  })
})
