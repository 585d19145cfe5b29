/**
 * The in-memory engine, called directly.
 *
 * 1. `MemoryExecutor` against `ioredis-mock` (the in-process peer): SET, GET, INCR, HSET, LPUSH,
 *    SADD, ZADD through each library's public async API (`executor.exec([...])`,
 *    `redis.set(...)`), ops per CPU-second of the process, two ways: one awaited call at a time,
 *    and 100 calls at once awaited with one `Promise.all` (as a server with many clients issues
 *    them). The `execSync` column is restis's synchronous entry point, for reference.
 * 2. What one awaited call cannot go below on this machine: an `await` of a resolved promise,
 *    the same resolved with a Buffer (the thenable check of a typed array), a `Map.get` on a
 *    10,000-key Map, and a 10-byte Buffer, each measured alone the same way.
 * 3. `MemoryExecutor.pipeline` against redis-server through `SocketExecutor.pipeline`, batches
 *    of 100 commands, ops per wall-clock second (the server is another process, so wall time is
 *    what a caller sees); both in the same run, interleaved.
 *
 * Each (implementation, round) runs in a child process of its own, so no JIT or heap state is
 * shared; rounds are interleaved and medians reported.
 * Env: BENCH_ROUNDS (3), BENCH_SECONDS (CPU seconds per command per child, 0.4).
 *
 * Run: npm run bench:engine
 */

import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { benchBuild, cpuNow, ensureTools, fmt, main, median, ratio, saveResults, startRedis, table } from './lib.mjs'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 0.4)
const BATCH = 100
/** Distinct commands per kind, cycled: enough keys that no single hot key decides the figure. */
const DISTINCT = 10_000

const COMMANDS = ['SET', 'GET', 'INCR', 'HSET', 'LPUSH', 'SADD', 'ZADD']

/** The i-th command of a kind, as argument lists. */
function command(kind, i) {
  const k = i % DISTINCT
  switch (kind) {
    case 'SET':
      return ['SET', `key:${k}`, `value:${k}`]
    case 'GET':
      return ['GET', `key:${k}`]
    case 'INCR':
      return ['INCR', `counter:${k % 1000}`]
    case 'HSET':
      return ['HSET', `hash:${k % 1000}`, `field:${k % 100}`, `value:${k}`]
    case 'LPUSH':
      return ['LPUSH', `list:${k % 1000}`, `value:${k}`]
    case 'SADD':
      return ['SADD', `set:${k % 1000}`, `member:${k}`]
    case 'ZADD':
      return ['ZADD', `zset:${k % 1000}`, String(k), `member:${k}`]
  }
}

const commandsOf = (kind) => Array.from({ length: DISTINCT }, (_, i) => command(kind, i))

/** Seeds what GET reads, so GET measures hits. */
const SEED = commandsOf('SET')

/**
 * Runs `step(i)` (returns a promise or a value) until SECONDS of the chosen clock have passed,
 * after a short warm-up; returns ops per second of that clock.
 */
async function measure(step, { clock = 'cpu', opsPerStep = 1, sync = false } = {}) {
  const now = clock === 'cpu' ? cpuNow : () => Number(process.hrtime.bigint())
  const run = async (budgetNs) => {
    const start = now()
    let steps = 0
    for (;;) {
      if (sync) for (let k = 0; k < 256; k++) step(steps++)
      else for (let k = 0; k < 64; k++) await step(steps++)
      const spent = now() - start
      if (spent >= budgetNs) return (steps * opsPerStep * 1e9) / spent
    }
  }
  await run(SECONDS * 0.3e9)
  return run(SECONDS * 1e9)
}

/** Calls at once in the concurrent rows, awaited with one `Promise.all`. */
const CONCURRENT = 100

/**
 * A step issuing `CONCURRENT` calls of `call(i)` at once and awaiting them together. The loop is
 * the same for both libraries; only `call` differs.
 */
const concurrently = (call) => (step) => {
  const calls = new Array(CONCURRENT)
  const first = step * CONCURRENT
  for (let j = 0; j < CONCURRENT; j++) calls[j] = call(first + j)
  return Promise.all(calls)
}

