/**
 * `restis --workers N`: one primary process and N worker processes sharing the HTTP (and RESP)
 * port through `node:cluster`, for a gateway over the socket executor. The gateway holds no data
 * there (the redis-server does), so each worker runs a gateway of its own; the in-memory engine
 * keeps its data in one process and stays single-process (docs/benchmarks.md).
 *
 * What the workers must agree on goes through the primary:
 * - the standard and read-only tokens and the secret ACL users' tokens are derived from: chosen
 *   once by the primary and sent to each worker over the IPC channel (never in argv or env);
 * - ACL users' tokens: a token issued (`ACL RESTTOKEN`) or marked for a re-check (`ACL SETUSER`,
 *   `DELUSER`, `LOAD`) in one worker is applied in every other worker before the response that
 *   caused it is sent, so the client can use the token at once on any connection. The primary
 *   keeps the issued ones (user and password, in memory, as every worker's store does) and hands
 *   them to workers started later, which confirm each against the server on its first use.
 *
 * Limits and usage counters (daily request limit, `onUsage` totals) and the sync-token counter
 * stay per worker.
 */

import cluster, { type Worker } from 'node:cluster'
import { randomBytes } from 'node:crypto'
import { TokenStore, type TokenStoreOptions } from './auth/tokens.js'
import { createGateway, type Gateway } from './rest/gateway.js'
import type { Executor } from './executor/executor.js'

/** Where a process listens: the HTTP port, and the RESP port with `--resp-port`. */
export interface Listening {
  readonly port: number
  readonly respPort?: number
}

/** A process's listeners, ready to be closed. */
export interface Serving extends Listening {
  close(): Promise<void>
}

/** What every worker's token store is built from. */
export interface TokenSettings {
  readonly token: string
  readonly readonlyToken?: string
  /** The gateway's limits (`maxPipelineRows`, `maxReplyBytes`), the same in every worker. */
  readonly gatewayLimits?: { readonly maxPipelineRows: number; readonly maxReplyBytes: number }
  /** How long requests in flight get to finish on shutdown, ms. */
  readonly shutdownTimeout?: number
}

/** Serves a gateway built by `gatewayFor` over the executor it creates; resolves once listening. */
export type Serve<Options> = (options: Options, gatewayFor: (executor: Executor) => Gateway) => Promise<Serving>

interface Credentials {
  readonly user: string
  readonly password: string
}

type TokenChange = ({ readonly kind: 'issue' } & Credentials) | { readonly kind: 'stale'; readonly users?: readonly string[] }

type ToPrimary =
  | { readonly restis: 'hello' }
  | { readonly restis: 'listening'; readonly port: number; readonly respPort?: number }
  | { readonly restis: 'failed'; readonly message: string }
  | { readonly restis: 'share'; readonly id: number; readonly change: TokenChange }
  | { readonly restis: 'applied'; readonly id: number }

type ToWorker<Options> =
  | { readonly restis: 'config'; readonly options: Options; readonly userTokenSecret: string; readonly issued: readonly Credentials[] }
  | { readonly restis: 'apply'; readonly id: number; readonly change: TokenChange }
  | { readonly restis: 'shared'; readonly id: number }
  | { readonly restis: 'stop' }

/** Unexpected exits tolerated within RESTART_WINDOW_MS; one more and the primary gives up. */
const MAX_RESTARTS = 4
const RESTART_WINDOW_MS = 30_000
const FIRST_RESTART_DELAY_MS = 100
const MAX_RESTART_DELAY_MS = 5_000
/** How long workers get to close their connections, beyond the shutdown timeout, before they are killed. */
const STOP_TIMEOUT_MS = 5_000
/** Longest a response waits for the other workers to apply a token change. */
const SHARE_TIMEOUT_MS = 2_000
/** ACL users' tokens the primary keeps for workers started later (TokenStore's own default bound). */
const MAX_KEPT_USER_TOKENS = 10_000

/**
 * The primary: forks `count` workers, calls `onListening` once all of them listen, replaces
 * workers that die (with a growing delay, giving up when they keep dying), and stops them all on
 * SIGINT/SIGTERM. Workers exit by themselves if the primary disappears (their IPC channel closes).
 */
