/**
 * The RESP listener's side of an {@link ExecutorSession}: which commands may block the
 * connection, and how WATCH, UNWATCH and EXEC go to the session. One per connection; without a
 * session (an executor that has no `openSession`, e.g. the socket executor) WATCH is refused
 * with the reason, and blocking commands go to the executor's `exec` (the socket executor gives
 * each its own upstream connection).
 */
import { OK, ReplyError, type Command, type NullArray, type Reply } from '../../reply.js'
import type { CallContext, Executor, ExecutorSession } from '../../executor/executor.js'

/**
 * Commands that may wait for data: while one runs, the connection reads no further command, as a
 * blocked Redis client does (XREAD and XREADGROUP block only with BLOCK, and are counted here
 * either way: holding input back for one that answers at once costs nothing).
 */
const MAY_BLOCK: ReadonlySet<string> = new Set([
  'blpop', 'brpop', 'brpoplpush', 'blmove', 'blmpop', 'bzpopmin', 'bzpopmax', 'bzmpop', 'xread', 'xreadgroup', 'wait', 'waitaof',
])

export const WATCH_UNSUPPORTED = new ReplyError(
  'ERR WATCH is not supported by this server over this backend: it needs a connection-scoped executor session (the memory executor has one; the socket executor does not pin a client to one upstream connection)',
)

export class ConnectionSession {
  readonly #executor: Executor
  readonly #session: ExecutorSession | undefined

  constructor(executor: Executor, context: CallContext) {
    this.#executor = executor
    this.#session = executor.openSession?.(context)
  }

  /** The session's client id, when there is a session. */
  get id(): number | undefined {
    return this.#session?.id
  }

  /** True when `name` (lowercase) may block the connection. */
  static mayBlock(name: string): boolean {
    return MAY_BLOCK.has(name)
  }

  /**
   * Runs one command. Only a command that may block needs the session; the others go to the
   * executor's `exec` as they always did (the session would run them alike).
   */
  exec(command: Command, context: CallContext, mayBlock: boolean): Promise<Reply> {
    return mayBlock && this.#session !== undefined ? this.#session.exec(command, context) : this.#executor.exec(command, context)
  }

  /**
   * {@link ConnectionSession.exec} of a command that cannot block, with the reply itself when the
   * executor has it at once ({@link Executor.execNow}), so the listener queues it without a promise.
   */
  execNow(command: Command, context: CallContext): Reply | Promise<Reply> {
    const executor = this.#executor
    return executor.execNow !== undefined ? executor.execNow(command, context) : executor.exec(command, context)
  }

  /** WATCH key …: on the session, or refused with the reason. */
  watch(command: Command, context: CallContext): Promise<Reply> | ReplyError {
    return this.#session !== undefined ? this.#session.exec(command, context) : WATCH_UNSUPPORTED
  }

  /**
   * UNWATCH, and what DISCARD, RESET and a refused EXEC do: forgets the watched keys and the
   * touched flag. The memory session runs it before `exec` returns, so later commands see it.
   */
  unwatch(context: CallContext): Reply {
    if (this.#session?.watching === true) this.#session.exec(['UNWATCH'], context).catch(() => {})
    return OK
  }

  /** EXEC of the queued commands: on the session while WATCH is in effect, else as a plain transaction. */
  transaction(commands: readonly Command[], context: CallContext): Promise<Reply[] | ReplyError | NullArray> {
    return this.#session?.watching === true ? this.#session.transaction(commands, context) : this.#executor.transaction(commands, context)
  }

  /** True while a blocking call of this connection waits. */
  get blocked(): boolean {
    return this.#session?.blocked === true
  }

  /**
   * CLIENT UNBLOCK of this connection: its waiting blocking call answers as timed out, or with
   * the UNBLOCKED error when `error`. False when nothing of it waits (or there is no session).
   */
  unblock(error: boolean): boolean {
    return this.#session?.unblock?.(error) === true
  }

  /** The connection ended: a blocked call is cancelled, watches dropped. */
  close(): void {
    this.#session?.close()
  }
}
