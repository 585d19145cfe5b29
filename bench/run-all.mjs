/**
 * `npm run bench`: every suite, one after the other, in under 10 minutes on a 2-core machine,
 * stopping by itself. Each suite runs with somewhat shorter settings than on its own (see
 * SUITES); a suite that overruns its time budget is killed and reported, and the run goes on.
 *
 * The external tools (redis-server, redis-benchmark, wrk, webdis) are checked first: as root on
 * Debian/Ubuntu the missing ones are installed with apt-get (RESTIS_BENCH_INSTALL=0 to only
 * report them); elsewhere the rows that need them are skipped and the missing tools are listed.
 *
 * Results: bench/results/<suite>.json and the markdown tables printed at the end, which is what
 * docs/benchmarks.md holds.
 */

import { spawn } from 'node:child_process'
import path from 'node:path'
import { ROOT, benchBuild, ensureTools, machine } from './lib.mjs'

const TOTAL_BUDGET_S = Number(process.env.BENCH_BUDGET ?? 570)

/** Suites in order, with the settings and time budget (seconds) they get under run-all. */
const SUITES = [
  { name: 'codec', budget: 150, env: { BENCH_ROUNDS: '3', BENCH_MAX_TIME: '0.1', BENCH_MIN_SAMPLES: '5' } },
  { name: 'engine', budget: 110, env: { BENCH_ROUNDS: '3', BENCH_SECONDS: '0.25' } },
  { name: 'memory', budget: 45, env: {} },
  // The memory bound at 3x maxmemory written (10x on its own): RSS and used_memory under allkeys-lru.
  { name: 'memory-bound', budget: 60, env: { BOUND_WRITTEN: '3' } },
  { name: 'scaling', budget: 130, env: { BENCH_ROUNDS: '2', BENCH_SECONDS: '0.15', BENCH_WRK_SECONDS: '2' } },
  { name: 'collections', budget: 150, env: { BENCH_ROUNDS: '2', BENCH_SECONDS: '0.1', BENCH_DEADLINE: '80' } },
  { name: 'gateway', budget: 130, env: { BENCH_ROUNDS: '3', BENCH_SECONDS: '3' } },
  { name: 'resp', budget: 100, env: { BENCH_ROUNDS: '2' } },
  { name: 'resp-cpu', budget: 120, env: { BENCH_ROUNDS: '1', BENCH_REQUESTS: '300000' } },
  { name: 'scripting-json', budget: 40, env: { BENCH_ROUNDS: '3' } },
  { name: 'persistence', budget: 90, env: { BENCH_ROUNDS: '1' } },
  { name: 'bgsave', budget: 150, env: { BENCH_BGSAVE_KEYS: '1000000' } },
  { name: 'aof', budget: 90, env: { BENCH_ROUNDS: '2', BENCH_REQUESTS: '10000' } },
  // 1,000 runs take minutes on a loaded 2-core machine: here 200, in memory and over redis-server
  { name: 'queue-workflows', budget: 150, env: { BENCH_WF_RUNS: '200', BENCH_WF_MODES: '0,2', BENCH_WF_DEADLINE: '60' } },
]

function runSuite(suite, budgetS) {
  return new Promise((resolve) => {
    const started = Date.now()
    const child = spawn(process.execPath, [path.join(ROOT, 'bench', `${suite.name}.mjs`)], {
      cwd: ROOT,
      env: { ...process.env, ...suite.env, RESTIS_BENCH_INSTALL: '0' },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    child.stdout.on('data', (chunk) => {
      out += chunk
      process.stdout.write(chunk)
    })
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      child.kill('SIGTERM') // the suite's own handler kills the servers it started
      setTimeout(() => child.kill('SIGKILL'), 5000).unref()
    }, budgetS * 1000)
    child.once('exit', (code) => {
      clearTimeout(timer)
      resolve({ name: suite.name, code, timedOut, seconds: (Date.now() - started) / 1000, out })
    })
  })
}

const started = Date.now()
const m = machine()
console.log(`restis benchmarks: ${m.nproc} cores, ${m.cpu}, Node ${m.node}, ${m.platform}`)
// Install (as root on Debian) or report missing tools once, before any suite runs.
const missing = ensureTools(['redis-server', 'redis-benchmark', 'wrk', 'webdis'])
if (missing.length > 0) console.log(`missing tools (rows that need them are skipped): ${missing.join(', ')}`)

// One build of src/ for every suite (children inherit RESTIS_BENCH_BUILD).
await benchBuild()

const only = process.argv.slice(2)
const results = []
for (const suite of SUITES.filter((s) => only.length === 0 || only.includes(s.name))) {
  const left = TOTAL_BUDGET_S - (Date.now() - started) / 1000
  if (left < 20) {
    results.push({ name: suite.name, skipped: true })
    console.log(`\n== ${suite.name}: skipped, the run is out of time`)
    continue
  }
  console.log(`\n== bench:${suite.name} (budget ${Math.min(suite.budget, Math.floor(left))} s)`)
  results.push(await runSuite(suite, Math.min(suite.budget, left)))
}

console.log('\n== summary')
for (const r of results) {
  if (r.skipped) console.log(`${r.name}: skipped (out of time)`)
  else console.log(`${r.name}: ${r.timedOut ? 'stopped at its time budget' : r.code === 0 ? 'ok' : `failed (exit ${r.code})`} in ${r.seconds.toFixed(0)} s`)
}
console.log(`total ${((Date.now() - started) / 1000).toFixed(0)} s; tables in bench/results/*.json`)
process.exitCode = results.some((r) => r.skipped || r.timedOut || r.code !== 0) ? 1 : 0
