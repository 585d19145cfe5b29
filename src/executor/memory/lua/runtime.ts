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
 * - Scripts are compiled once (`loadstring`, chunk name `@user_script`, as Redis) with a prefix on
 *   their first line, `local redis, pcall = ...;`, through which they receive this module's API
 *   table and Redis 7's `pcall` (which turns `{err=…}` error tables into their message). Redis
 *   strips a shebang line but keeps its newline, so the prefix never shifts line numbers.
 * - Function libraries are compiled the same way (`@user_function`) with `local redis = ...;`,
 *   a per-library proxy whose fields are the load-time API (`register_function`, `log`, the
 *   `LOG_*` constants and the version; any other field is an error) while the library loads, and
 *   the runtime API once it is committed. Libraries stay loaded, so their upvalues persist
 *   between FCALLs, as in Redis.
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
 * (`lock`, `unlock`, `acl`) through the same primitive with a random marker as first argument.
 *
 * @packageDocumentation
 */

/** What the host substitutes into the runtime source. */
export interface RuntimeConstants {
  /** First argument of control requests (random, binary string). */
  readonly marker: string
  /** Key of the dispatcher in the string metatable (random, `[0-9a-f]` only). */
  readonly key: string
  /** `redis.REDIS_VERSION`, e.g. `7.0.15`. */
  readonly version: string
  /** `redis.REDIS_VERSION_NUM`, e.g. 0x07000f. */
  readonly versionNumber: number
  /** The error a script gets when it runs past the time limit (code included). */
  readonly timeoutError: string
  /** The error `redis.setresp(3)` raises (code included). */
  readonly resp3Error: string
}

/** Deepest reply nesting converted; deeper levels become Redis's stack-limit error. */
export const MAX_REPLY_DEPTH = 500

/** A Lua string literal for any binary string. */
export function luaString(text: string): string {
  let out = '"'
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    out += code >= 0x20 && code < 0x7f && code !== 0x22 && code !== 0x5c ? text[i] : `\\${code}`
  }
  return out + '"'
}

/**
 * Chunk name of the runtime (`loadstring(source, '=restis')`): its frames are told apart from the
 * scripts' (`@user_script`, `@user_function`) when looking for the line of an error.
 */
export const RUNTIME_CHUNK_NAME = 'restis'

/** Evaluated by the package (as `@user_script`): compiles and runs the runtime, passed as ARGV[1]. */
export const BOOT_CHUNK = `local runtime, e = loadstring(ARGV[1], '=${RUNTIME_CHUNK_NAME}') if not runtime then return {err = e} end return runtime()`

