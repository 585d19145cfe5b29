import type { Bytes, Command, Reply, ReplyError, Arg, NullArray } from '../reply.js'

/**
 * Who runs a call and where: the logical database, the ACL user, and the client address that
 * MONITOR shows. Every field is optional; executors fall back to database 0, the default user
 * and an address of their own.
 * @public
 */
export interface CallContext {
  /** Logical database index (SELECT). */
  readonly db?: number
  /** ACL user the call runs as; `undefined` is the default user. */
  readonly user?: string
  /** The user's password, for executors that must authenticate as that user upstream. */
  readonly password?: string
  /** Client address shown in MONITOR lines, e.g. `127.0.0.1:52114`. */
  readonly client?: string
  /**
   * CLIENT NO-TOUCH of the RESP listener's client: the call's reads leave the keys' LRU/LFU
   * clock as it was. The in-memory engine honours it; the socket executor cannot (its pooled
   * connections are shared), so the listener refuses NO-TOUCH ON there.
   */
  readonly noTouch?: boolean
  /**
   * The caller's protocol (the RESP listener's connection after `HELLO 3`); absent means 2. The
   * in-memory engine gives a RESP3 caller the RESP3 types a script returns (`{double = …}`,
   * `{map = …}`, booleans after `redis.setresp(3)`), as Redis 7 does; everything else answers
   * in RESP2 and the listener reshapes it.
   */
  readonly resp?: 2 | 3
  /**
   * The id of the caller's executor session ({@link ExecutorSession.id}: the RESP listener's
   * connection) when the call runs outside it: its writes still count as the connection's, for
   * WAITAOF, which waits for the last write its connection made.
   */
  readonly session?: number
}

/**
 * One client connection to an executor, for front ends that hold connections (the RESP
 * listener): what Redis keeps per connection and an executor call has not. On a session,
 * blocking commands (BLPOP, BZPOPMIN, XREAD … BLOCK, WAIT …) wait for their data or timeout
 * instead of answering at once, and WATCH / UNWATCH apply to {@link ExecutorSession.transaction}.
 * Open one per connection with {@link Executor.openSession}; close it when the connection ends.
 * @public
 */
export interface ExecutorSession {
  /** The client id (CLIENT ID, and the id CLIENT UNBLOCK takes). */
  readonly id: number
  /** True while a blocking call of this session waits. */
  readonly blocked: boolean
  /** Number of keys this session WATCHes. */
  readonly watchedKeys: number
  /** WATCH is in effect: keys are watched, or one was touched and the next EXEC will fail. */
  readonly watching: boolean
  /**
   * Runs one command on this connection; a blocking command settles when served, timed out or
   * unblocked (CLIENT UNBLOCK). One call at a time: the caller sends the next command after the
   * previous one settled, as a Redis connection reads no command while blocked.
   */
  exec(command: Command, context?: CallContext): Promise<Reply>
  /**
   * MULTI/EXEC on this connection: the null array, running nothing, when a key it watches changed
   * since WATCH; either way its watches end (as EXEC ends them).
   */
  transaction(commands: readonly Command[], context?: CallContext): Promise<Reply[] | ReplyError | NullArray>
  /**
   * CLIENT UNBLOCK of this connection: a waiting blocking call answers as if timed out, or with
   * `UNBLOCKED client unblocked via CLIENT UNBLOCK` when `error`. True when a call was waiting.
   */
  unblock?(error: boolean): boolean
  /** Ends the connection: a waiting blocking call rejects, watches are dropped. Idempotent. */
  close(): void
}

/**
 * What to subscribe to: channels by name, by glob pattern, or shard channels by name (sharded
 * pub/sub, Redis 7: SSUBSCRIBE; only SPUBLISH reaches them, and in a cluster they live on the
 * node serving their slot).
 * @public
 */
export interface Subscription {
  /** `channel` for SUBSCRIBE, `pattern` for PSUBSCRIBE, `shard` for SSUBSCRIBE. */
  readonly kind: 'channel' | 'pattern' | 'shard'
  /** Channel names, or patterns when `kind` is `pattern`. */
  readonly names: readonly Arg[]
}

/**
 * One pub/sub event, in the order the server sends them. A `shard` subscription confirms with
 * `ssubscribe` and receives `smessage`; `sunsubscribe` says the server dropped a shard channel
 * on its own (Redis does when the channel's slot leaves the node): no more messages come for it.
 * @public
 */
