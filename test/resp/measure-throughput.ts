/**
 * Throughput of the RESP codec, with naive baselines for comparison. Not a test: run it by hand,
 * `npx tsx test/resp/measure-throughput.ts`, and read the numbers.
 */
import {
  encodeCommand,
  encodeCommands,
  encodeReply,
  NEED_MORE,
  OK,
  RequestDecoder,
  RespDecoder,
  type Command,
  type Reply,
} from '../../src/resp/index.js'

/** `itemsPerOp`: replies or commands handled by one call, so decode lines read as items per second. */
function measure(name: string, bytesPerOp: number, op: () => unknown, itemsPerOp = 1): void {
  const run = (n: number): number => {
    const start = process.hrtime.bigint()
    for (let i = 0; i < n; i++) op()
    return Number(process.hrtime.bigint() - start) / 1e9
  }
  let n = 1
  while (run(n) < 0.05) n *= 2 // warm up and size the run to ~0.5 s
  const seconds = run(n * 10)
  const perSecond = (n * 10) / seconds
  const mb = `${((perSecond * bytesPerOp) / 1e6).toFixed(0).padStart(6)} MB/s`
  const items = `${((perSecond * itemsPerOp) / 1e6).toFixed(2).padStart(7)} M ${itemsPerOp === 1 ? 'ops' : 'items'}/s`
  console.log(`${name.padEnd(58)} ${items} ${mb}`)
}

/** What an encoder without the measuring pass looks like: one string, one conversion. */
function naiveEncodeStrings(command: readonly string[]): Buffer {
  let s = `*${command.length}\r\n`
  for (const arg of command) s += `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`
  return Buffer.from(s)
}

/** The other common shape: a small Buffer per piece, then concat. */
function naiveEncodeConcat(command: Command): Buffer {
  const parts: Uint8Array[] = [Buffer.from(`*${command.length}\r\n`)]
  for (const arg of command) {
    const bytes = typeof arg === 'string' ? Buffer.from(arg) : arg
    parts.push(Buffer.from(`$${bytes.length}\r\n`), bytes, Buffer.from('\r\n'))
  }
  return Buffer.concat(parts)
}

function decodeAll(decoder: RespDecoder | RequestDecoder, chunks: readonly Buffer[]): number {
  let count = 0
  for (const chunk of chunks) {
    decoder.push(chunk)
    while (decoder.next() !== NEED_MORE) count++
  }
  return count
}

function feedAll(decoder: RespDecoder, chunks: readonly Buffer[]): number {
  let count = 0
  const onReply = (): void => {
    count++
  }
  for (const chunk of chunks) decoder.feed(chunk, onReply)
  return count
}

function chunked(bytes: Buffer, size: number): Buffer[] {
  const out: Buffer[] = []
  for (let at = 0; at < bytes.length; at += size) out.push(bytes.subarray(at, at + size))
  return out
}

console.log(`Node ${process.version}\n\nencode`)
const set: string[] = ['SET', 'user:1000:name', 'some value of 24 bytes..']
measure('encodeCommand SET k v (strings)', encodeCommand(set).length, () => encodeCommand(set))
measure('  baseline: string concat + Buffer.from', encodeCommand(set).length, () => naiveEncodeStrings(set))
measure('  baseline: Buffer per piece + Buffer.concat', encodeCommand(set).length, () => naiveEncodeConcat(set))
const setBin: Command = ['SET', 'user:1000:blob', Buffer.alloc(1024, 1)]
measure('encodeCommand SET k <1 KiB Buffer>', encodeCommand(setBin).length, () => encodeCommand(setBin))
measure('  baseline: Buffer per piece + Buffer.concat', encodeCommand(setBin).length, () => naiveEncodeConcat(setBin))
const pipeline: Command[] = Array.from({ length: 100 }, (_, i) => ['GET', `key:${i}`])
measure('encodeCommands 100 x GET (one pipeline)', encodeCommands(pipeline).length, () => encodeCommands(pipeline))
const lrange: Reply = Array.from({ length: 100 }, (_, i) => Buffer.from(`element-${i}`))
measure('encodeReply array of 100 small bulks', encodeReply(lrange).length, () => encodeReply(lrange))
measure('encodeReply OK', 5, () => encodeReply(OK))
measure('encodeReply integer', 8, () => encodeReply(123456))

console.log('\ndecode (64 KiB chunks)')
const mixed = Buffer.concat(
  Array.from({ length: 10_000 }, (_, i) =>
    encodeReply(i % 3 === 0 ? OK : i % 3 === 1 ? i : Buffer.from(`value-${i}-padding-to-32-bytes!`)),
  ),
)
const mixedChunks = chunked(mixed, 65536)
measure(
  'RespDecoder 10k pipelined replies (+OK, :n, 32 B bulk)',
  mixed.length,
  () => decodeAll(new RespDecoder(), mixedChunks),
  10_000,
)
measure('  through feed', mixed.length, () => feedAll(new RespDecoder(), mixedChunks), 10_000)
const arrays = Buffer.concat(Array.from({ length: 100 }, () => encodeReply(lrange)))
const arrayChunks = chunked(arrays, 65536)
measure('RespDecoder 100 arrays of 100 small bulks', arrays.length, () => decodeAll(new RespDecoder(), arrayChunks), 100)
measure('  through feed', arrays.length, () => feedAll(new RespDecoder(), arrayChunks), 100)
const big = Buffer.concat([Buffer.from(`$${64 * 1024 * 1024}\r\n`), Buffer.alloc(64 * 1024 * 1024, 7), Buffer.from('\r\n')])
const bigChunks = chunked(big, 65536)
measure('RespDecoder one 64 MiB bulk', big.length, () => decodeAll(new RespDecoder(), bigChunks))
measure('  through feed', big.length, () => feedAll(new RespDecoder(), bigChunks))
const requests = encodeCommands(Array.from({ length: 10_000 }, (_, i) => ['SET', `key:${i}`, `value-${i}`]))
const requestChunks = chunked(requests, 65536)
measure(
  'RequestDecoder 10k pipelined SET commands',
  requests.length,
  () => decodeAll(new RequestDecoder(), requestChunks),
  10_000,
)
const inline = Buffer.from('SET key:1 "some value"\r\n'.repeat(10_000))
const inlineChunks = chunked(inline, 65536)
measure('RequestDecoder 10k inline SET commands', inline.length, () => decodeAll(new RequestDecoder(), inlineChunks), 10_000)