/** The runtime chunk, compiled once per VM. */
export function runtimeSource(constants: RuntimeConstants): string {
  return `
local MARK, KEY = ${luaString(constants.marker)}, ${luaString(constants.key)}
local TIMEOUT_ERROR, RESP3_ERROR = ${luaString(constants.timeoutError)}, ${luaString(constants.resp3Error)}
local FUEL_MESSAGE = 'Script killed by fuel limit'
local MAX_DEPTH = ${MAX_REPLY_DEPTH}
local RUNTIME = ${luaString(RUNTIME_CHUNK_NAME)}
local rawcall, rawsha1 = redis.pcall, redis.sha1hex
local type, tostring, tonumber, select, next, rawget, rawset = type, tostring, tonumber, select, next, rawget, rawset
local setmetatable, getmetatable, error, pcall, xpcall, unpack, loadstring = setmetatable, getmetatable, error, pcall, xpcall, unpack, loadstring
local format, find, sub, gsub, match, lower = string.format, string.find, string.sub, string.gsub, string.match, string.lower
local floor, huge = math.floor, math.huge

local function control(...) return rawcall(MARK, ...) end
local function lock(t) control('lock', tostring(t)) return t end
local function unlock(t) control('unlock', tostring(t)) return t end

-- "file, line" of the frame n levels above the caller of where (0 = that caller), or nil for a C
-- frame or this runtime's own code: error('', level) prefixes luaL_where's "short_src:line: ".
local function where(n)
  local _, at = pcall(error, '', n + 3)
  local src, line = match(at, '^(.*):(%d+): $')
  if src == RUNTIME then return nil end
  return src, line
end

-- Errors the API raises, with the line of the script code that called the API function.
local raisedAt = setmetatable({}, {__mode = 'k'})
local function raise(message, n)
  local e = {err = message}
  local src, line = where(n + 1)
  if line then raisedAt[e] = {src, line} end
  error(e, 0)
end

-- The package reports reads of missing globals with a marker; Redis's wording.
local function rewrite(message)
  local at = find(message, '__RLUA_E__:global-read:', 1, true)
  if at then
    return sub(message, 1, at - 1) .. "Script attempted to access nonexistent global variable '" .. sub(message, at + 23) .. "'"
  end
  if find(message, '__RLUA_E__:command-arg-type', 1, true) then
    return 'Lua redis lib command arguments must be strings or integers'
  end
  return message
end

local function truncate(n) if n >= 0 then return floor(n) end return -floor(-n) end

-- Redis 7's global pcall: an error table with an 'err' string comes back as that string.
local function settle(ok, ...)
  if ok then return true, ... end
  local e = ...
  if type(e) == 'table' then
    local m = e.err
    if type(m) == 'string' or type(m) == 'number' then return false, m end
    return false, e, m
  end
  if type(e) == 'string' then return false, rewrite(e) end
  return false, e
end
local function redisPcall(f, ...) return settle(pcall(f, ...)) end

-- Arguments of a redis lib call (luaArgsToRedisArgv): strings as they are, numbers as "%.17g".
local NO_ARGS = 'ERR Please specify at least one argument for this redis lib call'
local ARG_TYPE = 'ERR Lua redis lib command arguments must be strings or integers'
local function allStrings(...)
  for i = 1, select('#', ...) do
    if type((select(i, ...))) ~= 'string' then return false end
  end
  return true
end
local function toArgv(...)
  local n = select('#', ...)
  if n == 0 then return nil, NO_ARGS end
  local args = {...}
  for i = 1, n do
    local t = type(args[i])
    if t == 'number' then args[i] = format('%.17g', args[i])
    elseif t ~= 'string' then return nil, ARG_TYPE end
  end
  return args, n
end
local function command(...)
  if select('#', ...) > 0 and allStrings(...) then return rawcall(...) end
  local args, n = toArgv(...)
  if not args then return {err = n} end
  return rawcall(unpack(args, 1, n))
end

-- redis.call raises the error reply of a failed command. In Redis it is a C function, so that
-- 'return redis.call(...)' is a plain call and the error handler finds the script's line one frame
-- below it; a Lua function here would be tail-called, its caller's frame (and line) replaced. So
-- redis.call is a callable table whose __call is coroutine.wrap's C function, resuming a
-- coroutine that runs the command and yields the reply. A failed command ends that coroutine
-- with the error (the wrap then raises it in the caller's frame); the next call gets a fresh one.
local callMeta, callThread = {}, nil
local yield, running, status = coroutine.yield, coroutine.running, coroutine.status
local refreshCall
local function callLoop(...)
  callThread = running()
  local ok, reply = pcall(command, select(2, ...))
  while true do
    if not ok then
      refreshCall()
      error(reply, 0)
    end
    if type(reply) == 'table' then
      local e = rawget(reply, 'err')
      if e ~= nil then
        refreshCall()
        error({err = e}, 0)
      end
    end
    ok, reply = pcall(command, select(2, yield(reply)))
  end
end
function refreshCall()
  unlock(callMeta)
  rawset(callMeta, '__call', coroutine.wrap(callLoop))
  lock(callMeta)
  callThread = nil
end
callMeta.__call = coroutine.wrap(callLoop)
local callProxy = setmetatable({}, callMeta)

local api = {call = callProxy}
function api.pcall(...) return (command(...)) end
function api.log(...)
  local n = select('#', ...)
  if n < 2 then raise('ERR redis.log() requires two arguments or more.', 1) end
  local level = tonumber((...))
  if level == nil then raise('ERR First argument must be a number (log level).', 1) end
  level = truncate(level)
  if level < 0 or level > 3 then raise('ERR Invalid debug level.', 1) end
  -- The engine keeps no server log: the message is checked, then dropped.
end
function api.setresp(...)
  if select('#', ...) ~= 1 then raise('ERR redis.setresp() requires one argument.', 1) end
  local resp = truncate(tonumber((...)) or 0)
  if resp ~= 2 and resp ~= 3 then raise('ERR RESP version must be 2 or 3.', 1) end
  if resp == 3 then raise(RESP3_ERROR, 1) end
end
function api.sha1hex(...)
  if select('#', ...) ~= 1 then raise('ERR wrong number of arguments', 1) end
  local text = ...
  local t = type(text)
  if t == 'number' then text = tostring(text) elseif t ~= 'string' then text = '' end
  return rawsha1(text)
end
local BAD_REPLY_ARGS = 'ERR wrong number or type of arguments'
function api.error_reply(...)
  local text = ...
  if select('#', ...) ~= 1 or type(text) ~= 'string' then return {err = BAD_REPLY_ARGS} end
  -- luaPushErrorBuff on "-" .. text: the first word is the code, else ERR.
  if sub(text, 1, 1) == '-' then text = sub(text, 2) end
  local space = find(text, ' ', 1, true)
  local code, message = 'ERR', text
  if space then code, message = sub(text, 1, space - 1), sub(text, space + 1) end
  message = gsub(gsub(message, '^[\\r\\n]+', ''), '[\\r\\n]+$', '')
  return {err = code .. ' ' .. message}
end
function api.status_reply(...)
  local text = ...
  if select('#', ...) ~= 1 or type(text) ~= 'string' then return {err = BAD_REPLY_ARGS} end
  return {ok = text}
end
function api.set_repl(...)
  if select('#', ...) ~= 1 then raise('ERR redis.set_repl() requires two arguments.', 1) end
  local flags = truncate(tonumber((...)) or 0)
  if flags < 0 or flags > 3 then raise('ERR Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.', 1) end
end
function api.acl_check_cmd(...)
  local args, n = toArgv(...)
  if not args then raise(n, 1) end
  local verdict = control('acl', unpack(args, 1, n))
  if type(verdict) == 'table' then raise(verdict.err, 1) end
  return verdict == 1
end
local function replicateCommands() return true end
local function breakpoint() return false end
local function debugLog() end

local function constants(t)
  t.LOG_DEBUG, t.LOG_VERBOSE, t.LOG_NOTICE, t.LOG_WARNING = 0, 1, 2, 3
  t.REDIS_VERSION, t.REDIS_VERSION_NUM = ${luaString(constants.version)}, ${constants.versionNumber}
  return t
end
local function replicationConstants(t)
  t.REPL_NONE, t.REPL_AOF, t.REPL_SLAVE, t.REPL_REPLICA, t.REPL_ALL = 0, 1, 2, 2, 3
  return t
end

-- EVAL's redis table (Redis 7.0's script_lua.c) and FCALL's (the same without the
-- eval-only helpers).
local function runtimeApi(forEval)
  local t = {
    call = api.call, pcall = api.pcall, log = api.log, setresp = api.setresp, sha1hex = api.sha1hex,
    error_reply = api.error_reply, status_reply = api.status_reply, set_repl = api.set_repl,
    acl_check_cmd = api.acl_check_cmd,
  }
  if forEval then
    t.replicate_commands, t.breakpoint, t.debug = replicateCommands, breakpoint, debugLog
  end
  return replicationConstants(constants(t))
end
local EVAL_API = runtimeApi(true)
local FUNCTION_API = runtimeApi(false)

-- Error and status texts as Redis writes them (C strings: cut at NUL; an error's trailing newlines
-- trimmed; CR and LF inside become spaces, so that the reply stays one line).
local function cstring(text)
  local nul = find(text, '\\0', 1, true)
  if nul then return sub(text, 1, nul - 1) end
  return text
end
local function errorText(text)
  return (gsub(gsub(cstring(text), '[\\r\\n]+$', ''), '[\\r\\n]', ' '))
end
local function statusText(text)
  return (gsub(cstring(text), '[\\r\\n]', ' '))
end

-- Converts a script's result with Redis's rules (luaReplyToRedisReply) into plain values the
-- package encodes: no metatables are consulted, RESP3 tables become their RESP2 form.
local function double(d)
  if d == huge then return 'inf' end
  if d == -huge then return '-inf' end
  return format('%.17g', d)
end
local INT64_MIN = -9223372036854775808
local function toReply(v, depth)
  local t = type(v)
  if t == 'number' then
    -- (long long) of a double on x86-64 (cvttsd2si): NaN and values out of range give INT64_MIN.
    if v ~= v or v >= 9223372036854775808 or v < INT64_MIN then return INT64_MIN end
    return v
  end
  if t == 'string' or t == 'boolean' then return v end
  if t ~= 'table' then return false end
  if depth > MAX_DEPTH then return {err = 'ERR reached lua stack limit'} end
  local f = rawget(v, 'err')
  if type(f) == 'string' then return {err = errorText(f)} end
  f = rawget(v, 'ok')
  if type(f) == 'string' then return {ok = statusText(f)} end
  f = rawget(v, 'double')
  if type(f) == 'number' then return double(f) end
  f = rawget(v, 'big_number')
  if type(f) == 'string' then return (gsub(f, '[\\r\\n]', ' ')) end
  f = rawget(v, 'verbatim_string')
  if type(f) == 'table' and type(rawget(f, 'format')) == 'string' and type(rawget(f, 'string')) == 'string' then
    return rawget(f, 'string')
  end
  local out, n = {}, 0
  f = rawget(v, 'map')
  if type(f) == 'table' then
    for key, value in next, f do
      out[n + 1], out[n + 2] = toReply(key, depth + 1), toReply(value, depth + 1)
      n = n + 2
    end
    return out
  end
  f = rawget(v, 'set')
  if type(f) == 'table' then
    for key in next, f do
      n = n + 1
      out[n] = toReply(key, depth + 1)
    end
    return out
  end
  while true do
    local item = rawget(v, n + 1)
    if item == nil then return out end
    n = n + 1
    out[n] = toReply(item, depth + 1)
  end
end

-- The error handler of script calls (Redis's __redis__err__handler).
local failure, handling
local function handler(e)
  handling = e
  local src, line
  local at = raisedAt[e]
  if at then
    src, line = at[1], at[2]
  else
    src, line = where(1)
    if not line then src, line = where(2) end
  end
  local message
  if type(e) == 'table' then
    message = e.err
    if type(message) == 'number' then message = tostring(message)
    elseif type(message) ~= 'string' then message = nil end
  else
    message = rewrite('ERR ' .. tostring(e))
  end
  failure = {message, src, line}
  return e
end

-- The reply for a failed call of script or function 'name'.
local function failed(name, result)
  local f = failure
  failure = nil
  if f == nil then
    -- The handler itself failed: Redis's "Error running script" form.
    local e = handling
    if type(e) == 'string' and find(e, FUEL_MESSAGE, 1, true) then return {err = TIMEOUT_ERROR} end
    return {err = 'ERR Error running script ' .. name .. ', ' .. sub(tostring(result), 1, 100)}
  end
  local message, src, line = f[1], f[2], f[3]
  if message == nil then message = 'ERR unknown error'
  elseif find(message, FUEL_MESSAGE, 1, true) then message = TIMEOUT_ERROR end
  message = cstring(message)
  if src and line then message = message .. ' script: ' .. name .. ', on @' .. src .. ':' .. line .. '.' end
  return {err = errorText(message)}
end

local D = {}
local scripts = {}

-- Compiles ARGV[1], a script body (after any shebang line), as script 'sha'.
function D.compile(sha)
  local chunk, message = loadstring('local redis, pcall = ...; ' .. ARGV[1], '@user_script')
  if not chunk then return {err = 'ERR Error compiling script (new function): ' .. message} end
  scripts[sha] = function() return chunk(EVAL_API, redisPcall) end
  return 1
end

-- Before each call: a time limit may have ended redis.call's coroutine without a replacement.
local function ready()
  failure, handling = nil, nil
  if callThread ~= nil and status(callThread) == 'dead' then refreshCall() end
end

function D.run(sha)
  local script = scripts[sha]
  if script == nil then return {err = 'ERR script ' .. sha .. ' is not compiled in this Lua VM'} end
  ready()
  local ok, result = xpcall(script, handler)
  if ok then return toReply(result, 0) end
  return failed(sha, result)
end

function D.forgetScripts()
  scripts = {}
  return 1
end

-- Function libraries.
local FLAGS = {['no-writes'] = 1, ['allow-oom'] = 2, ['allow-stale'] = 4, ['no-cluster'] = 8, ['allow-cross-slot-keys'] = 16}
local libraries, functions, pending, loading = {}, {}, {}, nil

local function readFlags(list)
  local bits, j = 0, 1
  while true do
    local flag = list[j]
    if flag == nil then return bits end
    if type(flag) ~= 'string' and type(flag) ~= 'number' then return nil end
    local bit = FLAGS[lower(tostring(flag))]
    if bit == nil then return nil end
    if bits % (2 * bit) < bit then bits = bits + bit end
    j = j + 1
  end
end

-- redis.register_function (Redis 7.0's function_lua.c), for the library being loaded.
local function register(...)
  if loading == nil then raise('ERR redis.register_function can only be called on FUNCTION LOAD command', 1) end
  local n = select('#', ...)
  if n < 1 or n > 2 then raise('ERR wrong number of arguments to redis.register_function', 1) end
  local name, callback, description, flags
  if n == 1 then
    local named = ...
    if type(named) ~= 'table' then
      raise('ERR calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments).', 1)
    end
    for key, value in next, named do
      if type(key) ~= 'string' and type(key) ~= 'number' then raise('ERR named argument key given to redis.register_function is not a string', 1) end
      local k = lower(tostring(key))
      if k == 'function_name' then
        if type(value) ~= 'string' and type(value) ~= 'number' then raise('ERR function_name argument given to redis.register_function must be a string', 1) end
        name = tostring(value)
      elseif k == 'description' then
        if type(value) ~= 'string' and type(value) ~= 'number' then raise('ERR description argument given to redis.register_function must be a string', 1) end
        description = tostring(value)
      elseif k == 'callback' then
        if type(value) ~= 'function' then raise('ERR callback argument given to redis.register_function must be a function', 1) end
        callback = value
      elseif k == 'flags' then
        if type(value) ~= 'table' then raise('ERR flags argument to redis.register_function must be a table representing function flags', 1) end
        flags = readFlags(value)
        if flags == nil then raise('ERR unknown flag given', 1) end
      else
        raise('ERR unknown argument given to redis.register_function', 1)
      end
    end
    if name == nil then raise('ERR redis.register_function must get a function name argument', 1) end
    if callback == nil then raise('ERR redis.register_function must get a callback argument', 1) end
  else
    local first, second = ...
    if type(first) ~= 'string' and type(first) ~= 'number' then raise('ERR first argument to redis.register_function must be a string', 1) end
    if type(second) ~= 'function' then raise('ERR second argument to redis.register_function must be a function', 1) end
    name, callback = tostring(first), second
  end
  if not find(name, '^[%w_]+$') then
    raise('ERR Library names can only contain letters, numbers, or underscores(_) and must be at least one character long', 1)
  end
  if loading.functions[name] ~= nil then raise('ERR Function already exists in the library', 1) end
  loading.functions[name] = callback
  local list = loading.list
  list[#list + 1] = {name, description or false, flags or 0}
end

local LOAD_API = constants({register_function = register, log = api.log})
setmetatable(LOAD_API, {__index = function(_, k)
  error("Script attempted to access nonexistent global variable '" .. tostring(k) .. "'", 2)
end})

-- The message of an error raised while a library loads (luaExtractErrorInformation, no handler).
local function loadError(e)
  if type(e) == 'table' then
    local m = e.err
    if type(m) == 'string' or type(m) == 'number' then return tostring(m) end
    return 'ERR unknown error'
  end
  local text = tostring(e)
  if find(text, FUEL_MESSAGE, 1, true) then return 'ERR FUNCTION LOAD timeout' end
  return rewrite('ERR ' .. text)
end

-- Loads ARGV[1], a library's code after its shebang line, as library 'name' (not yet callable):
-- replies with {name, description or false, flag bits} per registered function.
function D.load(name)
  local meta = {__index = LOAD_API}
  local proxy = lock(setmetatable({}, meta))
  lock(meta)
  local chunk, message = loadstring('local redis = ...; ' .. ARGV[1], '@user_function')
  if not chunk then return {err = 'ERR Error compiling function: ' .. message} end
  local library = {proxy = proxy, meta = meta, functions = {}, list = {}}
  loading = library
  local ok, e = pcall(chunk, proxy)
  loading = nil
  if not ok then return {err = 'ERR Error registering functions: ' .. loadError(e)} end
  pending[name] = library
  return library.list
end

local function unlink(name)
  local library = libraries[name]
  if library == nil then return end
  for fname in next, library.functions do functions[fname] = nil end
  libraries[name] = nil
end

-- Makes a loaded library callable, replacing one of the same name.
function D.commit(name)
  local library = pending[name]
  if library == nil then return {err = 'ERR library ' .. name .. ' is not pending'} end
  pending[name] = nil
  unlink(name)
  unlock(library.meta)
  rawset(library.meta, '__index', FUNCTION_API)
  lock(library.meta)
  libraries[name] = library
  for fname, callback in next, library.functions do functions[fname] = callback end
  return 1
end

function D.discard()
  pending = {}
  return 1
end

function D.delete(name)
  unlink(name)
  return 1
end

function D.flushLibraries()
  libraries, functions = {}, {}
  return 1
end

local current
local function invoke() return current(KEYS, ARGV) end

function D.fcall(name)
  current = functions[name]
  if current == nil then return {err = 'ERR function ' .. name .. ' is not loaded in this Lua VM'} end
  ready()
  local ok, result = xpcall(invoke, handler)
  current = nil
  if ok then return toReply(result, 0) end
  return failed(name, result)
end

-- Installation: the dispatcher goes into the string metatable; the API tables become read-only.
local strings = getmetatable('')
unlock(strings)
rawset(strings, KEY, D)
lock(strings)
lock(EVAL_API)
lock(FUNCTION_API)
lock(LOAD_API)
lock(getmetatable(LOAD_API))
lock(callProxy)
lock(callMeta)
local written = pcall(rawset, strings, KEY .. '.probe', true)
if written then return {err = 'ERR the string metatable stayed writable'} end
return 1
`
}
