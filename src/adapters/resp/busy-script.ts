/**
 * The RESP listener's side of scripts past `busy-reply-threshold` (see
 * `src/executor/memory/commands/scripting/busy.ts`): while the memory engine runs a script, the
 * event loop is stopped, so this module reads the other connections' input itself, synchronously,
 * and answers it as Redis does: `BUSY` for most commands, `SCRIPT KILL` / `FUNCTION KILL` at once.
 *
 * Only connections that owe nothing (no reply pending or unsent, nothing running or held) are
 * served, so that a reply written now cannot overtake an earlier one. Their socket is read with
 * `read(2)` on its descriptor (non-blocking, as libuv keeps it; libuv does not read while the
 * script holds the thread). TLS connections cannot be read that way: their commands wait for the
 * script's end, as every command did before.
 */
import { readSync } from 'node:fs'
import type net from 'node:net'
import type { Executor } from '../../executor/executor.js'
import type { Engine } from '../../executor/memory/engine.js'
import { addBusyService, type BusyScript } from '../../executor/memory/commands/scripting/busy.js'

/** What the service needs of a connection (the listener's `Client`). */
export interface BusyPeer {
  readonly busySocket: net.Socket
  /** Owes nothing and runs nothing: replies written now keep their order. */
  readonly idleForBusy: boolean
  /** Decodes `input` and answers its commands through `gate` (some wait for the script's end). */
  serveWhileBusy(input: Buffer, gate: BusyScript): void
}

/** Bytes read per call. */
const READ_SIZE = 64 * 1024

/**
 * Installs the service on the executor's engine, when it is the memory engine; returns the
 * function that removes it (the listener's close).
 */
export function installBusyService(executor: Executor, peers: () => Iterable<BusyPeer>): () => void {
  const engine = (executor as { engine?: Engine }).engine
  if (engine === undefined || typeof engine.resolve !== 'function') return () => {}
  const buffer = Buffer.allocUnsafe(READ_SIZE)
  return addBusyService(engine, (gate) => {
    for (const peer of peers()) serve(peer, gate, buffer)
  })
}

function serve(peer: BusyPeer, gate: BusyScript, buffer: Buffer): void {
  const fd = descriptor(peer.busySocket)
  if (fd === undefined) return
  while (peer.idleForBusy && !gate.killed) {
    let read: number
    try {
      read = readSync(fd, buffer, 0, buffer.length, null)
    } catch {
      return // EAGAIN: nothing more now (any other error: the event loop meets it later)
    }
    if (read <= 0) return // end of input: the event loop sees it too
    peer.serveWhileBusy(Buffer.from(buffer.subarray(0, read)), gate)
  }
}

/** The socket's file descriptor: plain TCP (or Unix) sockets only. */
function descriptor(socket: net.Socket): number | undefined {
  if ((socket as { encrypted?: boolean }).encrypted === true) return undefined
  const fd = (socket as unknown as { _handle?: { fd?: unknown } })._handle?.fd
  return typeof fd === 'number' && fd >= 0 ? fd : undefined
}
