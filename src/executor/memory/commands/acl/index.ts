/**
 * ACL commands and AUTH, over the engine's users (`../acl.ts`), with the replies and error texts
 * of Redis 7.0.15: ACL SETUSER, DELUSER, GETUSER, USERS, LIST, WHOAMI, CAT, DRYRUN, GENPASS,
 * HELP, and LOAD / SAVE (the engine has no ACL file).
 *
 * `ACL RESTTOKEN` is not an engine command: the REST gateway answers it, since it owns the tokens.
 * `ACL LOG` is not kept (the engine records no denials) and answers as an unknown subcommand.
 */
import { OK, ReplyError, Status } from '../../../../reply.js'
import { checkArity, findCommand, type CommandInfo } from '../../../../commands/lookup.js'
import type { CommandContext, CommandTable, Out } from '../../command.js'
import { CATEGORIES, WRONGPASS, categoryCommands, randomHex } from '../../acl.js'
import { AUTH_WITHOUT_PASSWORD, NOT_INTEGER, SYNTAX } from '../../errors.js'
import { readInteger } from '../../lib/numbers.js'

const NO_ACL_FILE = new ReplyError(
  'ERR This Redis instance is not configured to use an ACL file. You may want to specify users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis configuration file set) in order to store users in the Redis configuration.',
)
const GENPASS_RANGE = new ReplyError('ERR ACL GENPASS argument must be the number of bits for the output password, a positive number up to 4096')

/** `ERR unknown subcommand or wrong number of arguments for '<sub>'. Try ACL HELP.` */
function subcommandSyntax(argv: readonly string[]): ReplyError {
  return new ReplyError(`ERR unknown subcommand or wrong number of arguments for '${argv[1]}'. Try ACL HELP.`)
}

function setuser(ctx: CommandContext, argv: readonly string[]): Out {
  return ctx.engine.acl.setUser(argv[2], argv.slice(3)) ?? OK
}

function deluser(ctx: CommandContext, argv: readonly string[]): Out {
  return ctx.engine.acl.deleteUsers(argv.slice(2))
}

/** ACL GETUSER name: a flat map (flags, passwords, commands, keys, channels, selectors), or null. */
function getuser(ctx: CommandContext, argv: readonly string[]): Out {
  const user = ctx.engine.acl.get(argv[2])
  if (user === undefined) return null
  const root = user.root
  return [
    'flags',
    user.flagNames(),
    'passwords',
    [...user.passwords],
    'commands',
    root.describeCommands(),
    'keys',
    root.describeKeys(),
    'channels',
    root.describeChannels(),
    'selectors',
    user.selectors.map((s) => ['commands', s.describeCommands(), 'keys', s.describeKeys(), 'channels', s.describeChannels()]),
  ]
}

function users(ctx: CommandContext): Out {
  return ctx.engine.acl.names()
}

function list(ctx: CommandContext): Out {
  const acl = ctx.engine.acl
  return acl.names().map((name) => `user ${name} ${acl.get(name)!.describe()}`)
}

function whoami(ctx: CommandContext): Out {
  return ctx.session.user
}

/** ACL CAT [category]: the categories, or the commands (and subcommands) of one. */
function cat(_ctx: CommandContext, argv: readonly string[]): Out {
  if (argv.length === 2) return [...CATEGORIES]
  if (argv.length > 3) return subcommandSyntax(argv)
  const names = categoryCommands(argv[2])
  if (names === undefined) return new ReplyError(`ERR Unknown category '${argv[2].slice(0, 128)}'`)
  return names
}

/** ACL DRYRUN user command [arg …]: OK, or why the user may not run it (a bulk string). */
function dryrun(ctx: CommandContext, argv: readonly string[]): Out {
  const acl = ctx.engine.acl
  const user = acl.get(argv[2])
  if (user === undefined) return new ReplyError(`ERR User '${argv[2]}' not found`)
  const command = argv.slice(3)
  const info = lookupForDryRun(command)
  if (info === undefined) return new ReplyError(`ERR Command '${argv[3]}' not found`)
  if (!checkArity(info, command.length)) return new ReplyError(`ERR wrong number of arguments for '${info.name}' command`)
  return acl.explain(user, info, command) ?? OK
}

/** Redis's `lookupCommand`: a container with a second word resolves to that subcommand (or nothing). */
function lookupForDryRun(command: readonly string[]): CommandInfo | undefined {
  const info = findCommand(command[0])
  if (info === undefined || info.parent !== undefined) return undefined
  if (info.subcommands === undefined || command.length < 2) return info
  return info.subcommands.get(command[1].toLowerCase())
}

/** ACL GENPASS [bits]: random hex, 256 bits by default, (bits + 3) / 4 characters. */
function genpass(_ctx: CommandContext, argv: readonly string[]): Out {
  if (argv.length > 3) return subcommandSyntax(argv)
  let bits = 256
  if (argv.length === 3) {
    const value = readInteger(argv[2])
    if (value === null) return NOT_INTEGER
    bits = value
  }
  if (bits <= 0 || bits > 4096) return GENPASS_RANGE
  return randomHex(Math.floor((bits + 3) / 4))
}

const HELP = [
  'ACL <subcommand> [<arg> [value] [opt] ...]. Subcommands are:',
  'CAT [<category>]',
  '    List all commands that belong to <category>, or all command categories',
  '    when no category is specified.',
  'DELUSER <username> [<username> ...]',
  '    Delete a list of users.',
  'DRYRUN <username> <command> [<arg> ...]',
  '    Returns whether the user can execute the given command without executing the command.',
  'GETUSER <username>',
  "    Get the user's details.",
  'GENPASS [<bits>]',
  '    Generate a secure 256-bit user password. The optional `bits` argument can',
  '    be used to specify a different size.',
  'LIST',
  '    Show users details in config file format.',
  'LOAD',
  '    Reload users from the ACL file.',
  'LOG [<count> | RESET]',
  '    Show the ACL log entries.',
  'SAVE',
  '    Save the current config to the ACL file.',
  'SETUSER <username> <attribute> [<attribute> ...]',
  '    Create or modify a user with the specified attributes.',
  'USERS',
  '    List all the registered usernames.',
  'WHOAMI',
  '    Return the current connection username.',
  'HELP',
  '    Prints this help.',
].map((line) => new Status(line))

/**
 * AUTH [user] password: checks the credentials and, when they open the user, runs the rest of
 * the session as that user (a REST call's session lasts one request or pipeline).
 */
function auth(ctx: CommandContext, argv: readonly string[]): Out {
  if (argv.length > 3) return SYNTAX
  const acl = ctx.engine.acl
  let user = 'default'
  if (argv.length === 2) {
    if (acl.get('default')?.nopass) return AUTH_WITHOUT_PASSWORD
  } else user = argv[1]
  if (!acl.authenticate(user, argv[argv.length - 1])) return WRONGPASS
  ctx.session.user = user
  return OK
}

/** ACL and AUTH. */
export const aclCommands: CommandTable = {
  auth,
  'acl|setuser': setuser,
  'acl|deluser': deluser,
  'acl|getuser': getuser,
  'acl|users': users,
  'acl|list': list,
  'acl|whoami': whoami,
  'acl|cat': cat,
  'acl|dryrun': dryrun,
  'acl|genpass': genpass,
  'acl|load': () => NO_ACL_FILE,
  'acl|save': () => NO_ACL_FILE,
  'acl|help': () => HELP,
}
