/**
 * Persistence figures: load time of one `dump.rdb` by restis and by redis-server.
 *
 * The file: redis-server 7.0 writes it (`DEBUG POPULATE <keys>`: `key:N` → `value:N`, then
 * `SAVE`), so both sides load the very same bytes.
 * - redis-server: started with `--dir` on that file; the time is what it logs as
 *   "DB loaded from disk: <s> seconds" (the load alone, not the process start).
 * - restis: a fresh child process per round calls `loadRdbFile` (read, parse, checksum, build the
 *   keyspace) into a new engine and reports the wall time of that call.
 * Median of BENCH_ROUNDS rounds each. Env: BENCH_KEYS (default 1000000), BENCH_ROUNDS (default 3).
 *
 * Run: npm run bench:persistence
 */

import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { benchBuild, ensureTools, fmt, freePort, main, median, ratio, saveResults, startChild, table, waitForPort } from './lib.mjs'

const KEYS = Number(process.env.BENCH_KEYS ?? 1_000_000)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)

/** One restis load in this (fresh) process: prints `{ ms, keys }`. */
async function child(file) {
  const { MemoryExecutor } = await (await benchBuild()).import('memory')
  const { loadRdbFile } = await (await benchBuild()).import('persistence')
  // The package exports the executor, not the engine class: its engine, without persistence.
  const { engine } = new MemoryExecutor({ activeExpiryInterval: 0 })
  const started = performance.now()
  const result = loadRdbFile(file, engine)
  const ms = performance.now() - started
  if (result.keys !== KEYS) throw new Error(`loaded ${result.keys} keys, expected ${KEYS}`)
  process.stdout.write(JSON.stringify({ ms, keys: result.keys }) + '\n')
}

/** A redis-server on `dir`; resolves once it accepts connections, with its log. */
async function redisOn(dir, extra = []) {
  const port = await freePort()
  const proc = startChild('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, ...extra])
  await waitForPort(port, 120_000)
  return { ...proc, port }
}

/** redis-server writes the file: DEBUG POPULATE, then SAVE. */
async function writeDataset(dir) {
  const server = await redisOn(dir, ['--enable-debug-command', 'yes'])
  try {
    const { SocketExecutor } = await (await benchBuild()).import('socket')
    const executor = new SocketExecutor({ url: `redis://127.0.0.1:${server.port}` })
    await executor.exec(['DEBUG', 'POPULATE', String(KEYS)])
    await executor.exec(['SAVE'])
    await executor.close()
  } finally {
    await server.stop()
  }
}

/** Seconds redis-server took to load the file, from its log. */
async function redisLoadMs(dir) {
  const server = await redisOn(dir)
  try {
    // The port opens before the load ends: wait for the log line itself.
    const pattern = /DB loaded from disk: ([0-9.]+) seconds/
    const match = await new Promise((resolve, reject) => {
      const check = () => {
        const found = pattern.exec(server.log())
        if (found !== null) resolve(found)
      }
      server.child.stdout.on('data', check)
      server.exited.then(() => reject(new Error(`redis-server exited before reporting its load:\n${server.log()}`)))
      check()
    })
    return Number(match[1]) * 1000
  } finally {
    await server.stop()
  }
}

function restisLoadMs(file) {
  const result = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', file], {
    encoding: 'utf8',
    timeout: 300_000,
    env: { ...process.env, BENCH_KEYS: String(KEYS) },
  })
  if (result.status !== 0) throw new Error(`restis load failed: ${result.stderr || result.error}`)
  return JSON.parse(result.stdout.trim().split('\n').pop()).ms
}

if (process.argv[2] === '--child') {
  await child(process.argv[3])
} else {
  await main('bench:persistence', async () => {
    const missing = ensureTools(['redis-server'])
    if (missing.length > 0) throw new Error(`needs ${missing.join(', ')}`)
    await benchBuild()
    const dir = mkdtempSync(path.join(tmpdir(), 'restis-bench-rdb-'))
    try {
      await writeDataset(dir)
      const file = path.join(dir, 'dump.rdb')
      const redis = []
      const restis = []
      for (let round = 0; round < ROUNDS; round++) {
        redis.push(await redisLoadMs(dir))
        restis.push(restisLoadMs(file))
      }
      const redisMs = median(redis)
      const restisMs = median(restis)
      const rows = [
        ['restis loadRdbFile', fmt(restisMs), fmt(KEYS / (restisMs / 1000)), ratio(restisMs, redisMs), restisMs <= 2 * redisMs ? 'met (≤ 2x)' : 'missed (≤ 2x)'],
        ['redis-server 7.0 (logged load time)', fmt(redisMs), fmt(KEYS / (redisMs / 1000)), '1.00x', ''],
      ]
      const size = statSync(file).size
      const markdown = table([`load ${fmt(KEYS)}-key dump.rdb (${fmt(size / 2 ** 20, 1)} MiB, DEBUG POPULATE)`, 'ms (median)', 'keys/s', 'time ratio', 'target'], rows)
      console.log('\nRDB load time\n')
      console.log(markdown)
      const saved = saveResults('persistence', { keys: KEYS, bytes: size, rounds: { redis, restis }, markdown })
      console.log(`\nresults: ${saved}`)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
}
