/**
 * CLIENT PAUSE / UNPAUSE for the RESP listener, with Redis 7.0's rules (server.c
 * `processCommand`, networking.c `pauseClients`):
 * - `ALL` holds every command of every client, the one that paused included, until the pause
 *   ends (its time passes, or `CLIENT UNPAUSE` — which is itself held under `ALL`).
 * - `WRITE` holds the commands that may write or replicate (the `write` and `may_replicate`
 *   flags: SET, PUBLISH, PFCOUNT, EVAL …) and an EXEC whose queue holds one. An EVAL or EVAL_RO
 *   script with a shebang line is judged by its flags instead (eval.c `evalGetCommandFlags`):
 *   held unless it declares `no-writes`. EVALSHA and FCALL are judged by their command's flags
 *   (the listener does not look the script or function up), so a `no-writes` one is held too.
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
  if (info === undefined) return false
  if ((info.name === 'eval' || info.name === 'eval_ro') && argv.length > 1) {
    const declared = shebangFlags(argText(argv[1]))
    if (declared !== undefined) return !declared.includes('no-writes')
  }
  return info.flags.has('write') || info.hiddenFlags.has('may_replicate')
}

/** The flags a script's `#!lua flags=a,b` line declares, or undefined without a shebang. */
function shebangFlags(body: string): string[] | undefined {
  if (!body.startsWith('#!')) return undefined
  const end = body.indexOf('\n')
  const words = body.slice(2, end < 0 ? undefined : end).split(' ')
  const flags = words.find((word) => word.startsWith('flags='))
  return flags === undefined ? [] : flags.slice(6).split(',')
}

function argText(arg: Command[number]): string {
  return typeof arg === 'string' ? arg : Buffer.from(arg).toString('latin1')
}

function isExec(argv: Command): boolean {
  return argText(argv[0]).toLowerCase() === 'exec'
}
