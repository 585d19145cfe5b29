/**
 * Sorted sets and streams from 1k to 1M members/entries: restis's `MemoryExecutor` against
 * redis-server through restis's `SocketExecutor`, in the same run.
 *
 * Per size N in 1k, 10k, 100k, 1M, one sorted set of N members and one stream of N entries, then:
 *   - ZADD: a new score for a random existing member (the set stays at N members);
 *   - ZRANGE: 10 members from a random rank;
 *   - ZRANK: the rank of a random existing member;
 *   - ZRANK of one of 256 fixed members: the same walk down the structure, but over paths that
 *     stay in the CPU caches, so its growth is the algorithm's (the depth) without the misses;
 *   - XRANGE: COUNT 10 from a random existing ID;
 *   - XRANGE from one of 256 fixed IDs: likewise the search with the entries it reads in cache;
 *   - XADD: `MAXLEN N *`, an exact trim, so the stream stays at N entries (every append also
 *     marks the oldest entry deleted, and every 100th drops a whole node, in both contenders).
 * Both contenders get the same fill and the same commands, from a fixed-seed generator; the
 * sizes are checked (ZCARD, XLEN) after the fill and after the measurements.
 *
 * Throughput: batches of 100 through each executor's `pipeline()`, one batch in flight, ops per
 * wall-clock second (as bench/engine.mjs measures its redis-server rows). Cost per operation in
 * the same windows, in CPU time where the command runs: restis's process (the engine runs in it;
 * `pipeline()` is `execSync` per command plus one resolved promise per batch); redis-server's
 * main thread, which runs every command, from /proc/<pid>/schedstat (ns; /proc/<pid>/stat counts
 * 10 ms ticks, too coarse here). Growth is cost at 1M over cost at 1k: an O(log n) walk is about
 * twice as deep at 1M as at 1k (plus the cache misses of a structure that no longer fits the
 * caches); a linear one would cost 1,000x. The two rows on 256 fixed members / IDs separate the
 * two terms: the random rows pay the depth and the misses, the fixed ones mostly the depth. A
 * last table gives the depths themselves: the levels of restis's sorted-set tree (each ZRANK,
 * ZRANGE and ZADD descends all of them) and the stream nodes each contender bisects to find an
 * ID (XINFO STREAM `radix-tree-keys`).
 *
 * Each (contender, size) runs in a child process of its own that fills, runs `gc()` once (started
 * with --expose-gc, so the fill's garbage is not collected inside a measurement; the collections
 * the operations cause are), then measures every operation in PASSES interleaved windows of
 * SECONDS of CPU time (restis's process, or SocketExecutor client plus redis-server) and keeps
 * each one's median window. Sizes are interleaved in a rotated order each round, contenders
 * alternate, medians over rounds are reported. redis-server is FLUSHALLed before each fill.
 *
 * Env: BENCH_ROUNDS (3), BENCH_SECONDS (CPU seconds per window, 0.15), BENCH_PASSES (3),
 * BENCH_DEADLINE (150: no round starts that would end after it, judging by the last one, so a
 * loaded machine gets fewer rounds rather than a longer run).
 *
 * Run: npm run bench:collections
 */

import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import {
  benchBuild,
  cpuNow,
  ensureTools,
  fmt,
  main,
  median,
  processCpuMs,
  ratio,
  saveResults,
  startChild,
  startRedis,
  table,
} from './lib.mjs'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 0.15)
const PASSES = Number(process.env.BENCH_PASSES ?? 3)
/** Seconds after which no further round starts (a loaded machine stretches every round). */
const DEADLINE_S = Number(process.env.BENCH_DEADLINE ?? 150)
const SIZES = [1_000, 10_000, 100_000, 1_000_000]
const OPS = ['ZADD', 'ZRANGE', 'ZRANK', 'ZRANK_HOT', 'XRANGE', 'XRANGE_HOT', 'XADD']
/** Distinct members ZRANK_HOT (IDs XRANGE_HOT) asks for: few enough that their paths stay in the CPU caches. */
const HOT = 256
const CONTENDERS = ['restis', 'redis']
const BATCH = 100
/** Pre-built commands per operation, cycled, so no string is built while measuring. */
const POOL = 1 << 16
/** Batches between two looks at the clocks (reading redis-server's CPU time is a file read). */
const CHECK_EVERY = 8
/** Members per ZADD and entries per pipeline while filling. */
const FILL_CHUNK = 1000

