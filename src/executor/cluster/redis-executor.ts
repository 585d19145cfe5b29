/**
 * One executor for "a Redis at this URL", whether it is one server or a node of a cluster: the
 * first seed that answers `INFO cluster` decides. `cluster_enabled:1` makes it a
 * {@link ClusterExecutor}; anything else a {@link SocketExecutor}. When INFO is refused (an ACL
 * user without +info), the first `MOVED` reply decides instead.
 *
 */

import { ReplyError, type Command, type Reply } from '../../reply.js'
import { asBuffer } from '../../resp/protocol.js'
import { BackendUnavailableError, type CallContext, type Executor, type MonitorEvent, type PubSubEvent, type Subscription } from '../executor.js'
import { redact, resolveOptions } from '../socket/options.js'
import { SocketExecutor } from '../socket/socket-executor.js'
import { ClusterExecutor } from './cluster-executor.js'
import { splitSeeds, type ClusterExecutorOptions } from './options.js'
import { redirectOf } from './redirect.js'

/**
 * Options of {@link RedisExecutor}: those of a cluster (seeds, routing, retries), which also
 * serve a single server when the seed is not a cluster node.
 * @public
 */
export interface RedisExecutorOptions extends ClusterExecutorOptions {
  /**
   * `'auto'` (default): detect at the first call; `true`: always a cluster; `false`: always one
   * server (a cluster's `MOVED` replies then reach the caller as they are).
   * `url` may name several seeds, comma-separated (`redis://a:7000,redis://b:7001`).
   */
  readonly cluster?: boolean | 'auto'
}

/** What the executor turned out to be. @public */
export type RedisTopology = 'single' | 'cluster'

/**
 * An {@link Executor} for a Redis URL that finds out whether it talks to one server or to a
 * cluster. The CLI's `--redis` uses it.
 * @public
 */
export class RedisExecutor implements Executor {
  readonly #options: RedisExecutorOptions
  readonly #seeds: readonly string[]
  #target: Executor | undefined
  #deciding: Promise<Executor> | undefined
  /** One server chosen because INFO was refused: a MOVED reply would prove it a cluster. */
  #watching = false
  #closed = false

  constructor(options: RedisExecutorOptions = {}) {
    const seeds = [...(options.url !== undefined ? splitSeeds(options.url) : []), ...(options.seeds ?? [])]
    this.#seeds = seeds
    this.#options = { ...options, url: seeds[0], seeds: seeds.slice(1) }
    if (options.cluster === true) this.#target = new ClusterExecutor(this.#options)
    else if (options.cluster === false) {
      if (seeds.length > 1) throw new TypeError('several seed URLs need a cluster: drop cluster: false or keep one URL')
      this.#target = new SocketExecutor(this.#options)
    } else resolveOptions(this.#options) // refuses malformed options now, not at the first call
  }

  /** `single` or `cluster` once decided, else undefined. */
  get topology(): RedisTopology | undefined {
    if (this.#target === undefined) return undefined
    return this.#target instanceof ClusterExecutor ? 'cluster' : 'single'
  }

  /** The executor decided on (deciding now if need be). */
  resolve(): Promise<Executor> {
    if (this.#closed) return Promise.reject(new BackendUnavailableError('executor closed'))
    if (this.#target !== undefined) return Promise.resolve(this.#target)
    this.#deciding ??= this.#decide().finally(() => (this.#deciding = undefined))
    return this.#deciding
  }

  exec(command: Command, context?: CallContext): Promise<Reply> {
    const target = this.#target
    if (target === undefined) return this.resolve().then(() => this.exec(command, context))
    if (!this.#watching) return target.exec(command, context)
    return target.exec(command, context).then((reply) => (this.#provesCluster(reply) ? this.exec(command, context) : reply))
  }

  async pipeline(commands: readonly Command[], context?: CallContext): Promise<Reply[]> {
    const target = await this.resolve()
    const replies = await target.pipeline(commands, context)
    return this.#watching && replies.some((reply) => this.#provesCluster(reply)) ? this.pipeline(commands, context) : replies
  }

  async transaction(commands: readonly Command[], context?: CallContext): Promise<Reply[] | ReplyError> {
    const target = await this.resolve()
    return target.transaction(commands, context)
  }

  async subscribe(target: Subscription, onEvent: (event: PubSubEvent) => void, signal: AbortSignal, context?: CallContext): Promise<void> {
    return (await this.resolve()).subscribe(target, onEvent, signal, context)
  }

  async monitor(onEvent: (event: MonitorEvent) => void, signal: AbortSignal, context?: CallContext): Promise<void> {
    return (await this.resolve()).monitor(onEvent, signal, context)
  }

  async close(): Promise<void> {
    this.#closed = true
    const deciding = this.#deciding
    await this.#target?.close()
    await deciding?.then((target) => target.close(), () => {})
  }

  /** Asks each seed `INFO cluster` until one answers. */
  async #decide(): Promise<Executor> {
    let failure: unknown
    for (const seed of this.#seeds.length > 0 ? this.#seeds : [undefined]) {
      const probe = new SocketExecutor({ ...this.#options, url: seed })
      let reply: Reply
      try {
        reply = await probe.exec(['INFO', 'cluster'])
      } catch (error) {
        failure = error
        await probe.close()
        continue
      }
      const text = reply instanceof Uint8Array ? asBuffer(reply).toString('latin1') : ''
      if (/^cluster_enabled:1\b/m.test(text)) {
        await probe.close()
        const cluster = new ClusterExecutor(this.#options)
        await cluster.connect().catch(async (error: unknown) => {
          await cluster.close()
          throw error
        })
        return this.#settle(cluster)
      }
      if (this.#seeds.length > 1) {
        await probe.close()
        throw new BackendUnavailableError(`several seed URLs were given but ${redact(seed ?? '')} is not a cluster node`)
      }
      this.#watching = reply instanceof ReplyError
      return this.#settle(probe)
    }
    throw failure
  }

  async #settle(target: Executor): Promise<Executor> {
    if (this.#closed) {
      await target.close()
      throw new BackendUnavailableError('executor closed')
    }
    this.#target = target
    return target
  }

  /** A MOVED while watching: the server is a cluster node after all; the cluster executor takes over. */
  #provesCluster(reply: Reply): boolean {
    if (!this.#watching || redirectOf(reply)?.kind !== 'moved') return false
    this.#watching = false
    const single = this.#target
    this.#target = new ClusterExecutor(this.#options)
    void single?.close()
    return true
  }
}
