/**
 * The socket executor: RESP2 over TCP or TLS to any Redis-compatible server.
 *
 */

import { OK, ReplyError, type Arg, type Command, type Reply } from '../../reply.js'
import { DB_INDEX_OUT_OF_RANGE, EXEC_ABORT, SYNTAX, wrongArity } from '../../commands/errors.js'
import { connectionStateRefusal, notAvailable } from '../connection-state.js'
import { BackendUnavailableError, type OutcomeUnknownError, type CallContext, type Executor, type MonitorEvent, type PubSubEvent, type Subscription } from '../executor.js'
import { HandshakeError, type ConnectionCounters } from './connection.js'
import { resolveOptions, type ConnectionConfig, type ExecutorConfig, type SocketExecutorOptions } from './options.js'
import { Pool } from './pool.js'
import { MonitorHub, SubscriberHub, type Receivers } from './streams.js'
import { HostedScriptFlags, type ScriptRewrite } from './script-flags.js'
import { asBuffer } from '../../resp/protocol.js'

/**
 * What a {@link SocketExecutor} holds open, for tests and dashboards.
 * @public
 */
export interface SocketExecutorStats {
  /** Open sockets, of every kind. */
  readonly connections: number
  /** Pools: the default one plus one per other database / ACL user in use. */
  readonly pools: number
  /** Shared subscriber connections open (one per set of credentials with subscribers). */
  readonly subscriberConnections: number
  /** Local `subscribe()` calls being served. */
  readonly subscribers: number
  /** Shared MONITOR connections open. */
  readonly monitorConnections: number
  /** Local `monitor()` calls being served. */
  readonly monitors: number
  /** `socket.write` calls so far (the commands of one event-loop turn share one). */
  readonly writes: number
}

/** Commands that block their connection until data arrives: they get a connection of their own. */
const BLOCKING = new Set(['blpop', 'brpop', 'brpoplpush', 'blmove', 'blmpop', 'bzpopmin', 'bzpopmax', 'bzmpop', 'wait', 'waitaof'])

type Kind = 'plain' | 'publish' | 'select' | 'blocking' | 'auth' | ReplyError

function lower(arg: Arg | undefined): string {
  if (arg === undefined) return ''
  const text = typeof arg === 'string' ? arg : asBuffer(arg).toString('latin1')
  return text.toLowerCase()
}

/** Connection-state commands would change a shared connection: refused (see connection-state.ts). */
function classify(command: Command): Kind {
  const refusal = connectionStateRefusal(command)
  if (refusal !== null) return refusal
  const name = lower(command[0])
  if (name === 'select') return 'select'
  if (name === 'auth') return 'auth'
  if (name === 'publish' || name === 'spublish') return 'publish'
  if (BLOCKING.has(name)) return 'blocking'
  if ((name === 'xread' || name === 'xreadgroup') && command.some((arg) => lower(arg) === 'block')) return 'blocking'
  return 'plain'
}


/**
 * An {@link Executor} that sends commands to a Redis-compatible server over RESP2.
 *
 * - Plain commands and pipelines share a small pool of pipelined connections; commands issued
 *   in the same turn of the event loop go out in one write. Transactions (`MULTI … EXEC` in one write) and
 *   blocking commands take a connection of their own for their duration.
 * - `CallContext.db` and `CallContext.user`/`password` run on pools whose connections SELECTed
 *   that database and AUTHenticated as that user. A refused AUTH answers the server's
 *   `WRONGPASS …` as a {@link ReplyError}.
 * - `subscribe()` and `monitor()` share one connection each, fanned out to every listener.
 * - When the server goes away or a reply is overdue (`commandTimeout`), the connection is
 *   closed and every command on it rejects: with {@link OutcomeUnknownError} if it had been
 *   written (the server may still run it), with {@link BackendUnavailableError} if it had not
 *   (safe to retry). New calls fail fast while a reconnection backoff runs, and the executor
 *   serves again once the server is back.
 * - A pipeline or transaction longer than `maxPending` is sent in slices of `maxPending`
 *   commands on a connection of its own, in order; a transaction still runs atomically (EXEC
 *   comes last).
 * - `SELECT n` as a command runs and is undone in the same write (`SELECT n`, `SELECT <pool db>`),
 *   so it affects only the rest of its own pipeline or transaction, as in the memory executor.
 * @public
 */
