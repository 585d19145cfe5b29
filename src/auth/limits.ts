/**
 * Request limits and usage accounting of one gateway: the maximum size of a command and of a
 * request body, the daily request limit, and per-token usage counters.
 *
 * - **Maximum request size** (`maxRequestSize`, default 10 MiB) applies **per command**: the sum
 *   of the bytes of its words. A command over it is refused with `ERR max request size exceeded`
 *   (a pipeline row gets the error in its slot, a transaction is discarded). For a command whose
 *   value is the raw request body (`POST /set/key`), the body is refused while it streams in,
 *   as soon as it crosses the limit.
 * - **Maximum body size** (`maxBodySize`, default 10 × `maxRequestSize`) caps a whole request
 *   body that holds JSON (`POST /`, `/pipeline`, `/multi-exec`): a pipeline may carry many
 *   commands, each within `maxRequestSize`, up to this cap. A body over it is refused while it
 *   streams in, with the same error.
 * - **Daily request limit** (`dailyRequestLimit`, default none) counts commands (a pipeline or
 *   transaction of n commands counts n; a `/monitor` or `/subscribe` stream counts 1), shared by
 *   every token of the gateway, and resets at 00:00 UTC. Over it a command gets
 *   `ERR max daily request limit exceeded`; a transaction that does not fit is discarded whole.
 * - **Usage**: after every request that reached the executor, `onUsage` receives the token's id
 *   (never the token), the endpoint and the number of commands, for billing per command or per
 *   request; {@link Limits.usage} keeps running totals per token id.
 *
 */
import type { Command } from '../reply.js'

const MIB = 1024 * 1024
const DAY_MS = 86_400_000

/** Which endpoint a request used, as usage events report it. @public */
export type Endpoint = 'command' | 'pipeline' | 'transaction' | 'monitor' | 'subscribe'

/** One request's usage, as {@link LimitOptions.onUsage} receives it. @public */
export interface UsageEvent {
  /**
   * The token's id: `standard`, `readonly`, or `user:<name>` for an ACL user's token. Never the
   * token itself.
   */
  readonly tokenId: string
  /** The endpoint used. */
  readonly endpoint: Endpoint
  /** Commands counted by the request (admitted to run; refused ones are not counted). */
  readonly commands: number
  /** UTC day of the request, `YYYY-MM-DD`. */
  readonly day: string
}

/** Running totals of one token id. @public */
export interface UsageTotals {
  /** Requests counted (a pipeline or transaction is one). */
  requests: number
  /** Commands run (each command of a pipeline or transaction counts). */
  commands: number
}

/** Options of {@link Limits} (and of the gateway, which passes them through). @public */
export interface LimitOptions {
  /** Maximum size of one command, bytes (sum of its words). Default 10 MiB. */
  readonly maxRequestSize?: number
  /** Maximum size of a request body holding JSON (pipelines, transactions). Default 10 × `maxRequestSize`. */
  readonly maxBodySize?: number
  /** Commands per UTC day, shared by every token of the gateway. Default: no limit. */
  readonly dailyRequestLimit?: number
  /** Milliseconds since the epoch; tests inject a clock to cross midnight. Default `Date.now`. */
  readonly clock?: () => number
  /**
   * Called after every request that ran commands (or opened a stream), with the token's id and
   * the number of commands: the hook for billing. Exceptions it throws are ignored.
   */
  readonly onUsage?: (usage: UsageEvent) => void
}

/**
 * The limits and counters of one gateway. Framework-agnostic and synchronous.
 * @public
 */
export class Limits {
  /** Maximum size of one command, bytes. */
  readonly maxRequestSize: number
  /** Maximum size of a JSON request body, bytes. */
  readonly maxBodySize: number
  /** Commands per UTC day, or `Infinity`. */
  readonly dailyRequestLimit: number
  private readonly clock: () => number
  private readonly onUsage: ((usage: UsageEvent) => void) | undefined
  private day: number
  private used = 0
  private readonly totals = new Map<string, UsageTotals>()

  constructor(options: LimitOptions = {}) {
    this.maxRequestSize = options.maxRequestSize ?? 10 * MIB
    this.maxBodySize = Math.max(this.maxRequestSize, options.maxBodySize ?? 10 * this.maxRequestSize)
    this.dailyRequestLimit = options.dailyRequestLimit ?? Infinity
    if (!(this.maxRequestSize > 0)) throw new RangeError('maxRequestSize must be positive')
    if (!(this.dailyRequestLimit >= 0)) throw new RangeError('dailyRequestLimit must not be negative')
    this.clock = options.clock ?? Date.now
    this.onUsage = options.onUsage
    this.day = Math.floor(this.clock() / DAY_MS)
  }

  /**
   * The body size an adapter may read for a request to `path` (`/set/k`, `/pipeline` …): bodies
   * holding JSON (`/`, `/pipeline`, `/multi-exec`) up to `maxBodySize`, a raw value (the last
   * argument of a command in the path) up to `maxRequestSize`.
   */
  bodyLimit(path: string): number {
    const q = path.indexOf('?')
    const bare = (q === -1 ? path : path.slice(0, q)).replace(/\/+$/, '').toLowerCase()
    if (bare === '' || bare === '/pipeline' || bare === '/multi-exec') {
      return this.maxBodySize
    }
    return this.maxRequestSize
  }

  /** Whether a command is over `maxRequestSize` (the sum of its words' bytes). */
  tooLarge(command: Command): boolean {
    // A UTF-16 code unit is at most 3 bytes of UTF-8: most commands are far enough under the
    // limit that this bound settles it without measuring any string.
    let bound = 0
    for (let i = 0; i < command.length; i++) {
      const arg = command[i]
      bound += typeof arg === 'string' ? 3 * arg.length : arg.length
    }
    if (bound <= this.maxRequestSize) return false
    let size = 0
    for (const arg of command) {
      size += typeof arg === 'string' ? Buffer.byteLength(arg) : arg.length
      if (size > this.maxRequestSize) return true
    }
    return false
  }

  /** Commands left today. */
  remaining(): number {
    this.roll()
    return Math.max(0, this.dailyRequestLimit - this.used)
  }

  /** Takes `n` commands from today's allowance; false (and nothing taken) when they do not all fit. */
  take(n: number): boolean {
    if (this.dailyRequestLimit === Infinity) return true
    this.roll()
    if (this.used + n > this.dailyRequestLimit) return false
    this.used += n
    return true
  }

  /** Records one request's usage and reports it to `onUsage`. */
  record(tokenId: string, endpoint: Endpoint, commands: number): void {
    let totals = this.totals.get(tokenId)
    if (totals === undefined) {
      totals = { requests: 0, commands: 0 }
      this.totals.set(tokenId, totals)
    }
    totals.requests++
    totals.commands += commands
    if (this.onUsage === undefined) return
    this.roll()
    try {
      this.onUsage({ tokenId, endpoint, commands, day: new Date(this.day * DAY_MS).toISOString().slice(0, 10) })
    } catch {
      // A failing billing hook must not fail the request.
    }
  }

  /** Running totals per token id since the gateway started. */
  usage(): ReadonlyMap<string, Readonly<UsageTotals>> {
    return this.totals
  }

  /** Starts a new day at 00:00 UTC. */
  private roll(): void {
    const today = Math.floor(this.clock() / DAY_MS)
    if (today !== this.day) {
      this.day = today
      this.used = 0
    }
  }
}