/** Child mode: one implementation, every command, prints JSON { kind: ops/s }. */
async function child(impl, redisUrl) {
  const out = {}
  if (impl === 'restis' || impl === 'restis-sync' || impl === 'restis-concurrent') {
    const { MemoryExecutor } = await (await benchBuild()).import('memory')
    const executor = new MemoryExecutor({ activeExpiryInterval: 0 })
    for (const c of SEED) executor.execSync(c)
    for (const kind of COMMANDS) {
      const list = commandsOf(kind)
      const call = (i) => executor.exec(list[i % DISTINCT])
      if (impl === 'restis') out[kind] = await measure(call)
      else if (impl === 'restis-concurrent') out[kind] = await measure(concurrently(call), { opsPerStep: CONCURRENT })
      else out[kind] = await measure((i) => executor.execSync(list[i % DISTINCT]), { sync: true })
    }
    await executor.close()
  } else if (impl === 'ioredis-mock' || impl === 'ioredis-mock-concurrent') {
    const require = createRequire(import.meta.url)
    const RedisMock = require('ioredis-mock')
    const redis = new RedisMock()
    for (const [, ...args] of SEED) await redis.set(...args)
    for (const kind of COMMANDS) {
      const method = kind.toLowerCase()
      const list = commandsOf(kind).map(([, ...args]) => args)
      const call = (i) => redis[method](...list[i % DISTINCT])
      out[kind] = impl === 'ioredis-mock' ? await measure(call) : await measure(concurrently(call), { opsPerStep: CONCURRENT })
    }
    redis.disconnect()
  } else if (impl === 'floor') {
    Object.assign(out, await floors())
  } else if (impl === 'restis-pipeline' || impl === 'socket-pipeline') {
    let executor
    if (impl === 'restis-pipeline') {
      const { MemoryExecutor } = await (await benchBuild()).import('memory')
      executor = new MemoryExecutor({ activeExpiryInterval: 0 })
    } else {
      const { SocketExecutor } = await (await benchBuild()).import('socket')
      executor = new SocketExecutor({ url: redisUrl })
      await executor.exec(['FLUSHALL'])
    }
    for (let i = 0; i < SEED.length; i += BATCH) await executor.pipeline(SEED.slice(i, i + BATCH))
    for (const kind of COMMANDS) {
      const list = commandsOf(kind)
      const batches = []
      for (let i = 0; i < list.length; i += BATCH) batches.push(list.slice(i, i + BATCH))
      out[kind] = await measure((i) => executor.pipeline(batches[i % batches.length]), { clock: 'wall', opsPerStep: BATCH })
    }
    await executor.close()
  }
  process.stdout.write(JSON.stringify(out) + '\n')
}

/** Where the floor measurements put their results, so that they are not optimised away. */
let sink

/** A binary string as a Buffer the way the memory executor makes short replies. */
function shortBytes(text) {
  const out = Buffer.allocUnsafe(text.length)
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i)
  return out
}

/**
 * What one awaited call costs at the least, in CPU ns: each piece measured alone with the loop
 * of {@link measure} (its own cost included, as in the rows it is compared with).
 */
async function floors() {
  const keys = Array.from({ length: DISTINCT }, (_, k) => `key:${k}`)
  const map = new Map(keys.map((key) => [key, `value:${key}`]))
  // Other string objects with the same text, as a caller's arguments are.
  const lookups = keys.map((key) => `${key.slice(0, 4)}${key.slice(4)}`)
  const values = keys.map((_, k) => `value:${k}`)
  const bytes = Buffer.from('value:1234')
  const ns = (opsPerSecond) => 1e9 / opsPerSecond
  return {
    'await of a promise resolved with a number': ns(await measure((i) => Promise.resolve(i))),
    'await of a promise resolved with a Buffer': ns(await measure(() => Promise.resolve(bytes))),
    'Map.get, 10,000 string keys': ns(await measure((i) => (sink = map.get(lookups[i % DISTINCT])), { sync: true })),
    'a 10-byte Buffer from a binary string': ns(await measure((i) => (sink = shortBytes(values[i % DISTINCT])), { sync: true })),
  }
}

