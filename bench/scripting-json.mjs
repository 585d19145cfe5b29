/**
 * Scripting and JSON documents on the in-memory engine.
 *
 * 1. EVALSHA of a script making 3 `redis.call`s: `MemoryExecutor` against redis-server through
 *    `SocketExecutor` in the same run, one awaited call at a time (what one client sees), and
 *    pipelined batches of 100 (throughput); rounds interleaved, medians reported.
 * 2. JSON.SET and JSON.GET of a 10 kB document on `MemoryExecutor` (no local server has the JSON
 *    module, so the peer is the same document through `JSON.parse` + `JSON.stringify`, the floor
 *    of any JavaScript implementation).
 * Env: BENCH_ROUNDS (3), BENCH_SECONDS (0.5).
 *
 * Run: npm run bench:scripting
 */

import { benchBuild, fmt, main, median, ratio, saveResults, startRedis, table } from './lib.mjs'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 0.5)
const SCRIPT = "redis.call('SET', KEYS[1], ARGV[1]) redis.call('INCR', KEYS[2]) return redis.call('GET', KEYS[1])"

/** Calls `step` until SECONDS of wall time have passed (after a warm-up); ops per second. */
async function rate(step, perCall = 1) {
  for (let i = 0; i < 200; i++) await step(i)
  const started = performance.now()
  let calls = 0
  while (performance.now() - started < SECONDS * 1000) await step(calls++)
  return (calls * perCall) / ((performance.now() - started) / 1000)
}

/** A JSON document of about 10 kB: nested objects, arrays, numbers and strings. */
function document10k() {
  const items = Array.from({ length: 100 }, (_, i) => ({ id: i, name: `item-${i}`, price: i * 1.25, tags: ['a', 'b', `t${i}`], stock: { warehouse: i % 7, shelf: `s${i}` } }))
  return JSON.stringify({ store: { name: 'restis', open: true, items } })
}

await main('scripting-json', async () => {
  const { dir } = await benchBuild()
  const { MemoryExecutor } = await import(`${dir}/memory.mjs`)
  const { SocketExecutor } = await import(`${dir}/socket.mjs`)
  const redis = await startRedis()
  const memory = new MemoryExecutor()
  const socket = new SocketExecutor({ url: redis.url })
  const sha = Buffer.from(await memory.exec(['SCRIPT', 'LOAD', SCRIPT])).toString()
  await socket.exec(['SCRIPT', 'LOAD', SCRIPT])
  const evalsha = (i) => ['EVALSHA', sha, '2', `k:${i % 1000}`, `n:${i % 1000}`, `v${i}`]
  const batch = (i) => Array.from({ length: 100 }, (_, j) => evalsha(i * 100 + j))

  const single = { memory: [], socket: [] }
  const piped = { memory: [], socket: [] }
  for (let round = 0; round < ROUNDS; round++) {
    single.memory.push(await rate((i) => memory.exec(evalsha(i))))
    single.socket.push(await rate((i) => socket.exec(evalsha(i))))
    piped.memory.push(await rate((i) => memory.pipeline(batch(i)), 100))
    piped.socket.push(await rate((i) => socket.pipeline(batch(i)), 100))
  }

  const text = document10k()
  const json = { set: [], get: [], native: [] }
  for (let round = 0; round < ROUNDS; round++) {
    json.set.push(await rate(() => memory.exec(['JSON.SET', 'doc', '$', text])))
    json.get.push(await rate(() => memory.exec(['JSON.GET', 'doc'])))
    json.native.push(await rate(() => JSON.stringify(JSON.parse(text))))
  }
  await memory.close()
  await socket.close()

  const rows = [
    ['EVALSHA (3 calls), one at a time', fmt(median(single.memory)), fmt(median(single.socket)), ratio(median(single.memory), median(single.socket))],
    ['EVALSHA (3 calls), pipelined by 100', fmt(median(piped.memory)), fmt(median(piped.socket)), ratio(median(piped.memory), median(piped.socket))],
  ]
  const jsonRows = [
    [`JSON.SET $ (${text.length} bytes)`, fmt(median(json.set)), fmt(median(json.native)), ratio(median(json.set), median(json.native))],
    [`JSON.GET (${text.length} bytes)`, fmt(median(json.get)), fmt(median(json.native)), ratio(median(json.get), median(json.native))],
  ]
  console.log('\nEVALSHA, ops/s (median of ' + ROUNDS + ' interleaved rounds)\n')
  console.log(table(['row', 'restis memory', 'redis-server via socket executor', 'ratio'], rows))
  console.log('\nJSON documents, ops/s\n')
  console.log(table(['row', 'restis memory', 'JSON.parse + JSON.stringify', 'ratio'], jsonRows))
  saveResults('scripting-json', { rows, jsonRows })
})
