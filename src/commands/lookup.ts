/**
 * Command lookups for the request parser, the permission checker and the executors: command
 * metadata (arity, flags, ACL categories, key specs), key positions as `COMMAND GETKEYS` finds
 * them, and the classifications Redis itself makes (read-only, write, dangerous, blocking).
 *
 * Everything is derived from the generated table (`table.ts`, from a real server's
 * `COMMAND INFO` / `COMMAND DOCS`). What the REST protocol makes of it (which commands its
 * endpoints run, what the read-only token may run) is the gateway's rule, in
 * `rest/availability.ts` and `auth/permissions.ts`.
 *
 */

import { ReplyError, type Arg, type Command } from '../reply.js'
import { wrongArity } from './errors.js'
import { COMMAND_ROWS, SERVER_VERSION } from './table.js'
import type { CommandRow, RawKeySpec } from './types.js'

export { SERVER_VERSION }

/** Where a key spec starts looking for keys (`begin_search` of `COMMAND INFO`). @public */
export type BeginSearch =
  | { readonly type: 'index'; readonly index: number }
  | { readonly type: 'keyword'; readonly keyword: string; readonly startFrom: number }
  | { readonly type: 'unknown' }

/** How a key spec finds its keys (`find_keys` of `COMMAND INFO`). @public */
export type FindKeys =
  | { readonly type: 'range'; readonly lastKey: number; readonly keyStep: number; readonly limit: number }
  | { readonly type: 'keynum'; readonly keyNumIdx: number; readonly firstKey: number; readonly keyStep: number }
  | { readonly type: 'unknown' }

/** One key specification of a command, as `COMMAND INFO` reports it. @public */
export interface KeySpec {
  /** Key flags in Redis's order: `RO`/`RW`/`OW`/`RM`, `access`, `update`, `insert`, `delete`, `not_key`, `incomplete`, `variable_flags`. */
  readonly flags: ReadonlySet<string>
  /** The spec's `notes` text, when Redis gives one. */
  readonly notes?: string
  /** Where the search for keys starts. */
  readonly beginSearch: BeginSearch
  /** Which arguments from there on are keys. */
  readonly findKeys: FindKeys
}

/**
 * Metadata of one command or subcommand.
 * @public
 */
export interface CommandInfo {
  /** Full lowercase name as Redis reports it: `get`, `config|get`. */
  readonly name: string
  /** For a subcommand, its container command (`config` for `config|get`). */
  readonly parent?: CommandInfo
  /** Redis arity: positive = exactly that many words (name included), negative = at least `-arity`. */
  readonly arity: number
  /** Command flags (`readonly`, `write`, `blocking`, …); iteration follows Redis's order. */
  readonly flags: ReadonlySet<string>
  /**
   * Flags Redis has but keeps out of `COMMAND INFO`: `may_replicate` (PUBLISH, SPUBLISH, PFCOUNT,
   * EVAL, EVALSHA, FCALL), which read-only scripts refuse like a write.
   */
  readonly hiddenFlags: ReadonlySet<string>
  /** ACL categories as Redis writes them (`@read`, `@dangerous`, …); iteration follows Redis's order. */
  readonly categories: ReadonlySet<string>
  /** First key position of the legacy `COMMAND INFO` key triple (0: no fixed key range). */
  readonly firstKey: number
  /** Last key position of the legacy triple; negative counts from the end (-1: last argument). */
  readonly lastKey: number
  /** Step between keys of the legacy triple. */
  readonly step: number
  /** Key specifications, in the order `COMMAND INFO` lists them; {@link commandKeys} applies them. */
  readonly keySpecs: readonly KeySpec[]
  /** Command tips (`nondeterministic_output`, `request_policy:all_shards`, …). */
  readonly tips: readonly string[]
  /** Command group from `COMMAND DOCS`: `string`, `connection`, `pubsub`, `transactions`, `cluster`, `module`, … */
  readonly group: string
  /** Version that introduced the command (`COMMAND DOCS` `since`). */
  readonly since: string
  /** Subcommands of a container command, keyed by lowercase subcommand name (`get` for `config|get`). */
  readonly subcommands?: ReadonlyMap<string, CommandInfo>
}

