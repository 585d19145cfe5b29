/**
 * Scripting behaviour that cannot be compared with redis-server live: the engine's script time
 * limit (Redis never stops a script by itself), the VM's own limits and recovery, and the named
 * divergences from Redis 7.0.15. The differential cases are in test/differential/scripting.*.
 */
import { afterEach, describe, expect, test } from 'vitest'
import { BigNumber, ReplyDouble, ReplyError, ReplyMap, ReplySet, Status, VerbatimString, type Command, type Reply } from '../../../src/reply.js'
import { Engine } from '../../../src/executor/memory/engine.js'
import { MemoryExecutor } from '../../../src/executor/memory/memory-executor.js'
import { scripting } from '../../../src/executor/memory/commands/scripting/state.js'
import { LuaVmDead } from '../../../src/executor/memory/lua/vm.js'
import { patchFuelHook } from '../../../src/executor/memory/lua/binary.js'

const executors: MemoryExecutor[] = []

/** A fresh executor; closed after the test. */
function executor(scriptTimeLimit?: number): MemoryExecutor {
  const created = new MemoryExecutor({ activeExpiryInterval: 0, scriptTimeLimit })
  executors.push(created)
  return created
}

afterEach(async () => {
  await Promise.all(executors.splice(0).map((e) => e.close()))
})

/** Runs a command synchronously; bulk replies as text. */
function run(memory: MemoryExecutor, command: Command): unknown {
  return text(memory.execSync(command))
}

function text(reply: Reply): unknown {
  if (reply instanceof Uint8Array) return Buffer.from(reply).toString('latin1')
  if (Array.isArray(reply)) return reply.map(text)
  return reply
}

function errorOf(reply: unknown): string {
  expect(reply).toBeInstanceOf(ReplyError)
  return (reply as ReplyError).message
}

const TIMEOUT_PREFIX = 'ERR Script killed by the engine after running longer than the script time limit (50 ms)...'

