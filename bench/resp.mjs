/**
 * redis-benchmark against restis's RESP listener (`restis --resp-port`, memory executor) and
 * against redis-server directly: `-t set,get,incr,lpush -n 100000 -q` (50 clients, no
 * pipelining, loopback). Runs alternate (redis, restis, restis, redis, …) and report medians.
 *
 * Besides requests per second (what a client sees, sensitive to machine load) it reports the
 * server's CPU time per request, read from /proc before and after each run: the work the server
 * did, which load does not change much.
 *
 * Env: BENCH_ROUNDS (3), BENCH_REQUESTS (100000).
 *
 * Run: npm run bench:resp
 */

import { ensureTools, fmt, freePort, main, median, processCpuMs, ratio, runRedisBenchmark, saveResults, startRedis, startRestis, table } from './lib.mjs'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 100_000)
const TESTS = ['SET', 'GET', 'INCR', 'LPUSH']

/** `password`: the RESP listener asks for AUTH with the token (redis-server here has no password). */
async function redisBenchmark(port, password) {
  const { code, out } = await runRedisBenchmark(port, ['-t', TESTS.join(',').toLowerCase(), '-n', String(REQUESTS), '-q'], password, 300_000)
  const rps = {}
  // "-q" prints "SET: 12345.67 requests per second, p50=0.223 msec" (carriage returns between updates).
  for (const line of out.split(/[\r\n]+/)) {
    const match = /^(\w+): ([\d.]+) requests per second(?:, p50=([\d.]+) msec)?/.exec(line.trim())
    if (match && TESTS.includes(match[1])) rps[match[1]] = { rps: Number(match[2]), p50: match[3] === undefined ? NaN : Number(match[3]) }
  }
  if (code !== 0 || Object.keys(rps).length !== TESTS.length) throw new Error(`redis-benchmark failed (${code}): ${out}`)
  return rps
}

await main('bench:resp', async () => {
  const missing = ensureTools(['redis-server', 'redis-benchmark'])
  if (missing.length > 0) throw new Error(`needs ${missing.join(', ')}`)
  const redis = await startRedis()
  const respPort = await freePort()
  const token = 'bench-token'
  const restis = await startRestis({ respPort, token })
  const targets = {
    'redis-server': { port: redis.port, pid: redis.child.pid },
    'restis --resp-port (memory executor)': { port: respPort, pid: restis.child.pid, password: token },
  }
  const names = Object.keys(targets)
  const runs = Object.fromEntries(names.map((n) => [n, []]))
  await redisBenchmark(respPort, token) // warm-up: JIT and pools
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? names : [...names].reverse()
    for (const name of order) {
      const { port, pid, password } = targets[name]
      const cpuBefore = processCpuMs(pid)
      const result = await redisBenchmark(port, password)
      const cpuMs = processCpuMs(pid) - cpuBefore
      runs[name].push({ result, cpuUsPerRequest: (cpuMs * 1000) / (REQUESTS * TESTS.length) })
      console.error(`  ${name} round ${round + 1}: ${TESTS.map((t) => `${t} ${fmt(result[t].rps)}`).join(', ')}`)
    }
  }
  await restis.stop()
  await redis.stop()

  const med = (name, test) => median(runs[name].map((r) => r.result[test].rps))
  const [peer, ours] = names
  const rows = TESTS.map((t) => [t, fmt(med(peer, t)), fmt(med(ours, t)), ratio(med(ours, t), med(peer, t))])
  const cpu = (name) => median(runs[name].map((r) => r.cpuUsPerRequest))
  rows.push(['server CPU µs per request (all four tests)', cpu(peer).toFixed(1), cpu(ours).toFixed(1), ratio(cpu(peer), cpu(ours))])
  const markdown = table(['redis-benchmark -n ' + fmt(REQUESTS) + ' -q', 'redis-server req/s', 'restis RESP req/s', 'restis / redis'], rows)
  console.log(`\nRESP listener: redis-benchmark, 50 clients, median of ${ROUNDS} alternating rounds\n`)
  console.log(markdown)
  const file = saveResults('resp', { rounds: ROUNDS, requests: REQUESTS, runs, markdown })
  console.log(`\nresults: ${file}`)
})
