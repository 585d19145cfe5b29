/**
 * Differential cases of the HyperLogLog family (Redis 7.0 hyperloglog.c): PFADD PFCOUNT PFMERGE
 * PFDEBUG PFSELFTEST, their errors, the exact bytes of both encodings (GET after every step that
 * writes), the sparse to dense promotion, the header cache, hand-made and corrupted values.
 * Cardinality checks up to a million elements are in `hyperloglog.cardinality.cases.ts`.
 */
import type { Command } from '../../src/reply.js'
import { crc64 } from '../../src/executor/memory/rdb/crc64.js'
import type { DiffCase } from './harness.js'
import {
  binaryElements,
  denseHll,
  elementWhere,
  elements,
  pfaddBatches,
  sparseHll,
  val,
  xzero,
  zero,
} from './hyperloglog.values.js'
import { mulberry32 } from './random-source.js'

/** Elements whose run length exceeds 32, the largest value a sparse VAL opcode holds. */
const LONG_RUN_ELEMENT = 'r00041e7c555' // register 8238, run length 33
const LIST = ['RPUSH', 'list', 'a'] as const

/** After each command of `commands`, a GET of `key`: the bytes are compared at every step. */
function withGets(key: string, commands: readonly Command[]): Command[] {
  return commands.flatMap((command) => [command, ['GET', key]])
}