describe('script time limit (engine option scriptTimeLimit; Redis has no such stop)', () => {
  test('a script spinning in Lua is stopped at the limit, with the line; the engine stays usable', () => {
    const memory = executor(50)
    const started = performance.now()
    const message = errorOf(run(memory, ['EVAL', 'local x = 0\nwhile true do x = x + 1 end', '0']))
    const elapsed = performance.now() - started
    expect(message).toMatch(/^ERR Script killed by the engine after running longer than the script time limit \(50 ms\)\.\.\. script: [0-9a-f]{40}, on @user_script:2\.$/)
    expect(elapsed).toBeGreaterThanOrEqual(50)
    expect(elapsed).toBeLessThan(5000)
    expect(run(memory, ['EVAL', "redis.call('SET', 'k', 'v') return redis.call('GET', 'k')", '0'])).toBe('v')
    expect(run(memory, ['GET', 'k'])).toBe('v')
  })

  test('CONFIG SET busy-reply-threshold (and its alias lua-time-limit) sets the limit the engine stops scripts at; 0 is refused', () => {
    const memory = executor(5000)
    expect(run(memory, ['CONFIG', 'GET', 'busy-reply-threshold'])).toEqual(['busy-reply-threshold', '5000'])
    expect(run(memory, ['CONFIG', 'SET', 'lua-time-limit', '50'])).toEqual(new Status('OK'))
    expect(run(memory, ['CONFIG', 'GET', 'busy-reply-threshold'])).toEqual(['busy-reply-threshold', '50'])
    const started = performance.now()
    expect(errorOf(run(memory, ['EVAL', 'while true do end', '0']))).toMatch(/^ERR Script killed by the engine after running longer than the script time limit \(50 ms\)\.\.\./)
    expect(performance.now() - started).toBeLessThan(4000)
    expect(errorOf(run(memory, ['CONFIG', 'SET', 'busy-reply-threshold', '0']))).toBe(
      "ERR CONFIG SET failed (possibly related to argument 'busy-reply-threshold') - 0 is not supported: the in-memory engine stops a script at this limit, so 0 would stop every script",
    )
    expect(run(memory, ['CONFIG', 'GET', 'busy-reply-threshold'])).toEqual(['busy-reply-threshold', '50'])
    expect(() => new Engine({ scriptTimeLimit: 0 })).toThrow(RangeError)
  })

  test('a script that catches the error and goes on is still stopped', () => {
    const memory = executor(50)
    const spin = 'while true do pcall(function() while true do end end) end'
    expect(errorOf(run(memory, ['EVAL', spin, '0']))).toContain(TIMEOUT_PREFIX)
    const survive = "local ok = pcall(function() while true do end end)\nreturn 'survived'"
    expect(errorOf(run(memory, ['EVAL', survive, '0']))).toContain(TIMEOUT_PREFIX)
    expect(run(memory, ['EVAL', 'return 1', '0'])).toBe(1)
  })

  test('stopped anywhere, even between the runtime unlocking and locking its tables: none stays writable, the VM goes on', () => {
    const memory = executor(1)
    const loops = ["while true do pcall(redis.call, 'INCR', 'm') end", "while true do redis.call('INCR', 'n') end", "while true do pcall(redis.call, 'NOSUCH') end"]
    // The hook raises at a point that depends on timing: many stops land in every part of the runtime.
    for (let i = 0; i < 150; i++) expect(errorOf(run(memory, ['EVAL', loops[i % loops.length], '0']))).toMatch(/^ERR Script killed by the engine after running longer than the script time limit \(1 ms\)/)
    // The checks below must not be stopped themselves: on a busy machine even they can take 1 ms.
    expect(run(memory, ['CONFIG', 'SET', 'lua-time-limit', '5000'])).toEqual(new Status('OK'))
    expect(errorOf(run(memory, ['EVAL', "getmetatable(redis.call).__call = nil return 1", '0']))).toMatch(/Attempt to modify a readonly table/)
    expect(run(memory, ['EVAL', "return redis.call('INCR', 'm') > 0 and 1 or 0", '0'])).toBe(1)
  })

  test('a script looping on redis.call is stopped, and no command runs after the limit', () => {
    const memory = executor(50)
    const loop = "while true do redis.call('INCR', 'n') end"
    expect(errorOf(run(memory, ['EVAL', loop, '0']))).toContain(TIMEOUT_PREFIX)
    const count = Number(run(memory, ['GET', 'n']))
    expect(count).toBeGreaterThan(0)
    expect(run(memory, ['GET', 'n'])).toBe(String(count))
    const caught = "while true do pcall(redis.call, 'INCR', 'm') end"
    expect(errorOf(run(memory, ['EVAL', caught, '0']))).toContain(TIMEOUT_PREFIX)
  })

  test('FCALL is stopped at the limit; the library stays loaded with its state', () => {
    const memory = executor(50)
    const library = "#!lua name=slow\nlocal calls = 0\nredis.register_function('spin', function() calls = calls + 1 while true do end end)\nredis.register_function('calls', function() return calls end)"
    expect(run(memory, ['FUNCTION', 'LOAD', library])).toBe('slow')
    expect(errorOf(run(memory, ['FCALL', 'spin', '0']))).toMatch(/^ERR Script killed by the engine .* script: spin, on @user_function:3\.$/)
    expect(run(memory, ['FCALL', 'calls', '0'])).toBe(1)
  })

  test("FUNCTION LOAD stops a library's code at 500 ms, or the script limit when shorter (Redis: 'FUNCTION LOAD timeout')", () => {
    const memory = executor(50)
    const reply = run(memory, ['FUNCTION', 'LOAD', '#!lua name=forever\nwhile true do end'])
    expect(errorOf(reply)).toBe('ERR Error registering functions: ERR FUNCTION LOAD timeout')
    expect(run(memory, ['FUNCTION', 'LIST'])).toEqual([])
  })

  test("INFO memory counts the cached scripts, the functions and the libraries", () => {
    const memory = executor()
    const counts = () => /number_of_cached_scripts:(\d+)\r\nnumber_of_functions:(\d+)\r\nnumber_of_libraries:(\d+)/.exec(run(memory, ['INFO', 'memory']) as string)?.slice(1)
    expect(counts()).toEqual(['0', '0', '0'])
    run(memory, ['SCRIPT', 'LOAD', 'return 1'])
    run(memory, ['EVAL', 'return 2', '0'])
    run(memory, ['FUNCTION', 'LOAD', "#!lua name=l\nredis.register_function('f1', function() end)\nredis.register_function('f2', function() end)"])
    expect(counts()).toEqual(['2', '2', '1'])
    run(memory, ['SCRIPT', 'FLUSH', 'ASYNC'])
    expect(counts()).toEqual(['0', '2', '1'])
  })

  test('the default limit is 5000 ms', () => {
    expect(new Engine({ activeExpiryInterval: 0 }).scriptTimeLimit).toBe(5000)
  })

  test("the binary's instruction hook carries the clock check (else the limit is an instruction budget)", async () => {
    const { readFileSync } = await import('node:fs')
    const { fileURLToPath } = await import('node:url')
    const { LuaWasmModule } = await import('lua-redis-wasm')
    const patched = patchFuelHook(readFileSync(fileURLToPath(LuaWasmModule.defaultWasmPath())))
    expect(patched?.fuelAddress).toBeTypeOf('number')
    expect(patchFuelHook(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]))).toBeNull()
  })
})

