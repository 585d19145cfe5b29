/**
 * The host side of `redis.call` / `redis.pcall`: what Redis 7.0's `scriptCall` (script.c) checks
 * before a script's command runs, then the command itself through `Engine.call` with the
 * script's own session.
 *
 * The script's session starts on the caller's database and carries `script` (read-only or not),
 * so MONITOR shows its commands with `lua` as address; a SELECT inside the script moves only the
 * script's session, as in Redis 7.
 */
import { ReplyError } from '../../../../reply.js'
import { checkArity, findCommand, findSubcommand, type CommandInfo } from '../../../../commands/lookup.js'
import { NOPERM_CHANNEL, NOPERM_KEY, WRONGPASS } from '../../acl.js'
import type { CommandContext, Out, Session } from '../../command.js'
import type { Engine } from '../../engine.js'
import type { ScriptCaller, ScriptVm } from '../../lua/vm.js'
import { scripting, timeoutError } from './state.js'
import { requestBudget, type ReplyBudget } from '../../reply-budget.js'
import { OOM_ERROR } from '../../eviction.js'
import { ALLOW_OOM, NO_WRITES } from './shebang.js'
import { BusyScript, busyService, KILLED_TEXT } from './busy.js'

const UNKNOWN_COMMAND = new ReplyError('ERR Unknown Redis command called from script')
const WRONG_ARGS = new ReplyError('ERR Wrong number of args calling Redis command from script')
const NOT_ALLOWED = new ReplyError('ERR This Redis command is not allowed from script')
const WRITE_IN_READ_ONLY = new ReplyError('ERR Write commands are not allowed from read-only scripts.')
const ACL_DENIED_COMMAND = new ReplyError("ERR The user executing the script can't run this command or subcommand")
const ACL_DENIED_KEY = new ReplyError("ERR The user executing the script can't access at least one of the keys mentioned in the command arguments")
const ACL_DENIED_CHANNEL = new ReplyError("ERR The user executing the script can't publish to the channel mentioned in the command")
const ACL_INVALID_COMMAND = new ReplyError('ERR Invalid command passed to redis.acl_check_cmd()')

const monotonic = globalThis.performance

/** The command `argv` names (a subcommand for containers), as Redis's `lookupCommand`. */
function lookupCommand(argv: readonly string[]): CommandInfo | undefined {
  const info = findCommand(argv[0])
  if (info === undefined || info.name.includes('|')) return undefined
  if (info.subcommands === undefined || argv.length < 2) return info
  return findSubcommand(info, argv[1])
}

/** One script execution: its session, time snapshot and deadline. */
export class ScriptRun implements ScriptCaller {
  /** Set once the deadline passed: every later command gets the timeout error. */
  timedOut = false
  /** Set once a write command ran (Redis's SCRIPT_WRITE_DIRTY). */
  wrote = false
  /** What other clients see of this script, when the engine has a busy service. */
  busy: BusyScript | undefined
  readonly callerResp: 2 | 3

  constructor(
    private readonly engine: Engine,
    readonly session: Session,
    private readonly now: number,
    private readonly deadline: number,
    private readonly timeout: ReplyError,
    caller: Session,
  ) {
    this.callerResp = caller.resp === 3 ? 3 : 2
  }

  /**
   * A script's session for `caller`'s: same database, user and address, marked as a script
   * (`allowOom`: its commands skip the memory bound).
   */
  static session(caller: Session, readOnly: boolean, replyBudget: ReplyBudget, allowOom = false): Session {
    const script = allowOom ? { readOnly, oomExempt: true } : { readOnly }
    return { db: caller.db, user: caller.user, address: caller.address, name: caller.name, id: caller.id, script, replyBudget }
  }

