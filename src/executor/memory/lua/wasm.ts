/**
 * Redis's Lua 5.1 (with cjson, cmsgpack, struct and bit) as compiled to WebAssembly by the
 * `lua-redis-wasm` package, instantiated synchronously.
 *
 * The package's own loader is asynchronous (it imports its Emscripten glue with a dynamic
 * `import()`), which would force every EVAL to await. The engine must stay synchronous — a script
 * runs to completion inside `Engine.call`, which is what makes it atomic — so this module reads
 * the package's `.wasm` file itself, compiles it once per process with `new WebAssembly.Module`
 * (synchronous in Node) and provides the handful of imports the binary needs: the six host
 * callbacks of the package's ABI (`host_redis_call` …), the C runtime's setjmp/longjmp support
 * (`invoke_vii`, `_emscripten_throw_longjmp`), a clock, and stubs for the file system calls Lua's
 * `io` library would make (the sandbox removes `io`; nothing reaches them).
 *
 * Time limits: `binary.ts` makes the package's instruction hook (every 1000 Lua instructions) call
 * `clock_time_get` with a private clock id; {@link LuaWasm} answers by comparing the monotonic
 * clock with the deadline of the current evaluation and, past it, zeroing the hook's counter so
 * that the hook raises the package's `Script killed by fuel limit` error inside Lua.
 *
 * The binary's memory is fixed at 64 MB (`emscripten_resize_heap` refusing growth makes Lua's
 * allocator fail and the script get Lua's "not enough memory" error).
 *
 */
import { luaBinary, TICK_CLOCK_ID } from './binary.js'

/** Handlers of the package's host imports; set by the owner of a {@link LuaWasm}. */
export interface LuaHost {
  /**
   * `redis.call` / `redis.pcall` of the package (`raise` true for call): the package's argument
   * array (`[count u32][len u32][bytes]…`, see `abi.ts`) is at `offset` in the VM's memory `heap`
   * (read it before anything allocates in the VM); the result is an encoded reply.
   */
  call(heap: Uint8Array, offset: number, raise: boolean): Uint8Array
  /** `redis.log(level, message)`. */
  log(level: number, message: string): void
  /** `redis.sha1hex(text)`: 40 lowercase hex digits. */
  sha1hex(data: Uint8Array): string
}

/** Thrown when a script's text or arguments do not fit in the VM's memory (nothing ran). */
export class LuaOutOfMemory extends Error {
  override readonly name = 'LuaOutOfMemory'
}

/**
 * Thrown when the WebAssembly instance stopped for good: Lua panicked (an error outside any
 * protected call) or the C runtime aborted. The instance must be replaced.
 */
export class LuaVmDead extends Error {
  override readonly name = 'LuaVmDead'
}

/** Emscripten's setjmp/longjmp: `longjmp` throws this through JavaScript to the nearest `invoke_*`. */
class LongJump {}

/**
 * The C stack scripts run on. The binary's own stack is 64 KB and nothing checks it: cjson decoding
 * 600 nested arrays overflows it into static data (crashes, or worse, hangs). Evaluations run on
 * this larger stack instead, allocated once in the VM's heap; Redis's Lua libraries bound their own
 * recursion (cjson at 1000 levels) well within it.
 */
const SCRIPT_STACK_BYTES = 1024 * 1024

/** What the hook's counter holds while time remains: far more than any script executes. */
const PLENTY = 2n ** 62n

/**
 * Instructions per millisecond assumed when the binary could not be patched (the budget then
 * stands in for the time limit): the rate of a simple arithmetic loop on a current x86 core.
 */
export const FALLBACK_INSTRUCTIONS_PER_MS = 100_000

const monotonic = globalThis.performance