describe('the Lua VM', () => {
  test('scripts run synchronously: execSync and MULTI/EXEC need no await', async () => {
    const memory = executor()
    expect(run(memory, ['EVAL', "return redis.call('INCR', KEYS[1])", '1', 'c'])).toBe(1)
    const replies = await memory.transaction([['EVAL', "return redis.call('INCR', 'c')", '0'], ['INCR', 'c'], ['EVAL', "return redis.call('GET', 'c')", '0']])
    expect(text(replies as Reply)).toEqual([2, 3, '3'])
  })

  test('the VM memory is 64 MB: a script exceeding it gets an error, and the engine goes on', () => {
    const memory = executor()
    const hog = "local t = {} for i = 1, 1e6 do t[i] = string.rep('x', 1048576) .. i end return #t"
    expect(errorOf(run(memory, ['EVAL', hog, '0']))).toMatch(/not enough memory/)
    expect(run(memory, ['EVAL', "return redis.call('PING')", '0'])).toEqual(new Status('PONG'))
    expect(run(memory, ['EVAL', 'return 7', '0'])).toBe(7)
  })

  test('arguments too large for the VM memory are refused before the script runs', () => {
    const memory = executor()
    const huge = 'x'.repeat(80 * 1024 * 1024)
    expect(errorOf(run(memory, ['EVAL', 'return #ARGV[1]', '0', huge]))).toBe(
      'ERR the script and its arguments do not fit in the Lua VM memory',
    )
    expect(run(memory, ['EVAL', 'return 1', '0'])).toBe(1)
  })

  test('a VM that dies is replaced: the command fails, libraries come back, cached scripts recompile', () => {
    const engine = new Engine({ activeExpiryInterval: 0 })
    const session = engine.createSession()
    expect(engine.call(session, ['FUNCTION', 'LOAD', "#!lua name=keep\nlocal n = 0\nredis.register_function('bump', function() n = n + 1 return n end)"])).toBe('keep')
    const sha = engine.call(session, ['SCRIPT', 'LOAD', 'return ARGV[1]']) as string
    expect(engine.call(session, ['FCALL', 'bump', '0'])).toBe(1)
    const state = scripting(engine)
    const failed = state.withVm(() => {
      throw new LuaVmDead('simulated')
    })
    expect(failed).toEqual(new ReplyError('ERR the Lua VM failed and was reset: simulated'))
    // The library is loaded again (its upvalue starts over); the script recompiles from the cache.
    expect(engine.call(session, ['FCALL', 'bump', '0'])).toBe(1)
    expect(engine.call(session, ['EVALSHA', sha, '0', 'again'])).toBe('again')
    engine.close()
  })

  test('MONITOR shows EVAL before the commands its script runs, those with the lua address', () => {
    const engine = new Engine({ activeExpiryInterval: 0 })
    const lines: string[] = []
    engine.addMonitor((line) => lines.push(line.slice(line.indexOf(' ') + 1)))
    const session = engine.createSession('127.0.0.1:5000')
    engine.call(session, ['EVAL', "redis.call('SET', KEYS[1], '1') return redis.call('GET', KEYS[1])", '1', 'k'])
    expect(lines).toEqual([
      '[0 127.0.0.1:5000] "EVAL" "redis.call(\'SET\', KEYS[1], \'1\') return redis.call(\'GET\', KEYS[1])" "1" "k"',
      '[0 lua] "SET" "k" "1"',
      '[0 lua] "GET" "k"',
    ])
    engine.close()
  })

  test("ACL rules apply inside scripts, in Redis's words (checked against redis-server 7.0.15 with a restricted user)", () => {
    const engine = new Engine({ activeExpiryInterval: 0 })
    const admin = engine.createSession()
    engine.call(admin, ['ACL', 'SETUSER', 'limited', 'on', 'nopass', '+@all', '-set', '~allowed*', 'resetchannels'])
    const session = engine.createSession('127.0.0.1:1', 'limited')
    const evaluate = (script: string) => engine.call(session, ['EVAL', script, '0'])
    expect((evaluate("return redis.call('SET', 'allowed', 'v')") as ReplyError).message).toMatch(
      /^ERR The user executing the script can't run this command or subcommand script: [0-9a-f]{40}, on @user_script:1\.$/,
    )
    expect((evaluate("return redis.call('GET', 'other')") as ReplyError).message).toMatch(
      /^ERR The user executing the script can't access at least one of the keys mentioned in the command arguments script: /,
    )
    expect(evaluate("return redis.pcall('GET', 'other')")).toEqual(
      new ReplyError("ERR The user executing the script can't access at least one of the keys mentioned in the command arguments"),
    )
    expect((evaluate("return redis.call('PUBLISH', 'ch', 'm')") as ReplyError).message).toMatch(
      /^ERR The user executing the script can't publish to the channel mentioned in the command script: /,
    )
    expect(evaluate("return {redis.acl_check_cmd('SET', 'allowedx', 'v'), redis.acl_check_cmd('GET', 'a'), redis.acl_check_cmd('GET', 'allowedx')}")).toEqual([null, null, 1])
    engine.close()
  })

  test('commands from scripts are counted in INFO commandstats like any other', () => {
    const engine = new Engine({ activeExpiryInterval: 0 })
    const session = engine.createSession()
    engine.call(session, ['EVAL', "redis.call('SET', 'a', '1') redis.call('SET', 'b', '2')", '0'])
    expect(engine.stats.commands.get('set')?.calls).toBe(2)
    expect(engine.stats.commands.get('eval')?.calls).toBe(1)
    engine.close()
  })
})

