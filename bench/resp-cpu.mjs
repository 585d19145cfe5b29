/**
 * Server CPU per command under pipelining: `redis-benchmark -P 16 -c 50` against restis's RESP
 * listener (`restis --resp-port`, memory executor) and against redis-server in the same run, one
 * test at a time (SET, GET, LPUSH, then a mix of twelve tests in one redis-benchmark call), the
 * two servers alternating. For each run it reads the server's utime + stime from
 * `/proc/<pid>/stat` before and after and reports CPU seconds per million commands: the work the
 * server did, which the load of a shared machine changes far less than requests per second.
 *
 * Run it with priority over other work on the machine, as docs/benchmarks.md records:
 *   nice -n -10 node bench/resp-cpu.mjs
 * With BENCH_RESP_CPU_PROFILE=1 the restis server runs under `node --cpu-prof` and the profile's
 * top functions are printed at the end (the figures are then not comparable: the profiler costs).
 *
 * With BENCH_RESP_BASELINE=<git revision> the listener as it was at that revision runs too, as a
 * third server in the same rounds (its src/ taken with `git archive`, built as the bench build
 * is): a before/after comparison under the same machine load.
 *
 * Env: BENCH_ROUNDS (3), BENCH_REQUESTS (1000000 per test; the mix divides it among its tests),
 * BENCH_RESP_PIPELINE (16), BENCH_RESP_BASELINE (none).
 */

import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { BUNDLE_OPTIONS, ROOT, ensureTools, fmt, freePort, main, median, parseRedisBenchmarkQuiet, processCpuMs, ratio, runRedisBenchmark, saveResults, startChild, startRedis, startRestis, table, waitForPort } from './lib.mjs'
import { summarize } from './profile.mjs'

const PIPELINE = Number(process.env.BENCH_RESP_PIPELINE ?? 16)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 1_000_000)
const PROFILE = process.env.BENCH_RESP_CPU_PROFILE === '1'
const BASELINE = process.env.BENCH_RESP_BASELINE
const MIX = ['SET', 'GET', 'INCR', 'LPUSH', 'RPUSH', 'LPOP', 'RPOP', 'SADD', 'HSET', 'SPOP', 'ZADD', 'LRANGE_100']
/** Each row: the tests of one redis-benchmark call, and how many requests each test gets. */
const ROWS = [
  { label: 'SET', tests: ['SET'], requests: REQUESTS },
  { label: 'GET', tests: ['GET'], requests: REQUESTS },
  { label: 'LPUSH', tests: ['LPUSH'], requests: REQUESTS },
  { label: `mix (${MIX.length} tests)`, tests: MIX, requests: Math.max(1000, Math.round(REQUESTS / MIX.length)) },
]

/**
 * The CLI as it was at git revision `rev`, built under temp/ (so that its packages resolve from
 * this checkout's node_modules) and started as {@link startRestis} starts the current one.
 */
async function startBaseline(rev, { respPort, token }) {
  const dir = path.join(ROOT, 'temp', 'bench-baseline', String(process.pid))
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }))
  const archive = execFileSync('git', ['archive', rev, 'src', 'package.json'], { cwd: ROOT, maxBuffer: 256 * 1024 * 1024 })
  execFileSync('tar', ['-x', '-C', dir], { input: archive })
  const { build } = await import('esbuild')
  await build({
    absWorkingDir: dir,
    entryPoints: { cli: 'src/cli.ts' },
    outdir: path.join(dir, 'build'),
    ...BUNDLE_OPTIONS,
  })
  const port = await freePort()
  const args = [path.join(dir, 'build', 'cli.mjs'), '--port', String(port), '--token', token, '--no-persistence', '--resp-port', String(respPort)]
  const proc = startChild(process.execPath, args)
  await waitForPort(port, 30_000)
  await waitForPort(respPort, 30_000)
  return proc
}