export function runPrimary<Options extends TokenSettings>(options: Options, count: number, onListening: (at: Listening) => void): void {
  const userTokenSecret = randomBytes(32).toString('base64url')
  /** Issued ACL users' tokens, least recently issued first, keyed by user and password. */
  const issued = new Map<string, Credentials>()
  const live = new Set<Worker>()
  /** Workers that have their configuration, so they take token changes. */
  const configured = new Set<Worker>()
  /** Token changes on their way to every worker, by primary-side id. */
  const broadcasts = new Map<number, { origin: Worker; originId: number; waiting: Set<Worker> }>()
  let nextBroadcast = 0
  const starting = new Set<Worker>()
  let listening = false
  /** A worker said why it could not start (a taken port): said once, not once per worker. */
  let failureReported = false
  let exits: number[] = []
  const restartTimers = new Set<NodeJS.Timeout>()
  let stopping = false
  let exitCode = 0

  const send = (worker: Worker, message: ToWorker<Options>): void => {
    if (worker.isConnected()) worker.send(message)
  }

  const finishBroadcast = (id: number): void => {
    const broadcast = broadcasts.get(id)
    if (broadcast === undefined || broadcast.waiting.size > 0) return
    broadcasts.delete(id)
    send(broadcast.origin, { restis: 'shared', id: broadcast.originId })
  }

  const share = (origin: Worker, originId: number, change: TokenChange): void => {
    if (change.kind === 'issue') {
      const key = `${change.user}\0${change.password}`
      issued.delete(key)
      issued.set(key, { user: change.user, password: change.password })
      for (const oldest of issued.keys()) {
        if (issued.size <= MAX_KEPT_USER_TOKENS) break
        issued.delete(oldest)
      }
    }
    const id = nextBroadcast++
    const waiting = new Set([...configured].filter((worker) => worker !== origin))
    broadcasts.set(id, { origin, originId, waiting })
    for (const worker of waiting) send(worker, { restis: 'apply', id, change })
    finishBroadcast(id)
  }

  const onMessage = (worker: Worker, message: ToPrimary, replaces: number | undefined): void => {
    switch (message.restis) {
      case 'hello':
        if (stopping) return send(worker, { restis: 'stop' })
        send(worker, { restis: 'config', options, userTokenSecret, issued: [...issued.values()] })
        configured.add(worker)
        return
      case 'listening':
        if (listening) {
          process.stderr.write(`restis: worker ${worker.process.pid} listening (replaces worker ${replaces})\n`)
          return
        }
        starting.delete(worker)
        if (starting.size === 0) {
          listening = true
          onListening({ port: message.port, respPort: message.respPort })
        }
        return
      case 'failed':
        if (listening) {
          process.stderr.write(`restis: worker ${worker.process.pid}: ${message.message}\n`)
          return
        }
        if (!failureReported) process.stderr.write(`restis: ${message.message}\n`)
        failureReported = true
        return stopAll(1)
      case 'share':
        return share(worker, message.id, message.change)
      case 'applied':
        broadcasts.get(message.id)?.waiting.delete(worker)
        return finishBroadcast(message.id)
    }
  }

  const stopAll = (code: number): void => {
    exitCode = Math.max(exitCode, code)
    if (stopping) return
    stopping = true
    for (const timer of restartTimers) clearTimeout(timer)
    restartTimers.clear()
    if (live.size === 0) process.exit(exitCode)
    for (const worker of live) send(worker, { restis: 'stop' })
    setTimeout(() => {
      for (const worker of live) worker.process.kill('SIGKILL')
    }, STOP_TIMEOUT_MS + (options.shutdownTimeout ?? 0)).unref()
  }

  const onExit = (worker: Worker, code: number | null, signal: string | null): void => {
    live.delete(worker)
    configured.delete(worker)
    for (const [id, broadcast] of broadcasts) {
      if (broadcast.origin === worker) broadcasts.delete(id)
      else if (broadcast.waiting.delete(worker)) finishBroadcast(id)
    }
    if (stopping) {
      if (live.size === 0) process.exit(exitCode)
      return
    }
    const pid = worker.process.pid
    const how = signal !== null ? `signal ${signal}` : `code ${code}`
    if (!listening) {
      if (!failureReported) process.stderr.write(`restis: worker ${pid} exited before listening (${how}); stopping\n`)
      return stopAll(1)
    }
    const now = Date.now()
    exits = [...exits.filter((at) => now - at < RESTART_WINDOW_MS), now]
    if (exits.length > MAX_RESTARTS) {
      process.stderr.write(
        `restis: workers exited ${exits.length} times in ${RESTART_WINDOW_MS / 1000} s (last: worker ${pid}, ${how}); giving up\n`,
      )
      return stopAll(1)
    }
    const delay = Math.min(FIRST_RESTART_DELAY_MS * 2 ** (exits.length - 1), MAX_RESTART_DELAY_MS)
    process.stderr.write(`restis: worker ${pid} exited (${how}); starting another in ${delay} ms\n`)
    const timer = setTimeout(() => {
      restartTimers.delete(timer)
      if (!stopping) fork(pid)
    }, delay)
    restartTimers.add(timer)
  }

  const fork = (replaces?: number): Worker => {
    const worker = cluster.fork()
    live.add(worker)
    worker.on('message', (message: ToPrimary) => onMessage(worker, message, replaces))
    worker.once('exit', (code: number | null, signal: string | null) => onExit(worker, code, signal))
    return worker
  }

  const shutdown = (signal: string): void => {
    if (stopping) return
    process.stdout.write(`restis: ${signal}, shutting down\n`)
    stopAll(0)
  }
  process.on('SIGINT', () => shutdown('SIGINT'))
  process.on('SIGTERM', () => shutdown('SIGTERM'))
  for (let i = 0; i < count; i++) starting.add(fork())
}

