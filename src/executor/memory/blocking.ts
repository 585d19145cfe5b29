/**
 * Clients blocked on keys (Redis 7.0 `blocked.c`): BLPOP and its family, BZPOPMIN and its family,
 * XREAD and XREADGROUP with BLOCK, and WAIT (blocked on no key, only its timeout ends it).
 *
 * A blocking command that finds nothing to serve, on a session that may block, registers here
 * ({@link Blocking.block}) and its caller waits on {@link BlockedClient.reply}. Clients blocked on
 * a key wait in FIFO order. A key becomes ready when something stores or deletes it, or changes a
 * value in place (the engine reports it, see `Engine.keyChanged`); the ready keys are served in
 * the order they became ready once the command, transaction or script that readied them ends
 * ({@link Blocking.serveReady}, Redis's `handleClientsBlockedOnKeys`), each by re-running the
 * command's non-blocking form for the one key ({@link BlockSpec.serve}).
 */
import { NULL_ARRAY, ReplyError } from '../../reply.js'
import type { Out, Session } from './command.js'
import type { Database } from './keyspace.js'

/** What a client waits for: the type of value that can serve it, or WAIT's replicas. */
export type BlockKind = 'list' | 'zset' | 'stream' | 'wait' | 'waitaof'

/** What a blocking command that found nothing leaves to the registry. */
export interface BlockSpec {
  readonly kind: BlockKind
  /** The keys it waits on, as given (duplicates allowed; each is waited on once). */
  readonly keys: readonly string[]
  /** Milliseconds to wait; 0 waits until served, unblocked or disconnected. */
  readonly timeout: number
  /** The reply when the time runs out (or CLIENT UNBLOCK … TIMEOUT). */
  readonly timedOut: Out
  /**
   * XREADGROUP: a blocked group reader gets an error when its stream is deleted or replaced by
   * another type (Redis's `unblockDeletedStreamReadgroupClients`).
   */
  readonly groupReader?: boolean
  /**
   * Serves the client from `key`, which holds a value of {@link BlockSpec.kind}: the reply, or
   * undefined when there is still nothing for it (it stays blocked, in its place).
   */
  serve(key: string): Out | undefined
}

/** XREADGROUP's error when its stream went away while it waited (Redis 7.0, `blocked.c`). */
export const STREAM_DELETED = new ReplyError('UNBLOCKED the stream key no longer exists')
/** XREADGROUP's error when its group went away while it waited (Redis 7.0, `blocked.c`). */
export const GROUP_DELETED = new ReplyError('NOGROUP the consumer group this client was blocked on no longer exists')
/** CLIENT UNBLOCK … ERROR. */
export const UNBLOCKED_BY_CLIENT = new ReplyError('UNBLOCKED client unblocked via CLIENT UNBLOCK')
/**
 * The errors a blocked call ends with that no command run made (the ones a served command's own
 * run makes are counted by that run): each counts as an error reply and a failed call of the
 * blocking command, as Redis's `updateStatsOnUnblock` counts it.
 */
const UNBLOCK_ERRORS: ReadonlySet<Out> = new Set<Out>([STREAM_DELETED, GROUP_DELETED, UNBLOCKED_BY_CLIENT])

/** One blocked call. */
export class BlockedClient {
  /** Settles with the reply the call gets: served, timed out, unblocked, or undefined when cancelled. */
  readonly reply: Promise<Out | undefined>
  settle!: (out: Out | undefined) => void
  timer: ReturnType<typeof setTimeout> | undefined

  constructor(
    readonly session: Session,
    readonly db: number,
    readonly spec: BlockSpec,
    /** The distinct keys it is registered on. */
    readonly keys: readonly string[],
    /** The blocking command's name (`xreadgroup`), whose failed calls an unblock error counts. */
    readonly command: string,
  ) {
    this.reply = new Promise((resolve) => {
      this.settle = resolve
    })
  }
}

/** The ready list: keys to serve, in the order they became ready, each once. */
interface ReadyKey {
  readonly db: number
  readonly key: string
}

export class Blocking {
  /** Per database index: the clients blocked on each key, in the order they blocked. */
  private readonly waiting: Map<string, Set<BlockedClient>>[]
  /** Per database index: the keys in {@link Blocking.ready}, so a key is listed once. */
  private readonly readyKeys: Set<string>[]
  private ready: ReadyKey[] = []
  private readonly bySession = new Map<number, BlockedClient>()
  private serving = false

  /**
   * @param valueKind the kind of value at a key now (after lazy expiry), or undefined when none.
   * @param onCountChange called when the registry goes from empty to not, or back.
   * @param onUnblockError called when a blocked call ends with an error no command run counted.
   */
  constructor(
    databases: number,
    private readonly valueKind: (db: number, key: string) => BlockKind | 'other' | undefined,
    private readonly onCountChange: () => void,
    private readonly onUnblockError: (command: string, error: ReplyError) => void = () => {},
  ) {
    this.waiting = Array.from({ length: databases }, () => new Map())
    this.readyKeys = Array.from({ length: databases }, () => new Set())
  }

  /** Number of blocked clients (INFO's `blocked_clients`). */
  get count(): number {
    return this.bySession.size
  }

  /** True when some key is ready to be served. */
  get hasReady(): boolean {
    return this.ready.length !== 0
  }

