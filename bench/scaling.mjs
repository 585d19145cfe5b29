/**
 * Scaling: does the cost of one operation stay flat (or logarithmic) as the data grows?
 *
 * 1. Engine, per size N in 1k, 10k, 100k, 1M (`MemoryExecutor.execSync`, ns per op of CPU time):
 *    - GET of a random existing key among N keys;
 *    - ZADD changing the score of a random member of a sorted set of N members;
 *    - ZRANGE of 10 members at a random rank of that sorted set;
 *    - XADD (`*` id) onto a stream of N entries.
 *    The ratio 1M/1k is printed per operation. Each (operation, size) runs in a fresh child
 *    process; rounds are interleaved and medians reported. Random access over 1M keys misses the
 *    CPU caches where 1k keys do not: a ratio above 1 at flat algorithmic cost is that.
 * 2. Gateway, GET over HTTP with 1, 4, 16, 64 and 256 keep-alive connections (wrk), restis's
 *    memory executor against the bare node:http ceiling, interleaved.
 *
 * Env: BENCH_ROUNDS (2), BENCH_SECONDS (CPU seconds per measurement, 0.3), BENCH_WRK_SECONDS (3),
 * BENCH_SWEEP=0 to skip the connection sweep.
 *
 * Run: npm run bench:scaling
 */

import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import {
  benchBuild,
  cpuNow,
  ensureTools,
  fmt,
  httpRequest,
  main,
  median,
  ratio,
  runWrk,
  saveResults,
  startBareNode,
  startRestis,
  table,
} from './lib.mjs'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 0.3)
const WRK_SECONDS = Number(process.env.BENCH_WRK_SECONDS ?? 3)
const SWEEP = process.env.BENCH_SWEEP !== '0'
const SIZES = [1_000, 10_000, 100_000, 1_000_000]
const OPS = ['GET', 'ZADD', 'ZRANGE', 'XADD']
const CONNECTIONS = [1, 4, 16, 64, 256]
/** Pre-built commands cycled by the measuring loop, so no string is built while measuring. */
const POOL = 1 << 16

/** A small deterministic generator: the same "random" picks in every child. */
function lcg(seed) {
  let x = seed >>> 0
  return (n) => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0
    return x % n
  }
}

async function child(op, size) {
  const { MemoryExecutor } = await (await benchBuild()).import('memory')
  const ex = new MemoryExecutor({ activeExpiryInterval: 0 })
  const random = lcg(42)
  let pool
  if (op === 'GET') {
    for (let i = 0; i < size; i++) ex.execSync(['SET', `key:${i}`, `value:${i}`])
    pool = Array.from({ length: POOL }, () => ['GET', `key:${random(size)}`])
  } else if (op === 'ZADD' || op === 'ZRANGE') {
    for (let i = 0; i < size; i += 1000) {
      const args = ['ZADD', 'zset']
      for (let j = i; j < Math.min(size, i + 1000); j++) args.push(String(random(1e9)), `member:${j}`)
      ex.execSync(args)
    }
    pool =
      op === 'ZADD'
        ? Array.from({ length: POOL }, () => ['ZADD', 'zset', String(random(1e9)), `member:${random(size)}`])
        : Array.from({ length: POOL }, () => {
            const start = random(Math.max(1, size - 10))
            return ['ZRANGE', 'zset', String(start), String(start + 9)]
          })
  } else if (op === 'XADD') {
    const fill = ['XADD', 'stream', '*', 'field', 'value']
    for (let i = 0; i < size; i++) ex.execSync(fill)
    pool = [fill]
  }
  const check = ex.execSync(pool[0])
  if (check instanceof Error || (check && check.constructor?.name === 'ReplyError')) throw new Error(`${op}: ${check.message}`)
  const measure = (budgetNs) => {
    const start = cpuNow()
    let n = 0
    for (;;) {
      for (let k = 0; k < 1024; k++, n++) ex.execSync(pool[n & (pool.length - 1 > 0 ? POOL - 1 : 0)])
      const spent = cpuNow() - start
      if (spent >= budgetNs) return spent / n
    }
  }
  measure(SECONDS * 0.3e9)
  const nsPerOp = measure(SECONDS * 1e9)
  await ex.close()
  process.stdout.write(JSON.stringify({ nsPerOp }) + '\n')
}

