import { NEED_MORE, RespDecoder, decodeReply } from '../../src/resp/index.ts'
const which = process.argv[2] ?? 'int'
const buf = { ok: Buffer.from('+OK\r\n'), int: Buffer.from(':1234567\r\n'), kib: Buffer.from('$1024\r\n' + 'x'.repeat(1024) + '\r\n') }[which]
const d = new RespDecoder()
let n = 0
const iters = 3e6
for (let r = 0; r < 5; r++) {
  let t = process.hrtime.bigint()
  for (let i = 0; i < iters; i++) { d.push(buf); while (d.next() !== NEED_MORE) n++ }
  const a = Number(process.hrtime.bigint() - t) / iters
  t = process.hrtime.bigint()
  for (let i = 0; i < iters; i++) { const x = decodeReply(buf, 0); if (x !== NEED_MORE) n++ }
  const b = Number(process.hrtime.bigint() - t) / iters
  console.log(which, 'stream', a.toFixed(0), 'ns/op  decodeReply', b.toFixed(0))
}
