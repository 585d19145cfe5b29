/**
 * Differential cases of EVAL, EVALSHA, their `_RO` forms and SCRIPT (Redis 7.0 eval.c,
 * script_lua.c): conversions both ways, error replies of every kind, read-only refusals, the
 * shebang, the script cache. Library modules (cjson, cmsgpack, struct, bit) are in
 * `scripting.libraries.cases.ts`, functions in `scripting.functions.cases.ts`.
 *
 * Scripts that exercise the error line of the `redis.*` helpers other than `redis.call` call them
 * plainly (`local x = redis.setresp(4)`): in a tail call (`return redis.setresp(4)`) the engine
 * loses the line, a divergence its unit tests name (test/executor/memory/scripting.test.ts).
 */
import { createHash } from 'node:crypto'
import type { Command } from '../../src/reply.js'
import type { DiffCase } from './harness.js'

/** SHA1 of a script, as SCRIPT LOAD replies it. */
export function sha1(script: string): string {
  return createHash('sha1').update(script).digest('hex')
}

/** EVAL script numkeys key… arg… */
export function ev(script: string, keys: readonly string[] = [], args: readonly string[] = []): Command {
  return ['EVAL', script, String(keys.length), ...keys, ...args]
}

const conversions: DiffCase[] = [
  {
    name: 'Lua numbers become integers truncated toward zero; out of range and NaN become INT64_MIN',
    commands: [ev('return 1'), ev('return 3.99'), ev('return -3.9'), ev('return 0.5'), ev('return -0.0'), ev('return 2^53 + 1'), ev('return 1e20'), ev('return -1e20'), ev('return 0/0'), ev('return 1/0'), ev('return -1/0'), ev('return 9223372036854775807')],
  },
  {
    name: 'Lua strings, booleans and nil: bulk, 1 for true, nil for false and nil',
    commands: [ev("return 'text'"), ev("return ''"), ev('return true'), ev('return false'), ev('return nil'), ev('return'), ev(''), ev("return '1.5'"), ev("return '\\0a\\255'")],
  },
  {
    name: 'A script returns only its first value',
    commands: [ev('return 1, 2, 3'), ev("return 'a', 'b'"), ev('return nil, 2')],
  },
  {
    name: 'Tables are arrays up to the first nil; other keys are ignored',
    commands: [ev('return {1, 2, 3.7, nil, 5}'), ev('return {nil, 2}'), ev('return {}'), ev('return {1, 2, x = 3}'), ev('return {[2] = 2}'), ev("return {a = 1, b = 'x'}"), ev('return {1, {2, {3, {4, "deep"}}}, {}}')],
  },
  {
    name: 'Booleans inside tables: true is 1, false is nil and does not end the array',
    commands: [ev("return {true, false, 'x', false}"), ev('return {false}'), ev('return {{true}, {false}}')],
  },
  {
    name: 'Functions, coroutines and metatables convert as Redis does',
    commands: [ev('return function() end'), ev('return {function() end, 1}'), ev('return coroutine.create(function() end)'), ev('return _G'), ev("return setmetatable({}, {__index = function() return 'x' end})"), ev("return setmetatable({1}, {__index = function() error('meta') end})")],
  },
  {
    name: '{ok=…} is a status reply and {err=…} an error reply, err taking precedence',
    commands: [ev("return {ok = 'FINE'}"), ev("return {err = 'My Error'}"), ev("return {err = 'E', ok = 'S'}"), ev("return {err = ''}"), ev('return {ok = 1}'), ev('return {err = 1}'), ev("return {1, {ok = 'S'}, {err = 'E'}}"), ev("return {ok = 'a\\r\\nb'}"), ev("return {err = 'a\\nb\\n'}"), ev("return {err = 'a\\0b'}")],
  },
  {
    name: 'RESP3 tables reply in their RESP2 form',
    commands: [ev('return {double = 1.5}'), ev('return {double = 3}'), ev('return {double = 0.1}'), ev('return {double = 1/0}'), ev('return {double = -1/0}'), ev("return {double = 'x'}"), ev("return {map = {a = 1}}"), ev("return {set = {a = true}}"), ev("return {big_number = '123'}"), ev("return {big_number = '1\\r\\n2'}"), ev("return {verbatim_string = {format = 'txt', string = 'x'}}"), ev("return {verbatim_string = {format = 'txt'}}"), ev('return {{double = 2.5}}')],
  },
  {
    name: 'KEYS and ARGV carry the arguments, binary-safe',
    commands: [ev('return {KEYS[1], ARGV[1], #KEYS, #ARGV}', ['a'], ['b', 'c']), ev('return KEYS', ['a', 'b']), ev('return ARGV', [], ['x', '', 'y']), ev('return {#KEYS, #ARGV}'), ['EVAL', 'return {KEYS[1], ARGV[1]}', '1', Uint8Array.from([0, 255, 13, 10]), Uint8Array.from([0x80])]],
  },
  {
    name: 'redis.call replies become Lua values: integer, bulk, false for nil, status and error tables',
    commands: [
      ['SET', 'k', 'v'], ['RPUSH', 'l', 'a', 'b'], ['SET', 'n', '10'],
      ev("return redis.call('GET', 'k')"), ev("return type(redis.call('GET', 'missing'))"), ev("return redis.call('GET', 'missing') == false"),
      ev("return redis.call('INCR', 'n')"), ev("return type(redis.call('INCR', 'n'))"), ev("return redis.call('LRANGE', 'l', 0, -1)"),
      ev("return redis.call('SET', 'k', 'w')"), ev("return redis.call('SET', 'k', 'w').ok"), ev("return redis.call('PING')"), ev("return type(redis.call('PING'))"),
      ev("return redis.pcall('INCR', 'k')"), ev("return redis.pcall('INCR', 'k').err"), ev("return {redis.call('MGET', 'k', 'missing', 'n')}"),
      ev("return redis.call('LPOP', 'missing', 2) == false"),
    ],
  },
  {
    name: 'Numbers passed to redis.call are formatted with %.17g',
    commands: [
      ev("redis.call('SET', 'f', 0.1) return redis.call('GET', 'f')"), ev("redis.call('SET', 'f', 1/3) return redis.call('GET', 'f')"),
      ev("redis.call('SET', 'f', 2^53) return redis.call('GET', 'f')"), ev("redis.call('SET', 'f', 1e20) return redis.call('GET', 'f')"),
      ev("redis.call('SET', 'f', -1e300) return redis.call('GET', 'f')"), ev("redis.call('SET', 'f', 1/0) return redis.call('GET', 'f')"),
      ev("redis.call('SET', 'f', -0.0) return redis.call('GET', 'f')"), ev("redis.call('SET', 'f', 0/0) return redis.call('GET', 'f')"),
      ev("redis.call('SET', 'f', 1700000000000000) return redis.call('GET', 'f')"), ev("return redis.call('INCRBYFLOAT', 'g', 0.1)"),
      ev("return redis.call('ZADD', 'z', 1.5, 'm')"), ev("return redis.call('ZSCORE', 'z', 'm')"),
    ],
  },
  {
    name: 'Arguments of redis.call must be strings or numbers',
    commands: [ev("return redis.call('SET', 'k', true)"), ev("return redis.call('SET', 'k', {})"), ev("return redis.call('SET', 'k', nil)"), ev("return redis.pcall('SET', 'k', true)"), ev('return redis.call({})'), ev('return redis.pcall({})'), ev('return redis.call()'), ev('return redis.pcall()'), ['EXISTS', 'k']],
  },
  {
    name: 'Commands from a script run in the caller database; SELECT inside it does not leak',
    commands: [['SELECT', '2'], ['SET', 'k', 'db2'], ev("return redis.call('GET', 'k')"), ev("redis.call('SELECT', '3') return redis.call('SET', 'k', 'db3')"), ['GET', 'k'], ['SELECT', '3'], ['GET', 'k'], ['SELECT', '0'], ev("return redis.call('GET', 'k')")],
  },
  {
    name: 'Script effects stay when it fails later',
    commands: [ev("redis.call('SET', 'k', '1') error('after')"), ['GET', 'k'], ev("redis.call('INCR', 'k') redis.call('LPUSH', 'k', 'x')"), ['GET', 'k']],
  },
]

