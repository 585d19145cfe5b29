import { MemoryExecutor } from '../../src/executor/memory/index.ts'
import { cpuNow } from '../lib.mjs'
const kind = process.argv[2] ?? 'SET'
const ex = new MemoryExecutor({ activeExpiryInterval: 0 })
const N = 10000
const cmds = Array.from({ length: N }, (_, k) => kind === 'SET' ? ['SET', `key:${k}`, `value:${k}`] : kind === 'GET' ? ['GET', `key:${k}`] : kind === 'INCR' ? ['INCR', `counter:${k % 1000}`] : ['ZADD', `zset:${k % 1000}`, String(k), `member:${k}`])
for (let k = 0; k < N; k++) ex.execSync(['SET', `key:${k}`, `value:${k}`])
for (let r = 0; r < 5; r++) {
  const t = cpuNow()
  const M = 2e6
  for (let i = 0; i < M; i++) ex.execSync(cmds[i % N])
  console.log(kind, ((cpuNow() - t) / M).toFixed(0), 'ns/op cpu')
}