/** The exports of the binary this module uses (the package's `WasmExports`, wasm names). */
interface Exports {
  readonly memory: WebAssembly.Memory
  readonly __indirect_function_table: WebAssembly.Table
  __wasm_call_ctors(): void
  set_compat(flags: number): void
  set_limits(maxFuel: number, maxReplyBytes: number, maxArgBytes: number): void
  init(): number
  eval_with_args(retPtr: number, scriptPtr: number, scriptLen: number, argsPtr: number, argsLen: number, keys: number): void
  alloc(size: number): number
  free_mem(ptr: number): void
  setThrew(threw: number, value: number): void
  _emscripten_stack_restore(sp: number): void
  emscripten_stack_get_current(): number
}

/** errno values the stubbed system calls return (WASI numbering). */
const ENOSYS = 52
const EBADF = 8

/**
 * One Lua VM: a WebAssembly instance of the package's binary with Redis's sandbox (globals
 * protection, no `os`, `io`, `print`, `loadfile`, `dofile`, as Redis 7.0).
 */
export class LuaWasm {
  private readonly exports: Exports
  private heap: Uint8Array
  private view: DataView
  /** What the C runtime printed to stderr before dying (Lua's PANIC message). */
  private stderr = ''
  /** Address of the instruction hook's counter, when the binary carries the clock check. */
  private readonly fuelAddress: number | null
  /** Monotonic time (ms) after which the running evaluation is stopped. */
  private deadline = Infinity
  /** Set when the hook found the last evaluation past its deadline. */
  expired = false
  /** Asked by the hook while time remains: true stops the evaluation as the deadline does. */
  poll: ((now: number) => boolean) | undefined
  /** Top (highest address, 16-aligned) of the stack evaluations run on. */
  private readonly stackTop: number

  constructor(private readonly host: LuaHost) {
    const env = this.imports()
    const binary = luaBinary()
    this.fuelAddress = binary.fuelAddress
    const instance = new WebAssembly.Instance(binary.module, { env, wasi_snapshot_preview1: env })
    this.exports = instance.exports as unknown as Exports
    this.heap = new Uint8Array(this.exports.memory.buffer)
    this.view = new DataView(this.exports.memory.buffer)
    this.exports.__wasm_call_ctors()
    // Compatibility flags of the package (0x1 keep print, 0x2 os library, 0x4 `server` alias):
    // none of them, as Redis 7.0.
    this.exports.set_compat(0)
    if (this.exports.init() !== 0) throw new LuaVmDead('the Lua VM did not initialise')
    const stack = this.exports.alloc(SCRIPT_STACK_BYTES)
    if (stack === 0) throw new LuaVmDead('no memory for the script stack')
    this.stackTop = (stack + SCRIPT_STACK_BYTES) & ~15
  }

  /** True when time limits are checked against the clock (else they are instruction budgets). */
  get clockChecked(): boolean {
    return this.fuelAddress !== null
  }

  /**
   * Runs `chunk` (a Lua chunk, binary string) with the globals KEYS = `args[0..keys)` and ARGV =
   * the rest, and returns its encoded reply (see `abi.ts`). Lua code still running `limitMs`
   * milliseconds after the start gets `Script killed by fuel limit` raised (see the module notes).
   */
  evaluate(chunk: string, args: readonly string[], keys: number, limitMs: number): Uint8Array {
    if (this.fuelAddress === null) {
      // Unpatched binary: the package's instruction budget (at most 2^32 - 1) stands in for time.
      const budget = Math.min(Math.max(1000, limitMs * FALLBACK_INSTRUCTIONS_PER_MS), 0xffffffff)
      this.exports.set_limits(budget >>> 0, 0, 0)
    }
    const argsLength = argArraySize(args)
    const scriptPtr = this.write(chunk)
    const argsPtr = this.exports.alloc(argsLength)
    const retPtr = this.exports.alloc(8)
    if (scriptPtr === 0 || argsPtr === 0 || retPtr === 0) {
      for (const ptr of [scriptPtr, argsPtr, retPtr]) if (ptr !== 0) this.exports.free_mem(ptr)
      throw new LuaOutOfMemory('the script and its arguments do not fit in the Lua VM memory')
    }
    writeArgArray(this.bytes(), argsPtr, args)
    this.deadline = monotonic.now() + limitMs
    this.expired = false
    let dead = false
    const savedStack = this.exports.emscripten_stack_get_current()
    this.exports._emscripten_stack_restore(this.stackTop)
    try {
      this.exports.eval_with_args(retPtr, scriptPtr, chunk.length, argsPtr, argsLength, keys)
      const view = this.dataView()
      const ptr = view.getUint32(retPtr, true)
      const length = view.getUint32(retPtr + 4, true)
      const reply = this.bytes().slice(ptr, ptr + length)
      if (ptr !== 0) this.exports.free_mem(ptr)
      return reply
    } catch (error) {
      dead = true
      throw this.died(error)
    } finally {
      this.deadline = Infinity
      this.exports._emscripten_stack_restore(savedStack)
      // A dead instance is dropped whole; its allocator may be in any state.
      if (!dead) {
        this.exports.free_mem(scriptPtr)
        this.exports.free_mem(argsPtr)
        this.exports.free_mem(retPtr)
      }
    }
  }

