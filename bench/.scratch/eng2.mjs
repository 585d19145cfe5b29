// usage: eng2.mjs KIND -> prints median ns/op (CPU) of execSync
import { MemoryExecutor } from '../../src/executor/memory/index.ts'
import { cpuNow, median } from '../lib.mjs'
const kind = process.argv[2] ?? 'SET'
const ex = new MemoryExecutor({ activeExpiryInterval: 0 })
const N = 10000
const make = (k) => ({
  SET: ['SET', `key:${k}`, `value:${k}`], GET: ['GET', `key:${k}`], INCR: ['INCR', `counter:${k % 1000}`],
  HSET: ['HSET', `hash:${k % 1000}`, `field:${k % 100}`, `value:${k}`], LPUSH: ['LPUSH', `list:${k % 1000}`, `value:${k}`],
  SADD: ['SADD', `set:${k % 1000}`, `member:${k}`], ZADD: ['ZADD', `zset:${k % 1000}`, String(k), `member:${k}`],
  INCRBY: ['INCRBY', `counter:${k % 1000}`, '3'],
})[kind]
const cmds = Array.from({ length: N }, (_, k) => make(k))
for (let k = 0; k < N; k++) ex.execSync(['SET', `key:${k}`, `value:${k}`])
const res = []
for (let r = 0; r < 7; r++) {
  const t = cpuNow()
  const M = 5e5
  for (let i = 0; i < M; i++) ex.execSync(cmds[i % N])
  res.push((cpuNow() - t) / M)
}
console.log(median(res.slice(2)).toFixed(0))
