/**
 * RESP2 codec against its peers, with the `benchmark` package.
 *
 * Decode peers: `redis-parser` 3.x (`returnBuffers: true`) and the decoder of `@redis/client`
 * (its internal module `@redis/client/dist/lib/RESP/decoder.js`, class `Decoder`, with bulk
 * strings mapped to Buffer). Encode peer: `@redis/client/dist/lib/RESP/encoder.js` (default
 * export `encodeCommand`; it returns the pieces it hands to the socket, strings and Buffers).
 * redis-parser has no encoder.
 *
 * What differs, and is kept as is because it is what each library hands its caller:
 * - Both peers return bulk strings as views (`subarray`) of the socket chunk; restis copies each
 *   bulk into memory of its own (a small value never pins a 64 KiB chunk).
 * - The @redis/client encoder returns a list of strings for the socket to convert; restis
 *   returns the final bytes (one Buffer). A second encode row, "→ bytes", adds the conversion
 *   the socket would do (`Buffer.from` of the joined string pieces) to the peer.
 *
 * Every row is measured in BENCH_ROUNDS (default 3) interleaved rounds, implementations in a
 * rotated order, and reports the median ops/s. BENCH_MAX_TIME: seconds per measurement (0.5).
 *
 * Run: npm run bench:codec
 */

import { createRequire } from 'node:module'
import Benchmark from 'benchmark'
import { encodeCommand, NEED_MORE, RespDecoder } from '../src/resp/index.ts'
import { fmt, main, median, ratio, saveResults, table } from './lib.mjs'

const require = createRequire(import.meta.url)
const RedisParser = require('redis-parser')
const { Decoder: RedisClientDecoder, RESP_TYPES } = require('@redis/client/dist/lib/RESP/decoder.js')
const redisClientEncode = require('@redis/client/dist/lib/RESP/encoder.js').default

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const MAX_TIME = Number(process.env.BENCH_MAX_TIME ?? 0.5)
/** BENCH_ONLY=<substring>: only the rows whose name contains it (for quick checks). */
const ONLY = process.env.BENCH_ONLY
const selected = (row) => ONLY === undefined || row.name.includes(ONLY)

// ---------------------------------------------------------------------------------------------
// Inputs

const b = (s) => Buffer.from(s, 'latin1')
const bulk = (s) => `$${Buffer.byteLength(s)}\r\n${s}\r\n`

const KIB = 'x'.repeat(1024)
const ARRAY_100 = `*100\r\n${Array.from({ length: 100 }, (_, i) => bulk(`value${String(i).padStart(5, '0')}`)).join('')}`
/** 1,000 replies of a pipeline: a third each of +OK, integers and 10-byte bulks. */
const PIPELINED = Array.from({ length: 1000 }, (_, i) => (i % 3 === 0 ? '+OK\r\n' : i % 3 === 1 ? `:${100000 + i}\r\n` : bulk(`value${String(i).padStart(5, '0')}`))).join('')
const BIG = Buffer.concat([b('$4194304\r\n'), Buffer.alloc(4 * 1024 * 1024, 0x61), b('\r\n')])
const BIG_CHUNKS = []
for (let i = 0; i < BIG.length; i += 64 * 1024) BIG_CHUNKS.push(BIG.subarray(i, i + 64 * 1024))

const DECODE_ROWS = [
  { name: '+OK', chunks: [b('+OK\r\n')], replies: 1 },
  { name: 'integer', chunks: [b(':1234567\r\n')], replies: 1 },
  { name: '1 KiB bulk', chunks: [b(bulk(KIB))], replies: 1 },
  { name: 'array of 100 bulks', chunks: [b(ARRAY_100)], replies: 1, target: 1.2 },
  { name: '1,000 pipelined replies, one chunk', chunks: [b(PIPELINED)], replies: 1000, target: 1.2 },
  { name: '4 MiB bulk in 64 KiB chunks', chunks: BIG_CHUNKS, replies: 1 },
]

// ---------------------------------------------------------------------------------------------
// Decoders: each returns `feed(chunks) → replies decoded`, reusing one decoder across calls as a
// connection does.

function restisDecoder() {
  const decoder = new RespDecoder()
  return (chunks) => {
    let n = 0
    for (let i = 0; i < chunks.length; i++) {
      decoder.push(chunks[i])
      while (decoder.next() !== NEED_MORE) n++
    }
    return n
  }
}

function redisParserDecoder() {
  let n = 0
  const parser = new RedisParser({
    returnBuffers: true,
    returnReply: () => n++,
    returnError: () => n++,
    returnFatalError: (error) => {
      throw error
    },
  })
  return (chunks) => {
    n = 0
    for (let i = 0; i < chunks.length; i++) parser.execute(chunks[i])
    return n
  }
}

function redisClientDecoder() {
  let n = 0
  const typeMapping = { [RESP_TYPES.BLOB_STRING]: Buffer }
  const decoder = new RedisClientDecoder({
    onReply: () => n++,
    onErrorReply: () => n++,
    onPush: () => n++,
    getTypeMapping: () => typeMapping,
  })
  return (chunks) => {
    n = 0
    for (let i = 0; i < chunks.length; i++) decoder.write(chunks[i])
    return n
  }
}