export class SocketExecutor implements Executor {
  readonly #config: ExecutorConfig
  readonly #counters: ConnectionCounters = { open: 0, writes: 0 }
  readonly #default: Pool
  /** Pools for other databases and users, least recently used first. */
  readonly #pools = new Map<string, Pool>()
  readonly #subscriberHubs = new Map<string, SubscriberHub>()
  readonly #monitorHubs = new Map<string, MonitorHub>()
  /** Scripts with the hosted service's `allow-key-locking` flag, rewritten for Redis (script-flags.ts). */
  readonly #scripts = new HostedScriptFlags()
  #closed = false

  constructor(options: SocketExecutorOptions = {}) {
    this.#config = resolveOptions(options)
    this.#default = this.#newPool(this.#config)
  }

  /** Where this executor connects, e.g. `127.0.0.1:6379`. */
  get address(): string {
    return `${this.#config.host}:${this.#config.port}`
  }

  /** Connections, pools, subscribers and monitors open now, and writes so far. */
  get stats(): SocketExecutorStats {
    let subscriberConnections = 0
    let subscribers = 0
    let monitorConnections = 0
    let monitors = 0
    for (const hub of this.#subscriberHubs.values()) {
      if (hub.connected) subscriberConnections++
      subscribers += hub.size
    }
    for (const hub of this.#monitorHubs.values()) {
      if (hub.connected) monitorConnections++
      monitors += hub.size
    }
    return {
      connections: this.#counters.open,
      pools: 1 + this.#pools.size,
      subscriberConnections,
      subscribers,
      monitorConnections,
      monitors,
      writes: this.#counters.writes,
    }
  }

