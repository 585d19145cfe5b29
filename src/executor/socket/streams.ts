/**
 * Pub/sub and MONITOR over shared connections: one subscriber connection and one monitor
 * connection (per set of credentials) serve every local listener, fanning events out.
 *
 * SUBSCRIBE/PSUBSCRIBE/SSUBSCRIBE are reference-counted per channel/pattern: the first local
 * subscriber subscribes on the server, the last one to leave unsubscribes, and the connection
 * closes when nobody listens any more.
 *
 * Shard channels go one per command (SSUBSCRIBE x, SUNSUBSCRIBE x): a cluster node refuses a
 * shard channel whose slot it does not serve with one error for the whole command (MOVED,
 * CROSSSLOT), so one channel per command lets that error fail exactly the subscribers of that
 * channel, and the connection goes on serving the others. A `sunsubscribe` the hub did not ask
 * for is the server dropping the channel (its slot left the node): its subscribers hear of it
 * as a `sunsubscribe` event.
 *
 */

import { ReplyError, Status, type Bytes, type Reply } from '../../reply.js'
import { BackendUnavailableError, type MonitorEvent, type PubSubEvent, type Subscription } from '../executor.js'
import { Connection, type ConnectionCounters } from './connection.js'
import type { ConnectionConfig } from './options.js'
import { asBuffer } from '../../resp/protocol.js'
import { compileGlob, type GlobMatcher } from '../memory/lib/glob.js'
import { keySlot } from '../cluster/slot.js'

type Kind = Subscription['kind']

const SUBSCRIBE_VERB: Record<Kind, string> = { channel: 'SUBSCRIBE', pattern: 'PSUBSCRIBE', shard: 'SSUBSCRIBE' }
const UNSUBSCRIBE_VERB: Record<Kind, string> = { channel: 'UNSUBSCRIBE', pattern: 'PUNSUBSCRIBE', shard: 'SUNSUBSCRIBE' }
const CONFIRMATION: Record<Kind, 'subscribe' | 'psubscribe' | 'ssubscribe'> = { channel: 'subscribe', pattern: 'psubscribe', shard: 'ssubscribe' }

/** A command sent on the subscriber connection whose acknowledgements are still to come. */
interface Sent {
  readonly kind: Kind
  readonly subscribe: boolean
  /** Names (latin1) in the order the server acknowledges them. */
  readonly keys: readonly string[]
  acknowledged: number
}

/**
 * The server refused to subscribe a shard channel (`reply`: MOVED, CROSSSLOT, an ACL error): the
 * subscription ends with this error, the connection and other subscriptions go on.
 * @public
 */
export class ShardSubscriptionRefusedError extends BackendUnavailableError {
  /** The server's error, as it answered SSUBSCRIBE. */
  readonly reply: ReplyError
  constructor(reply: ReplyError) {
    super(`subscription refused: ${reply.message}`)
    this.name = 'ShardSubscriptionRefusedError'
    this.reply = reply
  }
}

/** One channel or pattern subscribed on the server. */
interface Entry {
  readonly name: Buffer
  /** Local subscribers, confirmed or waiting for the server's confirmation. */
  readonly subscribers: Set<Subscriber>
  /** Those that received their confirmation: they get messages. */
  readonly listeners: Set<Subscriber>
  confirmed: boolean
  /** For a pattern: its matcher, compiled when a PUBLISH first needs it. */
  matcher?: GlobMatcher
}

/**
 * Who a message on one channel reaches through a hub: `subscriptions` is what the server counts
 * (the shared connection once for the channel and once per matching pattern), `listeners` is
 * what those subscriptions reach locally (each `subscribe()` call once per matching name).
 */
export interface Receivers {
  subscriptions: number
  listeners: number
}

/** One `subscribe()` call. */
interface Subscriber {
  readonly kind: Kind
  readonly keys: readonly string[]
  readonly names: readonly Buffer[]
  /** Per name: the server confirmed the channel; confirmations are emitted in name order. */
  readonly ready: boolean[]
  next: number
  /** Distinct names confirmed so far: the `count` of the confirmation events. */
  readonly confirmed: Set<string>
  readonly onEvent: (event: PubSubEvent) => void
  done: boolean
  settle: (error?: Error) => void
}

function toBuffer(arg: string | Bytes): Buffer {
  return typeof arg === 'string' ? Buffer.from(arg, 'utf8') : asBuffer(arg)
}

function text(reply: Reply): string | undefined {
  return reply instanceof Uint8Array ? asBuffer(reply).toString('latin1') : undefined
}