const errors: DiffCase[] = [
  {
    name: 'Compile errors name the script chunk and line',
    commands: [ev('retur 1'), ev('return 1 end'), ev('x ='), ev('\n\nlocal = 2'), ev("return 'unfinished"), ev('return (')],
  },
  {
    name: 'Runtime errors carry ERR, the position and the script location',
    commands: [ev("error('boom')"), ev("\n\nerror('boom')"), ev("error('boom', 0)"), ev("error('boom', 2)"), ev('error(123)'), ev('error()'), ev('error(nil)'), ev('error(true)'), ev('local x = nil + 1'), ev('local t = nil\nreturn t.x'), ev("return ('x'):bad()"), ev("local function f() error('in f') end\nlocal function g() f() end\ng()")],
  },
  {
    name: 'Error tables raised with error() keep their text, with or without a code',
    commands: [ev("error({err = 'boom2'})"), ev("error({err = 'MYCODE boom2'})"), ev('error({err = 5})'), ev("error({err = 'x\\ny'})"), ev("error({err = 'x', source = '@src', line = 7})"), ev("error(redis.error_reply('CODE from reply'))")],
  },
  {
    name: 'Globals are read-only; reading a missing one is an error',
    commands: [ev('x = 1'), ev('function f() end'), ev('return y'), ev("\nreturn undefined_thing"), ev('redis.call = nil'), ev("string.foo = 1"), ev('KEYS = {}'), ev("local ok, e = pcall(function() return y end) return e")],
  },
  {
    name: 'redis.call errors propagate with the script location, also from a tail call',
    commands: [
      ['SET', 's', 'abc'],
      ev("return redis.call('INCR', 's')"), ev("redis.call('INCR', 's')"), ev("local x = 1\n\nreturn redis.call('LPUSH', 's', 'a')"),
      ev("return redis.call('nosuch')"), ev("return redis.call('GET')"), ev("return redis.call('GET', 'a', 'b')"), ev("return redis.call('CONFIG', 'nosuch')"), ev("return redis.call('CONFIG')"),
      ev("local function f() return redis.call('INCR', 's') end\nlocal v = f()\nreturn v"),
      ev("local call = redis.call\nreturn call('INCR', 's')"),
    ],
  },
  {
    name: 'redis.pcall returns error tables; Lua pcall turns error tables into their message',
    commands: [
      ['SET', 's', 'abc'],
      ev("return redis.pcall('INCR', 's')"), ev("return redis.pcall('nosuch')"), ev("local e = redis.pcall('INCR', 's') return {type(e), e.err}"),
      ev("return {pcall(redis.call, 'INCR', 's')}"), ev("local ok, e = pcall(redis.call, 'nosuch') return {type(e), e}"),
      ev("return {pcall(error, {err = 'x'})}"), ev("local ok, e = pcall(error, {foo = 'x'}) return type(e)"), ev("local ok, e = pcall(error, 'x') return e"), ev('local ok, e = pcall(error) return type(e)'),
      ev("local ok, e = xpcall(function() redis.call('nosuch') end, function(e) return e end) return {type(e), e.err}"),
      ev("local call = redis.call\nlocal ok = pcall(function() call('INCR', 's') end)\nreturn call('GET', 's')"),
      ev("local ok, e = pcall(redis.call, 'INCR', 's')\nreturn redis.call('INCR', 's')"),
    ],
  },
  {
    name: 'redis.error_reply and redis.status_reply',
    commands: [
      ev("return redis.error_reply('X y')"), ev("return redis.error_reply('nocode')"), ev("return redis.error_reply('-nocode')"), ev("return redis.error_reply('-CODE with text')"),
      ev("return redis.error_reply('lower case')"), ev("return redis.error_reply('')"), ev("return redis.error_reply('ERR\\r\\n')"), ev('return redis.error_reply()'), ev('return redis.error_reply(1)'),
      ev("return redis.status_reply('Y')"), ev("return redis.status_reply('')"), ev('return redis.status_reply()'), ev('return redis.status_reply(2)'), ev("return redis.error_reply('X y').err"),
    ],
  },
  {
    name: 'Commands flagged noscript are refused',
    commands: [
      ev("return redis.call('EVAL', 'return 1', '0')"), ev("return redis.call('MULTI')"), ev("return redis.call('EXEC')"), ev("return redis.call('WATCH', 'x')"), ev("return redis.call('SUBSCRIBE', 'c')"),
      ev("return redis.call('CLIENT', 'LIST')"), ev("return redis.call('SCRIPT', 'LOAD', 'return 1')"), ev("return redis.call('FUNCTION', 'LIST')"), ev("return redis.call('BLPOP', 'l', '0')"),
      ev("return redis.call('MONITOR')"), ev("return redis.pcall('MULTI')"), ev("return redis.call('SCRIPT', 'nosuch')"),
    ],
  },
  {
    name: 'EVAL numkeys must be an integer between 0 and the number of arguments',
    commands: [['EVAL', 'return 1', '-1'], ['EVAL', 'return 1', 'x'], ['EVAL', 'return 1', '2', 'a'], ['EVAL', 'return 1', '9999999999999999999999'], ['EVAL', 'return 1', '1.5', 'a'], ['EVAL', 'retur', '-1'], ['EVAL', 'return 1'], ['EVALSHA', 'abc', 'x'], ['EVALSHA', '0000000000000000000000000000000000000000', 'x'], ['EVALSHA', '0000000000000000000000000000000000000000', '1']],
  },
]

