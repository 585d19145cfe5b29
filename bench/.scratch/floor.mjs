import Benchmark from 'benchmark'
import { useCpuClock } from '../lib.mjs'
import { NEED_MORE, RespDecoder } from '../../src/resp/index.ts'
import { createRequire } from 'node:module'
const require = createRequire(import.meta.url)
const RedisParser = require('redis-parser')
useCpuClock()
const which = process.argv[2]
const chunks = [Buffer.from(':1234567\r\n')]
let sink = 0
let feed
if (which === 'fake') {
  class Fake { constructor() { this.chunks = []; this.buffered = 0 } push(c) { this.chunks.push(c); this.buffered += c.length } next() { if (this.chunks.length === 0) return NEED_MORE; this.chunks.pop(); return 1234567 } }
  const d = new Fake()
  feed = (chunks) => { let n = 0; for (let i = 0; i < chunks.length; i++) { d.push(chunks[i]); while (d.next() !== NEED_MORE) n++ } return n }
} else if (which === 'restis') {
  const d = new RespDecoder()
  feed = (chunks) => { let n = 0; for (let i = 0; i < chunks.length; i++) { d.push(chunks[i]); while (d.next() !== NEED_MORE) n++ } return n }
} else {
  let n = 0
  const parser = new RedisParser({ returnBuffers: true, returnReply: () => n++, returnError: () => n++ })
  feed = (chunks) => { n = 0; for (let i = 0; i < chunks.length; i++) parser.execute(chunks[i]); return n }
}
const res = []
for (let r = 0; r < 3; r++) {
  const bench = new Benchmark('x', () => { sink += feed(chunks) }, { maxTime: 0.5 })
  bench.run({ async: false })
  res.push(Math.round(1e9 / bench.hz))
}
console.log(which, res.join(' '), 'ns/op')
