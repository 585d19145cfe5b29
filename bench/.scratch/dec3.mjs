import { NEED_MORE, RespDecoder } from '../../src/resp/index.ts'
import { createRequire } from 'node:module'
const require = createRequire(import.meta.url)
const RedisParser = require('redis-parser')
const which = process.argv[2] ?? 'ok'
const inputs = {
  ok: [Buffer.from('+OK\r\n')],
  int: [Buffer.from(':1234567\r\n')],
  kib: [Buffer.from('$1024\r\n' + 'x'.repeat(1024) + '\r\n')],
  arr: [Buffer.from('*100\r\n' + Array.from({length:100},(_, i)=>'$10\r\nvalue' + String(i).padStart(5,'0') + '\r\n').join(''))],
  pipe: [Buffer.from(Array.from({ length: 1000 }, (_, i) => (i % 3 === 0 ? '+OK\r\n' : i % 3 === 1 ? `:${100000 + i}\r\n` : '$10\r\nvalue' + String(i).padStart(5,'0') + '\r\n')).join(''))],
}
const chunks = inputs[which]
const d = new RespDecoder()
let n = 0
const parser = new RedisParser({ returnBuffers: true, returnReply: () => n++, returnError: () => n++ })
const iters = { ok: 2e6, int: 2e6, kib: 1e6, arr: 3e4, pipe: 3e3 }[which]
for (let r = 0; r < 5; r++) {
  let t = process.hrtime.bigint()
  for (let i = 0; i < iters; i++) for (const c of chunks) { d.push(c); while (d.next() !== NEED_MORE) n++ }
  const a = Number(process.hrtime.bigint() - t) / iters
  t = process.hrtime.bigint()
  for (let i = 0; i < iters; i++) for (const c of chunks) parser.execute(c)
  const b = Number(process.hrtime.bigint() - t) / iters
  console.log(which, 'restis', a.toFixed(0), 'ns/op  redis-parser', b.toFixed(0), 'ns/op  ratio', (b / a).toFixed(2))
}