describe('RESP3 in scripts (CallContext.resp; the wire bytes are checked against Redis in test/adapters/resp3)', () => {
  const typedScript = "return {{double = 1.5}, {map = {a = 'x'}}, {set = {m = true}}, {big_number = '12'}, {verbatim_string = {format = 'mkd', string = 'v'}}}"

  test('a RESP3 caller gets the RESP3 types a script returns; RESP2 callers (the default) their RESP2 form', () => {
    const memory = executor()
    const typed = memory.execSync(['EVAL', typedScript, '0'], { resp: 3 }) as Reply[]
    expect(typed[0]).toEqual(new ReplyDouble('1.5'))
    expect(typed[1]).toEqual(new ReplyMap([Buffer.from('a'), Buffer.from('x')]))
    expect(typed[2]).toEqual(new ReplySet([Buffer.from('m')]))
    expect(typed[3]).toEqual(new BigNumber('12'))
    expect(typed[4]).toEqual(new VerbatimString('mkd', Buffer.from('v')))
    expect(run(memory, ['EVAL', typedScript, '0'])).toEqual(['1.5', ['a', 'x'], ['m'], '12', 'v'])
    expect(text(memory.execSync(['EVAL', typedScript, '0'], { resp: 2 }))).toEqual(['1.5', ['a', 'x'], ['m'], '12', 'v'])
  })

  test('booleans follow the script protocol: RESP2 gives 1 and null, redis.setresp(3) a boolean (1 and 0 for a RESP2 caller)', () => {
    const memory = executor()
    expect(memory.execSync(['EVAL', 'return {true, false}', '0'], { resp: 3 })).toEqual([1, null])
    expect(memory.execSync(['EVAL', 'return false', '0'], { resp: 3 })).toBeNull()
    expect(memory.execSync(['EVAL', 'redis.setresp(3) return {true, false}', '0'], { resp: 3 })).toEqual([true, false])
    expect(run(memory, ['EVAL', 'redis.setresp(3) return {true, false}', '0'])).toEqual([1, 0])
  })

  test('after redis.setresp(3), redis.call gives each command its RESP3 shape in Lua, nulls as nil', () => {
    const memory = executor()
    run(memory, ['HSET', 'h', 'f', 'v'])
    run(memory, ['ZADD', 'z', '2.5', 'm'])
    const script = [
      'redis.setresp(3)',
      "local h, s, d = redis.call('HGETALL', 'h'), redis.call('SMEMBERS', 'nokey'), redis.call('ZSCORE', 'z', 'm')",
      "local g, mg = redis.call('GET', 'nokey'), redis.call('MGET', 'nokey', 'h')",
      "return {h.map.f, type(s.set), d.double, tostring(g), mg[1] == nil, type(mg[2])}",
    ].join(' ')
    expect(run(memory, ['EVAL', script, '0'])).toEqual(['v', 'table', 2, 'nil', 1, 'nil'])
    // RESP2 again at the next script, as in Redis.
    expect(run(memory, ['EVAL', "return type(redis.call('GET', 'nokey'))", '0'])).toBe('boolean')
  })

  test('a RESP3 caller inside MULTI gets the typed reply of a queued EVAL', async () => {
    const memory = executor()
    const replies = await memory.transaction([['EVAL', 'return {double = 0.5}', '0']], { resp: 3 })
    expect(replies).toEqual([new ReplyDouble('0.5')])
  })
})