const pfaddCases: DiffCase[] = [
  {
    name: 'PFADD without elements creates an empty sparse HLL with a stale cache, once',
    commands: [['PFADD', 'k'], ['GET', 'k'], ['PFADD', 'k'], ['TYPE', 'k'], ['STRLEN', 'k'], ['PFCOUNT', 'k'], ['GET', 'k'], ['PFADD', 'k'], ['GET', 'k']],
  },
  {
    name: 'PFADD replies 1 when a register rises and 0 when none does',
    commands: withGets('k', [['PFADD', 'k', 'a'], ['PFADD', 'k', 'a'], ['PFADD', 'k', 'b', 'c', 'a'], ['PFADD', 'k', 'c', 'b'], ['PFADD', 'k', 'a', 'a', 'd']]),
  },
  {
    name: 'PFADD hashes binary and empty elements of every length (all MurmurHash64A tails)',
    commands: [
      ...withGets('k', binaryElements(11, 50).map((element): Command => ['PFADD', 'k', element])),
      ['PFADD', 'k', ''],
      ['GET', 'k'],
      ['PFCOUNT', 'k'],
    ],
  },
  {
    name: 'PFADD one element at a time splits ZERO, XZERO and VAL runs and merges VAL neighbours as Redis',
    commands: [...withGets('k', elements('one:', 0, 400).map((element): Command => ['PFADD', 'k', element])), ['PFCOUNT', 'k'], ['PFDEBUG', 'ENCODING', 'k']],
  },
  {
    name: 'PFADD of elements two registers apart builds VAL runs and zero runs of every length',
    commands: withGets(
      'k',
      [0, 1, 2, 3, 5, 7, 70, 71, 72, 73, 74, 75, 200, 264, 265, 330, 16383, 16382, 16300, 4, 6].map((register): Command => [
        'PFADD',
        'k',
        elementWhere(`reg${register}:`, (index, run) => index === register && run <= 2),
      ]),
    ),
  },
  {
    name: 'A sparse HLL goes dense when it outgrows hll-sparse-max-bytes (default 3000)',
    commands: [...withGets('k', pfaddBatches('k', elements('grow:', 0, 3000), 50)), ['PFDEBUG', 'ENCODING', 'k'], ['PFCOUNT', 'k'], ['GET', 'k']],
  },
  {
    name: 'CONFIG SET hll-sparse-max-bytes moves the promotion threshold',
    commands: [
      ['CONFIG', 'SET', 'hll-sparse-max-bytes', '60'],
      ...withGets('k', pfaddBatches('k', elements('small:', 0, 40), 4)),
      ['PFDEBUG', 'ENCODING', 'k'],
      ['CONFIG', 'SET', 'hll-sparse-max-bytes', '0'],
      ['PFADD', 'z'],
      ['PFADD', 'z', 'a'],
      ['PFDEBUG', 'ENCODING', 'z'],
      ['PFCOUNT', 'z'],
      ['CONFIG', 'SET', 'hll-sparse-max-bytes', '3000'],
    ],
  },
  {
    name: 'A run length above 32 promotes a sparse HLL to dense, copying its header',
    commands: [
      ['SET', 'k', sparseHll([xzero(16384)], 7n, [1, 2, 3])],
      ['PFADD', 'k', 'a', LONG_RUN_ELEMENT, 'b'],
      ['PFDEBUG', 'ENCODING', 'k'],
      ['GET', 'k'],
      ['PFCOUNT', 'k'],
      ['PFADD', 'fresh', LONG_RUN_ELEMENT],
      ['GET', 'fresh'],
      ['PFCOUNT', 'fresh'],
    ],
  },
  {
    name: 'PFADD, single-key PFCOUNT, PFDEBUG and PFMERGE unshare an existing HLL: an embstr value turns raw even when nothing changes',
    commands: [
      ['SET', 'k', sparseHll([xzero(16384)])], ['OBJECT', 'ENCODING', 'k'], ['PFADD', 'k'], ['OBJECT', 'ENCODING', 'k'],
      ['SET', 'j', sparseHll([xzero(16384)], 5n)], ['PFCOUNT', 'j'], ['OBJECT', 'ENCODING', 'j'],
      ['SET', 'd', sparseHll([xzero(16384)])], ['PFDEBUG', 'ENCODING', 'd'], ['OBJECT', 'ENCODING', 'd'],
      ['SET', 'm', sparseHll([xzero(16384)])], ['PFMERGE', 'm'], ['OBJECT', 'ENCODING', 'm'],
      ['SET', 'c', sparseHll([xzero(16384)])], ['PFCOUNT', 'c', 'nokey'], ['OBJECT', 'ENCODING', 'c'], ['PFMERGE', 'x', 'c'], ['OBJECT', 'ENCODING', 'c'],
      ['SET', 'bad', sparseHll([xzero(100)])], ['PFADD', 'bad', 'a'], ['OBJECT', 'ENCODING', 'bad'],
      ['SET', 's', 'text'], ['PFADD', 's', 'a'], ['OBJECT', 'ENCODING', 's'],
    ],
  },
  {
    name: 'PFADD keeps the TTL of an existing HLL',
    commands: [['PFADD', 'k', 'a'], ['EXPIRE', 'k', '1000'], ['PFADD', 'k', 'b'], ['TTL', 'k'], ['PFADD', 'k', ...elements('t', 0, 5000)], ['TTL', 'k'], ['PFCOUNT', 'k'], ['TTL', 'k']],
    relax: { 3: 'ttl', 5: 'ttl', 7: 'ttl' },
  },
  {
    name: 'PFADD refuses other types and strings that are not HyperLogLogs, changing nothing',
    commands: [
      LIST, ['PFADD', 'list', 'a'], ['PFADD', 'list'],
      ['SET', 's', 'hello'], ['PFADD', 's', 'a'], ['PFADD', 's'], ['GET', 's'],
      ['SET', 'n', '12345'], ['PFADD', 'n', 'a'],
      ['SET', 'e', ''], ['PFADD', 'e'],
      ['SET', 'magic', 'HYLL'], ['PFADD', 'magic', 'a'],
      ['SET', 'header', sparseHll([]).subarray(0, 15)], ['PFADD', 'header', 'a'],
      ['SET', 'lower', Uint8Array.from([...Buffer.from('hyll'), ...sparseHll([xzero(16384)]).subarray(4)])], ['PFADD', 'lower', 'a'],
      ['SET', 'encoding', Uint8Array.from(sparseHll([xzero(16384)]).map((byte, i) => (i === 4 ? 2 : byte)))], ['PFADD', 'encoding', 'a'], ['PFCOUNT', 'encoding'],
      ['SET', 'short', denseHll(() => 1).subarray(0, 12303)], ['PFADD', 'short', 'a'],
      ['SET', 'long', Uint8Array.from([...denseHll(() => 1), 0])], ['PFADD', 'long', 'a'],
      ['SET', 'sparse-size', Uint8Array.from([...sparseHll([xzero(16384)]), ...new Uint8Array(12304 - 18)])], ['PFDEBUG', 'ENCODING', 'sparse-size'],
    ],
  },
]

