/**
 * RESP2 codec against its peers, with the `benchmark` package.
 *
 * Decode peers: `redis-parser` 3.x (`returnBuffers: true`) and the decoder of `@redis/client`
 * (its internal module `@redis/client/dist/lib/RESP/decoder.js`, class `Decoder`, with bulk
 * strings mapped to Buffer). Encode peer: `@redis/client/dist/lib/RESP/encoder.js` (default
 * export `encodeCommand`; it returns the pieces it hands to the socket, strings and Buffers).
 * redis-parser has no encoder.
 *
 * Each decoder lives across ops, as a connection's does, and is driven the way its callers
 * drive it: one call per chunk, a callback per reply. For restis that is `feed(chunk, onReply)`;
 * its pull API (`push(chunk)`, then `next()` until NEED_MORE) is measured too, in a column of
 * its own, and the ratios use `feed`.
 *
 * What differs, and is kept as is because it is what each library hands its caller:
 * - Both peers return bulk strings as views (`subarray`) of the socket chunk; restis returns a
 *   view only for a bulk that is at least half of its chunk (the 1 KiB row) and copies smaller
 *   ones, so a small value never pins a 64 KiB chunk.
 * - The @redis/client encoder returns a list of strings for the socket to convert; restis
 *   returns the final bytes (one Buffer). A second encode row, "→ bytes", adds the conversion
 *   the socket would do (`Buffer.from` of the joined string pieces) to the peer.
 *
 * Every row is measured in BENCH_ROUNDS (default 3) interleaved rounds, implementations in a
 * rotated order, and reports the median ops/s. Each decoder first runs the row for a warm-up
 * (0.05 s; 1 s for the 4 MiB row, whose cost until the allocator settles is page faults), and the
 * 4 MiB row is measured for at least 1 s (its ops take milliseconds). BENCH_MAX_TIME: seconds per measurement (0.5);
 * BENCH_MIN_SAMPLES (10); BENCH_CLOCK=wall for wall-clock instead of CPU time; BENCH_ONLY=<text>
 * for the rows whose name contains it.
 *
 * Run: npm run bench:codec
 */

import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import Benchmark from 'benchmark'
import { benchBuild, fmt, main, median, ratio, saveResults, table, useCpuClock } from './lib.mjs'

const { encodeCommand, NEED_MORE, RespDecoder } = await (await benchBuild()).import('resp')

const require = createRequire(import.meta.url)
const RedisParser = require('redis-parser')
const { Decoder: RedisClientDecoder, RESP_TYPES } = require('@redis/client/dist/lib/RESP/decoder.js')
const redisClientEncode = require('@redis/client/dist/lib/RESP/encoder.js').default

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const MAX_TIME = Number(process.env.BENCH_MAX_TIME ?? 0.5)
/** `cpu` (default): ops per CPU-second of the measuring process; `wall`: ops per wall-clock second. */
const CLOCK = process.env.BENCH_CLOCK ?? 'cpu'
/** Fewest samples the `benchmark` package takes per row (its cycles last at least ~50 ms each). */
const MIN_SAMPLES = Number(process.env.BENCH_MIN_SAMPLES ?? 10)
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
  // Each op allocates 4 MiB: until the allocator settles (glibc raises its mmap threshold once
  // such blocks are freed), every op maps fresh pages and faults on each of them, for every
  // implementation alike. A longer warm-up measures the steady state a long-lived connection sees.
  // Its ops take milliseconds: at least a second of them, so a sample is more than a few ops.
  { name: '4 MiB bulk in 64 KiB chunks', chunks: BIG_CHUNKS, replies: 1, warmup: 1, minTime: 1 },
]

/** Seconds (wall clock) each decoder runs a row before it is measured, unless the row says otherwise. */
const WARMUP = 0.05

// ---------------------------------------------------------------------------------------------
// Decoders: each returns `feed(chunks) → replies decoded`, reusing one decoder across calls as a
// connection does.

/** restis's fastest entry point: `feed(chunk, onReply)`, one call per chunk and a callback per reply, as the peers. */
function restisDecoder() {
  let n = 0
  const decoder = new RespDecoder()
  const onReply = () => n++
  return (chunks) => {
    n = 0
    for (let i = 0; i < chunks.length; i++) decoder.feed(chunks[i], onReply)
    return n
  }
}