  /**
   * Sets or clears the read-only flag of the Lua table at `address` (as `tostring(t)` shows it).
   * Redis's Lua adds an `int readonly` to the `Table` struct, right after the GC header and the
   * metamethod-cache byte: byte offset 8 on a 32-bit target. Throws when the word there does not
   * hold the expected current state, so a different binary layout is detected, not corrupted.
   */
  setTableReadonly(address: number, readonly: boolean): void {
    const view = this.dataView()
    const current = view.getInt32(address + 8, true)
    if (current !== (readonly ? 0 : 1)) {
      throw new LuaVmDead(`unexpected Lua table layout at 0x${address.toString(16)} (readonly word ${current})`)
    }
    view.setInt32(address + 8, readonly ? 1 : 0, true)
  }

  /** Copies a binary string into freshly allocated VM memory (0 when it does not fit); the caller frees it. */
  private write(text: string): number {
    const ptr = this.exports.alloc(Math.max(1, text.length))
    if (ptr === 0) return 0
    const heap = this.bytes()
    for (let i = 0; i < text.length; i++) heap[ptr + i] = text.charCodeAt(i)
    return ptr
  }

  /** The VM's memory as bytes (re-read if memory was replaced). */
  private bytes(): Uint8Array {
    if (this.heap.buffer !== this.exports.memory.buffer) this.heap = new Uint8Array(this.exports.memory.buffer)
    return this.heap
  }

  private dataView(): DataView {
    if (this.view.buffer !== this.exports.memory.buffer) this.view = new DataView(this.exports.memory.buffer)
    return this.view
  }

  /** The instruction hook's clock check: past the deadline, spend the counter so the hook raises. */
  private tick(): number {
    if (this.fuelAddress !== null) {
      const now = monotonic.now()
      const expired = now > this.deadline || (this.poll !== undefined && this.poll(now))
      if (expired) this.expired = true
      this.dataView().setBigInt64(this.fuelAddress, expired ? 0n : PLENTY, true)
    }
    return 0
  }

  private died(error: unknown): Error {
    if (error instanceof LuaVmDead) return error
    const detail = this.stderr.trim() || (error instanceof Error ? error.message : String(error))
    return new LuaVmDead(detail)
  }

  /**
   * A pointer/length pair, returned through the `retPtr` the C side passes first (sret ABI).
   * When the data does not fit, a null pair: the package then raises a Lua error in the script.
   */
  private returnBytes(retPtr: number, data: Uint8Array): void {
    const ptr = this.exports.alloc(Math.max(1, data.length))
    if (ptr === 0) {
      const view = this.dataView()
      view.setUint32(retPtr, 0, true)
      view.setUint32(retPtr + 4, 0, true)
      return
    }
    this.bytes().set(data, ptr)
    const view = this.dataView()
    view.setUint32(retPtr, ptr, true)
    view.setUint32(retPtr + 4, data.length, true)
  }