function runChild(op, size) {
  const result = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', op, String(size)], {
    encoding: 'utf8',
    timeout: 300_000,
  })
  if (result.status !== 0) throw new Error(`scaling child ${op} ${size} failed: ${result.stderr || result.error}`)
  return JSON.parse(result.stdout.trim().split('\n').pop()).nsPerOp
}

if (process.argv[2] === '--child') {
  await child(process.argv[3], Number(process.argv[4]))
} else {
  await main('bench:scaling', async () => {
    await benchBuild()
    const runs = Object.fromEntries(OPS.map((op) => [op, Object.fromEntries(SIZES.map((s) => [s, []]))]))
    for (let round = 0; round < ROUNDS; round++) {
      // Sizes interleaved within each operation, in a rotated order every round.
      for (const op of OPS) {
        for (let i = 0; i < SIZES.length; i++) {
          const size = SIZES[(i + round) % SIZES.length]
          runs[op][size].push(runChild(op, size))
        }
        console.error(`  round ${round + 1}: ${op}: ${SIZES.map((s) => `${fmt(s)} ${runs[op][s].at(-1).toFixed(0)} ns`).join(', ')}`)
      }
    }
    const ns = Object.fromEntries(OPS.map((op) => [op, Object.fromEntries(SIZES.map((s) => [s, median(runs[op][s])]))]))
    const engineRows = OPS.map((op) => [
      op === 'ZRANGE' ? 'ZRANGE (10 members)' : op,
      ...SIZES.map((s) => ns[op][s].toFixed(0)),
      ratio(ns[op][1_000_000], ns[op][1_000]),
    ])
    const lines = [table(['ns per op (CPU)', ...SIZES.map((s) => fmt(s)), '1M / 1k'], engineRows)]

    let sweep
    if (SWEEP && ensureTools(['wrk']).length === 0) {
      sweep = {}
      const memory = await startRestis()
      const bare = await startBareNode()
      const headers = { authorization: `Bearer ${memory.token}` }
      await httpRequest(`${memory.url}/set/foo/bar`, { headers })
      await runWrk({ url: `${memory.url}/get/foo`, script: 'auth.lua', env: { TOKEN: memory.token }, connections: 16, threads: 1, seconds: 2 })
      for (const connections of CONNECTIONS) {
        const r = { memory: [], bare: [] }
        for (let round = 0; round < ROUNDS; round++) {
          const order = round % 2 === 0 ? ['bare', 'memory'] : ['memory', 'bare']
          for (const name of order) {
            const wrk =
              name === 'memory'
                ? { url: `${memory.url}/get/foo`, script: 'auth.lua', env: { TOKEN: memory.token } }
                : { url: `${bare.url}/get/foo` }
            r[name].push(await runWrk({ ...wrk, connections, threads: 1, seconds: WRK_SECONDS }))
          }
        }
        const pick = (list) => ({ rps: median(list.map((x) => x.rps)), p50: median(list.map((x) => x.p50)), p99: median(list.map((x) => x.p99)) })
        sweep[connections] = { memory: pick(r.memory), bare: pick(r.bare) }
        console.error(`  -c ${connections}: restis ${fmt(sweep[connections].memory.rps)} req/s, bare ${fmt(sweep[connections].bare.rps)} req/s`)
      }
      await memory.stop()
      await bare.stop()
      lines.push('')
      lines.push(
        table(
          ['connections', 'restis memory GET req/s', 'p50 ms', 'p99 ms', 'bare node:http req/s', 'ratio'],
          Object.entries(sweep).map(([c, r]) => [c, fmt(r.memory.rps), r.memory.p50.toFixed(2), r.memory.p99.toFixed(2), fmt(r.bare.rps), ratio(r.memory.rps, r.bare.rps)]),
        ),
      )
    }
    const markdown = lines.join('\n')
    console.log(`\nScaling: median of ${ROUNDS} interleaved rounds\n`)
    console.log(markdown)
    const file = saveResults('scaling', { rounds: ROUNDS, seconds: SECONDS, ns, runs, sweep, markdown })
    console.log(`\nresults: ${file}`)
  })
}
