import { NULL_ARRAY, ReplyError, Status, type Arg, type Command, type NullArray, type Reply } from '../../reply.js'
import { connectionStateRefusal } from '../connection-state.js'
import {
  BackendUnavailableError,
  type CallContext,
  type Executor,
  type ExecutorSession,
  type MonitorEvent,
  type PubSubEvent,
  type Subscription,
} from '../executor.js'
import { MemorySession, type SessionHost } from './memory-session.js'
import type { Out, Session } from './command.js'
import { Engine, type EngineOptions } from './engine.js'
import { toPubSubEvent, type PubSubReply } from './pubsub.js'
import { latin1Text } from '../../resp/protocol.js'
import { requestBudget } from './reply-budget.js'
import { AofControl } from './persistence/aof-control.js'
import { checkPersistenceOptions } from './persistence/persistence-options.js'
import { removeAofHistoryFiles, removeStaleTempFiles } from './persistence/stale-temp-files.js'

/** Options of {@link MemoryExecutor}: the engine's, `persistence` included. @public */
export type MemoryExecutorOptions = EngineOptions

/**
 * The embedded executor: a Redis-compatible engine in this process. Calls complete
 * synchronously inside the engine; the promises only fit the {@link Executor} interface.
 * @public
 */
export class MemoryExecutor implements Executor {
  /** The engine behind this executor, for the CLI, benchmarks and tests. @internal */
  readonly engine: Engine
  #closed = false
  /** Settles the promise of each running monitor() when the executor closes. */
  private readonly openMonitors = new Set<(error?: unknown) => void>()

  /** The AOF's controls when the executor has a data directory. */
  private readonly aofControl: AofControl | undefined

  /**
   * With `persistence`, temporary files a crash left in the data directory are removed, and the
   * files an AOF manifest lists as history (`persistence/stale-temp-files.ts`), then its files are loaded before this returns: the AOF when
   * `appendonly` is on and it exists, else `dump.rdb` (a file that does not load throws, naming
   * the file and offset). SHUTDOWN closes the executor, then calls `onShutdown` when given.
   */
  constructor(options: MemoryExecutorOptions = {}) {
    // Leftovers of a save or rewrite a crash interrupted go before anything reads the directory.
    if (options.persistence !== undefined) {
      checkPersistenceOptions(options.persistence)
      removeStaleTempFiles(options.persistence)
      removeAofHistoryFiles(options.persistence)
    }
    this.engine = new Engine({ ...options, onShutdown: () => this.shutDown(options.onShutdown) })
    if (options.persistence !== undefined) {
      try {
        this.aofControl = new AofControl(this.engine, options.persistence)
      } catch (error) {
        this.engine.close()
        throw error
      }
    }
  }

  /** {@inheritDoc Executor.exec} */
  exec(command: Command, context?: CallContext): Promise<Reply> {
    const reply = this.runNow(command, context)
    return reply instanceof Promise ? reply : Promise.resolve(reply)
  }

  /**
   * {@inheritDoc Executor.execNow}
   * The engine answers synchronously: the reply comes at once unless writes logged to the AOF
   * are not written yet (then it waits for them, as `exec` does).
   */
  execNow(command: Command, context?: CallContext): Reply | Promise<Reply> {
    // A subclass that overrides exec (to gate, log or wrap calls) keeps every call going through it.
    if (this.exec !== MemoryExecutor.prototype.exec) return this.exec(command, context)
    return this.runNow(command, context)
  }

