/**
 * Options of the cluster executor, and the seed list a `--redis` value or `url` gives.
 *
 */

import type { SocketExecutorOptions } from '../socket/options.js'

/**
 * How to reach a Redis Cluster: one or more seed nodes, and the settings every node connection
 * uses (credentials, TLS, timeouts, pool size: those of {@link SocketExecutorOptions}).
 * @public
 */
export interface ClusterExecutorOptions extends SocketExecutorOptions {
  /**
   * Seed nodes (`redis://` / `rediss://` URLs) tried in order to discover the cluster; `url`, if
   * given, is tried first. Credentials and options of the first URL apply to every node.
   */
  readonly seeds?: readonly string[]
  /** Serve read-only commands from replicas (their connections send `READONLY`). Default false. */
  readonly readFromReplicas?: boolean
  /** Milliseconds between topology refreshes besides those redirections trigger. 0 disables. Default 10000. */
  readonly refreshInterval?: number
  /** Most `MOVED`/`ASK` redirections one command follows. Default 16. */
  readonly maxRedirections?: number
  /**
   * Milliseconds a command keeps retrying while its slot cannot be served: the node is
   * unreachable, the cluster answers `CLUSTERDOWN` or `TRYAGAIN` (a failover, a migration).
   * After it, the last error is the answer. Default 5000.
   */
  readonly retryWindow?: number
}

/** Settings of the cluster layer, defaults applied. */
export interface ClusterSettings {
  readonly readFromReplicas: boolean
  readonly refreshInterval: number
  readonly maxRedirections: number
  readonly retryWindow: number
}

export function clusterSettings(options: ClusterExecutorOptions): ClusterSettings {
  const settings = {
    readFromReplicas: options.readFromReplicas ?? false,
    refreshInterval: options.refreshInterval ?? 10_000,
    maxRedirections: options.maxRedirections ?? 16,
    retryWindow: options.retryWindow ?? 5_000,
  }
  if (!(settings.refreshInterval >= 0 && settings.retryWindow >= 0 && settings.maxRedirections >= 0)) {
    throw new TypeError('refreshInterval, retryWindow and maxRedirections must not be negative')
  }
  return settings
}

/**
 * Splits a `--redis` value that names several seeds, comma-separated
 * (`redis://a:7000,redis://b:7001`): a comma followed by a scheme starts the next URL.
 */
export function splitSeeds(value: string): string[] {
  return value.split(/,(?=rediss?:\/\/)/).map((seed) => seed.trim()).filter((seed) => seed !== '')
}
