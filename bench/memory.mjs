/**
 * Memory per key: 1,000,000 small string keys (`key:000000` … `key:999999` → `value`) in the
 * memory engine against redis-server's `used_memory`.
 *
 * - restis: a child process run with `--expose-gc`; `process.memoryUsage()` `heapUsed` plus
 *   `external` (the access stamps live in typed arrays, outside the heap) after `global.gc()`
 *   before and after the keys are written. The keys and values arrive as bytes and
 *   go through `MemoryExecutor.execSync`, as they do from the RESP listener or the gateway, so
 *   every key and value is a string of its own (no shared or rope strings).
 * - redis-server: `INFO memory` `used_memory` after FLUSHALL and after the same SETs (pipelined
 *   through the SocketExecutor, 1,000 per batch).
 *
 * Memory is not timing: one run is enough, and the figures do not depend on machine load.
 * Env: BENCH_KEYS (default 1000000).
 *
 * Run: npm run bench:memory
 */

import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { benchBuild, ensureTools, fmt, main, ratio, saveResults, startRedis, table } from './lib.mjs'

const KEYS = Number(process.env.BENCH_KEYS ?? 1_000_000)
const key = (i) => `key:${String(i).padStart(6, '0')}`

async function child() {
  const { MemoryExecutor } = await (await benchBuild()).import('memory')
  const gc = globalThis.gc
  if (typeof gc !== 'function') throw new Error('run with --expose-gc')
  const settle = () => {
    for (let i = 0; i < 3; i++) gc()
    return process.memoryUsage()
  }
  const executor = new MemoryExecutor({ activeExpiryInterval: 0 })
  executor.execSync(['SET', 'warm', 'up'])
  executor.execSync(['DEL', 'warm'])
  const set = Buffer.from('SET')
  const before = settle()
  for (let i = 0; i < KEYS; i++) executor.execSync([set, Buffer.from(key(i)), Buffer.from('value')])
  const after = settle()
  const size = executor.execSync(['DBSIZE'])
  if (size !== KEYS) throw new Error(`DBSIZE ${size}, expected ${KEYS}`)
  process.stdout.write(
    JSON.stringify({
      heapUsed: after.heapUsed - before.heapUsed,
      external: after.external - before.external,
      rss: after.rss - before.rss,
    }) + '\n',
  )
}

async function redisUsedMemory() {
  const redis = await startRedis()
  try {
    const { SocketExecutor } = await (await benchBuild()).import('socket')
    const executor = new SocketExecutor({ url: redis.url })
    const usedMemory = async () => {
      const info = Buffer.from(await executor.exec(['INFO', 'memory'])).toString()
      return Number(/used_memory:(\d+)/.exec(info)[1])
    }
    await executor.exec(['FLUSHALL'])
    const before = await usedMemory()
    const BATCH = 1000
    for (let i = 0; i < KEYS; i += BATCH) {
      const batch = []
      for (let j = i; j < Math.min(KEYS, i + BATCH); j++) batch.push(['SET', key(j), 'value'])
      await executor.pipeline(batch)
    }
    const after = await usedMemory()
    const size = await executor.exec(['DBSIZE'])
    if (size !== KEYS) throw new Error(`redis DBSIZE ${size}, expected ${KEYS}`)
    const version = /redis_version:(\S+)/.exec(Buffer.from(await executor.exec(['INFO', 'server'])).toString())[1]
    await executor.close()
    return { usedMemory: after - before, version }
  } finally {
    await redis.stop()
  }
}

if (process.argv[2] === '--child') {
  await child()
} else {
  await main('bench:memory', async () => {
    await benchBuild()
    const result = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--child'], {
      encoding: 'utf8',
      timeout: 300_000,
      env: { ...process.env, BENCH_KEYS: String(KEYS) },
    })
    if (result.status !== 0) throw new Error(`memory child failed: ${result.stderr || result.error}`)
    const restis = JSON.parse(result.stdout.trim().split('\n').pop())
    const missing = ensureTools(['redis-server'])
    const redis = missing.length === 0 ? await redisUsedMemory() : undefined
    const held = restis.heapUsed + restis.external
    const perKey = held / KEYS
    const redisPerKey = redis ? redis.usedMemory / KEYS : NaN
    const rows = [
      ['restis MemoryExecutor (V8 heapUsed + external delta)', fmt(held / 2 ** 20, 1), fmt(perKey, 1), ratio(perKey, redisPerKey), perKey <= 2 * redisPerKey ? 'met (≤ 2x)' : 'missed (≤ 2x)'],
      [`redis-server ${redis?.version ?? 'n/a'} (used_memory delta)`, redis ? fmt(redis.usedMemory / 2 ** 20, 1) : 'n/a', fmt(redisPerKey, 1), '1.00x', ''],
    ]
    const markdown = table([`${fmt(KEYS)} keys (key:000000 → value)`, 'MiB', 'bytes per key', 'ratio', 'target'], rows)
    console.log(`\nMemory per key\n`)
    console.log(markdown)
    const file = saveResults('memory', { keys: KEYS, restis, redis, markdown })
    console.log(`\nresults: ${file}`)
  })
}