const pfcountCases: DiffCase[] = [
  { name: 'PFCOUNT of a missing key is 0 and creates nothing', commands: [['PFCOUNT', 'nokey'], ['EXISTS', 'nokey'], ['PFCOUNT', 'nokey', 'other'], ['EXISTS', 'nokey']] },
  {
    name: 'PFCOUNT writes the estimate into the header cache, which stays valid until a register rises',
    commands: [
      ['PFADD', 'k', 'a', 'b', 'c'], ['GET', 'k'], ['PFCOUNT', 'k'], ['GET', 'k'], ['PFADD', 'k', 'a'], ['GET', 'k'], ['PFCOUNT', 'k'],
      ['PFADD', 'k', 'd'], ['GET', 'k'], ['PFCOUNT', 'k'], ['GET', 'k'],
      ['PFADD', 'd', ...elements('d', 0, 5000)], ['GET', 'd'], ['PFCOUNT', 'd'], ['GET', 'd'], ['PFADD', 'd', 'd1'], ['GET', 'd'],
    ],
  },
  {
    name: 'PFCOUNT returns a valid cached cardinality as stored, up to 2^63-1, without reading the registers',
    commands: [
      ['SET', 'k', sparseHll([xzero(16384)], 12345n)], ['PFCOUNT', 'k'],
      ['SET', 'k', sparseHll([xzero(100)], 7n)], ['PFCOUNT', 'k'],
      ['SET', 'k', sparseHll([xzero(16384)], 2n ** 53n + 1n)], ['PFCOUNT', 'k'],
      ['SET', 'k', sparseHll([xzero(16384)], 2n ** 63n - 1n)], ['PFCOUNT', 'k'],
      ['SET', 'k', denseHll(() => 5, 42n)], ['PFCOUNT', 'k'], ['PFADD', 'k', 'a'], ['PFCOUNT', 'k'],
    ],
  },
  {
    name: 'PFCOUNT of hand-made dense registers reaches the ends of the estimator',
    commands: [
      ...[
        () => 0, () => 1, () => 2, () => 10, () => 20, () => 32, () => 40, () => 45, () => 49, () => 50, () => 51, () => 52, () => 63,
        (i: number) => (i % 2 === 0 ? 0 : 51), (i: number) => (i === 0 ? 1 : 0), (i: number) => (i === 16383 ? 51 : 0), (i: number) => i % 64, (i: number) => (i * 7) % 52,
      ].flatMap((register, n): Command[] => [['SET', `d${n}`, denseHll(register)], ['PFCOUNT', `d${n}`], ['GET', `d${n}`]]),
      ['PFCOUNT', 'd10', 'd0'], ['PFCOUNT', 'd12', 'd1'], ['PFCOUNT', 'd7', 'd13'],
    ],
  },
  {
    name: 'PFCOUNT of several keys estimates their union and writes no cache',
    commands: [
      ['PFADD', 'a', ...elements('x', 0, 100)], ['PFADD', 'b', ...elements('x', 50, 100)], ['PFADD', 'c', ...elements('y', 0, 4000)],
      ['PFCOUNT', 'a', 'b'], ['GET', 'a'], ['GET', 'b'], ['PFCOUNT', 'a', 'b', 'c'], ['PFCOUNT', 'c', 'a'], ['GET', 'c'],
      ['PFCOUNT', 'a', 'a'], ['PFCOUNT', 'a', 'nokey'], ['PFCOUNT', 'nokey', 'nokey2'], ['EXISTS', 'nokey'],
    ],
  },
  {
    name: 'PFCOUNT of several keys stops at the first key that is not an HLL',
    commands: [
      ['PFADD', 'a', 'x'], LIST, ['SET', 's', 'text'], ['SET', 'bad', sparseHll([xzero(100)])],
      ['PFCOUNT', 'a', 'list'], ['PFCOUNT', 'a', 's'], ['PFCOUNT', 's', 'list'], ['PFCOUNT', 'list', 's'], ['PFCOUNT', 'a', 'bad'], ['PFCOUNT', 'bad', 'list'], ['PFCOUNT', 'list', 'bad'],
      ['PFCOUNT', 'list'], ['PFCOUNT', 's'],
    ],
  },
  {
    name: 'PFCOUNT keeps the TTL when it writes the cache',
    commands: [['PFADD', 'k', 'a', 'b'], ['PEXPIRE', 'k', '100000'], ['PFCOUNT', 'k'], ['GET', 'k'], ['TTL', 'k']],
    relax: { 4: 'ttl' },
  },
]