  private imports(): Record<string, (...args: never[]) => unknown> {
    const hostCall = (retPtr: number, ptr: number, _length: number, raise: boolean): void => {
      const reply = this.host.call(this.bytes(), ptr, raise)
      this.returnBytes(retPtr, reply)
    }
    return {
      host_redis_call: (retPtr: number, ptr: number, length: number) => hostCall(retPtr, ptr, length, true),
      host_redis_pcall: (retPtr: number, ptr: number, length: number) => hostCall(retPtr, ptr, length, false),
      host_redis_log: (level: number, ptr: number, length: number) => {
        this.host.log(level, Buffer.from(this.bytes().subarray(ptr, ptr + length)).toString('latin1'))
      },
      host_sha1hex: (retPtr: number, ptr: number, length: number) => {
        const hex = this.host.sha1hex(this.bytes().subarray(ptr, ptr + length))
        this.returnBytes(retPtr, Buffer.from(hex, 'latin1'))
      },
      // No `redis.*` constants through the package's props blob: the runtime script installs its own.
      host_redis_props: (retPtr: number) => {
        const view = this.dataView()
        view.setUint32(retPtr, 0, true)
        view.setUint32(retPtr + 4, 0, true)
      },
      host_redis_setresp: () => {},
      invoke_vii: (index: number, a: number, b: number) => {
        const sp = this.exports.emscripten_stack_get_current()
        try {
          ;(this.exports.__indirect_function_table.get(index) as (a: number, b: number) => void)(a, b)
        } catch (error) {
          this.exports._emscripten_stack_restore(sp)
          if (!(error instanceof LongJump)) throw error
          this.exports.setThrew(1, 0)
        }
      },
      _emscripten_throw_longjmp: () => {
        throw new LongJump()
      },
      exit: (status: number) => {
        throw new LuaVmDead(`Lua VM exited (${status}): ${this.stderr.trim()}`)
      },
      _abort_js: () => {
        throw new LuaVmDead(`Lua VM aborted: ${this.stderr.trim()}`)
      },
      __assert_fail: () => {
        throw new LuaVmDead('Lua VM assertion failed')
      },
      emscripten_resize_heap: () => 0,
      clock_time_get: (clockId: number, _precision: bigint, out: number) => {
        if (clockId === TICK_CLOCK_ID) return this.tick()
        const ms = clockId === 0 ? Date.now() : performance.now()
        this.dataView().setBigUint64(out, BigInt(Math.round(ms * 1e6)), true)
        return 0
      },
      fd_write: (fd: number, iov: number, count: number, written: number) => {
        const view = this.dataView()
        let total = 0
        for (let i = 0; i < count; i++) {
          const ptr = view.getUint32(iov + i * 8, true)
          const length = view.getUint32(iov + i * 8 + 4, true)
          if (fd === 2 && this.stderr.length < 4096) this.stderr += Buffer.from(this.bytes().subarray(ptr, ptr + length)).toString('latin1')
          total += length
        }
        view.setUint32(written, total, true)
        return 0
      },
      fd_read: () => EBADF,
      fd_close: () => 0,
      fd_seek: () => EBADF,
      __syscall_openat: () => -ENOSYS,
      __syscall_fcntl64: () => -ENOSYS,
      __syscall_ioctl: () => -ENOSYS,
      __syscall_dup3: () => -ENOSYS,
    }
  }
}

/** Size of the package's argument array: `[count u32le]` then `[length u32le][bytes]` per argument. */
function argArraySize(args: readonly string[]): number {
  let size = 4
  for (const arg of args) size += 4 + arg.length
  return size
}

/** Writes the argument array of `args` at `at` in `heap`. */
function writeArgArray(heap: Uint8Array, at: number, args: readonly string[]): void {
  writeU32(heap, at, args.length)
  let offset = at + 4
  for (const arg of args) {
    writeU32(heap, offset, arg.length)
    offset += 4
    for (let i = 0; i < arg.length; i++) heap[offset + i] = arg.charCodeAt(i)
    offset += arg.length
  }
}

function writeU32(heap: Uint8Array, at: number, value: number): void {
  heap[at] = value & 0xff
  heap[at + 1] = (value >>> 8) & 0xff
  heap[at + 2] = (value >>> 16) & 0xff
  heap[at + 3] = value >>> 24
}
