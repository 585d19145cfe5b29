/**
 * A RESP2 listener over any {@link Executor}: `redis-cli`, `redis-benchmark` and Redis client
 * libraries talk to the in-memory engine (or anything else) as if it were a Redis server.
 *
 * The listener keeps per-connection state itself (authentication, selected database, client
 * name, MULTI queue, subscriptions, MONITOR) and sends the executor stateless calls carrying a
 * {@link CallContext}.
 *
 * Authentication (docs/protocol.md, "The RESP listener"): with `password` or `auth` set, every
 * command but the few Redis flags `no_auth` answers `NOAUTH` until `AUTH` or `HELLO 2 AUTH`
 * succeeds. The standard token is the `default` user's password, the read-only token the
 * password of the user `readonly` (the read-only token's rights, checked by the same module as
 * over HTTP), and other users are ACL users checked by the executor. Without credentials the
 * listener binds loopback only.
 *
 * Connections are listed in a registry (`resp/clients.ts`) that CLIENT LIST, KILL and PAUSE act
 * on (`resp/client-command.ts`). With `http`, the port serves HTTP too: the first line of a
 * connection tells (`resp/protocol-sniff.ts`).
 */

import net, { type AddressInfo } from 'node:net'
import tls from 'node:tls'
import { readFileSync } from 'node:fs'
import type { Server as HttpServer } from 'node:http'
import { OK, QUEUED, ReplyError, Status, type Command, type Reply } from '../reply.js'
import { secretsEqual } from '../auth/digest.js'
import { encodeReply, writeBytes } from '../resp/encode.js'
import { encodeCommandReply, encodeFor, helloReply, pushFrame, pushFrames, type RespVersion } from './resp/connection-protocol.js'
import { resp3Transaction } from '../resp/resp3-shape.js'
import { clientTrackingReply } from './resp/client-tracking.js'
import { RequestDecoder } from '../resp/request.js'
import { latin1Text, NEED_MORE, RespProtocolError } from '../resp/protocol.js'
import { BackendUnavailableError, backendFailureMessage, type CallContext, type Executor, type PubSubEvent } from '../executor/executor.js'
import { allCommands, arityError, checkArity, lookupError, resolveCommand, SERVER_VERSION } from '../commands/lookup.js'
import { checkPermission } from '../auth/permissions.js'
import { generateToken, type Authenticator } from '../auth/tokens.js'
import {
  AUTH_WITHOUT_PASSWORD,
  BAD_CLIENT_NAME as BAD_NAME,
  DB_INDEX_OUT_OF_RANGE,
  DISCARD_WITHOUT_MULTI,
  EXEC_ABORT,
  EXEC_WITHOUT_MULTI,
  HELLO_NOAUTH,
  MULTI_NESTED,
  NOAUTH,
  NOPROTO,
  NOT_INTEGER,
  PROTOCOL_VERSION_NOT_INTEGER,
  REPLICA_KEYSPACE,
  SYNTAX,
  WATCH_INSIDE_MULTI,
  WRONGPASS,
  helloSyntax,
  subscribedModeError,
  wrongArity as arity,
} from '../commands/errors.js'
import { notAvailable } from '../executor/connection-state.js'
import { ClientRegistry, type ClientProbe, type ClientRecord } from './resp/clients.js'
import { clientCommand, FORWARD, NO_REPLY, userExistsVia } from './resp/client-command.js'
import { sniffProtocol } from './resp/protocol-sniff.js'
import { ShardSubscriptions } from './resp/shard-pubsub.js'
import { ConnectionSession } from './resp/connection-session.js'
import { installBusyService } from './resp/busy-script.js'
import { PendingWrites, type PendingWriter } from './resp/pending-writes.js'
import type { BusyScript } from '../executor/memory/commands/scripting/busy.js'

/**
 * The user name the read-only token logs in as: `AUTH readonly <read-only token>`.
 * @public
 */
export const READONLY_RESP_USER = 'readonly'

/** Options of {@link serveResp}. @public */
export interface RespServerOptions {
  /** TCP port; 0 picks a free one. Default 6379. */
  readonly port?: number
  /**
   * Address to bind. Default `127.0.0.1`. Without `password` or `auth` only a loopback address
   * is accepted: anyone who reaches the port could otherwise run every command.
   */
  readonly host?: string
  /** The default user's password (`requirepass`): clients must `AUTH` first. Not with `auth`. */
  readonly password?: string
  /**
   * The gateway's tokens (a `TokenStore`, or any {@link Authenticator}): clients must `AUTH`
   * first. A password the authenticator maps to the standard token opens the `default` user
   * (every command, as the standard token over HTTP); one it maps to the read-only token opens
   * the user {@link READONLY_RESP_USER} (the read-only token's commands only). Not with `password`.
   */
  readonly auth?: Authenticator
  /**
   * Run the read-only token's calls as this ACL user, as the gateway option of the same name
   * does (create it with `provisionReadonlyUser`).
   */
  readonly readonlyUser?: { readonly user: string; readonly password: string }
  /**
   * Checks `AUTH <user> <password>` for users other than `default` (and other than `readonly`
   * with the read-only token). Without it the executor is asked: `AUTH user pass` must answer
   * `OK` (the socket executor checks the credentials upstream), and, when credentials are
   * configured, a user without a password (`nopass`) is refused, as `ACL RESTTOKEN` refuses it.
   */
  readonly authenticate?: (user: string, password: string) => boolean | Promise<boolean>
  /**
   * Serve RESP over TLS with these options (`cert` and `key` at least), as `tls.createServer`
   * takes them. Clients connect with `redis-cli --tls`, `rediss://` URLs.
   */
  readonly tls?: tls.TlsOptions
  /** Number of databases SELECT accepts (0 … n-1). Default 16. */
  readonly databases?: number
  /**
   * Largest argument a client may send, in bytes. Default 512 MiB, Redis's `proto-max-bulk-len`.
   * Before a client authenticates Redis 7's own limits apply instead: at most 10 arguments of at
   * most 16384 bytes.
   */
  readonly maxBulkLength?: number
  /**
   * Most bytes a client may have sent that are not yet whole commands (Redis's
   * `client-query-buffer-limit`); past it the connection is closed. Default 1 GiB.
   */
  readonly maxQueryBuffer?: number
  /** Replies a connection may have outstanding before the listener stops reading its input. Default 1024. */
  readonly maxPendingReplies?: number
  /**
   * Most clients connected at once (Redis's `maxclients`); one more gets
   * `-ERR max number of clients reached` and is closed (over TLS: closed). Default 10000, or
   * half the process's open-file limit when that is lower (Linux), so HTTP and the backend keep
   * descriptors of their own. A value given here is taken as it is.
   */
  readonly maxClients?: number
  /**
   * Milliseconds a connection may stay unauthenticated (from its start, or from `RESET`) before
   * it is closed; only with `password` or `auth`. It cannot be turned off. Default 10000.
   */
  readonly authTimeout?: number
  /**
   * Milliseconds an authenticated client may stay idle (nothing sent, no reply owed) before it is
   * closed, as Redis's `timeout`; subscribers and MONITOR are exempt, as in Redis. Default 0: never.
   */
  readonly idleTimeout?: number
  /**
   * Milliseconds a client may leave output unread without taking any of it before it is closed
   * and its output freed. 0 turns it off. Default 30000.
   */
  readonly sendTimeout?: number
  /**
   * Output-buffer limits (Redis's `client-output-buffer-limit`): `normal` for ordinary clients
   * (default hard 256 MiB, soft 64 MiB for 60 s), `pubsub` for subscribers and MONITOR (default
   * hard 32 MiB, soft 8 MiB for 60 s, as Redis's pubsub class). Give a class whole.
   */
  readonly outputBufferLimits?: { readonly normal?: OutputBufferLimit; readonly pubsub?: OutputBufferLimit }
  /**
   * Bytes of pub/sub and MONITOR output a slow client may leave unread before it is
   * disconnected: the `pubsub` class's hard limit (`outputBufferLimits.pubsub.hard` wins).
   * Default 32 MiB.
   */
  readonly maxPushBuffer?: number
  /**
   * Serve HTTP on the same port (the direct database-port mode): a connection whose first line is
   * an HTTP/1.x request line is handed to this server (`emit('connection')`, the bytes read put
   * back), which must be a plain `http.Server` that does not listen itself, with the gateway's
   * handler; over `tls` it gets the decrypted socket. Without it such a connection is closed
   * unanswered, as Redis closes one that sends `POST` or `Host:`.
   */
  readonly http?: HttpServer
}

