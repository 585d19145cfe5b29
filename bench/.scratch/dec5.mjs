import Benchmark from 'benchmark'
import { NEED_MORE, RespDecoder } from '../../src/resp/index.ts'
const d = new RespDecoder()
const chunks = [Buffer.from(':1234567\r\n')]
let sink = 0
const feed = (chunks) => { let n = 0; for (let i = 0; i < chunks.length; i++) { d.push(chunks[i]); while (d.next() !== NEED_MORE) n++ } return n }
for (let r = 0; r < 3; r++) {
  const bench = new Benchmark('x', () => { sink += feed(chunks) }, { maxTime: 1 })
  bench.run({ async: false })
  console.log(Math.round(bench.hz))
}
