/**
 * The socket executor in front of one redis-server against the cluster executor in front of a
 * 3-master Redis Cluster (no replicas: the machine's cores go to the masters), on loopback:
 *
 * 1. Gateway over HTTP (wrk, BENCH_CONNECTIONS keep-alive connections, restis `--workers 2`):
 *    GET /get/foo, GET /set/foo/bar, and POST /pipeline of 100 GETs of 100 keys (spread over
 *    the three masters on the cluster, split per node and sent in parallel).
 * 2. RESP: redis-benchmark against restis's RESP listener in front of the cluster, and
 *    `redis-benchmark --cluster` against the cluster itself (GET and SET, 50 clients).
 *
 * Every process shares the machine: the figures compare targets measured the same way, rounds
 * interleaved, medians reported.
 *
 * Env: BENCH_ROUNDS (2), BENCH_SECONDS (3), BENCH_CONNECTIONS (50), BENCH_REQUESTS (redis-benchmark -n, 100000).
 * Run: npm run bench:cluster
 */

import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {
  ensureTools,
  fmt,
  freePort,
  httpRequest,
  main,
  median,
  runWrk,
  saveResults,
  startChild,
  startRedis,
  startRestis,
  table,
  waitForPort,
} from './lib.mjs'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50)
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 100_000)
const WORKERS = 2
const MASTERS = 3

function cli(port, ...args) {
  return spawnSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8', timeout: 30_000 }).stdout ?? ''
}