const DEL_SCRIPT = "return redis.call('DEL', KEYS[1])"

const readOnly: DiffCase[] = [
  {
    name: 'EVAL_RO and EVALSHA_RO refuse write commands',
    commands: [
      ['SET', 'k', 'v'],
      ['EVAL_RO', "return redis.call('SET', 'k', 'w')", '0'], ['EVAL_RO', "return redis.call('GET', 'k')", '0'], ['EVAL_RO', "return redis.pcall('SET', 'k', 'w')", '0'],
      ['EVAL_RO', "return redis.pcall('SET', 'k', 'w').err", '0'], ['GET', 'k'], ['SCRIPT', 'LOAD', DEL_SCRIPT],
      ['EVALSHA_RO', sha1(DEL_SCRIPT), '1', 'k'], ['GET', 'k'], ['EVALSHA', sha1(DEL_SCRIPT), '1', 'k'], ['GET', 'k'],
    ],
  },
  {
    name: 'A shebang script without no-writes cannot run with the _RO commands; with it, it cannot write',
    commands: [
      ['EVAL_RO', '#!lua\nreturn 1', '0'], ['EVAL_RO', '#!lua flags=no-writes\nreturn 1', '0'], ['EVAL_RO', '#!lua flags=allow-oom\nreturn 1', '0'],
      ['EVAL', "#!lua flags=no-writes\nreturn redis.call('SET', 'a', 'b')", '0'], ['EVAL', "#!lua flags=no-writes\nreturn redis.pcall('SET', 'a', 'b')", '0'],
      ['EVAL', "#!lua\nreturn redis.call('SET', 'a', 'b')", '0'], ['GET', 'a'],
    ],
  },
  {
    name: 'Read-only scripts refuse the commands that may replicate (PUBLISH, SPUBLISH, PFCOUNT) like writes',
    commands: [
      ['PFADD', 'h', 'a', 'b'],
      ['EVAL_RO', "return redis.call('PUBLISH', 'news', 'x')", '0'], ['EVAL_RO', "return redis.pcall('PUBLISH', 'news', 'x')", '0'],
      ['EVAL_RO', "return redis.call('SPUBLISH', 'news', 'x')", '0'], ['EVAL_RO', "return redis.call('PFCOUNT', 'h')", '1', 'h'],
      ['EVAL', "#!lua flags=no-writes\nreturn redis.call('PUBLISH', 'news', 'x')", '0'],
      ['EVAL', "#!lua flags=no-writes\nreturn redis.pcall('PFCOUNT', 'h')", '1', 'h'],
      ['EVAL', "return redis.call('PUBLISH', 'news', 'x')", '0'], ['EVAL', "return redis.call('PFCOUNT', 'h')", '1', 'h'],
      ['SCRIPT', 'LOAD', "return redis.call('PUBLISH', 'news', 'y')"],
      ['EVALSHA_RO', sha1("return redis.call('PUBLISH', 'news', 'y')"), '0'],
    ],
  },
]

