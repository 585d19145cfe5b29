import type { NullArray, ReplyError, Resp3Reply, Status } from '../../reply.js'
import type { Database } from './keyspace.js'
import type { Engine } from './engine.js'
import type { ReplyBudget } from './reply-budget.js'
import type { WatchState } from './watch.js'

/**
 * A reply inside the engine. Same shape as {@link Reply} except that a bulk string is a binary
 * string (one char per byte), the form the engine stores; the executor converts to bytes once,
 * at its boundary. Scripts consume this form directly. The RESP3 types appear only in what a
 * script returns to a RESP3 caller (`Session.resp`), already in their final form (bytes inside).
 */
export type Out = null | NullArray | number | bigint | string | Status | ReplyError | Resp3Reply | readonly Out[]

/** Per-connection state: the RESP listener keeps one per socket; REST calls get a fresh one. */
export interface Session {
  /** Selected database index. */
  db: number
  /** ACL user name. */
  user: string
  /** Client address, as MONITOR shows it (`127.0.0.1:5000`, or `lua` inside scripts). */
  address: string
  /** CLIENT SETNAME value. */
  name: string
  /** CLIENT NO-TOUCH: this session's lookups do not update the keys' LRU/LFU clock. */
  noTouch?: boolean
  /** The caller's protocol (`CallContext.resp`): 3 lets scripts return RESP3 types. Absent: 2. */
  resp?: 2 | 3
  readonly id: number
  /** Set while a script runs, so commands it calls know where they come from. */
  script?: ScriptState
  /**
   * The reply room left to the request this session runs (a pipeline, a transaction); absent,
   * each command gets the engine's whole limits (see `reply-budget.ts`).
   */
  replyBudget?: ReplyBudget
  /**
   * True on the session of a connection whose caller can wait for a reply (an executor session,
   * see `memory-session.ts`): a blocking command that finds nothing to serve blocks there. Absent
   * (REST calls, scripts), blocking commands answer as if their time ran out, as Redis does
   * inside MULTI and scripts.
   */
  canBlock?: boolean
  /** The engine's logged-unit offset right after this session's last logged write (WAITAOF; Redis's `woff`). */
  loggedOffset?: number
  /** The keys this connection WATCHes, once it watched any. */
  watch?: WatchState
}

/** What a running script restricts: read-only scripts and `no-writes` functions refuse writes. */
export interface ScriptState {
  readonly readOnly: boolean
  /**
   * The script's commands skip the memory bound (Redis's `scriptVerifyOOM`): it declared
   * `allow-oom`, or it already wrote, and cannot be stopped halfway.
   */
  oomExempt?: boolean
}

/** Everything a command handler may use. `now` is fixed for the whole command, as in Redis. */
export interface CommandContext {
  readonly engine: Engine
  readonly session: Session
  readonly db: Database
  /** Milliseconds since the epoch, one snapshot per command (or per transaction/script). */
  readonly now: number
  /** Full lowercase name: `get`, or `config|get` for a subcommand. */
  readonly name: string
}

/** A command implementation. `argv[0]` is the command name, as the client sent it. */
export type Handler = (ctx: CommandContext, argv: readonly string[]) => Out

/** A family's handlers by full lowercase name (`config|get` for subcommands). */
export type CommandTable = Readonly<Record<string, Handler>>