// ---------------------------------------------------------------------------------------------
// Building the table

interface BlockWalk {
  readonly token: string
  readonly stop: string
  readonly options: ReadonlyMap<string, number>
}

const topIndex = new Map<string, CommandInfo>()
const fullIndex = new Map<string, CommandInfo>()
const subIndex = new Map<CommandInfo, Map<string, CommandInfo>>()
const blockWalks = new Map<CommandInfo, BlockWalk>()
const all: CommandInfo[] = []

function words(text: string | undefined): string[] {
  return text ? text.split(' ') : []
}

function keySpec(raw: RawKeySpec): KeySpec {
  const [flags, begin, find, notes] = raw
  const beginSearch: BeginSearch =
    typeof begin === 'number'
      ? { type: 'index', index: begin }
      : begin === null
        ? { type: 'unknown' }
        : { type: 'keyword', keyword: begin[0], startFrom: begin[1] }
  const findKeys: FindKeys =
    find === null
      ? { type: 'unknown' }
      : find[0] === 'r'
        ? { type: 'range', lastKey: find[1], keyStep: find[2], limit: find[3] }
        : { type: 'keynum', keyNumIdx: find[1], firstKey: find[2], keyStep: find[3] }
  const spec: KeySpec = notes === undefined ? { flags: new Set(words(flags)), beginSearch, findKeys } : { notes, flags: new Set(words(flags)), beginSearch, findKeys }
  return Object.freeze(spec)
}

function indexName(map: Map<string, CommandInfo>, name: string, info: CommandInfo): void {
  map.set(name, info)
  map.set(name.toUpperCase(), info)
}

function build(row: CommandRow, parent: CommandInfo | undefined): CommandInfo {
  const [name, arity, flags, categories, firstKey, lastKey, step, group, since, keySpecs, tips, extra] = row
  const info: { -readonly [K in keyof CommandInfo]: CommandInfo[K] } = {
    name,
    arity,
    flags: new Set(words(flags)),
    hiddenFlags: new Set(words(extra?.hidden_flags)),
    categories: new Set(words(categories)),
    firstKey,
    lastKey,
    step,
    keySpecs: Object.freeze(keySpecs.map(keySpec)),
    tips: Object.freeze(words(tips)),
    group,
    since,
  }
  if (parent) info.parent = parent
  if (extra?.block) {
    const [token, stop, options] = extra.block
    blockWalks.set(info, { token, stop, options: new Map(Object.entries(options)) })
  }
  return info
}

for (const row of COMMAND_ROWS) {
  const name = row[0]
  const bar = name.indexOf('|')
  if (bar === -1) {
    const info = build(row, undefined)
    indexName(topIndex, name, info)
    indexName(fullIndex, name, info)
    all.push(info)
  } else {
    const parent = topIndex.get(name.slice(0, bar))
    if (!parent) throw new Error(`command table: subcommand ${name} before its container`)
    const info = build(row, parent)
    const subName = name.slice(bar + 1)
    let subs = subIndex.get(parent)
    if (!subs) {
      subs = new Map()
      subIndex.set(parent, subs)
      ;(parent as { subcommands?: ReadonlyMap<string, CommandInfo> }).subcommands = new Map()
    }
    ;(parent.subcommands as Map<string, CommandInfo>).set(subName, info)
    indexName(subs, subName, info)
    indexName(fullIndex, name, info)
    all.push(info)
  }
}
for (const info of all) Object.freeze(info)

// ---------------------------------------------------------------------------------------------
// Lookups

const asciiDecoder = new TextDecoder('latin1')
const utf8Decoder = new TextDecoder()

/** A command word as text: strings as they are, bytes as Latin-1 (command names are ASCII). */
function nameText(name: Arg): string {
  return typeof name === 'string' ? name : asciiDecoder.decode(name)
}

/** Lowercases ASCII letters only, as Redis's case-insensitive command lookup does. */
function asciiLower(text: string): string {
  let out = ''
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    out += c >= 65 && c <= 90 ? String.fromCharCode(c + 32) : text[i]
  }
  return out
}

