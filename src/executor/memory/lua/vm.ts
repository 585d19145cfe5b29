/**
 * One Lua VM with the scripting runtime installed (`runtime.ts`): compiled scripts, loaded
 * function libraries, and the operations the scripting commands need. Everything is synchronous.
 *
 */
import { createHash, randomBytes } from 'node:crypto'
import { ReplyError } from '../../../reply.js'
import type { Out } from '../command.js'
import { resp3Reply } from '../../../resp/resp3-shape.js'
import { decodeArgs, decodeReply, encodeReply, encodeResp3Reply, replyOf, ScriptFailure, type Decoded } from './abi.js'
import { BOOT_CHUNK, luaString, runtimeArguments, type RuntimeConstants } from './runtime.js'
import { LuaOutOfMemory, LuaVmDead, LuaWasm } from './wasm.js'

export { LuaVmDead }

/** What a running script's `redis.call` / `redis.acl_check_cmd` reach on the host. */
export interface ScriptCaller {
  /** A command from `redis.call` / `redis.pcall`: its reply (errors included). */
  command(argv: string[]): Out
  /** `redis.acl_check_cmd`: 1 when allowed, 0 when denied, or an error. */
  aclCheck(argv: string[]): Out
  /** True once a command found the script past its time limit. */
  readonly timedOut: boolean
  /**
   * Asked by the instruction hook (every 1000 Lua instructions) with the monotonic time: true
   * stops the script as the time limit does (SCRIPT KILL while busy).
   */
  poll(now: number): boolean
  /** The protocol of the client that runs the script: 3 gets the RESP3 types of its result. */
  readonly callerResp: 2 | 3
}

/** One function a library registered: name, description and flags (`FUNCTION LIST` shows them). */
export interface RegisteredFunction {
  readonly name: string
  readonly description: string | null
  /** Bits of `SCRIPT_FLAGS`, in the order Redis lists them. */
  readonly flags: number
}

/**
 * Script flags in Redis's order (`scripts_flags_def`): bit value = 1 << index. The last one,
 * `allow-key-locking`, is the hosted service's, not Redis's: there it lets a script or function
 * lock only the keys given in KEYS instead of the whole database. This engine runs every script
 * alone, atomically, so the flag changes nothing here; shebangs and `redis.register_function`
 * accept it so that code written for the hosted service (`@upstash/ratelimit`'s scripts) runs
 * unchanged, and FUNCTION LIST shows it as declared. The runtime's FLAGS table has the same bits.
 */
export const SCRIPT_FLAGS = ['no-writes', 'allow-oom', 'allow-stale', 'no-cluster', 'allow-cross-slot-keys', 'allow-key-locking'] as const

/** The text of the package's instruction-limit error, raised when a script runs out of time. */
const FUEL_MESSAGE = 'Script killed by fuel limit'

/** Texts the runtime needs besides its random keys. */
export type VmTexts = Omit<RuntimeConstants, 'marker' | 'key'>

/** Time allowed to the runtime's own installation and to compilations. */
const SETUP_LIMIT_MS = 10_000

/**
 * A Lua VM for one engine. Scripts and libraries are compiled into it by the caller; when the VM
 * dies (see {@link LuaVmDead}) every operation throws and the owner builds a new one.
 */
export class ScriptVm {
  private readonly wasm: LuaWasm
  private readonly marker = `\0restis:${randomBytes(12).toString('hex')}`
  private readonly prefix: string
  /** Scripts compiled in this VM, by SHA1. */
  private readonly compiled = new Set<string>()
  private caller: ScriptCaller | null = null
  /** Arguments of a long command sent in parts (the runtime's `send`), until its `run` request. */
  private parts: string[] = []
  /** The running script's protocol (`redis.setresp`): 3 gives its commands' RESP3 replies. */
  private scriptResp: 2 | 3 = 2
  /**
   * Tables the runtime unlocked and has not locked again. The time limit's hook raises in
   * whatever Lua code runs, the runtime's own included, so it can stop the runtime between an
   * unlock and its lock: the next unlock of that table is then a no-op, and every evaluation ends
   * by locking what is left, so no script finds a runtime table writable.
   */
  private readonly unlocked = new Set<number>()

