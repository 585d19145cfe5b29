import { ReplyError, type Command, type Reply } from '../reply.js'
import { allCommands, resolveCommand, type CommandInfo } from '../commands/lookup.js'
import { nopermRunText } from '../commands/errors.js'
import type { Executor } from '../executor/executor.js'
import type { Principal } from './tokens.js'

/**
 * `NOPERM this user has no permissions to run the '<cmd>' command`, the text Redis's ACL uses.
 * @public
 */
export function noPermission(name: string): string {
  return nopermRunText(name)
}

/** "Powerful reads" the read-only token may not run although Redis flags them `readonly` (rest-protocol.md). */
const POWERFUL_READS: ReadonlySet<string> = new Set(['keys', 'scan', 'hscan', 'sscan', 'zscan', 'randomkey', 'monitor'])
/** Commands the read-only token may run although they are not flagged `readonly` (rest-protocol.md). */
const READ_ONLY_TOKEN_EXTRAS: ReadonlySet<string> = new Set(['ping', 'echo', 'eval_ro', 'evalsha_ro', 'fcall_ro'])

/**
 * Whether the read-only REST token may run this command (rest-protocol.md, "Read-only token"):
 * flagged `readonly`, not in `@dangerous`, not a powerful read (KEYS, SCAN, HSCAN, SSCAN, ZSCAN,
 * RANDOMKEY, MONITOR); plus PING, ECHO, EVAL_RO, EVALSHA_RO, FCALL_RO. Everything else is
 * refused (→ `NOPERM this user has no permissions to run the '<cmd>' command`). The `/subscribe`
 * endpoint, also open to that token, is not a command-table decision.
 * @public
 */
export function readOnlyTokenMay(info: CommandInfo): boolean {
  if (READ_ONLY_TOKEN_EXTRAS.has(info.name)) return true
  return info.flags.has('readonly') && !info.categories.has('@dangerous') && !POWERFUL_READS.has(info.name)
}

/**
 * May `principal` run `command`? Returns null when allowed, else the NOPERM text. Commands
 * unknown to the table are allowed through so the backend answers them with its own error.
 * ACL users are not checked here: the executor enforces their rules (keys and channels
 * included), and the gateway passes the user in the call context.
 * @public
 */
export function checkPermission(principal: Principal, command: Command, info = resolveCommand(command)): string | null {
  if (principal.kind === 'standard' || info === undefined) return null
  if (principal.kind === 'readonly') return readOnlyTokenMay(info) ? null : noPermission(displayName(info))
  return null
}

function displayName(info: CommandInfo): string {
  return info.name
}

/**
 * The commands (full names, `config|get` for subcommands) the read-only token may run, from the
 * command table: {@link readOnlyTokenMay}.
 * @public
 */
export function readOnlyCommands(): string[] {
  const names: string[] = []
  for (const info of allCommands()) if (info.subcommands === undefined && readOnlyTokenMay(info)) names.push(info.name)
  return names
}

/**
 * The `ACL SETUSER` rules of an ACL user that may do what the read-only token may: every key and
 * channel, no command but {@link readOnlyCommands}, plus MULTI/EXEC (for `/multi-exec`) and
 * SUBSCRIBE/PSUBSCRIBE (for `/subscribe`, `/psubscribe`).
 * @public
 */
export function readOnlyAclRules(password: string, commands: readonly string[] = readOnlyCommands()): string[] {
  return ['reset', 'on', `>${password}`, '~*', '&*', '-@all', ...commands.map((name) => `+${name}`), '+multi', '+exec', '+subscribe', '+psubscribe']
}

/**
 * Creates (or resets) an ACL user on the executor with {@link readOnlyAclRules}, for the gateway
 * option `readonlyUser`. Commands the backend does not know (a server older than the command
 * table) are left out. Runs as the executor's configured user, which needs ACL rights.
 *
 * With it, the read-only token's calls run as that user, so the backend enforces the read-only
 * rules too, including inside scripts (`EVAL_RO` calling `KEYS` is refused); without it the
 * gateway's own check is the only one, and a read-only script could run the powerful reads.
 * @public
 */
export async function provisionReadonlyUser(executor: Executor, user: string, password: string): Promise<void> {
  const wanted = readOnlyCommands()
  const info = await executor.exec(['COMMAND', 'INFO', ...wanted])
  const known = Array.isArray(info) ? wanted.filter((_, i) => (info as readonly Reply[])[i] !== null) : wanted
  const reply = await executor.exec(['ACL', 'SETUSER', user, ...readOnlyAclRules(password, known)])
  if (reply instanceof ReplyError) throw new Error(`could not create the read-only ACL user: ${reply.message}`)
}
