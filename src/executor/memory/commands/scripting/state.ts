/**
 * The scripting state of one engine: the script cache (EVAL, SCRIPT LOAD), the function
 * libraries (FUNCTION LOAD) and the Lua VM that runs both.
 *
 * The state lives beside the engine (a WeakMap keyed by it) and is created on first use, so an
 * engine that never runs a script never instantiates the VM. The maps here are the source of
 * truth; the VM holds compiled copies. When the VM dies (a Lua panic, or a failure of the
 * WebAssembly runtime), the command that hit it replies with an error, and the next scripting
 * command gets a new VM with every library loaded again (scripts compile again on use).
 */
import { ReplyError } from '../../../../reply.js'
import { SERVER_VERSION } from '../../../../commands/lookup.js'
import type { Engine } from '../../engine.js'
import { LuaVmDead, ScriptVm, type VmTexts } from '../../lua/vm.js'

/** A cached script: its compiled body and shebang flags (null: no shebang). */
export interface ScriptEntry {
  readonly body: string
  readonly flags: number | null
}

/** A library as FUNCTION LOAD accepted it. */
export interface Library {
  readonly name: string
  /** The whole payload, shebang included (FUNCTION LIST WITHCODE, FUNCTION DUMP). */
  readonly code: string
  /** The code from the shebang's newline on, as compiled. */
  readonly body: string
  readonly functions: readonly FunctionEntry[]
}

/** A function of a library. */
export interface FunctionEntry {
  readonly name: string
  readonly description: string | null
  readonly flags: number
  readonly library: string
}

/** The budget of FUNCTION LOAD's run of a library (Redis's LOAD_TIMEOUT_MS). */
const LOAD_TIME_LIMIT_MS = 500

/** FUNCTION LOAD's budget: Redis's, or the engine's script time limit when that is shorter. */
export function loadTimeLimit(engine: Engine): number {
  return Math.min(LOAD_TIME_LIMIT_MS, engine.scriptTimeLimit)
}

/**
 * The error a script gets when it runs past the engine's `scriptTimeLimit`. Redis never stops a
 * script by itself: past `busy-reply-threshold` it answers other clients with BUSY until SCRIPT
 * KILL, whose victim gets "Script killed by user with SCRIPT KILL...". Nothing here can run while
 * a script does, so the engine stops the script itself, with the same form of message.
 */
export function timeoutError(limitMs: number): string {
  return `ERR Script killed by the engine after running longer than the script time limit (${limitMs} ms)...`
}

/** `7.0.15` → 0x07000f, as `REDIS_VERSION_NUM`. */
function versionNumber(version: string): number {
  const [major, minor, patch] = version.split('.').map(Number)
  return (major << 16) | (minor << 8) | patch
}

export class Scripting {
  /** The script cache, by lowercase SHA1 of the whole script. */
  readonly scripts = new Map<string, ScriptEntry>()
  /** Libraries by name (case-sensitive, as Redis's dict). */
  readonly libraries = new Map<string, Library>()
  /** Functions by lowercase name: FCALL finds them case-insensitively, as Redis. */
  readonly functions = new Map<string, FunctionEntry>()
  private current: ScriptVm | null = null
  private currentLimit = 0

  constructor(readonly engine: Engine) {}

  /** The VM, built on first use or after the previous one died (with every library reloaded). */
  vm(): ScriptVm {
    // The timeout text is built into the VM: a new limit (CONFIG SET busy-reply-threshold) needs a new VM.
    if (this.current !== null && this.currentLimit === this.engine.scriptTimeLimit) return this.current
    this.currentLimit = this.engine.scriptTimeLimit
    const texts: VmTexts = {
      version: SERVER_VERSION,
      versionNumber: versionNumber(SERVER_VERSION),
      timeoutError: timeoutError(this.engine.scriptTimeLimit),
    }
    const vm = createVm(texts)
    for (const library of this.libraries.values()) {
      if (vm.load(library.name, library.body, loadTimeLimit(this.engine)) instanceof ReplyError) continue
      vm.commit(library.name)
    }
    this.current = vm
    return vm
  }

  /**
   * Runs `action` with the VM. When the VM dies on the way, it is dropped (the next call builds a
   * new one) and the reply is an error naming what happened.
   */
  withVm<T>(action: (vm: ScriptVm) => T): T | ReplyError {
    try {
      return action(this.vm())
    } catch (error) {
      if (!(error instanceof LuaVmDead)) throw error
      this.current = null
      return new ReplyError(`ERR the Lua VM failed and was reset: ${error.message}`)
    }
  }
}

/** A new VM; any failure to build one (no WebAssembly, no binary …) reads as a dead VM. */
function createVm(texts: VmTexts): ScriptVm {
  try {
    return new ScriptVm(texts)
  } catch (error) {
    if (error instanceof LuaVmDead) throw error
    throw new LuaVmDead(`the Lua engine could not start: ${(error as Error)?.message ?? error}`)
  }
}

const states = new WeakMap<Engine, Scripting>()

/** The scripting state of `engine`. */
export function scripting(engine: Engine): Scripting {
  let state = states.get(engine)
  if (state === undefined) {
    state = new Scripting(engine)
    states.set(engine, state)
  }
  return state
}

/** INFO memory's counts: cached scripts, functions and libraries (zeros before any scripting). */
export function scriptingCounts(engine: Engine): { scripts: number; functions: number; libraries: number } {
  const state = states.get(engine)
  if (state === undefined) return { scripts: 0, functions: 0, libraries: 0 }
  return { scripts: state.scripts.size, functions: state.functions.size, libraries: state.libraries.size }
}
