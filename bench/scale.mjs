/**
 * One database past V8's 2^24 keys per Map: SCALE_KEYS (default 30,000,000) SETs of `k<n>` → `v`,
 * through the engine in-process, then DBSIZE, GETs of the first and last keys, and RSS.
 * Bounded: it stops with an error past SCALE_SECONDS (default 600).
 *
 * Run: node --max-old-space-size=8192 bench/scale.mjs
 */
import { benchBuild } from './lib.mjs'

const KEYS = Number(process.env.SCALE_KEYS ?? 30_000_000)
const LIMIT_S = Number(process.env.SCALE_SECONDS ?? 600)
const build = await benchBuild()
const { MemoryExecutor } = await build.import('memory')
const executor = new MemoryExecutor({ activeExpiryInterval: 0 })
const engine = executor.engine
const session = engine.createSession()
const started = process.hrtime.bigint()
const elapsed = () => Number(process.hrtime.bigint() - started) / 1e9
for (let i = 0; i < KEYS; i++) {
  engine.call(session, ['SET', `k${i}`, 'v'])
  if ((i & 0xfffff) === 0 && elapsed() > LIMIT_S) throw new Error(`stopped after ${LIMIT_S} s at ${i} keys`)
}
const loaded = elapsed()
const dbsize = engine.call(session, ['DBSIZE'])
const first = engine.call(session, ['GET', 'k0'])
const last = engine.call(session, ['GET', `k${KEYS - 1}`])
const t = process.hrtime.bigint()
for (let i = 0; i < 1_000_000; i++) engine.call(session, ['GET', `k${(i * 29) % KEYS}`])
const getNs = Number(process.hrtime.bigint() - t) / 1e6
const rss = process.memoryUsage.rss() / 1024 ** 3
console.log(`${KEYS} keys in one database: loaded in ${loaded.toFixed(1)} s, DBSIZE ${dbsize}, GET k0=${first} last=${last}`)
console.log(`1M GETs across the keyspace: ${getNs.toFixed(0)} ns/op; RSS ${rss.toFixed(2)} GiB; segments ${engine.databases[0].data.segmentCount}`)
executor.close()