/**
 * One class of Redis's `client-output-buffer-limit`: a connection whose unsent output passes
 * `hard` bytes, or stays above `soft` bytes for more than `softMs` milliseconds, is closed.
 * 0 turns a limit off.
 * @public
 */
export interface OutputBufferLimit {
  readonly hard: number
  readonly soft: number
  readonly softMs: number
}

/** Options of {@link RespServer.close}. @public */
export interface RespCloseOptions {
  /**
   * Milliseconds to let commands already started reply before the remaining connections are cut.
   * Meanwhile nothing new is accepted or read, idle connections, subscribers and MONITOR are
   * closed at once, and each other connection closes after its last owed reply. Default 0: every
   * connection is cut at once.
   */
  readonly deadline?: number
}

/** A running listener. @public */
export interface RespServer {
  /** Where it listens; `port` is the real one when 0 was asked. */
  readonly address: AddressInfo
  /**
   * Connected clients: RESP clients, and connections whose first bytes have not arrived yet
   * (not the ones handed to {@link RespServerOptions.http}).
   */
  readonly clients: number
  /** The connection cap in force (see {@link RespServerOptions.maxClients}). */
  readonly maxClients: number
  /**
   * Stops listening and closes every client connection: at once, or, with a `deadline`, after
   * the commands already started have replied. Resolves once every connection is closed.
   */
  close(options?: RespCloseOptions): Promise<void>
}

/** Bytes written as they are: several replies at once (SUBSCRIBE confirmations). */
class Raw {
  constructor(readonly bytes: Buffer) {}
}

type Out = Reply | Raw

/** Encoded frames (or an error) as the reply of a command. */
function raw(frames: Buffer | Promise<Buffer | ReplyError>): Out | Promise<Out> {
  return frames instanceof Promise ? frames.then((out) => (out instanceof Buffer ? new Raw(out) : out)) : new Raw(frames)
}

/** One reply position in a connection's output: filled now or later, written in order. */
interface Slot {
  out: Buffer | undefined
}

const RESET = new Status('RESET')
const QUIT = Symbol('quit')
/** A reply slot that writes nothing: CLIENT REPLY OFF or SKIP. */
const SILENT = new Raw(Buffer.alloc(0))

/** Run at once even inside MULTI (everything else is queued). */
const MULTI_IMMEDIATE = new Set(['exec', 'discard', 'multi', 'watch', 'quit', 'reset'])
/** Allowed before AUTH: the commands flagged `no_auth` (AUTH, HELLO, QUIT, RESET in 7.0). */
const NO_AUTH: ReadonlySet<string> = new Set(
  [...allCommands()].filter((info) => info.parent === undefined && info.flags.has('no_auth')).map((info) => info.name),
)
/**
 * Connection commands the listener answers itself that the read-only user may run although the
 * command table does not flag them `readonly`: they read or write no data. SUBSCRIBE and
 * PSUBSCRIBE are open to the read-only token over HTTP too (`/subscribe`, `/psubscribe`).
 */
const READONLY_CONNECTION: ReadonlySet<string> = new Set([
  'auth', 'hello', 'quit', 'reset', 'select', 'multi', 'exec', 'discard', 'watch', 'unwatch',
  'subscribe', 'psubscribe', 'unsubscribe', 'punsubscribe', 'ssubscribe', 'sunsubscribe', 'ping',
])
/** CLIENT subcommands that concern the calling connection alone (the read-only user may run them). */
const CLIENT_OWN: ReadonlySet<string> = new Set([
  'setname', 'getname', 'id', 'info', 'reply', 'setinfo', 'no-evict', 'no-touch', 'getredir', 'trackinginfo', 'help',
])
const READONLY_PRINCIPAL = Object.freeze({ kind: 'readonly' as const })
/** Allowed in RESP2 subscribed state. */
const SUBSCRIBED_ALLOWED = new Set(['subscribe', 'psubscribe', 'ssubscribe', 'unsubscribe', 'punsubscribe', 'sunsubscribe', 'ping', 'quit', 'reset'])
/** Commands whose confirmations Redis sends even under CLIENT REPLY OFF or SKIP. */
const PUBSUB_CONFIRMED: ReadonlySet<string> = new Set(['subscribe', 'psubscribe', 'ssubscribe', 'unsubscribe', 'punsubscribe', 'sunsubscribe'])
/** Allowed on a MONITOR connection (Redis treats it as a replica). */
const MONITOR_ALLOWED = new Set(['quit', 'reset', 'monitor', 'ping', 'auth', 'hello', 'client'])

const bulk = (text: string): Buffer => Buffer.from(text, 'utf8')

function lower(arg: Buffer): string {
  return latin1Text(arg).toLowerCase()
}

/** Redis's `string2ll` for small numbers: digits with an optional minus, no leading zeros. */
function strictInteger(arg: Buffer): number | undefined {
  const text = arg.toString('latin1')
  return /^(?:0|-?[1-9][0-9]{0,15})$/.test(text) ? Number(text) : undefined
}


function errorReply(error: unknown): ReplyError {
  // The same texts as the gateway's 503 and 504 (docs/protocol.md).
  if (error instanceof BackendUnavailableError) return new ReplyError(backendFailureMessage(error))
  const message = error instanceof Error ? error.message : String(error)
  return new ReplyError(`ERR ${message}`.replace(/[\r\n]+/g, ' '))
}

/** Who a connection runs as once authenticated. */
type Login = 'default' | 'readonly' | { readonly user: string; readonly password: string }

/** The limits a connection is held to, resolved from {@link RespServerOptions}. */
interface Limits {
  readonly maxClients: number
  readonly authTimeout: number
  readonly idleTimeout: number
  readonly sendTimeout: number
  readonly maxQueryBuffer: number
  readonly normal: OutputBufferLimit
  readonly pubsub: OutputBufferLimit
}

interface Shared {
  readonly executor: Executor
  readonly options: RespServerOptions
  /** Clients must authenticate (`password` or `auth` is set). */
  readonly locked: boolean
  readonly databases: number
  readonly maxPending: number
  readonly limits: Limits
  /** Every connection, for CLIENT LIST, KILL and PAUSE. */
  readonly registry: ClientRegistry
  /** Connections whose replies are written once the turn's input is read. */
  readonly pendingWrites: PendingWrites
}

/**
 * Most bytes handed to a socket and not yet sent: a larger reply is written piece by piece, so
 * the send timeout sees whether a slow client takes any of it, and a client closed for its output
 * drops the rest at once.
 */
const WRITE_PIECE = 256 * 1024

interface Subscribed {
  readonly name: Buffer
  readonly abort: AbortController
}