  constructor(private readonly texts: VmTexts) {
    const key = `__restis_${randomBytes(8).toString('hex')}`
    this.prefix = `local D = getmetatable('')[${luaString(key)}] return D.`
    this.wasm = new LuaWasm({
      call: (heap, offset) => this.hostCall(heap, offset),
      log: () => {},
      sha1hex: (data) => createHash('sha1').update(data).digest('hex'),
    })
    const installed = this.evaluate(BOOT_CHUNK, runtimeArguments({ ...texts, marker: this.marker, key }), 0, SETUP_LIMIT_MS)
    if (installed !== 1) {
      throw new LuaVmDead(`the scripting runtime did not install: ${installed instanceof ReplyError ? installed.message : String(installed)}`)
    }
  }

  /** True when `sha` is compiled in this VM. */
  has(sha: string): boolean {
    return this.compiled.has(sha)
  }

  /** Compiles a script body (after its shebang line, which Redis replaces by an empty line). */
  compile(sha: string, body: string): ReplyError | null {
    const reply = this.evaluate(`${this.prefix}compile(${luaString(sha)})`, [body], 0, SETUP_LIMIT_MS)
    if (reply instanceof ReplyError) return reply
    this.compiled.add(sha)
    return null
  }

  /** Runs a compiled script with KEYS and ARGV; the caller serves its commands. */
  run(sha: string, keys: readonly string[], args: readonly string[], caller: ScriptCaller, limitMs: number): Out {
    return this.call(`${this.prefix}run(${luaString(sha)}, '${caller.callerResp}')`, sha, 'user_script', keys, args, caller, limitMs)
  }

  /** Drops every compiled script (SCRIPT FLUSH). */
  forgetScripts(): void {
    this.perform(`${this.prefix}forgetScripts()`)
    this.compiled.clear()
  }

  /**
   * Runs a library's code (after its shebang line) with the load-time API: the functions it
   * registered, or the error. The library stays pending until {@link commit} or {@link discard}.
   */
  load(name: string, code: string, limitMs: number): RegisteredFunction[] | ReplyError {
    const reply = this.evaluate(`${this.prefix}load(${luaString(name)})`, [code], 0, limitMs)
    if (reply instanceof ReplyError) return reply
    if (reply instanceof ScriptFailure) return this.failure(reply, name, 'user_function')
    return (reply as readonly (readonly Out[])[]).map(([fn, description, flags]) => ({
      name: fn as string,
      description: description === null ? null : (description as string),
      flags: flags as number,
    }))
  }

  /** Makes a pending library callable (replacing a loaded one of the same name). */
  commit(name: string): void {
    this.perform(`${this.prefix}commit(${luaString(name)})`)
  }

  /** Drops every pending library. */
  discard(): void {
    this.perform(`${this.prefix}discard()`)
  }

  /** Unloads a library. */
  deleteLibrary(name: string): void {
    this.perform(`${this.prefix}delete(${luaString(name)})`)
  }

  /** Unloads every library. */
  flushLibraries(): void {
    this.perform(`${this.prefix}flushLibraries()`)
  }

  /** Calls a loaded function with its keys and arguments. */
  fcall(name: string, keys: readonly string[], args: readonly string[], caller: ScriptCaller, limitMs: number): Out {
    return this.call(`${this.prefix}fcall(${luaString(name)}, '${caller.callerResp}')`, name, 'user_function', keys, args, caller, limitMs)
  }

  /**
   * Runs a bookkeeping operation of the runtime, which replies 1. Anything else means the VM and
   * the maps disagree: the VM is declared dead, so that its owner rebuilds it from the maps.
   */
  private perform(chunk: string): void {
    const reply = this.evaluate(chunk, [], 0, SETUP_LIMIT_MS)
    if (reply !== 1) throw new LuaVmDead(`runtime operation failed: ${reply instanceof ReplyError ? reply.message : String(reply)}`)
  }

  private call(
    chunk: string,
    name: string,
    source: string,
    keys: readonly string[],
    args: readonly string[],
    caller: ScriptCaller,
    limitMs: number,
  ): Out {
    this.caller = caller
    this.scriptResp = 2
    this.parts = []
    this.wasm.poll = (now) => caller.poll(now)
    try {
      const typed = caller.callerResp === 3 ? this.marker : undefined
      const reply = this.evaluate(chunk, keys.length === 0 ? args : [...keys, ...args], keys.length, limitMs, typed)
      if (reply instanceof ScriptFailure) return this.failure(reply, name, source)
      // Out of time, yet a result: the script caught the error. Redis's killed scripts cannot.
      if (this.wasm.expired && !(reply instanceof ReplyError && reply.message.startsWith(this.texts.timeoutError))) {
        return new ReplyError(this.texts.timeoutError)
      }
      return reply
    } finally {
      this.caller = null
      this.wasm.poll = undefined
    }
  }

