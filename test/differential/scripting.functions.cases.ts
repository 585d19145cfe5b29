/**
 * Differential cases of FUNCTION and FCALL (Redis 7.0 functions.c, function_lua.c). Every case
 * starts with FUNCTION FLUSH: FLUSHALL (run by the harness between cases) keeps libraries.
 *
 * FUNCTION LIST lists libraries, and the functions of each, in hash-table order in Redis: cases
 * with several libraries compare the list unordered, and libraries listed have one function.
 */
import type { Command } from '../../src/reply.js'
import type { DiffCase } from './harness.js'

const FLUSH: Command = ['FUNCTION', 'FLUSH']

/** FUNCTION LOAD of a library named `name` with the given body lines. */
function load(name: string, ...lines: string[]): Command {
  return ['FUNCTION', 'LOAD', [`#!lua name=${name}`, ...lines].join('\n')]
}

/** A library registering one function `fn` with body `body` (a Lua expression returned). */
function simple(name: string, fn: string, body: string): Command {
  return load(name, `redis.register_function('${fn}', function(keys, args) return ${body} end)`)
}

export const functionCases: DiffCase[] = [
  {
    name: 'FUNCTION LOAD registers functions that FCALL runs with keys and arguments',
    commands: [
      FLUSH, simple('mylib', 'myfunc', '{keys, args}'), ['FCALL', 'myfunc', '2', 'k1', 'k2', 'a1'], ['FCALL', 'myfunc', '0'], ['FCALL', 'MYFUNC', '1', 'k', 'a'],
      ['FCALL', 'nosuch', '0'], ['FCALL', 'myfunc', '-1'], ['FCALL', 'myfunc', '5', 'a'], ['FCALL', 'myfunc', 'x'], ['FCALL', 'nosuch', 'x'], ['FCALL', 'myfunc'],
    ],
  },
  {
    name: 'FUNCTION LOAD without REPLACE refuses an existing library; with it, replaces it',
    commands: [
      FLUSH, simple('mylib', 'f1', '1'), simple('mylib', 'f1', '2'), ['FUNCTION', 'LOAD', 'REPLACE', '#!lua name=mylib\nredis.register_function(\'f2\', function() return 3 end)'],
      ['FCALL', 'f1', '0'], ['FCALL', 'f2', '0'], ['FUNCTION', 'LOAD', 'replace', 'replace', '#!lua name=mylib\nredis.register_function(\'f1\', function() return 4 end)'], ['FCALL', 'f1', '0'],
      ['FUNCTION', 'LOAD', 'foo', '#!lua name=x\nredis.register_function(\'x\', function() return 1 end)'], ['FUNCTION', 'LOAD', 'replace'], ['FUNCTION', 'LOAD'],
    ],
  },
  {
    name: 'Library metadata errors',
    commands: [
      FLUSH, ['FUNCTION', 'LOAD', 'return 1'], ['FUNCTION', 'LOAD', '#!lua\nreturn 1'], ['FUNCTION', 'LOAD', '#!lua name=\nreturn 1'], ['FUNCTION', 'LOAD', '#!lua name=a-b\nreturn 1'],
      ['FUNCTION', 'LOAD', '#!lua name=x foo=bar\nreturn 1'], ['FUNCTION', 'LOAD', '#!lua name=l7 name=l8\nreturn 1'], ['FUNCTION', 'LOAD', '#!lua name=l11'], ['FUNCTION', 'LOAD', '#!foo name=x\nreturn 1'],
      ['FUNCTION', 'LOAD', '#!lua name="q q"\nreturn 1'], ['FUNCTION', 'LOAD', '#!lua name="qq\nreturn 1'], ['FUNCTION', 'LOAD', '#!lua name=x\nreturn 1'], ['FUNCTION', 'LIST'],
    ],
  },
  {
    name: 'Shebang variants that load',
    commands: [
      FLUSH, simple('l5 ', 'h5', '5'), ['FUNCTION', 'LOAD', "#!lua  name=l6\nredis.register_function('h6', function() return 6 end)"], ['FUNCTION', 'LOAD', '#!LUA name=l9\nredis.register_function(\'h9\', function() return 9 end)'],
      ['FUNCTION', 'LOAD', '#!lua NAME=l10\nredis.register_function(\'h10\', function() return 10 end)'], ['FUNCTION', 'LOAD', '#!lua name=qq\r\nredis.register_function(\'hq\', function() return 11 end)'],
      ['FCALL', 'h5', '0'], ['FCALL', 'h6', '0'], ['FCALL', 'h9', '0'], ['FCALL', 'h10', '0'], ['FCALL', 'hq', '0'], ['FUNCTION', 'LOAD', '#!lua name=l12\nredis.register_function(\'h12\', function() return 12 end)\nreturn 5'],
    ],
  },
  {
    name: 'Compile and load-time errors of a library',
    commands: [
      FLUSH, load('x', 'retur'), load('x', "redis.call('ping')"), load('x', 'x = 1'), load('x', 'redis.foo = 1'), load('x', 'redis.register_function()'),
      load('x', "redis.register_function('f')"), load('x', "redis.register_function('f', 'notfn')"), load('x', "redis.register_function('f', function() end, 5)"),
      load('x', "redis.register_function('bad name', function() end)"), load('x', "redis.register_function('', function() end)"),
      load('x', "redis.register_function('f1', function() end)", "redis.register_function('f1', function() end)"), load('x', "redis.register_function({}, function() end)"),
      load('x', "local v = redis.setresp", "redis.register_function('f', function() end)"), load('x', "local v = redis.sha1hex", "redis.register_function('f', function() end)"),
      ['FUNCTION', 'LIST'],
    ],
  },
  {
    name: 'register_function with named arguments: flags, description and their errors',
    commands: [
      FLUSH,
      load('a', "redis.register_function{function_name='f', callback=function() return 1 end, flags={'bad'}}"),
      load('a', "redis.register_function{function_name='f', callback=function() return 1 end, foo=1}"),
      load('a', 'redis.register_function{callback=function() end}'), load('a', "redis.register_function{function_name='f'}"),
      load('a', "redis.register_function{function_name='f', callback=5}"), load('a', "redis.register_function{function_name='f', callback=function() end, flags=5}"),
      load('a', "redis.register_function{function_name='f', callback=function() end, flags={5}}"), load('a', "redis.register_function{function_name='f', callback=function() end, description={}}"),
      load('a', "redis.register_function{function_name={}, callback=function() end}"),
      load('b', "redis.register_function{function_name='g', callback=function() return 2 end, flags={'no-writes', 'ALLOW-OOM', 'allow-stale', 'no-cluster', 'allow-cross-slot-keys'}, description='all flags'}"),
      ['FUNCTION', 'LIST', 'LIBRARYNAME', 'b'], load('c', "redis.register_function{function_name=5, callback=function() return 5 end, description=7, flags={}}"),
      ['FUNCTION', 'LIST', 'LIBRARYNAME', 'c'], ['FCALL', '5', '0'], load('d', "redis.register_function(5, function() end)"),
      load('e', "redis.register_function{FUNCTION_NAME='e', CALLBACK=function() return 'e' end}"), ['FCALL', 'e', '0'],
    ],
  },
  {
    name: 'Function names collide across libraries, case-insensitively',
    commands: [
      FLUSH, simple('rt', 'rt', '1'), simple('rt3', 'RT', '3'), simple('other', 'rt', '2'), ['FUNCTION', 'LOAD', 'REPLACE', "#!lua name=rt\nredis.register_function('RT', function() return 4 end)"],
      ['FCALL', 'rt', '0'], ['FCALL', 'Rt', '0'], ['FUNCTION', 'DELETE', 'RT'], ['FUNCTION', 'DELETE', 'rt'], ['FCALL', 'rt', '0'], simple('other', 'rt', '5'), ['FCALL', 'rt', '0'],
    ],
  },
  {
    name: 'FCALL_RO runs only no-writes functions; no-writes functions cannot write',
    commands: [
      FLUSH, ['SET', 'k', 'v'],
      load('rw', "redis.register_function('w', function(keys) return redis.call('SET', keys[1], 'x') end)", "redis.register_function{function_name='r', callback=function(keys) return redis.call('GET', keys[1]) end, flags={'no-writes'}}", "redis.register_function{function_name='rw_in_ro', callback=function(keys) return redis.call('SET', keys[1], 'y') end, flags={'no-writes'}}", "redis.register_function{function_name='pw', callback=function(keys) return redis.pcall('SET', keys[1], 'y') end, flags={'no-writes'}}"),
      ['FCALL_RO', 'w', '1', 'k'], ['FCALL_RO', 'r', '1', 'k'], ['FCALL', 'r', '1', 'k'], ['FCALL', 'rw_in_ro', '1', 'k'], ['FCALL_RO', 'rw_in_ro', '1', 'k'], ['FCALL', 'pw', '1', 'k'],
      ['GET', 'k'], ['FCALL', 'w', '1', 'k'], ['GET', 'k'], ['FCALL_RO', 'nosuch', '0'], ['FCALL_RO', 'r', 'x'],
    ],
  },
  {
    name: 'no-writes functions refuse the commands that may replicate (PUBLISH, PFCOUNT)',
    commands: [
      FLUSH, ['PFADD', 'h', 'a'],
      load('pub', "redis.register_function{function_name='pub', callback=function() return redis.call('PUBLISH', 'news', 'x') end, flags={'no-writes'}}", "redis.register_function{function_name='cnt', callback=function(keys) return redis.pcall('PFCOUNT', keys[1]) end, flags={'no-writes'}}"),
      ['FCALL_RO', 'pub', '0'], ['FCALL', 'pub', '0'], ['FCALL_RO', 'cnt', '1', 'h'], ['FCALL', 'cnt', '1', 'h'],
    ],
  },
  {
    name: 'Errors inside functions name the function and @user_function',
    commands: [
      FLUSH,
      load('y', "redis.register_function('f4', function(k, a) return error('boom') end)", "redis.register_function('f5', function(k, a) return redis.call('nosuch') end)", "redis.register_function('f7', function(k, a) local x = 5 return x + nil end)", "redis.register_function('f8', function(k, a) error({err = 'CODE table'}) end)", "redis.register_function('f9', function(k, a) return redis.error_reply('MY returned') end)", "redis.register_function('f10', function(k, a) x = 1 end)", "redis.register_function('f11', function(k, a) redis.foo = 1 end)"),
      ['FCALL', 'f4', '0'], ['FCALL', 'f5', '0'], ['FCALL', 'f7', '0'], ['FCALL', 'f8', '0'], ['FCALL', 'f9', '0'], ['FCALL', 'f10', '0'], ['FCALL', 'f11', '0'],
    ],
  },
  {
    name: 'The runtime redis table of functions',
    commands: [
      FLUSH,
      load('rt', "redis.register_function('rt', function() return {type(redis.breakpoint), type(redis.set_repl), type(redis.replicate_commands), type(redis.debug), type(redis.acl_check_cmd), type(redis.setresp), type(redis.sha1hex), type(redis.error_reply), type(redis.REPL_ALL), type(redis.pcall), type(redis.log), type(redis.register_function), redis.REDIS_VERSION} end)"),
      ['FCALL', 'rt', '0'], simple('rt2', 'rt2', 'redis.foo'), ['FCALL', 'rt2', '0'],
      load('rt3', 'local reg = redis.register_function', "reg('rt3', function() local late = reg('late', function() end) return late end)"), ['FCALL', 'rt3', '0'],
    ],
  },
  {
    name: 'Library upvalues persist between calls, as the library stays loaded',
    commands: [
      FLUSH, load('e', 'local n = 0', "redis.register_function('counter', function() n = n + 1 return n end)"), ['FCALL', 'counter', '0'], ['FCALL', 'counter', '0'], ['FCALL', 'counter', '0'],
      ['FUNCTION', 'LOAD', 'REPLACE', "#!lua name=e\nlocal n = 10\nredis.register_function('counter', function() n = n + 1 return n end)"], ['FCALL', 'counter', '0'],
    ],
  },
  {
    name: 'Functions call commands with their keys and arguments',
    commands: [
      FLUSH,
      load('kv', "redis.register_function('setget', function(keys, args) redis.call('SET', keys[1], args[1]) return redis.call('GET', keys[1]) end)", "redis.register_function('incrby', function(keys, args) return redis.call('INCRBY', keys[1], tonumber(args[1]) * 2) end)"),
      ['FCALL', 'setget', '1', 'k', 'value'], ['GET', 'k'], ['FCALL', 'incrby', '1', 'n', '21'], ['FCALL', 'incrby', '1', 'k', '1'], ['FCALL', 'setget', '1', 'k'],
    ],
  },
  {
    name: 'FUNCTION LIST with and without code, filtered by a case-insensitive pattern',
    commands: [
      FLUSH, simple('alpha', 'fa', '1'), load('beta', "redis.register_function{function_name='fb', callback=function() return 2 end, description='the b', flags={'no-writes'}}"),
      ['FUNCTION', 'LIST'], ['FUNCTION', 'LIST', 'WITHCODE'], ['FUNCTION', 'LIST', 'LIBRARYNAME', 'alpha'], ['FUNCTION', 'LIST', 'libraryname', 'A*'], ['FUNCTION', 'LIST', 'LIBRARYNAME', 'b*', 'WITHCODE'],
      ['FUNCTION', 'LIST', 'WITHCODE', 'LIBRARYNAME', 'beta'], ['FUNCTION', 'LIST', 'LIBRARYNAME', 'nomatch'], ['FUNCTION', 'LIST', 'foo'], ['FUNCTION', 'LIST', 'LIBRARYNAME'],
      ['FUNCTION', 'LIST', 'WITHCODE', 'WITHCODE'], ['FUNCTION', 'LIST', 'LIBRARYNAME', 'a', 'LIBRARYNAME', 'b'],
    ],
    relax: { 3: 'unordered', 4: 'unordered' },
  },
  {
    name: 'FUNCTION STATS counts libraries and functions',
    commands: [
      FLUSH, ['FUNCTION', 'STATS'], simple('s1', 'f1', '1'), load('s2', "redis.register_function('f2', function() end)", "redis.register_function('f3', function() end)"), ['FUNCTION', 'STATS'],
      ['FUNCTION', 'DELETE', 's2'], ['FUNCTION', 'STATS'], ['FUNCTION', 'STATS', 'x'],
    ],
  },
  {
    name: 'FUNCTION DELETE and FUNCTION FLUSH',
    commands: [
      FLUSH, simple('d1', 'g1', '1'), ['FUNCTION', 'DELETE', 'd1'], ['FCALL', 'g1', '0'], ['FUNCTION', 'DELETE', 'd1'], ['FUNCTION', 'DELETE'], ['FUNCTION', 'DELETE', 'a', 'b'],
      simple('d2', 'g2', '2'), ['FUNCTION', 'FLUSH', 'foo'], ['FUNCTION', 'FLUSH', 'sync', 'x'], ['FCALL', 'g2', '0'], ['FUNCTION', 'FLUSH', 'ASYNC'], ['FCALL', 'g2', '0'],
      simple('d3', 'g3', '3'), ['FUNCTION', 'FLUSH', 'sync'], ['FUNCTION', 'LIST'], ['FUNCTION', 'FLUSH'],
    ],
  },
  {
    name: 'FUNCTION RESTORE refuses bad payloads and policies; HELP and unknown subcommands',
    commands: [
      FLUSH, ['FUNCTION', 'RESTORE', 'xx'], ['FUNCTION', 'RESTORE', 'xx', 'bad'], ['FUNCTION', 'RESTORE', 'xx', 'FLUSH', 'x'], ['FUNCTION', 'RESTORE', '', 'append'],
      ['FUNCTION', 'HELP'], ['FUNCTION', 'foo'], ['FUNCTION'], ['FUNCTION', 'DUMP', 'x'], ['FUNCTION', 'HELP', 'x'],
    ],
  },
  {
    name: 'FUNCTION DUMP without libraries is the version and checksum alone',
    commands: [FLUSH, ['FUNCTION', 'DUMP']],
  },
  {
    name: 'A library sees the globals read-only, redis included; a redis kept at load time keeps the load-time API',
    commands: [
      FLUSH, load('g1', "redis.register_function('assign', function() redis = function() return 1 end end)"), ['FCALL', 'assign', '0'],
      load('g2', 'local r = redis', "redis.register_function('kept', function() return r.call('ping') end)"), ['FCALL', 'kept', '0'],
      load('g3', 'local r = redis', "redis.register_function('both', function() local x = r.register_function return {redis.call('ping'), type(redis.breakpoint), type(x), type(redis.register_function)} end)"),
      ['FCALL', 'both', '0'], ['EVAL', 'return {type(redis.register_function), type(redis.breakpoint)}', '0'], ['FCALL', 'both', '0'],
      load('g4', 'foo = 1'), load('g5', 'redis = 1'), load('g6', 'local a = redis.call'),
    ],
  },
  {
    // Functions always run with flags: without allow-oom or no-writes, FCALL is refused over maxmemory.
    name: 'Function flags and maxmemory: refused whole, allow-oom writes, no-writes reads',
    commands: [
      FLUSH, ['SET', 'x', '1'],
      load('m1', "redis.register_function('plain', function() return redis.call('get', 'x') end)",
        "redis.register_function{function_name='oom', callback=function() return redis.call('set', 'x', 2) end, flags={'allow-oom'}}",
        "redis.register_function{function_name='ro', callback=function() return redis.call('get', 'x') end, flags={'no-writes'}}"),
      ['CONFIG', 'SET', 'maxmemory', '1'], ['FCALL', 'plain', '0'], ['FCALL', 'oom', '0'], ['FCALL', 'ro', '0'], ['FCALL_RO', 'ro', '0'],
      ['CONFIG', 'SET', 'maxmemory', '0'], ['GET', 'x'],
    ],
  },
]
