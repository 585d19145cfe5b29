/**
 * redis-benchmark against restis's RESP listener (`restis --resp-port`, memory executor) and
 * against redis-server directly: `-t set,get,incr,lpush -n 100000 -q` (50 clients, no
 * pipelining, loopback). Runs alternate (redis, restis, restis, redis, …) and report medians.
 *
 * With BENCH_RESP_PIPELINE=16 it runs the pipelined mix instead: `-P 16 -c 50 -n 200000 -t
 * set,get,incr,lpush,rpush,lpop,rpop,sadd,hset,spop,zadd,lrange_100`, where the listener's cost
 * per command shows rather than the round trip; the last row is the whole mix (total requests
 * over total time).
 *
 * Besides requests per second (what a client sees, sensitive to machine load) it reports the
 * server's CPU time per request, read from /proc before and after each run: the work the server
 * did, which load does not change much.
 *
 * Env: BENCH_ROUNDS (3), BENCH_REQUESTS (100000; 200000 pipelined), BENCH_RESP_PIPELINE (1).
 *
 * Run: npm run bench:resp, or BENCH_RESP_PIPELINE=16 node bench/resp.mjs
 */

import { ensureTools, fmt, freePort, main, median, parseRedisBenchmarkQuiet, processCpuMs, ratio, runRedisBenchmark, saveResults, startRedis, startRestis, table } from './lib.mjs'

const PIPELINE = Number(process.env.BENCH_RESP_PIPELINE ?? 1)
const PIPELINED = PIPELINE > 1
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? (PIPELINED ? 200_000 : 100_000))
const TESTS = PIPELINED
  ? ['SET', 'GET', 'INCR', 'LPUSH', 'RPUSH', 'LPOP', 'RPOP', 'SADD', 'HSET', 'SPOP', 'ZADD', 'LRANGE_100']
  : ['SET', 'GET', 'INCR', 'LPUSH']
const ARGS = ['-t', TESTS.join(',').toLowerCase(), '-n', String(REQUESTS), '-q', ...(PIPELINED ? ['-P', String(PIPELINE), '-c', '50'] : [])]

/** `password`: the RESP listener asks for AUTH with the token (redis-server here has no password). */
async function redisBenchmark(port, password) {
  const { code, out } = await runRedisBenchmark(port, ARGS, password, 600_000)
  const rps = parseRedisBenchmarkQuiet(out)
  if (code !== 0 || TESTS.some((test) => rps[test] === undefined)) throw new Error(`redis-benchmark failed (${code}): ${out}`)
  return rps
}

/** The whole mix: total requests over the total time the tests took. */
function mixRate(result) {
  return TESTS.length / TESTS.reduce((seconds, test) => seconds + 1 / result[test].rps, 0)
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
  if (PIPELINED) {
    const mix = (name) => median(runs[name].map((r) => mixRate(r.result)))
    rows.push([`the mix (${TESTS.length} tests, requests / total time)`, fmt(mix(peer)), fmt(mix(ours)), ratio(mix(ours), mix(peer))])
  }
  const cpu = (name) => median(runs[name].map((r) => r.cpuUsPerRequest))
  rows.push([`server CPU µs per request (all ${TESTS.length} tests)`, cpu(peer).toFixed(2), cpu(ours).toFixed(2), ratio(cpu(peer), cpu(ours))])
  const command = `redis-benchmark -n ${fmt(REQUESTS)} -q${PIPELINED ? ` -P ${PIPELINE} -c 50` : ''}`
  const markdown = table([command, 'redis-server req/s', 'restis RESP req/s', 'restis / redis'], rows)
  console.log(`\nRESP listener: redis-benchmark, 50 clients${PIPELINED ? `, ${PIPELINE} commands per pipeline` : ''}, median of ${ROUNDS} alternating rounds\n`)
  console.log(markdown)
  const file = saveResults(PIPELINED ? 'resp-pipelined' : 'resp', { rounds: ROUNDS, requests: REQUESTS, pipeline: PIPELINE, runs, markdown })
  console.log(`\nresults: ${file}`)
})
