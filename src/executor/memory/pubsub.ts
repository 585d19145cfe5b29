/**
 * The engine's pub/sub hub (`engine.pubsub`): channels, patterns and shard channels, their
 * subscribers, and the fan-out of PUBLISH / SPUBLISH, with Redis 7.0's counts and reply shapes.
 *
 * ## Connection-mode API (for the RESP listener)
 * A connection is a *client* of the hub, keyed by its session id:
 *
 * ```ts
 * engine.pubsub.attach(session.id, (reply) => socket.write(encodeReply(toReply(reply))))
 * // every command goes through engine.call as usual; for SUBSCRIBE, PSUBSCRIBE, SSUBSCRIBE,
 * // UNSUBSCRIBE, PUNSUBSCRIBE and SUNSUBSCRIBE the Out is an array of replies, one per channel,
 * // each written as a reply of its own (see isSubscriptionCommand):
 * const out = engine.call(session, argv)
 * if (isSubscriptionCommand(argv[0]) && Array.isArray(out)) for (const reply of out) write(reply)
 * else write(out)
 * engine.pubsub.detach(session.id)   // connection closed: every subscription goes at once
 * ```
 *
 * - Messages reach `deliver` as the arrays Redis pushes: `['message', channel, payload]`,
 *   `['pmessage', pattern, channel, payload]`, `['smessage', channel, payload]`. One array is
 *   shared by every receiver of one publish: do not mutate it.
 * - Confirmations are `[kind, channel, count]`: `count` is the client's channels + patterns for
 *   (P)SUBSCRIBE / (P)UNSUBSCRIBE and its shard channels for SSUBSCRIBE / SUNSUBSCRIBE, as
 *   Redis counts them. UNSUBSCRIBE (PUNSUBSCRIBE, SUNSUBSCRIBE) without arguments drops every
 *   channel, one reply each, or answers `[kind, null, count]` when there was none.
 * - RESP2 pub/sub context: while {@link PubSub.subscribed} is true, Redis accepts only
 *   {@link allowedWhileSubscribed} commands and refuses others with {@link subscribedModeError};
 *   PING answers `['pong', message ?? '']` there. Enforcing that is the listener's job (it knows
 *   the protocol version; RESP3 has no such limit).
 * - RESET drops the subscriptions without replies: {@link PubSub.reset}.
 * - `deliver` must not throw; if it does, the hub detaches that client (calling `onError`) and
 *   goes on delivering to the others.
 *
 * A session that is not attached (a REST call) gets `ERR Command is not available: '<cmd>'`
 * from the six subscription commands, as the socket executor answers.
 *
 * ## Order
 * Receivers of one PUBLISH get it in subscription order: channel subscribers first, then pattern
 * subscribers pattern by pattern (Redis walks its pattern dict in hash order; here patterns go in
 * the order they were first subscribed). A publish made from inside a `deliver` callback is
 * delivered after the publish in progress, so every client sees messages in publish order.
 *
 */
import { subscribedModeError } from '../../commands/errors.js'
import type { PubSubEvent } from '../executor.js'
import type { Out } from './command.js'
import { compileGlob, type GlobMatcher } from './lib/glob.js'

/** A reply pushed to a subscribed client: a confirmation or a message. */
export type PubSubReply = readonly Out[]

/** Where a client's pushed replies go (a socket write, an executor callback). Must not throw. */
export type Deliver = (reply: PubSubReply) => void

/** How many subscriptions a client holds, as CLIENT LIST shows them (`sub=`, `psub=`, `ssub=`). */
export interface SubscriptionCounts {
  readonly channels: number
  readonly patterns: number
  readonly shardChannels: number
}

/** Totals the hub holds, as INFO shows them (and for leak checks). */
export interface PubSubSize {
  /** Attached clients. */
  readonly clients: number
  /** Channels with at least one subscriber (INFO `pubsub_channels`). */
  readonly channels: number
  /** Distinct patterns with at least one subscriber (INFO `pubsub_patterns`, PUBSUB NUMPAT). */
  readonly patterns: number
  /** Shard channels with at least one subscriber (INFO `pubsubshard_channels`). */
  readonly shardChannels: number
}

/** One attached connection. */
interface Client {
  readonly id: number
  readonly deliver: Deliver
  readonly onError: ((error: unknown) => void) | undefined
  /** Insertion-ordered: UNSUBSCRIBE without arguments goes through them in this order. */
  readonly channels: Set<string>
  readonly patterns: Set<string>
  readonly shardChannels: Set<string>
  detached: boolean
}