/**
 * A worker: asks the primary for its configuration, serves with `serve`, and keeps its ACL
 * users' tokens in step with the other workers. SIGINT/SIGTERM (a terminal's Ctrl-C reaches
 * every process of the group) and the primary's stop close it cleanly.
 */
export function runWorker<Options extends TokenSettings>(serve: Serve<Options>): void {
  const toPrimary = (message: ToPrimary): void => {
    if (process.connected) process.send!(message)
  }
  let nextShare = 0
  const sharing = new Map<number, () => void>()
  const share = (change: TokenChange): Promise<void> =>
    new Promise((resolve) => {
      const id = nextShare++
      const done = (): void => {
        clearTimeout(timer)
        sharing.delete(id)
        resolve()
      }
      const timer = setTimeout(done, SHARE_TIMEOUT_MS)
      timer.unref()
      sharing.set(id, done)
      toPrimary({ restis: 'share', id, change })
    })

  let store: SharedTokenStore | undefined
  let serving: Promise<Serving> | undefined
  let stopping = false
  const stop = (): void => {
    if (stopping) return
    stopping = true
    const closed = serving === undefined ? Promise.resolve() : serving.then((served) => served.close())
    void closed.catch(() => undefined).then(() => process.exit(0))
  }

  const configure = (options: Options, userTokenSecret: string, issued: readonly Credentials[]): void => {
    const tokens = new SharedTokenStore({ token: options.token, readonlyToken: options.readonlyToken, secret: userTokenSecret }, share)
    for (const credentials of issued) tokens.apply({ kind: 'issue', ...credentials })
    // Tokens issued before this worker started were confirmed by another worker: confirm them again on first use.
    if (issued.length > 0) tokens.apply({ kind: 'stale' })
    store = tokens
    serving = serve(options, (executor) => tokens.holdResponses(createGateway({ executor, auth: tokens, ...options.gatewayLimits })))
    serving.then(
      (served) => toPrimary({ restis: 'listening', port: served.port, respPort: served.respPort }),
      (error: unknown) => {
        // The primary prints it, once for all workers (they all fail alike on a taken port).
        const message = error instanceof Error ? error.message : String(error)
        if (!process.connected) {
          process.stderr.write(`restis: ${message}\n`)
          process.exit(1)
        }
        process.send!({ restis: 'failed', message } satisfies ToPrimary, undefined, undefined, () => process.exit(1))
      },
    )
  }

  process.on('message', (message: ToWorker<Options>) => {
    switch (message.restis) {
      case 'config':
        return configure(message.options, message.userTokenSecret, message.issued)
      case 'apply':
        store?.apply(message.change)
        return toPrimary({ restis: 'applied', id: message.id })
      case 'shared':
        return sharing.get(message.id)?.()
      case 'stop':
        return stop()
    }
  })
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
  toPrimary({ restis: 'hello' })
}

/**
 * A worker's token store: ACL users' tokens it issues and re-check marks it sets go to the other
 * workers too, and responses wait until those have applied them.
 */
class SharedTokenStore extends TokenStore {
  readonly #share: (change: TokenChange) => Promise<void>
  readonly #unsettled = new Set<Promise<void>>()

  constructor(options: TokenStoreOptions, share: (change: TokenChange) => Promise<void>) {
    super(options)
    this.#share = share
  }

  override issueUserToken(user: string, password: string, now?: number): string {
    const token = super.issueUserToken(user, password, now)
    this.#track({ kind: 'issue', user, password })
    return token
  }

  override markStale(users?: readonly string[]): void {
    super.markStale(users)
    this.#track({ kind: 'stale', users })
  }

  /** A change another worker made, applied here without sharing it again. */
  apply(change: TokenChange): void {
    if (change.kind === 'issue') super.issueUserToken(change.user, change.password)
    else super.markStale(change.users)
  }

  /** `gateway` with responses held until the token changes made so far reached every worker. */
  holdResponses(gateway: Gateway): Gateway {
    const handle: Gateway['handle'] = (request) =>
      gateway.handle(request).then((response) => {
        if (this.#unsettled.size === 0) return response
        return Promise.all(this.#unsettled).then(() => response)
      })
    return Object.assign(Object.create(gateway) as Gateway, { handle })
  }

  #track(change: TokenChange): void {
    const shared = this.#share(change).then(() => {
      this.#unsettled.delete(shared)
    })
    this.#unsettled.add(shared)
  }
}
