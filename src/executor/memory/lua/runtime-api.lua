-- First part of the Lua runtime (runtime.ts explains the whole): shared helpers, the error
-- plumbing, the redis API tables, Redis 7's pcall, and the conversion of script results.
-- runtime-dispatch.lua follows it in the same chunk and uses its locals.
--
-- The host passes its constants as the chunk's arguments (runtimeArguments in runtime.ts): the
-- marker of control requests, the dispatcher's key in the string metatable, the time-limit
-- error, the Redis version and its number, the deepest reply nesting converted, and the
-- runtime's chunk name.
local MARK, KEY, TIMEOUT_ERROR, REDIS_VERSION, REDIS_VERSION_NUM, MAX_DEPTH, RUNTIME = ...
REDIS_VERSION_NUM, MAX_DEPTH = tonumber(REDIS_VERSION_NUM), tonumber(MAX_DEPTH)
local FUEL_MESSAGE = 'Script killed by fuel limit'
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

-- Past the time limit no error may be caught: the hook raises its error every 1000
-- instructions, and a script catching it in a loop would run on forever. Redis switches its kill
-- hook to fire on every line for the same reason. (Asked only when an error was caught.)
local function expired() return control('expired') == 1 end

-- Redis 7's global pcall: an error table with an 'err' string comes back as that string.
local function settle(ok, ...)
  if ok then return true, ... end
  if expired() then error((...), 0) end
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

-- xpcall and coroutine.resume as Lua's, except past the time limit.
local function unlessExpired(ok, ...)
  if not ok and expired() then error((...), 0) end
  return ok, ...
end
local function redisXpcall(f, handler) return unlessExpired(xpcall(f, handler)) end
local rawResume = coroutine.resume
local function redisResume(co, ...) return unlessExpired(rawResume(co, ...)) end

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
-- The script's protocol (redis.setresp): 2 at the start of every script, as in Redis. Under 3
-- the host sends each command's RESP3 reply, which the package turns into Redis's Lua shapes
-- ({map = …}, {set = …}, {double = …} …), except that it hands a null over as false where Redis
-- gives nil: resp3 puts that right, at the top and inside tables (a nil leaves a hole).
local scriptResp = 2
local function dropNulls(t)
  for k, v in next, t do
    if v == false then t[k] = nil elseif type(v) == 'table' then dropNulls(v) end
  end
end
local function resp3(reply)
  if reply == false then return nil end
  if type(reply) == 'table' and rawget(reply, 'err') == nil then dropNulls(reply) end
  return reply
end
-- A converted argument list longer than unpack can spread (Lua's 8,000 stack slots; Redis's C
-- redis.call takes any number) goes to the host in parts, then runs as one command.
local PART = 4000
local function send(args, n)
  if n <= PART then return rawcall(unpack(args, 1, n)) end
  for i = 1, n, PART do control('part', unpack(args, i, i + PART - 1 < n and i + PART - 1 or n)) end
  return control('run')
end
local function command(...)
  if select('#', ...) > 0 and allStrings(...) then
    if scriptResp == 2 then return rawcall(...) end
    return resp3(rawcall(...))
  end
  local args, n = toArgv(...)
  if not args then return {err = n} end
  if scriptResp == 2 then return send(args, n) end
  return resp3(send(args, n))
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
  scriptResp = resp
  control('resp', tostring(resp))
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
  message = gsub(gsub(message, '^[\r\n]+', ''), '[\r\n]+$', '')
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
  t.REDIS_VERSION, t.REDIS_VERSION_NUM = REDIS_VERSION, REDIS_VERSION_NUM
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
  local nul = find(text, '\0', 1, true)
  if nul then return sub(text, 1, nul - 1) end
  return text
end
local function errorText(text)
  return (gsub(gsub(cstring(text), '[\r\n]+$', ''), '[\r\n]', ' '))
end
local function statusText(text)
  return (gsub(cstring(text), '[\r\n]', ' '))
end

-- Converts a script's result with Redis's rules (luaReplyToRedisReply) into plain values the
-- package encodes: no metatables are consulted. For a RESP2 caller the RESP3 tables become their
-- RESP2 form here. For a RESP3 caller (typedReply) they keep their type: the package has no way
-- to send a map or a set in the order Lua's next gives (its encoder walks a table of its own),
-- so each RESP3 value travels as a status reply whose text is the control marker, the RESP3 type
-- character and the payload (a map or a set: an array led by such a status), which the host
-- decodes (abi.ts).
local typedReply = false
local function tag(kind, payload) return {ok = MARK .. kind .. (payload or '')} end
local MAP_TAG, SET_TAG, TRUE_TAG, FALSE_TAG = tag('%'), tag('~'), tag('#', 't'), tag('#', 'f')
local function double(d)
  if d == huge then return 'inf' end
  if d == -huge then return '-inf' end
  return format('%.17g', d)
end
-- A Lua boolean: Redis's RESP2 rule (true is 1, false null) unless the script chose RESP3, then
-- a boolean, which a RESP2 caller reads as 1 or 0.
local function boolean(v)
  if scriptResp == 2 then return v end
  if typedReply then return v and TRUE_TAG or FALSE_TAG end
  return v and 1 or 0
end
-- A verbatim string's format: three characters, cut at NUL, padded with spaces (addReplyVerbatim).
local function verbatimFormat(f)
  return sub(cstring(f) .. '   ', 1, 3)
end
local INT64_MIN = -9223372036854775808
local function toReply(v, depth)
  local t = type(v)
  if t == 'number' then
    -- (long long) of a double on x86-64 (cvttsd2si): NaN and values out of range give INT64_MIN.
    if v ~= v or v >= 9223372036854775808 or v < INT64_MIN then return INT64_MIN end
    return v
  end
  if t == 'string' then return v end
  if t == 'boolean' then return boolean(v) end
  if t ~= 'table' then return false end
  if depth > MAX_DEPTH then return {err = 'ERR reached lua stack limit'} end
  local f = rawget(v, 'err')
  if type(f) == 'string' then return {err = errorText(f)} end
  f = rawget(v, 'ok')
  if type(f) == 'string' then return {ok = statusText(f)} end
  f = rawget(v, 'double')
  if type(f) == 'number' then
    if typedReply then return tag(',', double(f)) end
    return double(f)
  end
  f = rawget(v, 'big_number')
  if type(f) == 'string' then
    if typedReply then return tag('(', (gsub(f, '[\r\n]', ' '))) end
    return (gsub(f, '[\r\n]', ' '))
  end
  f = rawget(v, 'verbatim_string')
  if type(f) == 'table' and type(rawget(f, 'format')) == 'string' and type(rawget(f, 'string')) == 'string' then
    if typedReply then return tag('=', verbatimFormat(rawget(f, 'format')) .. rawget(f, 'string')) end
    return rawget(f, 'string')
  end
  local out, n = {}, 0
  f = rawget(v, 'map')
  if type(f) == 'table' then
    if typedReply then out[1], n = MAP_TAG, 1 end
    for key, value in next, f do
      out[n + 1], out[n + 2] = toReply(key, depth + 1), toReply(value, depth + 1)
      n = n + 2
    end
    return out
  end
  f = rawget(v, 'set')
  if type(f) == 'table' then
    if typedReply then out[1], n = SET_TAG, 1 end
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
