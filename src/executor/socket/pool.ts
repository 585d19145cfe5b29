/**
 * Connections to one server for one set of credentials and one database: a few shared,
 * pipelined connections for plain commands and pipelines, and connections lent out exclusively
 * for transactions and blocking commands. Reconnects lazily, with exponential backoff.
 *
 */

import { ReplyError, type Command, type Reply } from '../../reply.js'
import { BackendUnavailableError, OutcomeUnknownError } from '../executor.js'
import { ConnectFailedError, Connection, HandshakeError, type ConnectionCounters } from './connection.js'
import type { ConnectionConfig } from './options.js'

/** Backoff settings of a pool. */
export interface BackoffConfig {
  readonly size: number
  readonly reconnectDelay: number
  readonly maxReconnectDelay: number
}

/** Where `EXEC` is in a transaction's batch (`MULTI` excluded), or Infinity when absent. */
function indexOfExec(commands: readonly Command[]): number {
  for (let i = commands.length - 1; i >= 0; i--) {
    const command = commands[i]
    if (command.length === 1 && typeof command[0] === 'string' && command[0].toUpperCase() === 'EXEC') return i
  }
  return Infinity
}

interface Waiter {
  readonly resolve: (connection: Connection) => void
  readonly reject: (error: Error) => void
}

export class Pool {
  readonly config: ConnectionConfig
  readonly #settings: BackoffConfig
  readonly #counters: ConnectionCounters
  /** Live shared connections. */
  #shared: Connection[] = []
  #connecting: Promise<Connection> | undefined
  /** Exclusive connections: idle ones, and how many exist (idle or lent). */
  #idle: Connection[] = []
  #exclusive = 0
  /** Exclusive connections lent out right now. */
  readonly #lent = new Set<Connection>()
  #waiters: Waiter[] = []
  /** Consecutive failed connection attempts, and when the next one may start. */
  #failures = 0
  #retryAt = 0
  #lastError: Error | undefined
  #closed = false
  /** Last use, for evicting idle pools. */
  lastUsed = Date.now()

  constructor(config: ConnectionConfig, settings: BackoffConfig, counters: ConnectionCounters) {
    this.config = config
    this.#settings = settings
    this.#counters = counters
  }

