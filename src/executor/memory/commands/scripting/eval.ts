/**
 * EVAL, EVALSHA, their `_RO` forms and SCRIPT (Redis 7.0's eval.c).
 *
 * A script is cached under the SHA1 of its whole text (shebang included) by EVAL and SCRIPT LOAD,
 * once it compiled; EVALSHA finds it there. A shebang (`#!lua flags=…`) opts the script out of
 * Redis's compatibility mode: its flags then decide whether it may write, and the `_RO` commands
 * refuse one that does not declare `no-writes`. Without a shebang a script may write, except when
 * run by EVAL_RO / EVALSHA_RO, whose write commands are refused one by one.
 */
import { createHash } from 'node:crypto'
import { OK, ReplyError, Status } from '../../../../reply.js'
import type { CommandContext, Out } from '../../command.js'
import { NOT_INTEGER } from '../../errors.js'
import { readInteger } from '../../lib/numbers.js'
import { runScript } from './bridge.js'
import { NO_WRITES, parseScript } from './shebang.js'
import { scripting, type ScriptEntry } from './state.js'

const NOSCRIPT = new ReplyError('NOSCRIPT No matching script. Please use EVAL.')
const NEGATIVE_KEYS = new ReplyError("ERR Number of keys can't be negative")
const TOO_MANY_KEYS = new ReplyError("ERR Number of keys can't be greater than number of args")
/** The `_RO` commands refuse scripts (and functions) that did not declare `no-writes`. */
export const WRITE_FLAG_WITH_RO = new ReplyError('ERR Can not execute a script with write flag using *_ro command.')
const NOT_BUSY = new ReplyError('NOTBUSY No scripts in execution right now.')
const FLUSH_OPTION = new ReplyError('ERR SCRIPT FLUSH only support SYNC|ASYNC option')
const DEBUG_OPTION = new ReplyError('ERR Use SCRIPT DEBUG YES/SYNC/NO')
/** Redis's debugger (LDB) needs a client talking the debugging protocol; the engine has none. */
const DEBUG_UNSUPPORTED = new ReplyError('ERR SCRIPT DEBUG YES/SYNC is not supported by the in-memory engine')

/** Recent scripts' SHA1s: EVAL hashes its script on every call, and applications repeat theirs. */
const recentDigests = new Map<string, string>()
const RECENT_DIGESTS = 1024

/** Lowercase hex SHA1 of a binary string. */
export function sha1(text: string): string {
  let digest = recentDigests.get(text)
  if (digest === undefined) {
    digest = createHash('sha1').update(text, 'latin1').digest('hex')
    if (recentDigests.size >= RECENT_DIGESTS) recentDigests.clear()
    recentDigests.set(text, digest)
  }
  return digest
}

/**
 * `numkeys` of EVAL and FCALL: an integer from 0 to the number of arguments after it.
 * `notInteger` is the command's reply to a value that is not one.
 */
export function readKeyCount(argv: readonly string[], notInteger: ReplyError): number | ReplyError {
  const count = readInteger(argv[2])
  if (count === null) return notInteger
  if (count > argv.length - 3) return TOO_MANY_KEYS
  if (count < 0) return NEGATIVE_KEYS
  return count
}

/** The cached script of `text`, compiling and caching it first if needed (luaCreateFunction). */
function loadScript(ctx: CommandContext, text: string): { sha: string; entry: ScriptEntry } | ReplyError {
  const state = scripting(ctx.engine)
  const sha = sha1(text)
  const cached = state.scripts.get(sha)
  if (cached !== undefined) return { sha, entry: cached }
  const parsed = parseScript(text)
  if (typeof parsed === 'string') return new ReplyError(`ERR ${parsed}`)
  const failed = state.withVm((vm) => vm.compile(sha, parsed.body))
  if (failed !== null) return failed
  state.scripts.set(sha, parsed)
  return { sha, entry: parsed }
}

