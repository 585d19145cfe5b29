/**
 * One socket to a RESP2 server: pipelined commands matched to their replies by a FIFO queue,
 * the writes of one event-loop turn coalesced, a timeout on the oldest reply, a cap on reply size.
 *
 * A connection never recovers from a failure: after a timeout, a protocol error, an oversized
 * reply or a closed socket, it is destroyed and every command on it rejects. Nothing that was
 * written to it can then be answered to the wrong caller. Commands already handed to the socket
 * reject with {@link OutcomeUnknownError} (the server may still run them: it reads what reached
 * it before it sees the close); commands still queued for the next write reject with a plain
 * {@link BackendUnavailableError}: they never left the process.
 *
 */

import net from 'node:net'
import tls from 'node:tls'
import { ReplyError, type Command, type Reply } from '../../reply.js'
import { encodeCommands } from '../../resp/encode.js'
import { RespDecoder } from '../../resp/decode.js'
import { RespProtocolError } from '../../resp/protocol.js'
import { BackendUnavailableError, OutcomeUnknownError } from '../executor.js'
import type { ConnectionConfig } from './options.js'

/**
 * A reply was larger than `maxReplyBytes`: the connection was destroyed and the caller rejected.
 * The command ran (its reply was arriving), so this is an {@link OutcomeUnknownError}: the
 * gateway answers it as one, with this message.
 * @public
 */
export class ReplyTooLargeError extends OutcomeUnknownError {
  constructor(limit: number) {
    super(`reply larger than maxReplyBytes (${limit} bytes); the connection was closed`)
    this.name = 'ReplyTooLargeError'
  }
}

/**
 * The connection could not be opened (refused, unreachable, timed out, or the pool is waiting
 * out its reconnection backoff): nothing was sent, so a caller may safely try elsewhere.
 * @public
 */
export class ConnectFailedError extends BackendUnavailableError {
  constructor(reason: string) {
    super(reason)
    this.name = 'ConnectFailedError'
  }
}

/**
 * The server refused the connection handshake (`AUTH`, `SELECT`, `CLIENT SETNAME`); `reply` is
 * its error, e.g. `WRONGPASS invalid username-password pair or user is disabled.`
 * @public
 */
export class HandshakeError extends BackendUnavailableError {
  constructor(readonly reply: ReplyError) {
    super(reply.message)
    this.name = 'HandshakeError'
  }
}

/** Replies and where they go. `replies` is set for a batch, which resolves with all of them. */
interface Pending {
  remaining: number
  readonly replies: Reply[] | undefined
  readonly resolve: (value: never) => void
  readonly reject: (error: Error) => void
  /** `Date.now()` after which the reply is overdue; 0 for none. */
  readonly deadline: number
}

/**
 * A FIFO queue on an array with a moving head: O(1) push and shift without `Array#shift`'s
 * copying, compacted once the dead prefix is large.
 */
class Fifo<T> {
  #items: (T | undefined)[] = []
  #head = 0
  get length(): number {
    return this.#items.length - this.#head
  }
  push(item: T): void {
    this.#items.push(item)
  }
  peek(): T | undefined {
    return this.#items[this.#head]
  }
  shift(): T | undefined {
    if (this.#head >= this.#items.length) return undefined
    const item = this.#items[this.#head]
    this.#items[this.#head++] = undefined
    if (this.#head === this.#items.length) {
      this.#items = []
      this.#head = 0
    } else if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head)
      this.#head = 0
    }
    return item
  }
  drain(): T[] {
    const items = this.#items.slice(this.#head) as T[]
    this.#items = []
    this.#head = 0
    return items
  }
}

/**
 * How a connection hands out replies.
 * - `command`: every reply answers the oldest pending command.
 * - `push`: every reply goes to `onPush` (pub/sub, MONITOR); `onPush` says whether it also
 *   answered the oldest pending command (a subscribe confirmation, MONITOR's `OK`).
 */
export type ConnectionMode = { readonly kind: 'command' } | { readonly kind: 'push'; readonly onPush: (reply: Reply) => boolean }

const COMMAND_MODE: ConnectionMode = { kind: 'command' }

/** Counters shared by the connections of one executor. */
export interface ConnectionCounters {
  open: number
  writes: number
}

let nextConnectionId = 1

