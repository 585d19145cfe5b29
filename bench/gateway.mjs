/**
 * Gateway over HTTP: wrk (keep-alive, 50 connections, --latency) on loopback against
 * - restis with the memory executor (`src/cli.ts`),
 * - restis with the socket executor to a redis-server, in one process and with `--workers 2`
 *   (node:cluster: a primary handing connections to two worker processes; single GET and SET),
 * - webdis on the same redis-server (the peer for the socket executor),
 * - a bare node:http server answering a constant `{"result":"bar"}` (the ceiling).
 *
 * Rows: single GET, single SET, /pipeline of 100 GETs, /multi-exec of 10 INCRs. Each row runs
 * its targets interleaved (A/B/A/B, the order rotated every round) and reports medians.
 *
 * Besides requests per second (what a client sees; on a shared machine, also how often the
 * scheduler ran the server) each row reports the CPU time the serving processes spent per
 * request, from /proc: restis or node, plus redis-server for the socket executor (with
 * `--workers`, the primary and its workers), webdis plus redis-server for webdis. wrk's own CPU
 * is not counted.
 *
 * The connection sweep (1 to 256 connections) is in bench/scaling.mjs.
 * Env: BENCH_SECONDS (per wrk run, default 5), BENCH_ROUNDS (default 3), BENCH_CONNECTIONS (50).
 *
 * Run: npm run bench:gateway
 */

import { readdirSync, readFileSync } from 'node:fs'
import {
  ensureTools,
  fmt,
  httpRequest,
  main,
  processCpuMs,
  median,
  ratio,
  runWrk,
  saveResults,
  startBareNode,
  startRedis,
  startRestis,
  startWebdis,
  table,
} from './lib.mjs'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50)
const WORKERS = 2

/** The processes whose parent is `pid` (a cluster primary's workers), from /proc. */
function childPids(pid) {
  const children = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) children.push(Number(entry))
    } catch {
      // exited meanwhile
    }
  }
  return children
}