/** EVAL, EVALSHA and their `_RO` forms. */
function evalGeneric(ctx: CommandContext, argv: readonly string[], bySha: boolean, readOnlyCommand: boolean): Out {
  // evalShaCommand: a SHA1 of the wrong length cannot match, before numkeys is even read.
  if (bySha && argv[1].length !== 40) return NOSCRIPT
  const keyCount = readKeyCount(argv, NOT_INTEGER)
  if (keyCount instanceof ReplyError) return keyCount
  let sha: string
  let entry: ScriptEntry | undefined
  if (bySha) {
    sha = argv[1].toLowerCase()
    entry = scripting(ctx.engine).scripts.get(sha)
    if (entry === undefined) return NOSCRIPT
  } else {
    const loaded = loadScript(ctx, argv[1])
    if (loaded instanceof ReplyError) return loaded
    ;({ sha, entry } = loaded)
  }
  const script = entry
  const declaresNoWrites = script.flags !== null && (script.flags & NO_WRITES) !== 0
  if (readOnlyCommand && script.flags !== null && !declaresNoWrites) return WRITE_FLAG_WITH_RO
  const keys = argv.slice(3, 3 + keyCount)
  const args = argv.slice(3 + keyCount)
  return runScript(ctx, readOnlyCommand || declaresNoWrites, script.flags, (vm, run, limit) => {
    // The VM may be newer than the cache (after SCRIPT FLUSH of the VM, or a reset).
    if (!vm.has(sha)) {
      const failed = vm.compile(sha, script.body)
      if (failed !== null) return failed
    }
    return vm.run(sha, keys, args, run, limit)
  })
}

function evalCommand(ctx: CommandContext, argv: readonly string[]): Out {
  return evalGeneric(ctx, argv, false, false)
}

function evalsha(ctx: CommandContext, argv: readonly string[]): Out {
  return evalGeneric(ctx, argv, true, false)
}

function evalRo(ctx: CommandContext, argv: readonly string[]): Out {
  return evalGeneric(ctx, argv, false, true)
}

function evalshaRo(ctx: CommandContext, argv: readonly string[]): Out {
  return evalGeneric(ctx, argv, true, true)
}

/** SCRIPT LOAD script: caches the script (compiling it) and replies its SHA1. */
function scriptLoad(ctx: CommandContext, argv: readonly string[]): Out {
  const loaded = loadScript(ctx, argv[2])
  return loaded instanceof ReplyError ? loaded : loaded.sha
}

/** SCRIPT EXISTS sha1 [sha1 ...]: 1 or 0 for each, case-insensitively. */
function scriptExists(ctx: CommandContext, argv: readonly string[]): Out {
  const scripts = scripting(ctx.engine).scripts
  return argv.slice(2).map((sha) => (scripts.has(sha.toLowerCase()) ? 1 : 0))
}

/** SCRIPT FLUSH [ASYNC|SYNC]: empties the script cache (functions stay). */
function scriptFlush(ctx: CommandContext, argv: readonly string[]): Out {
  if (argv.length > 3) return FLUSH_OPTION
  if (argv.length === 3) {
    const mode = argv[2].toLowerCase()
    if (mode !== 'sync' && mode !== 'async') return FLUSH_OPTION
  }
  const state = scripting(ctx.engine)
  if (state.scripts.size === 0) return OK
  state.scripts.clear()
  const flushed = state.withVm((vm) => vm.forgetScripts())
  return flushed instanceof ReplyError ? flushed : OK
}

/**
 * SCRIPT KILL (and FUNCTION KILL): a script runs inside one command, to completion, so no other
 * command ever sees one running.
 */
export function scriptKill(): Out {
  return NOT_BUSY
}

/** SCRIPT DEBUG YES|SYNC|NO: only NO, which is the state every session is in. */
function scriptDebug(_ctx: CommandContext, argv: readonly string[]): Out {
  const mode = argv[2].toLowerCase()
  if (mode === 'no') return OK
  if (mode === 'yes' || mode === 'sync') return DEBUG_UNSUPPORTED
  return DEBUG_OPTION
}

const HELP = [
  'SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:',
  'DEBUG (YES|SYNC|NO)',
  '    Set the debug mode for subsequent scripts executed.',
  'EXISTS <sha1> [<sha1> ...]',
  '    Return information about the existence of the scripts in the script cache.',
  'FLUSH [ASYNC|SYNC]',
  '    Flush the Lua scripts cache. Very dangerous on replicas.',
  '    When called without the optional mode argument, the behavior is determined by the',
  '    lazyfree-lazy-user-flush configuration directive. Valid modes are:',
  '    * ASYNC: Asynchronously flush the scripts cache.',
  '    * SYNC: Synchronously flush the scripts cache.',
  'KILL',
  '    Kill the currently executing Lua script.',
  'LOAD <script>',
  '    Load a script into the scripts cache without executing it.',
  'HELP',
  '    Prints this help.',
].map((line) => new Status(line))

function scriptHelp(): Out {
  return HELP
}

export const evalCommands = {
  eval: evalCommand,
  evalsha,
  eval_ro: evalRo,
  evalsha_ro: evalshaRo,
  'script|load': scriptLoad,
  'script|exists': scriptExists,
  'script|flush': scriptFlush,
  'script|kill': scriptKill,
  'script|debug': scriptDebug,
  'script|help': scriptHelp,
}
