/**
 * SSUBSCRIBE and SUNSUBSCRIBE on a RESP listener connection (sharded pub/sub, Redis 7.0): each
 * shard channel is one `Executor.subscribe({ kind: 'shard' })`, so the memory engine, one Redis
 * and a cluster (by the channel's slot) serve it alike.
 *
 * Replies as Redis 7.0 gives them: one `ssubscribe` / `sunsubscribe` frame per channel, whose
 * count is the connection's shard channels only (SUBSCRIBE's count leaves them out, as Redis's
 * does); `smessage` frames for SPUBLISH; SUNSUBSCRIBE without a channel drops them all, or
 * answers `[sunsubscribe, nil, 0]` when there is none. A `sunsubscribe` the backend sends on its
 * own (a cluster node whose slot left it, seen through a plain socket executor) is passed on.
 */

import type { ReplyError } from '../../reply.js'
import type { CallContext, Executor, PubSubEvent } from '../../executor/executor.js'
import { ShardSubscriptionRefusedError } from '../../executor/socket/streams.js'
import { confirmationFrames, messageFrame, type Confirmation } from './pubsub-frames.js'
import type { RespVersion } from './connection-protocol.js'

/** What the shard subscriptions need of their connection. */
export interface ShardConnection {
  readonly executor: Executor
  /** Who the connection runs as now (database, user). */
  context(): CallContext
  /** The protocol its frames are written in now (RESP3 sends them as push frames). */
  protocol(): RespVersion
  /** Writes a frame after the replies owed so far (a message, an unasked `sunsubscribe`). */
  push(frame: Buffer): void
  /** A subscription failed after it was confirmed (the backend went away): the connection ends. */
  destroy(): void
  /** The error reply for a failed call, as the listener words it. */
  failure(error: unknown): ReplyError
}

interface Entry {
  readonly name: Buffer
  readonly abort: AbortController
}

export class ShardSubscriptions {
  readonly #connection: ShardConnection
  /** Shard channels by latin1 name, in subscription order (SUNSUBSCRIBE without arguments follows it). */
  readonly #entries = new Map<string, Entry>()

  constructor(connection: ShardConnection) {
    this.#connection = connection
  }

  /** Shard channels subscribed. */
  get size(): number {
    return this.#entries.size
  }

  /**
   * SSUBSCRIBE: the confirmations, once the backend confirmed every new channel; an error reply
   * when one could not be subscribed (those that could stay subscribed).
   */
  subscribe(names: readonly Buffer[]): Buffer | Promise<Buffer | ReplyError> {
    const confirmations: Confirmation[] = []
    const waits: Promise<unknown>[] = []
    for (const name of names) {
      const key = name.toString('latin1')
      if (!this.#entries.has(key)) {
        const entry: Entry = { name, abort: new AbortController() }
        this.#entries.set(key, entry)
        waits.push(this.#follow(key, entry))
      }
      confirmations.push({ kind: 'ssubscribe', channel: name, count: this.#entries.size })
    }
    const frames = confirmationFrames(this.#connection.protocol(), confirmations)
    if (waits.length === 0) return frames
    return Promise.all(waits).then((failures) => {
      const failed = failures.find((failure) => failure !== undefined)
      return failed === undefined ? frames : this.#refusal(failed)
    })
  }

  /** SUNSUBSCRIBE: one frame per channel named (every subscribed one when none is). */
  unsubscribe(names: readonly Buffer[]): Buffer {
    const targets = names.length > 0 ? names : [...this.#entries.values()].map((entry) => entry.name)
    if (targets.length === 0) return confirmationFrames(this.#connection.protocol(), [{ kind: 'sunsubscribe', channel: null, count: 0 }])
    const confirmations: Confirmation[] = []
    for (const name of targets) {
      const key = name.toString('latin1')
      const entry = this.#entries.get(key)
      if (entry !== undefined) {
        this.#entries.delete(key)
        entry.abort.abort()
      }
      confirmations.push({ kind: 'sunsubscribe', channel: name, count: this.#entries.size })
    }
    return confirmationFrames(this.#connection.protocol(), confirmations)
  }

  /** The connection closes or RESETs: every shard subscription ends, without frames. */
  stop(): void {
    for (const entry of this.#entries.values()) entry.abort.abort()
    this.#entries.clear()
  }

  /**
   * Subscribes one shard channel on the executor. Resolves once the executor confirmed it (to
   * undefined) or failed before that (to the error); messages then flow to the connection.
   */
  #follow(key: string, entry: Entry): Promise<unknown> {
    return new Promise((resolve) => {
      let confirmed = false
      const current = (): boolean => this.#entries.get(key) === entry
      const onEvent = (event: PubSubEvent): void => {
        switch (event.type) {
          case 'ssubscribe':
            confirmed = true
            resolve(undefined)
            return
          case 'smessage':
            if (current()) this.#connection.push(messageFrame(this.#connection.protocol(), 'smessage', event.channel, event.message))
            return
          case 'sunsubscribe':
            if (!current()) return
            this.#entries.delete(key)
            entry.abort.abort()
            this.#connection.push(confirmationFrames(this.#connection.protocol(), [{ kind: 'sunsubscribe', channel: event.channel, count: this.#entries.size }]))
        }
      }
      this.#connection.executor.subscribe({ kind: 'shard', names: [entry.name] }, onEvent, entry.abort.signal, this.#connection.context()).then(
        () => resolve(undefined),
        (error: unknown) => {
          if (current()) this.#entries.delete(key)
          if (!confirmed) resolve(error ?? new Error('subscription failed'))
          else this.#connection.destroy()
        },
      )
    })
  }

  /** A refused subscription as Redis words it (NOPERM …), any other failure as the listener does. */
  #refusal(error: unknown): ReplyError {
    return error instanceof ShardSubscriptionRefusedError ? error.reply : this.#connection.failure(error)
  }
}
