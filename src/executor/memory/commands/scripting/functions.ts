/**
 * FUNCTION and FCALL / FCALL_RO (Redis 7.0's functions.c and function_lua.c).
 *
 * A library is loaded by running its code once with the load-time API, which registers its
 * functions; the library then stays loaded in the VM (its upvalues live on between calls, as in
 * Redis). Library names are case-sensitive, function names are not (FCALL finds `MyFunc` as
 * `myfunc`, and two libraries cannot register `f` and `F`).
 */
import { OK, ReplyError, Status } from '../../../../reply.js'
import type { CommandContext, Out } from '../../command.js'
import type { Engine } from '../../engine.js'
import { stringMatch } from '../../lib/glob.js'
import { SCRIPT_FLAGS, type RegisteredFunction, type ScriptVm } from '../../lua/vm.js'
import { runScript } from './bridge.js'
import { readKeyCount, scriptKill, WRITE_FLAG_WITH_RO } from './eval.js'
import { dumpLibraries, readLibraries } from './function-dump.js'
import { NO_WRITES, isValidName, parseLibrary } from './shebang.js'
import { loadTimeLimit, scripting, type FunctionEntry, type Library, type Scripting } from './state.js'

const FUNCTION_NOT_FOUND = new ReplyError('ERR Function not found')
const BAD_KEY_COUNT = new ReplyError('ERR Bad number of keys provided')
const LIBRARY_NOT_FOUND = new ReplyError('ERR Library not found')
const CODE_MISSING = new ReplyError('ERR Function code is missing')
const NO_FUNCTIONS = new ReplyError('ERR No functions registered')
const INVALID_NAME = new ReplyError(
  'ERR Library names can only contain letters, numbers, or underscores(_) and must be at least one character long',
)
const FLUSH_OPTION = new ReplyError('ERR FUNCTION FLUSH only supports SYNC|ASYNC option')
const LIBRARY_NAME_MISSING = new ReplyError('ERR library name argument was not given')
const RESTORE_POLICY = new ReplyError('ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.')
/** The one engine, as FUNCTION LIST and STATS name it. */
const ENGINE = 'LUA'

/** `addReplySubcommandSyntaxError`: the subcommand as typed, the command in capitals. */
function subcommandSyntaxError(argv: readonly string[]): ReplyError {
  return new ReplyError(
    `ERR unknown subcommand or wrong number of arguments for '${argv[1].slice(0, 128)}'. Try ${argv[0].toUpperCase()} HELP.`,
  )
}

/** A library ready to become current: its code and what loading it registered. */
interface Candidate {
  readonly name: string
  readonly code: string
  readonly body: string
  readonly functions: readonly RegisteredFunction[]
}

/**
 * Loads a library's code into the VM as pending (functionsCreateWithLibraryCtx up to the
 * collision check): metadata, engine, the code's own run. `taken` says which library names are
 * in use (FUNCTION LOAD without REPLACE, or earlier libraries of the same RESTORE payload).
 */
function prepare(vm: ScriptVm, payload: string, taken: (name: string) => boolean, limitMs: number): Candidate | ReplyError {
  const parsed = parseLibrary(payload)
  if (typeof parsed === 'string') return new ReplyError(`ERR ${parsed}`)
  if (!isValidName(parsed.name)) return INVALID_NAME
  if (parsed.engine.toLowerCase() !== 'lua') return new ReplyError(`ERR Engine '${parsed.engine}' not found`)
  if (taken(parsed.name)) return new ReplyError(`ERR Library '${parsed.name}' already exists`)
  const functions = vm.load(parsed.name, parsed.code, limitMs)
  if (functions instanceof ReplyError) return functions
  if (functions.length === 0) {
    vm.discard()
    return NO_FUNCTIONS
  }
  return { name: parsed.name, code: payload, body: parsed.code, functions }
}