const shebang: DiffCase[] = [
  {
    name: 'Shebang flags and options are checked',
    commands: [
      ['EVAL', '#!lua\nreturn 1', '0'], ['EVAL', '#!lua flags=no-writes,allow-oom\nreturn 2', '0'], ['EVAL', '#!lua flags=bad\nreturn 1', '0'], ['EVAL', '#!lua name=x\nreturn 1', '0'],
      ['EVAL', '#!lua  flags=no-writes\nreturn 1', '0'], ['EVAL', '#!lua flags=\nreturn 1', '0'], ['EVAL', '#!lua flags=no-writes,\nreturn 1', '0'], ['EVAL', '#!notlua\nreturn 1', '0'],
      ['EVAL', '#!lua', '0'], ['EVAL', '#!lua flags=no-writes', '0'], ['EVAL', '#! lua\nreturn 1', '0'], ['EVAL', '#!lua flags=no-writes flags=allow-oom\nreturn 1', '0'],
      ['EVAL', '#!lua flags=allow-cross-slot-keys,no-cluster,allow-stale,allow-oom,no-writes\nreturn 1', '0'], ['EVAL', '#!lua flags=NO-WRITES\nreturn 1', '0'],
      ['EVAL', '#!LUA\nreturn 1', '0'], ['EVAL', '#!lua "flags=no-writes"\nreturn 1', '0'], ['EVAL', '#!lua "flags=no-writes\nreturn 1', '0'], ['SCRIPT', 'LOAD', '#!lua flags=bad\nreturn 1'],
    ],
  },
  {
    name: 'The shebang line keeps the script line numbers',
    commands: [['EVAL', "#!lua\nerror('x')", '0'], ['EVAL', '#!lua\n\nreturn y', '0'], ['EVAL', "#!lua flags=no-writes\n\n\nreturn redis.call('nosuch')", '0'], ['EVAL', '#!lua\nretur 1', '0']],
  },
]