/** Resolves once `proc`'s output contains `text` (the banner printed after every worker listens). */
async function waitForOutput(proc, text, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs
  while (!proc.log().includes(text)) {
    if (Date.now() > deadline) throw new Error(`no "${text}" in the output: ${proc.log()}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

await main('bench:gateway', async () => {
  const missing = ensureTools(['wrk', 'redis-server', 'webdis'])
  if (missing.includes('wrk')) throw new Error('wrk is required for the gateway suite')

  const servers = {}
  servers.bare = await startBareNode()
  servers.memory = await startRestis()
  if (!missing.includes('redis-server')) {
    servers.redis = await startRedis()
    servers.socket = await startRestis({ redis: servers.redis.url })
    servers.workers = await startRestis({ redis: servers.redis.url, args: ['--workers', String(WORKERS)] })
    await waitForOutput(servers.workers, `${WORKERS} workers)`)
    if (!missing.includes('webdis')) servers.webdis = await startWebdis(servers.redis.port)
  }
  const auth = (s) => ({ authorization: `Bearer ${s.token}` })
  // Seed and warm up (JIT, pools) every target.
  for (const name of ['memory', 'socket', 'workers']) {
    const s = servers[name]
    if (!s) continue
    const set = await httpRequest(`${s.url}/set/foo/bar`, { headers: auth(s) })
    if (set.status !== 200) throw new Error(`${name}: SET failed: ${set.status} ${set.body}`)
    await httpRequest(`${s.url}/set/counter/0`, { headers: auth(s) })
    await runWrk({ url: `${s.url}/get/foo`, connections: CONNECTIONS, threads: 1, seconds: 2, script: 'auth.lua', env: { TOKEN: s.token } })
  }
  if (servers.webdis) {
    const check = await httpRequest(`${servers.webdis.url}/GET/foo`)
    if (!check.body.includes('bar')) throw new Error(`webdis: unexpected reply ${check.body}`)
  }

  /** One wrk run per target per round, order rotated each round. */
  const measure = async (label, targets) => {
    const runs = Object.fromEntries(targets.map((t) => [t.name, []]))
    for (let round = 0; round < ROUNDS; round++) {
      const order = targets.map((_, i) => targets[(i + round) % targets.length])
      for (const t of order) {
        const cpuBefore = t.pids.reduce((sum, pid) => sum + processCpuMs(pid), 0)
        const result = await runWrk({ connections: CONNECTIONS, threads: 1, seconds: SECONDS, ...t.wrk })
        result.cpuUs = ((t.pids.reduce((sum, pid) => sum + processCpuMs(pid), 0) - cpuBefore) * 1000) / result.requests
        if (result.non2xx > 0 || result.socketErrors) {
          console.error(`${label} / ${t.name}: non-2xx ${result.non2xx}, socket errors ${result.socketErrors ?? 0}`)
        }
        runs[t.name].push(result)
        console.error(`  ${label} / ${t.name} round ${round + 1}: ${fmt(result.rps)} req/s p50 ${result.p50} ms p99 ${result.p99} ms, ${result.cpuUs.toFixed(1)} CPU µs/req`)
      }
    }
    return Object.fromEntries(
      targets.map((t) => {
        const r = runs[t.name]
        return [
          t.name,
          {
            rps: median(r.map((x) => x.rps)),
            p50: median(r.map((x) => x.p50)),
            p99: median(r.map((x) => x.p99)),
            cpuUs: median(r.map((x) => x.cpuUs)),
            commandsPerRequest: t.commandsPerRequest ?? 1,
            rounds: r.map((x) => Math.round(x.rps)),
            errors: r.reduce((n, x) => n + x.non2xx, 0),
          },
        ]
      }),
    )
  }

  const pid = (name) => servers[name].child.pid
  const TARGET_NAMES = { memory: 'restis memory executor', socket: 'restis socket executor', workers: `restis socket executor, --workers ${WORKERS}` }
  const pidsOf = (name) => {
    if (name === 'memory') return [pid('memory')]
    if (name === 'socket') return [pid('socket'), pid('redis')]
    return [pid('workers'), ...childPids(pid('workers')), pid('redis')]
  }
  const restis = (name, path, script = 'auth.lua', commandsPerRequest = 1) =>
    servers[name] && {
      name: TARGET_NAMES[name],
      commandsPerRequest,
      pids: pidsOf(name),
      wrk: { url: `${servers[name].url}${path}`, script, env: { TOKEN: servers[name].token } },
    }
  const webdis = (path) => servers.webdis && { name: 'webdis', pids: [pid('webdis'), pid('redis')], wrk: { url: `${servers.webdis.url}${path}` } }
  const bare = { name: 'bare node:http (constant)', pids: [pid('bare')], wrk: { url: `${servers.bare.url}/get/foo` } }

  const rows = {}
  rows['GET'] = await measure(
    'GET',
    [bare, webdis('/GET/foo'), restis('memory', '/get/foo'), restis('socket', '/get/foo'), restis('workers', '/get/foo')].filter(Boolean),
  )
  rows['SET'] = await measure(
    'SET',
    [webdis('/SET/foo/bar'), restis('memory', '/set/foo/bar'), restis('socket', '/set/foo/bar'), restis('workers', '/set/foo/bar')].filter(Boolean),
  )
  rows['/pipeline (100 GETs)'] = await measure(
    'pipeline',
    [restis('memory', '/', 'pipeline.lua', 100), restis('socket', '/', 'pipeline.lua', 100)].filter(Boolean),
  )
  rows['/multi-exec (10 INCRs)'] = await measure(
    'multi-exec',
    [restis('memory', '/', 'multi-exec.lua', 10), restis('socket', '/', 'multi-exec.lua', 10)].filter(Boolean),
  )

  for (const s of Object.values(servers)) await s.stop()

  // ---- report
  const lines = []
  const peerOf = (row, target) => {
    if (row === 'GET' && target === 'restis memory executor') return 'bare node:http (constant)'
    if ((row === 'GET' || row === 'SET') && (target === 'restis socket executor' || target === TARGET_NAMES.workers)) return 'webdis'
    if (row === 'SET' && target === 'restis memory executor') return 'webdis'
    if (target === 'restis socket executor') return 'restis memory executor'
    return undefined
  }
  const out = []
  for (const [row, targets] of Object.entries(rows)) {
    for (const [target, r] of Object.entries(targets)) {
      const peer = peerOf(row, target)
      const peerRps = peer ? targets[peer]?.rps : undefined
      const peerCpu = peer ? targets[peer]?.cpuUs : undefined
      out.push([
        row,
        target,
        fmt(r.rps),
        r.commandsPerRequest > 1 ? fmt(r.rps * r.commandsPerRequest) : '',
        r.p50.toFixed(2),
        r.p99.toFixed(2),
        r.cpuUs.toFixed(1),
        peerRps ? `${ratio(r.rps, peerRps)} req/s, ${ratio(peerCpu, r.cpuUs)} CPU, of ${peer}` : '',
      ])
    }
  }
  lines.push(
    table(['row', 'target', 'req/s (median)', 'commands/s', 'p50 ms', 'p99 ms', 'CPU µs/req', 'ratio (throughput; CPU efficiency = peer CPU / ours)'], out),
  )
  console.log(`\nGateway over HTTP: wrk -t1 -c${CONNECTIONS} -d${SECONDS}s --latency, ${ROUNDS} interleaved rounds, medians\n`)
  console.log(lines.join('\n'))
  const file = saveResults('gateway', { seconds: SECONDS, rounds: ROUNDS, connections: CONNECTIONS, rows, markdown: lines.join('\n') })
  console.log(`\nresults: ${file}`)
})