const sparseA = elements('sa', 0, 300)
const sparseB = elements('sb', 0, 300)
const denseC = elements('dc', 0, 5000)

const pfmergeCases: DiffCase[] = [
  {
    name: 'PFMERGE of sparse HLLs into a missing key stays sparse',
    commands: [['PFADD', 'a', ...sparseA], ['PFADD', 'b', ...sparseB], ['PFMERGE', 'd', 'a', 'b'], ['GET', 'd'], ['PFDEBUG', 'ENCODING', 'd'], ['PFCOUNT', 'd'], ['PFCOUNT', 'a', 'b'], ['GET', 'a']],
  },
  {
    name: 'PFMERGE with a dense source makes the destination dense, in any order',
    commands: [
      ['PFADD', 'a', ...sparseA], ['PFADD', 'c', ...denseC],
      ['PFMERGE', 'd1', 'a', 'c'], ['GET', 'd1'], ['PFMERGE', 'd2', 'c', 'a'], ['GET', 'd2'], ['PFCOUNT', 'd1'], ['PFCOUNT', 'd2'],
      ['PFMERGE', 'a', 'c'], ['GET', 'a'], ['PFDEBUG', 'ENCODING', 'a'], ['PFCOUNT', 'a'],
    ],
  },
  {
    name: 'PFMERGE into an existing sparse destination writes its registers in place',
    commands: [
      ['PFADD', 'a', ...sparseA], ['PFADD', 'b', ...sparseB], ['PFCOUNT', 'a'], ['PFMERGE', 'a', 'b'], ['GET', 'a'], ['PFMERGE', 'a', 'b'], ['GET', 'a'], ['PFCOUNT', 'a'],
      ['PFMERGE', 'a', 'a', 'a'], ['GET', 'a'],
    ],
  },
  {
    name: 'PFMERGE of sparse sources promotes the destination when the union outgrows the sparse limit',
    commands: [
      ['PFADD', 'a', ...elements('p', 0, 1000)], ['PFADD', 'b', ...elements('q', 0, 1000)], ['PFADD', 'c', ...elements('r', 0, 1000)],
      ['PFDEBUG', 'ENCODING', 'c'], ['PFMERGE', 'd', 'a', 'b', 'c'], ['PFDEBUG', 'ENCODING', 'd'], ['GET', 'd'], ['PFCOUNT', 'd'], ['PFCOUNT', 'a', 'b', 'c'],
    ],
  },
  {
    name: 'PFMERGE with only the destination marks its cache stale; a missing one becomes an empty HLL',
    commands: [['PFADD', 'a', 'x', 'y'], ['PFCOUNT', 'a'], ['GET', 'a'], ['PFMERGE', 'a'], ['GET', 'a'], ['PFMERGE', 'e'], ['GET', 'e'], ['PFMERGE', 'f', 'nokey1', 'nokey2'], ['GET', 'f'], ['EXISTS', 'nokey1']],
  },
  {
    name: 'PFMERGE refuses other types, non-HLL strings and corrupted sources, creating nothing',
    commands: [
      ['PFADD', 'a', 'x'], LIST, ['SET', 's', 'text'], ['SET', 'bad', sparseHll([xzero(100)])],
      ['PFMERGE', 'list', 'a'], ['PFMERGE', 'd', 'a', 'list'], ['PFMERGE', 'd', 's'], ['PFMERGE', 's', 'a'], ['PFMERGE', 'd', 'bad'], ['PFMERGE', 'bad'], ['PFMERGE', 'a', 'list', 'bad'],
      ['EXISTS', 'd'], ['GET', 'a'],
    ],
  },
  {
    name: 'PFMERGE keeps the TTL of an existing destination',
    commands: [['PFADD', 'a', 'x'], ['PFADD', 'b', 'y'], ['EXPIRE', 'a', '1000'], ['PFMERGE', 'a', 'b'], ['TTL', 'a'], ['PFMERGE', 'c', 'a'], ['TTL', 'c']],
    relax: { 4: 'ttl' },
  },
  {
    name: 'PFMERGE of hand-made dense registers above 32 into sparse HLLs',
    commands: [
      ['SET', 'high', denseHll((i) => (i % 1000 === 0 ? 45 : 0))], ['PFADD', 'a', ...sparseA], ['PFMERGE', 'a', 'high'], ['GET', 'a'], ['PFCOUNT', 'a'],
      ['PFMERGE', 'n', 'high', 'a'], ['PFCOUNT', 'n'], ['PFCOUNT', 'high', 'a', 'n'],
    ],
  },
]

