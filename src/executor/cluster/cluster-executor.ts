/**
 * The cluster executor: a Redis Cluster client behind the {@link Executor} interface, so the
 * gateway, the RESP listener and the queue service run on a cluster as on one server.
 *
 * It discovers the cluster from seed nodes, keeps a slot map, and runs each command on the node
 * that serves its slot through a {@link SocketExecutor} per node (its pools, pipelining,
 * transactions and shared pub/sub connections). See docs/cluster.md for what runs where.
 *
 */

import { ReplyError, type Arg, type Command, type Reply } from '../../reply.js'
import { asBuffer } from '../../resp/protocol.js'
import { BackendUnavailableError, OutcomeUnknownError, type CallContext, type Executor, type MonitorEvent, type PubSubEvent, type Subscription } from '../executor.js'
import { ConnectFailedError, ReplyTooLargeError } from '../socket/connection.js'
import { parseRedisUrl, resolveOptions, type SocketExecutorOptions } from '../socket/options.js'
import { SocketExecutor } from '../socket/socket-executor.js'
import { combineInfo, combineMget, combineReplies } from './combine.js'
import { clusterSettings, type ClusterExecutorOptions, type ClusterSettings } from './options.js'
import { backoffDelay, pause, redirectOf } from './redirect.js'
import { route, transactionSlot, type Route, type Split } from './route.js'
import { subscribeShards, together, type ShardHost } from './shard-subscribe.js'
import { keySlot } from './slot.js'
import { SlotMap, address, parseAddress, type NodeAddress } from './slot-map.js'

const EXEC_ABORT = new ReplyError('EXECABORT Transaction discarded because of previous errors.')
const SLOT_NOT_SERVED = 'CLUSTERDOWN Hash slot not served'
/** Least time between two topology refreshes that redirections trigger, in ms. */
const MIN_REFRESH_GAP = 1_000
/** Bits of the cluster SCAN cursor that say which master the walk is at. */
const SCAN_INDEX_BITS = 1024n

/** What a {@link ClusterExecutor} knows of its cluster, for tests and dashboards. @public */
export interface ClusterExecutorStats {
  /** Masters serving slots, ordered by their lowest slot. */
  readonly masters: readonly string[]
  /** Nodes with an open executor (masters, replicas, seeds). */
  readonly nodes: number
  /** Topology refreshes completed. */
  readonly refreshes: number
  /** MOVED redirections followed. */
  readonly moved: number
  /** ASK redirections followed. */
  readonly asked: number
  /** Attempts retried after TRYAGAIN, CLUSTERDOWN or an unreachable node. */
  readonly retries: number
  /** Local `subscribe()` and `monitor()` calls served, summed over the nodes (one call may use several). */
  readonly subscribers: number
  readonly monitors: number
  /** Shared subscriber and MONITOR connections open, over every node. */
  readonly streamConnections: number
}

/**
 * An {@link Executor} in front of a Redis Cluster (or Valkey cluster).
 *
 * - Commands run on the master of their keys' slot (hash tags honoured); keyless commands on any
 *   master; cluster-wide ones (DBSIZE, KEYS, SCAN, FLUSHALL, SCRIPT LOAD, FUNCTION LOAD, INFO's
 *   keyspace, RANDOMKEY) on every master, answered for the whole cluster.
 * - Keys in several slots: MGET, MSET, DEL, UNLINK, EXISTS and TOUCH are split per slot; every
 *   other command, and every transaction, answers Redis's `CROSSSLOT` error.
 * - `MOVED` updates the slot map (and refreshes it), `ASK` retries once on the importing node
 *   after `ASKING`; `TRYAGAIN`, `CLUSTERDOWN` and unreachable nodes are retried with backoff for
 *   `retryWindow` ms while the topology is refreshed (failovers).
 * - Pipelines are split per node, sent in parallel, answered in request order; a redirected row
 *   is retried alone.
 * - Shard subscriptions (`kind: 'shard'`) live on the master of their channel's slot and follow
 *   it when it moves (see shard-subscribe.ts); SPUBLISH runs there too.
 * @public
 */
export class ClusterExecutor implements Executor {
  readonly #base: SocketExecutorOptions
  readonly #settings: ClusterSettings
  readonly #seeds: NodeAddress[]
  readonly #seedHosts = new Map<NodeAddress, string>()
  readonly #nodes = new Map<NodeAddress, SocketExecutor>()
  #map: SlotMap | undefined
  #masters: NodeAddress[] = []
  #refreshing: Promise<void> | undefined
  #lastRefresh = 0
  #timer: ReturnType<typeof setInterval> | undefined
  /** A refresh a MOVED asked for, waiting for {@link MIN_REFRESH_GAP} to pass. */
  #refreshTimer: ReturnType<typeof setTimeout> | undefined
  #next = 0
  #closed = false
  readonly #counts = { refreshes: 0, moved: 0, asked: 0, retries: 0 }

