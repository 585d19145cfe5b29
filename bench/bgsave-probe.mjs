/**
 * The longest event-loop stall while BGSAVE of KEYS keys (default 1M) runs in this process, with a GET
 * per turn as a client would send. Run with --trace-gc to see the collections during the save: turns
 * longer than STALL_MS (default 50) are listed with their start, in ms since the process started,
 * the clock of --trace-gc's lines.
 *
 * Run: node --trace-gc-nvp bench/bgsave-probe.mjs
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { benchBuild } from './lib.mjs'
const N = Number(process.env.KEYS ?? 1_000_000)
/** Turns longer than this are listed with their start (ms since the process started). */
const STALL_MS = Number(process.env.STALL_MS ?? 50)
const { MemoryExecutor } = await (await benchBuild()).import('memory')
const dir = mkdtempSync(path.join(tmpdir(), 'probe-'))
const ex = new MemoryExecutor({ persistence: { dir, save: '' }, activeExpiryInterval: 0 })
const e = ex.engine, s = e.createSession()
for (let i = 0; i < N; i++) e.call(s, ['SET', `key:${i}`, `value:${i}`])
globalThis.gc?.()
const gaps = []
const stalls = []
let saving = true, last = performance.now()
const t0 = performance.now()
console.log(String(e.call(s, ['BGSAVE'])))
const done = e.rdb.whenIdle().then(() => { saving = false })
await new Promise((resolve) => {
  const tick = () => {
    const now = performance.now(); gaps.push(now - last)
    // Stalls worth a look, timed from the process's start as --trace-gc's lines are.
    if (now - last > STALL_MS) stalls.push(`${last.toFixed(0)}+${(now - last).toFixed(0)} ms`)
    last = now
    // a GET per turn, as a client would send
    e.call(s, ['GET', `key:${Math.floor(Math.random() * N)}`])
    if (saving) setImmediate(tick); else resolve()
  }
  setImmediate(tick)
})
await done
gaps.sort((a, b) => a - b)
const p = (q) => gaps[Math.min(gaps.length - 1, Math.floor(q * gaps.length))].toFixed(2)
console.log(`keys ${N} save ${(performance.now() - t0).toFixed(0)} ms turns ${gaps.length} p50 ${p(0.5)} p99 ${p(0.99)} max ${gaps[gaps.length - 1].toFixed(2)} ms; worst 5: ${gaps.slice(-5).map((g) => g.toFixed(1)).join(' ')}`)
console.log(`turns over ${STALL_MS} ms (start+length): ${stalls.join(', ') || 'none'}`)
await ex.close(); rmSync(dir, { recursive: true, force: true })