class Client implements PendingWriter {
  readonly #shared: Shared
  readonly #socket: net.Socket
  readonly #decoder: RequestDecoder
  readonly #record: ClientRecord
  /** A command held by CLIENT PAUSE: it runs, and input is read again, when the pause ends. */
  #postponed: Buffer[] | undefined
  /** Bytes of the arguments of the command being run (CLIENT LIST's `argv-mem`). */
  #argvMem = 0
  readonly #address: string
  #slots: Slot[] = []
  #scheduled = false
  #paused = false
  #pumping = false
  /**
   * Set by a command whose effect on the connection (database, user) is known only when its
   * promise settles: EXEC with a SELECT inside, AUTH checked by the executor. Later commands wait
   * for it, as they would behind it in Redis.
   */
  #barrier = false
  #blocked = false
  /** This connection's command is running (a busy script is this connection's). */
  #running = false
  /** No more input is read: QUIT or a protocol error; the socket ends once the output is out. */
  #closing = false
  #gone = false
  #authenticated: boolean
  /** Runs with the read-only token's rights. */
  #readonly = false
  #user: string | undefined
  #password: string | undefined
  #db = 0
  /** The protocol replies are written in: 2, or 3 after `HELLO 3` (RESET goes back to 2). */
  #resp: RespVersion = 2
  #context: CallContext
  #multi: Command[] | undefined
  #dirty = false
  /** The executor session: blocking commands and WATCH (`resp/connection-session.ts`). */
  readonly #session: ConnectionSession
  readonly #channels = new Map<string, Subscribed>()
  readonly #patterns = new Map<string, Subscribed>()
  /** SSUBSCRIBE's shard channels (sharded pub/sub lives in its own module). */
  readonly #shards: ShardSubscriptions
  #monitor: AbortController | undefined
  /** When the connection started, or was logged out by RESET; undefined while authenticated. */
  #unauthenticatedSince: number | undefined
  /** When the client last sent anything (Redis's `lastinteraction`, for the idle timeout). */
  #lastInteraction: number
  /** Output not yet handed to the socket: what is past {@link WRITE_PIECE}, in order. */
  #outQueue: Buffer[] = []
  #outQueued = 0
  /** Bytes of replies that are ready but wait behind an earlier one that is not. */
  #held = 0
  /** Bytes the socket had sent at the last sweep, and when that figure last moved. */
  #sent = 0
  #lastProgress: number
  /** Since when the output has been over the soft limit. */
  #softSince: number | undefined