  /**
   * An error that escaped the runtime's own protected call: only the time limit does that (the
   * hook keeps raising once time is up, possibly while the runtime formats the error).
   */
  private failure(escaped: ScriptFailure, name: string, source: string): ReplyError {
    if (escaped.message.includes(FUEL_MESSAGE)) {
      return new ReplyError(`${this.texts.timeoutError} script: ${name}, on @${source}:${escaped.line}.`)
    }
    return new ReplyError(`ERR Error running script ${name}, ${escaped.message.slice(0, 100)}`)
  }

  /** Runs a chunk; `typedMarker` (a RESP3 caller's script) decodes the runtime's RESP3 tags. */
  private evaluate(chunk: string, args: readonly string[], keys: number, limitMs: number, typedMarker?: string): Decoded {
    try {
      const reply = this.wasm.evaluate(chunk, args, keys, limitMs)
      this.relockAll()
      // The package replies nothing at all when it could not allocate the reply.
      if (reply.length === 0) return NO_MEMORY_FOR_REPLY
      return decodeReply(reply, typedMarker)
    } catch (error) {
      if (error instanceof LuaOutOfMemory) {
        this.relockAll()
        return new ReplyError(`ERR ${error.message}`)
      }
      throw error
    }
  }

  /** Locks again the tables an evaluation left unlocked (see {@link ScriptVm.unlocked}). */
  private relockAll(): void {
    if (this.unlocked.size === 0) return
    for (const address of this.unlocked) this.wasm.setTableReadonly(address, true)
    this.unlocked.clear()
  }

  /** The runtime's `lock` / `unlock` of a table (`runtime-api.lua`). */
  private setReadonly(address: number, readonly: boolean): void {
    if (readonly) {
      this.wasm.setTableReadonly(address, true)
      this.unlocked.delete(address)
    } else if (!this.unlocked.has(address)) {
      this.wasm.setTableReadonly(address, false)
      this.unlocked.add(address)
    }
  }

  /** `redis.pcall` of the package: a control request of the runtime, or a script's command. */
  private hostCall(heap: Uint8Array, offset: number): Uint8Array {
    const argv = decodeArgs(heap, offset)
    try {
      if (argv[0] !== this.marker) return this.command(argv)
      if (argv[1] !== 'run') return encodeReply(this.request(argv))
      const parts = this.parts
      this.parts = []
      return this.command(parts)
    } catch (error) {
      // Nothing may unwind through the VM's frames: a failure becomes an error reply.
      if (error instanceof LuaVmDead) throw error
      return encodeReply(new ReplyError(`ERR internal error in a script command: ${(error as Error)?.message ?? error}`))
    }
  }

  /** A script's command, its reply encoded for the script's protocol. */
  private command(argv: string[]): Uint8Array {
    if (this.caller === null) return encodeReply(NO_CALLER)
    const reply = this.caller.command(argv)
    // After redis.setresp(3): the command's RESP3 reply, shaped as the listener shapes it.
    return this.scriptResp === 3 ? encodeResp3Reply(resp3Reply(argv, replyOf(reply))) : encodeReply(reply)
  }

  private request(argv: readonly string[]): Out {
    switch (argv[1]) {
      case 'part':
        for (let i = 2; i < argv.length; i++) this.parts.push(argv[i])
        return 1
      case 'lock':
      case 'unlock':
        this.setReadonly(tableAddress(argv[2]), argv[1] === 'lock')
        return 1
      case 'acl':
        return this.caller === null ? NO_CALLER : this.caller.aclCheck(argv.slice(2))
      case 'resp':
        this.scriptResp = argv[2] === '3' ? 3 : 2
        return 1
      case 'expired':
        return this.wasm.expired || this.caller?.timedOut === true ? 1 : 0
      default:
        return new ReplyError(`ERR unknown runtime request ${argv[1]}`)
    }
  }
}

const NO_MEMORY_FOR_REPLY = new ReplyError('ERR not enough memory in the Lua VM to build the reply')

/** The reply to a command a library sends while loading (only possible through `_G.redis`). */
const NO_CALLER = new ReplyError('ERR redis.call can only be called inside a script invocation')

/** The address in `tostring(table)`: `table: 0x1cc20`. */
function tableAddress(text: string): number {
  const at = text.indexOf('0x')
  const address = at === -1 ? NaN : parseInt(text.slice(at + 2), 16)
  if (!Number.isInteger(address)) throw new LuaVmDead(`unexpected table reference ${text}`)
  return address
}