/** A 3-master cluster, each master with its own temp dir; ready once every node says cluster_state:ok. */
async function startCluster() {
  const nodes = []
  for (let i = 0; i < MASTERS; i++) {
    const port = await freePort()
    const dir = mkdtempSync(path.join(os.tmpdir(), 'restis-bench-cluster-'))
    const proc = startChild('redis-server', [
      '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'no',
      '--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '5000', '--dir', dir,
    ])
    await waitForPort(port)
    nodes.push({ ...proc, port, dir })
  }
  const create = spawnSync('redis-cli', ['--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-replicas', '0', '--cluster-yes'], { encoding: 'utf8', timeout: 60_000 })
  if (create.status !== 0) throw new Error(`cluster create failed: ${create.stdout}${create.stderr}`)
  const deadline = Date.now() + 30_000
  while (!nodes.every((n) => /cluster_state:ok/.test(cli(n.port, 'CLUSTER', 'INFO')))) {
    if (Date.now() > deadline) throw new Error('cluster not ok after 30 s')
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return {
    nodes,
    url: `redis://127.0.0.1:${nodes[0].port}`,
    async stop() {
      for (const n of nodes) {
        await n.stop()
        rmSync(n.dir, { recursive: true, force: true })
      }
    },
  }
}

async function waitForOutput(proc, text, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs
  while (!proc.log().includes(text)) {
    if (Date.now() > deadline) throw new Error(`no "${text}" in the output: ${proc.log()}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** redis-benchmark -q: requests per second of each test. */
function redisBenchmark(args) {
  const out = spawnSync('redis-benchmark', [...args, '-t', 'get,set', '-n', String(REQUESTS), '-c', '50', '-q'], { encoding: 'utf8', timeout: 300_000 }).stdout ?? ''
  const rps = (name) => Number(new RegExp(`${name}: ([\\d.]+) requests per second`).exec(out)?.[1] ?? NaN)
  return { GET: rps('GET'), SET: rps('SET'), raw: out }
}

await main('bench:cluster', async () => {
  const missing = ensureTools(['wrk', 'redis-server', 'redis-benchmark'])
  if (missing.length > 0) throw new Error(`the cluster suite needs ${missing.join(', ')}`)
  const single = await startRedis()
  const cluster = await startCluster()
  const respPort = await freePort()
  const targets = {
    '1 node': await startRestis({ redis: single.url, args: ['--workers', String(WORKERS)] }),
    [`${MASTERS} masters`]: await startRestis({ redis: cluster.url, respPort, args: ['--workers', String(WORKERS)] }),
  }
  for (const t of Object.values(targets)) await waitForOutput(t, `${WORKERS} workers)`)
  const auth = (t) => ({ authorization: `Bearer ${t.token}` })
  for (const [name, t] of Object.entries(targets)) {
    const set = await httpRequest(`${t.url}/set/foo/bar`, { headers: auth(t) })
    if (set.status !== 200) throw new Error(`${name}: SET failed: ${set.status} ${set.body}`)
    const keys = Array.from({ length: 100 }, (_, i) => ['SET', `k${i}`, 'v'])
    await httpRequest(`${t.url}/pipeline`, { method: 'POST', body: JSON.stringify(keys), headers: auth(t) })
    await runWrk({ url: `${t.url}/get/foo`, connections: CONNECTIONS, threads: 1, seconds: 1, script: 'auth.lua', env: { TOKEN: t.token } })
  }

  const rows = []
  const results = {}
  const loads = [
    ['GET /get/foo', (t) => ({ url: `${t.url}/get/foo`, script: 'auth.lua' })],
    ['SET /set/foo/bar', (t) => ({ url: `${t.url}/set/foo/bar`, script: 'auth.lua' })],
    ['POST /pipeline, 100 GETs of 100 keys', (t) => ({ url: t.url, script: 'pipeline-keys.lua', env: { COMMANDS: '100' } })],
  ]
  for (const [label, wrkFor] of loads) {
    const runs = Object.fromEntries(Object.keys(targets).map((name) => [name, []]))
    for (let round = 0; round < ROUNDS; round++) {
      const names = Object.keys(targets)
      if (round % 2 === 1) names.reverse()
      for (const name of names) {
        const t = targets[name]
        const spec = wrkFor(t)
        const result = await runWrk({ connections: CONNECTIONS, threads: 1, seconds: SECONDS, ...spec, env: { TOKEN: t.token, ...spec.env } })
        if (result.non2xx > 0 || result.socketErrors) console.error(`${label} / ${name}: non-2xx ${result.non2xx}, socket errors ${result.socketErrors ?? 0}`)
        runs[name].push(result)
      }
    }
    results[label] = {}
    for (const [name, list] of Object.entries(runs)) {
      const rps = median(list.map((r) => r.rps))
      const p99 = median(list.map((r) => r.p99))
      results[label][name] = { rps, p99 }
      rows.push([label, `restis --workers ${WORKERS}, ${name}`, fmt(rps), fmt(p99, 2)])
    }
  }
  console.log('\nGateway over HTTP (wrk, %d connections, %d s × %d rounds, medians)\n', CONNECTIONS, SECONDS, ROUNDS)
  console.log(table(['load', 'target', 'req/s', 'p99 ms'], rows))

  const resp = { listener: [], direct: [] }
  for (let round = 0; round < ROUNDS; round++) {
    resp.listener.push(redisBenchmark(['-p', String(respPort)]))
    resp.direct.push(redisBenchmark(['--cluster', '-p', String(cluster.nodes[0].port)]))
  }
  const respRows = []
  for (const [name, label] of [['listener', `restis RESP listener (--workers ${WORKERS}) in front of the cluster`], ['direct', 'redis-benchmark --cluster, straight to the masters']]) {
    const get = median(resp[name].map((r) => r.GET))
    const set = median(resp[name].map((r) => r.SET))
    results[`RESP ${name}`] = { GET: get, SET: set }
    respRows.push([label, fmt(get), fmt(set)])
  }
  console.log('\nRESP (redis-benchmark -n %d -c 50, %d rounds, medians)\n', REQUESTS, ROUNDS)
  console.log(table(['target', 'GET req/s', 'SET req/s'], respRows))
  saveResults('cluster', { rounds: ROUNDS, seconds: SECONDS, connections: CONNECTIONS, requests: REQUESTS, results })
  for (const t of Object.values(targets)) await t.stop()
  await cluster.stop()
  await single.stop()
})