const LABELS = {
  ZADD: 'ZADD (new score, existing member)',
  ZRANGE: 'ZRANGE (10 from a random rank)',
  ZRANK: 'ZRANK (existing member)',
  ZRANK_HOT: `ZRANK (one of ${HOT} members)`,
  XRANGE: 'XRANGE (COUNT 10 from an existing ID)',
  XRANGE_HOT: `XRANGE (COUNT 10 from one of ${HOT} IDs)`,
  XADD: 'XADD (MAXLEN = N, *)',
}
const CONTENDER_LABELS = { restis: 'restis MemoryExecutor', redis: 'redis-server via SocketExecutor' }

/** A small deterministic generator: the same "random" picks in every child. */
function lcg(seed) {
  let x = seed >>> 0
  return (n) => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0
    return x % n
  }
}

/** Fill commands and measured commands for size N; identical for both contenders. */
function workload(size) {
  const fillRandom = lcg(7)
  const fillZset = []
  for (let i = 0; i < size; i += FILL_CHUNK) {
    const args = ['ZADD', 'zset']
    for (let j = i; j < Math.min(size, i + FILL_CHUNK); j++) args.push(String(fillRandom(1e9)), `member:${j}`)
    fillZset.push(args)
  }
  // Explicit IDs 1-0 … N-0, so both contenders hold the same IDs (and `*` later adds after them).
  const fillStream = Array.from({ length: size }, (_, i) => ['XADD', 'stream', `${i + 1}-0`, 'field', `value:${i}`])
  const hotRandom = lcg(8)
  const hot = Array.from({ length: HOT }, () => hotRandom(size))
  const hotIds = Array.from({ length: HOT }, () => hotRandom(size - 9) + 1)
  const pool = (op, seed, make) => [op, Array.from({ length: POOL }, make.bind(null, lcg(seed)))]
  const pools = Object.fromEntries([
    pool('ZADD', 1, (random) => ['ZADD', 'zset', String(random(1e9)), `member:${random(size)}`]),
    pool('ZRANGE', 2, (random) => {
      const start = random(size - 9)
      return ['ZRANGE', 'zset', String(start), String(start + 9)]
    }),
    pool('ZRANK', 3, (random) => ['ZRANK', 'zset', `member:${random(size)}`]),
    pool('ZRANK_HOT', 6, (random) => ['ZRANK', 'zset', `member:${hot[random(HOT)]}`]),
    pool('XRANGE', 4, (random) => ['XRANGE', 'stream', `${random(size - 9) + 1}-0`, '+', 'COUNT', '10']),
    pool('XRANGE_HOT', 7, (random) => ['XRANGE', 'stream', `${hotIds[random(HOT)]}-0`, '+', 'COUNT', '10']),
    pool('XADD', 5, () => ['XADD', 'stream', 'MAXLEN', String(size), '*', 'field', 'value']),
  ])
  return { fillZset, fillStream, pools }
}

const chunks = (list, n) => Array.from({ length: Math.ceil(list.length / n) }, (_, i) => list.slice(i * n, i * n + n))

/**
 * CPU time of `pid`'s main thread in ns, from /proc/<pid>/schedstat; /proc/<pid>/stat (whole
 * process, 10 ms ticks) where schedstat is missing.
 */
function serverCpuNs(pid) {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0])
  } catch {
    return processCpuMs(pid) * 1e6
  }
}