export class Connection {
  readonly id = nextConnectionId++
  /** Called once when the connection dies, with the reason; not called for {@link close}. */
  onClose: ((error: Error) => void) | undefined
  readonly #socket: net.Socket
  readonly #config: ConnectionConfig
  readonly #counters: ConnectionCounters
  readonly #decoder: RespDecoder
  #mode: ConnectionMode = COMMAND_MODE
  readonly #pending = new Fifo<Pending>()
  /** Commands accepted and not yet answered, written or not. */
  #inflight = 0
  /** Commands not yet written: this event-loop turn's batch, or everything while waiting for `drain`. */
  #outgoing: Command[] = []
  /** How many entries at the tail of #pending are in #outgoing (a batch is written whole or not at all). */
  #unwritten = 0
  #flushScheduled = false
  #needDrain = false
  /** Bytes received since the end of the last complete reply: the size of the reply being read. */
  #replyBytes = 0
  /** A reply was completed during the current `data` event. */
  #replied = false
  #timer: ReturnType<typeof setTimeout> | undefined
  #dead: Error | undefined
  #socketError: Error | undefined

  private constructor(socket: net.Socket, config: ConnectionConfig, counters: ConnectionCounters) {
    this.#socket = socket
    this.#config = config
    this.#counters = counters
    // Sizes are policed by #replyBytes against maxReplyBytes, which gives a clearer error than
    // the decoder's own limits; these only keep the decoder from refusing what we would accept.
    this.#decoder = new RespDecoder({
      maxBulkLength: Math.max(config.maxReplyBytes, 512 * 1024 * 1024),
      maxLineLength: Math.max(config.maxReplyBytes, 512 * 1024 * 1024),
    })
    counters.open++
    socket.on('data', (chunk: Buffer) => this.#onData(chunk))
    socket.on('drain', () => {
      this.#needDrain = false
      this.#flush()
    })
    socket.on('error', (error) => {
      this.#socketError ??= error
    })
    socket.on('end', () => this.#fail(this.#closedError('the server closed the connection')))
    socket.on('close', () => {
      this.#counters.open--
      this.#fail(this.#closedError('connection closed'))
    })
  }

  /**
   * Opens a connection and runs the handshake (`AUTH`, `SELECT`, `CLIENT SETNAME`) before it
   * resolves. Rejects with {@link BackendUnavailableError} (a {@link HandshakeError} when the
   * server refused a handshake command), never leaving a socket behind.
   */
  static open(config: ConnectionConfig, counters: ConnectionCounters): Promise<Connection> {
    return new Promise<Connection>((resolve, reject) => {
      const where = `${config.host}:${config.port}`
      const socket =
        config.tls !== undefined
          ? tls.connect({ ...config.tls, host: config.host, port: config.port })
          : net.connect({ host: config.host, port: config.port })
      let settled = false
      const fail = (error: Error): void => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        socket.destroy()
        // Only the handshake was sent: the commands waiting for this connection never were.
        reject(error instanceof OutcomeUnknownError ? new ConnectFailedError(error.message) : error)
      }
      const timer =
        config.connectTimeout > 0
          ? setTimeout(() => fail(new ConnectFailedError(`connect to ${where} timed out after ${config.connectTimeout} ms`)), config.connectTimeout)
          : undefined
      const onError = (error: Error): void => fail(new ConnectFailedError(`cannot connect to ${where}: ${error.message}`))
      const onClose = (): void => fail(new ConnectFailedError(`cannot connect to ${where}: connection closed`))
      socket.once('error', onError)
      socket.once('close', onClose)
      socket.once(config.tls !== undefined ? 'secureConnect' : 'connect', () => {
        if (settled) return
        socket.removeListener('error', onError)
        socket.removeListener('close', onClose)
        socket.setNoDelay(true)
        socket.setKeepAlive(true, 30_000)
        const connection = new Connection(socket, config, counters)
        connection.onClose = (error) => fail(error)
        connection.#handshake().then(
          () => {
            if (settled) return connection.close()
            settled = true
            clearTimeout(timer)
            connection.onClose = undefined
            resolve(connection)
          },
          (error: Error) => {
            connection.close()
            fail(error)
          },
        )
      })
    })
  }

  async #handshake(): Promise<void> {
    const { username, password, database, clientName } = this.#config
    const commands: Command[] = []
    if (password !== undefined) commands.push(username !== undefined ? ['AUTH', username, password] : ['AUTH', password])
    else if (username !== undefined && username !== 'default') commands.push(['AUTH', username, ''])
    if (database !== 0) commands.push(['SELECT', String(database)])
    if (clientName !== undefined) commands.push(['CLIENT', 'SETNAME', clientName])
    if (this.#config.readOnly) commands.push(['READONLY'])
    if (commands.length === 0) return
    const replies = await this.sendBatch(commands)
    for (const reply of replies) if (reply instanceof ReplyError) throw new HandshakeError(reply)
  }

  /** Switches to push mode (after the handshake, before SUBSCRIBE or MONITOR). */
  usePushMode(onPush: (reply: Reply) => boolean): void {
    this.#mode = { kind: 'push', onPush }
  }

  get alive(): boolean {
    return this.#dead === undefined
  }

  /** Commands accepted and not yet answered. */
  get inflight(): number {
    return this.#inflight
  }

  /** Commands written to the server and not yet answered (not those still queued for this turn's write). */
  get awaitingReplies(): number {
    return this.#inflight - this.#outgoing.length
  }

  /** Sends one command; resolves with its reply. */
  send(command: Command): Promise<Reply> {
    return new Promise<Reply>((resolve, reject) => {
      if (!this.#admit(1, reject)) return
      this.#enqueue({ remaining: 1, replies: undefined, resolve: resolve as (value: never) => void, reject, deadline: this.#deadline() })
      this.#outgoing.push(command)
      this.#schedule()
    })
  }

  /** Sends commands back to back in one write; resolves with all their replies, in order. */
  sendBatch(commands: readonly Command[]): Promise<Reply[]> {
    return new Promise<Reply[]>((resolve, reject) => {
      if (commands.length === 0) return resolve([])
      if (!this.#admit(commands.length, reject)) return
      this.#enqueue({ remaining: commands.length, replies: [], resolve: resolve as (value: never) => void, reject, deadline: this.#deadline() })
      for (const command of commands) this.#outgoing.push(command)
      this.#schedule()
    })
  }

  /**
   * Push mode: sends a command that `expected` replies will acknowledge (one per channel for
   * SUBSCRIBE), so their absence trips the command timeout. Acknowledgements go to `onPush`.
   * False when it was not sent (the connection is dead, or `maxPending` is reached).
   */
  sendPush(command: Command, expected: number): boolean {
    const ignore = () => {}
    if (!this.#admit(expected, ignore)) return false
    this.#enqueue({ remaining: expected, replies: undefined, resolve: ignore, reject: ignore, deadline: this.#deadline() })
    this.#outgoing.push(command)
    this.#schedule()
    return true
  }

  /** Destroys the connection: pending commands reject with `error`, `onClose` is called. */
  destroy(error: Error): void {
    this.#fail(error)
  }

  /** Destroys the connection on purpose: pending commands reject, `onClose` is not called. */
  close(): void {
    this.onClose = undefined
    this.#fail(new BackendUnavailableError('connection closed by the client'))
  }

  #admit(count: number, reject: (error: Error) => void): boolean {
    if (this.#dead !== undefined) {
      reject(this.#dead)
      return false
    }
    if (this.#inflight + count > this.#config.maxPending) {
      reject(new BackendUnavailableError(`too many commands pending on one connection (maxPending ${this.#config.maxPending})`))
      return false
    }
    this.#inflight += count
    return true
  }

  #deadline(): number {
    return this.#config.commandTimeout > 0 ? Date.now() + this.#config.commandTimeout : 0
  }

  #enqueue(pending: Pending): void {
    this.#pending.push(pending)
    this.#unwritten++
    if (pending.deadline !== 0 && this.#timer === undefined) this.#armTimer(pending.deadline)
  }

  /**
   * Writes at the end of this turn of the event loop (`setImmediate`), not of this tick: the
   * requests of every client socket that was readable in this turn then go out in one write, and
   * their replies come back in one read. Under load that is most of the cost of a command (a
   * write and a read syscall each, on both sides); see docs/benchmarks.md.
   */
  #schedule(): void {
    if (!this.#config.coalesceWrites) return this.#flush()
    if (this.#flushScheduled) return
    this.#flushScheduled = true
    setImmediate(this.#flushScheduledWrites)
  }

  readonly #flushScheduledWrites = (): void => {
    this.#flushScheduled = false
    this.#flush()
  }

  /** Writes every queued command in one buffer, unless the socket asked us to wait for `drain`. */
  #flush(): void {
    if (this.#needDrain || this.#dead !== undefined || this.#outgoing.length === 0) return
    const commands = this.#outgoing
    this.#outgoing = []
    this.#unwritten = 0
    this.#counters.writes++
    if (!this.#socket.write(encodeCommands(commands))) this.#needDrain = true
  }

  #armTimer(deadline: number): void {
    this.#timer = setTimeout(() => this.#checkTimeout(), Math.max(0, deadline - Date.now()))
    this.#timer.unref?.()
  }

  /** The oldest reply decides: if it is overdue the connection is stuck; otherwise wait for it. */
  #checkTimeout(): void {
    this.#timer = undefined
    if (this.#dead !== undefined) return
    const head = this.#pending.peek()
    if (head === undefined) return
    if (head.deadline !== 0 && Date.now() >= head.deadline) {
      const where = `${this.#config.host}:${this.#config.port}`
      this.#fail(new OutcomeUnknownError(`command timed out after ${this.#config.commandTimeout} ms waiting for ${where}`))
      return
    }
    if (head.deadline !== 0) this.#armTimer(head.deadline)
  }

  #onData(chunk: Buffer): void {
    if (this.#dead !== undefined) return
    this.#replyBytes += chunk.length
    this.#replied = false
    try {
      this.#decoder.feed(chunk, this.#onReply)
    } catch (error) {
      if (error instanceof RespProtocolError) {
        this.#fail(new BackendUnavailableError(`invalid reply from ${this.#config.host}:${this.#config.port}: ${error.message}`))
        return
      }
      throw error
    }
    if (this.#dead !== undefined) return
    // After a whole reply, only the bytes of the next one, still incomplete, count.
    if (this.#replied) this.#replyBytes = this.#decoder.bufferedBytes
    if (this.#replyBytes > this.#config.maxReplyBytes) this.#fail(new ReplyTooLargeError(this.#config.maxReplyBytes))
  }

  /** Each reply the decoder completes; once the connection is dead, the rest of the chunk is dropped. */
  readonly #onReply = (reply: Reply): void => {
    if (this.#dead !== undefined) return
    this.#replied = true
    this.#deliver(reply)
  }

  #deliver(reply: Reply): void {
    const mode = this.#mode
    if (mode.kind === 'push') {
      let answered: boolean
      try {
        answered = mode.onPush(reply)
      } catch (error) {
        this.#fail(error instanceof Error ? error : new Error(String(error)))
        return
      }
      if (answered) {
        const head = this.#pending.peek()
        if (head !== undefined) {
          this.#inflight--
          if (--head.remaining === 0) this.#pending.shift()
        }
      }
      return
    }
    const head = this.#pending.peek()
    if (head === undefined) {
      // Redis sends an unrequested error before closing (e.g. max number of clients reached).
      const what = reply instanceof ReplyError ? reply.message : 'an unexpected reply'
      this.#fail(new BackendUnavailableError(`the server sent ${what}`))
      return
    }
    this.#inflight--
    if (head.replies === undefined) {
      this.#pending.shift()
      head.resolve(reply as never)
      return
    }
    head.replies.push(reply)
    if (--head.remaining === 0) {
      this.#pending.shift()
      head.resolve(head.replies as never)
    }
  }

  #closedError(what: string): BackendUnavailableError {
    const cause = this.#socketError !== undefined ? `: ${this.#socketError.message}` : ''
    return new BackendUnavailableError(`${what} (${this.#config.host}:${this.#config.port})${cause}`)
  }

  /**
   * Destroys the connection. Commands written to the socket reject with an
   * {@link OutcomeUnknownError} (`error` itself when it is one), those not yet written with a
   * {@link BackendUnavailableError}: the gateway tells the two apart (503 safe to retry, 504 may
   * have run). Later calls get the not-sent kind.
   */
  #fail(error: Error): void {
    if (this.#dead !== undefined) return
    const sent = error instanceof OutcomeUnknownError ? error : new OutcomeUnknownError(error.message)
    const notSent = error instanceof OutcomeUnknownError || !(error instanceof BackendUnavailableError) ? new BackendUnavailableError(error.message) : error
    this.#dead = notSent
    if (this.#timer !== undefined) clearTimeout(this.#timer)
    this.#timer = undefined
    this.#socket.destroy()
    const pending = this.#pending.drain()
    const written = pending.length - this.#unwritten
    this.#outgoing = []
    this.#unwritten = 0
    this.#inflight = 0
    // An oversized reply is the oldest command's; those behind it only lost their connection.
    const behind = error instanceof ReplyTooLargeError ? new OutcomeUnknownError(`an earlier reply on the connection was too large: ${error.message}`) : sent
    for (let i = 0; i < pending.length; i++) pending[i].reject(i === 0 && i < written ? sent : i < written ? behind : notSent)
    const onClose = this.onClose
    this.onClose = undefined
    onClose?.(error)
  }
}
