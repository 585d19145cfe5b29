/**
 * COMMAND and its subcommands (COUNT, INFO, DOCS, LIST, GETKEYS, GETKEYSANDFLAGS, HELP), answered
 * from the generated command table (`src/commands/`), which was read from a real server's
 * COMMAND INFO / COMMAND DOCS: the replies are rebuilt in the shape Redis 7.0 sends (RESP2, maps
 * flattened to arrays, flags as simple strings). Replies for the whole table are built once.
 */
import { ReplyError, Status } from '../../../../reply.js'
import { allCommands, commandGetKeys, findCommand, type CommandInfo, type KeySpec } from '../../../../commands/lookup.js'
import { COMMAND_DOCS } from '../../../../commands/docs.js'
import type { ArgumentDocs, CommandDocs } from '../../../../commands/types.js'
import type { CommandContext, Out } from '../../command.js'
import { SYNTAX } from '../../errors.js'
import { stringMatch as globMatch } from '../../lib/glob.js'
import { keysWithFlags } from './command-keys.js'

const statuses = new Map<string, Status>()
/** Flags, categories and doc flags are simple strings in Redis's replies; shared instances. */
function status(text: string): Status {
  let shared = statuses.get(text)
  if (shared === undefined) statuses.set(text, (shared = new Status(text)))
  return shared
}

const utf8 = new TextEncoder()
const NON_ASCII = /[^\x00-\x7f]/
/** Table text as the engine's binary string (UTF-8 bytes, one char each). */
function binary(text: string): string {
  if (!NON_ASCII.test(text)) return text
  let out = ''
  for (const byte of utf8.encode(text)) out += String.fromCharCode(byte)
  return out
}

function beginSearchReply(spec: KeySpec): Out {
  const begin = spec.beginSearch
  switch (begin.type) {
    case 'index':
      return ['type', 'index', 'spec', ['index', begin.index]]
    case 'keyword':
      return ['type', 'keyword', 'spec', ['keyword', begin.keyword, 'startfrom', begin.startFrom]]
    default:
      return ['type', 'unknown', 'spec', []]
  }
}

function findKeysReply(spec: KeySpec): Out {
  const find = spec.findKeys
  switch (find.type) {
    case 'range':
      return ['type', 'range', 'spec', ['lastkey', find.lastKey, 'keystep', find.keyStep, 'limit', find.limit]]
    case 'keynum':
      return ['type', 'keynum', 'spec', ['keynumidx', find.keyNumIdx, 'firstkey', find.firstKey, 'keystep', find.keyStep]]
    default:
      return ['type', 'unknown', 'spec', []]
  }
}

function keySpecReply(spec: KeySpec): Out {
  const reply: Out[] = []
  if (spec.notes !== undefined) reply.push('notes', binary(spec.notes))
  reply.push('flags', [...spec.flags].map(status), 'begin_search', beginSearchReply(spec), 'find_keys', findKeysReply(spec))
  return reply
}

const infoReplies = new Map<CommandInfo, Out>()
/**
 * One COMMAND INFO entry as Redis 7.0 writes it: name, arity, flags, first key, last key, step,
 * ACL categories, tips, key specs, subcommands (entries of the same shape).
 */
function infoReply(info: CommandInfo): Out {
  let reply = infoReplies.get(info)
  if (reply === undefined) {
    reply = [
      info.name,
      info.arity,
      [...info.flags].map(status),
      info.firstKey,
      info.lastKey,
      info.step,
      [...info.categories].map(status),
      [...info.tips],
      info.keySpecs.map(keySpecReply),
      info.subcommands === undefined ? [] : [...info.subcommands.values()].map(infoReply),
    ]
    infoReplies.set(info, reply)
  }
  return reply
}

function argumentReply(argument: ArgumentDocs): Out {
  const reply: Out[] = []
  for (const [field, value] of Object.entries(argument)) {
    if (value === undefined) continue
    reply.push(field)
    if (field === 'flags') reply.push((value as readonly string[]).map(status))
    else if (field === 'arguments') reply.push((value as readonly ArgumentDocs[]).map(argumentReply))
    else if (field === 'key_spec_index') reply.push(value as number)
    else reply.push(binary(value as string))
  }
  return reply
}

const docsReplies = new Map<CommandDocs, Out>()
/** One COMMAND DOCS map (flattened), fields in the order Redis writes them. */
function docsReply(docs: CommandDocs): Out {
  let reply = docsReplies.get(docs)
  if (reply !== undefined) return reply
  const fields: Out[] = []
  for (const [field, value] of Object.entries(docs)) {
    if (value === undefined) continue
    fields.push(field)
    if (field === 'doc_flags') fields.push((value as readonly string[]).map(status))
    else if (field === 'history') fields.push((value as readonly (readonly [string, string])[]).map(([version, text]) => [version, binary(text)]))
    else if (field === 'arguments') fields.push((value as readonly ArgumentDocs[]).map(argumentReply))
    else if (field === 'subcommands') {
      const subcommands: Out[] = []
      for (const [name, sub] of Object.entries(value as Record<string, CommandDocs>)) subcommands.push(name, docsReply(sub))
      fields.push(subcommands)
    } else fields.push(binary(value as string))
  }
  reply = fields
  docsReplies.set(docs, reply)
  return reply
}