const corruptedCases: DiffCase[] = [
  ...[
    { what: 'fewer than 16384 registers', opcodes: [xzero(100)] },
    { what: 'more than 16384 registers in zero runs', opcodes: [xzero(16384), zero(1)] },
    { what: 'a VAL run past the last register', opcodes: [xzero(16383), val(3, 2)] },
    { what: 'no opcodes at all', opcodes: [] },
    { what: 'a register overflowing after valid ones', opcodes: [val(1, 4), xzero(16384)] },
    // Unpatched 7.0.15 accepted this in PFMERGE and multi-key PFCOUNT; the CVE-2025-32023 fix rejects it.
    { what: 'a VAL opcode after all 16384 registers', opcodes: [xzero(16384), val(17, 4)] },
  ].map(
    ({ what, opcodes }): DiffCase => ({
      name: `A sparse payload with ${what} is INVALIDOBJ for PFCOUNT, PFMERGE, PFADD, PFDEBUG`,
      commands: [
        ['SET', 'k', sparseHll(opcodes)], ['PFCOUNT', 'k'], ['PFCOUNT', 'k', 'nokey'], ['PFMERGE', 'd', 'k'], ['EXISTS', 'd'], ['PFMERGE', 'k'],
        ['PFADD', 'k', ...elements('c', 0, 20)], ['GET', 'k'], ['PFDEBUG', 'GETREG', 'k'], ['PFDEBUG', 'TODENSE', 'k'], ['PFDEBUG', 'DECODE', 'k'], ['GET', 'k'],
        ['PFADD', 'k', LONG_RUN_ELEMENT], ['GET', 'k'],
      ],
    }),
  ),
  {
    name: 'PFADD stops at a corrupted payload but keeps what earlier elements changed',
    commands: [
      ['SET', 'k', sparseHll([xzero(8192)], 9n)],
      ['PFADD', 'k', elementWhere('low', (index) => index < 8192), elementWhere('high', (index) => index >= 8192)], ['GET', 'k'],
      ['PFADD', 'k', elementWhere('high', (index) => index >= 8192), elementWhere('low2', (index) => index < 8192)], ['GET', 'k'],
      ['PFADD', 'k', elementWhere('low3', (index) => index < 8192)], ['GET', 'k'], ['PFCOUNT', 'k'],
    ],
  },
  {
    name: 'A trailing one-byte XZERO reads its missing byte as zero',
    commands: [['SET', 'k', sparseHll([xzero(16383), [0x40]])], ['PFCOUNT', 'k'], ['PFDEBUG', 'DECODE', 'k'], ['PFADD', 'k', elementWhere('t', (index) => index < 16000)], ['GET', 'k'], ['PFCOUNT', 'k'], ['PFCOUNT', 'k', 'k']],
  },
  {
    // The split sequence is longer than the one byte it replaces: Redis's memcpy writes past the
    // new end, and the next element of the same PFADD reads that byte as the XZERO's second one.
    name: 'PFADD splitting a one-byte XZERO at the end of a short payload, then failing past it',
    commands: [
      ['SET', 'k', Uint8Array.from([...sparseHll([xzero(100)]), ...Buffer.from('c-9223372036854775808JdV')])],
      ['PFADD', 'k', '1', '-5', '-9223372036854775808', '10'], ['GET', 'k'],
      ['SET', 'j', Uint8Array.from([...sparseHll([]), 0x61])], ['PFADD', 'j', '1.5'], ['GET', 'j'], ['PFADD', 'j', '1.5', 'a', 'b'], ['GET', 'j'],
    ],
  },
  {
    name: 'APPEND and SETRANGE work on HLLs as strings and can corrupt them',
    commands: [
      ['PFADD', 'k', 'a', 'b'], ['APPEND', 'k', 'x'], ['GET', 'k'], ['PFCOUNT', 'k'], ['PFADD', 'k', 'c'],
      ['PFADD', 'j', 'a'], ['PFCOUNT', 'j'], ['SETRANGE', 'j', '4', '\x02'], ['PFCOUNT', 'j'], ['SETRANGE', 'j', '4', '\x00'], ['PFCOUNT', 'j'], ['SETRANGE', 'j', '4', '\x01'], ['PFCOUNT', 'j'],
      ['SETRANGE', 'j', '15', Uint8Array.of(0x80)], ['PFCOUNT', 'j'], ['GET', 'j'], ['SETRANGE', 'j', '0', 'h'], ['PFCOUNT', 'j'], ['GETRANGE', 'j', '0', '3'],
    ],
  },
  {
    name: 'Values in Redis layout set by SET are read by PFCOUNT, PFADD and PFMERGE',
    commands: (() => {
      const random = mulberry32(404)
      const registers = Array.from({ length: 16384 }, () => (random() < 0.7 ? Math.floor(random() * 20) : 0))
      return [
        ['SET', 'dense', denseHll((i) => registers[i])], ['PFCOUNT', 'dense'], ['GET', 'dense'], ['PFADD', 'dense', ...elements('v', 0, 2000)], ['GET', 'dense'], ['PFCOUNT', 'dense'],
        ['SET', 'sparse', sparseHll([zero(3), val(2, 3), xzero(1000), val(32, 1), val(32, 1), zero(64), xzero(15312)], 'stale', [9, 8, 7])], ['PFCOUNT', 'sparse'], ['GET', 'sparse'],
        ['PFADD', 'sparse', ...elements('w', 0, 50)], ['GET', 'sparse'], ['PFMERGE', 'm', 'sparse', 'dense'], ['GET', 'm'], ['PFCOUNT', 'm'],
      ] satisfies Command[]
    })(),
  },
]

