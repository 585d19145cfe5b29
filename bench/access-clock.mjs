/**
 * What the per-key access clock costs GET and SET: the engine called directly (`engine.call`),
 * with the clock on (an LRU policy) and with the policy given in BENCH_CLOCK_BASE (default
 * `noeviction`), on a keyspace of BENCH_CLOCK_KEYS keys (default 1,000,000: misses in the CPU
 * caches, as a real dataset has), ops per CPU-second. Each (policy, round) runs in a child of its
 * own, rounds interleaved, medians reported; no maxmemory is set, so only the clock differs.
 * BENCH_CLOCK_V8_FLAGS: V8 flags the second kind of child sets at run time instead of switching
 * the policy (an A/B of heap flags on the same hot path, e.g. those `heap-growth.ts` sets).
 *
 * Run: node bench/access-clock.mjs
 */
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { benchBuild, cpuNow, fmt, median, ratio } from './lib.mjs'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const KEYS = Number(process.env.BENCH_CLOCK_KEYS ?? 1_000_000)
const OPS = Number(process.env.BENCH_CLOCK_OPS ?? 2_000_000)
const BASE = process.env.BENCH_CLOCK_BASE ?? 'noeviction'
const V8_FLAGS = process.env.BENCH_CLOCK_V8_FLAGS
const POLICIES = [BASE, V8_FLAGS ? `${BASE} + ${V8_FLAGS}` : 'allkeys-lru']

async function child(variant) {
  const { MemoryExecutor } = await (await benchBuild()).import('memory')
  const policy = variant.split(' + ')[0]
  if (variant !== policy) (await import('node:v8')).setFlagsFromString(V8_FLAGS)
  const executor = new MemoryExecutor({ maxmemoryPolicy: policy, activeExpiryInterval: 0 })
  const engine = executor.engine
  const session = engine.createSession()
  const names = Array.from({ length: KEYS }, (_, i) => `key:${i}`)
  for (const key of names) engine.call(session, ['SET', key, `value:${key}`])
  // A pseudo-random walk over the keys, fixed so every child does the same work.
  const order = new Uint32Array(OPS)
  let seed = 12345
  for (let i = 0; i < OPS; i++) order[i] = (seed = (seed * 1103515245 + 12345) >>> 0) % KEYS
  const result = {}
  for (const kind of ['GET', 'SET']) {
    const started = cpuNow()
    for (let i = 0; i < OPS; i++) {
      // Fresh argument strings per call, as decoded off the wire (no cached hash).
      const key = 'key:' + order[i]
      engine.call(session, kind === 'GET' ? ['GET', key] : ['SET', key, 'value:' + i])
    }
    result[kind] = OPS / ((cpuNow() - started) / 1e9)
  }
  executor.close()
  process.stdout.write(JSON.stringify(result))
}

function parent() {
  const runs = Object.fromEntries(POLICIES.map((policy) => [policy, { GET: [], SET: [] }]))
  for (let round = 0; round < ROUNDS; round++) {
    for (const policy of POLICIES) {
      const out = spawnSync(process.execPath, [fileURLToPath(import.meta.url)], {
        env: { ...process.env, BENCH_CLOCK_CHILD: policy },
        encoding: 'utf8',
      })
      if (out.status !== 0) throw new Error(out.stderr)
      const figures = JSON.parse(out.stdout)
      runs[policy].GET.push(figures.GET)
      runs[policy].SET.push(figures.SET)
    }
  }
  console.log(`${fmt(KEYS)} keys, ${fmt(OPS)} ops per command, median of ${ROUNDS} rounds, ops per CPU-second`)
  for (const kind of ['GET', 'SET']) {
    const base = median(runs[BASE][kind])
    const other = median(runs[POLICIES[1]][kind])
    console.log(`${kind}: ${BASE} ${fmt(base)}, ${POLICIES[1]} ${fmt(other)} (${ratio(other, base)})`)
  }
}

if (process.env.BENCH_CLOCK_CHILD) await child(process.env.BENCH_CLOCK_CHILD)
else {
  await benchBuild()
  parent()
}
