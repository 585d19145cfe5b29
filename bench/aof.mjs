/**
 * SET throughput with the append-only file on: redis-benchmark `-t set` (50 clients, no
 * pipelining, loopback) against redis-server and against restis's RESP listener, each with
 * `--appendonly yes` and the same `--appendfsync` (always, then everysec), in its own temporary
 * directory on the same disk. The order of the servers rotates every round; medians reported.
 *
 * Under `always` both servers group commits: one write and one fsync for the writes of a turn
 * of their event loop, replies after the fsync.
 *
 * A third peer is the floor: bench/servers/resp-floor.mjs, node:net answering +OK and logging
 * what it reads under the same policy, with no database at all. It shows how much of the gap to
 * redis-server is Node's socket layer on this machine, which no change to restis can go under;
 * under `always` it runs twice, with the fsync on the event loop (as Redis and restis on a quick
 * disk) and in libuv's thread pool (the loop reads the next group meanwhile).
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
import { ensureTools, fmt, freePort, main, median, ratio, ROOT, runRedisBenchmark, saveResults, startChild, startRestis, table, waitForPort } from './lib.mjs'

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

/** The node:net floor (bench/servers/resp-floor.mjs) in `mode`, logging to a file in `dir`. */
async function startFloor(mode, dir) {
  const port = await freePort()
  const proc = startChild(process.execPath, [path.join(ROOT, 'bench', 'servers', 'resp-floor.mjs'), String(port), mode, dir])
  await waitForPort(port)
  return { ...proc, port }
}

await main('bench:aof', async () => {
  const missing = ensureTools(['redis-server', 'redis-benchmark'])
  if (missing.length > 0) throw new Error(`needs ${missing.join(', ')}`)
  const rows = []
  const results = {}
  for (const policy of POLICIES) {
    const dirs = []
    const tempDir = (name) => {
      const dir = mkdtempSync(path.join(os.tmpdir(), `bench-aof-${name}-`))
      dirs.push(dir)
      return dir
    }
    const redis = await startRedisWithAof(policy, tempDir('redis'))
    const respPort = await freePort()
    const restis = await startRestis({ respPort, args: ['--dir', tempDir('restis'), '--appendonly', 'yes', '--appendfsync', policy] })
    const floorModes = policy === 'always' ? ['always', 'always-pool'] : [policy]
    const floors = await Promise.all(floorModes.map((mode) => startFloor(mode, tempDir('floor'))))
    const peers = [
      { name: 'redis', run: () => benchmarkSet(redis.port) },
      { name: 'restis', run: () => benchmarkSet(respPort, restis.token) },
      ...floors.map((floor, i) => ({ name: `floor ${floorModes[i]}`, run: () => benchmarkSet(floor.port) })),
    ]
    const runs = Object.fromEntries(peers.map((peer) => [peer.name, []]))
    await benchmarkSet(respPort, restis.token, WARMUP) // warm-up: JIT tiers, heap and keyspace growth
    for (const floor of floors) await benchmarkSet(floor.port, undefined, WARMUP)
    for (let round = 0; round < ROUNDS; round++) {
      // Each round starts with the next peer, so none is always measured first.
      const order = peers.map((_, i) => peers[(i + round) % peers.length])
      for (const peer of order) {
        const rps = await peer.run()
        runs[peer.name].push(rps)
        console.error(`  appendfsync ${policy}, ${peer.name} round ${round + 1}: ${fmt(rps)} SET/s`)
      }
    }
    await restis.stop()
    await redis.stop()
    for (const floor of floors) await floor.stop()
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
    results[policy] = runs
    const redisRps = median(runs.redis)
    const floorRps = median(runs[`floor ${policy}`])
    rows.push([`appendfsync ${policy}`, fmt(redisRps), fmt(median(runs.restis)), ratio(median(runs.restis), redisRps), fmt(floorRps), ratio(floorRps, redisRps)])
    if (policy === 'always') {
      const poolRps = median(runs['floor always-pool'])
      rows.push(['appendfsync always, floor fsyncing in the thread pool', fmt(redisRps), '', '', fmt(poolRps), ratio(poolRps, redisRps)])
    }
  }
  const markdown = table([`redis-benchmark -t set -n ${fmt(REQUESTS)}, 50 clients`, 'redis-server SET/s', 'restis RESP SET/s', 'restis / redis', 'node:net floor SET/s', 'floor / redis'], rows)
  console.log(`\nAOF on: SET throughput, median of ${ROUNDS} alternating rounds\n`)
  console.log(markdown)
  const file = saveResults('aof', { rounds: ROUNDS, requests: REQUESTS, warmup: WARMUP, results, markdown })
  console.log(`\nresults: ${file}`)
})