  /** The blocked call of `session`, if any. */
  blockedCall(sessionId: number): BlockedClient | undefined {
    return this.bySession.get(sessionId)
  }

  /** Blocks `session` on the keys of `spec` in database `db`; its reply settles later. */
  block(session: Session, db: number, spec: BlockSpec, command = ''): BlockedClient {
    const previous = this.bySession.get(session.id)
    if (previous !== undefined) this.finish(previous, undefined) // one blocked call per connection
    const keys = [...new Set(spec.keys)]
    const client = new BlockedClient(session, db, spec, keys, command)
    const waiting = this.waiting[db]
    for (const key of keys) {
      let clients = waiting.get(key)
      if (clients === undefined) waiting.set(key, (clients = new Set()))
      clients.add(client)
    }
    this.bySession.set(session.id, client)
    if (spec.timeout > 0) client.timer = setTimeout(() => this.finish(client, spec.timedOut), spec.timeout)
    if (this.bySession.size === 1) this.onCountChange()
    return client
  }

  /** Marks `key` of database `db` ready when a client waits on it (Redis's `signalKeyAsReady`). */
  signal(db: Database, key: string): void {
    const index = db.index
    if (!this.waiting[index].has(key)) return
    const listed = this.readyKeys[index]
    if (listed.has(key)) return
    listed.add(key)
    this.ready.push({ db: index, key })
  }

  /** Marks every key waited on in database `index` ready (FLUSHDB, FLUSHALL, SWAPDB). */
  signalDatabase(index: number): void {
    const listed = this.readyKeys[index]
    for (const key of this.waiting[index].keys()) {
      if (listed.has(key)) continue
      listed.add(key)
      this.ready.push({ db: index, key })
    }
  }

  /**
   * Serves the clients of every ready key, keys in the order they became ready and clients of
   * a key in the order they blocked. Serving may ready more keys (BLMOVE pushes to its
   * destination): they are served in the same pass, as Redis does.
   */
  serveReady(): void {
    if (this.serving) return
    this.serving = true
    try {
      while (this.ready.length !== 0) {
        const batch = this.ready
        this.ready = []
        for (const { db, key } of batch) {
          this.readyKeys[db].delete(key)
          this.serveKey(db, key)
        }
      }
    } finally {
      this.serving = false
    }
  }

  private serveKey(db: number, key: string): void {
    const clients = this.waiting[db].get(key)
    if (clients === undefined) return
    let kind = this.valueKind(db, key)
    for (const client of [...clients]) {
      if (!clients.has(client)) continue // served or gone meanwhile
      if (client.spec.kind !== kind) {
        // A group reader whose stream is gone (or replaced by another type) gets an error.
        if (client.spec.groupReader === true && kind !== 'stream') this.finish(client, STREAM_DELETED)
        continue
      }
      const out = client.spec.serve(key)
      if (out === undefined) continue
      this.finish(client, out)
      kind = this.valueKind(db, key)
      // The value was used up (a list or sorted set is deleted once empty): the rest wait on.
      if (kind === undefined && client.spec.kind !== 'stream') break
    }
  }

  /**
   * Serves the clients blocked on no key with `kind` (WAITAOF once the AOF synced further), in
   * the order they blocked: each whose {@link BlockSpec.serve} answers now is answered.
   */
  serveKeyless(kind: BlockKind): void {
    for (const client of [...this.bySession.values()]) {
      if (client.spec.kind !== kind || client.keys.length !== 0) continue
      const out = client.spec.serve('')
      if (out !== undefined) this.finish(client, out)
    }
  }

  /**
   * CLIENT UNBLOCK: ends the blocked call of session `id` with its timeout reply, or with
   * {@link UNBLOCKED_BY_CLIENT} when `error`. True when that session was blocked.
   */
  unblock(id: number, error: boolean): boolean {
    const client = this.bySession.get(id)
    if (client === undefined) return false
    this.finish(client, error ? UNBLOCKED_BY_CLIENT : client.spec.timedOut)
    return true
  }

  /** Cancels the blocked call of session `id` without a reply (its connection is gone). */
  cancel(id: number): void {
    const client = this.bySession.get(id)
    if (client !== undefined) this.finish(client, undefined)
  }

  /** Cancels every blocked call (the engine closes). */
  cancelAll(): void {
    for (const client of [...this.bySession.values()]) this.finish(client, undefined)
  }

  private finish(client: BlockedClient, out: Out | undefined): void {
    if (this.bySession.get(client.session.id) !== client) return
    this.bySession.delete(client.session.id)
    if (client.timer !== undefined) clearTimeout(client.timer)
    const waiting = this.waiting[client.db]
    for (const key of client.keys) {
      const clients = waiting.get(key)
      if (clients === undefined) continue
      clients.delete(client)
      if (clients.size === 0) waiting.delete(key)
    }
    if (out instanceof ReplyError && UNBLOCK_ERRORS.has(out)) this.onUnblockError(client.command, out)
    client.settle(out)
    if (this.bySession.size === 0) this.onCountChange()
  }
}

/** The reply of a blocking list or sorted-set command that may not block (MULTI, scripts) or timed out. */
export const TIMED_OUT_ARRAY: Out = NULL_ARRAY
