/**
 * The Lua half of the scripting bridge: installed once in each VM, it holds the compiled scripts
 * and function libraries and gives them Redis 7.0's Lua API.
 *
 * Why it exists: `lua-redis-wasm` runs each evaluation as a fresh chunk in a VM whose globals are
 * read-only (as in Redis), so nothing a chunk defines survives it, and its built-in `redis` table
 * differs from Redis 7.0's in details (number arguments formatted with `%.14g` instead of
 * `%.17g`, errors raised as strings, `error_reply`'s code rule, no `set_repl`, …). So:
 *
 * - At boot this chunk builds a dispatcher table and stores it in the string metatable under a
 *   random key. That metatable is read-only like every table reachable from the globals; the host
 *   clears and restores its read-only flag around the one write (`LuaWasm.setTableReadonly`). Every
 *   later evaluation is a one-line chunk `getmetatable('')[KEY].op(...)`.
 * - The same way (clearing the flag for one write), the globals get this module's `redis` table
 *   and Redis 7's `pcall` (which turns `{err=…}` error tables into their message), plus `xpcall`
 *   and `coroutine.resume` that let no error be caught once the time limit passed.
 * - Scripts are compiled once (`loadstring`, chunk name `@user_script`, as Redis).
 * - Function libraries are compiled as they come after their shebang line, which Redis replaces
 *   by an empty line (chunk name `@user_function`). While a library loads, the global `redis` is
 *   the load-time API (`register_function`, `log`, the `LOG_*` constants and the version; any
 *   other field is an error); during FCALL it is the function API, during EVAL the script API.
 *   `_G` stays read-only: assigning any global, `redis` included, fails as in Redis. Libraries
 *   stay loaded, so their upvalues persist between FCALLs, as in Redis.
 * - Errors are caught with `xpcall` and a handler that does what Redis's `__redis__err__handler`
 *   does: the line is the raising function's, or its caller's when that is a C function (found
 *   with `error('', level)`, as `debug` is not available), and string errors get the `ERR ` code.
 *   `redis.call` is a callable table running a coroutine (see the source for why); the other API
 *   functions that raise record their caller's line in a weak table, since they are Lua
 *   functions here and C functions in Redis.
 * - Replies are converted with Redis's rules (`luaReplyToRedisReply`, raw field access, arrays up
 *   to the first nil, RESP3 tables rendered for a RESP2 client) into plain tables that the package
 *   encodes.
 *
 * Commands reach the host through the package's `redis.pcall` primitive; control requests
 * (`lock`, `unlock`, `acl`, `resp`, `expired`, and `part` / `run` for a command too long to
 * spread with `unpack`) through the same primitive with a random marker as first
 * argument. The source is Lua in two files, `runtime-api.lua` and `runtime-dispatch.lua`, bundled
 * as text (see `src/text-modules.d.ts`) and compiled together as one chunk; the host's constants
 * are that chunk's arguments.
 *
 */

import apiSource from './runtime-api.lua'
import dispatchSource from './runtime-dispatch.lua'
import { MAX_REPLY_DEPTH, RUNTIME_CHUNK_NAME, type RuntimeConstants } from './runtime-constants.js'

export { BOOT_CHUNK, luaString, type RuntimeConstants } from './runtime-constants.js'

/** The runtime chunk's source, compiled once per VM. */
export const RUNTIME_SOURCE = `${apiSource}\n${dispatchSource}`

/**
 * `BOOT_CHUNK`'s ARGV: the runtime's source, then its constants in the order `runtime-api.lua`
 * reads them from `...`.
 */
export function runtimeArguments(constants: RuntimeConstants): string[] {
  return [
    RUNTIME_SOURCE,
    constants.marker,
    constants.key,
    constants.timeoutError,
    constants.version,
    String(constants.versionNumber),
    String(MAX_REPLY_DEPTH),
    RUNTIME_CHUNK_NAME,
  ]
}
