import Benchmark from 'benchmark'
import { NEED_MORE, RespDecoder } from '../../src/resp/index.ts'
import { createRequire } from 'node:module'
const require = createRequire(import.meta.url)
const RedisParser = require('redis-parser')
const d = new RespDecoder()
const chunks = [Buffer.from('+OK\r\n')]
let sink = 0
const feed = (chunks) => { let n = 0; for (let i = 0; i < chunks.length; i++) { d.push(chunks[i]); while (d.next() !== NEED_MORE) n++ } return n }
let n = 0
const parser = new RedisParser({ returnBuffers: true, returnReply: () => n++, returnError: () => n++ })
const feed2 = (chunks) => { n = 0; for (let i = 0; i < chunks.length; i++) parser.execute(chunks[i]); return n }
for (let r = 0; r < 2; r++) for (const [name, f] of [['restis', feed], ['parser', feed2]]) {
  const bench = new Benchmark(name, () => { sink += f(chunks) }, { maxTime: 0.5 })
  bench.run({ async: false })
  console.log(name, Math.round(bench.hz), bench.error)
}
