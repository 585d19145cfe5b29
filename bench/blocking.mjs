/**
 * Blocking commands over RESP, restis (memory engine, built CLI) against redis-server:
 * - the CPU an idle BullMQ QueueEvents costs the server over 5 s (it waits in XREAD BLOCK);
 * - the wake-up latency of a client blocked in BLPOP after another client's LPUSH (p50/p99);
 * - GET throughput (pipelined, one client) with 10,000 clients blocked on distinct keys, and without.
 *
 * usage: node bench/blocking.mjs
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { Redis } from 'ioredis6'
import { QueueEvents } from 'bullmq'
import { fmt, freePort, main, processCpuMs, saveResults, startRedis, startRestis, table } from './lib.mjs'

const SWARM = fileURLToPath(new URL('../test/support/blocked-swarm.mjs', import.meta.url))
const WAKEUPS = 2000
const BLOCKED = 10_000

/** The RESP port of restis asks for its token; redis-server for nothing. */
const passwords = new Map()
const client = (port) => new Redis({ host: '127.0.0.1', port, protocol: 2, maxRetriesPerRequest: null, password: passwords.get(port) })

async function idleQueueEventsCpu(port, pid) {
  const events = new QueueEvents('idle', { connection: { host: '127.0.0.1', port, maxRetriesPerRequest: null, password: passwords.get(port) } })
  await events.waitUntilReady()
  await new Promise((resolve) => setTimeout(resolve, 500))
  const before = processCpuMs(pid)
  await new Promise((resolve) => setTimeout(resolve, 5000))
  const used = processCpuMs(pid) - before
  await events.close()
  return used
}

async function wakeupLatency(port) {
  const blocker = client(port)
  const pusher = client(port)
  const samples = []
  for (let i = 0; i < WAKEUPS; i++) {
    const waiting = blocker.blpop('wake', 0)
    // The BLPOP is on the wire before the push: its connection sends in order and the server
    // reads it first only if it arrives first, so wait until the server counts it blocked.
    for (;;) {
      const info = await pusher.info('clients')
      if (/blocked_clients:1\b/.test(info)) break
    }
    const started = process.hrtime.bigint()
    await pusher.lpush('wake', 'x')
    await waiting
    samples.push(Number(process.hrtime.bigint() - started) / 1e6)
  }
  blocker.disconnect()
  pusher.disconnect()
  samples.sort((a, b) => a - b)
  return { p50: samples[Math.floor(samples.length * 0.5)], p99: samples[Math.floor(samples.length * 0.99)] }
}

async function getThroughput(port) {
  const c = client(port)
  await c.set('g', 'value')
  let done = 0
  const until = Date.now() + 3000
  while (Date.now() < until) {
    const pipeline = c.pipeline()
    for (let i = 0; i < 200; i++) pipeline.get('g')
    await pipeline.exec()
    done += 200
  }
  c.disconnect()
  return done / 3
}

async function withBlockedSwarm(port, run) {
  const swarm = spawn(process.execPath, [SWARM, String(port), String(BLOCKED), 'blocked:{i}', '0', ...(passwords.has(port) ? [passwords.get(port)] : [])], { stdio: ['ignore', 'pipe', 'inherit'] })
  let output = ''
  swarm.stdout.on('data', (chunk) => (output += chunk))
  const admin = client(port)
  for (;;) {
    const info = await admin.info('clients')
    if (new RegExp(`blocked_clients:${BLOCKED}\\b`).test(info)) break
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  try {
    return await run()
  } finally {
    swarm.kill()
    admin.disconnect()
  }
}

async function measure(label, port, pid) {
  const cpu = await idleQueueEventsCpu(port, pid)
  const wake = await wakeupLatency(port)
  await getThroughput(port) // warm-up: the JIT, the connection
  const getsIdle = await getThroughput(port)
  const getsBlocked = await withBlockedSwarm(port, () => getThroughput(port))
  return { label, cpu, ...wake, getsIdle, getsBlocked }
}

main('blocking', async () => {
  const redis = await startRedis()
  const respPort = await freePort()
  const restis = await startRestis({ respPort, args: ['--resp-max-clients', '19000'] })
  passwords.set(respPort, restis.token)
  // redis-server's default maxclients (10000) leaves no room for the bench's own clients.
  const admin = client(redis.port)
  await admin.config('SET', 'maxclients', '19000')
  admin.disconnect()
  const rows = [await measure('restis (memory, RESP)', respPort, restis.child.pid), await measure('redis-server 7.0', redis.port, redis.child.pid)]
  console.log(
    table(
      ['server', 'idle QueueEvents CPU / 5 s', 'BLPOP wake-up p50', 'p99', 'GET/s (pipelined)', `GET/s with ${BLOCKED} blocked`],
      rows.map((r) => [r.label, `${fmt(r.cpu)} ms`, `${fmt(r.p50, 3)} ms`, `${fmt(r.p99, 3)} ms`, fmt(r.getsIdle), fmt(r.getsBlocked)]),
    ),
  )
  console.log(`results: ${saveResults('blocking', { rows })}`)
})