/**
 * Subscribers of one channel or pattern, in subscription order, each with the number of
 * publishes started before it joined: a client never receives a message published before it
 * subscribed, even when it subscribes from inside a delivery.
 */
type Audience = Map<Client, number>

interface PatternAudience {
  readonly matches: GlobMatcher
  readonly subscribers: Audience
}

/** A delivery postponed because it was published from inside another delivery. */
interface Postponed {
  readonly recipients: readonly Client[]
  readonly reply: PubSubReply
}

/** The six commands whose Out is an array of replies to be written one by one. */
const SUBSCRIPTION_COMMANDS: ReadonlySet<string> = new Set([
  'subscribe', 'psubscribe', 'ssubscribe', 'unsubscribe', 'punsubscribe', 'sunsubscribe',
])

/** Commands a RESP2 connection may send while subscribed (Redis 7.0 `processCommand`). */
const ALLOWED_WHILE_SUBSCRIBED: ReadonlySet<string> = new Set([...SUBSCRIPTION_COMMANDS, 'ping', 'quit', 'reset'])

/** True for SUBSCRIBE and its five siblings, whose replies are written one per channel. */
export function isSubscriptionCommand(name: string): boolean {
  return SUBSCRIPTION_COMMANDS.has(name.toLowerCase())
}

/** True when a RESP2 connection in pub/sub context may run the command `name` (a root name). */
export function allowedWhileSubscribed(name: string): boolean {
  return ALLOWED_WHILE_SUBSCRIBED.has(name.toLowerCase())
}

export { subscribedModeError }

export class PubSub {
  private readonly clients = new Map<number, Client>()
  private readonly channels = new Map<string, Audience>()
  /** Insertion-ordered: fan-out goes pattern by pattern in this order. */
  private readonly patterns = new Map<string, PatternAudience>()
  private readonly shardChannels = new Map<string, Audience>()
  /** Publishes started so far; see {@link Audience}. */
  private published = 0
  /** True while a publish is delivering: a nested publish waits in `postponed`. */
  private delivering = false
  private readonly postponed: Postponed[] = []

  // ---- connections -------------------------------------------------------------------------

  /**
   * Makes session `id` a pub/sub client: its confirmations come back from the commands, its
   * messages go to `deliver`. `onError` hears of a `deliver` that threw, or of the engine
   * closing (the client is detached by then). Attaching an attached id throws.
   */
  attach(id: number, deliver: Deliver, onError?: (error: unknown) => void): void {
    if (this.clients.has(id)) throw new Error(`pub/sub client ${id} is already attached`)
    this.clients.set(id, {
      id,
      deliver,
      onError,
      channels: new Set(),
      patterns: new Set(),
      shardChannels: new Set(),
      detached: false,
    })
  }

  /** Forgets session `id` and every subscription it holds, at once and without replies. */
  detach(id: number): void {
    const client = this.clients.get(id)
    if (client === undefined) return
    this.dropAll(client)
    client.detached = true
    this.clients.delete(id)
  }

  /** Whether session `id` is attached. */
  isAttached(id: number): boolean {
    return this.clients.has(id)
  }

  /** RESET: session `id` keeps its attachment but loses every subscription, without replies. */
  reset(id: number): void {
    const client = this.clients.get(id)
    if (client !== undefined) this.dropAll(client)
  }

  /** Whether session `id` holds any subscription (Redis's `CLIENT_PUBSUB` flag). */
  subscribed(id: number): boolean {
    const client = this.clients.get(id)
    return client !== undefined && client.channels.size + client.patterns.size + client.shardChannels.size > 0
  }

  /** Subscriptions of session `id` (zeros when it is not attached). */
  counts(id: number): SubscriptionCounts {
    const client = this.clients.get(id)
    if (client === undefined) return { channels: 0, patterns: 0, shardChannels: 0 }
    return { channels: client.channels.size, patterns: client.patterns.size, shardChannels: client.shardChannels.size }
  }

  /** What the hub holds. */
  get size(): PubSubSize {
    return {
      clients: this.clients.size,
      channels: this.channels.size,
      patterns: this.patterns.size,
      shardChannels: this.shardChannels.size,
    }
  }

  /** The engine closes: every client is detached and hears of it through its `onError`. */
  close(): void {
    const clients = [...this.clients.values()]
    for (const client of clients) this.detach(client.id)
    for (const client of clients) client.onError?.(new Error('engine closed'))
  }

  // ---- subscription commands: one reply per channel ----------------------------------------
  // Each returns undefined when `id` is not attached.