/**
 * `allow-key-locking` is the hosted service's flag, not Redis's: the engine accepts it (with no
 * effect), and the socket executor drops it before the script reaches redis-server, answering
 * with the SHA1 of the script as sent. So here the reference is redis-server behind that rewrite.
 */
const LOCKING = "#!lua flags=allow-key-locking\nreturn redis.call('INCR', KEYS[1])"
const hostedFlag: DiffCase[] = [
  {
    name: 'The hosted allow-key-locking flag is accepted alone or with Redis flags, which keep their effect',
    commands: [
      ['EVAL', LOCKING, '1', 'n'], ['EVAL', LOCKING, '1', 'n'], ['EVAL', '#!lua flags=no-writes,allow-key-locking\nreturn 1', '0'],
      ['EVAL', "#!lua flags=allow-key-locking,no-writes\nreturn redis.call('SET', 'a', 'b')", '0'], ['EVAL_RO', '#!lua flags=allow-key-locking\nreturn 1', '0'],
      ['EVAL_RO', "#!lua flags=allow-key-locking,no-writes\nreturn redis.call('GET', 'n')", '0'], ['EVAL', '#!lua "flags=allow-key-locking"\nreturn 3', '0'],
      ['EVAL', '#!lua flags=allow-key-locking flags=no-writes\nreturn 4', '0'],
    ],
  },
  {
    name: 'With the hosted flag, other flags and options are still checked, in order',
    commands: [
      ['EVAL', '#!lua flags=allow-key-locking,bad\nreturn 1', '0'], ['EVAL', '#!lua flags=bad,allow-key-locking\nreturn 1', '0'], ['EVAL', '#!lua flags=allow-key-locking,\nreturn 1', '0'],
      ['EVAL', '#!lua name=x flags=allow-key-locking\nreturn 1', '0'], ['EVAL', '#!lua flags=ALLOW-KEY-LOCKING\nreturn 1', '0'], ['EVAL', '#!notlua flags=allow-key-locking\nreturn 1', '0'],
      ['EVAL', '#!lua flags=allow-key-locking', '0'], ['SCRIPT', 'LOAD', '#!lua flags=allow-key-locking,bad\nreturn 1'],
      ['EVAL', '#!lua flags=allow-key-locking "x \\"y\\"\\x01"\nreturn 1', '0'], ['EVAL', "#!lua flags=allow-key-locking 'z'\nreturn 1", '0'],
    ],
  },
  {
    name: 'Errors of a script with the hosted flag keep its line numbers and name it by the SHA1 of its text',
    commands: [
      ['EVAL', '#!lua flags=allow-key-locking\n\nreturn y', '0'], ['EVAL', "#!lua flags=allow-key-locking\nerror('x')", '0'], ['EVAL', '#!lua flags=allow-key-locking\nretur 1', '0'],
      ['EVAL', "#!lua flags=no-writes,allow-key-locking\n\nreturn redis.call('DEL', 'k')", '0'],
    ],
  },
  {
    name: 'SCRIPT LOAD of a script with the hosted flag answers the SHA1 of its text, which EVALSHA and SCRIPT EXISTS know',
    commands: [
      ['SCRIPT', 'FLUSH'], ['EVALSHA', sha1(LOCKING), '1', 'n'], ['SCRIPT', 'LOAD', LOCKING], ['SCRIPT', 'EXISTS', sha1(LOCKING), sha1(LOCKING).toUpperCase(), 'abc', sha1('return 1')],
      ['EVALSHA', sha1(LOCKING), '1', 'n'], ['EVALSHA', sha1(LOCKING).toUpperCase(), '1', 'n'], ['EVALSHA_RO', sha1(LOCKING), '1', 'n'],
      ['SCRIPT', 'FLUSH'], ['SCRIPT', 'EXISTS', sha1(LOCKING)], ['EVALSHA', sha1(LOCKING), '1', 'n'], ['EVAL', LOCKING, '1', 'n'], ['SCRIPT', 'EXISTS', sha1(LOCKING)],
      ['EVALSHA', sha1(LOCKING), '1', 'n'], ['GET', 'n'],
    ],
  },
]