/** Runs `listener`; if it throws, `onThrow` gets the error instead of the connection. */
function safely(listener: () => void, onThrow: (error: Error) => void): void {
  try {
    listener()
  } catch (error) {
    onThrow(error instanceof Error ? error : new Error(String(error)))
  }
}

export class SubscriberHub {
  readonly #config: ConnectionConfig
  readonly #counters: ConnectionCounters
  #connection: Connection | undefined
  #connecting: Promise<Connection> | undefined
  readonly #maps: Record<Kind, Map<string, Entry>> = { channel: new Map(), pattern: new Map(), shard: new Map() }
  /** Commands sent and not fully acknowledged, oldest first (the server answers in order). */
  #sent: Sent[] = []
  /** Shard channels whose slot the server is dropping: their own `sunsubscribe` is on its way. */
  readonly #dropping = new Map<string, Entry>()
  /** SUBSCRIBE/PSUBSCRIBE confirmations still to come, per `kind:name`. */
  readonly #outstanding = new Map<string, number>()
  readonly #subscribers = new Set<Subscriber>()

  constructor(config: ConnectionConfig, counters: ConnectionCounters) {
    this.#config = config
    this.#counters = counters
  }

  /** Local subscribers. */
  get size(): number {
    return this.#subscribers.size
  }

  /** Whether the shared connection is open. */
  get connected(): boolean {
    return this.#connection !== undefined
  }

  subscribe(target: Subscription, onEvent: (event: PubSubEvent) => void, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.resolve()
    if (target.names.length === 0) return Promise.reject(new TypeError('subscribe needs at least one channel or pattern'))
    return new Promise<void>((resolve, reject) => {
      const names = target.names.map(toBuffer)
      const subscriber: Subscriber = {
        kind: target.kind,
        names,
        keys: names.map((name) => name.toString('latin1')),
        ready: names.map(() => false),
        next: 0,
        confirmed: new Set(),
        onEvent,
        done: false,
        settle: (error) => {
          if (subscriber.done) return
          subscriber.done = true
          signal.removeEventListener('abort', onAbort)
          this.#leave(subscriber)
          if (error === undefined) resolve()
          else reject(error)
        },
      }
      const onAbort = (): void => subscriber.settle()
      signal.addEventListener('abort', onAbort, { once: true })
      this.#join(subscriber).catch((error: Error) => subscriber.settle(error))
    })
  }

  /**
   * Adds to `into` who a message on `channel` (latin1, one char per byte) reaches through this
   * hub: PUBLISH's channel and pattern subscribers, or with `sharded` SPUBLISH's shard subscribers.
   */
  addReceivers(channel: string, into: Receivers, sharded = false): void {
    if (sharded) {
      const entry = this.#maps.shard.get(channel)
      if (entry?.confirmed) {
        into.subscriptions++
        into.listeners += entry.listeners.size
      }
      return
    }
    const entry = this.#maps.channel.get(channel)
    if (entry?.confirmed) {
      into.subscriptions++
      into.listeners += entry.listeners.size
    }
    for (const [pattern, candidate] of this.#maps.pattern) {
      if (!candidate.confirmed) continue
      candidate.matcher ??= compileGlob(pattern)
      if (!candidate.matcher(channel)) continue
      into.subscriptions++
      into.listeners += candidate.listeners.size
    }
  }

  /** Closes the connection; every subscriber rejects. */
  close(): void {
    this.#reset(new BackendUnavailableError('executor closed'))
  }