const DECODERS = {
  restis: restisDecoder,
  'redis-parser': redisParserDecoder,
  '@redis/client': redisClientDecoder,
}

// ---------------------------------------------------------------------------------------------
// Encoders

const SET = ['SET', 'key:000001', 'value']
const MSET = ['MSET', 'key:1', 'value1', 'key:2', 'value2', 'key:3', 'value3', 'key:4', 'value4', 'key:5', 'value5']

const ENCODE_ROWS = [
  { name: 'SET k v', command: SET },
  { name: 'MSET, 5 pairs', command: MSET },
]

/** The @redis/client pieces as the bytes a socket sends. */
function piecesToBytes(pieces) {
  if (pieces.length === 1) return Buffer.from(pieces[0])
  return Buffer.concat(pieces.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)))
}

const ENCODERS = {
  restis: (command) => encodeCommand(command),
  '@redis/client (pieces)': (command) => redisClientEncode(command),
  '@redis/client → bytes': (command) => piecesToBytes(redisClientEncode(command)),
}

// ---------------------------------------------------------------------------------------------

let sink = 0

/** ops/s of `fn`, measured by the benchmark package. */
function hz(name, fn) {
  const bench = new Benchmark(name, fn, { maxTime: MAX_TIME, minSamples: 10, initCount: 1 })
  bench.run({ async: false })
  if (bench.error) throw bench.error
  return { hz: bench.hz, rme: bench.stats.rme }
}

/** Runs every implementation of one row in ROUNDS interleaved rounds; medians. */
function interleaved(impls) {
  const names = Object.keys(impls)
  const runs = Object.fromEntries(names.map((n) => [n, []]))
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + round) % names.length]
      runs[name].push(hz(name, impls[name]))
    }
  }
  return Object.fromEntries(names.map((n) => [n, { hz: median(runs[n].map((r) => r.hz)), rme: median(runs[n].map((r) => r.rme)) }]))
}

await main('bench:codec', async () => {
  const results = { decode: {}, encode: {} }
  for (const row of DECODE_ROWS.filter(selected)) {
    const impls = {}
    for (const [name, make] of Object.entries(DECODERS)) {
      const feed = make()
      const got = feed(row.chunks)
      if (got !== row.replies) throw new Error(`${name} decoded ${got} replies of "${row.name}", expected ${row.replies}`)
      impls[name] = () => {
        sink += feed(row.chunks)
      }
    }
    results.decode[row.name] = interleaved(impls)
    console.error(`  decode ${row.name}: ${Object.entries(results.decode[row.name]).map(([n, r]) => `${n} ${fmt(r.hz)}/s`).join(', ')}`)
  }
  for (const row of ENCODE_ROWS.filter(selected)) {
    const expected = encodeCommand(row.command)
    const impls = {}
    for (const [name, encode] of Object.entries(ENCODERS)) {
      const out = encode(row.command)
      const bytes = Buffer.isBuffer(out) ? out : piecesToBytes(out)
      if (!bytes.equals(expected)) throw new Error(`${name} encodes "${row.name}" differently`)
      impls[name] = () => {
        sink += encode(row.command).length
      }
    }
    results.encode[row.name] = interleaved(impls)
    console.error(`  encode ${row.name}: ${Object.entries(results.encode[row.name]).map(([n, r]) => `${n} ${fmt(r.hz)}/s`).join(', ')}`)
  }

  const rows = []
  for (const row of DECODE_ROWS.filter(selected)) {
    const r = results.decode[row.name]
    const fastest = Math.max(r['redis-parser'].hz, r['@redis/client'].hz)
    const target = row.target ?? 1
    rows.push([
      `decode ${row.name}`,
      fmt(r.restis.hz),
      fmt(r['redis-parser'].hz),
      fmt(r['@redis/client'].hz),
      ratio(r.restis.hz, fastest),
      `≥ ${target.toFixed(1)}x`,
      r.restis.hz >= target * fastest ? 'met' : 'missed',
    ])
  }
  for (const row of ENCODE_ROWS.filter(selected)) {
    const r = results.encode[row.name]
    const peer = r['@redis/client (pieces)'].hz
    rows.push([
      `encode ${row.name}`,
      fmt(r.restis.hz),
      '–',
      `${fmt(peer)} (pieces) / ${fmt(r['@redis/client → bytes'].hz)} (→ bytes)`,
      `${ratio(r.restis.hz, peer)} / ${ratio(r.restis.hz, r['@redis/client → bytes'].hz)}`,
      '≥ 1.0x',
      r.restis.hz >= peer ? 'met' : r.restis.hz >= r['@redis/client → bytes'].hz ? 'met vs bytes only' : 'missed',
    ])
  }
  const markdown = table(['row', 'restis ops/s', 'redis-parser ops/s', '@redis/client ops/s', 'restis / fastest peer', 'target', ''], rows)
  console.log(`\nCodec: ops/s (one op = one row's whole input), median of ${ROUNDS} interleaved rounds, maxTime ${MAX_TIME} s each\n`)
  console.log(markdown)
  const file = saveResults('codec', { rounds: ROUNDS, maxTime: MAX_TIME, results, markdown })
  console.log(`\nresults: ${file} (sink ${sink % 10})`)
})
