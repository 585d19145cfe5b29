/**
 * The RESP listener's registry of connected clients: what `CLIENT LIST`, `CLIENT INFO`,
 * `CLIENT KILL` and `CLIENT PAUSE` act on.
 *
 * Each connection registers a {@link ClientRecord} when it is accepted and leaves when its socket
 * closes. The record holds what the CLIENT subcommands set (name, library, reply mode …); what
 * only the connection knows (database, subscriptions, buffers) it reports through
 * {@link ClientProbe} when a listing asks, so nothing is copied on the hot path.
 *
 * Lines are formatted as Redis 7.0.15's `catClientInfoString` (networking.c) writes them, with the
 * two fields Redis 7.2 appends (`lib-name`, `lib-ver`, set by `CLIENT SETINFO`).
 */

import type net from 'node:net'
import { ClientPause } from './client-pause.js'
import { resolveCommand } from '../../commands/lookup.js'

/** What a connection reports about itself when a listing asks. */
export interface ClientProbe {
  readonly db: number
  /** Channels, patterns and shard channels subscribed. */
  readonly sub: number
  readonly psub: number
  readonly ssub: number
  /** Commands queued by MULTI, or -1 outside a transaction. */
  readonly multi: number
  /** Bytes of the arguments queued by MULTI. */
  readonly multiMem: number
  /** Bytes received that are not yet whole commands. */
  readonly qbuf: number
  /** Bytes of the arguments of the command running now (0 between commands). */
  readonly argvMem: number
  /** Replies (or pieces) waiting to be written, and their bytes, socket buffer included. */
  readonly oll: number
  readonly omem: number
  /** The ACL user, as Redis names it (`default` unless another user logged in). */
  readonly user: string
  /** Protocol version: 2, or 3 after `HELLO 3`. */
  readonly resp: number
  /** When the client last sent anything (ms since the epoch). */
  readonly lastInteraction: number
  readonly monitor: boolean
  /** Inside MULTI. */
  readonly inMulti: boolean
  /** Waiting in a blocking command (or held by CLIENT PAUSE). */
  readonly blocked: boolean
  /** A watched key was touched: the EXEC will fail (Redis's CLIENT_DIRTY_CAS). */
  readonly dirtyCas: boolean
  /** Will close once its owed replies are out (QUIT, a protocol error, KILL of itself). */
  readonly closing: boolean
  /** Input is being read (Redis's read handler installed). */
  readonly reading: boolean
}

/** What the registry may do to a connection. */
export interface ClientHandle {
  readonly socket: net.Socket
  probe(): ClientProbe
  /** Closes the connection at once, dropping its owed output (Redis's `freeClient`). */
  kill(): void
  /** Closes the connection after the reply of the command running now (CLIENT KILL of itself). */
  closeAfterReply(): void
  /** CLIENT UNBLOCK: ends the connection's waiting blocking call; true when one was waiting. */
  unblock?(error: boolean): boolean
}

/** CLIENT REPLY: `on`, `off`, or `skip` (the next command's reply only). */
export type ReplyMode = 'on' | 'off' | 'skip-next' | 'skip'

/** Redis's client types, as LIST and KILL filter on them. */
export type ClientType = 'normal' | 'master' | 'replica' | 'pubsub'

/** Longer than any subcommand name: such a second word is not kept, {@link NO_SUBCOMMAND} stands for it. */
const SUBCOMMAND_NAME_MAX = 64
const NO_SUBCOMMAND = Buffer.alloc(0)

/** One connected client: its identity and the state CLIENT subcommands set. */
export class ClientRecord {
  name = ''
  libName = ''
  libVer = ''
  /**
   * The name and first argument of the last command read, kept so that its full name is looked
   * up only when a listing asks ({@link ClientRecord.lastCommand}), not once per command.
   */
  #lastName: Buffer | undefined
  #lastSub: Buffer | undefined
  noEvict = false
  noTouch = false
  reply: ReplyMode = 'on'
  readonly createdAt = Date.now()

  constructor(
    readonly id: number,
    /** The connection's: until its first bytes arrive (and show it is no HTTP request), a stand-in. */
    public handle: ClientHandle,
  ) {}