export type PubSubEvent =
  | { readonly type: 'subscribe' | 'psubscribe' | 'ssubscribe' | 'sunsubscribe'; readonly channel: Bytes; readonly count: number }
  | { readonly type: 'message' | 'smessage'; readonly channel: Bytes; readonly message: Bytes }
  | { readonly type: 'pmessage'; readonly pattern: Bytes; readonly channel: Bytes; readonly message: Bytes }

/**
 * One executed command as MONITOR reports it: the whole line, formatted as Redis formats it,
 * e.g. `1339518083.107412 [0 127.0.0.1:60866] "keys" "*"`.
 * @public
 */
export interface MonitorEvent {
  /** The line as MONITOR prints it: time, database and client, then the quoted command. */
  readonly line: string
}

/**
 * Runs Redis commands. The gateway never knows which executor it has; the in-memory engine and
 * the socket executor pass the same suite.
 *
 * Command failures are {@link ReplyError} values; a rejected promise means the backend itself
 * failed (unreachable, timed out, closed).
 * @public
 */
export interface Executor {
  /** Runs one command. */
  exec(command: Command, context?: CallContext): Promise<Reply>
  /**
   * {@link Executor.exec} for a caller that can take a reply at once: the reply itself when the
   * executor has it before returning (the memory executor, unless the reply must wait for the
   * AOF), else the promise `exec` would give. Optional: without it, callers use `exec`. Saves a
   * promise and a microtask per command where a listener runs thousands of pipelined commands.
   */
  execNow?(command: Command, context?: CallContext): Reply | Promise<Reply>
  /** Runs commands in order, not atomically; one reply per command. */
  pipeline(commands: readonly Command[], context?: CallContext): Promise<Reply[]>
  /**
   * Runs commands atomically as MULTI/EXEC. Returns one reply per command, or a single
   * {@link ReplyError} (EXECABORT) when a command was refused at queue time.
   */
  transaction(commands: readonly Command[], context?: CallContext): Promise<Reply[] | ReplyError>
  /**
   * Delivers pub/sub events until `signal` aborts. The first events confirm the subscriptions.
   * Resolves when the subscription ended by the signal; rejects when the backend fails.
   */
  subscribe(
    target: Subscription,
    onEvent: (event: PubSubEvent) => void,
    signal: AbortSignal,
    context?: CallContext,
  ): Promise<void>
  /** Delivers every executed command until `signal` aborts; same settling rules as subscribe. */
  monitor(onEvent: (event: MonitorEvent) => void, signal: AbortSignal, context?: CallContext): Promise<void>
  /** Releases every resource. Pending calls reject. */
  close(): Promise<void>
  /**
   * Opens a connection-scoped session ({@link ExecutorSession}), where blocking commands block
   * and WATCH works. Optional: an executor without it refuses WATCH, and runs blocking commands
   * its own way (the socket executor gives each a dedicated upstream connection).
   */
  openSession?(context?: CallContext): ExecutorSession
}

/**
 * Thrown (as a rejection) when the backend could not run a call. As such (not as an
 * {@link OutcomeUnknownError}) it means the call was never sent to the backend (no connection,
 * a full queue, the executor closed): nothing ran and the call is safe to retry.
 * @public
 */
export class BackendUnavailableError extends Error {
  constructor(reason: string) {
    super(reason)
    this.name = 'BackendUnavailableError'
  }
}

/**
 * The call was sent to the backend and then no reply came (a timeout, a lost connection): it may
 * have run, in part or whole, or not at all. Retrying a write can apply it twice; read the data
 * first. The connection that carried it was closed, so a late reply can never reach another call.
 * @public
 */
export class OutcomeUnknownError extends BackendUnavailableError {
  constructor(reason: string) {
    super(reason)
    this.name = 'OutcomeUnknownError'
  }
}

/**
 * The error text of a failed call, as the gateway and the RESP listener answer it:
 * `ERR backend unavailable: <reason> (not executed; safe to retry)` or, for an
 * {@link OutcomeUnknownError}, `ERR backend outcome unknown: <reason> (sent; it may have run)`.
 * @public
 */
export function backendFailureMessage(error: BackendUnavailableError): string {
  const reason = error.message.replace(/[\r\n]+/g, ' ')
  return error instanceof OutcomeUnknownError
    ? `ERR backend outcome unknown: ${reason} (sent; it may have run)`
    : `ERR backend unavailable: ${reason} (not executed; safe to retry)`
}