/** `PFADD k a b c` on Redis 7.0.15, then `DUMP k`: a sparse HLL in an RDB 10 string payload. */
const REDIS_SPARSE_DUMP = Buffer.from('001b48594c4c01000000000000000000008060f38050b1844bfb80425a0a009f590c06b6497049', 'hex')

/** A DUMP payload (RDB 10, uncompressed string) of `value`, as Redis 7.0 reads it. */
function dumpPayload(value: Uint8Array): Uint8Array {
  const body = Buffer.concat([Buffer.from([0x00, 0x80]), Buffer.from(Uint32Array.of(value.length).buffer).reverse(), value, Buffer.from([10, 0])])
  return Buffer.concat([body, Buffer.from(crc64(body.toString('latin1')), 'latin1')])
}

const restoreCases: DiffCase[] = [
  {
    name: 'HLLs restored from Redis DUMP payloads are read by PFCOUNT, PFADD and PFMERGE',
    commands: [
      ['RESTORE', 'sparse', '0', REDIS_SPARSE_DUMP], ['GET', 'sparse'], ['PFCOUNT', 'sparse'], ['PFADD', 'sparse', 'd', 'a'], ['GET', 'sparse'],
      ['RESTORE', 'dense', '0', dumpPayload(denseHll((i) => (i * 31) % 23))], ['PFCOUNT', 'dense'], ['PFADD', 'dense', ...elements('rd', 0, 500)], ['PFCOUNT', 'dense'],
      ['PFMERGE', 'sparse', 'dense'], ['GET', 'sparse'], ['PFCOUNT', 'sparse'],
    ],
  },
]