/** The median of each numeric field over records with the same fields. */
function medians(records) {
  const fields = Object.keys(records[0]).filter((field) => typeof records[0][field] === 'number')
  return Object.fromEntries(fields.map((field) => [field, median(records.map((r) => r[field]))]))
}

const roundsText = (n) => `${n} round${n === 1 ? '' : 's'}`

/** Throws on an error reply (restis's `ReplyError`, a value with a `message`, not an `Error`). */
function assertReplies(op, replies) {
  for (const reply of replies) {
    if (reply !== null && typeof reply === 'object' && typeof reply.message === 'string') throw new Error(`${op}: ${reply.message}`)
  }
}

async function scalar(executor, command) {
  const [reply] = await executor.pipeline([command])
  return Number(reply)
}

/** The stream's `radix-tree-keys` from XINFO STREAM: the nodes an ID lookup bisects. */
async function streamNodes(executor) {
  const [reply] = await executor.pipeline([['XINFO', 'STREAM', 'stream']])
  if (!Array.isArray(reply)) return NaN
  for (let i = 0; i + 1 < reply.length; i += 2) {
    if (Buffer.from(reply[i]).toString() === 'radix-tree-keys') return Number(reply[i + 1])
  }
  return NaN
}

/** Child mode: fill to `size`, measure every operation, print one JSON line. */
async function child(contender, size, redisUrl, redisPid) {
  const build = await benchBuild()
  let executor
  if (contender === 'restis') {
    const { MemoryExecutor } = await build.import('memory')
    executor = new MemoryExecutor({ activeExpiryInterval: 0 })
  } else {
    const { SocketExecutor } = await build.import('socket')
    executor = new SocketExecutor({ url: redisUrl })
    await executor.exec(['FLUSHALL'])
  }
  const serverNow = contender === 'redis' ? () => serverCpuNs(redisPid) : () => 0

  let { fillZset, fillStream, pools } = workload(size)
  const fillStarted = Date.now()
  for (const batch of chunks(fillZset, 10)) assertReplies('fill ZADD', await executor.pipeline(batch))
  for (const batch of chunks(fillStream, FILL_CHUNK)) assertReplies('fill XADD', await executor.pipeline(batch))
  const fillSeconds = (Date.now() - fillStarted) / 1000
  fillZset = fillStream = undefined
  if ((await scalar(executor, ['ZCARD', 'zset'])) !== size) throw new Error(`ZCARD is not ${size} after the fill`)
  if ((await scalar(executor, ['XLEN', 'stream'])) !== size) throw new Error(`XLEN is not ${size} after the fill`)
  // The depths the operations walk: restis's sorted-set tree (read from the engine, which this
  // process holds), and the stream nodes of either contender.
  const structure = {
    zsetLevels: contender === 'restis' ? (executor.engine.databases[0].get('zset', Date.now())?.depth ?? NaN) : NaN,
    streamNodes: await streamNodes(executor),
  }

  const wallNow = () => Number(process.hrtime.bigint())
  /**
   * Runs batches until `budgetNs` of CPU time went into them (this process's, plus redis-server's
   * main thread for redis), or five times that in wall time: on a loaded machine a wall-clock
   * budget alone would leave some windows with a handful of batches.
   */
  const window = async (batches, budgetNs) => {
    const wall = wallNow()
    const cpu = cpuNow()
    const server = serverNow()
    let n = 0
    for (;;) {
      for (let k = 0; k < CHECK_EVERY; k++) await executor.pipeline(batches[n++ % batches.length])
      if (cpuNow() - cpu + serverNow() - server >= budgetNs || wallNow() - wall >= 5 * budgetNs) break
    }
    const ops = n * BATCH
    // Whole numbers: the child's output reaches the parent through lib's 8 KiB log tail.
    const opsPerSec = Math.round((ops * 1e9) / (wallNow() - wall))
    const processNsPerOp = Math.round((cpuNow() - cpu) / ops)
    // restis: the engine runs in this process. redis-server: the command runs in the server, this
    // process is the SocketExecutor client.
    return contender === 'restis'
      ? { ops, opsPerSec, cpuNsPerOp: processNsPerOp }
      : { ops, opsPerSec, cpuNsPerOp: Math.round((serverNow() - server) / ops), clientNsPerOp: processNsPerOp }
  }

  const batchesOf = Object.fromEntries(OPS.map((op) => [op, chunks(pools[op], BATCH)]))
  pools = undefined
  for (const op of OPS) {
    const replies = await executor.pipeline(batchesOf[op][0])
    assertReplies(op, replies)
    const tenEach = op === 'ZRANGE' || op.startsWith('XRANGE')
    if (tenEach && !replies.every((reply) => Array.isArray(reply) && reply.length === 10)) throw new Error(`${op}: a reply without 10 items`)
    if (op.startsWith('ZRANK') && !replies.every((reply) => typeof reply === 'number')) throw new Error('ZRANK: a member without a rank')
  }
  globalThis.gc?.()
  // Passes interleave the operations, so a burst of load on the machine lands in one window of
  // several operations rather than in every window of one; each operation reports its median
  // window. XADD's windows come last: its appends and trims move the stream past the filled IDs
  // that XRANGE starts from.
  const reads = OPS.filter((op) => op !== 'XADD')
  const schedule = [...Array.from({ length: PASSES }, () => reads).flat(), ...Array(PASSES).fill('XADD')]
  const windows = Object.fromEntries(OPS.map((op) => [op, []]))
  for (const op of schedule) {
    if (windows[op].length === 0) await window(batchesOf[op], SECONDS * 0.3e9)
    windows[op].push(await window(batchesOf[op], SECONDS * 1e9))
  }
  const out = { fillSeconds, structure }
  for (const op of OPS) {
    out[op] = { ...medians(windows[op]), windows: windows[op] }
  }
  if ((await scalar(executor, ['ZCARD', 'zset'])) !== size) throw new Error(`ZCARD is not ${size} after ZADD`)
  if ((await scalar(executor, ['XLEN', 'stream'])) !== size) throw new Error(`XLEN is not ${size} after XADD`)
  await executor.close()
  process.stdout.write(`RESULT ${JSON.stringify(out)}\n`)
}

