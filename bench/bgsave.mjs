/**
 * Persistence figures against redis-server 7.0 in the same run.
 *
 * GET latency during BGSAVE (`bgsaveLatency`): each server (restis's RESP listener with a data
 * directory, and redis-server with its own) is filled with N string keys through `redis-cli
 * --pipe`; one client then sends GET to random keys one at a time and records each round trip,
 * while a second connection starts BGSAVE and polls INFO until the save ended. Reported: p50,
 * p99 and max of the GETs issued while the save ran, the save's duration, and the same figures
 * with no save running as the baseline. Node has no fork(): restis writes its snapshot in slices
 * of about 2 ms between event-loop turns, so a GET waits at most for one slice.
 *
 * The same figures for BGREWRITEAOF (`BENCH_BGSAVE_OPERATIONS=BGREWRITEAOF`): both servers run
 * with `--appendonly yes --appendfsync everysec` and automatic rewrites off; restis writes the
 * new base (`aof-use-rdb-preamble yes`: an RDB file) from the same sliced snapshot.
 *
 * Env: BENCH_BGSAVE_KEYS (comma-separated key counts, default "1000000,10000000"),
 * BENCH_BGSAVE_OPERATIONS (comma-separated, BGSAVE and/or BGREWRITEAOF; default BGSAVE).
 *
 * Run: npm run bench:bgsave
 */

import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { benchBuild, ensureTools, fmt, freePort, main, ratio, saveResults, startChild, startRestis, table, waitForPort } from './lib.mjs'

const KEY_COUNTS = (process.env.BENCH_BGSAVE_KEYS ?? '1000000,10000000').split(',').map(Number)
const BASELINE_GETS = 20_000
const OPERATIONS = (process.env.BENCH_BGSAVE_OPERATIONS ?? 'BGSAVE').split(',').map((name) => name.trim().toUpperCase())

/** What each measured operation answers when it starts, and the INFO lines that say it ended. */
const OPERATION = {
  BGSAVE: { started: /Background saving started/, running: /rdb_bgsave_in_progress:1/, ok: /rdb_last_bgsave_status:ok/, serverArgs: [] },
  BGREWRITEAOF: {
    started: /Background append only file rewriting started/,
    running: /aof_rewrite_in_progress:1|aof_rewrite_scheduled:1/,
    ok: /aof_last_bgrewrite_status:ok/,
    serverArgs: ['--appendonly', 'yes', '--appendfsync', 'everysec'],
  },
}

/** N `SET key:<i> value:<i>` commands in RESP, as redis-cli --pipe reads them. */
function* setCommands(count) {
  const batch = []
  for (let i = 0; i < count; i++) {
    const key = `key:${i}`
    const value = `value:${i}`
    batch.push(`*3\r\n$3\r\nSET\r\n$${key.length}\r\n${key}\r\n$${value.length}\r\n${value}\r\n`)
    if (batch.length === 10_000) {
      yield batch.join('')
      batch.length = 0
    }
  }
  if (batch.length > 0) yield batch.join('')
}

/** Fills a server through `redis-cli --pipe` (AUTH first when a password is given). */
async function fill(port, count, password) {
  const args = ['-p', String(port), '--pipe', ...(password ? ['-a', password, '--no-auth-warning'] : [])]
  const child = spawn('redis-cli', args, { stdio: ['pipe', 'pipe', 'inherit'] })
  let output = ''
  child.stdout.on('data', (chunk) => (output += chunk))
  for (const text of setCommands(count)) {
    if (!child.stdin.write(text)) await new Promise((resolve) => child.stdin.once('drain', resolve))
  }
  child.stdin.end()
  const code = await new Promise((resolve) => child.once('exit', resolve))
  if (code !== 0 || !/errors: 0, replies: \d+/.test(output)) throw new Error(`redis-cli --pipe failed: ${output}`)
}

function percentile(sorted, p) {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

function summary(latencies) {
  const sorted = Float64Array.from(latencies).sort()
  return { count: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] ?? NaN }
}

/** GET round trips (ms) until `until()` is true, or `limit` of them. */
async function timeGets(client, keys, until, limit = Infinity) {
  const latencies = []
  while (latencies.length < limit && !until()) {
    const key = `key:${Math.floor(Math.random() * keys)}`
    const started = performance.now()
    await client.exec(['GET', key])
    latencies.push(performance.now() - started)
  }
  return latencies
}