/** Uppercases ASCII letters only (C `toupper` in the C locale). */
function asciiUpper(text: string): string {
  let out = ''
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    out += c >= 97 && c <= 122 ? String.fromCharCode(c - 32) : text[i]
  }
  return out
}

function lookup(map: Map<string, CommandInfo>, name: Arg): CommandInfo | undefined {
  const text = nameText(name)
  return map.get(text) ?? map.get(asciiLower(text))
}

/**
 * Finds a command by name, case-insensitively (ASCII). Also finds subcommands by full name
 * (`config|get`), as `COMMAND INFO` and ACL rules name them. Lowercase and uppercase names hit
 * the index directly; mixed case costs one lowercase copy.
 * @public
 */
export function findCommand(name: Arg): CommandInfo | undefined {
  return lookup(fullIndex, name)
}

/**
 * Finds a subcommand of a container command (`findSubcommand('config', 'GET')` → `config|get`).
 * `undefined` when the parent is unknown, not a container, or has no such subcommand.
 * @public
 */
export function findSubcommand(parent: CommandInfo | Arg, sub: Arg): CommandInfo | undefined {
  const info = typeof parent === 'string' || parent instanceof Uint8Array ? lookup(topIndex, parent) : parent
  if (!info) return undefined
  const subs = subIndex.get(info)
  return subs ? lookup(subs, sub) : undefined
}

/**
 * The command a request runs, the way Redis dispatches it: the command named by the first word;
 * for a container command (CONFIG, ACL, OBJECT, XINFO, CLIENT, …) given at least one more word,
 * the subcommand that word names. `undefined` for an unknown command or subcommand (see
 * {@link lookupError} for the reply). A container given alone resolves to itself, and then fails
 * the arity check as in Redis.
 * @public
 */
export function resolveCommand(command: Command): CommandInfo | undefined {
  if (command.length === 0) return undefined
  const info = lookup(topIndex, command[0])
  if (!info || command.length === 1) return info
  const subs = subIndex.get(info)
  return subs ? lookup(subs, command[1]) : info
}

/** Every command and subcommand in the table, containers before their subcommands. @public */
export function allCommands(): Iterable<CommandInfo> {
  return all
}

// ---------------------------------------------------------------------------------------------
// Arity and errors

/**
 * Redis's arity rule: positive arity = exactly that many words (command name included),
 * negative arity = at least `-arity` words.
 * @public
 */
export function checkArity(info: CommandInfo, argc: number): boolean {
  return info.arity > 0 ? argc === info.arity : argc >= -info.arity
}

/** `ERR wrong number of arguments for '<name>' command`, with the full name (`config|get`). @public */
export function arityError(info: CommandInfo): ReplyError {
  return wrongArity(info.name)
}

function argText(arg: Arg): string {
  return typeof arg === 'string' ? arg : utf8Decoder.decode(arg)
}

/**
 * The error Redis replies when {@link resolveCommand} finds nothing:
 * `ERR unknown subcommand '<sub>'. Try <CMD> HELP.` for a container command, otherwise
 * `ERR unknown command '<cmd>', with args beginning with: '<arg>' …` (names cut at 128
 * characters, arguments listed while they total under 128, CR/LF turned into spaces).
 * @public
 */
export function lookupError(command: Command): ReplyError {
  const name = command.length > 0 ? argText(command[0]) : ''
  const container = command.length > 0 ? lookup(topIndex, command[0]) : undefined
  let text: string
  if (container?.subcommands && command.length > 1) {
    text = `ERR unknown subcommand '${argText(command[1]).slice(0, 128)}'. Try ${asciiUpper(name)} HELP.`
  } else {
    let args = ''
    for (let i = 1; i < command.length && args.length < 128; i++) {
      args += `'${argText(command[i]).slice(0, 128 - args.length)}' `
    }
    text = `ERR unknown command '${name.slice(0, 128)}', with args beginning with: ${args}`
  }
  return new ReplyError(text.replace(/[\r\n]/g, ' '))
}

// ---------------------------------------------------------------------------------------------
// Keys

