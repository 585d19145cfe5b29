import { NEED_MORE, RespDecoder } from '/work/main/src/resp/index.ts'
const d = new RespDecoder()
const chunk = Buffer.from('+OK\r\n')
const kib = Buffer.from('$1024\r\n' + 'x'.repeat(1024) + '\r\n')
for (const [name, c] of [['ok', chunk], ['kib', kib]]) {
  for (let r = 0; r < 3; r++) {
    const t = process.hrtime.bigint()
    let n = 0
    for (let i = 0; i < 1e6; i++) { d.push(c); while (d.next() !== NEED_MORE) n++ }
    console.log(name, Number(process.hrtime.bigint() - t) / 1e6, 'ns/op', n)
  }
}