describe('named divergences from Redis 7.0.15', () => {

  test('SCRIPT DEBUG YES and SYNC are refused (Redis starts its Lua debugger)', () => {
    const memory = executor()
    expect(errorOf(run(memory, ['SCRIPT', 'DEBUG', 'YES']))).toBe('ERR SCRIPT DEBUG YES/SYNC is not supported by the in-memory engine')
    expect(errorOf(run(memory, ['SCRIPT', 'DEBUG', 'sync']))).toBe('ERR SCRIPT DEBUG YES/SYNC is not supported by the in-memory engine')
  })

  test('redis.call is a callable table (a C function in Redis), so a tail call keeps its line', () => {
    const memory = executor()
    expect(run(memory, ['EVAL', 'return type(redis.call)', '0'])).toBe('table')
    expect(run(memory, ['EVAL', 'return type(redis.pcall)', '0'])).toBe('function')
  })

  test('other redis.* helpers raising in a tail call lose the line (Redis: "script: …, on @user_script:1.")', () => {
    const memory = executor()
    expect(errorOf(run(memory, ['EVAL', 'return redis.setresp(4)', '0']))).toBe('ERR RESP version must be 2 or 3.')
    expect(errorOf(run(memory, ['EVAL', 'local x = redis.setresp(4)', '0']))).toMatch(/ on @user_script:1\.$/)
  })

  test('redis.log checks its arguments and discards the message (the engine keeps no server log)', () => {
    const memory = executor()
    expect(run(memory, ['EVAL', "return redis.log(redis.LOG_WARNING, 'kept nowhere')", '0'])).toBeNull()
  })

  test('library code runs at load time with the full globals (Redis exposes only redis there)', () => {
    const memory = executor()
    const library = "#!lua name=loose\nlocal kind = type(1)\nredis.register_function('kind', function() return kind end)"
    expect(run(memory, ['FUNCTION', 'LOAD', library])).toBe('loose')
    expect(run(memory, ['FCALL', 'kind', '0'])).toBe('number')
  })

  test('functions see KEYS and ARGV as globals too (Redis: nonexistent global)', () => {
    const memory = executor()
    const library = "#!lua name=g\nredis.register_function('globals', function(keys) return {KEYS[1], keys[1]} end)"
    run(memory, ['FUNCTION', 'LOAD', library])
    expect(run(memory, ['FCALL', 'globals', '1', 'k'])).toEqual(['k', 'k'])
  })

  test('FUNCTION DUMP stores library code uncompressed (Redis LZF-compresses code over 20 bytes)', () => {
    const memory = executor()
    const code = "#!lua name=plain\nredis.register_function('plain', function() return 1 end)"
    run(memory, ['FUNCTION', 'LOAD', code])
    const payload = run(memory, ['FUNCTION', 'DUMP']) as string
    expect(payload.includes(code)).toBe(true)
    expect(payload.charCodeAt(0)).toBe(245)
  })
})