const cache: DiffCase[] = [
  {
    name: 'SCRIPT LOAD caches a script for EVALSHA; the SHA1 is case-insensitive',
    commands: [
      ['SCRIPT', 'FLUSH'],
      ['EVALSHA', 'e0e1f9fabfc9d4800c877a703b823ac0578ff8db', '0'], ['SCRIPT', 'LOAD', 'return 1'], ['EVALSHA', 'e0e1f9fabfc9d4800c877a703b823ac0578ff8db', '0'],
      ['EVALSHA', 'E0E1F9FABFC9D4800C877A703B823AC0578FF8DB', '0'], ['EVALSHA_RO', 'e0e1f9fabfc9d4800c877a703b823ac0578ff8db', '0'], ['EVALSHA', 'abc', '0'], ['EVALSHA', '', '0'],
      ['SCRIPT', 'LOAD', 'retur'], ['SCRIPT', 'LOAD', 'return {KEYS[1], ARGV[1]}'], ['EVALSHA', sha1('return {KEYS[1], ARGV[1]}'), '1', 'k', 'a'],
    ],
  },
  {
    name: 'EVAL caches what it runs; a script that does not compile is not cached',
    commands: [
      ['SCRIPT', 'FLUSH'], ['EVAL', 'return 2', '0'], ['SCRIPT', 'EXISTS', sha1('return 2')], ['EVALSHA', sha1('return 2'), '0'],
      ['EVAL', 'retur', '0'], ['SCRIPT', 'EXISTS', sha1('retur')], ['EVAL', '#!lua flags=bad\nreturn 1', '0'], ['SCRIPT', 'EXISTS', sha1('#!lua flags=bad\nreturn 1')],
    ],
  },
  {
    name: 'SCRIPT EXISTS answers 1 or 0 for each SHA1',
    commands: [['SCRIPT', 'FLUSH'], ['SCRIPT', 'LOAD', 'return 1'], ['SCRIPT', 'EXISTS', 'e0e1f9fabfc9d4800c877a703b823ac0578ff8db', 'E0E1F9FABFC9D4800C877A703B823AC0578FF8DB', 'abc', ''], ['SCRIPT', 'EXISTS']],
  },
  {
    name: 'SCRIPT FLUSH empties the cache, with SYNC or ASYNC and nothing else',
    commands: [
      ['SCRIPT', 'LOAD', 'return 1'], ['SCRIPT', 'FLUSH', 'foo'], ['SCRIPT', 'FLUSH', 'sync', 'async'], ['SCRIPT', 'EXISTS', 'e0e1f9fabfc9d4800c877a703b823ac0578ff8db'],
      ['SCRIPT', 'FLUSH', 'ASYNC'], ['SCRIPT', 'EXISTS', 'e0e1f9fabfc9d4800c877a703b823ac0578ff8db'], ['SCRIPT', 'LOAD', 'return 1'], ['SCRIPT', 'FLUSH', 'sync'],
      ['EVALSHA', 'e0e1f9fabfc9d4800c877a703b823ac0578ff8db', '0'], ['SCRIPT', 'FLUSH'], ['script', 'flush'],
    ],
  },
  {
    name: 'SCRIPT KILL and FUNCTION KILL when nothing runs; SCRIPT HELP, DEBUG NO and bad subcommands',
    commands: [['SCRIPT', 'KILL'], ['FUNCTION', 'KILL'], ['SCRIPT', 'HELP'], ['SCRIPT', 'DEBUG', 'no'], ['SCRIPT', 'DEBUG', 'maybe'], ['SCRIPT', 'foo'], ['SCRIPT'], ['SCRIPT', 'KILL', 'x'], ['SCRIPT', 'LOAD'], ['SCRIPT', 'LOAD', 'a', 'b']],
  },
]

