-- Second part of the Lua runtime (runtime.ts explains the whole): the error handler, the script
-- cache, function libraries with redis.register_function, the dispatcher the host calls, and
-- the installation. It follows runtime-api.lua in the same chunk.

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
    -- error() called by runtime code standing for one of Redis's C functions (the load-time
    -- API's __index): the script's frame is one further.
    if not line then src, line = where(3) end
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
    -- Memory errors skip the handler (as in Redis); so does a failure of the handler itself.
    -- Either way Redis's "Error running script" form. After a memory error the script's data is
    -- garbage: collect it now, or there is no room left to build the reply.
    if result == 'not enough memory' then collectgarbage('collect') end
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

-- The global redis: EVAL's API for scripts, FUNCTION's for functions, the load-time API while a
-- library loads (a library that keeps that table in a local keeps the load-time API, as in
-- Redis). _G stays read-only, so that assigning redis fails as in Redis; it is switched only when
-- the kind of call changes.
local globalRedis
local function useRedis(t)
  if globalRedis == t then return end
  unlock(_G)
  rawset(_G, 'redis', t)
  lock(_G)
  globalRedis = t
end

-- Compiles ARGV[1], a script body (after any shebang line), as script 'sha'.
function D.compile(sha)
  local chunk, message = loadstring(ARGV[1], '@user_script')
  if not chunk then return {err = 'ERR Error compiling script (new function): ' .. message} end
  scripts[sha] = chunk
  return 1
end

-- Before each call: a time limit may have ended redis.call's coroutine without a replacement.
local function ready(resp)
  failure, handling = nil, nil
  scriptResp, typedReply = 2, resp == '3'
  if callThread ~= nil and status(callThread) == 'dead' then refreshCall() end
end

-- 'resp' is the caller's protocol: '3' keeps the RESP3 types of the result.
function D.run(sha, resp)
  local script = scripts[sha]
  if script == nil then return {err = 'ERR script ' .. sha .. ' is not compiled in this Lua VM'} end
  ready(resp)
  useRedis(EVAL_API)
  local ok, result = xpcall(script, handler)
  if ok then return toReply(result, 0) end
  return failed(sha, result)
end

function D.forgetScripts()
  scripts = {}
  return 1
end

-- Function libraries.
-- allow-key-locking (32) is the hosted service's flag, accepted with no effect (see SCRIPT_FLAGS).
local FLAGS = {['no-writes'] = 1, ['allow-oom'] = 2, ['allow-stale'] = 4, ['no-cluster'] = 8, ['allow-cross-slot-keys'] = 16, ['allow-key-locking'] = 32}
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
  local chunk, message = loadstring(ARGV[1], '@user_function')
  if not chunk then return {err = 'ERR Error compiling function: ' .. message} end
  local library = {functions = {}, list = {}}
  loading = library
  useRedis(LOAD_API)
  local ok, e = pcall(chunk)
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

function D.fcall(name, resp)
  current = functions[name]
  if current == nil then return {err = 'ERR function ' .. name .. ' is not loaded in this Lua VM'} end
  ready(resp)
  useRedis(FUNCTION_API)
  local ok, result = xpcall(invoke, handler)
  current = nil
  if ok then return toReply(result, 0) end
  return failed(name, result)
end

-- Installation. The dispatcher goes into the string metatable; the globals get this module's
-- redis table and pcall (Redis 7 replaces the global pcall too), xpcall and coroutine.resume, so
-- that scripts, and chunks they load with loadstring, all see them; the API tables become
-- read-only like the rest of the globals.
local function install(t, key, value)
  unlock(t)
  rawset(t, key, value)
  lock(t)
end
local strings = getmetatable('')
install(strings, KEY, D)
local globals = _G
unlock(globals)
rawset(globals, 'redis', EVAL_API)
globalRedis = EVAL_API
rawset(globals, 'pcall', redisPcall)
rawset(globals, 'xpcall', redisXpcall)
lock(globals)
install(coroutine, 'resume', redisResume)
lock(EVAL_API)
lock(FUNCTION_API)
lock(LOAD_API)
lock(getmetatable(LOAD_API))
lock(callProxy)
lock(callMeta)
if pcall(rawset, strings, KEY .. '.probe', true) then return {err = 'ERR the string metatable stayed writable'} end
return 1