/**
 * Parses an integer the way Redis's `string2ll` does: optional `-`, digits, no `+`, no spaces,
 * no leading zeros, within 64 bits. `undefined` when invalid.
 */
function strictInteger(text: string): number | undefined {
  if (!/^(?:0|-?[1-9][0-9]*)$/.test(text)) return undefined
  const value = BigInt(text)
  if (value > 9223372036854775807n || value < -9223372036854775808n) return undefined
  return Number(value)
}

/** C `atoi` (glibc: `(int)strtol`): leading spaces, optional sign, digits; junk after ignored. */
function atoi(text: string): number {
  const match = /^[ \t\n\v\f\r]*([+-]?[0-9]+)/.exec(text)
  if (!match) return 0
  let value = BigInt(match[1])
  if (value > 9223372036854775807n) value = 9223372036854775807n
  if (value < -9223372036854775808n) value = -9223372036854775808n
  return Number(BigInt.asIntN(32, value))
}

function equalsIgnoreCase(arg: Arg, upper: string): boolean {
  if (typeof arg === 'string') {
    if (arg.length !== upper.length) return false
    for (let i = 0; i < upper.length; i++) {
      let c = arg.charCodeAt(i)
      if (c >= 97 && c <= 122) c -= 32
      if (c !== upper.charCodeAt(i)) return false
    }
    return true
  }
  if (arg.length !== upper.length) return false
  for (let i = 0; i < upper.length; i++) {
    let c = arg[i]
    if (c >= 97 && c <= 122) c -= 32
    if (c !== upper.charCodeAt(i)) return false
  }
  return true
}

/**
 * Key positions from the key specs (Redis `getKeysUsingKeySpecs`); `undefined` = invalid spec.
 * When `foundBy` is given, the spec that found each key is pushed to it, in step with the result.
 */
function keysFromSpecs(info: CommandInfo, args: Command, partial: boolean, foundBy?: KeySpec[]): number[] | undefined {
  const argc = args.length
  const keys: number[] = []
  for (const spec of info.keySpecs) {
    if (spec.flags.has('not_key')) continue
    let first = 0
    const begin = spec.beginSearch
    if (begin.type === 'index') {
      first = begin.index
    } else if (begin.type === 'keyword') {
      const keyword = begin.keyword.toUpperCase()
      const start = begin.startFrom > 0 ? begin.startFrom : argc + begin.startFrom
      const end = begin.startFrom > 0 ? argc - 1 : 1
      for (let i = start; i !== end; i = start <= end ? i + 1 : i - 1) {
        if (i >= argc || i < 1) break
        if (equalsIgnoreCase(args[i], keyword)) {
          first = i + 1
          break
        }
      }
      if (first === 0) continue
    } else {
      if (partial) continue
      return undefined
    }

    let last: number
    let step: number
    const find = spec.findKeys
    if (find.type === 'range') {
      step = find.keyStep
      if (find.lastKey >= 0) last = first + find.lastKey
      else if (find.limit === 0) last = argc + find.lastKey
      else last = first + (Math.trunc((argc - first) / find.limit) + find.lastKey)
    } else if (find.type === 'keynum') {
      step = find.keyStep
      const numkeys = find.keyNumIdx >= argc || first + find.keyNumIdx >= argc ? undefined : strictInteger(argText(args[first + find.keyNumIdx]))
      if (numkeys === undefined || numkeys < 0) {
        if (partial) continue
        return undefined
      }
      first += find.firstKey
      // numkeys counts keys, not arguments: with a step of 2 (MSETEX's key-value pairs, Redis
      // 8.4) the last key sits (numkeys - 1) steps on. Every 7.0 keynum spec has a step of 1.
      last = first + (numkeys - 1) * step
    } else {
      if (partial) continue
      return undefined
    }

    if (last >= argc || last < first || first >= argc) {
      if (partial) continue
      return undefined
    }
    for (let i = first; i <= last; i += step) {
      if (i >= argc || i < first) continue
      keys.push(i)
      foundBy?.push(spec)
    }
    if (spec.flags.has('incomplete') && !partial) return undefined
  }
  return keys
}

