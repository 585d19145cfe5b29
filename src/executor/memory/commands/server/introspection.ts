/**
 * TIME, ROLE, SLOWLOG, MEMORY and DEBUG: what a client may ask about the server itself.
 */
import { OK, ReplyError, Status } from '../../../../reply.js'
import type { CommandContext, Out } from '../../command.js'
import { NOT_INTEGER, SYNTAX } from '../../errors.js'
import { readInteger } from '../../lib/numbers.js'
import { DEFAULT_ELEMENT_SAMPLES, estimateEntry } from './memory-estimate.js'

/** TIME: [seconds, microseconds] as bulk strings, from the command's time snapshot. */
function time(ctx: CommandContext): Out {
  const seconds = Math.floor(ctx.now / 1000)
  const micros = Math.floor((ctx.now - seconds * 1000) * 1000)
  return [String(seconds), String(micros)]
}

/** ROLE: always a master without replicas (the engine does not replicate). */
function role(): Out {
  return ['master', 0, []]
}

const SLOWLOG_COUNT = new ReplyError('ERR count should be greater than or equal to -1')

/**
 * SLOWLOG GET [count]: no entries are kept (see slowlogLen), so the log reads empty; the count
 * is still validated as Redis does.
 */
function slowlogGet(_ctx: CommandContext, argv: readonly string[]): Out {
  if (argv.length === 3) {
    const count = readInteger(argv[2])
    if (count === null || count < -1) return SLOWLOG_COUNT
  }
  return []
}

/**
 * SLOWLOG LEN: 0. Commands of an in-process engine finish in microseconds and their timings
 * would not mean what Redis's mean; no slow-log entries are recorded.
 */
function slowlogLen(): Out {
  return 0
}

function slowlogReset(): Out {
  return OK
}

function help(lines: readonly string[]): Status[] {
  return lines.map((line) => new Status(line))
}

const SLOWLOG_HELP = help([
  'SLOWLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:',
  'GET [<count>]',
  '    Return top <count> entries from the slowlog (default: 10, -1 mean all).',
  '    Entries are made of:',
  '    id, timestamp, time in microseconds, arguments array, client IP and port,',
  '    client name',
  'LEN',
  '    Return the length of the slowlog.',
  'RESET',
  '    Reset the slowlog.',
  'HELP',
  '    Prints this help.',
])

const MEMORY_HELP = help([
  'MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:',
  'DOCTOR',
  '    Return memory problems reports.',
  'MALLOC-STATS',
  '    Return internal statistics report from the memory allocator.',
  'PURGE',
  '    Attempt to purge dirty pages for reclamation by the allocator.',
  'STATS',
  '    Return information about the memory usage of the server.',
  'USAGE <key> [SAMPLES <count>]',
  '    Return memory in bytes used by <key> and its value. Nested values are',
  '    sampled up to <count> times (default: 5, 0 means sample all).',
  'HELP',
  '    Prints this help.',
])

/**
 * MEMORY USAGE key [SAMPLES count]: an estimate modelled on Redis's accounting (see
 * memory-estimate.ts); nil for a missing key. The last SAMPLES wins, as in Redis.
 */
function memoryUsage(ctx: CommandContext, argv: readonly string[]): Out {
  let samples = DEFAULT_ELEMENT_SAMPLES
  for (let i = 3; i < argv.length; i++) {
    if (argv[i].toLowerCase() === 'samples' && i + 1 < argv.length) {
      const count = readInteger(argv[++i])
      if (count === null) return NOT_INTEGER
      if (count < 0) return SYNTAX
      samples = count
    } else return SYNTAX
  }
  const value = ctx.db.read(argv[2], ctx)
  return value === undefined ? null : estimateEntry(argv[2], value, samples)
}

/** MEMORY PURGE: nothing to purge in a garbage-collected heap. */
function memoryPurge(): Out {
  return OK
}

/** MEMORY MALLOC-STATS: Redis's answer for an allocator without statistics. */
function memoryMallocStats(): Out {
  return 'Stats not supported for the current allocator'
}

/**
 * DEBUG: refused with Redis's text for a server whose `enable-debug-command` is `no` (the
 * default, and immutable at run time): DEBUG's subcommands crash, reload or corrupt the server.
 */
const DEBUG_REFUSED = new ReplyError(
  'ERR DEBUG command not allowed. If the enable-debug-command option is set to "local", you can run it from a local connection, ' +
    'otherwise you need to set this option in the configuration file, and then restart the server.',
)
function debug(): Out {
  return DEBUG_REFUSED
}

export const introspectionCommands = {
  time,
  role,
  'slowlog|get': slowlogGet,
  'slowlog|len': slowlogLen,
  'slowlog|reset': slowlogReset,
  'slowlog|help': () => SLOWLOG_HELP,
  'memory|usage': memoryUsage,
  'memory|purge': memoryPurge,
  'memory|malloc-stats': memoryMallocStats,
  'memory|help': () => MEMORY_HELP,
  debug,
}
