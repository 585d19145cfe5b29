/**
 * Overload probes against the CLI over loopback: each probe starts a fresh restis (in-memory
 * executor), runs a bystander client that GETs a key over its own keep-alive connection the whole
 * time, runs the attack, and reports the server's peak RSS (VmHWM), the bystander's GET latency
 * (p50, p99, max, errors) and whether the server survived (still answers afterwards).
 *
 * Probes are separate functions in the PROBES table (the RESP listener's probes go there too).
 * Bounded: each probe has a deadline, every child is killed when the suite ends.
 *
 *   node bench/overload.mjs [probe-name …]
 */
import { spawn } from 'node:child_process'
import { readFileSync, readdirSync } from 'node:fs'
import http from 'node:http'
import net from 'node:net'
import { fmt, main, saveResults, startRestis, table } from './lib.mjs'

const MIB = 1024 * 1024

/** Peak resident memory of a process (VmHWM), MiB. */
function peakRssMiB(pid) {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return Number(match?.[1] ?? 0) / 1024
  } catch {
    return NaN
  }
}

function request(port, { method = 'GET', path, token, body, agent = false, headers = {} }) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, agent, headers: { authorization: `Bearer ${token}`, ...headers } }, (response) => {
      const chunks = []
      response.on('data', (chunk) => chunks.push(chunk))
      response.on('end', () => resolve({ status: response.statusCode, body: Buffer.concat(chunks) }))
      response.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
}

/**
 * GETs `/get/bystander` back to back (2 ms apart) on one keep-alive connection, from a process of
 * its own (the probe's own work must not delay its measurements), until stopped.
 */
function bystander(port, token) {
  const script = `
    const http = require('node:http'); const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    const latencies = []; let errors = 0; let running = true
    process.stdin.on('data', () => (running = false)); process.stdin.resume()
    const once = () => new Promise((resolve) => {
      const start = performance.now()
      const req = http.get({ host: '127.0.0.1', port: ${port}, path: '/get/bystander', agent, headers: { authorization: 'Bearer ${token}' } }, (res) => {
        res.resume(); res.on('end', () => { if (res.statusCode === 200) latencies.push(performance.now() - start); else errors++; resolve() })
      })
      req.on('error', () => { errors++; setTimeout(resolve, 50) })
    })
    ;(async () => {
      await once(); console.log('ready')
      while (running) { await once(); await new Promise((r) => setTimeout(r, 2)) }
      console.log(JSON.stringify({ latencies, errors })); process.exit(0)
    })()`
  const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'inherit'] })
  let out = ''
  const ready = new Promise((resolve) => {
    child.stdout.on('data', (chunk) => {
      out += chunk
      if (out.startsWith('ready\n')) resolve()
    })
  })
  const stop = async () => {
    child.stdin.write('stop\n')
    await new Promise((resolve) => child.once('exit', resolve))
    const { latencies, errors } = JSON.parse(out.slice('ready\n'.length))
    const sorted = latencies.sort((a, b) => a - b)
    const at = (q) => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))])
    return { count: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? NaN, errors }
  }
  return ready.then(() => stop)
}

// --- probes: each gets { port, token, pid } and returns a one-line outcome --------------------

async function pipelineRows(rows, { port, token }) {
  const body = '[' + Array(rows).fill('["PING"]').join(',') + ']'
  const start = performance.now()
  const answer = await request(port, { method: 'POST', path: '/pipeline', token, body })
  const text = answer.body.toString()
  const replies = answer.status === 200 ? (text.match(/PONG/g) ?? []).length : 0
  return `${answer.status}, ${replies} replies, ${fmt(performance.now() - start)} ms (${fmt(body.length / MIB, 1)} MiB body)`
}

async function unauthenticatedUploads({ port }) {
  const size = 99 * MIB
  const chunk = Buffer.alloc(MIB, 0x61)
  const upload = () =>
    new Promise((resolve) => {
      const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/pipeline', agent: false, headers: { authorization: 'Bearer wrong', 'content-length': size } }, (response) => {
        response.resume()
        resolve(response.statusCode)
      })
      req.on('error', () => resolve('reset'))
      let sent = 0
      const pump = () => {
        while (sent < size && !req.destroyed) {
          sent += chunk.length
          if (!req.write(chunk)) return void req.once('drain', pump)
        }
        req.end()
      }
      pump()
    })
  const start = performance.now()
  const statuses = await Promise.all(Array.from({ length: 40 }, upload))
  const counts = {}
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1
  return `${JSON.stringify(counts)} in ${fmt(performance.now() - start)} ms`
}

/** 20,000 sockets from two children (10,000 each: a process may hold 20,000 files); they connect and send nothing. */
async function idleSockets({ port, token, pid }) {
  const script = `
    const net = require('node:net'); let open = 0, failed = 0, closed = 0
    for (let i = 0; i < 10000; i++) { const s = net.connect(${port}, '127.0.0.1'); s.on('connect', () => open++); s.on('error', () => failed++); s.on('close', () => closed++) }
    setTimeout(() => { console.log(JSON.stringify({ open, failed, closed })); process.exit(0) }, 12000).unref?.()
    setInterval(() => {}, 1000)`
  const holders = [0, 1].map(() => {
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    child.stdout.on('data', (chunk) => (out += chunk))
    return new Promise((resolve) => child.once('exit', () => resolve(out.trim())))
  })
  // A new connection while they are held: refused (closed at once) while the cap is full.
  await new Promise((resolve) => setTimeout(resolve, 4000))
  const held = readdirSync(`/proc/${pid}/fd`).length
  const during = await request(port, { path: '/get/bystander', token }).then((a) => a.status, (error) => error.code)
  const counts = await Promise.all(holders)
  const after = await request(port, { path: '/get/bystander', token }).then((a) => a.status, (error) => error.code)
  return `server fds after 4 s: ${held}; holders: ${counts.join(' + ')}; a new connection during: ${during}, afterwards: ${after}`
}