const api: DiffCase[] = [
  {
    name: 'redis.sha1hex, version constants, replication helpers',
    commands: [
      ev("return redis.sha1hex('hello')"), ev("return redis.sha1hex('')"), ev('return redis.sha1hex(1)'), ev('return redis.sha1hex({})'), ev('local x = redis.sha1hex()'), ev("local x = redis.sha1hex('a', 'b')"),
      ev('return redis.REDIS_VERSION'), ev('return redis.REDIS_VERSION_NUM'), ev('return {redis.REPL_NONE, redis.REPL_AOF, redis.REPL_SLAVE, redis.REPL_REPLICA, redis.REPL_ALL}'),
      ev('return redis.replicate_commands()'), ev('return redis.set_repl(redis.REPL_ALL)'), ev('return redis.set_repl(1.5)'), ev("return redis.set_repl('x')"), ev('local x = redis.set_repl()'), ev('local x = redis.set_repl(-1)'), ev('local x = redis.set_repl(99)'),
      ev('return redis.breakpoint()'), ev("return redis.debug('x')"), ev('return {redis.LOG_DEBUG, redis.LOG_VERBOSE, redis.LOG_NOTICE, redis.LOG_WARNING}'),
    ],
  },
  {
    name: 'redis.log checks its arguments',
    commands: [ev("return redis.log(redis.LOG_WARNING, 'x')"), ev("return redis.log(redis.LOG_DEBUG, 'x', 1, {})"), ev("return redis.log('3', 'x')"), ev("local x = redis.log(99, 'x')"), ev("local x = redis.log('x')"), ev("local x = redis.log('a', 'b')"), ev('local x = redis.log(-1, 1)')],
  },
  {
    name: 'redis.setresp(2) is accepted; other versions are errors',
    commands: [ev('return redis.setresp(2)'), ev("return redis.setresp('2')"), ev('local x = redis.setresp(4)'), ev('local x = redis.setresp()'), ev("local x = redis.setresp('x')")],
  },
  {
    name: 'redis.acl_check_cmd checks the command for the current user',
    commands: [ev("return redis.acl_check_cmd('get', 'x')"), ev("return redis.acl_check_cmd('set', 'x', 'y')"), ev("local x = redis.acl_check_cmd('nosuch', 'x')"), ev('local x = redis.acl_check_cmd()'), ev("local x = redis.acl_check_cmd({})")],
  },
  {
    name: 'The sandbox: removed and kept globals',
    commands: [
      ev('return type(print)'), ev('return type(os)'), ev('return type(io)'), ev('return type(require)'), ev('return type(dofile)'), ev('return type(loadfile)'), ev('return type(debug)'),
      ev('return type(setfenv)'), ev('return type(getfenv)'), ev('return type(module)'), ev('return type(newproxy)'),
      ev('return {type(loadstring), type(load), type(gcinfo), type(collectgarbage), type(unpack), type(coroutine), type(rawset), type(xpcall), type(select), type(string.dump), type(math.random)}'),
      ev("local f = loadstring('return 7') return f()"), ev('local f = loadstring(string.dump(function() return 42 end)) return f()'),
      ev('return tostring(1e15) .. tostring(0.1) .. tostring(1/3)'), ev('return _VERSION'),
    ],
  },
  {
    // unpack spreads at most 7,999 values; redis.call and redis.pcall take them all, numbers
    // (formatted on the way) or strings, and coroutines take as many.
    name: 'redis.call and redis.pcall with all the values unpack can spread',
    commands: [
      ev("local a = {} for i = 1, 7999 do a[i] = i end return redis.call('RPUSH', KEYS[1], unpack(a))", ['big']),
      ev("local a = {} for i = 1, 7999 do a[i] = 'v' .. i end return redis.pcall('RPUSH', KEYS[1], unpack(a))", ['big']),
      ev("local a = {} for i = 1, 7999 do a[i] = 0.5 end return redis.pcall('SADD', KEYS[1], 1, unpack(a))", ['bigset']),
      ev("local a = {} for i = 1, 7999 do a[i] = 1 end return redis.call('LPUSH', KEYS[1], 1, 2, 3, unpack(a))", ['big']),
      ev("local a = {} for i = 1, 8000 do a[i] = 1 end return redis.call('LPUSH', KEYS[1], unpack(a))", ['big']),
      ev("local a = {} for i = 1, 7999 do a[i] = {} end return redis.pcall('LPUSH', KEYS[1], unpack(a))", ['big']),
      ['LLEN', 'big'], ['LRANGE', 'big', '7998', '8001'], ['SCARD', 'bigset'], ['SISMEMBER', 'bigset', '0.5'],
      ev("local a = {} for i = 1, 7999 do a[i] = i end local f = coroutine.wrap(function(...) return select('#', ...) end) return f(unpack(a))"),
    ],
  },
]