/** Makes candidates current in the VM and in the maps, replacing libraries of the same names. */
function link(state: Scripting, vm: ScriptVm, candidates: readonly Candidate[]): void {
  for (const candidate of candidates) {
    vm.commit(candidate.name)
    unlink(state, candidate.name)
    const functions: FunctionEntry[] = candidate.functions.map((fn) => ({ ...fn, library: candidate.name }))
    state.libraries.set(candidate.name, { name: candidate.name, code: candidate.code, body: candidate.body, functions })
    for (const fn of functions) {
      // Like Redis's dictAdd into the case-insensitive function dict, the first of two names
      // differing only in case keeps the slot.
      const key = fn.name.toLowerCase()
      if (!state.functions.has(key)) state.functions.set(key, fn)
    }
  }
}

/** Removes a library and its functions from the maps. */
function unlink(state: Scripting, name: string): void {
  const library = state.libraries.get(name)
  if (library === undefined) return
  for (const fn of library.functions) {
    const key = fn.name.toLowerCase()
    if (state.functions.get(key)?.library === name) state.functions.delete(key)
  }
  state.libraries.delete(name)
}

/** The first function of `candidates` whose name another current library already has. */
function collision(state: Scripting, candidates: readonly Candidate[], replaced: ReadonlySet<string>): ReplyError | null {
  for (const candidate of candidates) {
    for (const fn of candidate.functions) {
      const owner = state.functions.get(fn.name.toLowerCase())
      if (owner !== undefined && !replaced.has(owner.library)) return new ReplyError(`ERR Function ${fn.name} already exists`)
    }
  }
  return null
}

/** FUNCTION LOAD [REPLACE] code: replies the library's name. */
function functionLoad(ctx: CommandContext, argv: readonly string[]): Out {
  let replace = false
  let at = 2
  for (; at < argv.length - 1; at++) {
    if (argv[at].toLowerCase() !== 'replace') return new ReplyError(`ERR Unknown option given: ${argv[at]}`)
    replace = true
  }
  if (at >= argv.length) return CODE_MISSING
  const state = scripting(ctx.engine)
  return state.withVm((vm) => {
    const candidate = prepare(vm, argv[at], (name) => !replace && state.libraries.has(name), loadTimeLimit(ctx.engine))
    if (candidate instanceof ReplyError) return candidate
    const clash = collision(state, [candidate], new Set([candidate.name]))
    if (clash !== null) {
      vm.discard()
      return clash
    }
    link(state, vm, [candidate])
    return candidate.name
  })
}

/** FUNCTION DELETE library-name */
function functionDelete(ctx: CommandContext, argv: readonly string[]): Out {
  const state = scripting(ctx.engine)
  const name = argv[2]
  if (!state.libraries.has(name)) return LIBRARY_NOT_FOUND
  unlink(state, name)
  const deleted = state.withVm((vm) => vm.deleteLibrary(name))
  return deleted instanceof ReplyError ? deleted : OK
}

/** FUNCTION FLUSH [ASYNC|SYNC] */
function functionFlush(ctx: CommandContext, argv: readonly string[]): Out {
  if (argv.length > 3) return subcommandSyntaxError(argv)
  if (argv.length === 3) {
    const mode = argv[2].toLowerCase()
    if (mode !== 'sync' && mode !== 'async') return FLUSH_OPTION
  }
  const state = scripting(ctx.engine)
  if (state.libraries.size === 0) return OK
  state.libraries.clear()
  state.functions.clear()
  const flushed = state.withVm((vm) => vm.flushLibraries())
  return flushed instanceof ReplyError ? flushed : OK
}

/** A function's flags as FUNCTION LIST shows them: status strings in Redis's flag order. */
function flagList(flags: number): Status[] {
  const out: Status[] = []
  for (let i = 0; i < SCRIPT_FLAGS.length; i++) if (flags & (1 << i)) out.push(new Status(SCRIPT_FLAGS[i]))
  return out
}