/** Ten clients GET a 50 MiB value and never read; the send timeout is 5 s for this probe. */
async function stalledReaders({ port, token, pid }) {
  const piece = Buffer.alloc(5 * MIB, 0x76)
  for (let i = 0; i < 10; i++) await request(port, { method: 'POST', path: '/append/big', token, body: piece })
  const readers = []
  for (let i = 0; i < 10; i++) {
    const socket = net.connect(port, '127.0.0.1')
    socket.on('error', () => undefined)
    await new Promise((resolve) => socket.once('connect', resolve))
    socket.pause()
    socket.write(`GET /get/big HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n\r\n`)
    readers.push(socket)
  }
  await new Promise((resolve) => setTimeout(resolve, 3000))
  const during = peakRssMiB(pid)
  await new Promise((resolve) => setTimeout(resolve, 5000))
  const rss = Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024
  for (const socket of readers) socket.destroy()
  return `peak ${fmt(during)} MiB while stalled; RSS ${fmt(rss)} MiB 8 s later (send timeout 5 s)`
}

async function amplification({ port, token }) {
  await request(port, { path: '/sadd/s/a', token })
  await request(port, { path: '/zadd/z/1/a', token })
  const outcomes = []
  for (const path of ['/srandmember/s/-16777216', '/zrandmember/z/-16777216']) {
    const start = performance.now()
    const answer = await request(port, { path, token }).catch((error) => ({ status: error.code, body: Buffer.alloc(0) }))
    outcomes.push(`${path.split('/')[1]}: ${answer.status} ${fmt(answer.body.length / MIB, 1)} MiB in ${fmt(performance.now() - start)} ms`)
  }
  return outcomes.join('; ')
}

/** name → [what it does, extra CLI args, probe]. */
export const PROBES = {
  'pipeline-1m-refused': ['1M-row PING pipeline, default --max-pipeline-rows (100000)', [], (s) => pipelineRows(1_000_000, s)],
  'pipeline-1m': ['1M-row PING pipeline, --max-pipeline-rows 1000000', ['--max-pipeline-rows', '1000000'], (s) => pipelineRows(1_000_000, s)],
  'pipeline-100k': ['100k-row PING pipeline (the default limit)', [], (s) => pipelineRows(100_000, s)],
  'unauth-uploads': ['40 concurrent unauthenticated 99 MiB bodies', [], unauthenticatedUploads],
  'idle-sockets': ['20,000 idle sockets (cap 10000, header timeout 10 s)', [], idleSockets],
  'stalled-readers': ['10 stalled readers of a 50 MiB value', ['--send-timeout', '5'], stalledReaders],
  amplification: ['SRANDMEMBER / ZRANDMEMBER -16777216', [], amplification],
}

async function runProbe(name) {
  const [what, args, probe] = PROBES[name]
  const server = await startRestis({ args, nodeArgs: ['--max-old-space-size=4096'] })
  await request(server.port, { path: '/set/bystander/1', token: server.token })
  const stopBystander = await bystander(server.port, server.token)
  let outcome
  try {
    outcome = await Promise.race([
      probe({ port: server.port, token: server.token, pid: server.child.pid }),
      new Promise((resolve) => setTimeout(() => resolve('probe deadline (120 s) passed'), 120_000)),
    ])
  } catch (error) {
    outcome = `probe failed: ${error.message}`
  }
  const latency = await stopBystander()
  const peak = peakRssMiB(server.child.pid)
  const alive = server.child.exitCode === null && server.child.signalCode === null
  const after = alive ? await request(server.port, { path: '/get/bystander', token: server.token }).then((a) => a.status, () => 'error') : 'dead'
  await server.stop()
  return { name, what, outcome, peakRssMiB: peak, survived: alive && after === 200, bystander: latency }
}

await main('overload', async () => {
  const names = process.argv.slice(2).length > 0 ? process.argv.slice(2) : Object.keys(PROBES)
  const rows = []
  for (const name of names) {
    const result = await runProbe(name)
    console.log(`${name}: ${result.outcome}`)
    rows.push(result)
  }
  console.log(
    '\n' +
      table(
        ['probe', 'survived', 'peak RSS MiB', 'bystander GETs', 'p50 ms', 'p99 ms', 'max ms', 'errors'],
        rows.map((r) => [r.name, r.survived ? 'yes' : 'NO', fmt(r.peakRssMiB), String(r.bystander.count), fmt(r.bystander.p50, 1), fmt(r.bystander.p99, 1), fmt(r.bystander.max, 1), String(r.bystander.errors)]),
      ),
  )
  saveResults('overload', { rows })
})
