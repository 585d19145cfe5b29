/**
 * Where the time goes: runs a restis server under `node --cpu-prof` while wrk loads it, then
 * prints the top functions by self time (and the totals per source file).
 *
 *   node bench/profile.mjs [get|set|pipeline|multi-exec] [memory|socket|bare] [seconds]
 *   node bench/profile.mjs summary <file.cpuprofile>     # summarise any profile
 *
 * Not part of `npm run bench`; it is how the figures in docs/benchmarks.md were explained.
 */

import { mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { ROOT, ensureTools, httpRequest, main, runWrk, startBareNode, startRedis, startRestis } from './lib.mjs'

/** Self time by function (and by file) from a V8 .cpuprofile. */
export function summarize(file, top = 30) {
  const profile = JSON.parse(readFileSync(file, 'utf8'))
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const self = new Map()
  let total = 0
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i] ?? 0
    self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + dt)
    total += dt
  }
  const byFunction = new Map()
  const byFile = new Map()
  for (const [id, time] of self) {
    const { functionName, url, lineNumber } = byId.get(id).callFrame
    const where = url ? url.replace(/^file:\/\//, '').replace(ROOT + '/', '') : ''
    const key = `${functionName || '(anonymous)'} ${where}${where ? `:${lineNumber + 1}` : ''}`
    byFunction.set(key, (byFunction.get(key) ?? 0) + time)
    const fileKey = where.includes('node_modules') ? where.split('node_modules/')[1].split('/')[0] : where || functionName
    byFile.set(fileKey, (byFile.get(fileKey) ?? 0) + time)
  }
  const pct = (t) => ((100 * t) / total).toFixed(1).padStart(5) + '%'
  console.log(`\n${file}: ${(total / 1e6).toFixed(1)} s sampled\n\ntop functions by self time:`)
  for (const [key, time] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(time)}  ${key}`)
  // Inclusive time (the function and everything it called) of the functions that are not idle or GC.
  const children = new Map(profile.nodes.map((n) => [n.id, n.children ?? []]))
  const inclusive = new Map()
  const walk = (id, open) => {
    const node = byId.get(id)
    const name = node.callFrame.functionName || '(anonymous)'
    let time = self.get(id) ?? 0
    const nested = open.has(name)
    if (!nested) open.add(name)
    for (const child of children.get(id)) time += walk(child, open)
    if (!nested) {
      open.delete(name)
      const where = node.callFrame.url ? node.callFrame.url.replace(/^file:\/\//, '').replace(ROOT + '/', '') : ''
      const key = `${name} ${where}${where ? `:${node.callFrame.lineNumber + 1}` : ''}`
      inclusive.set(key, (inclusive.get(key) ?? 0) + time)
    }
    return time
  }
  walk(profile.nodes[0].id, new Set())
  console.log('\ntop functions by inclusive time:')
  for (const [key, time] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(time)}  ${key}`)
  console.log('\nself time by file:')
  for (const [key, time] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(`${pct(time)}  ${key}`)
}

/** Run as a script, not imported for {@link summarize} (bench/resp-cpu.mjs does). */
const isEntry = import.meta.url === pathToFileURL(process.argv[1] ?? '').href

if (isEntry && process.argv[2] === 'summary') {
  summarize(process.argv[3], Number(process.argv[4] ?? 40))
} else if (isEntry) {
  const kind = process.argv[2] ?? 'get'
  const executor = process.argv[3] ?? 'memory'
  const seconds = Number(process.argv[4] ?? 8)
  await main('bench:profile', async () => {
    ensureTools(['wrk', 'redis-server'])
    const dir = mkdtempSync(path.join(os.tmpdir(), 'restis-prof-'))
    const redis = executor === 'socket' ? await startRedis() : undefined
    const nodeArgs = ['--cpu-prof', `--cpu-prof-dir=${dir}`]
    const server = executor === 'bare' ? await startBareNode({ nodeArgs }) : await startRestis({ redis: redis?.url, nodeArgs })
    const headers = { authorization: `Bearer ${server.token}` }
    await httpRequest(`${server.url}/set/foo/bar`, { headers })
    const wrk = {
      get: { url: `${server.url}/get/foo`, script: 'auth.lua' },
      set: { url: `${server.url}/set/foo/bar`, script: 'auth.lua' },
      pipeline: { url: `${server.url}/`, script: 'pipeline.lua' },
      'multi-exec': { url: `${server.url}/`, script: 'multi-exec.lua' },
    }[kind]
    const result = await runWrk({ ...wrk, env: { TOKEN: server.token }, connections: 50, threads: 1, seconds })
    console.log(`${kind} on ${executor}: ${Math.round(result.rps)} req/s`)
    await server.stop()
    await redis?.stop()
    const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))
    if (!file) throw new Error(`no profile written in ${dir}`)
    summarize(path.join(dir, file))
  })
}