/** FUNCTION LIST [LIBRARYNAME pattern] [WITHCODE] */
function functionList(ctx: CommandContext, argv: readonly string[]): Out {
  let withCode = false
  let pattern: string | null = null
  for (let i = 2; i < argv.length; i++) {
    const option = argv[i].toLowerCase()
    if (!withCode && option === 'withcode') {
      withCode = true
      continue
    }
    if (pattern === null && option === 'libraryname') {
      if (i >= argv.length - 1) return LIBRARY_NAME_MISSING
      pattern = argv[++i]
      continue
    }
    return new ReplyError(`ERR Unknown argument ${argv[i]}`)
  }
  const out: Out[] = []
  for (const library of scripting(ctx.engine).libraries.values()) {
    if (pattern !== null && !stringMatch(pattern, library.name, true)) continue
    const functions = library.functions.map((fn) => ['name', fn.name, 'description', fn.description, 'flags', flagList(fn.flags)])
    const entry: Out[] = ['library_name', library.name, 'engine', ENGINE, 'functions', functions]
    if (withCode) entry.push('library_code', library.code)
    out.push(entry)
  }
  return out
}

/** FUNCTION STATS: no script is ever running when another command runs. */
function functionStats(ctx: CommandContext): Out {
  const state = scripting(ctx.engine)
  return ['running_script', null, 'engines', [ENGINE, ['libraries_count', state.libraries.size, 'functions_count', countFunctions(state)]]]
}

function countFunctions(state: Scripting): number {
  let count = 0
  for (const library of state.libraries.values()) count += library.functions.length
  return count
}

/** FUNCTION DUMP */
function functionDump(ctx: CommandContext): Out {
  return dumpLibraries([...scripting(ctx.engine).libraries.values()].map((library: Library) => library.code))
}

/** FUNCTION RESTORE payload [FLUSH|APPEND|REPLACE] */
function functionRestore(ctx: CommandContext, argv: readonly string[]): Out {
  if (argv.length > 4) return subcommandSyntaxError(argv)
  let policy: 'append' | 'replace' | 'flush' = 'append'
  if (argv.length === 4) {
    const given = argv[3].toLowerCase()
    if (given !== 'append' && given !== 'replace' && given !== 'flush') return RESTORE_POLICY
    policy = given
  }
  const codes = readLibraries(argv[2])
  if (typeof codes === 'string') return new ReplyError(`ERR ${codes}`)
  return restoreLibraries(ctx.engine, codes, policy)
}

/**
 * Loads libraries given by their whole code under a FUNCTION RESTORE policy: all of them or, on
 * the first error, none. Also how an RDB file's libraries are loaded (`persistence/rdb-io.ts`).
 */
export function restoreLibraries(engine: Engine, codes: readonly string[], policy: 'append' | 'replace' | 'flush'): Out {
  const state = scripting(engine)
  return state.withVm((vm) => {
    // Every library loads into a fresh context first: the payload must be valid on its own.
    const candidates: Candidate[] = []
    const names = new Set<string>()
    const payloadFunctions = new Set<string>()
    for (const code of codes) {
      const candidate = prepare(vm, code, (name) => names.has(name), loadTimeLimit(engine))
      if (candidate instanceof ReplyError) return abandon(vm, candidate)
      for (const fn of candidate.functions) {
        const key = fn.name.toLowerCase()
        if (payloadFunctions.has(key)) return abandon(vm, new ReplyError(`ERR Function ${fn.name} already exists`))
        payloadFunctions.add(key)
      }
      names.add(candidate.name)
      candidates.push(candidate)
    }
    if (policy === 'flush') {
      vm.flushLibraries()
      state.libraries.clear()
      state.functions.clear()
    } else {
      // libraryJoin: a library of the same name is an error under APPEND, replaced under REPLACE.
      for (const candidate of candidates) {
        if (state.libraries.has(candidate.name) && policy === 'append') {
          return abandon(vm, new ReplyError(`ERR Library ${candidate.name} already exists`))
        }
      }
      const clash = collision(state, candidates, names)
      if (clash !== null) return abandon(vm, clash)
    }
    link(state, vm, candidates)
    return OK
  })
}