  /** {@inheritDoc Executor.exec} */
  exec(command: Command, context?: CallContext): Promise<Reply> {
    if (this.#closed) return Promise.reject(new BackendUnavailableError('executor closed'))
    const kind = classify(command)
    if (kind instanceof ReplyError) return Promise.resolve(kind)
    if (kind === 'auth') return this.#checkCredentials(command, context)
    const pool = this.#pool(context)
    if (pool instanceof ReplyError) return Promise.resolve(pool)
    const script = this.#scripts.rewrite(command)
    if (script !== null) command = script.command
    let reply: Promise<Reply>
    if (kind === 'plain') reply = pool.send(command)
    else if (kind === 'publish') reply = pool.send(command).then((count) => this.#publishCount(command, count))
    else if (kind === 'select') reply = pool.sendBatch([command, ['SELECT', String(pool.config.database)]]).then((replies) => replies[0])
    else reply = pool.exclusive([command]).then((replies) => replies[0])
    if (script !== null) reply = reply.then(script.reply)
    return pool === this.#default ? reply : reply.catch((error: unknown) => this.#refused(pool, error))
  }

  /**
   * `AUTH [user] password` cannot change the user of a shared connection: it checks the
   * credentials instead (a connection authenticated as that user answers PING) and answers `OK`
   * or the server's error. A user whose rules do not allow PING got past AUTH all the same: its
   * NOPERM means the credentials are right. Later calls choose their user with `CallContext`.
   */
  #checkCredentials(command: Command, context: CallContext | undefined): Promise<Reply> {
    if (command.length < 2) return Promise.resolve(wrongArity('auth'))
    if (command.length > 3) return Promise.resolve(SYNTAX)
    const text = (arg: Arg): string => (typeof arg === 'string' ? arg : Buffer.from(arg).toString('utf8'))
    const user = command.length === 3 ? text(command[1]) : (this.#config.username ?? 'default')
    const password = text(command[command.length - 1])
    return this.exec(['PING'], { ...context, user, password }).then((reply) =>
      reply instanceof ReplyError && !reply.message.startsWith('NOPERM ') ? reply : OK,
    )
  }

  /** {@inheritDoc Executor.pipeline} */
  pipeline(commands: readonly Command[], context?: CallContext): Promise<Reply[]> {
    if (this.#closed) return Promise.reject(new BackendUnavailableError('executor closed'))
    const pool = this.#pool(context)
    if (pool instanceof ReplyError) return Promise.resolve(commands.map(() => pool))
    const slots: (ReplyError | undefined)[] = []
    const send: Command[] = []
    const scripts: (ScriptRewrite | null)[] = []
    let selects = false
    let blocking = false
    let publishes = false
    for (const command of commands) {
      const kind = classify(command)
      if (kind === 'publish') publishes = true
      if (kind instanceof ReplyError || kind === 'auth') {
        slots.push(kind === 'auth' ? notAvailable('auth') : kind)
        continue
      }
      slots.push(undefined)
      const script = this.#scripts.rewrite(command)
      scripts.push(script)
      send.push(script === null ? command : script.command)
      if (kind === 'select') selects = true
      else if (kind === 'blocking') blocking = true
    }
    if (selects) send.push(['SELECT', String(pool.config.database)])
    // Beyond maxPending commands a pipeline goes out in slices on a connection of its own: no
    // other caller's commands wait behind it, and its own stay in order.
    const alone = blocking || send.length > pool.config.maxPending
    const sent = send.length === 0 ? Promise.resolve([]) : alone ? pool.exclusive(send) : pool.sendBatch(send)
    const merged = sent.then((replies) => {
      let next = 0
      const merged = slots.map((refusal) => {
        if (refusal !== undefined) return refusal
        const script = scripts[next]
        const reply = replies[next++]
        return script === null ? reply : script.reply(reply)
      })
      return publishes ? this.#publishCounts(commands, merged) : merged
    })
    if (pool === this.#default) return merged
    return merged.catch((error: unknown) => this.#refused(pool, error).then((reply) => commands.map(() => reply)))
  }

  /** {@inheritDoc Executor.transaction} */
  async transaction(commands: readonly Command[], context?: CallContext): Promise<Reply[] | ReplyError> {
    const replies = await this.transactionReplies(commands, context)
    if (replies instanceof ReplyError) return replies
    const multi = replies[0]
    if (multi instanceof ReplyError) return multi
    const exec = replies[commands.length + 1]
    if (exec instanceof ReplyError) return exec
    // A null EXEC means a WATCHed key changed; WATCH is refused, so this is only defensive.
    if (!Array.isArray(exec)) return EXEC_ABORT
    return this.#publishCounts(commands, exec as Reply[])
  }

  /**
   * A transaction's replies as the server gave them: `MULTI`'s, one per queued command
   * (`QUEUED` or the error that will abort EXEC), then `EXEC`'s; or the refusal of a command
   * that cannot run in a transaction here. The cluster executor reads why an EXEC aborted (a
   * `MOVED` at queue time) from them.
   * @internal
   */
  async transactionReplies(commands: readonly Command[], context?: CallContext): Promise<Reply[] | ReplyError> {
    if (this.#closed) throw new BackendUnavailableError('executor closed')
    let selects = false
    for (const command of commands) {
      const kind = classify(command)
      if (kind instanceof ReplyError) return kind
      if (kind === 'auth') return notAvailable('auth')
      if (kind === 'select') selects = true
    }
    const pool = this.#pool(context)
    if (pool instanceof ReplyError) return pool
    const scripts = commands.map((command) => this.#scripts.rewrite(command))
    const sent = commands.map((command, i) => scripts[i]?.command ?? command)
    const batch: Command[] = [['MULTI'], ...sent, ['EXEC']]
    if (selects) batch.push(['SELECT', String(pool.config.database)])
    let replies: Reply[]
    try {
      replies = await pool.exclusive(batch, { transaction: true })
    } catch (error) {
      if (pool === this.#default) throw error
      return this.#refused(pool, error)
    }
    // Replies of rewritten scripts (EVALSHA of a client's SHA1 …) inside EXEC as the client expects them.
    const exec = replies[commands.length + 1]
    if (Array.isArray(exec) && scripts.some((script) => script !== null)) {
      replies[commands.length + 1] = (exec as Reply[]).map((reply, i) => {
        const script = scripts[i]
        return script === null ? reply : script.reply(reply)
      })
    }
    return replies
  }

  /** {@inheritDoc Executor.subscribe} */
  subscribe(target: Subscription, onEvent: (event: PubSubEvent) => void, signal: AbortSignal, context?: CallContext): Promise<void> {
    if (this.#closed) return Promise.reject(new BackendUnavailableError('executor closed'))
    const { key, config } = this.#credentials(context)
    let hub = this.#subscriberHubs.get(key)
    if (hub === undefined) {
      hub = new SubscriberHub(config, this.#counters)
      this.#subscriberHubs.set(key, hub)
    }
    const used = hub
    const forget = (): void => {
      if (key !== '' && used.size === 0 && !used.connected && this.#subscriberHubs.get(key) === used) this.#subscriberHubs.delete(key)
    }
    const done = used.subscribe(target, onEvent, signal)
    done.then(forget, forget)
    return done
  }

  /** {@inheritDoc Executor.monitor} */
  monitor(onEvent: (event: MonitorEvent) => void, signal: AbortSignal, context?: CallContext): Promise<void> {
    if (this.#closed) return Promise.reject(new BackendUnavailableError('executor closed'))
    const { key, config } = this.#credentials(context)
    let hub = this.#monitorHubs.get(key)
    if (hub === undefined) {
      hub = new MonitorHub(config, this.#counters)
      this.#monitorHubs.set(key, hub)
    }
    const used = hub
    const forget = (): void => {
      if (key !== '' && used.size === 0 && !used.connected && this.#monitorHubs.get(key) === used) this.#monitorHubs.delete(key)
    }
    const done = used.monitor(onEvent, signal)
    done.then(forget, forget)
    return done
  }

  /**
   * Who a message on `channel` reaches through this executor's shared subscriber connections:
   * what the server counts for them and how many local listeners they serve.
   * @internal
   */
  receivers(channel: Arg, sharded = false): Receivers {
    const name = typeof channel === 'string' ? Buffer.from(channel, 'utf8').toString('latin1') : asBuffer(channel).toString('latin1')
    const receivers: Receivers = { subscriptions: 0, listeners: 0 }
    for (const hub of this.#subscriberHubs.values()) hub.addReceivers(name, receivers, sharded)
    return receivers
  }

  /**
   * PUBLISH's count as the memory executor gives it: the server counts a shared subscriber
   * connection once per matching subscription, whatever the number of local streams behind it;
   * those are replaced by the local listeners they serve. Counted when the reply arrives, so a
   * stream joining or leaving meanwhile may be counted either way.
   */
  #publishCount(command: Command, count: Reply): Reply {
    if (typeof count !== 'number' || command.length < 2 || this.#subscriberHubs.size === 0) return count
    const { subscriptions, listeners } = this.receivers(command[1], lower(command[0]) === 'spublish')
    return Math.max(0, count - subscriptions) + listeners
  }

  /** {@link #publishCount} for the PUBLISH and SPUBLISH rows of a pipeline or transaction. */
  #publishCounts(commands: readonly Command[], replies: Reply[]): Reply[] {
    if (this.#subscriberHubs.size === 0) return replies
    return replies.map((reply, i) => (commands[i] !== undefined && classify(commands[i]) === 'publish' ? this.#publishCount(commands[i], reply) : reply))
  }

  /** {@inheritDoc Executor.close} */
  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    this.#default.close()
    for (const pool of this.#pools.values()) pool.close()
    for (const hub of this.#subscriberHubs.values()) hub.close()
    for (const hub of this.#monitorHubs.values()) hub.close()
    this.#pools.clear()
    this.#subscriberHubs.clear()
    this.#monitorHubs.clear()
  }

  #newPool(config: ConnectionConfig): Pool {
    const { poolSize, reconnectDelay, maxReconnectDelay } = this.#config
    return new Pool(config, { size: poolSize, reconnectDelay, maxReconnectDelay }, this.#counters)
  }

  /** Who the context runs as: a map key ('' for the configured credentials) and connection settings. */
  #credentials(context: CallContext | undefined): { key: string; config: ConnectionConfig } {
    const user = context?.user
    if (user === undefined || (user === this.#config.username && context?.password === this.#config.password)) {
      return { key: '', config: this.#config }
    }
    const password = context?.password ?? ''
    return { key: `${user}\n${password}`, config: { ...this.#config, username: user, password } }
  }

  /** The pool for a context's database and user. */
  #pool(context: CallContext | undefined): Pool | ReplyError {
    if (context === undefined || (context.db === undefined && context.user === undefined)) return this.#default
    const db = context.db ?? this.#config.database
    if (!Number.isSafeInteger(db) || db < 0) return DB_INDEX_OUT_OF_RANGE
    const { key: who, config } = this.#credentials(context)
    if (who === '' && db === this.#config.database) return this.#default
    const key = `${db}\n${who}`
    let pool = this.#pools.get(key)
    if (pool !== undefined) {
      this.#pools.delete(key) // re-inserted below: the map stays in least-recently-used order
    } else {
      pool = this.#newPool({ ...config, database: db })
      this.#evict()
    }
    this.#pools.set(key, pool)
    return pool
  }

  /** Keeps at most `maxPools` extra pools, closing the least recently used idle ones. */
  #evict(): void {
    for (const [key, pool] of this.#pools) {
      if (this.#pools.size < this.#config.maxPools) return
      if (pool.busy) continue
      pool.close()
      this.#pools.delete(key)
    }
  }

  /**
   * A context pool's handshake was refused (WRONGPASS, bad database): the server's error is the
   * reply, and the pool goes, so a corrected password is tried afresh. Other failures stay failures.
   */
  async #refused(pool: Pool, error: unknown): Promise<ReplyError> {
    if (!(error instanceof HandshakeError)) throw error
    for (const [key, candidate] of this.#pools) {
      if (candidate === pool) {
        this.#pools.delete(key)
        pool.close()
      }
    }
    return error.reply
  }
}