  /** {@link MemoryExecutor.execNow} itself, for exec and execNow alike. */
  private runNow(command: Command, context: CallContext | undefined): Reply | Promise<Reply> {
    if (this.#closed) return CLOSED()
    const reply = this.run(command, context)
    this.serveReady()
    const wait = this.aofControl?.aof?.durable()
    return wait === undefined ? reply : wait.then((error) => error ?? reply)
  }

  /**
   * {@inheritDoc Executor.openSession}
   * The session is the engine's client: its id is what CLIENT ID answers on it and CLIENT
   * UNBLOCK takes.
   */
  openSession(context?: CallContext): ExecutorSession {
    if (this.#closed) throw new BackendUnavailableError('executor closed')
    this.sessionHost ??= this.hostForSessions()
    const session = this.session(context)
    this.openSessions.set(session.id, session)
    return new MemorySession(this.sessionHost, session)
  }

  /** The sessions open (by id), so a call outside its session still records its writes there. */
  private readonly openSessions = new Map<number, Session>()

  private sessionHost: SessionHost | undefined

  /** What sessions use of this executor. */
  private hostForSessions(): SessionHost {
    const isClosed = (): boolean => this.#closed
    return {
      engine: this.engine,
      get closed(): boolean {
        return isClosed()
      },
      runOn: (session, command, context) => {
        applyContext(session, context)
        const name = toBinary(command[0] ?? '').toLowerCase()
        // WATCH and UNWATCH are what a session is for; other connection-state commands stay refused.
        if (name === 'watch' || name === 'unwatch') return toReply(this.engine.call(session, toArgv(command)))
        return this.run(command, context, session)
      },
      transactionOn: (session, commands, context) => {
        applyContext(session, context)
        return this.runTransaction(commands, session, true)
      },
      durable: (value, failed) => this.whenDurable(value, failed),
      release: (session) => this.openSessions.delete(session.id),
      toReply,
    }
  }

  /** Clients readied by the last call are served before its reply is released. */
  private serveReady(): void {
    if (this.engine.blocking.hasReady) this.engine.blocking.serveReady()
  }

  /**
   * With an AOF, a reply is released once the writes logged so far are written: handed to the OS
   * (a crash of the process loses no acknowledged write), and under `appendfsync always` on disk
   * (one write and one fsync serve every command of the turn). When they could not be written,
   * the reply is the MISCONF error instead. Without pending writes, at once.
   */
  private whenDurable<T>(value: T, failed: (error: ReplyError) => T): Promise<T> {
    const wait = this.aofControl?.aof?.durable()
    if (wait === undefined) return Promise.resolve(value)
    return wait.then((error) => (error === undefined ? value : failed(error)))
  }

  /**
   * Runs one command synchronously (the engine never waits); throws once the executor is closed.
   * With an AOF the reply does not wait for the file: use {@link MemoryExecutor.exec} for that.
   * For benchmarks and tests. @internal
   */
  execSync(command: Command, context?: CallContext): Reply {
    if (this.#closed) throw new BackendUnavailableError('executor closed')
    return this.run(command, context)
  }

  /** {@inheritDoc Executor.pipeline} */
  pipeline(commands: readonly Command[], context?: CallContext): Promise<Reply[]> {
    if (this.#closed) return CLOSED()
    const session = this.session(context)
    // The pipeline is one request: its replies share one budget (see reply-budget.ts).
    session.replyBudget = requestBudget(this.engine)
    const replies = commands.map((command) => {
      const reply = this.run(command, context, session)
      this.serveReady()
      return reply
    })
    return this.whenDurable(replies, (error) => replies.map(() => error))
  }

  /** {@inheritDoc Executor.transaction} */
  transaction(commands: readonly Command[], context?: CallContext): Promise<Reply[] | ReplyError> {
    if (this.#closed) return CLOSED()
    return this.runTransaction(commands, this.session(context), false) as Promise<Reply[] | ReplyError>
  }

  /** A transaction on `session`; `watched`: a connection's, whose watches it honours. */
  private runTransaction(commands: readonly Command[], session: Session, watched: boolean): Promise<Reply[] | ReplyError | NullArray> {
    for (const command of commands) {
      const refusal = connectionStateRefusal(command)
      if (refusal !== null) return Promise.resolve(refusal)
    }
    const argvs = commands.map(toArgv)
    const replies = watched ? this.engine.watchedTransaction(session, argvs) : this.engine.transaction(session, argvs)
    this.serveReady()
    const out = replies instanceof ReplyError || replies === NULL_ARRAY ? replies : replies.map(toReply)
    return this.whenDurable<Reply[] | ReplyError | NullArray>(out, (error) => error)
  }

  /**
   * Subscribes like a connection of its own: SUBSCRIBE (PSUBSCRIBE, SSUBSCRIBE) runs through the engine
   * (MONITOR and INFO see it), the confirmations come first with this subscriber's running count,
   * then messages in publish order. The abort removes every subscription at once. A callback
   * that throws ends this subscription (the promise rejects with what it threw); other
   * subscribers keep receiving.
   */
  subscribe(
    target: Subscription,
    onEvent: (event: PubSubEvent) => void,
    signal: AbortSignal,
    context?: CallContext,
  ): Promise<void> {
    if (this.#closed) return Promise.reject(new BackendUnavailableError('executor closed'))
    if (signal.aborted) return Promise.resolve()
    return new Promise((resolve, reject) => {
      const session = this.session(context)
      const hub = this.engine.pubsub
      let done = false
      const finish = (error?: unknown): void => {
        if (done) return
        done = true
        signal.removeEventListener('abort', onAbort)
        hub.detach(session.id)
        if (error === undefined) resolve()
        else reject(this.#closed ? new BackendUnavailableError('executor closed') : error)
      }
      const onAbort = (): void => finish()
      const emit = (reply: PubSubReply): void => {
        if (!done) onEvent(toPubSubEvent(reply))
      }
      hub.attach(session.id, emit, finish)
      signal.addEventListener('abort', onAbort, { once: true })
      // Nothing to subscribe to: like a connection that never sent SUBSCRIBE, it waits for the abort.
      if (target.names.length === 0) return
      const verb = SUBSCRIBE_VERB[target.kind]
      const out = this.engine.call(session, [verb, ...target.names.map(toBinary)])
      if (out instanceof ReplyError) return finish(new BackendUnavailableError(`subscription refused: ${out.message}`))
      try {
        for (const confirmation of out as readonly PubSubReply[]) emit(confirmation)
      } catch (error) {
        finish(error)
      }
    })
  }

  /**
   * Delivers a MONITOR line for every command the engine runs from now on, until the abort. A
   * callback that throws ends this monitor (the promise rejects with what it threw); the command
   * being fed is not affected.
   */
  monitor(onEvent: (event: MonitorEvent) => void, signal: AbortSignal, _context?: CallContext): Promise<void> {
    if (this.#closed) return Promise.reject(new BackendUnavailableError('executor closed'))
    if (signal.aborted) return Promise.resolve()
    return new Promise((resolve, reject) => {
      let done = false
      const finish = (error?: unknown): void => {
        if (done) return
        done = true
        this.openMonitors.delete(finish)
        signal.removeEventListener('abort', onAbort)
        remove()
        if (error === undefined) resolve()
        else reject(error)
      }
      const onAbort = (): void => finish()
      const remove = this.engine.addMonitor((line) => {
        if (done) return
        try {
          onEvent({ line })
        } catch (error) {
          finish(error)
        }
      })
      this.openMonitors.add(finish)
      signal.addEventListener('abort', onAbort, { once: true })
    })
  }

  /**
   * Closes the executor. With persistence, a running BGSAVE is waited for, then the keyspace is
   * saved when save points are configured (as Redis does on shutdown); a failed save rejects.
   */
  async close(): Promise<void> {
    if (!this.#closed && this.engine.rdb !== undefined) {
      this.#closed = true
      const failed = await this.engine.rdb.shutdown('default')
      this.stop()
      // An abandoned BGREWRITEAOF (appendonly no) removes its temporary file before close resolves.
      await this.aofControl?.whenStopped()
      if (failed !== undefined) throw failed
      return
    }
    this.stop()
  }

  /** SHUTDOWN (the engine saved already): closes without saving again, then tells the owner. */
  private shutDown(then: (() => void) | undefined): void {
    this.stop()
    then?.()
  }

  private stop(): void {
    this.#closed = true
    this.aofControl?.close()
    for (const finish of [...this.openMonitors]) finish(new BackendUnavailableError('executor closed'))
    this.engine.close()
  }

  /**
   * One command outside a transaction. The engine's resolution (a cached lookup for most
   * commands) says whether the command may be a connection-state one, so most commands skip
   * that check; the others, and names the engine does not accept, get it before anything runs
   * (a refused command opens no session). `session` is the pipeline's, else one is made.
   */
  private run(command: Command, context: CallContext | undefined, session?: Session): Reply {
    const argv = toArgv(command)
    const resolved = this.engine.resolve(argv)
    if (resolved instanceof ReplyError || resolved.connectionState) {
      const refusal = connectionStateRefusal(command)
      if (refusal !== null) return refusal
      return toReply(this.engine.call(session ?? this.session(context), argv))
    }
    if (session !== undefined) return toReply(this.engine.execute(session, argv, resolved))
    const own = this.session(context)
    const reply = toReply(this.engine.execute(own, argv, resolved))
    // A connection's command run outside its session: its write is the connection's (WAITAOF).
    if (own.loggedOffset !== undefined && context?.session !== undefined) {
      const connection = this.openSessions.get(context.session)
      if (connection !== undefined) connection.loggedOffset = own.loggedOffset
    }
    return reply
  }

  private session(context: CallContext | undefined): Session {
    const session = this.engine.createSession(context?.client, context?.user)
    if (context?.db !== undefined) session.db = context.db
    if (context?.noTouch === true) session.noTouch = true
    if (context?.resp === 3) session.resp = 3
    return session
  }
}

/** A session's database, user and address as the call's context gives them. */
function applyContext(session: Session, context: CallContext | undefined): void {
  session.db = context?.db ?? 0
  session.user = context?.user ?? 'default'
  if (context?.client !== undefined) session.address = context.client
  // A connection's protocol and NO-TOUCH can change after its session opened (HELLO 3, CLIENT NO-TOUCH).
  session.noTouch = context?.noTouch === true
  session.resp = context?.resp === 3 ? 3 : 2
}

/** Every call on a closed executor rejects the same way the socket executor's do. */
/** The command a subscription of each kind runs through the engine. */
const SUBSCRIBE_VERB: Record<Subscription['kind'], string> = { channel: 'SUBSCRIBE', pattern: 'PSUBSCRIBE', shard: 'SSUBSCRIBE' }

const CLOSED = (): Promise<never> => Promise.reject(new BackendUnavailableError('executor closed'))

const ASCII = /^[\x00-\x7f]*$/

/**
 * Below this length a loop over the chars beats the regular expression (ASCII check) and the
 * native `Buffer.from(…, 'latin1')` call (reply bytes); measured on Node 20, see
 * docs/benchmarks.md.
 */
const SHORT = 32

/**
 * True when every char of `text` is ASCII: then the UTF-8 bytes are the chars themselves. The
 * loop ORs the chars four at a time and tests once at the end: on every command word, that
 * measured faster than a test per char.
 */
function isAscii(text: string): boolean {
  const length = text.length
  if (length > SHORT) return ASCII.test(text)
  let bits = 0
  let i = 0
  for (; i + 3 < length; i += 4) bits |= text.charCodeAt(i) | text.charCodeAt(i + 1) | text.charCodeAt(i + 2) | text.charCodeAt(i + 3)
  for (; i < length; i++) bits |= text.charCodeAt(i)
  return bits <= 0x7f
}

/** One command word as the engine's binary string: strings are UTF-8, bytes are kept as they are. */
export function toBinary(arg: Arg): string {
  if (typeof arg === 'string') return isAscii(arg) ? arg : Buffer.from(arg, 'utf8').toString('latin1')
  return latin1Text(arg)
}

/**
 * A command as the engine's argv. A command of ASCII strings already is one (the engine never
 * changes or keeps its argv), so it is used as it is, without a copy.
 */
export function toArgv(command: Command): readonly string[] {
  for (let i = 0; i < command.length; i++) {
    const arg = command[i]
    if (typeof arg !== 'string' || !isAscii(arg)) return convertArgv(command, i)
  }
  return command as readonly string[]
}

/** The argv of a command whose words from `from` on need converting. */
function convertArgv(command: Command, from: number): string[] {
  const argv = new Array<string>(command.length)
  for (let i = 0; i < from; i++) argv[i] = command[i] as string
  for (let i = from; i < command.length; i++) argv[i] = toBinary(command[i])
  return argv
}

/** A binary string as bytes; short ones by a loop into Node's pooled allocation. */
function bytesOf(text: string): Buffer {
  const length = text.length
  if (length > SHORT) return Buffer.from(text, 'latin1')
  const out = Buffer.allocUnsafe(length)
  for (let i = 0; i < length; i++) out[i] = text.charCodeAt(i)
  return out
}

/** An engine reply as a {@link Reply}: binary strings become bytes. */
export function toReply(out: Out): Reply {
  if (typeof out === 'string') return bytesOf(out)
  if (Array.isArray(out)) {
    const items = out as readonly Out[]
    const replies = new Array<Reply>(items.length)
    for (let i = 0; i < items.length; i++) replies[i] = toReply(items[i])
    return replies
  }
  return out as null | typeof NULL_ARRAY | number | bigint | Status | ReplyError
}
