/**
 * Shared pieces of the benchmark suites: machine facts, free ports, throwaway servers (restis,
 * redis-server, webdis, a bare node:http ceiling), wrk runs, medians and result files.
 *
 * Every child process is started with a hard deadline and killed by its pid when the suite ends,
 * so `npm run bench` always stops by itself.
 */

import { spawn, spawnSync } from 'node:child_process'
import { accessSync, constants as fsConstants, mkdirSync, readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { startRedisServer } from '../scripts/redis-server.mjs'

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
export const RESULTS_DIR = path.join(ROOT, 'bench', 'results')

/** `nproc`, the CPU model, Node's version: what docs/benchmarks.md records with every table. */
export function machine() {
  let cpu = 'unknown'
  try {
    const line = readFileSync('/proc/cpuinfo', 'utf8').split('\n').find((l) => l.startsWith('model name'))
    if (line) cpu = line.split(':')[1].trim()
  } catch {}
  return { nproc: os.availableParallelism?.() ?? os.cpus().length, cpu, node: process.version, platform: `${os.type()} ${os.release()}` }
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b)
  if (sorted.length === 0) return NaN
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/** Writes `bench/results/<suite>.json` (machine, time, rows) for docs/benchmarks.md. */
export function saveResults(suite, data) {
  mkdirSync(RESULTS_DIR, { recursive: true })
  const file = path.join(RESULTS_DIR, `${suite}.json`)
  writeFileSync(file, JSON.stringify({ suite, at: new Date().toISOString(), machine: machine(), ...data }, null, 2) + '\n')
  return file
}

/** A markdown table from rows of cells. */
export function table(header, rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n')
}

export function fmt(n, digits = 0) {
  if (!Number.isFinite(n)) return 'n/a'
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
}

export function ratio(a, b) {
  return Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${(a / b).toFixed(2)}x` : 'n/a'
}

/**
 * Whether `bin` is an executable on PATH. Looked up, not run: `webdis --help`, for one, starts a
 * server with the default configuration instead of printing help.
 */
export function hasTool(bin) {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue
    try {
      accessSync(path.join(dir, bin), fsConstants.X_OK)
      return true
    } catch {}
  }
  return false
}

/**
 * The external tools a suite needs, with what to do when one is missing. With
 * `RESTIS_BENCH_INSTALL=1` (or as root on Debian/Ubuntu when `RESTIS_BENCH_INSTALL` is not `0`)
 * missing ones are installed with apt-get; otherwise the suite reports them and skips the rows.
 */
export const TOOLS = {
  'redis-server': { apt: 'redis-server' },
  'redis-benchmark': { apt: 'redis-tools' },
  wrk: { apt: 'wrk' },
  webdis: { apt: 'webdis' },
}

/** Makes sure `names` are on PATH; returns the ones still missing (already reported). */
export function ensureTools(names) {
  let missing = names.filter((name) => !hasTool(name))
  if (missing.length === 0) return []
  const canApt = process.platform === 'linux' && process.getuid?.() === 0 && hasTool('apt-get')
  const allowed = process.env.RESTIS_BENCH_INSTALL === '1' || (process.env.RESTIS_BENCH_INSTALL !== '0' && canApt)
  if (allowed && canApt) {
    const packages = [...new Set(missing.map((name) => TOOLS[name].apt))]
    console.error(`bench: installing ${packages.join(' ')} with apt-get (RESTIS_BENCH_INSTALL=0 to skip)`)
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
    let result = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', ...packages], { stdio: 'inherit', env, timeout: 300_000 })
    if (result.status !== 0) {
      spawnSync('apt-get', ['update'], { stdio: 'inherit', env, timeout: 300_000 })
      result = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', ...packages], { stdio: 'inherit', env, timeout: 300_000 })
    }
    missing = names.filter((name) => !hasTool(name))
  }
  for (const name of missing) {
    console.error(`bench: '${name}' not found: rows that need it are skipped. Install it with: apt-get install -y ${TOOLS[name].apt}`)
  }
  return missing
}

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.unref()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
}

/**
 * A numeric setting of a bench from the environment (`BENCH_…`): `fallback` when unset; a value
 * that is not a number stops the bench with its name rather than running with NaN.
 */
export function envNumber(name, fallback) {
  const raw = process.env[name]
  if (raw === undefined) return fallback
  const value = Number(raw)
  if (raw.trim() === '' || !Number.isFinite(value)) throw new Error(`${name}=${JSON.stringify(raw)} is not a number`)
  return value
}

/**
 * Calls `task(index)` for every index below `total`, at most `concurrency` calls in flight, each
 * taking the next index as one ends; resolves when all have ended, rejects with the first failure.
 */
export async function inFlight(total, concurrency, task) {
  let next = 0
  const worker = async () => {
    while (next < total) await task(next++)
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker))
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** Resolves once something accepts TCP connections on `port`, or rejects after `timeoutMs`. */
export async function waitForPort(port, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const ok = await new Promise((resolve) => {
      const socket = net.connect({ host: '127.0.0.1', port })
      socket.once('connect', () => {
        socket.destroy()
        resolve(true)
      })
      socket.once('error', () => resolve(false))
    })
    if (ok) return
    if (Date.now() > deadline) throw new Error(`nothing listening on 127.0.0.1:${port} after ${timeoutMs} ms`)
    await sleep(50)
  }
}

const children = new Set()

/**
 * Spawns a child that is killed (by its pid) when the suite exits or after `maxMs`, whichever
 * comes first. Returns `{ child, stop, log }`.
 */
export function startChild(command, args, { maxMs = 15 * 60_000, env, cwd = ROOT } = {}) {
  const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let log = ''
  child.stdout.on('data', (chunk) => (log = (log + chunk).slice(-8192)))
  child.stderr.on('data', (chunk) => (log = (log + chunk).slice(-8192)))
  const timer = setTimeout(() => child.kill('SIGKILL'), maxMs)
  timer.unref()
  children.add(child)
  const exited = new Promise((resolve) => child.once('exit', resolve))
  const stop = async () => {
    clearTimeout(timer)
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM')
      const killer = setTimeout(() => child.kill('SIGKILL'), 3000)
      await exited
      clearTimeout(killer)
    }
    children.delete(child)
  }
  return { child, stop, log: () => log, exited }
}

function killAll() {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL')
}
process.on('exit', killAll)
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    killAll()
    process.exit(130)
  })
}

/**
 * A throwaway redis-server through the shared launcher: its own port and temporary `--dir`, no
 * persistence, no protected-mode surprises; killed with the suite's other children.
 */
export async function startRedis() {
  const server = await startRedisServer({ args: ['--protected-mode', 'no'] })
  children.add(server.child)
  const stop = async () => {
    await server.stop()
    children.delete(server.child)
  }
  return { child: server.child, stop, log: server.log, exited: server.exited, port: server.port, url: server.url }
}

/**
 * The restis CLI, built from src/ by {@link benchBuild}. `--redis <url>` selects the socket
 * executor; `args` are more CLI arguments (e.g. `['--workers', '2']`).
 */
export async function startRestis({ redis, respPort, token = 'bench-token', nodeArgs = [], args: cliArgs = [], maxMs } = {}) {
  const port = await freePort()
  const { dir } = await benchBuild()
  const args = [...nodeArgs, path.join(dir, 'cli.mjs'), '--port', String(port), '--token', token, ...cliArgs]
  if (redis) args.push('--redis', redis)
  // The CLI is durable by default: suites measure the engine, not a data directory in $HOME.
  else if (!cliArgs.includes('--dir')) args.push('--no-persistence')
  if (respPort) args.push('--resp-port', String(respPort))
  const proc = startChild(process.execPath, args, maxMs === undefined ? {} : { maxMs })
  await waitForPort(port, 30_000)
  if (respPort) await waitForPort(respPort, 30_000)
  return { ...proc, port, token, url: `http://127.0.0.1:${port}` }
}

/**
 * The ways `restis queue` can keep its state; each queue bench runs the ones it compares, by
 * these names in its tables.
 */
export const QUEUE_MODES = {
  memory: { name: 'in memory (--no-persistence)', args: ['--no-persistence'] },
  aofNo: { name: 'AOF, appendfsync no', args: ['--appendfsync', 'no'] },
  aofEverysec: { name: 'AOF, appendfsync everysec', args: ['--appendfsync', 'everysec'] },
  aofAlways: { name: 'AOF, appendfsync always (default)', args: [] },
  redis: { name: 'redis-server (--redis)', args: [], redis: true },
}

/**
 * `restis queue` (built by {@link benchBuild}) in one of {@link QUEUE_MODES}, on a free port with
 * `token` and the signing keys `[current, next]`: its append-only file in a fresh temporary
 * `--dir`, or its state on a fresh redis-server, either removed by `stop()`. `cpuMs()` is the CPU
 * time the queue process has spent so far.
 */
export async function startQueueProcess(mode, { token, signingKeys: [current, next] }) {
  const { dir } = await benchBuild()
  const port = await freePort()
  const redis = mode.redis ? await startRedis() : undefined
  const data = redis || mode.args.includes('--no-persistence') ? undefined : mkdtempSync(path.join(os.tmpdir(), 'restis-bench-queue-'))
  const state = redis ? ['--redis', redis.url] : data ? ['--dir', data, ...mode.args] : mode.args
  const args = [path.join(dir, 'cli.mjs'), 'queue', '--port', String(port), '--token', token, '--current-signing-key', current, '--next-signing-key', next, ...state]
  const proc = startChild(process.execPath, args)
  await waitForPort(port, 30_000)
  return {
    url: `http://127.0.0.1:${port}`,
    cpuMs: () => processCpuMs(proc.child.pid),
    stop: async () => {
      await proc.stop()
      await redis?.stop()
      if (data) rmSync(data, { recursive: true, force: true })
    },
  }
}

/** The ceiling: node:http answering a constant `{"result":"bar"}`. */
export async function startBareNode({ nodeArgs = [] } = {}) {
  const port = await freePort()
  const proc = startChild(process.execPath, [...nodeArgs, path.join(ROOT, 'bench', 'servers', 'bare-node.mjs'), String(port)])
  await waitForPort(port)
  return { ...proc, port, url: `http://127.0.0.1:${port}` }
}

/** webdis on the given redis-server, from a config file in a temp dir. */
export async function startWebdis(redisPort) {
  const port = await freePort()
  const dir = mkdtempSync(path.join(os.tmpdir(), 'restis-webdis-'))
  const config = {
    redis_host: '127.0.0.1',
    redis_port: redisPort,
    redis_auth: null,
    http_host: '127.0.0.1',
    http_port: port,
    // One worker thread per core, webdis's own recommendation; 4 Redis connections per worker.
    threads: machine().nproc,
    pool_size: 4,
    daemonize: false,
    websockets: false,
    database: 0,
    acl: [{ disabled: ['DEBUG'] }, { http_basic_auth: 'user:password', enabled: ['DEBUG'] }],
    verbosity: 1,
    logfile: path.join(dir, 'webdis.log'),
  }
  const file = path.join(dir, 'webdis.json')
  writeFileSync(file, JSON.stringify(config))
  const proc = startChild('webdis', [file])
  await waitForPort(port)
  return {
    ...proc,
    port,
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      await proc.stop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** Sends one HTTP request and returns `{ status, body }` (for warm-up and sanity checks). */
export async function httpRequest(url, { method = 'GET', body, headers = {} } = {}) {
  const response = await fetch(url, { method, body, headers })
  return { status: response.status, body: await response.text() }
}

const SCRIPTS_DIR = path.join(ROOT, 'bench', 'wrk')

/**
 * Runs wrk against `url` and parses its output: requests/s, p50 and p99 latency (ms), errors.
 * `script` is a Lua file name in bench/wrk/; `env` passes values to it (wrk scripts read os.getenv).
 */
export function runWrk({ url, connections = 50, threads = 2, seconds = 5, script, env = {} }) {
  const args = ['-t', String(Math.min(threads, connections)), '-c', String(connections), '-d', `${seconds}s`, '--latency', '--timeout', '10s']
  if (script) args.push('-s', path.join(SCRIPTS_DIR, script))
  args.push(url)
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.on('data', (chunk) => (out += chunk))
    child.stderr.on('data', (chunk) => (out += chunk))
    const timer = setTimeout(() => child.kill('SIGKILL'), (seconds + 30) * 1000)
    child.once('error', reject)
    child.once('exit', () => {
      clearTimeout(timer)
      const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN)
      const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? NaN)
      const p50 = latencyMs(/\s50%\s+([\d.]+)(us|ms|s)/.exec(out))
      const p99 = latencyMs(/\s99%\s+([\d.]+)(us|ms|s)/.exec(out))
      const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0)
      const socketErrors = /Socket errors: (.*)/.exec(out)?.[1]
      if (!Number.isFinite(rps)) reject(new Error(`wrk failed: ${out}`))
      else resolve({ rps, requests, p50, p99, non2xx, socketErrors, raw: out })
    })
  })
}