/** One child, started through lib's startChild so a stopped suite kills it (and redis-server) by pid. */
async function runChild(contender, size, redis) {
  const args = ['--expose-gc', fileURLToPath(import.meta.url), '--child', contender, String(size)]
  if (contender === 'redis') args.push(redis.url, String(redis.child.pid))
  const proc = startChild(process.execPath, args, { maxMs: 300_000 })
  const code = await proc.exited
  await proc.stop()
  const line = proc
    .log()
    .split('\n')
    .findLast((l) => l.startsWith('RESULT '))
  if (code !== 0 || !line) throw new Error(`collections child ${contender} ${size} failed (exit ${code}): ${proc.log()}`)
  return JSON.parse(line.slice('RESULT '.length))
}

if (process.argv[2] === '--child') {
  await child(process.argv[3], Number(process.argv[4]), process.argv[5], Number(process.argv[6]))
} else {
  await main('bench:collections', async () => {
    const started = Date.now()
    await benchBuild()
    const missing = ensureTools(['redis-server'])
    const redis = missing.length === 0 ? await startRedis() : undefined
    const contenders = redis ? CONTENDERS : ['restis']
    const runs = Object.fromEntries(contenders.map((c) => [c, Object.fromEntries(SIZES.map((s) => [s, []]))]))
    let rounds = 0
    for (let round = 0; round < ROUNDS; round++) {
      const roundStarted = Date.now()
      for (let i = 0; i < SIZES.length; i++) {
        const size = SIZES[(i + round) % SIZES.length]
        const order = (i + round) % 2 === 0 ? contenders : [...contenders].reverse()
        for (const contender of order) {
          const r = await runChild(contender, size, redis)
          runs[contender][size].push(r)
          console.error(
            `  round ${round + 1}: ${contender} ${fmt(size)} (fill ${r.fillSeconds.toFixed(1)} s): ` +
              OPS.map((op) => `${op} ${fmt(r[op].opsPerSec)}/s ${fmt(r[op].cpuNsPerOp)} ns`).join(', '),
          )
        }
      }
      rounds++
      const elapsedS = (Date.now() - started) / 1000
      if (round + 1 < ROUNDS && elapsedS + (Date.now() - roundStarted) / 1000 > DEADLINE_S) {
        console.error(`  stopping after ${roundsText(rounds)}: another would end past BENCH_DEADLINE (${DEADLINE_S} s)`)
        break
      }
    }
    await redis?.stop()

    const results = Object.fromEntries(
      contenders.map((c) => [
        c,
        Object.fromEntries(OPS.map((op) => [op, Object.fromEntries(SIZES.map((s) => [s, medians(runs[c][s].map((r) => r[op]))]))])),
      ]),
    )
    const opsOf = (c, op, s) => results[c]?.[op][s].opsPerSec ?? NaN
    /** CPU ns per op where the command runs: restis's process, redis-server's main thread. */
    const cpuOf = (c, op, s) => results[c]?.[op][s].cpuNsPerOp ?? NaN
    const small = SIZES[0]
    const large = SIZES.at(-1)
    /** A structure figure of the first run of (contender, size): it is the same in every run. */
    const structureOf = (c, field, s) => runs[c]?.[s][0]?.structure?.[field] ?? NaN

    const throughputRows = OPS.flatMap((op) =>
      SIZES.map((s) => [
        s === small ? LABELS[op] : '',
        fmt(s),
        fmt(opsOf('restis', op, s)),
        redis ? fmt(opsOf('redis', op, s)) : 'n/a (no redis-server)',
        ratio(opsOf('restis', op, s), opsOf('redis', op, s)),
        ratio(cpuOf('redis', op, s), cpuOf('restis', op, s)),
      ]),
    )
    const growthRows = OPS.flatMap((op) =>
      contenders.map((c, i) => [
        i === 0 ? LABELS[op] : '',
        c === 'restis' ? 'restis (its process)' : 'redis-server (main thread)',
        ...SIZES.map((s) => fmt(cpuOf(c, op, s))),
        ratio(cpuOf(c, op, large), cpuOf(c, op, small)),
      ]),
    )
    const markdown = [
      table(
        [`operation (pipelines of ${BATCH})`, 'N', `${CONTENDER_LABELS.restis} ops/s`, `${CONTENDER_LABELS.redis} ops/s`, 'ratio', 'CPU per op, redis-server / restis'],
        throughputRows,
      ),
      '',
      table(['CPU ns per op', 'where', ...SIZES.map((s) => fmt(s)), '1M / 1k (log n: 2x, n: 1,000x)'], growthRows),
      '',
      table(['depth walked', 'where', ...SIZES.map((s) => fmt(s))], [
        ['sorted-set tree levels (root to leaf)', 'restis (B+ tree, fan-out 64)', ...SIZES.map((s) => fmt(structureOf('restis', 'zsetLevels', s)))],
        ['stream nodes (XINFO radix-tree-keys)', 'restis', ...SIZES.map((s) => fmt(structureOf('restis', 'streamNodes', s)))],
        ...(redis ? [['', 'redis-server', ...SIZES.map((s) => fmt(structureOf('redis', 'streamNodes', s)))]] : []),
      ]),
    ].join('\n')
    console.log(`\nSorted sets and streams: median of ${roundsText(rounds)} (interleaved), each (contender, size) in a child process of its own\n`)
    console.log(markdown)
    const file = saveResults('collections', { rounds, seconds: SECONDS, passes: PASSES, batch: BATCH, sizes: SIZES, runs, results, markdown })
    console.log(`\nresults: ${file}`)
  })
}