function runChild(impl, redisUrl) {
  const args = [fileURLToPath(import.meta.url), '--child', impl]
  if (redisUrl) args.push(redisUrl)
  const result = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 300_000, maxBuffer: 1 << 20 })
  if (result.status !== 0) throw new Error(`engine child ${impl} failed: ${result.stderr || result.error}`)
  return JSON.parse(result.stdout.trim().split('\n').pop())
}

if (process.argv[2] === '--child') {
  await child(process.argv[3], process.argv[4])
} else {
  await main('bench:engine', async () => {
    await benchBuild()
    const missing = ensureTools(['redis-server'])
    const redis = missing.length === 0 ? await startRedis() : undefined
    const impls = [
      'restis',
      'ioredis-mock',
      'restis-sync',
      'restis-concurrent',
      'ioredis-mock-concurrent',
      'restis-pipeline',
      ...(redis ? ['socket-pipeline'] : []),
    ]
    const runs = Object.fromEntries(impls.map((impl) => [impl, []]))
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < impls.length; i++) {
        const impl = impls[(i + round) % impls.length]
        runs[impl].push(runChild(impl, redis?.url))
        console.error(`  round ${round + 1}: ${impl}: ${COMMANDS.map((k) => `${k} ${fmt(runs[impl].at(-1)[k])}`).join(', ')}`)
      }
    }
    await redis?.stop()
    // The floors vary little between runs: one child, after the rounds.
    runs.floor = [runChild('floor')]
    const med = (impl, kind) => median(runs[impl].map((r) => r[kind]))
    const results = Object.fromEntries([...impls, 'floor'].map((impl) => [impl, Object.fromEntries(Object.keys(runs[impl][0]).map((k) => [k, med(impl, k)]))]))

    const mockRows = COMMANDS.map((k) => [
      k,
      fmt(results.restis[k]),
      fmt(results['ioredis-mock'][k]),
      ratio(results.restis[k], results['ioredis-mock'][k]),
      results.restis[k] >= 10 * results['ioredis-mock'][k] ? 'met' : 'missed',
      fmt(results['restis-sync'][k]),
    ])
    const concurrentRows = COMMANDS.map((k) => [
      k,
      fmt(results['restis-concurrent'][k]),
      fmt(results['ioredis-mock-concurrent'][k]),
      ratio(results['restis-concurrent'][k], results['ioredis-mock-concurrent'][k]),
    ])
    const floorRows = Object.entries(results.floor).map(([what, ns]) => [what, fmt(ns, 1)])
    const socketRows = COMMANDS.map((k) => [
      k,
      fmt(results['restis-pipeline'][k]),
      redis ? fmt(results['socket-pipeline'][k]) : 'n/a (no redis-server)',
      redis ? ratio(results['restis-pipeline'][k], results['socket-pipeline'][k]) : 'n/a',
    ])
    const markdown = [
      table(['command', 'restis exec() ops/CPU-s', 'ioredis-mock ops/CPU-s', 'ratio', 'target ≥ 10x', 'restis execSync() ops/CPU-s'], mockRows),
      '',
      table([`command (${CONCURRENT} calls at once, one Promise.all)`, 'restis exec() ops/CPU-s', 'ioredis-mock ops/CPU-s', 'ratio'], concurrentRows),
      '',
      table(['the least one awaited call costs', 'CPU ns'], floorRows),
      '',
      table([`command (pipelines of ${BATCH})`, 'MemoryExecutor ops/s', 'redis-server via SocketExecutor ops/s', 'ratio'], socketRows),
    ].join('\n')
    console.log(`\nEngine: median of ${ROUNDS} interleaved rounds, each implementation in a child process of its own\n`)
    console.log(markdown)
    const file = saveResults('engine', { rounds: ROUNDS, seconds: SECONDS, batch: BATCH, runs, results, markdown })
    console.log(`\nresults: ${file}`)
  })
}