const memoryBound: DiffCase[] = [
  {
    // Without a shebang only the first write is checked (the script cannot stop halfway after
    // it); a shebang without allow-oom or no-writes refuses the script whole.
    name: 'Scripts over maxmemory: compatibility mode, flags=, allow-oom, no-writes',
    commands: [
      ['SET', 'x', '123'], ['CONFIG', 'SET', 'maxmemory', '1'],
      ev("redis.call('set', KEYS[1], 1) return 1", ['x']), ev("return redis.call('get', KEYS[1])", ['x']), ev('#!lua flags=\nreturn 1'),
      ev("#!lua flags=allow-oom\nredis.call('set', KEYS[1], 1) return redis.call('set', 'y', 2)", ['x']),
      ev("#!lua flags=no-writes\nreturn redis.call('get', 'x')"), ['EVAL_RO', "#!lua flags=no-writes\nreturn redis.call('get', KEYS[1])", '1', 'x'],
      ['EVAL_RO', "return redis.call('get', KEYS[1])", '1', 'x'], ev("#!lua flags=no-writes\nreturn redis.call('set', 'x', 3)"),
      ['CONFIG', 'SET', 'maxmemory', '0'], ['MGET', 'x', 'y'],
    ],
  },
]

export const scriptingCases: DiffCase[] = [...conversions, ...errors, ...readOnly, ...shebang, ...hostedFlag, ...cache, ...api, ...memoryBound]
