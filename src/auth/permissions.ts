import type { Command } from '../reply.js'
import { resolveCommand, readOnlyTokenMay, type CommandInfo } from '../commands/lookup.js'
import type { Principal } from './tokens.js'

/**
 * `NOPERM this user has no permissions to run the '<cmd>' command`, the text Redis's ACL uses.
 * @public
 */
export function noPermission(name: string): string {
  return `NOPERM this user has no permissions to run the '${name}' command`
}

/**
 * May `principal` run `command`? Returns null when allowed, else the NOPERM text. Commands
 * unknown to the table are allowed through so the backend answers them with its own error.
 * @public
 */
export function checkPermission(principal: Principal, command: Command, info = resolveCommand(command)): string | null {
  if (principal.kind === 'standard' || info === undefined) return null
  if (principal.kind === 'readonly') return readOnlyTokenMay(info) ? null : noPermission(displayName(info))
  return null // ACL users are checked by the executor, which knows the user's rules.
}

function displayName(info: CommandInfo): string {
  return info.name
}