  /** Commands in flight on this pool's connections, shared and exclusive. */
  get busy(): boolean {
    if (this.#exclusive > this.#idle.length || this.#waiters.length > 0 || this.#connecting !== undefined) return true
    for (const connection of this.#shared) if (connection.inflight > 0) return true
    return false
  }

  /** Sends one command on a shared connection. */
  send(command: Command): Promise<Reply> {
    const connection = this.#pick()
    if (connection instanceof Connection) return connection.send(command)
    return connection.then((c) => c.send(command))
  }

  /** Sends commands in one write on one shared connection; replies in order. */
  sendBatch(commands: readonly Command[]): Promise<Reply[]> {
    const connection = this.#pick()
    if (connection instanceof Connection) return connection.sendBatch(commands)
    return connection.then((c) => c.sendBatch(commands))
  }

  /**
   * Runs `commands` on a connection nobody else uses meanwhile (MULTI … EXEC, blocking
   * commands, pipelines longer than `maxPending`), written in one go, or in slices of
   * `maxPending` commands, each sent once the previous one is answered. The connection returns
   * to the exclusive set afterwards, or is closed if it failed.
   *
   * `transaction`: the batch is `MULTI … EXEC`. MULTI must succeed before the rest is sent (a
   * refused MULTI, an ACL user without +multi, would otherwise let the server run the queued
   * commands one by one), and a failure before the last slice (with EXEC) was written means
   * nothing ran, whatever the error: the server drops a transaction whose connection closes.
   * Otherwise a failure after a slice was answered is an {@link OutcomeUnknownError}: part ran.
   */
  async exclusive(commands: readonly Command[], options: { readonly transaction?: boolean } = {}): Promise<Reply[]> {
    const connection = await this.#reserve()
    this.#lent.add(connection)
    try {
      if (!options.transaction || commands.length < 2) return await this.#sendSlices(connection, commands, Infinity)
      const [multi] = await this.#sendSlices(connection, commands.slice(0, 1), Infinity, true)
      if (multi instanceof ReplyError) return [multi]
      const rest = commands.slice(1)
      const replies = await this.#sendSlices(connection, rest, indexOfExec(rest), true)
      replies.unshift(multi)
      return replies
    } finally {
      this.#lent.delete(connection)
      this.#release(connection)
    }
  }

  /**
   * Sends `commands` in slices of at most `maxPending`, each once the previous one is answered.
   * In a transaction, a slice that fails before the one holding EXEC (at `execIndex`) ran
   * nothing, and one that fails after it left the transaction run; in a pipeline, a failure
   * after the first slice leaves the outcome unknown (part of it ran).
   */
  async #sendSlices(connection: Connection, commands: readonly Command[], execIndex: number, transaction = false): Promise<Reply[]> {
    const size = this.config.maxPending
    const replies: Reply[] = []
    for (let start = 0; start < commands.length; start += size) {
      let slice: Reply[]
      try {
        slice = await connection.sendBatch(start === 0 && commands.length <= size ? commands : commands.slice(start, start + size))
      } catch (error) {
        if (!(error instanceof BackendUnavailableError)) throw error
        const message = error.message
        if (transaction && start + size <= execIndex) throw new BackendUnavailableError(`${message}; the transaction was dropped before EXEC`)
        if (transaction && start > execIndex) throw new OutcomeUnknownError(`${message}; the transaction had run`)
        if (!transaction && start > 0) throw new OutcomeUnknownError(`${message}; ${start} of the pipeline's ${commands.length} commands had run`)
        throw error
      }
      if (start === 0 && commands.length <= size) return slice
      for (const reply of slice) replies.push(reply)
    }
    return replies
  }

  /** Closes every connection; pending and waiting calls reject. */
  close(): void {
    this.#closed = true
    const error = new BackendUnavailableError('executor closed')
    for (const connection of [...this.#shared, ...this.#idle, ...this.#lent]) connection.close()
    this.#shared = []
    this.#idle = []
    for (const waiter of this.#waiters.splice(0)) waiter.reject(error)
  }

  /**
   * The first live shared connection with no reply outstanding on the wire, so the commands of
   * one event-loop turn share one connection (one write, one read, instead of one of each per
   * connection); a command never waits behind a reply that was already on its way, such as a
   * large one. When every connection awaits replies: the least loaded one, opening another while
   * the pool is below its size. Waits only when no connection is live.
   */
  #pick(): Connection | Promise<Connection> {
    this.lastUsed = Date.now()
    let best: Connection | undefined
    for (const connection of this.#shared) {
      if (connection.awaitingReplies === 0) return connection
      if (best === undefined || connection.inflight < best.inflight) best = connection
    }
    if (best !== undefined && this.#shared.length >= this.#settings.size) return best
    if (this.#connecting === undefined) {
      const error = this.#unavailable()
      if (error !== undefined) return best ?? Promise.reject(error)
      this.#connecting = this.#open().then(
        (connection) => {
          this.#connecting = undefined
          if (this.#closed) {
            connection.close()
            throw new BackendUnavailableError('executor closed')
          }
          this.#shared.push(connection)
          connection.onClose = () => {
            this.#shared = this.#shared.filter((c) => c !== connection)
          }
          return connection
        },
        (error: Error) => {
          this.#connecting = undefined
          throw error
        },
      )
      // Growing the pool in the background must not surface as an unhandled rejection.
      if (best !== undefined) this.#connecting.catch(() => {})
    }
    return best ?? this.#connecting
  }

  /** Opens one connection, keeping the backoff state. */
  async #open(): Promise<Connection> {
    if (this.#closed) throw new BackendUnavailableError('executor closed')
    try {
      const connection = await Connection.open(this.config, this.#counters)
      this.#failures = 0
      this.#lastError = undefined
      return connection
    } catch (error) {
      this.#failures++
      const { reconnectDelay, maxReconnectDelay } = this.#settings
      const delay = Math.min(maxReconnectDelay, reconnectDelay * 2 ** Math.min(this.#failures - 1, 30))
      // "Equal jitter": between half and all of the delay, so pools do not retry in lockstep.
      this.#retryAt = Date.now() + delay / 2 + Math.random() * (delay / 2)
      this.#lastError = error as Error
      throw error
    }
  }

  /** The error to fail fast with while the backoff delay runs, else undefined. */
  #unavailable(): BackendUnavailableError | undefined {
    if (this.#closed) return new BackendUnavailableError('executor closed')
    if (this.#lastError === undefined) return undefined
    const wait = Math.ceil(this.#retryAt - Date.now())
    if (wait <= 0) return undefined
    // A refused handshake is the server's answer: repeat it as it was.
    if (this.#lastError instanceof HandshakeError) return this.#lastError
    return new ConnectFailedError(`${this.#lastError.message} (next attempt in ${wait} ms)`)
  }

  #reserve(): Promise<Connection> {
    this.lastUsed = Date.now()
    while (this.#idle.length > 0) {
      const connection = this.#idle.pop() as Connection
      if (connection.alive) return Promise.resolve(connection)
      this.#exclusive--
    }
    if (this.#exclusive < this.#settings.size) {
      const error = this.#unavailable()
      if (error !== undefined) return Promise.reject(error)
      this.#exclusive++
      return this.#open().catch((error: Error) => {
        this.#exclusive--
        this.#wakeWaiter()
        throw error
      })
    }
    if (this.#waiters.length >= this.config.maxPending) {
      return Promise.reject(new BackendUnavailableError(`too many transactions waiting for a connection (maxPending ${this.config.maxPending})`))
    }
    return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }))
  }

  #release(connection: Connection): void {
    if (this.#closed || !connection.alive || connection.inflight > 0) {
      if (connection.alive) connection.close()
      this.#exclusive--
      this.#wakeWaiter()
      return
    }
    const waiter = this.#waiters.shift()
    if (waiter !== undefined) waiter.resolve(connection)
    else this.#idle.push(connection)
  }

  /** A slot freed up: the oldest waiter gets a new connection. */
  #wakeWaiter(): void {
    const waiter = this.#waiters.shift()
    if (waiter === undefined) return
    this.#reserve().then(waiter.resolve, (error: Error) => {
      waiter.reject(error)
      this.#wakeWaiter() // failing fast frees no connection: the next waiter must not wait for one
    })
  }
}
