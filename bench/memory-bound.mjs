/**
 * The memory bound: RSS and used_memory after writing 10x maxmemory with allkeys-lru, through the
 * in-memory engine in this process (no network: the figure is the engine's own).
 * Env: BOUND_MB (maxmemory in MB, default 100), BOUND_VALUE (bytes per value, default 1000),
 * BOUND_WRITTEN (how many times maxmemory is written, default 10), BOUND_V8_FLAGS (V8 flags set at run time before the engine starts, for experiments).
 * The last lines break the RSS down: V8's spaces (committed), external memory, and what an empty
 * process of this script held before the engine started (its baseline).
 *
 * Run: node bench/memory-bound.mjs
 */
import v8 from 'node:v8'
import { benchBuild, saveResults } from './lib.mjs'

const MB = 1024 * 1024
const limitMb = Number(process.env.BOUND_MB ?? 100)
const valueBytes = Number(process.env.BOUND_VALUE ?? 1000)

const build = await benchBuild()
const { MemoryExecutor } = await build.import('memory')
if (process.env.BOUND_V8_FLAGS) v8.setFlagsFromString(process.env.BOUND_V8_FLAGS)
const baselineRss = process.memoryUsage.rss()
const executor = new MemoryExecutor({ maxmemory: limitMb * MB, maxmemoryPolicy: 'allkeys-lru', activeExpiryInterval: 0 })
const engine = executor.engine
const session = engine.createSession()
const scratch = Buffer.alloc(valueBytes, 'x')
const total = Number(process.env.BOUND_WRITTEN ?? 10) * limitMb * MB
const keys = Math.ceil(total / valueBytes)
const started = process.hrtime.bigint()
const cpuStarted = process.cpuUsage()
let maxRss = 0
for (let i = 0; i < keys; i++) {
  // A fresh flat string per value, as values decoded off the wire are (a concatenation would
  // share one buffer between every value and measure nothing).
  scratch.write(String(i).padStart(8, '0'), 0, 'latin1')
  const reply = engine.call(session, ['SET', `key:${i}`, scratch.toString('latin1')])
  if (typeof reply === 'object' && reply !== null && 'message' in reply) throw new Error(`SET refused: ${reply.message}`)
  if ((i & 0xffff) === 0) maxRss = Math.max(maxRss, process.memoryUsage.rss())
}
const seconds = Number(process.hrtime.bigint() - started) / 1e9
const cpu = process.cpuUsage(cpuStarted)
const cpuSeconds = (cpu.user + cpu.system) / 1e6
globalThis.gc?.()
const rss = process.memoryUsage.rss()
maxRss = Math.max(maxRss, rss)
const info = String(engine.call(session, ['INFO', 'memory'])) + String(engine.call(session, ['INFO', 'stats']))
const field = (name) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)[1])
const used = field('used_memory')
const heap = process.memoryUsage().heapUsed
console.log(`maxmemory ${limitMb} MB, allkeys-lru, wrote ${keys} keys x ${valueBytes} B = ${(total / MB).toFixed(0)} MB in ${seconds.toFixed(1)} s, ${cpuSeconds.toFixed(1)} s of CPU (${Math.round(keys / cpuSeconds)} SETs per CPU-second)`)
console.log(`keys kept ${engine.call(session, ['DBSIZE'])}, evicted_keys ${field('evicted_keys')}`)
console.log(`used_memory ${(used / MB).toFixed(1)} MB (${(used / (limitMb * MB)).toFixed(2)}x maxmemory), heapUsed ${(heap / MB).toFixed(1)} MB`)
console.log(`RSS ${(rss / MB).toFixed(1)} MB at the end (${(rss / (limitMb * MB)).toFixed(2)}x maxmemory), peak sampled ${(maxRss / MB).toFixed(1)} MB (${(maxRss / (limitMb * MB)).toFixed(2)}x)`)
const usage = process.memoryUsage()
const spaces = v8.getHeapSpaceStatistics().map((space) => `${space.space_name.replace(/_space$/, '')} ${(space.space_size / MB).toFixed(0)}`).join(', ')
console.log(`baseline RSS ${(baselineRss / MB).toFixed(1)} MB; RSS - baseline ${((rss - baselineRss) / (limitMb * MB)).toFixed(2)}x maxmemory`)
console.log(`heapTotal ${(usage.heapTotal / MB).toFixed(0)} MB (${spaces}), external ${(usage.external / MB).toFixed(0)} MB, arrayBuffers ${(usage.arrayBuffers / MB).toFixed(0)} MB`)
saveResults('memory-bound', {
  maxmemory: limitMb * MB, valueBytes, sets: keys, cpuSeconds, keysKept: Number(engine.call(session, ['DBSIZE'])),
  usedMemory: used, rss, maxRss, baselineRss, rssOverBaselinePerMaxmemory: (rss - baselineRss) / (limitMb * MB),
})
executor.close()