/** restis's pull API: `push(chunk)`, then `next()` until NEED_MORE. */
function restisPullDecoder() {
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
  'restis (pull)': restisPullDecoder,
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
function hz(name, fn, maxTime = MAX_TIME) {
  const bench = new Benchmark(name, fn, { maxTime, minSamples: MIN_SAMPLES, initCount: 1 })
  bench.run({ async: false })
  if (bench.error) throw bench.error
  return { hz: bench.hz, rme: bench.stats.rme }
}

/** Child mode: measures every selected row of one implementation, prints JSON. */
function child(impl) {
  const out = { decode: {}, encode: {} }
  const make = DECODERS[impl]
  if (make) {
    for (const row of DECODE_ROWS.filter(selected)) {
      const feed = make()
      const got = feed(row.chunks)
      if (got !== row.replies) throw new Error(`${impl} decoded ${got} replies of "${row.name}", expected ${row.replies}`)
      const warmUntil = performance.now() + (row.warmup ?? WARMUP) * 1000
      while (performance.now() < warmUntil) sink += feed(row.chunks)
      out.decode[row.name] = hz(
        row.name,
        () => {
          sink += feed(row.chunks)
        },
        Math.max(MAX_TIME, row.minTime ?? 0),
      )
    }
  }
  const encode = ENCODERS[impl === 'restis' ? 'restis' : impl === '@redis/client' ? '@redis/client (pieces)' : impl]
  if (encode) {
    for (const row of ENCODE_ROWS.filter(selected)) {
      const out1 = encode(row.command)
      const bytes = Buffer.isBuffer(out1) ? out1 : piecesToBytes(out1)
      if (!bytes.equals(encodeCommand(row.command))) throw new Error(`${impl} encodes "${row.name}" differently`)
      out.encode[row.name] = hz(row.name, () => {
        sink += encode(row.command).length
      })
    }
  }
  process.stdout.write(JSON.stringify(out) + '\n')
}

/** Runs one child process per implementation per round, in a rotated order. */
function runChild(impl) {
  const result = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', impl], {
    encoding: 'utf8',
    env: process.env,
    timeout: 300_000,
    maxBuffer: 1 << 20,
  })
  if (result.status !== 0) throw new Error(`codec child ${impl} failed: ${result.stderr || result.error}`)
  return JSON.parse(result.stdout.trim().split('\n').pop())
}

const IMPLS = ['restis', 'restis (pull)', 'redis-parser', '@redis/client', '@redis/client → bytes']

if (process.argv[2] === '--child') {
  if (CLOCK === 'cpu') useCpuClock()
  child(process.argv[3])
} else {
  await main('bench:codec', async () => {
    const runs = Object.fromEntries(IMPLS.map((impl) => [impl, []]))
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < IMPLS.length; i++) {
        const impl = IMPLS[(i + round) % IMPLS.length]
        runs[impl].push(runChild(impl))
        console.error(`  round ${round + 1}: ${impl} done`)
      }
    }
    const medianOf = (impl, kind, row) => {
      const values = runs[impl].map((r) => r[kind][row]?.hz).filter((v) => v !== undefined)
      return values.length === 0 ? undefined : median(values)
    }
    const results = { decode: {}, encode: {} }
    for (const row of DECODE_ROWS.filter(selected)) {
      results.decode[row.name] = Object.fromEntries(['restis', 'restis (pull)', 'redis-parser', '@redis/client'].map((impl) => [impl, { hz: medianOf(impl, 'decode', row.name) }]))
    }
    for (const row of ENCODE_ROWS.filter(selected)) {
      results.encode[row.name] = {
        restis: { hz: medianOf('restis', 'encode', row.name) },
        '@redis/client (pieces)': { hz: medianOf('@redis/client', 'encode', row.name) },
        '@redis/client → bytes': { hz: medianOf('@redis/client → bytes', 'encode', row.name) },
      }
    }

    const rows = []
    for (const row of DECODE_ROWS.filter(selected)) {
      const r = results.decode[row.name]
      const fastest = Math.max(r['redis-parser'].hz, r['@redis/client'].hz)
      const target = row.target ?? 1
      rows.push([
        `decode ${row.name}`,
        fmt(r.restis.hz),
        fmt(r['restis (pull)'].hz),
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
      const bytes = r['@redis/client → bytes'].hz
      rows.push([
        `encode ${row.name}`,
        fmt(r.restis.hz),
        '–',
        '–',
        `${fmt(peer)} (pieces) / ${fmt(bytes)} (→ bytes)`,
        `${ratio(r.restis.hz, peer)} / ${ratio(r.restis.hz, bytes)}`,
        '≥ 1.0x',
        r.restis.hz >= peer ? 'met' : r.restis.hz >= bytes ? 'met vs bytes only' : 'missed',
      ])
    }
    const markdown = table(['row', 'restis ops/s', 'restis push + next ops/s', 'redis-parser ops/s', '@redis/client ops/s', 'restis / fastest peer', 'target', ''], rows)
    console.log(`\nCodec: ops/s (one op = one row's whole input), ops per ${CLOCK === 'cpu' ? 'CPU' : 'wall-clock'} second, median of ${ROUNDS} rounds; each implementation in its own process, processes interleaved; maxTime ${MAX_TIME} s per row\n`)
    console.log(markdown)
    const file = saveResults('codec', { clock: CLOCK, rounds: ROUNDS, maxTime: MAX_TIME, runs, results, markdown })
    console.log(`\nresults: ${file}`)
  })
}