function latencyMs(match) {
  if (!match) return NaN
  const value = Number(match[1])
  return match[2] === 'us' ? value / 1000 : match[2] === 's' ? value * 1000 : value
}

/** Runs `fn` with every started child stopped afterwards, and exits non-zero on failure. */
export async function main(name, fn) {
  const started = Date.now()
  try {
    await fn()
    console.log(`\n${name}: done in ${((Date.now() - started) / 1000).toFixed(0)} s`)
  } catch (error) {
    console.error(`${name}: failed:`, error)
    process.exitCode = 1
  } finally {
    killAll()
  }
}

/**
 * Makes `process.hrtime` report this process's CPU time (user + system, every thread) instead of
 * wall time, so the `benchmark` package measures ops per CPU-second. On a machine shared with
 * other work, wall time mostly measures how often the scheduler ran us; CPU time measures the
 * work. Call before the first benchmark runs (the package picks its timer on first use).
 */
export function useCpuClock() {
  const cpuNs = () => {
    const { user, system } = process.cpuUsage()
    return (user + system) * 1000
  }
  const hrtime = (previous) => {
    let ns = cpuNs()
    if (previous) ns -= previous[0] * 1e9 + previous[1]
    const seconds = Math.floor(ns / 1e9)
    return [seconds, ns - seconds * 1e9]
  }
  hrtime.bigint = () => BigInt(Math.round(cpuNs()))
  process.hrtime = hrtime
}

