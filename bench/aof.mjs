/**
 * SET throughput with the append-only file on: redis-benchmark `-t set` (50 clients, no
 * pipelining, loopback) against redis-server and against restis's RESP listener, each with
 * `--appendonly yes` and the same `--appendfsync` (always, then everysec), in its own temporary
 * directory on the same disk. Runs alternate (redis, restis, restis, redis …); medians reported.
 *
 * Under `always` both servers group commits: one write and one fsync for the writes of a turn
 * of their event loop, replies after the fsync.
 *
 * restis is warmed up first with BENCH_WARMUP SETs (100,000): a JIT-compiled server reaches its
 * steady speed only after some 100k requests (20k left it at about two thirds of it), and the
 * bench measures the steady state of a long-running server, as redis-server's is.
 *
 * Env: BENCH_ROUNDS (3), BENCH_REQUESTS (100000), BENCH_WARMUP (100000).
 *
 * Run: npm run bench:aof
 */

import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { ensureTools, fmt, freePort, main, median, ratio, runRedisBenchmark, saveResults, startChild, startRestis, table, waitForPort } from './lib.mjs'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 100_000)
const WARMUP = Number(process.env.BENCH_WARMUP ?? 100_000)
const POLICIES = ['always', 'everysec']

/** Requests per second of `redis-benchmark -t set`; `password` for restis's AUTH. */
async function benchmarkSet(port, password, requests = REQUESTS) {
  const { code, out } = await runRedisBenchmark(port, ['-t', 'set', '-n', String(requests), '-r', '1000000', '-q'], password, 300_000)
  const match = /SET: ([\d.]+) requests per second/.exec(out.split(/[\r\n]+/).filter((line) => line.startsWith('SET:')).at(-1) ?? '')
  if (code !== 0 || match === null) throw new Error(`redis-benchmark failed (${code}): ${out}`)
  return Number(match[1])
}

async function startRedisWithAof(policy, dir) {
  const port = await freePort()
  const proc = startChild('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--protected-mode', 'no', '--appendonly', 'yes', '--appendfsync', policy, '--dir', dir])
  await waitForPort(port)
  return { ...proc, port }
}

await main('bench:aof', async () => {
  const missing = ensureTools(['redis-server', 'redis-benchmark'])
  if (missing.length > 0) throw new Error(`needs ${missing.join(', ')}`)
  const rows = []
  const results = {}
  for (const policy of POLICIES) {
    const redisDir = mkdtempSync(path.join(os.tmpdir(), 'bench-aof-redis-'))
    const restisDir = mkdtempSync(path.join(os.tmpdir(), 'bench-aof-restis-'))
    const redis = await startRedisWithAof(policy, redisDir)
    const respPort = await freePort()
    const restis = await startRestis({ respPort, args: ['--dir', restisDir, '--appendonly', 'yes', '--appendfsync', policy] })
    const runs = { redis: [], restis: [] }
    await benchmarkSet(respPort, restis.token, WARMUP) // warm-up: JIT tiers, heap and keyspace growth
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? ['redis', 'restis'] : ['restis', 'redis']
      for (const name of order) {
        const rps = name === 'redis' ? await benchmarkSet(redis.port) : await benchmarkSet(respPort, restis.token)
        runs[name].push(rps)
        console.error(`  appendfsync ${policy}, ${name} round ${round + 1}: ${fmt(rps)} SET/s`)
      }
    }
    await restis.stop()
    await redis.stop()
    rmSync(redisDir, { recursive: true, force: true })
    rmSync(restisDir, { recursive: true, force: true })
    results[policy] = runs
    rows.push([`appendfsync ${policy}`, fmt(median(runs.redis)), fmt(median(runs.restis)), ratio(median(runs.restis), median(runs.redis))])
  }
  const markdown = table([`redis-benchmark -t set -n ${fmt(REQUESTS)}, 50 clients`, 'redis-server SET/s', 'restis RESP SET/s', 'restis / redis'], rows)
  console.log(`\nAOF on: SET throughput, median of ${ROUNDS} alternating rounds\n`)
  console.log(markdown)
  const file = saveResults('aof', { rounds: ROUNDS, requests: REQUESTS, warmup: WARMUP, results, markdown })
  console.log(`\nresults: ${file}`)
})