  /**
   * Full name of the last command read (`client|list`): `NULL` before the first and after an
   * unknown one, as Redis's `lastcmd` (set from `lookupCommand` for every command it reads).
   */
  get lastCommand(): string {
    if (this.#lastName === undefined) return 'NULL'
    const argv = this.#lastSub === undefined ? [this.#lastName] : [this.#lastName, this.#lastSub]
    return resolveCommand(argv)?.name ?? 'NULL'
  }

  /** Records the command being run (a reference to its first two words, nothing looked up). */
  noteCommand(argv: readonly Buffer[]): void {
    this.#lastName = argv[0]
    // Only a subcommand name is looked up in the second word: a long one (a value) names none.
    this.#lastSub = argv.length < 2 ? undefined : argv[1].length <= SUBCOMMAND_NAME_MAX ? argv[1] : NO_SUBCOMMAND
  }

  /** `ip:port` of the peer, as Redis's `getClientPeerId`. */
  get addr(): string {
    return endpoint(this.handle.socket.remoteAddress, this.handle.socket.remotePort)
  }

  /** `ip:port` the peer connected to, as Redis's `getClientSockname`. */
  get laddr(): string {
    return endpoint(this.handle.socket.localAddress, this.handle.socket.localPort)
  }

  /** Whether this command's reply is dropped (REPLY OFF, or the command after REPLY SKIP). */
  get muted(): boolean {
    return this.reply === 'off' || this.reply === 'skip'
  }

  /** After each command: SKIP mutes exactly the one command that follows it. */
  commandDone(): void {
    if (this.reply === 'skip') this.reply = 'on'
    else if (this.reply === 'skip-next') this.reply = 'skip'
  }

  type(probe: ClientProbe = this.handle.probe()): ClientType {
    // MONITOR clients are replicas inside Redis but listed as normal, as getClientType does.
    return probe.sub + probe.psub + probe.ssub > 0 ? 'pubsub' : 'normal'
  }
}

/** A connection that has sent nothing yet: what Redis lists for a client just accepted. */
function freshConnection(socket: net.Socket): ClientHandle {
  const since = Date.now()
  const probe: ClientProbe = {
    db: 0, sub: 0, psub: 0, ssub: 0, multi: -1, multiMem: 0, qbuf: 0, argvMem: 0, oll: 0, omem: 0, user: 'default', resp: 2,
    lastInteraction: since, monitor: false, inMulti: false, blocked: false, dirtyCas: false, closing: false, reading: true,
  }
  return { socket, probe: () => probe, kill: () => socket.destroy(), closeAfterReply: () => socket.destroy() }
}

function endpoint(address: string | undefined, port: number | undefined): string {
  if (address === undefined) return '?:0'
  const host = address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address
  return `${host}:${port ?? 0}`
}

/** Every connected client of one listener, in the order they connected. */
export class ClientRegistry {
  readonly #clients = new Map<number, ClientRecord>()
  #nextId = 1
  /** CLIENT PAUSE, shared by every connection of the listener. */
  readonly pause = new ClientPause()
  /**
   * Registers a new connection with the next id (ids only grow, as Redis's), at accept time;
   * without a handle, it is listed as a fresh connection that has sent nothing yet.
   */
  add(socket: net.Socket, handle: ClientHandle = freshConnection(socket)): ClientRecord {
    const record = new ClientRecord(this.#nextId++, handle)
    this.#clients.set(record.id, record)
    return record
  }

  remove(record: ClientRecord): void {
    this.#clients.delete(record.id)
  }

  get(id: number): ClientRecord | undefined {
    return this.#clients.get(id)
  }

  get size(): number {
    return this.#clients.size
  }

  [Symbol.iterator](): IterableIterator<ClientRecord> {
    return this.#clients.values()
  }
}

/**
 * One `CLIENT LIST` / `CLIENT INFO` line, without its newline. `fd=-1`: the listener does not
 * expose its sockets' descriptors. `rbs`/`rbp`/`obl` are 0: replies are not staged in a fixed
 * buffer here, everything pending is counted in `oll`/`omem`.
 */
export function formatClientInfo(record: ClientRecord, now = Date.now()): string {
  const probe = record.handle.probe()
  const seconds = (since: number): number => Math.max(0, Math.floor((now - since) / 1000))
  const totalMem = probe.qbuf + probe.argvMem + probe.multiMem + probe.omem
  const events = (probe.reading ? 'r' : '') + (record.handle.socket.writableLength > 0 ? 'w' : '')
  return (
    `id=${record.id} addr=${record.addr} laddr=${record.laddr} fd=-1 name=${record.name} ` +
    `age=${seconds(record.createdAt)} idle=${seconds(probe.lastInteraction)} flags=${flags(record, probe)} ` +
    `db=${probe.db} sub=${probe.sub} psub=${probe.psub} ssub=${probe.ssub} multi=${probe.multi} ` +
    `qbuf=${probe.qbuf} qbuf-free=0 argv-mem=${probe.argvMem} multi-mem=${probe.multiMem} rbs=0 rbp=0 ` +
    `obl=0 oll=${probe.oll} omem=${probe.omem} tot-mem=${totalMem} events=${events} cmd=${record.lastCommand} ` +
    `user=${probe.user} redir=-1 resp=${probe.resp} lib-name=${record.libName} lib-ver=${record.libVer}`
  )
}

/** The `flags=` letters, in Redis's order; `N` when none applies. */
function flags(record: ClientRecord, probe: ClientProbe): string {
  let out = ''
  if (probe.monitor) out += 'O'
  if (probe.sub + probe.psub + probe.ssub > 0) out += 'P'
  if (probe.inMulti) out += 'x'
  if (probe.blocked) out += 'b'
  if (probe.dirtyCas) out += 'd'
  if (probe.closing) out += 'c'
  if (record.noEvict) out += 'e'
  if (record.noTouch) out += 'T'
  return out === '' ? 'N' : out
}
