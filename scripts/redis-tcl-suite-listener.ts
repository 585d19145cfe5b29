/**
 * The RESP listener over the in-memory engine, nothing persisted and no password, on a free
 * loopback port: what `redis-tcl-suite.mjs` runs Redis's tcl suite against (the suite of 7.0
 * cannot AUTH, and the CLI's listener always asks for the token). Prints `port <n>` once
 * listening; stops on SIGTERM or when stdin closes.
 */
import { MemoryExecutor } from '../src/executor/memory/memory-executor.js'
import { serveResp } from '../src/adapters/resp-server.js'

const executor = new MemoryExecutor()
const server = await serveResp(executor, { port: 0, host: '127.0.0.1' })
process.stdout.write(`port ${server.address.port}\n`)

let stopping = false
async function stop(): Promise<void> {
  if (stopping) return
  stopping = true
  await server.close()
  await executor.close()
  process.exit(0)
}
process.on('SIGTERM', () => void stop())
process.stdin.on('end', () => void stop())
process.stdin.resume()