/** One redis-benchmark call: requests per second of each test, and the server's CPU over it. */
async function measure(target, row) {
  const args = ['-t', row.tests.join(',').toLowerCase(), '-n', String(row.requests), '-q', '-P', String(PIPELINE), '-c', '50']
  const before = processCpuMs(target.pid)
  const { code, out } = await runRedisBenchmark(target.port, args, target.password, 600_000)
  const cpuMs = processCpuMs(target.pid) - before
  const rps = parseRedisBenchmarkQuiet(out)
  if (code !== 0 || row.tests.some((test) => rps[test] === undefined)) throw new Error(`redis-benchmark failed (${code}): ${out}`)
  const commands = row.requests * row.tests.length
  // Total requests over total time: what the mix row reports as its rate.
  const rate = row.tests.length / row.tests.reduce((seconds, test) => seconds + 1 / rps[test].rps, 0)
  return { rate, cpuSecondsPerMillion: (cpuMs / 1000) * (1e6 / commands) }
}

await main('bench:resp-cpu', async () => {
  const missing = ensureTools(['redis-server', 'redis-benchmark'])
  if (missing.length > 0) throw new Error(`needs ${missing.join(', ')}`)
  const profileDir = PROFILE ? mkdtempSync(path.join(os.tmpdir(), 'restis-resp-prof-')) : undefined
  const redis = await startRedis()
  const respPort = await freePort()
  const token = 'bench-token'
  const nodeArgs = profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`]
  const restis = await startRestis({ respPort, token, nodeArgs })
  const targets = {
    'redis-server': { port: redis.port, pid: redis.child.pid },
    'restis (this tree)': { port: respPort, pid: restis.child.pid, password: token },
  }
  let baseline
  if (BASELINE !== undefined) {
    const port = await freePort()
    baseline = await startBaseline(BASELINE, { respPort: port, token })
    targets[`restis at ${BASELINE}`] = { port, pid: baseline.child.pid, password: token }
  }
  const names = Object.keys(targets)
  // Warm-up: the JIT, the pools and the keys each test reads.
  for (const name of names.slice(1)) await measure(targets[name], { tests: ['SET', 'GET', 'LPUSH'], requests: 200_000 })
  const runs = Object.fromEntries(ROWS.map((row) => [row.label, Object.fromEntries(names.map((n) => [n, []]))]))
  for (let round = 0; round < ROUNDS; round++) {
    for (const row of ROWS) {
      const order = round % 2 === 0 ? names : [...names].reverse()
      for (const name of order) {
        const result = await measure(targets[name], row)
        runs[row.label][name].push(result)
        console.error(`  round ${round + 1} ${row.label} ${name}: ${fmt(result.rate)} req/s, ${result.cpuSecondsPerMillion.toFixed(2)} CPU-s per 1M`)
      }
    }
  }
  await restis.stop()
  await baseline?.stop()
  await redis.stop()

  // Columns: each server's CPU per million commands, each restis's ratio to redis-server, then req/s.
  const med = (label, name, field) => median(runs[label][name].map((r) => r[field]))
  const [peer, ...ours] = names
  const rows = ROWS.map(({ label }) => {
    const cpu = (name) => med(label, name, 'cpuSecondsPerMillion')
    return [
      label,
      ...names.map((name) => cpu(name).toFixed(2)),
      ...ours.map((name) => ratio(cpu(name), cpu(peer))),
      ...names.map((name) => fmt(med(label, name, 'rate'))),
    ]
  })
  const header = [
    `-P ${PIPELINE} -c 50`,
    ...names.map((name) => `${name} CPU-s / 1M cmds`),
    ...ours.map((name) => `${name} / redis-server CPU`),
    ...names.map((name) => `${name} req/s`),
  ]
  const markdown = table(header, rows)
  console.log(`\nRESP listener, pipelined: redis-benchmark -P ${PIPELINE} -c 50, ${fmt(REQUESTS)} requests per row, median of ${ROUNDS} alternating rounds\n`)
  console.log(markdown)
  const file = saveResults('resp-cpu', { rounds: ROUNDS, requests: REQUESTS, pipeline: PIPELINE, baseline: BASELINE, profiled: PROFILE, runs, markdown })
  console.log(`\nresults: ${file}`)
  if (profileDir !== undefined) {
    const profile = readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile'))
    if (profile === undefined) throw new Error(`no profile written in ${profileDir}`)
    summarize(path.join(profileDir, profile), 45)
  }
})