  subscribe(id: number, channels: readonly string[]): PubSubReply[] | undefined {
    const client = this.clients.get(id)
    if (client === undefined) return undefined
    return channels.map((channel) => {
      if (!client.channels.has(channel)) {
        client.channels.add(channel)
        this.join(this.channels, channel, client)
      }
      return ['subscribe', channel, client.channels.size + client.patterns.size]
    })
  }

  unsubscribe(id: number, channels: readonly string[]): PubSubReply[] | undefined {
    const client = this.clients.get(id)
    if (client === undefined) return undefined
    const targets = channels.length === 0 ? [...client.channels] : channels
    if (targets.length === 0) return [['unsubscribe', null, client.patterns.size]]
    return targets.map((channel) => {
      if (client.channels.delete(channel)) this.leave(this.channels, channel, client)
      return ['unsubscribe', channel, client.channels.size + client.patterns.size]
    })
  }

  psubscribe(id: number, patterns: readonly string[]): PubSubReply[] | undefined {
    const client = this.clients.get(id)
    if (client === undefined) return undefined
    return patterns.map((pattern) => {
      if (!client.patterns.has(pattern)) {
        client.patterns.add(pattern)
        let audience = this.patterns.get(pattern)
        if (audience === undefined) {
          audience = { matches: compileGlob(pattern), subscribers: new Map() }
          this.patterns.set(pattern, audience)
        }
        audience.subscribers.set(client, this.published)
      }
      return ['psubscribe', pattern, client.channels.size + client.patterns.size]
    })
  }

  punsubscribe(id: number, patterns: readonly string[]): PubSubReply[] | undefined {
    const client = this.clients.get(id)
    if (client === undefined) return undefined
    const targets = patterns.length === 0 ? [...client.patterns] : patterns
    if (targets.length === 0) return [['punsubscribe', null, client.channels.size]]
    return targets.map((pattern) => {
      if (client.patterns.delete(pattern)) this.leavePattern(pattern, client)
      return ['punsubscribe', pattern, client.channels.size + client.patterns.size]
    })
  }

  ssubscribe(id: number, channels: readonly string[]): PubSubReply[] | undefined {
    const client = this.clients.get(id)
    if (client === undefined) return undefined
    return channels.map((channel) => {
      if (!client.shardChannels.has(channel)) {
        client.shardChannels.add(channel)
        this.join(this.shardChannels, channel, client)
      }
      return ['ssubscribe', channel, client.shardChannels.size]
    })
  }

  sunsubscribe(id: number, channels: readonly string[]): PubSubReply[] | undefined {
    const client = this.clients.get(id)
    if (client === undefined) return undefined
    const targets = channels.length === 0 ? [...client.shardChannels] : channels
    if (targets.length === 0) return [['sunsubscribe', null, 0]]
    return targets.map((channel) => {
      if (client.shardChannels.delete(channel)) this.leave(this.shardChannels, channel, client)
      return ['sunsubscribe', channel, client.shardChannels.size]
    })
  }

  // ---- publishing --------------------------------------------------------------------------

  /**
   * PUBLISH: delivers `message` to the channel's subscribers, then to every client subscribed to
   * a matching pattern (once per matching pattern). Returns the number of deliveries, as Redis
   * counts receivers.
   */
  publish(channel: string, message: string): number {
    const sequence = ++this.published
    const outermost = !this.delivering
    this.delivering = true
    let receivers = 0
    try {
      const audience = this.channels.get(channel)
      if (audience !== undefined) receivers += this.fanOut(audience, ['message', channel, message], sequence, outermost)
      for (const [pattern, entry] of this.patterns) {
        if (entry.matches(channel)) {
          receivers += this.fanOut(entry.subscribers, ['pmessage', pattern, channel, message], sequence, outermost)
        }
      }
    } finally {
      if (outermost) this.finishDelivery()
    }
    return receivers
  }

  /** SPUBLISH: delivers to the shard channel's subscribers only (patterns never see it). */
  spublish(channel: string, message: string): number {
    const sequence = ++this.published
    const audience = this.shardChannels.get(channel)
    if (audience === undefined) return 0
    const outermost = !this.delivering
    this.delivering = true
    try {
      return this.fanOut(audience, ['smessage', channel, message], sequence, outermost)
    } finally {
      if (outermost) this.finishDelivery()
    }
  }

  // ---- introspection (PUBSUB) --------------------------------------------------------------

  /** PUBSUB CHANNELS [pattern]: channels with subscribers, optionally those matching `pattern`. */
  channelNames(pattern?: string): string[] {
    return matching(this.channels.keys(), pattern)
  }