describe("the hosted service's allow-key-locking flag (unknown to Redis 7.0, which refuses it)", () => {
  test('a script declaring it runs, writes, and keeps the effect of the Redis flags beside it', () => {
    const memory = executor()
    expect(run(memory, ['EVAL', "#!lua flags=allow-key-locking\nreturn redis.call('INCR', KEYS[1])", '1', 'n'])).toBe(1)
    expect(run(memory, ['EVAL_RO', "#!lua flags=no-writes,allow-key-locking\nreturn redis.call('GET', KEYS[1])", '1', 'n'])).toBe('1')
    expect(errorOf(run(memory, ['EVAL', "#!lua flags=allow-key-locking,no-writes\nreturn redis.call('DEL', 'n')", '0']))).toMatch(
      /^ERR Write commands are not allowed from read-only scripts/,
    )
    expect(errorOf(run(memory, ['EVAL_RO', '#!lua flags=allow-key-locking\nreturn 1', '0']))).toMatch(/^ERR Can not execute a script with write flag using \*_ro command/)
  })

  test('a function may declare it in register_function; FUNCTION LIST shows it; FCALL runs', () => {
    const memory = executor()
    const library = "#!lua name=hosted\nredis.register_function{function_name='bump', callback=function(keys) return redis.call('INCR', keys[1]) end, flags={'no-writes', 'allow-key-locking'}}"
    expect(run(memory, ['FUNCTION', 'LOAD', library])).toBe('hosted')
    const listing = run(memory, ['FUNCTION', 'LIST']) as unknown[][]
    const functions = listing[0][5] as unknown[][]
    expect(functions[0][5]).toEqual([new Status('no-writes'), new Status('allow-key-locking')])
    expect(errorOf(run(memory, ['FCALL', 'bump', '1', 'n']))).toMatch(/^ERR Write commands are not allowed from read-only scripts/)
    expect(run(memory, ['FUNCTION', 'LOAD', 'REPLACE', library.replace("'no-writes', ", '')])).toBe('hosted')
    expect(run(memory, ['FCALL', 'bump', '1', 'n'])).toBe(1)
  })
})
