import { serve } from './src/workflow/index.js'
import { listenFetch, startQueue, TOKEN } from './test/queue/support.js'
const RUNS = Number(process.argv[2] ?? 300), STEPS = 5
let done = 0; let resolveAll!: () => void; const all = new Promise<void>(r => resolveAll = r)
const problems: string[] = []
const queue = await startQueue({ concurrency: Number(process.env.CONC ?? 256), backoff: () => 10, onEvent: (e) => { if (e.type === 'attempt' && e.outcome !== 'delivered') problems.push(e.error ?? String(e.status)); if (e.type === 'run' && ++done === RUNS) resolveAll() } })
const endpoint = await listenFetch(serve<{ index: number }>(async (context) => {
  let total = 0
  for (let step = 1; step <= STEPS; step++) total += await context.run(`step ${step}`, () => context.requestPayload.index * step)
  return total
}, { queueUrl: queue.url, token: TOKEN, env: {} }))
const c0 = process.cpuUsage(); const t0 = performance.now()
let next = 0
await Promise.all(Array.from({ length: 50 }, async () => { while (next < RUNS) { next++; const r = await fetch(`${endpoint.url}/workflow`, { method: 'POST', body: '{"index":1}' }); await r.text() } }))
const t1 = performance.now()
await all
const t2 = performance.now()
const cu = process.cpuUsage(c0); console.log('cpu ms', ((cu.user + cu.system) / 1000).toFixed(0)); console.log(`start ${(t1 - t0).toFixed(0)} ms, total ${(t2 - t0).toFixed(0)} ms, ${(RUNS / ((t2 - t0) / 1000)).toFixed(1)} runs/s, problems ${problems.length} ${problems.slice(0,3)}`)
await endpoint.close(); await queue.close()
