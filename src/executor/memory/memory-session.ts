/**
 * {@link ExecutorSession} of the memory executor: one engine session kept for the whole
 * connection (its client id, its watches, its blocked call). Commands run as the executor runs
 * them, except that blocking commands may block (the session is marked `canBlock`) and WATCH and
 * UNWATCH are served. After every call, the clients its writes readied are served, before its
 * own reply is released (Redis serves them before it reads the next command).
 */
import { ReplyError, type Command, type NullArray, type Reply } from '../../reply.js'
import { BackendUnavailableError, type CallContext, type ExecutorSession } from '../executor.js'
import type { Out, Session } from './command.js'
import type { Engine } from './engine.js'

/** What the session needs of its executor. */
export interface SessionHost {
  readonly engine: Engine
  readonly closed: boolean
  /** Runs one command on `session` as `exec` does (connection-state refusals skipped for WATCH and UNWATCH). */
  runOn(session: Session, command: Command, context: CallContext | undefined): Reply
  /** Runs a transaction on `session`, honouring its watches. */
  transactionOn(session: Session, commands: readonly Command[], context: CallContext | undefined): Promise<Reply[] | ReplyError | NullArray>
  /** Forgets a closed session. */
  release(session: Session): void
  /** Releases a reply once the writes so far are durable (AOF). */
  durable<T>(value: T, failed: (error: ReplyError) => T): Promise<T>
  toReply(out: Out): Reply
}

const SESSION_CLOSED = (): BackendUnavailableError => new BackendUnavailableError('session closed')

export class MemorySession implements ExecutorSession {
  #closed = false

  constructor(
    private readonly host: SessionHost,
    private readonly session: Session,
  ) {
    session.canBlock = true
  }

  get id(): number {
    return this.session.id
  }

  get blocked(): boolean {
    return this.host.engine.blocking.blockedCall(this.session.id) !== undefined
  }

  get watchedKeys(): number {
    return this.session.watch?.keys.length ?? 0
  }

  get watching(): boolean {
    const watch = this.session.watch
    return watch !== undefined && (watch.dirty || watch.keys.length !== 0)
  }

  unblock(error: boolean): boolean {
    if (this.#closed) return false
    return this.host.engine.blocking.unblock(this.session.id, error)
  }

  exec(command: Command, context?: CallContext): Promise<Reply> {
    if (this.#closed || this.host.closed) return Promise.reject(SESSION_CLOSED())
    const engine = this.host.engine
    const reply = this.host.runOn(this.session, command, context)
    const blocked = engine.blocking.blockedCall(this.session.id)
    if (engine.blocking.hasReady) engine.blocking.serveReady()
    if (blocked === undefined) return this.host.durable(reply, (error) => error)
    return blocked.reply.then((out) => {
      if (out === undefined) throw SESSION_CLOSED()
      return this.host.durable(this.host.toReply(out), (error) => error)
    })
  }

  transaction(commands: readonly Command[], context?: CallContext): Promise<Reply[] | ReplyError | NullArray> {
    if (this.#closed || this.host.closed) return Promise.reject(SESSION_CLOSED())
    const result = this.host.transactionOn(this.session, commands, context)
    const blocking = this.host.engine.blocking
    if (blocking.hasReady) blocking.serveReady()
    return result
  }

  close(): void {
    if (this.#closed) return
    this.#closed = true
    const engine = this.host.engine
    engine.blocking.cancel(this.session.id)
    this.host.release(this.session)
    if (this.session.watch !== undefined) engine.watches.unwatchAll(this.session.watch)
  }
}
