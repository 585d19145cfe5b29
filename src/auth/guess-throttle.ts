/**
 * Throttling of password guesses (`ACL RESTTOKEN <user> <password>`): each failed attempt counts
 * against the principal that made it and against the user it named. Past a few free failures a
 * key is locked for a delay that doubles with every further failure; while either key is locked
 * the attempt is refused before any password is looked at, so a refusal costs the same whatever
 * the password, and guessing drops from tens of thousands a second to about one a minute.
 *
 * An attempt counts as a failure from the moment it starts (concurrent attempts cannot all slip
 * under the limit while their checks are in flight) and is taken back when it succeeds. Failures
 * are forgotten after a quiet period.
 */

/** Tunables of {@link GuessThrottle}; the defaults are documented in docs/protocol.md. */
export interface GuessThrottleOptions {
  /** Failures a principal (a token) may make before it is locked. Default 10. */
  readonly principalFreeFailures?: number
  /** Failures against one user name before it is locked. Default 5. */
  readonly userFreeFailures?: number
  /** Lock after the first failure past the free ones, ms; it doubles with each further one. Default 1000. */
  readonly baseDelay?: number
  /** Longest lock, ms. Default 60 000. */
  readonly maxDelay?: number
  /** A key with no failure for this long starts afresh, ms. Default 15 minutes. */
  readonly forgetAfter?: number
  /** Most keys remembered; the least recently failed is forgotten first. Default 10 000. */
  readonly maxKeys?: number
}

interface KeyState {
  failures: number
  lastFailureAt: number
  lockedUntil: number
}

/** An attempt that passed the throttle: report how it ended with {@link GuessThrottle.settle}. */
export interface GuessAttempt {
  readonly keys: readonly string[]
}

/** The answer to a throttled attempt: when it may be tried again. */
export interface Throttled {
  readonly retryAfterMs: number
}

/** Failed-guess accounting per principal and per user name. */
export class GuessThrottle {
  private readonly states = new Map<string, KeyState>()
  private readonly principalFree: number
  private readonly userFree: number
  private readonly baseDelay: number
  private readonly maxDelay: number
  private readonly forgetAfter: number
  private readonly maxKeys: number

  constructor(
    private readonly clock: () => number,
    options: GuessThrottleOptions = {},
  ) {
    this.principalFree = options.principalFreeFailures ?? 10
    this.userFree = options.userFreeFailures ?? 5
    this.baseDelay = options.baseDelay ?? 1000
    this.maxDelay = options.maxDelay ?? 60_000
    this.forgetAfter = options.forgetAfter ?? 15 * 60_000
    this.maxKeys = options.maxKeys ?? 10_000
  }

  /**
   * Starts an attempt by `principalId` on `user`: refused while either is locked; otherwise
   * counted as a failure until {@link settle} says it succeeded.
   */
  begin(principalId: string, user: string): GuessAttempt | Throttled {
    const now = this.clock()
    const keys = [`principal:${principalId}`, `user:${user}`]
    let lockedUntil = 0
    for (const key of keys) lockedUntil = Math.max(lockedUntil, this.current(key, now)?.lockedUntil ?? 0)
    if (lockedUntil > now) return { retryAfterMs: lockedUntil - now }
    this.fail(keys[0], now, this.principalFree)
    this.fail(keys[1], now, this.userFree)
    return { keys }
  }

  /** Ends an attempt: a success takes its failure back (and clears the user's record). */
  settle(attempt: GuessAttempt, succeeded: boolean): void {
    if (!succeeded) return
    const [principalKey, userKey] = attempt.keys
    this.states.delete(userKey)
    const state = this.states.get(principalKey)
    if (state === undefined) return
    state.failures = Math.max(0, state.failures - 1)
    if (state.failures < this.principalFree) state.lockedUntil = 0
  }

  /** The state of `key`, unless it was forgotten after a quiet period. */
  private current(key: string, now: number): KeyState | undefined {
    const state = this.states.get(key)
    if (state !== undefined && now - state.lastFailureAt >= this.forgetAfter) {
      this.states.delete(key)
      return undefined
    }
    return state
  }

  private fail(key: string, now: number, free: number): void {
    const state = this.current(key, now) ?? { failures: 0, lastFailureAt: now, lockedUntil: 0 }
    state.failures++
    state.lastFailureAt = now
    if (state.failures >= free) state.lockedUntil = now + Math.min(this.maxDelay, this.baseDelay * 2 ** Math.min(30, state.failures - free))
    // Re-inserted so the map's order is the order of last failure, oldest first.
    this.states.delete(key)
    this.states.set(key, state)
    if (this.states.size > this.maxKeys) this.states.delete(this.states.keys().next().value as string)
  }
}