/** The docs of a command or subcommand (subcommands are nested under their container). */
function docsOf(info: CommandInfo): CommandDocs | undefined {
  if (info.parent === undefined) return COMMAND_DOCS[info.name]
  return COMMAND_DOCS[info.parent.name]?.subcommands?.[info.name]
}

function topLevelCommands(): CommandInfo[] {
  return [...allCommands()].filter((info) => info.parent === undefined)
}

let everyInfo: Out | undefined
/** COMMAND: the COMMAND INFO entry of every command. */
function command(): Out {
  everyInfo ??= topLevelCommands().map(infoReply)
  return everyInfo
}

/** COMMAND COUNT: the number of top-level commands in the table. */
function commandCount(): Out {
  return topLevelCommands().length
}

/** COMMAND INFO [name ...]: entries in the order asked, nil for unknown names; all without names. */
function commandInfo(_ctx: CommandContext, argv: readonly string[]): Out {
  if (argv.length === 2) return command()
  const reply: Out[] = []
  for (let i = 2; i < argv.length; i++) {
    const info = findCommand(argv[i])
    reply.push(info === undefined ? null : infoReply(info))
  }
  return reply
}

/** COMMAND DOCS [name ...]: a flattened map of name to docs; unknown names are left out. */
function commandDocs(_ctx: CommandContext, argv: readonly string[]): Out {
  const reply: Out[] = []
  const names = argv.length === 2 ? topLevelCommands() : argv.slice(2).map((name) => findCommand(name))
  for (const info of names) {
    const docs = info === undefined ? undefined : docsOf(info)
    if (info !== undefined && docs !== undefined) reply.push(info.name, docsReply(docs))
  }
  return reply
}

type ListFilter = (info: CommandInfo) => boolean

/**
 * COMMAND LIST [FILTERBY MODULE name | ACLCAT category | PATTERN pattern]: names of commands and
 * subcommands (`config|get`), each container followed by its subcommands. Category and pattern
 * compare case-insensitively.
 */
function commandList(_ctx: CommandContext, argv: readonly string[]): Out {
  let filter: ListFilter = () => true
  if (argv.length !== 2) {
    if (argv.length !== 5 || argv[2].toLowerCase() !== 'filterby') return SYNTAX
    const kind = argv[3].toLowerCase()
    const value = argv[4]
    if (kind === 'module') {
      const module = value.toLowerCase()
      filter = (info) => docsOf(info)?.module?.toLowerCase() === module
    } else if (kind === 'aclcat') {
      const category = '@' + value.toLowerCase()
      filter = (info) => info.categories.has(category)
    } else if (kind === 'pattern') {
      filter = (info) => globMatch(value, info.name, true)
    } else return SYNTAX
  }
  const names: string[] = []
  for (const info of allCommands()) if (filter(info)) names.push(info.name)
  return names
}

/** COMMAND GETKEYS command [arg ...]: the key arguments, as the command table finds them. */
function commandGetkeys(_ctx: CommandContext, argv: readonly string[]): Out {
  const target = argv.slice(2)
  const positions = commandGetKeys(target)
  if (positions instanceof ReplyError) return positions
  return positions.map((position) => target[position])
}

/** COMMAND GETKEYSANDFLAGS command [arg ...]: each key with its key-spec flags. */
function commandGetkeysandflags(_ctx: CommandContext, argv: readonly string[]): Out {
  const target = argv.slice(2)
  const positions = commandGetKeys(target)
  if (positions instanceof ReplyError) return positions
  return keysWithFlags(target, positions).map(({ position, flags }) => [target[position], flags.map(status)])
}

const HELP = [
  'COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:',
  '(no subcommand)',
  '    Return details about all Redis commands.',
  'COUNT',
  '    Return the total number of commands in this Redis server.',
  'LIST',
  '    Return a list of all commands in this Redis server.',
  'INFO [<command-name> ...]',
  '    Return details about multiple Redis commands.',
  '    If no command names are given, documentation details for all',
  '    commands are returned.',
  'DOCS [<command-name> ...]',
  '    Return documentation details about multiple Redis commands.',
  '    If no command names are given, documentation details for all',
  '    commands are returned.',
  'GETKEYS <full-command>',
  '    Return the keys from a full Redis command.',
  'GETKEYSANDFLAGS <full-command>',
  '    Return the keys and the access flags from a full Redis command.',
  'HELP',
  '    Prints this help.',
].map((line) => new Status(line))

function commandHelp(): Out {
  return HELP
}

export const commandIntrospection = {
  command,
  'command|count': commandCount,
  'command|info': commandInfo,
  'command|docs': commandDocs,
  'command|list': commandList,
  'command|getkeys': commandGetkeys,
  'command|getkeysandflags': commandGetkeysandflags,
  'command|help': commandHelp,
}