/** Redis's `genericGetKeys`: `atoi` numkeys, sanity-checked, store key (if any) last. */
function genericKeys(args: Command, storeKeyOfs: number, keyCountOfs: number, firstKeyOfs: number, keyStep: number): number[] {
  const num = atoi(argText(args[keyCountOfs]))
  if (num < 1 || num > Math.trunc((args.length - firstKeyOfs) / keyStep)) return []
  const keys: number[] = []
  for (let i = 0; i < num; i++) keys.push(firstKeyOfs + i * keyStep)
  if (storeKeyOfs) keys.push(storeKeyOfs)
  return keys
}

/** SORT: the sorted key, and the STORE target (last one wins), skipping LIMIT/GET/BY values. */
function sortKeys(args: Command): number[] {
  const keys = [1]
  let store = -1
  const skips: readonly (readonly [string, number])[] = [['LIMIT', 2], ['GET', 1], ['BY', 1]]
  for (let i = 2; i < args.length; i++) {
    for (const [name, skip] of skips) {
      if (equalsIgnoreCase(args[i], name)) {
        i += skip
        break
      } else if (equalsIgnoreCase(args[i], 'STORE') && i + 1 < args.length) {
        store = i + 1
        break
      }
    }
  }
  if (store !== -1) keys.push(store)
  return keys
}

/** MIGRATE: the key argument, or with KEYS (and an empty key argument) every key after it. */
function migrateKeys(args: Command): number[] {
  let first = 3
  let num = 1
  const skips: readonly (readonly [string, number])[] = [['COPY', 0], ['REPLACE', 0], ['AUTH', 1], ['AUTH2', 2]]
  if (args.length > 6) {
    for (let i = 6; i < args.length; i++) {
      if (equalsIgnoreCase(args[i], 'KEYS')) {
        if (argText(args[3]).length > 0) {
          num = 0
        } else {
          first = i + 1
          num = args.length - first
        }
        break
      }
      for (const [name, skip] of skips) {
        if (equalsIgnoreCase(args[i], name)) {
          i += skip
          break
        }
      }
    }
  }
  const keys: number[] = []
  for (let i = 0; i < num; i++) keys.push(first + i)
  return keys
}

/**
 * The command-specific key finder Redis falls back to when the key specs cannot answer
 * (`getkeys_proc`). Redis hard-codes these per command; for commands with a `keynum` spec the
 * behaviour follows from the spec (numkeys read with `atoi`), SORT and MIGRATE parse their options.
 */
function fallbackKeys(info: CommandInfo, args: Command): number[] {
  const root = info.parent ? undefined : info.name
  if (root === 'sort') return sortKeys(args)
  if (root === 'sort_ro') return [1]
  if (root === 'migrate') return migrateKeys(args)
  const specs = info.keySpecs
  const keynumAt = specs.findIndex((spec) => spec.findKeys.type === 'keynum' && spec.beginSearch.type === 'index')
  if (keynumAt !== -1) {
    const spec = specs[keynumAt]
    const begin = spec.beginSearch as { readonly index: number }
    const find = spec.findKeys as { readonly keyNumIdx: number; readonly firstKey: number; readonly keyStep: number }
    const store = specs
      .slice(0, keynumAt)
      .find((s) => s.beginSearch.type === 'index' && s.findKeys.type === 'range' && s.findKeys.lastKey === 0)
    const storeOfs = store ? (store.beginSearch as { readonly index: number }).index : 0
    return genericKeys(args, storeOfs, begin.index + find.keyNumIdx, begin.index + find.firstKey, find.keyStep)
  }
  if (specs.some((spec) => spec.flags.has('variable_flags'))) return keysFromSpecs(info, args, true) ?? []
  return []
}

/** True when Redis tries the key specs before the command's own key finder. */
function specsApply(info: CommandInfo): boolean {
  const hasKeySpec = info.keySpecs.some((spec) => !spec.flags.has('not_key'))
  const hasVariableFlags = info.keySpecs.some((spec) => spec.flags.has('variable_flags'))
  return hasKeySpec && !hasVariableFlags
}

function keyPositions(info: CommandInfo, args: Command): number[] {
  if (specsApply(info)) {
    const keys = keysFromSpecs(info, args, false)
    if (keys) return keys
  }
  return fallbackKeys(info, args)
}