/** One server's figures: baseline GETs, then GETs during `operation` (BGSAVE, BGREWRITEAOF). */
async function measure(SocketExecutor, url, keys, operation) {
  const { started: startedReply, running, ok } = OPERATION[operation]
  const reader = new SocketExecutor({ url })
  const control = new SocketExecutor({ url })
  try {
    // A rewrite by growth would overlap the measured one (or refuse it).
    if (operation === 'BGREWRITEAOF') await control.exec(['CONFIG', 'SET', 'auto-aof-rewrite-percentage', '0'])
    const baseline = summary(await timeGets(reader, keys, () => false, BASELINE_GETS))
    const started = performance.now()
    const reply = String(await control.exec([operation]))
    if (!startedReply.test(reply)) throw new Error(`${operation}: ${reply}`)
    let saving = true
    const poll = (async () => {
      while (saving) {
        await new Promise((resolve) => setTimeout(resolve, 20))
        const info = String(await control.exec(['INFO', 'persistence']))
        if (!running.test(info)) {
          if (!ok.test(info)) throw new Error(`${operation} failed: ${info}`)
          saving = false
        }
      }
    })()
    const during = summary(await timeGets(reader, keys, () => !saving))
    await poll
    return { baseline, during, saveMs: performance.now() - started }
  } finally {
    await reader.close()
    await control.close()
  }
}

export async function bgsaveLatency(operation = 'BGSAVE') {
  if (OPERATION[operation] === undefined) throw new Error(`unknown operation ${operation} (BGSAVE or BGREWRITEAOF)`)
  const { serverArgs } = OPERATION[operation]
  const build = await benchBuild()
  const { SocketExecutor } = await build.import('socket')
  const rows = []
  const results = []
  for (const keys of KEY_COUNTS) {
    for (const server of ['restis', 'redis-server']) {
      const dir = mkdtempSync(path.join(tmpdir(), `bench-bgsave-${server}-`))
      let proc
      let url
      let port
      try {
        if (server === 'restis') {
          port = await freePort()
          proc = await startRestis({ respPort: port, token: 'bench-token', nodeArgs: ['--max-old-space-size=8192'], args: ['--dir', dir, '--save', '', ...serverArgs] })
          url = `redis://:bench-token@127.0.0.1:${port}`
          await fill(port, keys, 'bench-token')
        } else {
          port = await freePort()
          proc = startChild('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, ...serverArgs])
          await waitForPort(port)
          url = `redis://127.0.0.1:${port}`
          await fill(port, keys)
        }
        const figures = await measure(SocketExecutor, url, keys, operation)
        results.push({ server, operation, keys, ...figures })
        rows.push([
          server,
          fmt(keys),
          fmt(figures.saveMs),
          fmt(figures.during.count),
          fmt(figures.baseline.p50, 3),
          fmt(figures.during.p50, 3),
          fmt(figures.during.p99, 3),
          fmt(figures.during.max, 2),
        ])
      } finally {
        await proc?.stop()
        rmSync(dir, { recursive: true, force: true })
      }
    }
    const [ours, theirs] = results.slice(-2)
    rows.push(['ratio restis/redis', fmt(keys), ratio(ours.saveMs, theirs.saveMs), '', ratio(ours.baseline.p50, theirs.baseline.p50), ratio(ours.during.p50, theirs.during.p50), ratio(ours.during.p99, theirs.during.p99), ratio(ours.during.max, theirs.during.max)])
  }
  console.log(`\nGET latency during ${operation} (ms; one client, one GET at a time)\n`)
  console.log(table(['server', 'keys', `${operation} ms`, 'GETs during', 'p50 idle', 'p50 during', 'p99 during', 'max during'], rows))
  return results
}

await main('bgsave', async () => {
  ensureTools(['redis-server'])
  const figures = {}
  for (const operation of OPERATIONS) figures[operation === 'BGSAVE' ? 'bgsave' : 'bgrewriteaof'] = await bgsaveLatency(operation)
  saveResults('bgsave', figures)
})