  /** PUBSUB SHARDCHANNELS [pattern]. */
  shardChannelNames(pattern?: string): string[] {
    return matching(this.shardChannels.keys(), pattern)
  }

  /** Subscribers of `channel`, patterns not included (PUBSUB NUMSUB). */
  channelSubscribers(channel: string): number {
    return this.channels.get(channel)?.size ?? 0
  }

  /** Subscribers of shard channel `channel` (PUBSUB SHARDNUMSUB). */
  shardChannelSubscribers(channel: string): number {
    return this.shardChannels.get(channel)?.size ?? 0
  }

  /** Distinct patterns subscribed by anyone (PUBSUB NUMPAT). */
  get patternCount(): number {
    return this.patterns.size
  }

  // ---- internals ---------------------------------------------------------------------------

  private join(index: Map<string, Audience>, channel: string, client: Client): void {
    let audience = index.get(channel)
    if (audience === undefined) {
      audience = new Map()
      index.set(channel, audience)
    }
    audience.set(client, this.published)
  }

  private leave(index: Map<string, Audience>, channel: string, client: Client): void {
    const audience = index.get(channel)
    if (audience === undefined) return
    audience.delete(client)
    if (audience.size === 0) index.delete(channel)
  }

  private leavePattern(pattern: string, client: Client): void {
    const entry = this.patterns.get(pattern)
    if (entry === undefined) return
    entry.subscribers.delete(client)
    if (entry.subscribers.size === 0) this.patterns.delete(pattern)
  }

  private dropAll(client: Client): void {
    for (const channel of client.channels) this.leave(this.channels, channel, client)
    for (const pattern of client.patterns) this.leavePattern(pattern, client)
    for (const channel of client.shardChannels) this.leave(this.shardChannels, channel, client)
    client.channels.clear()
    client.patterns.clear()
    client.shardChannels.clear()
  }

  /**
   * Sends `reply` to the audience members that joined before publish `sequence`. The outermost
   * publish delivers at once; a publish from inside a delivery takes a snapshot and waits.
   */
  private fanOut(audience: Audience, reply: PubSubReply, sequence: number, now: boolean): number {
    if (!now) {
      const recipients: Client[] = []
      for (const [client, joinedAfter] of audience) if (joinedAfter < sequence) recipients.push(client)
      this.postponed.push({ recipients, reply })
      return recipients.length
    }
    let receivers = 0
    for (const [client, joinedAfter] of audience) {
      if (joinedAfter >= sequence) continue
      receivers++
      this.send(client, reply)
    }
    return receivers
  }

  /** Delivers what nested publishes postponed, in publish order, then leaves delivery mode. */
  private finishDelivery(): void {
    try {
      // A postponed delivery may postpone more: the queue grows while it drains.
      for (let i = 0; i < this.postponed.length; i++) {
        const { recipients, reply } = this.postponed[i]
        for (const client of recipients) if (!client.detached) this.send(client, reply)
      }
    } finally {
      this.postponed.length = 0
      this.delivering = false
    }
  }

  private send(client: Client, reply: PubSubReply): void {
    try {
      client.deliver(reply)
    } catch (error) {
      // One broken receiver must not cost the others their messages.
      this.detach(client.id)
      client.onError?.(error)
    }
  }
}

/** Names from `names`, all of them or those matching the glob `pattern` (Redis's `stringmatchlen`). */
function matching(names: Iterable<string>, pattern: string | undefined): string[] {
  if (pattern === undefined) return [...names]
  const matches = compileGlob(pattern)
  const out: string[] = []
  for (const name of names) if (matches(name)) out.push(name)
  return out
}

/** Events already built, per reply: one publish reaches many subscribers with the same reply. */
const events = new WeakMap<PubSubReply, PubSubEvent>()

/**
 * A confirmation or message reply as the executor API's {@link PubSubEvent} (binary strings as
 * bytes). Built once per reply and shared by every receiver, as the socket executor shares one
 * event among its listeners.
 */
export function toPubSubEvent(reply: PubSubReply): PubSubEvent {
  let event = events.get(reply)
  if (event !== undefined) return event
  const kind = reply[0] as string
  const bytes = (index: number): Buffer => Buffer.from(reply[index] as string, 'latin1')
  if (kind === 'message' || kind === 'smessage') event = { type: kind, channel: bytes(1), message: bytes(2) }
  else if (kind === 'pmessage') event = { type: 'pmessage', pattern: bytes(1), channel: bytes(2), message: bytes(3) }
  else event = { type: kind as 'subscribe' | 'psubscribe' | 'ssubscribe', channel: bytes(1), count: reply[2] as number }
  events.set(reply, event)
  return event
}
