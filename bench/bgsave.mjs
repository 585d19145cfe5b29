/**
 * Persistence figures against redis-server 7.0 in the same run.
 *
 * GET latency during BGSAVE (`bgsaveLatency`): each server (restis's RESP listener with a data
 * directory, and redis-server with its own) is filled with N string keys through `redis-cli
 * --pipe`; one client then sends GET to random keys one at a time and records each round trip,
 * while a second connection starts BGSAVE and polls INFO until the save ended. Reported: p50,
 * p99 and max of the GETs issued while the save ran, the save's duration, and the same figures
 * with no save running as the baseline. Node has no fork(): restis writes its snapshot in slices
 * of about 1 ms between event-loop turns, so a GET waits at most for one slice.
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

import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { benchBuild, ensureTools, fmt, freePort, main, ratio, saveResults, startChild, startRestis, table, waitForPort } from './lib.mjs'

const KEY_COUNTS = (process.env.BENCH_BGSAVE_KEYS ?? '1000000,10000000').split(',').map(Number)
const BASELINE_GETS = 20_000
/**
 * How long a server of the run may live: the suite's default (15 min) killed the server in the
 * middle of a 10M-key fill on a loaded machine, which the fill saw as EPIPE. 5 min per million keys.
 */
const serverLifetimeMs = (keys) => Math.max(15 * 60_000, (keys / 1e6) * 5 * 60_000)
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

/** Commands a fill writes before it waits for their replies. */
const FILL_WINDOW = 10_000

/** `SET key:<i> value:<i>` for i in [from, to), in RESP. */
function setCommands(from, to) {
  const parts = []
  for (let i = from; i < to; i++) {
    const key = `key:${i}`
    const value = `value:${i}`
    parts.push(`*3\r\n$3\r\nSET\r\n$${key.length}\r\n${key}\r\n$${value.length}\r\n${value}\r\n`)
  }
  return parts.join('')
}

/**
 * Fills a server with `count` keys: windows of {@link FILL_WINDOW} SETs written at once, the next
 * only once every reply of the last one arrived (each a `+OK` line), so neither side ever
 * buffers more than one window. When the connection breaks, the error says how far the fill got
 * and what became of the server (`server.exited`), instead of an EPIPE from a pipe's writer.
 */
async function fill(port, count, password, server) {
  const socket = net.connect(port, '127.0.0.1')
  await once(socket, 'connect')
  let pendingLines = 0
  let wake
  let failure
  let sent = 0
  let exitState = 'running'
  server.exited.then((code) => (exitState = `exited with ${code ?? server.child.signalCode}`))
  const fail = (error) => {
    failure ??= new Error(`fill of ${count} keys stopped after ${sent} sent (server ${exitState}): ${error.message}\n${server.log().slice(-2000)}`)
    wake?.()
  }
  socket.on('error', fail)
  socket.on('close', () => fail(new Error('connection closed')))
  socket.on('data', (chunk) => {
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) pendingLines--
    if (chunk[0] === 45 /* - */ || chunk.includes('\r\n-')) fail(new Error(`error reply: ${String(chunk).split('\r\n').find((line) => line.startsWith('-'))}`))
    if (pendingLines <= 0) wake?.()
  })
  const send = async (text, replies) => {
    pendingLines += replies
    socket.write(text)
    while (pendingLines > 0 && failure === undefined) await new Promise((resolve) => (wake = resolve))
    if (failure !== undefined) throw failure
  }
  try {
    if (password) await send(`*2\r\n$4\r\nAUTH\r\n$${password.length}\r\n${password}\r\n`, 1)
    for (let from = 0; from < count; from += FILL_WINDOW) {
      const to = Math.min(count, from + FILL_WINDOW)
      await send(setCommands(from, to), to - from)
      sent = to
    }
  } finally {
    socket.removeAllListeners('close')
    socket.destroy()
  }
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
          proc = await startRestis({ respPort: port, token: 'bench-token', nodeArgs: ['--max-old-space-size=8192'], args: ['--dir', dir, '--save', '', ...serverArgs], maxMs: serverLifetimeMs(keys) })
          url = `redis://:bench-token@127.0.0.1:${port}`
          await fill(port, keys, 'bench-token', proc)
        } else {
          port = await freePort()
          proc = startChild('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, ...serverArgs], { maxMs: serverLifetimeMs(keys) })
          await waitForPort(port)
          url = `redis://127.0.0.1:${port}`
          await fill(port, keys, undefined, proc)
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