  constructor(shared: Shared, socket: net.Socket, record: ClientRecord) {
    this.#shared = shared
    this.#socket = socket
    this.#record = record
    record.handle = { socket, probe: () => this.#probe(), kill: () => this.#drop(), closeAfterReply: () => (this.#closing = true), unblock: (error) => this.#session.unblock(error) }
    this.#address = `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? 0}`
    this.#session = new ConnectionSession(shared.executor, { client: this.#address })
    this.#decoder = new RequestDecoder({ maxBulkLength: shared.options.maxBulkLength, authRequired: shared.locked })
    this.#authenticated = !shared.locked
    const now = Date.now()
    this.#unauthenticatedSince = shared.locked ? now : undefined
    this.#lastInteraction = now
    this.#lastProgress = now
    this.#context = this.#makeContext()
    this.#shards = new ShardSubscriptions({
      executor: shared.executor,
      context: () => this.#context,
      protocol: () => this.#resp,
      push: (frame) => this.#push(frame),
      destroy: () => this.#socket.destroy(),
      failure: errorReply,
    })
    socket.setNoDelay(true)
    socket.on('data', (chunk: Buffer) => this.#onData(chunk))
    socket.on('drain', () => this.#onDrain())
    socket.on('error', () => {}) // 'close' follows
    socket.on('close', () => this.#cleanup())
  }

  get id(): number {
    return this.#record.id
  }

  destroy(): void {
    this.#drop()
  }

  /**
   * Graceful close: no further command is read, subscriptions and MONITOR end now, and the
   * connection ends once the replies it is owed are out (at once when it owes none).
   */
  shutdown(): void {
    if (this.#gone) return
    this.#closing = true
    this.#pause()
    this.#stopStreams()
    this.#flush()
  }

  /**
   * The periodic check (Redis's `clientsCron`): the authentication deadline, the idle timeout,
   * the send timeout and the soft output limit. Closes the connection when one is passed.
   */
  sweep(now: number): void {
    if (this.#gone) return
    const limits = this.#shared.limits
    if (this.#unauthenticatedSince !== undefined && now - this.#unauthenticatedSince >= limits.authTimeout) return this.#drop()
    if (
      limits.idleTimeout > 0 && this.#slots.length === 0 && !this.#streaming() && this.#postponed === undefined &&
      now - this.#lastInteraction >= limits.idleTimeout
    ) return this.#drop()
    const unsent = this.#socket.writableLength + this.#outQueued
    if (unsent === 0) {
      this.#lastProgress = now
    } else {
      const sent = this.#socket.bytesWritten - this.#socket.writableLength
      if (sent !== this.#sent) {
        this.#sent = sent
        this.#lastProgress = now
      } else if (limits.sendTimeout > 0 && now - this.#lastProgress >= limits.sendTimeout) {
        return this.#drop()
      }
    }
    if (this.#overOutputLimit(now)) this.#drop()
  }

  /** Subscribed or monitoring: the `pubsub` output class, exempt from the idle timeout. */
  #streaming(): boolean {
    return this.#subscribed() || this.#monitor !== undefined
  }

  /** Redis's CLIENT_PUBSUB: any channel, pattern or shard channel subscribed. */
  #subscribed(): boolean {
    return this.#channels.size + this.#patterns.size + this.#shards.size > 0
  }

  #onData(chunk: Buffer): void {
    if (this.#closing) return // after QUIT, a protocol error or shutdown: input is dropped, as Redis does
    this.#lastInteraction = Date.now()
    this.#decoder.push(chunk)
    if (this.#decoder.bufferedBytes > this.#shared.limits.maxQueryBuffer) {
      // As Redis with client-query-buffer-limit: closed without a reply.
      this.#drop()
      return
    }
    this.#pump()
  }

  /** The socket resp/busy-script.ts reads while a script is busy. */
  get busySocket(): net.Socket {
    return this.#socket
  }

  /** Owes nothing and runs nothing (resp/busy-script.ts): a reply written now keeps its order. */
  get idleForBusy(): boolean {
    return !this.#running && !this.#pumping && !this.#closing && !this.#gone && !this.#blocked && this.#postponed === undefined &&
      this.#slots.length === 0 && this.#outQueue.length === 0 && this.#socket.writableLength === 0
  }

  /**
   * Input read while another connection's script is busy (resp/busy-script.ts): its commands get
   * `gate`'s answers; one the gate leaves for later waits, with everything after it, for the
   * script's end, as a command held by CLIENT PAUSE does. Inside MULTI a refusal dooms the
   * EXEC, and EXEC itself is aborted, as Redis's rejectCommand does.
   */
  serveWhileBusy(input: Buffer, gate: BusyScript): void {
    this.#decoder.push(input)
    while (this.#postponed === undefined) {
      let argv: Buffer[] | typeof NEED_MORE
      try {
        argv = this.#decoder.next()
      } catch {
        return // a protocol error: met again, and answered, once the script has ended
      }
      if (argv === NEED_MORE) return
      let reply = gate.answer(argv)
      // MULTI needs nothing of the engine: answered now, as Redis does (a later EXEC must find it).
      if (reply === undefined && this.#authenticated && argv.length === 1 && lower(argv[0]) === 'multi') reply = this.#busyMulti()
      if (reply === undefined) {
        this.#postponed = argv
        setImmediate(this.#resumeAfterPause)
        return
      }
      if (reply instanceof ReplyError && this.#multi !== undefined) {
        if (lower(argv[0]) !== 'exec') this.#dirty = true
        else {
          this.#multi = undefined
          this.#session.unwatch(this.#context)
          reply = new ReplyError(`EXECABORT Transaction discarded because of: ${reply.message}`)
        }
      }
      this.#socket.write(encodeFor(this.#resp, reply))
    }
  }

  #busyMulti(): ReplyError | Status {
    if (this.#multi !== undefined) return MULTI_NESTED
    this.#multi = []
    this.#dirty = false
    return OK
  }

  /** Closes the connection at once and lets go of everything it holds. */
  #drop(): void {
    this.#cleanup()
    this.#socket.destroy()
  }

  #makeContext(): CallContext {
    const context: { db: number; client: string; user?: string; password?: string; noTouch?: boolean; resp?: 3; session?: number } = { db: this.#db, client: this.#address }
    if (this.#record.noTouch) context.noTouch = true
    if (this.#resp === 3) context.resp = 3 // scripts' RESP3 replies (CallContext.resp)
    if (this.#session.id !== undefined) context.session = this.#session.id // WAITAOF: the connection's writes
    const runAs = this.#readonly ? this.#shared.options.readonlyUser : undefined
    if (runAs !== undefined) {
      context.user = runAs.user
      context.password = runAs.password
    } else if (this.#user !== undefined) {
      context.user = this.#user
      context.password = this.#password
    }
    return context
  }

  #setDb(db: number): void {
    this.#db = db
    this.#context = this.#makeContext()
  }

  /** Reads and runs commands until the input is used up, or output backs up. */
  #pump(): void {
    if (this.#pumping) return
    this.#pumping = true
    try {
      while (!this.#closing && !this.#gone && !this.#blocked && this.#postponed === undefined) {
        if (this.#slots.length >= this.#shared.maxPending) this.#flush()
        if (this.#slots.length >= this.#shared.maxPending || this.#outputBacklogged()) {
          this.#pause()
          break
        }
        let argv: Buffer[] | typeof NEED_MORE
        try {
          argv = this.#decoder.next()
        } catch (error) {
          if (!(error instanceof RespProtocolError)) throw error
          // As Redis: the error, after the replies already owed, then the connection closes.
          this.#closing = true
          this.#reply(new ReplyError(`ERR ${error.message}`))
          break
        }
        if (argv === NEED_MORE) break
        if (this.#holdForPause(argv)) break
        this.#run(argv)
      }
    } finally {
      this.#pumping = false
    }
    // Written with the other connections' replies once the turn's input is read (PendingWrites).
    if (this.#slots.length > 0 || this.#closing) this.#shared.pendingWrites.add(this)
  }

  /** {@inheritDoc PendingWriter.flushPending} */
  flushPending(): void {
    this.#flush()
  }

  /** CLIENT PAUSE in force and `argv` one it holds: kept until the pause ends (Redis's order of checks first). */
  #holdForPause(argv: Buffer[]): boolean {
    const pause = this.#shared.registry.pause
    if (!pause.paused) return false
    const info = resolveCommand(argv)
    if (info === undefined || !checkArity(info, argv.length)) return false
    if (!this.#authenticated && !NO_AUTH.has(info.name)) return false
    if (!pause.holds(argv, this.#multi)) return false
    this.#postponed = argv
    pause.hold(this.#resumeAfterPause)
    return true
  }

  readonly #resumeAfterPause = (): void => {
    const argv = this.#postponed
    this.#postponed = undefined
    if (argv === undefined || this.#gone || this.#holdForPause(argv)) return
    this.#run(argv)
    this.#pump()
  }

  /** What CLIENT LIST shows of this connection. */
  #probe(): ClientProbe {
    let multiMem = 0
    for (const command of this.#multi ?? []) for (const arg of command) multiMem += arg.length
    return {
      db: this.#db,
      sub: this.#channels.size,
      psub: this.#patterns.size,
      ssub: this.#shards.size,
      multi: this.#multi?.length ?? -1,
      multiMem,
      qbuf: this.#decoder.bufferedBytes,
      argvMem: this.#argvMem,
      oll: this.#slots.length + this.#outQueue.length,
      omem: this.#held + this.#outQueued + this.#socket.writableLength,
      user: this.#readonly ? READONLY_RESP_USER : (this.#user ?? 'default'),
      resp: this.#resp,
      lastInteraction: this.#lastInteraction,
      monitor: this.#monitor !== undefined,
      inMulti: this.#multi !== undefined,
      blocked: this.#postponed !== undefined || this.#session.blocked,
      dirtyCas: false,
      closing: this.#closing,
      reading: !this.#paused && !this.#closing,
    }
  }

  #pause(): void {
    if (this.#paused) return
    this.#paused = true
    this.#socket.pause()
  }

  /** The client is not taking its output as fast as it comes: read no more commands for now. */
  #outputBacklogged(): boolean {
    return this.#outQueued > 0 || this.#socket.writableNeedDrain
  }

  #maybeResume(): void {
    if (!this.#paused || this.#gone || this.#blocked || this.#closing) return
    if (this.#slots.length > this.#shared.maxPending / 2 || this.#outputBacklogged()) return
    this.#paused = false
    this.#socket.resume()
    this.#pump()
  }

  /** Runs one command and queues its reply. */
  #run(argv: Buffer[]): void {
    let out: Out | Promise<Out> | typeof QUIT | typeof NO_REPLY
    this.#barrier = false
    this.#record.noteCommand(argv)
    for (const arg of argv) this.#argvMem += arg.length
    this.#running = true
    try {
      out = this.#handle(argv)
    } catch (error) {
      out = errorReply(error)
    } finally {
      this.#running = false
    }
    this.#argvMem = 0
    const muted = out === NO_REPLY || this.#record.muted
    this.#record.commandDone()
    if (out === QUIT) {
      this.#closing = true
      this.#reply(muted ? SILENT : OK)
      return
    }
    if (muted && out !== NO_REPLY && argv.length > 0 && PUBSUB_CONFIRMED.has(lower(argv[0]))) {
      // Redis 7.0 writes pub/sub confirmations with CLIENT_PUSHING, which CLIENT REPLY OFF and
      // SKIP do not silence (pubsub.c); an error reply of these commands is silenced as any other.
      out = out instanceof Promise ? out.then((reply) => (reply instanceof ReplyError ? SILENT : reply), () => SILENT) : out instanceof ReplyError ? SILENT : out
    } else if (muted) out = out instanceof Promise ? out.then(() => SILENT, () => SILENT) : SILENT
    else if (out === NO_REPLY) out = SILENT
    // The protocol in force once the command ran (HELLO's own reply is in the one it chose).
    const resp = this.#resp
    if (!(out instanceof Promise)) {
      this.#reply(out, resp, argv)
      return
    }
    const slot: Slot = { out: undefined }
    this.#slots.push(slot)
    const blocking = this.#barrier
    if (blocking) {
      this.#blocked = true
      this.#pause()
    }
    const settle = (value: Out): void => {
      try {
        this.#fill(slot, value, resp, argv)
      } finally {
        if (blocking) {
          this.#blocked = false
          this.#maybeResume()
        }
      }
    }
    out.then(settle, (error: unknown) => settle(errorReply(error)))
  }

  #reply(out: Out, resp: RespVersion = 2, argv: Buffer[] = []): void {
    const bytes = out instanceof Raw ? out.bytes : encodeCommandReply(resp, argv, out)
    this.#held += bytes.length
    this.#slots.push({ out: bytes })
  }

  #fill(slot: Slot, out: Out, resp: RespVersion, argv: Buffer[]): void {
    if (this.#gone) return
    try {
      slot.out = out instanceof Raw ? out.bytes : encodeCommandReply(resp, argv, out)
    } catch (error) {
      slot.out = encodeFor(resp, errorReply(error)) // an executor bug must not stall the connection
    }
    this.#held += slot.out.length
    this.#schedule()
  }

  /** Pub/sub messages and MONITOR lines: after every reply owed so far. */
  #push(bytes: Buffer): void {
    if (this.#gone) return
    this.#held += bytes.length
    this.#slots.push({ out: bytes })
    // A subscriber that does not read cannot hold memory without bound.
    if (this.#overOutputLimit()) return this.#drop()
    this.#schedule()
  }

  /**
   * Redis's `client-output-buffer-limit` for the connection's class: past the hard limit, or
   * above the soft one for longer than its time, the connection must go.
   */
  #overOutputLimit(now?: number): boolean {
    const limits = this.#shared.limits
    const limit = this.#streaming() ? limits.pubsub : limits.normal
    const size = this.#held + this.#outQueued + this.#socket.writableLength
    if (limit.hard > 0 && size > limit.hard) return true
    if (limit.soft > 0 && size > limit.soft) {
      const at = now ?? Date.now() // only here: the common case (under the soft limit) reads no clock
      this.#softSince ??= at
      return at - this.#softSince > limit.softMs
    }
    this.#softSince = undefined
    return false
  }

  #schedule(): void {
    if (this.#scheduled) return
    this.#scheduled = true
    queueMicrotask(() => {
      this.#scheduled = false
      this.#flush()
      this.#maybeResume()
    })
  }

  /** Writes the replies that are ready, in order, in one write. */
  #flush(): void {
    if (this.#gone) return
    const slots = this.#slots
    let ready = 0
    let bytes = 0
    for (; ready < slots.length; ready++) {
      const out = slots[ready].out
      if (out === undefined) break
      bytes += out.length
    }
    if (ready > 0) {
      const chunk = ready === 1 ? (slots[0].out as Buffer) : joinReady(slots, ready, bytes)
      this.#slots = ready === slots.length ? [] : slots.slice(ready)
      // Checked as the output grows, before the socket may take it, as Redis checks a reply it adds.
      if (this.#overOutputLimit()) return this.#drop()
      this.#held -= chunk.length
      this.#send(chunk)
    }
    if (this.#closing && this.#slots.length === 0) {
      this.#gone = true
      this.#stopStreams()
      this.#endWhenSent()
    }
  }

  /** Hands `chunk` to the socket, keeping at most about {@link WRITE_PIECE} unsent bytes there. */
  #send(chunk: Buffer): void {
    if (this.#outQueued === 0 && chunk.length <= WRITE_PIECE && this.#socket.writableLength < WRITE_PIECE) {
      this.#socket.write(chunk)
      return
    }
    this.#outQueue.push(chunk)
    this.#outQueued += chunk.length
    this.#pull()
  }

  /**
   * Moves queued output to the socket while it holds less than a piece. Runs again when a piece
   * it wrote is sent (its callback: a write the kernel takes at once emits no 'drain') and on
   * 'drain' (for replies written directly).
   */
  #pull(): void {
    const socket = this.#socket
    while (this.#outQueued > 0 && socket.writableLength < WRITE_PIECE && !socket.destroyed) {
      const head = this.#outQueue[0]
      let piece = head
      if (head.length <= WRITE_PIECE) {
        this.#outQueue.shift()
      } else {
        piece = head.subarray(0, WRITE_PIECE)
        this.#outQueue[0] = head.subarray(WRITE_PIECE)
      }
      this.#outQueued -= piece.length
      socket.write(piece, this.#pieceSent)
    }
  }

  readonly #pieceSent = (error?: Error | null): void => {
    if (error == null) this.#onDrain()
  }

  #onDrain(): void {
    this.#pull()
    if (this.#gone) this.#endWhenSent()
    else this.#maybeResume()
  }

  /** Ends the socket once the queued output is handed over; reads on to see the client's close. */
  #endWhenSent(): void {
    if (this.#outQueued > 0 || this.#socket.writableEnded || this.#socket.destroyed) return
    this.#socket.end()
    this.#socket.resume()
  }

  #cleanup(): void {
    this.#shared.registry.remove(this.#record)
    if (this.#postponed !== undefined) this.#shared.registry.pause.release(this.#resumeAfterPause)
    this.#postponed = undefined
    this.#session.close()
    this.#gone = true
    this.#slots = []
    this.#held = 0
    this.#outQueue = []
    this.#outQueued = 0
    this.#stopStreams()
  }

  #stopStreams(): void {
    for (const entry of this.#channels.values()) entry.abort.abort()
    for (const entry of this.#patterns.values()) entry.abort.abort()
    this.#channels.clear()
    this.#patterns.clear()
    this.#shards.stop()
    this.#monitor?.abort()
    this.#monitor = undefined
  }

  #handle(argv: Buffer[]): Out | Promise<Out> | typeof QUIT | typeof NO_REPLY {
    const name = lower(argv[0])
    if (!this.#authenticated && !NO_AUTH.has(name)) return this.#unauthenticated(argv)
    if (this.#readonly) {
      const refused = this.#readonlyRefusal(name, argv)
      if (refused !== undefined) {
        if (this.#multi !== undefined) this.#dirty = true // a refused command dooms the EXEC, as in Redis
        return refused
      }
    }
    // As Redis: only RESP2 limits a subscribed connection's commands (RESP3 tells pushes apart).
    if (this.#resp === 2 && this.#subscribed() && !SUBSCRIBED_ALLOWED.has(name)) {
      return subscribedModeError(name)
    }
    if (this.#multi !== undefined && !MULTI_IMMEDIATE.has(name)) return this.#queue(argv)
    if (this.#monitor !== undefined && !MONITOR_ALLOWED.has(name)) return REPLICA_KEYSPACE
    const argc = argv.length
    switch (name) {
      case 'auth':
        if (argc < 2) return arity('auth')
        if (argc > 3) return SYNTAX
        return this.#auth(argc === 3 ? argv[1].toString('utf8') : undefined, argv[argc - 1])
      case 'hello':
        return this.#hello(argv)
      case 'quit':
        return QUIT
      case 'reset':
        return this.#reset()
      case 'select': {
        if (argc !== 2) return arity('select')
        const db = strictInteger(argv[1])
        if (db === undefined) return NOT_INTEGER
        if (db < 0 || db >= this.#shared.databases) return DB_INDEX_OUT_OF_RANGE
        this.#setDb(db)
        return OK
      }
      case 'multi':
        if (argc !== 1) return arity('multi')
        if (this.#multi !== undefined) return MULTI_NESTED
        this.#multi = []
        this.#dirty = false
        return OK
      case 'exec':
        if (argc !== 1) return arity('exec')
        return this.#exec()
      case 'discard':
        if (argc !== 1) return arity('discard')
        if (this.#multi === undefined) return DISCARD_WITHOUT_MULTI
        this.#multi = undefined
        return this.#session.unwatch(this.#context)
      case 'watch':
        if (argc < 2) return arity('watch')
        if (this.#multi !== undefined) return WATCH_INSIDE_MULTI
        return this.#session.watch(argv, this.#context)
      case 'unwatch':
        if (argc !== 1) return arity('unwatch')
        return this.#session.unwatch(this.#context)
      case 'subscribe':
      case 'psubscribe':
        if (argc < 2) return arity(name)
        return this.#subscribe(name === 'subscribe' ? 'channel' : 'pattern', argv.slice(1))
      case 'unsubscribe':
      case 'punsubscribe':
        return this.#unsubscribe(name === 'unsubscribe' ? 'channel' : 'pattern', argv.slice(1))
      case 'ssubscribe':
        if (argc < 2) return arity(name)
        return raw(this.#shards.subscribe(argv.slice(1)))
      case 'sunsubscribe':
        return new Raw(this.#shards.unsubscribe(argv.slice(1)))
      case 'ping':
        if (this.#resp === 3 || !this.#subscribed()) break
        if (argc > 2) return arity('ping')
        return [bulk('pong'), argc === 2 ? argv[1] : Buffer.alloc(0)]
      case 'monitor':
        if (argc !== 1) return arity('monitor')
        return this.#startMonitor()
      case 'client':
        return this.#client(argv)
      case 'command':
      case 'config':
        return this.#introspection(name, argv)
    }
    // A command that may block holds the connection's input back until it answers.
    if (!ConnectionSession.mayBlock(name)) return this.#session.execNow(argv, this.#context)
    this.#barrier = true
    return this.#session.exec(argv, this.#context, true)
  }

  /**
   * Redis's order before authentication: an unknown command or a wrong number of arguments is
   * reported as such, anything else is `NOAUTH`.
   */
  #unauthenticated(argv: Buffer[]): ReplyError {
    const info = resolveCommand(argv)
    if (info === undefined) return lookupError(argv)
    if (!checkArity(info, argv.length)) return arityError(info)
    return NOAUTH
  }

  /** The read-only token's verdict on a command (the permission module's, as over HTTP). */
  #readonlyRefusal(name: string, argv: Buffer[]): ReplyError | undefined {
    if (READONLY_CONNECTION.has(name)) return undefined
    if (name === 'client' && argv.length >= 2 && CLIENT_OWN.has(lower(argv[1]))) return undefined
    const refused = checkPermission(READONLY_PRINCIPAL, argv)
    return refused === null ? undefined : new ReplyError(refused)
  }

  /** Runs a command on the executor; rejections become error replies. */
  #call(argv: Command): Promise<Reply> {
    return this.#session.exec(argv, this.#context, false)
  }

  /**
   * AUTH [user] password. `default` is opened by the standard token (or `password`) only,
   * `readonly` by the read-only token, and other names (or `readonly` with another password)
   * are ACL users, checked by `authenticate` or the executor.
   */
  #auth(user: string | undefined, password: Buffer): Out | Promise<Out> {
    if (!this.#shared.locked) {
      if (user === undefined) {
        return AUTH_WITHOUT_PASSWORD
      }
      if (user === 'default') {
        this.#login('default')
        return OK
      }
    }
    const opens = this.#tokenOpens(password)
    if (user === undefined || user === 'default') {
      if (opens !== 'standard') return WRONGPASS
      this.#login('default')
      return OK
    }
    if (user === READONLY_RESP_USER && opens === 'readonly') {
      this.#login('readonly')
      return OK
    }
    const given = password.toString('utf8')
    this.#barrier = true
    return this.#checkUser(user, given).then((ok) => {
      if (!ok) return WRONGPASS
      this.#login({ user, password: given })
      return OK
    })
  }

  /** Which of the configured tokens `password` is. */
  #tokenOpens(password: Buffer): 'standard' | 'readonly' | undefined {
    const { options } = this.#shared
    if (options.password !== undefined) return secretsEqual(password, options.password) ? 'standard' : undefined
    const kind = options.auth?.authenticate(password.toString('utf8'))?.kind
    return kind === 'standard' || kind === 'readonly' ? kind : undefined
  }

  async #checkUser(user: string, password: string): Promise<boolean> {
    const check = this.#shared.options.authenticate
    if (check !== undefined) return check(user, password)
    if (!(await this.#executorAuth(user, password))) return false
    // A user without a password would open with any: with credentials configured it would hand
    // its rights to anyone who can reach the port, so it is refused (as ACL RESTTOKEN refuses it).
    return !this.#shared.locked || !(await this.#executorAuth(user, generateToken()))
  }

  async #executorAuth(user: string, password: string): Promise<boolean> {
    const reply = await this.#shared.executor.exec(['AUTH', user, password], { db: this.#db, client: this.#address, user, password })
    return reply instanceof Status && reply.text === 'OK'
  }

  #login(login: Login): void {
    this.#authenticated = true
    this.#unauthenticatedSince = undefined
    this.#decoder.authRequired = false
    this.#readonly = login === 'readonly'
    this.#user = typeof login === 'object' ? login.user : undefined
    this.#password = typeof login === 'object' ? login.password : undefined
    this.#context = this.#makeContext()
  }

  #hello(argv: Buffer[]): Out | Promise<Out> {
    let next = 1
    let chosen: RespVersion | undefined
    if (argv.length >= 2) {
      const version = strictInteger(argv[1])
      if (version === undefined) return PROTOCOL_VERSION_NOT_INTEGER
      if (version !== 2 && version !== 3) return NOPROTO
      chosen = version
      next = 2
    }
    let auth: [string, Buffer] | undefined
    let setName: Buffer | undefined
    for (let i = next; i < argv.length; i++) {
      const option = lower(argv[i])
      const left = argv.length - i - 1
      if (option === 'auth' && left >= 2) {
        auth = [argv[i + 1].toString('utf8'), argv[i + 2]]
        i += 2
      } else if (option === 'setname' && left >= 1) {
        setName = argv[i + 1]
        if (!validName(setName)) return BAD_NAME
        i += 1
      } else {
        return helloSyntax(argv[i].toString('utf8'))
      }
    }
    const finish = (): Out => {
      if (!this.#authenticated) {
        return HELLO_NOAUTH
      }
      if (setName !== undefined) this.#record.name = setName.toString('latin1')
      if (chosen !== undefined) this.#resp = chosen
      this.#context = this.#makeContext()
      // Encoded now, in the protocol just chosen: commands after it are already read.
      return new Raw(encodeFor(this.#resp, helloReply(this.#resp, { version: SERVER_VERSION, id: this.id })))
    }
    if (auth === undefined) return finish()
    const result = this.#auth(auth[0], auth[1])
    const after = (reply: Out): Out => (reply instanceof ReplyError ? reply : finish())
    return result instanceof Promise ? result.then(after) : after(result)
  }

  #reset(): Out {
    this.#multi = undefined
    this.#resp = 2
    this.#session.unwatch(this.#context)
    this.#stopStreams()
    this.#setDb(0)
    this.#record.name = ''
    // As Redis's clearClientConnectionState: REPLY OFF and a pending SKIP end (7.0), NO-TOUCH too (7.2).
    if (this.#record.reply !== 'skip') this.#record.reply = 'on'
    this.#record.noTouch = false
    this.#login('default')
    // As Redis: back to the default user, which needs its password again when it has one.
    if (this.#shared.locked) {
      this.#authenticated = false
      this.#unauthenticatedSince = Date.now()
      this.#decoder.authRequired = true
    }
    return RESET
  }

  /** Inside MULTI: Redis's queue-time checks, then QUEUED. A refused command dooms the EXEC. */
  #queue(argv: Buffer[]): Out {
    const refused = this.#check(argv)
    if (refused !== undefined) {
      this.#dirty = true
      return refused
    }
    ;(this.#multi as Command[]).push(argv)
    return QUEUED
  }

  /**
   * The queue-time verdict: the memory engine's own (`engine.checkQueued`, which also knows what
   * the engine does not implement and refuses with OOM over maxmemory), else the command table's
   * (unknown command, arity), as Redis.
   */
  #check(argv: Buffer[]): ReplyError | undefined {
    const engine = (this.#shared.executor as { engine?: { checkQueued?: unknown } }).engine
    if (engine !== undefined && typeof engine.checkQueued === 'function') {
      const verdict: unknown = engine.checkQueued.call(engine, argv.map((arg) => arg.toString('latin1')))
      return verdict instanceof ReplyError ? verdict : undefined
    }
    const info = resolveCommand(argv)
    if (info === undefined) return lookupError(argv)
    if (!checkArity(info, argv.length)) return arityError(info)
    return undefined
  }

  #exec(): Out | Promise<Out> {
    const queued = this.#multi
    if (queued === undefined) return EXEC_WITHOUT_MULTI
    this.#multi = undefined
    if (this.#dirty) {
      this.#session.unwatch(this.#context)
      return EXEC_ABORT
    }
    if (queued.some((command) => lower(command[0] as Buffer) === 'select')) this.#barrier = true
    const resp = this.#resp
    return this.#session.transaction(queued, this.#context).then((replies) => {
      if (!Array.isArray(replies)) return replies
      if (resp === 3) replies = resp3Transaction(queued, replies) as Reply[]
      // A SELECT that ran inside the transaction stays in effect afterwards, as in Redis.
      queued.forEach((command, i) => {
        if (lower(command[0] as Buffer) === 'select' && replies[i] === OK) {
          const db = strictInteger(command[1] as Buffer)
          if (db !== undefined) this.#setDb(db)
        }
      })
      return replies
    })
  }

  #subscribe(kind: 'channel' | 'pattern', names: Buffer[]): Out | Promise<Out> {
    const map = kind === 'channel' ? this.#channels : this.#patterns
    const type = kind === 'channel' ? 'subscribe' : 'psubscribe'
    const confirmations: Reply[] = []
    const waits: Promise<Error | undefined>[] = []
    for (const name of names) {
      const key = name.toString('latin1')
      if (!map.has(key)) {
        const entry: Subscribed = { name, abort: new AbortController() }
        map.set(key, entry)
        waits.push(this.#follow(kind, map, key, entry))
      }
      confirmations.push([bulk(type), name, this.#channels.size + this.#patterns.size])
    }
    const out = new Raw(pushFrames(this.#resp, confirmations as Reply[][]))
    if (waits.length === 0) return out
    return Promise.all(waits).then((errors) => {
      const failed = errors.find((error) => error !== undefined)
      return failed === undefined ? out : errorReply(failed)
    })
  }

  /**
   * Subscribes one channel on the executor. Resolves when the executor confirmed it (or failed
   * before that); messages then flow to this connection. A failure after the confirmation
   * closes the connection, as a client of a Redis that went away would see.
   */
  #follow(kind: 'channel' | 'pattern', map: Map<string, Subscribed>, key: string, entry: Subscribed): Promise<Error | undefined> {
    return new Promise((resolve) => {
      let confirmed = false
      const onEvent = (event: PubSubEvent): void => {
        switch (event.type) {
          case 'subscribe':
          case 'psubscribe':
            confirmed = true
            resolve(undefined)
            return
          case 'message':
            if (map.get(key) === entry) this.#push(pushFrame(this.#resp, [bulk('message'), event.channel, event.message]))
            return
          case 'pmessage':
            if (map.get(key) === entry) this.#push(pushFrame(this.#resp, [bulk('pmessage'), event.pattern, event.channel, event.message]))
        }
      }
      this.#shared.executor.subscribe({ kind, names: [entry.name] }, onEvent, entry.abort.signal, this.#context).then(
        () => resolve(undefined),
        (error: unknown) => {
          if (map.get(key) === entry) map.delete(key)
          if (!confirmed) resolve(error instanceof Error ? error : new Error(String(error)))
          else this.#socket.destroy()
        },
      )
    })
  }

  #unsubscribe(kind: 'channel' | 'pattern', names: Buffer[]): Out {
    const map = kind === 'channel' ? this.#channels : this.#patterns
    const type = bulk(kind === 'channel' ? 'unsubscribe' : 'punsubscribe')
    const targets = names.length > 0 ? names : [...map.values()].map((entry) => entry.name)
    if (targets.length === 0) return new Raw(pushFrame(this.#resp, [type, null, this.#channels.size + this.#patterns.size]))
    const replies: Reply[] = []
    for (const name of targets) {
      const key = name.toString('latin1')
      const entry = map.get(key)
      if (entry !== undefined) {
        map.delete(key)
        entry.abort.abort()
      }
      replies.push([type, name, this.#channels.size + this.#patterns.size])
    }
    return new Raw(pushFrames(this.#resp, replies as Reply[][]))
  }

  #startMonitor(): Out {
    if (this.#monitor !== undefined) return OK
    const abort = new AbortController()
    this.#monitor = abort
    this.#shared.executor
      .monitor((event) => this.#push(encodeReply(new Status(event.line))), abort.signal, this.#context)
      .catch(() => {
        if (this.#monitor === abort) this.#socket.destroy()
      })
    return OK
  }

  /**
   * CLIENT, from the listener's registry (resp/client-command.ts); the tracking subcommands are
   * answered by resp/client-tracking.ts (TRACKING ON is refused).
   */
  #client(argv: Buffer[]): Out | Promise<Out> | typeof NO_REPLY {
    if (argv.length >= 2) {
      const tracking = clientTrackingReply(lower(argv[1]), argv)
      if (tracking !== undefined) return tracking
    }
    const registry = this.#shared.registry
    const outcome = clientCommand(
      {
        record: this.#record,
        registry,
        userExists: userExistsVia(registry, (command) => this.#call(command)),
        noTouchSupported: (this.#shared.executor as { engine?: unknown }).engine !== undefined,
      },
      argv,
    )
    this.#context = this.#makeContext() // NO-TOUCH travels in the context
    return outcome === FORWARD ? this.#call(argv) : outcome
  }

  /**
   * COMMAND and CONFIG go to the executor; if it does not know them, an empty answer keeps
   * redis-cli and redis-benchmark (which ask at startup) going.
   */
  async #introspection(name: string, argv: Buffer[]): Promise<Out> {
    const reply = await this.#call(argv)
    if (!(reply instanceof ReplyError) || !/^ERR unknown (sub)?command/.test(reply.message)) return reply
    const sub = argv.length > 1 ? lower(argv[1]) : ''
    if (name === 'command' && (sub === '' || sub === 'docs' || sub === 'info')) return []
    if (name === 'config' && sub === 'get') return []
    return reply
  }
}

/**
 * The first `count` slots' bytes (`bytes` in all) in one buffer, for one write. Pipelined replies
 * are mostly a few bytes each, which a loop copies faster than a native call per reply.
 */
function joinReady(slots: readonly Slot[], count: number, bytes: number): Buffer {
  const chunk = Buffer.allocUnsafe(bytes)
  let offset = 0
  for (let i = 0; i < count; i++) {
    const out = slots[i].out as Buffer
    writeBytes(chunk, offset, out)
    offset += out.length
  }
  return chunk
}

/** Redis accepts client names of printable ASCII without spaces (`!` … `~`). */
function validName(name: Buffer): boolean {
  for (const byte of name) if (byte < 0x21 || byte > 0x7e) return false
  return true
}

/** Whether `host` is a loopback address: only this machine can connect. */
function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host) || /^::ffff:127\.\d+\.\d+\.\d+$/i.test(host)
}

/**
 * Serves RESP2 on TCP (or TLS with `tls`) in front of `executor`. Resolves once listening.
 * Throws when both `password` and `auth` are given, and when neither is and `host` is not a
 * loopback address.
 * @public
 */
export async function serveResp(executor: Executor, options: RespServerOptions = {}): Promise<RespServer> {
  if (options.password !== undefined && options.auth !== undefined) {
    throw new Error('serveResp: give password or auth, not both (both would be the default user\'s password)')
  }
  const locked = options.password !== undefined || options.auth !== undefined
  const host = options.host ?? '127.0.0.1'
  if (!locked && !isLoopback(host)) {
    throw new Error(
      `serveResp: refusing to listen on ${host} without credentials: anyone who can reach the port could run every command; ` +
        'give password or auth, or bind a loopback address',
    )
  }
  const limits = resolveLimits(options)
  const shared: Shared = {
    executor,
    options,
    locked,
    databases: options.databases ?? 16,
    maxPending: options.maxPendingReplies ?? 1024,
    limits,
    registry: new ClientRegistry(),
    pendingWrites: new PendingWrites(),
  }
  const clients = new Set<Client>()
  /** Connections handed to `options.http`: still this port's, closed with it. */
  const handed = new Set<net.Socket>()
  /** Connections whose first bytes have not come yet: they owe nothing, so a close cuts them at once. */
  const undecided = new Set<net.Socket>()
  let connections = 0
  let onEmpty: (() => void) | undefined
  const removeBusyService = installBusyService(executor, () => {
    // Replies already made this turn go out first: a connection owing none can be answered BUSY.
    shared.pendingWrites.flushNow()
    return clients
  })
  const admit = (socket: net.Socket, record: ClientRecord): void => {
    const client = new Client(shared, socket, record)
    clients.add(client)
    socket.once('close', () => {
      clients.delete(client)
      if (clients.size === 0 && handed.size === 0) onEmpty?.()
    })
  }
  const handOver = (socket: net.Socket, record: ClientRecord): void => {
    shared.registry.remove(record)
    if (options.http === undefined) return void socket.destroy()
    handed.add(socket)
    socket.once('close', () => {
      handed.delete(socket)
      if (clients.size === 0 && handed.size === 0) onEmpty?.()
    })
    options.http.emit('connection', socket)
  }
  // HTTP or RESP: the first bytes tell (resp/protocol-sniff.ts); a silent client of a listener
  // with credentials gets the authentication deadline, as it would as a RESP client.
  const accept = (socket: net.Socket): void => {
    // Listed (and given its id) from now, as Redis lists a client from accept.
    const record = shared.registry.add(socket)
    socket.once('close', () => {
      shared.registry.remove(record)
      undecided.delete(socket)
    })
    undecided.add(socket)
    sniffProtocol(socket, locked ? limits.authTimeout : 0, (protocol) => {
      undecided.delete(socket)
      if (protocol === 'http') handOver(socket, record)
      else admit(socket, record)
    })
  }
  const overTls = options.tls !== undefined
  const server = overTls ? tls.createServer({ handshakeTimeout: limits.authTimeout, ...options.tls }) : net.createServer()
  // The cap counts every socket, TLS handshakes included, and is checked before anything is read.
  server.on('connection', (socket: net.Socket) => {
    connections++
    socket.once('close', () => connections--)
    if (connections > limits.maxClients) refuse(socket, overTls)
    else if (!overTls) accept(socket)
  })
  if (overTls) server.on('secureConnection', accept)
  // A failed TLS handshake closes that socket; nothing to report to the other clients.
  if (options.tls !== undefined) server.on('tlsClientError', () => {})
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 6379, host, () => {
      server.removeListener('error', reject)
      resolve()
    })
  })
  // Out of descriptors (EMFILE) accept fails: that connection is lost, the listener goes on.
  server.on('error', () => {})
  const address = server.address() as AddressInfo
  const sweep = setInterval(() => {
    const now = Date.now()
    for (const client of clients) client.sweep(now)
  }, sweepInterval(limits))
  sweep.unref()
  let closing: Promise<void> | undefined
  const drained = (deadline: number): Promise<void> =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, deadline)
      onEmpty = () => {
        clearTimeout(timer)
        resolve()
      }
      if (clients.size === 0 && handed.size === 0) onEmpty()
    })
  return {
    address,
    get clients() {
      return shared.registry.size
    },
    maxClients: limits.maxClients,
    close(closeOptions: RespCloseOptions = {}) {
      closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()))
        for (const socket of undecided) socket.destroy()
        const deadline = closeOptions.deadline ?? 0
        if (deadline > 0) {
          for (const client of clients) client.shutdown()
          options.http?.closeIdleConnections()
          await drained(deadline)
        }
        clearInterval(sweep)
        removeBusyService()
        shared.registry.pause.unpause()
        for (const client of clients) client.destroy()
        for (const socket of handed) socket.destroy()
        await stopped
      })()
      return closing
    },
  }
}

const MAX_CLIENTS_ERROR = '-ERR max number of clients reached\r\n'

/** Over the cap: Redis's error (not over TLS, whose client could not read it), then closed. */
function refuse(socket: net.Socket, overTls: boolean): void {
  socket.on('error', () => {})
  if (overTls) {
    socket.destroy()
    return
  }
  socket.end(MAX_CLIENTS_ERROR, () => socket.destroy())
}

const DEFAULT_MAX_CLIENTS = 10_000

/** The defaults of {@link RespServerOptions}' limits, and a check of the ones given. */
function resolveLimits(options: RespServerOptions): Limits {
  const count = (name: string, value: number | undefined, fallback: number, minimum = 0): number => {
    if (value === undefined) return fallback
    if (!Number.isSafeInteger(value) || value < minimum) {
      throw new Error(`serveResp: ${name} must be an integer of at least ${minimum}, not ${value}`)
    }
    return value
  }
  const outputClass = (name: string, value: OutputBufferLimit | undefined, fallback: OutputBufferLimit): OutputBufferLimit => {
    if (value === undefined) return fallback
    return {
      hard: count(`${name}.hard`, value.hard, 0),
      soft: count(`${name}.soft`, value.soft, 0),
      softMs: count(`${name}.softMs`, value.softMs, 0),
    }
  }
  const pushHard = count('maxPushBuffer', options.maxPushBuffer, 32 * MiB)
  return {
    maxClients: count('maxClients', options.maxClients, defaultMaxClients(), 1),
    authTimeout: count('authTimeout', options.authTimeout, 10_000, 1),
    idleTimeout: count('idleTimeout', options.idleTimeout, 0),
    sendTimeout: count('sendTimeout', options.sendTimeout, 30_000),
    maxQueryBuffer: count('maxQueryBuffer', options.maxQueryBuffer, 1024 * MiB, 1),
    normal: outputClass('outputBufferLimits.normal', options.outputBufferLimits?.normal, { hard: 256 * MiB, soft: 64 * MiB, softMs: 60_000 }),
    pubsub: outputClass('outputBufferLimits.pubsub', options.outputBufferLimits?.pubsub, { hard: pushHard, soft: 8 * MiB, softMs: 60_000 }),
  }
}

const MiB = 1024 * 1024

/**
 * 10000 as Redis, or half the open-file limit when that is lower: the other half stays for HTTP
 * clients, the backend and files. Redis lowers `maxclients` to its limit the same way.
 */
function defaultMaxClients(): number {
  const limit = openFileLimit()
  return limit === undefined ? DEFAULT_MAX_CLIENTS : Math.max(1, Math.min(DEFAULT_MAX_CLIENTS, Math.floor(limit / 2)))
}

/** The soft `RLIMIT_NOFILE` of this process, where /proc says it (Linux). */
function openFileLimit(): number | undefined {
  try {
    const line = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))
    return line === null ? undefined : Number(line[1])
  } catch {
    return undefined
  }
}

/** How often connections are checked: a quarter of the shortest time limit, at most once a second. */
function sweepInterval(limits: Limits): number {
  const times = [limits.authTimeout, limits.idleTimeout, limits.sendTimeout, limits.normal.softMs, limits.pubsub.softMs]
  const shortest = Math.min(...times.filter((time) => time > 0))
  return Math.max(10, Math.min(1000, Math.floor(shortest / 4)))
}