  async #join(subscriber: Subscriber): Promise<void> {
    const connection = await this.#open()
    if (subscriber.done) {
      this.#closeIfIdle()
      return
    }
    this.#subscribers.add(subscriber)
    const map = this.#maps[subscriber.kind]
    const fresh: Buffer[] = []
    subscriber.keys.forEach((key, i) => {
      let entry = map.get(key)
      if (entry === undefined) {
        entry = { name: subscriber.names[i], subscribers: new Set(), listeners: new Set(), confirmed: false }
        map.set(key, entry)
        fresh.push(entry.name)
        const tag = `${subscriber.kind}:${key}`
        this.#outstanding.set(tag, (this.#outstanding.get(tag) ?? 0) + 1)
      }
      entry.subscribers.add(subscriber)
      if (entry.confirmed) subscriber.ready[i] = true
    })
    this.#emitConfirmations(subscriber)
    this.#send(connection, subscriber.kind, true, fresh)
  }

  /**
   * Sends (P|S)SUBSCRIBE or (P|S)UNSUBSCRIBE for `names`; shard channels one per command. A
   * subscription the connection would not take (too many commands pending) throws: its
   * subscribers fail rather than wait for a confirmation that cannot come.
   */
  #send(connection: Connection, kind: Kind, subscribe: boolean, names: readonly Buffer[]): void {
    if (names.length === 0) return
    const verb = subscribe ? SUBSCRIBE_VERB[kind] : UNSUBSCRIBE_VERB[kind]
    const groups = kind === 'shard' ? names.map((name) => [name]) : [names]
    for (const [i, group] of groups.entries()) {
      if (!connection.sendPush([verb, ...group], group.length)) {
        if (!subscribe) continue
        // No confirmation will come for these: they are no longer awaited.
        for (const name of groups.slice(i).flat()) {
          const tag = `${kind}:${name.toString('latin1')}`
          const left = (this.#outstanding.get(tag) ?? 1) - 1
          if (left > 0) this.#outstanding.set(tag, left)
          else this.#outstanding.delete(tag)
        }
        throw new BackendUnavailableError(`${verb} not sent: the subscriber connection has too many commands pending`)
      }
      this.#sent.push({ kind, subscribe, keys: group.map((name) => name.toString('latin1')), acknowledged: 0 })
    }
  }

  /** One acknowledgement of the oldest command sent. */
  #acknowledge(): void {
    const head = this.#sent[0]
    if (head !== undefined && ++head.acknowledged >= head.keys.length) this.#sent.shift()
  }

  #open(): Promise<Connection> {
    if (this.#connection !== undefined) return Promise.resolve(this.#connection)
    this.#connecting ??= Connection.open(this.#config, this.#counters).then(
      (connection) => {
        this.#connecting = undefined
        this.#connection = connection
        connection.usePushMode((reply) => this.#onPush(reply))
        connection.onClose = (error) => {
          if (this.#connection === connection) this.#reset(error)
        }
        return connection
      },
      (error: Error) => {
        this.#connecting = undefined
        throw error
      },
    )
    return this.#connecting
  }

  /** Emits, in name order, the confirmations the server has given; each starts that name's messages. */
  #emitConfirmations(subscriber: Subscriber): void {
    const map = this.#maps[subscriber.kind]
    while (!subscriber.done && subscriber.next < subscriber.keys.length && subscriber.ready[subscriber.next]) {
      const i = subscriber.next++
      const key = subscriber.keys[i]
      subscriber.confirmed.add(key)
      map.get(key)?.listeners.add(subscriber)
      const event: PubSubEvent = {
        type: CONFIRMATION[subscriber.kind],
        channel: subscriber.names[i],
        count: subscriber.confirmed.size,
      }
      safely(() => subscriber.onEvent(event), (error) => subscriber.settle(error))
    }
  }

  #onPush(reply: Reply): boolean {
    if (reply instanceof ReplyError) return this.#refused(reply)
    if (!Array.isArray(reply) || reply.length < 3) throw new BackendUnavailableError('unexpected reply on the subscriber connection')
    const items = reply as readonly Reply[]
    switch (text(items[0])) {
      case 'message': {
        const entry = this.#maps.channel.get(text(items[1]) ?? '')
        if (entry === undefined) return false
        const event: PubSubEvent = { type: 'message', channel: items[1] as Bytes, message: items[2] as Bytes }
        for (const listener of entry.listeners) safely(() => listener.onEvent(event), (error) => listener.settle(error))
        return false
      }
      case 'pmessage': {
        const entry = this.#maps.pattern.get(text(items[1]) ?? '')
        if (entry === undefined) return false
        const event: PubSubEvent = { type: 'pmessage', pattern: items[1] as Bytes, channel: items[2] as Bytes, message: items[3] as Bytes }
        for (const listener of entry.listeners) safely(() => listener.onEvent(event), (error) => listener.settle(error))
        return false
      }
      case 'smessage': {
        const entry = this.#maps.shard.get(text(items[1]) ?? '')
        if (entry === undefined) return false
        const event: PubSubEvent = { type: 'smessage', channel: items[1] as Bytes, message: items[2] as Bytes }
        for (const listener of entry.listeners) safely(() => listener.onEvent(event), (error) => listener.settle(error))
        return false
      }
      case 'subscribe':
        this.#acknowledge()
        this.#confirmed('channel', text(items[1]) ?? '')
        return true
      case 'psubscribe':
        this.#acknowledge()
        this.#confirmed('pattern', text(items[1]) ?? '')
        return true
      case 'ssubscribe':
        this.#acknowledge()
        this.#confirmed('shard', text(items[1]) ?? '')
        return true
      case 'unsubscribe':
      case 'punsubscribe':
        this.#acknowledge()
        return true
      case 'sunsubscribe': {
        const key = text(items[1]) ?? ''
        const head = this.#sent[0]
        if (!this.#dropping.has(key) && head !== undefined && head.kind === 'shard' && !head.subscribe && head.keys[head.acknowledged] === key) {
          this.#acknowledge()
          return true
        }
        this.#lost(key, items[1] as Bytes)
        return false
      }
      default:
        throw new BackendUnavailableError('unexpected reply on the subscriber connection')
    }
  }

  /**
   * An error answers the oldest command as a whole. For a shard channel (sent alone) its
   * subscribers fail with it and the connection goes on; a refused SUNSUBSCRIBE (the slot moved
   * away: the server holds nothing for it any more) is done with. A refused SUBSCRIBE or
   * PSUBSCRIBE (ACL) answers several channels with one error: the replies can no longer be
   * matched to channels, so this connection ends and its subscribers fail.
   */
  #refused(reply: ReplyError): boolean {
    const head = this.#sent[0]
    if (head === undefined) return false // nothing awaits an answer: no subscription to fail
    if (head.kind !== 'shard') throw new BackendUnavailableError(`subscription refused: ${reply.message}`)
    this.#sent.shift()
    if (!head.subscribe) return true
    const key = head.keys[0]
    const tag = `shard:${key}`
    const left = (this.#outstanding.get(tag) ?? 1) - 1
    if (left > 0) {
      this.#outstanding.set(tag, left) // a later SSUBSCRIBE of it is on its way and will answer
      return true
    }
    this.#outstanding.delete(tag)
    const entry = this.#maps.shard.get(key)
    if (entry === undefined || entry.confirmed) return true
    this.#maps.shard.delete(key)
    const error = new ShardSubscriptionRefusedError(reply)
    for (const subscriber of [...entry.subscribers]) subscriber.settle(error)
    return true
  }

  /**
   * The server dropped shard channel `key` on its own (its slot was deleted from the node):
   * its listeners hear `sunsubscribe`, with the count of shard channels left to each.
   */
  #lost(key: string, channel: Bytes): void {
    let entry = this.#dropping.get(key)
    if (entry !== undefined) this.#dropping.delete(key)
    else {
      entry = this.#maps.shard.get(key)
      if (entry === undefined || !entry.confirmed) return
      this.#maps.shard.delete(key)
      this.#setAsideSlotOf(key)
    }
    for (const subscriber of entry.subscribers) {
      subscriber.confirmed.delete(key)
      const event: PubSubEvent = { type: 'sunsubscribe', channel, count: subscriber.confirmed.size }
      if (entry.listeners.has(subscriber)) safely(() => subscriber.onEvent(event), (error) => subscriber.settle(error))
    }
  }

  /**
   * Redis drops every channel of a slot at once (one `sunsubscribe` each, sent together): the
   * other confirmed channels of `key`'s slot are set aside as soon as the first frame comes, so
   * that a subscriber leaving on that frame sends no SUNSUBSCRIBE whose answer (a MOVED) could be
   * taken for theirs. Their own frames then find them in {@link #dropping}.
   */
  #setAsideSlotOf(key: string): void {
    const slot = keySlot(Buffer.from(key, 'latin1'))
    for (const [other, entry] of this.#maps.shard) {
      if (!entry.confirmed || keySlot(Buffer.from(other, 'latin1')) !== slot) continue
      this.#maps.shard.delete(other)
      this.#dropping.set(other, entry)
    }
  }

  /** The server confirmed a SUBSCRIBE; once the latest one for a name is, its waiters are in. */
  #confirmed(kind: Kind, key: string): void {
    const tag = `${kind}:${key}`
    const left = (this.#outstanding.get(tag) ?? 1) - 1
    if (left > 0) {
      this.#outstanding.set(tag, left)
      return
    }
    this.#outstanding.delete(tag)
    const entry = this.#maps[kind].get(key)
    if (entry === undefined || entry.confirmed) return
    entry.confirmed = true
    for (const subscriber of entry.subscribers) {
      subscriber.keys.forEach((k, i) => {
        if (k === key) subscriber.ready[i] = true
      })
      this.#emitConfirmations(subscriber)
    }
  }

  #leave(subscriber: Subscriber): void {
    if (!this.#subscribers.delete(subscriber)) return
    const map = this.#maps[subscriber.kind]
    const gone: Buffer[] = []
    for (const key of new Set(subscriber.keys)) {
      const dropping = subscriber.kind === 'shard' ? this.#dropping.get(key) : undefined // the server drops it anyway: nothing to send
      dropping?.subscribers.delete(subscriber)
      dropping?.listeners.delete(subscriber)
      const entry = map.get(key)
      if (entry === undefined) continue
      entry.subscribers.delete(subscriber)
      entry.listeners.delete(subscriber)
      if (entry.subscribers.size === 0) {
        map.delete(key)
        gone.push(entry.name)
      }
    }
    if (this.#closeIfIdle()) return
    if (this.#connection !== undefined) this.#send(this.#connection, subscriber.kind, false, gone)
  }

  /** Nobody listens any more: the connection goes at once. */
  #closeIfIdle(): boolean {
    if (this.#subscribers.size > 0) return false
    const connection = this.#connection
    this.#connection = undefined
    this.#maps.channel.clear()
    this.#maps.pattern.clear()
    this.#maps.shard.clear()
    this.#dropping.clear()
    this.#outstanding.clear()
    this.#sent = []
    connection?.close()
    return true
  }

  #reset(error: Error): void {
    const subscribers = [...this.#subscribers]
    this.#subscribers.clear()
    this.#closeIfIdle()
    for (const subscriber of subscribers) subscriber.settle(error)
  }
}

interface MonitorListener {
  readonly onEvent: (event: MonitorEvent) => void
  settle: (error?: Error) => void
}

export class MonitorHub {
  readonly #config: ConnectionConfig
  readonly #counters: ConnectionCounters
  #connection: Connection | undefined
  /** Resolves once the server answered MONITOR with OK. */
  #starting: Promise<Connection> | undefined
  readonly #listeners = new Set<MonitorListener>()

  constructor(config: ConnectionConfig, counters: ConnectionCounters) {
    this.#config = config
    this.#counters = counters
  }

  get size(): number {
    return this.#listeners.size
  }

  get connected(): boolean {
    return this.#connection !== undefined
  }

  /** Delivers MONITOR lines until `signal` aborts; rejects when the connection fails. */
  monitor(onEvent: (event: MonitorEvent) => void, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.resolve()
    return new Promise<void>((resolve, reject) => {
      let done = false
      const listener: MonitorListener = {
        onEvent,
        settle: (error) => {
          if (done) return
          done = true
          signal.removeEventListener('abort', onAbort)
          this.#listeners.delete(listener)
          this.#closeIfIdle()
          if (error === undefined) resolve()
          else reject(error)
        },
      }
      const onAbort = (): void => listener.settle()
      signal.addEventListener('abort', onAbort, { once: true })
      this.#listeners.add(listener)
      this.#start().catch((error: Error) => listener.settle(error))
    })
  }

  close(): void {
    this.#reset(new BackendUnavailableError('executor closed'))
  }

  #start(): Promise<Connection> {
    if (this.#connection !== undefined) return Promise.resolve(this.#connection)
    this.#starting ??= new Promise<Connection>((resolve, reject) => {
      Connection.open(this.#config, this.#counters).then((connection) => {
        if (this.#listeners.size === 0) {
          connection.close()
          this.#starting = undefined
          return resolve(connection)
        }
        let active = false
        connection.usePushMode((reply) => {
          if (!active) {
            if (reply instanceof ReplyError) throw new BackendUnavailableError(`MONITOR refused: ${reply.message}`)
            if (!(reply instanceof Status) || reply.text !== 'OK') throw new BackendUnavailableError('unexpected reply to MONITOR')
            active = true
            this.#starting = undefined
            this.#connection = connection
            resolve(connection)
            this.#closeIfIdle() // everyone may have left while MONITOR was on its way
            return true
          }
          if (!(reply instanceof Status)) throw new BackendUnavailableError('unexpected reply on the monitor connection')
          const event: MonitorEvent = { line: reply.text }
          for (const listener of this.#listeners) safely(() => listener.onEvent(event), (error) => listener.settle(error))
          return false
        })
        connection.onClose = (error) => {
          if (!active) {
            this.#starting = undefined
            reject(error)
          }
          if (this.#connection === connection || !active) this.#reset(error)
        }
        connection.sendPush(['MONITOR'], 1)
      }, (error: Error) => {
        this.#starting = undefined
        reject(error)
      })
    })
    return this.#starting
  }

  #closeIfIdle(): void {
    if (this.#listeners.size > 0) return
    const connection = this.#connection
    this.#connection = undefined
    connection?.close()
  }

  #reset(error: Error): void {
    const listeners = [...this.#listeners]
    this.#listeners.clear()
    this.#closeIfIdle()
    for (const listener of listeners) listener.settle(error)
  }
}