const debugCases: DiffCase[] = [
  {
    name: 'PFDEBUG ENCODING, DECODE, GETREG and TODENSE',
    commands: [
      ['PFADD', 'k', 'a', 'b', 'c'], ['PFDEBUG', 'ENCODING', 'k'], ['PFDEBUG', 'decode', 'k'], ['PFDEBUG', 'GETREG', 'k'], ['GET', 'k'], ['PFDEBUG', 'encoding', 'k'],
      ['PFDEBUG', 'DECODE', 'k'], ['PFDEBUG', 'TODENSE', 'k'], ['PFADD', 'j', 'a'], ['PFCOUNT', 'j'], ['PFDEBUG', 'ToDense', 'j'], ['GET', 'j'], ['PFDEBUG', 'TODENSE', 'j'], ['PFCOUNT', 'j'],
    ],
  },
  {
    name: 'PFDEBUG checks the key before the subcommand',
    commands: [
      ['PFADD', 'k', 'a'], LIST, ['SET', 's', 'text'],
      ['PFDEBUG', 'nosuch', 'k'], ['PFDEBUG', 'nosuch', 'missing'], ['PFDEBUG', 'GETREG', 'missing'], ['PFDEBUG', 'ENCODING', 'list'], ['PFDEBUG', 'nosuch', 'list'], ['PFDEBUG', 'ENCODING', 's'], ['PFDEBUG', 'x', 's'],
      ['PFDEBUG', 'GETREG'], ['PFDEBUG', 'GETREG', 'k', 'extra'],
    ],
  },
  { name: 'PFSELFTEST passes', commands: [['PFSELFTEST'], ['PFSELFTEST', 'x']] },
  {
    // 18 bytes: the 16-byte header and the 2 of an empty register run fit, and the 3 to 5 of one
    // element never do, so both servers fail the check whichever random element comes first
    // (with 20, an element at either end of the registers fits: a 1-in-128 draw).
    name: 'PFSELFTEST fails its sparse check when hll-sparse-max-bytes cannot hold one element',
    commands: [['CONFIG', 'SET', 'hll-sparse-max-bytes', '18'], ['PFSELFTEST'], ['CONFIG', 'SET', 'hll-sparse-max-bytes', '3000']],
  },
  { name: 'PFADD, PFCOUNT and PFMERGE need a key', commands: [['PFADD'], ['PFCOUNT'], ['PFMERGE']] },
]

export const hyperLogLogCases: DiffCase[] = [...pfaddCases, ...pfcountCases, ...pfmergeCases, ...corruptedCases, ...restoreCases, ...debugCases]
