/**
 * Scripts past `busy-reply-threshold`, as Redis 7.0 serves them (script.c, server.c): other
 * clients get `BUSY`, `SCRIPT KILL` / `FUNCTION KILL` stop a script that has not written, and
 * nothing stops it otherwise.
 *
 * The engine is synchronous: while a script runs, the event loop does not, so nothing reaches the
 * engine. A host that can read its clients' input synchronously (the RESP listener, see
 * `src/adapters/resp/busy-script.ts`) installs a {@link BusyService}; the Lua VM's instruction
 * hook then calls it, at most every {@link SERVE_INTERVAL_MS}, once a script has run past the
 * threshold, and the service answers the other clients through the {@link BusyScript} gate.
 * Without a service (an embedded executor, the REST gateway), no one could send SCRIPT KILL: the
 * engine stops the script itself at the threshold, with its own error (`timeoutError`).
 */
import { ReplyError, OK, type Status } from '../../../../reply.js'
import type { Engine } from '../../engine.js'

/** Called while a script is past the threshold: answers the clients waiting on the engine. */
export type BusyService = (gate: BusyScript) => void

/** The services of each engine (one per RESP listener in front of it). */
const services = new WeakMap<Engine, Set<BusyService>>()

/** Installs a busy service on the engine; the function returned removes it. */
export function addBusyService(engine: Engine, service: BusyService): () => void {
  let set = services.get(engine)
  if (set === undefined) services.set(engine, (set = new Set()))
  set.add(service)
  return () => {
    set.delete(service)
  }
}

/** The engine's services as one, or undefined when it has none. */
export function busyService(engine: Engine): BusyService | undefined {
  const set = services.get(engine)
  if (set === undefined || set.size === 0) return undefined
  return (gate) => {
    for (const service of set) service(gate)
  }
}

/** How often, at most, the service runs while a script is busy. */
const SERVE_INTERVAL_MS = 2

export const BUSY_EVAL = new ReplyError('BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.')
export const BUSY_FUNCTION = new ReplyError('BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.')
const UNKILLABLE = new ReplyError(
  'UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command.',
)

/** The text a killed script's caller gets (Redis's, for SCRIPT KILL and FUNCTION KILL alike). */
export const KILLED_TEXT = 'ERR Script killed by user with SCRIPT KILL...'

/**
 * Commands Redis lets through while a script is busy (`allow-busy`). The service leaves them, and
 * what follows them on their connection, to run once the script has ended, except SCRIPT KILL and
 * FUNCTION KILL, which it answers at once.
 */
const ALLOWED = new Set(['auth', 'discard', 'function', 'hello', 'multi', 'quit', 'replconf', 'reset', 'script', 'shutdown', 'unwatch', 'watch'])

/** What other clients see of the running script. */
export class BusyScript {
  /** Set by SCRIPT KILL / FUNCTION KILL: the hook stops the script at its next call. */
  killed = false
  private nextServe = 0

  constructor(
    /** EVAL (true) or FCALL (false): which KILL may stop it, and which BUSY text others get. */
    readonly isEval: boolean,
    private readonly wrote: () => boolean,
    private readonly busyAt: number,
    private readonly service: BusyService,
  ) {}

  /** The VM hook's question (every 1000 Lua instructions): stop now? Serves clients when due. */
  poll(now: number): boolean {
    if (now >= this.busyAt && now >= this.nextServe && !this.killed) {
      this.nextServe = now + SERVE_INTERVAL_MS
      this.service(this)
    }
    return this.killed
  }

  /**
   * The reply to a command another client sent, or undefined for one that waits for the script's
   * end (the commands Redis allows while busy, other than the two KILLs).
   */
  answer(argv: readonly Buffer[]): ReplyError | Status | undefined {
    const name = argv[0]?.toString('latin1').toLowerCase() ?? ''
    const sub = argv.length === 2 ? argv[1].toString('latin1').toLowerCase() : ''
    if (name === 'script' && sub === 'kill') return this.kill(true)
    if (name === 'function' && sub === 'kill') return this.kill(false)
    if (ALLOWED.has(name) && name !== 'script' && name !== 'function') return undefined
    if (name === 'function' && sub === 'stats') return undefined
    return this.isEval ? BUSY_EVAL : BUSY_FUNCTION
  }

  /** Redis's `scriptKill`: a script that wrote cannot be stopped, nor one of the other kind. */
  private kill(byScriptKill: boolean): ReplyError | Status {
    if (this.wrote()) return UNKILLABLE
    if (byScriptKill && !this.isEval) return BUSY_FUNCTION
    if (!byScriptKill && this.isEval) return BUSY_EVAL
    this.killed = true
    return OK
  }
}