  command(argv: string[]): Out {
    if (this.timedOut || monotonic.now() > this.deadline) {
      this.timedOut = true
      return this.timeout
    }
    const info = lookupCommand(argv)
    if (info === undefined) return UNKNOWN_COMMAND
    if (!checkArity(info, argv.length)) return WRONG_ARGS
    if (info.flags.has('noscript')) return NOT_ALLOWED
    const denied = this.engine.acl.check(this.session.user, info, argv)
    if (denied !== null) return aclError(denied)
    // Redis counts commands that may replicate (PUBLISH, PFCOUNT …) as writes here (script.c).
    if (this.session.script?.readOnly && (info.flags.has('write') || info.hiddenFlags.has('may_replicate'))) return WRITE_IN_READ_ONLY
    // A command the table knows but the engine does not implement is unknown here too.
    if (this.engine.resolve(argv) instanceof ReplyError) return UNKNOWN_COMMAND
    const reply = this.engine.call(this.session, argv, this.now)
    // Past the memory check, a write command makes the script dirty (SCRIPT_WRITE_DIRTY): its
    // later commands are not refused for memory, and SCRIPT KILL cannot stop it.
    if (info.flags.has('write') && reply !== OOM_ERROR && !this.wrote) {
      this.wrote = true
      if (this.session.script !== undefined) this.session.script.oomExempt = true
    }
    return reply
  }

  /** The VM hook's question: stop now? (SCRIPT KILL through the busy service.) */
  poll(now: number): boolean {
    if (this.busy === undefined || !this.busy.poll(now)) return false
    this.timedOut = true
    return true
  }

  /** `redis.acl_check_cmd`: may the script's user run `argv`? (The command must exist.) */
  aclCheck(argv: string[]): Out {
    const info = lookupCommand(argv)
    if (info === undefined) return ACL_INVALID_COMMAND
    return this.engine.acl.check(this.session.user, info, argv) === null ? 1 : 0
  }
}

/** Redis's wording of an ACL refusal inside a script (`scriptVerifyACL`). */
function aclError(denied: ReplyError): ReplyError {
  if (denied === NOPERM_KEY) return ACL_DENIED_KEY
  if (denied === NOPERM_CHANNEL) return ACL_DENIED_CHANNEL
  if (denied === WRONGPASS) return denied
  return ACL_DENIED_COMMAND
}

/**
 * Runs a script or function for the command in `ctx`: a script session (read-only or not), the
 * command's time snapshot for every command it calls, and the engine's time limit. A script that
 * ran out of time replies with the timeout error even when it caught the error and went on.
 */
export function runScript(
  ctx: CommandContext,
  readOnly: boolean,
  flags: number | null,
  action: (vm: ScriptVm, run: ScriptRun, limitMs: number) => Out,
): Out {
  // A script with flags (a shebang, or any function) is refused whole over maxmemory unless it
  // declares allow-oom or no-writes: Redis's processCommand takes its flags as the command's.
  // (Inside EXEC the block's own check came first, as for Redis's queued commands.)
  const exempt = flags !== null && (flags & (ALLOW_OOM | NO_WRITES)) !== 0
  if (flags !== null && !exempt && ctx.engine.evictor.limit !== 0 && !ctx.engine.inTransaction && !ctx.engine.evictor.makeRoom()) return OOM_ERROR
  const limit = ctx.engine.scriptTimeLimit
  const timeout = new ReplyError(timeoutError(limit))
  // The replies of the script's commands count against its caller's request (reply-budget.ts).
  const budget = ctx.session.replyBudget ?? requestBudget(ctx.engine)
  const allowOom = flags !== null && (flags & ALLOW_OOM) !== 0
  const start = monotonic.now()
  // With a busy service (busy.ts) nothing stops the script but SCRIPT KILL / FUNCTION KILL.
  const service = busyService(ctx.engine)
  const deadline = service === undefined ? start + limit : Infinity
  const run = new ScriptRun(ctx.engine, ScriptRun.session(ctx.session, readOnly, budget, allowOom), ctx.now, deadline, timeout, ctx.session)
  if (service !== undefined) run.busy = new BusyScript(ctx.name.startsWith('eval'), () => run.wrote, start + limit, service)
  let reply = scripting(ctx.engine).withVm((vm) => action(vm, run, deadline === Infinity ? Infinity : limit))
  if (run.timedOut && !(reply instanceof ReplyError && reply.message.startsWith(timeout.message))) reply = timeout
  if (run.busy?.killed === true && reply instanceof ReplyError && reply.message.startsWith(timeout.message)) {
    return new ReplyError(KILLED_TEXT + reply.message.slice(timeout.message.length))
  }
  return reply
}
