/**
 * Admission of a request's commands, after authentication and before they run: is the command
 * available over REST, may the principal run it, is it within `maxRequestSize`; then today's
 * allowance (`dailyRequestLimit`) and the usage counters. What the command table says of a
 * command is worked out once per command and kept.
 */
import type { Command } from '../reply.js'
import { resolveCommand, isReadOnly, type CommandInfo } from '../commands/lookup.js'
import { principalId, type Principal } from '../auth/tokens.js'
import { noPermission, readOnlyTokenMay } from '../auth/permissions.js'
import { isWord } from '../auth/user-tokens.js'
import type { Endpoint, Limits } from '../auth/limits.js'
import { restAvailability } from './availability.js'
import { MAX_DAILY_REQUESTS, MAX_REQUEST_SIZE, RestError, commandNotAvailable } from './errors.js'

/** One command of a request after admission: run by the executor, answered by the gateway, or refused. */
export interface Row {
  readonly command: Command
  /** Answered by the gateway itself (`ACL RESTTOKEN`). */
  readonly local: boolean
  /** The command's table entry, when the table knows it. */
  readonly info?: CommandInfo
  /** Known to the table and not flagged `readonly`: running it counts as a write (sync token). */
  readonly write: boolean
  refusal: RestError | null
}

/** What admission needs to know of a command from the table, worked out once per command. */
interface TableVerdict {
  readonly info: CommandInfo
  /** Available on the REST endpoints; null when it depends on the arguments (`XREAD … BLOCK`). */
  readonly available: boolean | null
  /** The read-only token may run it. */
  readonly readonlyMay: boolean
  /** Not flagged `readonly`. */
  readonly write: boolean
}

const verdicts = new Map<CommandInfo, TableVerdict>()
/** Verdicts by the first word as sent, for commands without subcommands (the word decides). */
const verdictsByWord = new Map<string, TableVerdict>()
/** Bounds the by-word map: every case spelling of every name could otherwise be added. */
const MAX_VERDICT_WORDS = 1024

function verdictOf(info: CommandInfo): TableVerdict {
  let verdict = verdicts.get(info)
  if (verdict === undefined) {
    verdict = {
      info,
      available: info.flags.has('blocking') ? null : restAvailability(info) === 'ok',
      readonlyMay: readOnlyTokenMay(info),
      write: !isReadOnly(info),
    }
    verdicts.set(info, verdict)
  }
  return verdict
}

/** The verdict on the command `command` runs, or undefined for a command the table does not know. */
function resolveVerdict(command: Command): TableVerdict | undefined {
  const word = command[0]
  const info = resolveCommand(command)
  if (info === undefined) return undefined
  const verdict = verdictOf(info)
  if (typeof word === 'string' && info.subcommands === undefined && info.parent === undefined && verdictsByWord.size < MAX_VERDICT_WORDS) {
    verdictsByWord.set(word, verdict)
  }
  return verdict
}

/** `ACL RESTTOKEN …`, which the gateway answers itself. */
function isRestToken(command: Command): boolean {
  return isWord(command[0], 'acl') && isWord(command[1], 'resttoken')
}

const RESTTOKEN_ARITY = new RestError(400, "ERR wrong number of arguments for 'acl|resttoken' command")
/** The read-only token may not mint tokens (it could otherwise guess passwords of stronger users). */
const RESTTOKEN_READONLY = new RestError(400, noPermission('acl|resttoken'))

function commandName(command: Command): string {
  const name = command[0]
  return (typeof name === 'string' ? name : Buffer.from(name).toString('utf8')).toLowerCase()
}

/** A command that will run on the executor and is not flagged `readonly`. */
export function isWriteRow(row: Row): boolean {
  return row.refusal === null && !row.local && row.write
}

/** Admission against the gateway's limits. */
export class Admission {
  constructor(private readonly limits: Limits) {}

  /**
   * Checks availability, permission and size of one command. `sized`: the caller already knows
   * the command is within `maxRequestSize` (it came from a body that is).
   */
  admit(principal: Principal, command: Command, sized = false): Row {
    const word = command[0]
    let verdict = typeof word === 'string' ? verdictsByWord.get(word) : undefined
    if (verdict === undefined) {
      // ACL RESTTOKEN is the gateway's own, whatever the table says of it.
      if (isRestToken(command)) {
        const refusal =
          command.length !== 4
            ? RESTTOKEN_ARITY
            : principal.kind === 'readonly'
              ? RESTTOKEN_READONLY
              : !sized && this.limits.tooLarge(command)
                ? MAX_REQUEST_SIZE
                : null
        return { command, local: true, write: false, refusal }
      }
      verdict = resolveVerdict(command)
    }
    if (verdict !== undefined) {
      const { info, write } = verdict
      const available = verdict.available ?? restAvailability(info, command) === 'ok'
      if (!available) return { command, local: false, info, write, refusal: commandNotAvailable(commandName(command)) }
      // checkPermission's rule, from the verdict: only the read-only token is checked here.
      if (principal.kind === 'readonly' && !verdict.readonlyMay) return { command, local: false, info, write, refusal: new RestError(400, noPermission(info.name)) }
    }
    const info = verdict?.info
    const write = verdict?.write ?? false
    if (!sized && this.limits.tooLarge(command)) return { command, local: false, info, write, refusal: MAX_REQUEST_SIZE }
    return { command, local: false, info, write, refusal: null }
  }

  /** The commands of a request body (pipeline, transaction), each admitted. */
  admitAll(principal: Principal, commands: readonly Command[], body: Uint8Array | undefined): Row[] {
    const sized = this.bodyWithinCommandLimit(body)
    return commands.map((command) => this.admit(principal, command, sized))
  }

  /**
   * Takes `commands` of today's allowance and counts them in the principal's usage; false (and
   * nothing taken) when they no longer fit.
   */
  charge(principal: Principal, endpoint: Endpoint, commands: number): boolean {
    if (!this.limits.take(commands)) return false
    this.limits.record(principalId(principal), endpoint, commands)
    return true
  }

  /**
   * Takes today's allowance for the admitted rows of a pipeline in order; rows that no longer fit
   * are refused. The rows taken count in the usage.
   */
  chargeRows(principal: Principal, rows: readonly Row[]): void {
    this.recordRows(principal, this.takeRows(rows))
  }

  /** {@link Admission.chargeRows} without the usage record: a pipeline run in slices records once, at the end. */
  takeRows(rows: readonly Row[]): number {
    let taken = 0
    for (const row of rows) {
      if (row.refusal !== null) continue
      if (this.limits.take(1)) taken++
      else row.refusal = MAX_DAILY_REQUESTS
    }
    return taken
  }

  /** Counts `taken` pipeline commands in the principal's usage. */
  recordRows(principal: Principal, taken: number): void {
    if (taken > 0) this.limits.record(principalId(principal), 'pipeline', taken)
  }

  /**
   * Whether every command of a request body is within `maxRequestSize` because the body is: a
   * command's words take at most the bytes of their JSON text, except where the body's invalid
   * UTF-8 was replaced by U+FFFD (3 bytes for 1), hence the factor.
   */
  private bodyWithinCommandLimit(body: Uint8Array | undefined): boolean {
    return body === undefined || 3 * body.length <= this.limits.maxRequestSize
  }
}