/** Drops the libraries a failed RESTORE loaded and replies its error. */
function abandon(vm: ScriptVm, error: ReplyError): ReplyError {
  vm.discard()
  return error
}

/** FCALL and FCALL_RO: function numkeys key… arg… */
function fcallGeneric(ctx: CommandContext, argv: readonly string[], readOnlyCommand: boolean): Out {
  const fn = scripting(ctx.engine).functions.get(argv[1].toLowerCase())
  if (fn === undefined) return FUNCTION_NOT_FOUND
  const keyCount = readKeyCount(argv, BAD_KEY_COUNT)
  if (keyCount instanceof ReplyError) return keyCount
  const declaresNoWrites = (fn.flags & NO_WRITES) !== 0
  if (readOnlyCommand && !declaresNoWrites) return WRITE_FLAG_WITH_RO
  const keys = argv.slice(3, 3 + keyCount)
  const args = argv.slice(3 + keyCount)
  return runScript(ctx, readOnlyCommand || declaresNoWrites, fn.flags, (vm, run, limit) => vm.fcall(fn.name, keys, args, run, limit))
}

function fcall(ctx: CommandContext, argv: readonly string[]): Out {
  return fcallGeneric(ctx, argv, false)
}

function fcallRo(ctx: CommandContext, argv: readonly string[]): Out {
  return fcallGeneric(ctx, argv, true)
}

const HELP = [
  'FUNCTION <subcommand> [<arg> [value] [opt] ...]. Subcommands are:',
  'LOAD [REPLACE] <FUNCTION CODE>',
  '    Create a new library with the given library name and code.',
  'DELETE <LIBRARY NAME>',
  '    Delete the given library.',
  'LIST [LIBRARYNAME PATTERN] [WITHCODE]',
  '    Return general information on all the libraries:',
  '    * Library name',
  '    * The engine used to run the Library',
  '    * Library description',
  '    * Functions list',
  '    * Library code (if WITHCODE is given)',
  '    It also possible to get only function that matches a pattern using LIBRARYNAME argument.',
  'STATS',
  '    Return information about the current function running:',
  '    * Function name',
  '    * Command used to run the function',
  '    * Duration in MS that the function is running',
  '    If no function is running, return nil',
  '    In addition, returns a list of available engines.',
  'KILL',
  '    Kill the current running function.',
  'FLUSH [ASYNC|SYNC]',
  '    Delete all the libraries.',
  '    When called without the optional mode argument, the behavior is determined by the',
  '    lazyfree-lazy-user-flush configuration directive. Valid modes are:',
  '    * ASYNC: Asynchronously flush the libraries.',
  '    * SYNC: Synchronously flush the libraries.',
  'DUMP',
  '    Return a serialized payload representing the current libraries, can be restored using FUNCTION RESTORE command',
  'RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]',
  '    Restore the libraries represented by the given payload, it is possible to give a restore policy to',
  '    control how to handle existing libraries (default APPEND):',
  '    * FLUSH: delete all existing libraries.',
  '    * APPEND: appends the restored libraries to the existing libraries. On collision, abort.',
  '    * REPLACE: appends the restored libraries to the existing libraries, On collision, replace the old',
  '      libraries with the new libraries (notice that even on this option there is a chance of failure',
  '      in case of functions name collision with another library).',
  'HELP',
  '    Prints this help.',
].map((line) => new Status(line))

function functionHelp(): Out {
  return HELP
}

export const functionCommands = {
  fcall,
  fcall_ro: fcallRo,
  'function|load': functionLoad,
  'function|delete': functionDelete,
  'function|flush': functionFlush,
  'function|list': functionList,
  'function|stats': functionStats,
  'function|dump': functionDump,
  'function|restore': functionRestore,
  'function|kill': scriptKill,
  'function|help': functionHelp,
}