  constructor(options: ClusterExecutorOptions = {}) {
    this.#settings = clusterSettings(options)
    const { seeds = [], readFromReplicas: _r, refreshInterval: _i, maxRedirections: _m, retryWindow: _w, ...base } = options
    const urls = [...(options.url !== undefined ? [options.url] : []), ...seeds]
    // The first URL's credentials and options serve every node; each seed only adds where to ask.
    this.#base = { ...base, url: urls[0], readOnly: this.#settings.readFromReplicas }
    resolveOptions(this.#base) // refuses malformed options now, not at the first command
    this.#seeds = urls.length === 0 ? [this.#seedOf(resolveOptions(this.#base))] : urls.map((url) => this.#seedOf(parseRedisUrl(url)))
    if (this.#settings.refreshInterval > 0) {
      this.#timer = setInterval(() => this.#refresh().catch(() => {}), this.#settings.refreshInterval)
      this.#timer.unref?.()
    }
  }

  #seedOf(parsed: { host?: string; port?: number }): NodeAddress {
    const defaults = resolveOptions({ ...this.#base, url: undefined })
    const host = parsed.host ?? defaults.host
    const node = address(host, parsed.port ?? defaults.port)
    this.#seedHosts.set(node, host)
    return node
  }

  get stats(): ClusterExecutorStats {
    let subscribers = 0
    let monitors = 0
    let streamConnections = 0
    for (const node of this.#nodes.values()) {
      const stats = node.stats
      subscribers += stats.subscribers
      monitors += stats.monitors
      streamConnections += stats.subscriberConnections + stats.monitorConnections
    }
    return { masters: [...this.#masters], nodes: this.#nodes.size, ...this.#counts, subscribers, monitors, streamConnections }
  }

  /** Discovers the cluster now (the first call does it otherwise); rejects when no seed answers. */
  connect(): Promise<void> {
    return this.#ensure()
  }

  exec(command: Command, context?: CallContext): Promise<Reply> {
    if (this.#closed) return Promise.reject(new BackendUnavailableError('executor closed'))
    if (this.#map === undefined) return this.#ensure().then(() => this.exec(command, context))
    const where = route(command)
    switch (where.kind) {
      case 'slot':
        if (where.publish === 'channel') return this.#publish(command, where.slot, context)
        return this.#run(command, where.slot, where.readOnly, context)
      case 'keyless':
        return this.#run(command, undefined, where.readOnly, context)
      case 'refused':
        return Promise.resolve(where.error)
      case 'fanout':
        return this.#fanout(command, where.nodes, context).then((replies) => combineReplies(where.combine, replies))
      case 'split':
        return this.#split(command, where.split, where.keys, context)
      case 'info':
        return this.#fanout(command, 'masters', context).then(combineInfo)
      case 'scan':
        return this.#scan(command, context)
      case 'randomkey':
        return this.#randomKey(command, context)
    }
  }

  async pipeline(commands: readonly Command[], context?: CallContext): Promise<Reply[]> {
    if (this.#closed) throw new BackendUnavailableError('executor closed')
    await this.#ensure()
    const replies = new Array<Reply>(commands.length)
    const routes = commands.map((command) => route(command))
    const groups = new Map<NodeAddress, number[]>()
    const alone: number[] = []
    routes.forEach((where, i) => {
      if (where.kind === 'refused') replies[i] = where.error
      else if (where.kind !== 'slot' && where.kind !== 'keyless') alone.push(i)
      else {
        const node = this.#target(where.kind === 'slot' ? where.slot : undefined, where.readOnly)
        if (node === undefined) return alone.push(i)
        const rows = groups.get(node)
        if (rows === undefined) groups.set(node, [i])
        else rows.push(i)
      }
    })
    /** Rows to run again one by one, in request order: redirected, or their node was unreachable. */
    const again = new Set<number>(alone)
    let failure: unknown
    await Promise.all([...groups].map(async ([node, rows]) => {
      try {
        const out = await this.#node(node).pipeline(rows.map((i) => commands[i]), context)
        rows.forEach((i, k) => {
          const where = routes[i]
          // The node counted its own streams; those behind other nodes are added (see #publish).
          const reply = where.kind === 'slot' && where.publish === 'channel' && typeof out[k] === 'number' ? (out[k] as number) + this.#listenersElsewhere(commands[i][1], node) : out[k]
          replies[i] = reply
          if (redirectOf(reply) !== undefined) again.add(i)
        })
      } catch (error) {
        for (const i of rows) {
          if (this.#retryable(error, routes[i])) again.add(i)
          else failure ??= error
        }
      }
    }))
    if (failure !== undefined) throw failure
    for (const i of [...again].sort((a, b) => a - b)) replies[i] = await this.exec(commands[i], context)
    return replies
  }

  async transaction(commands: readonly Command[], context?: CallContext): Promise<Reply[] | ReplyError> {
    if (this.#closed) throw new BackendUnavailableError('executor closed')
    await this.#ensure()
    const slot = transactionSlot(commands)
    if (slot instanceof ReplyError) return slot
    const started = Date.now()
    for (let attempt = 0; ; attempt++) {
      const node = this.#target(slot, false)
      if (node === undefined) {
        if (Date.now() - started >= this.#settings.retryWindow) throw unavailable(SLOT_NOT_SERVED)
        await this.#recover(attempt)
        continue
      }
      let replies: Reply[] | ReplyError
      try {
        replies = await this.#node(node).transactionReplies(commands, context)
      } catch (error) {
        if (!(error instanceof ConnectFailedError) || this.#closed || Date.now() - started >= this.#settings.retryWindow) throw error
        await this.#recover(attempt)
        continue
      }
      if (replies instanceof ReplyError) return replies
      const exec = replies[commands.length + 1]
      const redirect = exec instanceof ReplyError || replies[0] instanceof ReplyError ? replies.map(redirectOf).find((r) => r !== undefined) : undefined
      if (redirect === undefined) return this.#publishCounts(commands, this.#execReply(replies, commands.length), node)
      // EXEC was aborted by a redirection at queue time: nothing ran, so it is safe to run again.
      if (redirect.kind === 'moved') this.#moved(redirect.slot, redirect.node)
      else if (Date.now() - started >= this.#settings.retryWindow) return this.#execReply(replies, commands.length)
      else await this.#recover(attempt)
    }
  }

  /** PUBLISH and SPUBLISH rows of a transaction, as the server counted them on `node`, counted as #publish does. */
  #publishCounts(commands: readonly Command[], replies: Reply[] | ReplyError, node: NodeAddress): Reply[] | ReplyError {
    if (replies instanceof ReplyError) return replies
    return replies.map((reply, i) => {
      const where = route(commands[i])
      if (where.kind !== 'slot' || where.publish === undefined || typeof reply !== 'number') return reply
      const sharded = where.publish === 'shard'
      const own = this.#node(node).receivers(commands[i][1], sharded)
      // A shard channel's subscribers are all on the node of its slot; other channels' anywhere.
      return Math.max(0, reply - own.subscriptions) + own.listeners + (sharded ? 0 : this.#listenersElsewhere(commands[i][1], node))
    })
  }

  #execReply(replies: readonly Reply[], count: number): Reply[] | ReplyError {
    if (replies[0] instanceof ReplyError) return replies[0]
    const exec = replies[count + 1]
    if (exec instanceof ReplyError) return exec
    if (!Array.isArray(exec)) return EXEC_ABORT
    return exec as Reply[]
  }

  /** What {@link subscribeShards} uses of this executor: the slot map, the nodes, recovery. */
  #shardHost(): ShardHost {
    const self = this
    return {
      masterOf: (slot) => self.#target(slot, false),
      executor: (node) => self.#node(node),
      moved: (slot, node) => self.#moved(slot, node),
      recover: (attempt) => self.#recover(attempt),
      retryWindow: self.#settings.retryWindow,
      maxRedirections: self.#settings.maxRedirections,
      get closed() {
        return self.#closed
      },
    }
  }

  /**
   * Channels are spread by their slot (a pattern by the slot of its text): PUBLISH runs on the
   * node of its channel's slot, so its count includes the subscribers there. Redis Cluster
   * forwards every PUBLISH to every node, so any node would deliver the messages.
   */
  async subscribe(target: Subscription, onEvent: (event: PubSubEvent) => void, signal: AbortSignal, context?: CallContext): Promise<void> {
    if (this.#closed) throw new BackendUnavailableError('executor closed')
    await this.#ensure()
    if (target.kind === 'shard') return subscribeShards(this.#shardHost(), target.names, onEvent, signal, context)
    const groups = new Map<NodeAddress, Arg[]>()
    for (const name of target.names) {
      const node = this.#target(keySlot(name), false) ?? this.#anyMaster()
      if (node === undefined) throw new BackendUnavailableError('no cluster master known')
      const names = groups.get(node)
      if (names === undefined) groups.set(node, [name])
      else names.push(name)
    }
    if (groups.size <= 1) {
      const [node] = groups.keys()
      return this.#node(node ?? this.#seeds[0]).subscribe(target, onEvent, signal, context)
    }
    // Several nodes: each confirms its own names; the counts are renumbered over the whole call.
    const confirmed = new Set<string>()
    const relay = (event: PubSubEvent): void => {
      if (event.type !== 'subscribe' && event.type !== 'psubscribe') return onEvent(event)
      confirmed.add(asBuffer(event.channel).toString('latin1'))
      onEvent({ ...event, count: confirmed.size })
    }
    return together(signal, (inner) => [...groups].map(([node, names]) => this.#node(node).subscribe({ kind: target.kind, names }, relay, inner, context)))
  }

  /** MONITOR of every master, merged in arrival order. */
  async monitor(onEvent: (event: MonitorEvent) => void, signal: AbortSignal, context?: CallContext): Promise<void> {
    if (this.#closed) throw new BackendUnavailableError('executor closed')
    await this.#ensure()
    return together(signal, (inner) => this.#masters.map((node) => this.#node(node).monitor(onEvent, inner, context)))
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    if (this.#timer !== undefined) clearInterval(this.#timer)
    if (this.#refreshTimer !== undefined) clearTimeout(this.#refreshTimer)
    await Promise.all([...this.#nodes.values()].map((node) => node.close()))
    this.#nodes.clear()
  }

  // -------------------------------------------------------------------------------------------
  // Running on one node, with redirections

  /**
   * Runs `command` on the node of `slot` (any master when undefined), following MOVED and ASK,
   * retrying TRYAGAIN, CLUSTERDOWN and unreachable nodes until `retryWindow` has passed.
   */
  async #run(command: Command, slot: number | undefined, readOnly: boolean, context: CallContext | undefined, answeredBy?: (node: NodeAddress) => void): Promise<Reply> {
    const started = Date.now()
    let ask: NodeAddress | undefined
    let redirections = 0
    let fromReplica = readOnly
    for (let attempt = 0; ; attempt++) {
      const node = ask ?? this.#target(slot, fromReplica)
      if (node === undefined) {
        if (Date.now() - started >= this.#settings.retryWindow) throw unavailable(SLOT_NOT_SERVED)
        await this.#recover(attempt)
        continue
      }
      let reply: Reply
      try {
        reply = ask !== undefined ? (await this.#node(node).pipeline([['ASKING'], command], context))[1] : await this.#node(node).exec(command, context)
      } catch (error) {
        if (!this.#retryable(error, { kind: 'keyless', readOnly }) || Date.now() - started >= this.#settings.retryWindow) throw error
        ask = undefined
        await this.#recover(attempt)
        continue
      }
      ask = undefined
      if (fromReplica && reply instanceof ReplyError && reply.message.startsWith('LOADING') && slot !== undefined && node !== this.#target(slot, false)) {
        fromReplica = false // a replica still loading its data: the master answers
        continue
      }
      const redirect = redirectOf(reply)
      if (redirect === undefined) {
        answeredBy?.(node)
        return reply
      }
      if (redirect.kind === 'moved' || redirect.kind === 'ask') {
        if (++redirections > this.#settings.maxRedirections) return reply
        if (redirect.kind === 'moved') this.#moved(redirect.slot, redirect.node)
        else {
          this.#counts.asked++
          ask = redirect.node
        }
        continue
      }
      if (Date.now() - started >= this.#settings.retryWindow) {
        // A cluster still down after the window is an unavailable backend (503 at the gateway);
        // TRYAGAIN is Redis's answer to this one command, and stays a reply.
        if (redirect.kind === 'clusterdown') throw unavailable((reply as ReplyError).message)
        return reply
      }
      if (redirect.kind === 'clusterdown') await this.#recover(attempt)
      else {
        this.#counts.retries++
        await pause(backoffDelay(attempt))
      }
    }
  }

  /**
   * PUBLISH runs on the node of its channel's slot, whose executor counts the local streams
   * behind its own subscriber connections; the streams this executor serves through other nodes
   * (patterns, channels subscribed together with others) receive the message too, as the
   * cluster forwards it, and are added.
   */
  async #publish(command: Command, slot: number, context: CallContext | undefined): Promise<Reply> {
    let answering: NodeAddress | undefined
    const count = await this.#run(command, slot, false, context, (node) => (answering = node))
    if (typeof count !== 'number') return count
    return answering === undefined ? count : count + this.#listenersElsewhere(command[1], answering)
  }

  /** Local streams a message on `channel` reaches through nodes other than `except`. */
  #listenersElsewhere(channel: Arg, except: NodeAddress): number {
    let listeners = 0
    for (const [node, executor] of this.#nodes) if (node !== except) listeners += executor.receivers(channel).listeners
    return listeners
  }

  /**
   * Whether a failed call may run again: when nothing was sent (the node could not be reached,
   * or the call failed before it was written: any failure but an {@link OutcomeUnknownError}),
   * or when the command only reads. A write that was sent may have run, so it is not repeated:
   * the caller gets the outcome-unknown failure.
   */
  #retryable(error: unknown, where: Route): boolean {
    if (this.#closed || !(error instanceof BackendUnavailableError) || error instanceof ReplyTooLargeError) return false
    if (!(error instanceof OutcomeUnknownError)) return true
    return (where.kind === 'slot' || where.kind === 'keyless') && where.readOnly
  }

  /**
   * After a failure: wait the backoff, then refresh the topology (a failover may be under way).
   * The refresh starts after the failure: one already running may have read the topology before it.
   */
  async #recover(attempt: number): Promise<void> {
    this.#counts.retries++
    await pause(backoffDelay(attempt))
    await this.#refreshing?.catch(() => {})
    await this.#refresh().catch(() => {})
  }

  /** The node for a slot (a replica for reads when configured), or any master for no slot. */
  #target(slot: number | undefined, readOnly: boolean): NodeAddress | undefined {
    if (slot === undefined) return this.#anyMaster()
    const shard = this.#map?.shard(slot)
    if (shard === undefined) return undefined
    if (readOnly && this.#settings.readFromReplicas && shard.replicas.length > 0) {
      return shard.replicas[this.#next++ % shard.replicas.length]
    }
    return shard.master
  }

  #anyMaster(): NodeAddress | undefined {
    if (this.#masters.length === 0) return undefined
    return this.#masters[this.#next++ % this.#masters.length]
  }

  #node(node: NodeAddress): SocketExecutor {
    let executor = this.#nodes.get(node)
    if (executor === undefined) {
      const { host, port } = parseAddress(node)
      executor = new SocketExecutor({ ...this.#base, host, port })
      this.#nodes.set(node, executor)
    }
    return executor
  }

  #moved(slot: number, node: NodeAddress): void {
    this.#counts.moved++
    this.#map?.moved(slot, node)
    this.#masters = this.#map?.masters() ?? []
    // One MOVED usually means more slots moved (a resharding, a failover): learn them all.
    this.#refreshSoon()
  }

  /**
   * A refresh now, or (at most one a second) as soon as the last one is a second old: a MOVED
   * that arrives just after a refresh (the cluster not settled yet) still gets a refresh, so
   * the masters list (which cluster-wide commands go to) never keeps a demoted master until the
   * periodic refresh.
   */
  #refreshSoon(): void {
    const wait = MIN_REFRESH_GAP - (Date.now() - this.#lastRefresh)
    if (wait <= 0) {
      this.#refresh().catch(() => {})
      return
    }
    if (this.#refreshTimer !== undefined || this.#closed) return
    this.#refreshTimer = setTimeout(() => {
      this.#refreshTimer = undefined
      if (!this.#closed) this.#refresh().catch(() => {})
    }, wait)
    this.#refreshTimer.unref?.()
  }

  // -------------------------------------------------------------------------------------------
  // Cluster-wide commands

  async #fanout(command: Command, nodes: 'masters' | 'all', context: CallContext | undefined): Promise<Reply[]> {
    const targets = nodes === 'masters' ? this.#masters : (this.#map?.nodes() ?? [])
    return Promise.all(targets.map((node) => this.#node(node).exec(command, context)))
  }

  /** A multi-key command whose keys span slots, as one command per slot. */
  async #split(command: Command, split: Split, keys: readonly number[], context: CallContext | undefined): Promise<Reply> {
    const bySlot = new Map<number, number[]>()
    keys.forEach((position, ordinal) => {
      const slot = keySlot(command[position])
      const ordinals = bySlot.get(slot)
      if (ordinals === undefined) bySlot.set(slot, [ordinal])
      else ordinals.push(ordinal)
    })
    const readOnly = split === 'mget'
    const parts = await Promise.all([...bySlot].map(async ([slot, ordinals]): Promise<{ keys: number[]; reply: Reply }> => {
      const part: Arg[] = [command[0]]
      for (const ordinal of ordinals) {
        part.push(command[keys[ordinal]])
        if (split === 'mset') part.push(command[keys[ordinal] + 1])
      }
      return { keys: ordinals, reply: await this.#run(part, slot, readOnly, context) }
    }))
    if (split === 'mget') return combineMget(keys.length, parts)
    return combineReplies(split === 'mset' ? 'all_succeeded' : 'agg_sum', parts.map((part) => part.reply))
  }

  /**
   * SCAN over every master with one cursor: the low 10 bits say which master (in slot order),
   * the rest is that master's own cursor. A walk ends when the last master's cursor is 0.
   */
  async #scan(command: Command, context: CallContext | undefined): Promise<Reply> {
    if (command.length < 2) return new ReplyError("ERR wrong number of arguments for 'scan' command")
    const text = typeof command[1] === 'string' ? command[1] : asBuffer(command[1]).toString('latin1')
    if (!/^\d+$/.test(text) || BigInt(text) >= 1n << 74n) return new ReplyError('ERR invalid cursor')
    const cursor = BigInt(text)
    const index = Number(cursor % SCAN_INDEX_BITS)
    const masters = this.#masters
    if (index >= masters.length) return [Buffer.from('0'), []]
    const reply = await this.#node(masters[index]).exec(['SCAN', String(cursor / SCAN_INDEX_BITS), ...command.slice(2)], context)
    if (!Array.isArray(reply)) return reply
    const [next, keys] = reply as readonly Reply[]
    const nodeCursor = BigInt(next instanceof Uint8Array ? asBuffer(next).toString('latin1') : String(next))
    let combined: bigint
    if (nodeCursor !== 0n) combined = nodeCursor * SCAN_INDEX_BITS + BigInt(index)
    else combined = index + 1 < masters.length ? BigInt(index + 1) : 0n
    return [Buffer.from(combined.toString()), keys]
  }

  /** A random key of a random master that has keys. */
  async #randomKey(command: Command, context: CallContext | undefined): Promise<Reply> {
    const order = [...this.#masters]
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1))
      ;[order[i], order[j]] = [order[j], order[i]]
    }
    for (const node of order) {
      const reply = await this.#node(node).exec(command, context)
      if (reply !== null) return reply
    }
    return null
  }

  // -------------------------------------------------------------------------------------------
  // Topology

  /** The slot map, discovered on first use. */
  #ensure(): Promise<void> {
    if (this.#map !== undefined) return Promise.resolve()
    return this.#refresh()
  }

  /** Asks the known nodes, then the seeds, for the topology; one refresh at a time. */
  #refresh(): Promise<void> {
    this.#refreshing ??= this.#discover().finally(() => {
      this.#refreshing = undefined
      this.#lastRefresh = Date.now()
    })
    return this.#refreshing
  }

  async #discover(): Promise<void> {
    const candidates = [...new Set([...(this.#map?.nodes() ?? []), ...this.#seeds])]
    let failure: unknown
    for (const node of candidates) {
      if (this.#closed) throw new BackendUnavailableError('executor closed')
      const host = this.#seedHosts.get(node) ?? parseAddress(node).host
      try {
        const executor = this.#node(node)
        let map = SlotMap.fromShards(await executor.exec(['CLUSTER', 'SHARDS']), host)
        if (map instanceof ReplyError) map = SlotMap.fromSlots(await executor.exec(['CLUSTER', 'SLOTS']), host)
        if (map instanceof ReplyError) {
          failure = new BackendUnavailableError(`${node} gave no cluster topology: ${map.message}`)
          continue
        }
        const masters = map.masters()
        if (masters.length === 0) {
          failure = new BackendUnavailableError(`${node} knows no cluster master yet`)
          continue
        }
        this.#map = map
        this.#masters = masters
        this.#counts.refreshes++
        return
      } catch (error) {
        failure = error
      }
    }
    throw failure instanceof BackendUnavailableError ? failure : new BackendUnavailableError(`no cluster node answered: ${String(failure)}`)
  }
}

function unavailable(message: string): BackendUnavailableError {
  return new BackendUnavailableError(`cluster unavailable: ${message}`)
}