/** CPU time of this process so far, in nanoseconds (user + system, every thread). */
export function cpuNow() {
  const { user, system } = process.cpuUsage()
  return (user + system) * 1000
}

/** CPU time (user + system) of another process, in ms, from /proc; NaN where /proc is missing. */
export function processCpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const ticks = Number(fields[11]) + Number(fields[12]) // utime, stime (fields 14 and 15)
    return (ticks * 1000) / CLOCK_TICKS
  } catch {
    return NaN
  }
}

const CLOCK_TICKS = (() => {
  const result = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })
  const value = Number(result.stdout?.trim())
  return Number.isFinite(value) && value > 0 ? value : 100
})()

/**
 * The esbuild settings of every bundle a suite measures (the bench build, and a baseline
 * revision's in resp-cpu.mjs), so that two builds differ only in their sources.
 */
export const BUNDLE_OPTIONS = {
  outExtension: { '.js': '.mjs' },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  loader: { '.lua': 'text', '.html': 'text' },
  logLevel: 'error',
}

/**
 * Builds the sources the suites measure, once per run: an esbuild bundle of the CLI and of the
 * `resp`, `memory` and `socket` entry points into temp/bench-build/ (git-ignored), as tsup
 * builds dist/ (no `keepNames`; tsx adds a `__name` call for every named closure created, which
 * would tax code that creates closures per request). Fresh from src/ every time, so a stale
 * dist/ is never measured, and dist/ is left alone. Children inherit the directory through
 * RESTIS_BENCH_BUILD. Returns `{ dir, import(entry) }`.
 */