/** A key argument and the key spec that found it. @public */
export interface KeyFoundBySpec {
  /** Index into the command (0 = the command name). */
  readonly position: number
  readonly spec: KeySpec
}

/**
 * The keys of `command` as its key specs alone find them, each with the spec that found it (what
 * `COMMAND GETKEYSANDFLAGS` reports flags from), in {@link commandKeys}' order. `undefined` when
 * Redis does not answer from the key specs but from the command's own key finder: no key spec, a
 * spec with `variable_flags` or `incomplete`, or a spec the arguments do not satisfy.
 * @public
 */
export function keysFoundBySpecs(command: Command, info: CommandInfo | undefined = resolveCommand(command)): KeyFoundBySpec[] | undefined {
  if (info === undefined || !specsApply(info)) return undefined
  const specs: KeySpec[] = []
  const positions = keysFromSpecs(info, command, false, specs)
  return positions?.map((position, i) => ({ position, spec: specs[i] }))
}

/**
 * Indices (into `command`, 0 = the command name) of the key arguments, in the order Redis
 * finds them (`getKeysFromCommandWithSpecs`): key specs first (`begin_search` index/keyword,
 * `find_keys` range/keynum), falling back to the command's own parser where Redis does (SORT,
 * MIGRATE, invalid numkeys). `[]` for an unknown command, a command without keys, or arguments
 * from which no keys can be found; {@link commandGetKeys} tells those cases apart.
 * @public
 */
export function commandKeys(command: Command, info: CommandInfo | undefined = resolveCommand(command)): number[] {
  return info ? keyPositions(info, command) : []
}

/**
 * `COMMAND GETKEYS <command…>`: the key indices of `command`, or the error Redis replies:
 * `ERR Invalid command specified`, `ERR The command has no key arguments`,
 * `ERR Invalid number of arguments specified for command`,
 * `ERR Invalid arguments specified for command` (no keys found, unless the command is flagged
 * `no_mandatory_keys`, like EVAL with numkeys 0, which gives `[]`).
 * @public
 */
export function commandGetKeys(command: Command): number[] | ReplyError {
  const info = resolveCommand(command)
  if (!info) return new ReplyError('ERR Invalid command specified')
  if (!info.keySpecs.some((spec) => !spec.flags.has('not_key'))) {
    return new ReplyError('ERR The command has no key arguments')
  }
  if (!checkArity(info, command.length)) {
    return new ReplyError('ERR Invalid number of arguments specified for command')
  }
  const keys = keyPositions(info, command)
  if (keys.length === 0 && !info.flags.has('no_mandatory_keys')) {
    return new ReplyError('ERR Invalid arguments specified for command')
  }
  return keys
}

// ---------------------------------------------------------------------------------------------
// Classifications

/** Flagged `readonly`. @public */
export function isReadOnly(info: CommandInfo): boolean {
  return info.flags.has('readonly')
}

/** Flagged `write`. @public */
export function isWrite(info: CommandInfo): boolean {
  return info.flags.has('write')
}

/** In ACL category `@dangerous`. @public */
export function isDangerous(info: CommandInfo): boolean {
  return info.categories.has('@dangerous')
}

/**
 * Whether the command blocks. Flagged `blocking`, except that commands that only block with an
 * optional `BLOCK` option (XREAD, XREADGROUP) block only when `command` carries it; without
 * `command` every `blocking` command counts as blocking. The option walk comes from the
 * `COMMAND DOCS` argument list (see the generator).
 * @public
 */
export function isBlocking(info: CommandInfo, command?: Command): boolean {
  if (!info.flags.has('blocking')) return false
  const walk = blockWalks.get(info)
  if (!walk || !command) return true
  let i = info.parent ? 2 : 1
  while (i < command.length) {
    const word = asciiUpper(argText(command[i]))
    if (word === walk.token) return true
    if (word === walk.stop) return false
    const values = walk.options.get(word)
    if (values === undefined) return false // syntax error: the command fails without blocking
    i += 1 + values
  }
  return false
}
