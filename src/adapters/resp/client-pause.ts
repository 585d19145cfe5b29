/**
 * CLIENT PAUSE / UNPAUSE for the RESP listener, with Redis 7.0's rules (server.c
 * `processCommand`, networking.c `pauseClients`):
 * - `ALL` holds every command of every client, the one that paused included, until the pause
 *   ends (its time passes, or `CLIENT UNPAUSE` — which is itself held under `ALL`).
 * - `WRITE` holds the commands that may write or replicate (the `write` and `may_replicate`
 *   flags: SET, PUBLISH, PFCOUNT, EVAL …) and an EXEC whose queue holds one.
 * - A second pause while one is in force keeps the stronger mode and the later end.
 * - Held clients go on in the order they were held when the pause ends.
 */

import type { Command } from '../../reply.js'
import { resolveCommand } from '../../commands/lookup.js'

export type PauseMode = 'write' | 'all'

export class ClientPause {
  #mode: PauseMode | undefined
  #end = 0
  #timer: NodeJS.Timeout | undefined
  #held: (() => void)[] = []

  /** Pauses until `end` (ms since the epoch) in `mode`, merged with a pause in force. */
  pause(end: number, mode: PauseMode): void {
    this.#mode = this.#mode === 'all' || mode === 'all' ? 'all' : 'write'
    this.#end = Math.max(this.#end, end)
    clearTimeout(this.#timer)
    const wait = this.#end - Date.now()
    if (wait <= 0) {
      this.unpause()
      return
    }
    // Node's timers take at most 2^31-1 ms; a longer pause is re-armed when that passes.
    this.#timer = setTimeout(() => this.pause(this.#end, this.#mode ?? mode), Math.min(wait, 0x7fffffff))
    this.#timer.unref()
  }

  /** Ends the pause; the held clients go on in the order they were held. */
  unpause(): void {
    clearTimeout(this.#timer)
    this.#timer = undefined
    this.#mode = undefined
    this.#end = 0
    const held = this.#held
    this.#held = []
    // After the command that ended the pause, in the order they were held.
    for (const resume of held) queueMicrotask(resume)
  }

  get paused(): boolean {
    return this.#mode !== undefined
  }

  /**
   * Whether `argv` must wait for the pause to end. `queued` is the connection's MULTI queue,
   * for EXEC.
   */
  holds(argv: Command, queued: readonly Command[] | undefined): boolean {
    if (this.#mode === undefined) return false
    if (this.#mode === 'all') return true
    return mayReplicate(argv) || (isExec(argv) && queued !== undefined && queued.some(mayReplicate))
  }

  /** Runs `resume` when the pause ends. */
  hold(resume: () => void): void {
    this.#held.push(resume)
  }

  /** Forgets a held client that went away. */
  release(resume: () => void): void {
    const at = this.#held.indexOf(resume)
    if (at >= 0) this.#held.splice(at, 1)
  }

  /** How many clients wait for the pause to end. */
  get heldCount(): number {
    return this.#held.length
  }
}

function mayReplicate(argv: Command): boolean {
  const info = resolveCommand(argv)
  return info !== undefined && (info.flags.has('write') || info.hiddenFlags.has('may_replicate'))
}

function isExec(argv: Command): boolean {
  const name = argv[0]
  return (typeof name === 'string' ? name : Buffer.from(name).toString('latin1')).toLowerCase() === 'exec'
}