export async function benchBuild() {
  let dir = process.env.RESTIS_BENCH_BUILD
  if (!dir) {
    const { build } = await import('esbuild')
    dir = path.join(ROOT, 'temp', 'bench-build', String(process.pid))
    rmSync(dir, { recursive: true, force: true })
    await build({
      absWorkingDir: ROOT,
      entryPoints: {
        cli: 'src/cli.ts',
        resp: 'src/resp/index.ts',
        memory: 'src/executor/memory/index.ts',
        socket: 'src/executor/socket/index.ts',
        persistence: 'src/executor/memory/persistence/rdb-io.ts',
        workflow: 'src/workflow/index.ts',
      },
      outdir: dir,
      ...BUNDLE_OPTIONS,
      sourcemap: true,
    })
    process.env.RESTIS_BENCH_BUILD = dir
    const built = dir
    process.on('exit', () => rmSync(built, { recursive: true, force: true }))
  }
  return { dir, import: (entry) => import(pathToFileURL(path.join(dir, `${entry}.mjs`)).href) }
}

/**
 * Reads redis-benchmark's `-q` output ("SET: 12345.67 requests per second, p50=0.223 msec", carriage
 * returns between updates) into `{ TEST: { rps, p50 } }`, named as `-t` names them (`LRANGE_100`
 * for "LRANGE_100 (first 100 elements)"). The LPUSH that only fills the list for LRANGE is left out.
 */
export function parseRedisBenchmarkQuiet(out) {
  const results = {}
  for (const line of out.split(/[\r\n]+/)) {
    const match = /^([^:]+): ([\d.]+) requests per second(?:, p50=([\d.]+) msec)?/.exec(line.trim())
    if (match === null || match[1].includes('(needed')) continue
    const name = match[1].split(' ')[0]
    results[name] = { rps: Number(match[2]), p50: match[3] === undefined ? NaN : Number(match[3]) }
  }
  return results
}

/**
 * Runs `redis-benchmark -h 127.0.0.1 -p <port> <args…>` (with `-a <password>` for restis's AUTH),
 * killed after `timeoutMs`; resolves with its exit code and everything it printed.
 */
export function runRedisBenchmark(port, args, password, timeoutMs) {
  const all = ['-h', '127.0.0.1', '-p', String(port), ...args]
  if (password !== undefined) all.push('-a', password)
  return new Promise((resolve, reject) => {
    const child = spawn('redis-benchmark', all, { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.on('data', (chunk) => (out += chunk))
    child.stderr.on('data', (chunk) => (out += chunk))
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.once('error', reject)
    child.once('exit', (code) => {
      clearTimeout(timer)
      resolve({ code, out })
    })
  })
}
