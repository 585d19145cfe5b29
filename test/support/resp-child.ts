/**
 * A RESP listener over the memory executor in a process of its own, for overload tests that
 * need its memory figures and a descriptor limit of their own (see `startRespChild`).
 *
 * Run with `--expose-gc` and an IPC channel; `RESP_CHILD_OPTIONS` holds the `serveResp` options
 * as JSON. Sends `{ port, maxClients }` once listening; answers `{ type: 'stats' }` with the memory after a
 * full collection (none with `collect: false`) (what is still referenced) and the peak RSS so far, and the connected clients.
 */

import { readFileSync } from 'node:fs'
import { MemoryExecutor } from '../../src/executor/memory/memory-executor.js'
import { serveResp, type RespServerOptions } from '../../src/adapters/resp-server.js'

export interface ChildStats {
  readonly clients: number
  /** Bytes, after `gc()`. */
  readonly rss: number
  readonly arrayBuffers: number
  /** Peak RSS of the process so far (VmHWM), bytes. */
  readonly peakRss: number
}

function peakRss(): number {
  const match = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'))
  return match === null ? NaN : Number(match[1]) * 1024
}

const options = JSON.parse(process.env.RESP_CHILD_OPTIONS ?? '{}') as RespServerOptions
const executor = new MemoryExecutor()
const server = await serveResp(executor, { ...options, port: 0 })
process.send!({ port: server.address.port, maxClients: server.maxClients })
process.on('message', (message: { type: string; collect?: boolean }) => {
  if (message.type !== 'stats') return
  if (message.collect !== false) (globalThis as { gc?: () => void }).gc?.()
  const memory = process.memoryUsage()
  const stats: ChildStats = { clients: server.clients, rss: memory.rss, arrayBuffers: memory.arrayBuffers, peakRss: peakRss() }
  process.send!(stats)
})
process.on('disconnect', () => {
  void server.close().then(() => process.exit(0))
})
