/**
 * The CONFIG parameters of Redis 7.0: names, aliases, defaults and the rules CONFIG SET checks.
 *
 * The table was read from redis-server 7.0.15 itself: `CONFIG GET *` for the names and defaults,
 * and CONFIG SET probes for each parameter's kind, bounds, enum values and whether it is
 * immutable or protected (the error texts below are the server's). Defaults that describe the
 * host (port, bind, dir, save) are those of a stock server started without a config file.
 *
 * Values are kept as the text CONFIG GET shows, in `engine.config` under the canonical name;
 * other families read their thresholds from there (`hash-max-listpack-entries`, …). The kinds
 * and their checks are in `config-kinds.ts`.
 */
import {
  INT_MAX, INT_MIN, LLONG_MAX, ULLONG_MAX, UINT_MAX, bool, clientOutputBufferLimit, clusterAnnounceHostname, define, immutable, integer,
  latencyPercentiles, memory, scriptTimeLimit, memoryOrPercent, notifyKeyspaceEvents, oneOf, oomScoreAdjValues, protectedParameter, savePoints,
  serverHz, text, words, workingDirectory, type Parameter,
} from './config-kinds.js'

export { InvalidValue, parseMemory, type Parameter } from './config-kinds.js'

const POLICIES = ['volatile-lru', 'volatile-lfu', 'volatile-random', 'volatile-ttl', 'allkeys-lru', 'allkeys-lfu', 'allkeys-random', 'noeviction']
const SHUTDOWN_ACTIONS = ['default', 'save', 'nosave', 'now', 'force']

/** Every parameter of Redis 7.0.15 that `CONFIG GET *` lists, by canonical name. */
export const PARAMETERS: readonly Parameter[] = [
  oneOf('acl-pubsub-default', 'resetchannels', ['allchannels', 'resetchannels']),
  immutable('aclfile', ''),
  integer('acllog-max-len', '128', 0n, LLONG_MAX),
  integer('active-defrag-cycle-max', '25', 1n, 99n),
  integer('active-defrag-cycle-min', '1', 1n, 99n),
  memory('active-defrag-ignore-bytes', '104857600', 1n, LLONG_MAX),
  integer('active-defrag-max-scan-fields', '1000', 1n, LLONG_MAX),
  integer('active-defrag-threshold-lower', '10', 0n, 1000n),
  integer('active-defrag-threshold-upper', '100', 0n, 1000n),
  integer('active-expire-effort', '1', 1n, 10n),
  bool('activedefrag', 'no'),
  bool('activerehashing', 'yes'),
  immutable('always-show-logo', 'no'),
  bool('aof-disable-auto-gc', 'no'),
  bool('aof-load-truncated', 'yes'),
  bool('aof-rewrite-incremental-fsync', 'yes'),
  bool('aof-timestamp-enabled', 'no'),
  bool('aof-use-rdb-preamble', 'yes'),
  immutable('aof_rewrite_cpulist', ''),
  immutable('appenddirname', 'appendonlydir'),
  immutable('appendfilename', 'appendonly.aof'),
  oneOf('appendfsync', 'everysec', ['everysec', 'always', 'no']),
  bool('appendonly', 'no'),
  memory('auto-aof-rewrite-min-size', '67108864', 0n, LLONG_MAX),
  integer('auto-aof-rewrite-percentage', '100', 0n, INT_MAX),
  immutable('bgsave_cpulist', ''),
  define('bind', '* -::*', (value) => words(value).join(' ')),
  text('bind-source-addr', ''),
  immutable('bio_cpulist', ''),
  // The engine stops a script at this limit (it cannot answer BUSY while one runs), so 0, which
  // Redis reads as "busy at once", would stop every script: refused.
  scriptTimeLimit(),
  clientOutputBufferLimit(),
  memory('client-query-buffer-limit', '1073741824', 1048576n, LLONG_MAX),
  bool('cluster-allow-pubsubshard-when-down', 'yes'),
  bool('cluster-allow-reads-when-down', 'no'),
  bool('cluster-allow-replica-migration', 'yes'),
  integer('cluster-announce-bus-port', '0', 0n, 65535n),
  clusterAnnounceHostname(),
  text('cluster-announce-ip', ''),
  integer('cluster-announce-port', '0', 0n, 65535n),
  integer('cluster-announce-tls-port', '0', 0n, 65535n),
  immutable('cluster-config-file', 'nodes.conf'),
  immutable('cluster-enabled', 'no'),
  memory('cluster-link-sendbuf-limit', '0', 0n, ULLONG_MAX),
  integer('cluster-migration-barrier', '1', 0n, INT_MAX),
  integer('cluster-node-timeout', '15000', 0n, LLONG_MAX),
  immutable('cluster-port', '0'),
  oneOf('cluster-preferred-endpoint-type', 'ip', ['ip', 'hostname', 'unknown-endpoint']),
  bool('cluster-replica-no-failover', 'no', 'cluster-slave-no-failover'),
  integer('cluster-replica-validity-factor', '10', 0n, INT_MAX, 'cluster-slave-validity-factor'),
  bool('cluster-require-full-coverage', 'yes'),
  bool('crash-log-enabled', 'yes'),
  bool('crash-memcheck-enabled', 'yes'),
  immutable('daemonize', 'no'),
  immutable('databases', '16'),
  protectedParameter('dbfilename', 'dump.rdb'),
  protectedParameter('dir', workingDirectory()),
  immutable('disable-thp', 'yes'),
  bool('dynamic-hz', 'yes'),
  immutable('enable-debug-command', 'no'),
  immutable('enable-module-command', 'no'),
  immutable('enable-protected-configs', 'no'),
  integer('hash-max-listpack-entries', '512', 0n, LLONG_MAX, 'hash-max-ziplist-entries'),
  memory('hash-max-listpack-value', '64', 0n, LLONG_MAX, 'hash-max-ziplist-value'),
  memory('hll-sparse-max-bytes', '3000', 0n, LLONG_MAX),
  serverHz(),
  text('ignore-warnings', ''),
  immutable('io-threads', '1'),
  immutable('io-threads-do-reads', 'no'),
  bool('jemalloc-bg-thread', 'yes'),
  integer('latency-monitor-threshold', '0', 0n, LLONG_MAX),
  bool('latency-tracking', 'yes'),
  latencyPercentiles(),
  bool('lazyfree-lazy-eviction', 'no'),
  bool('lazyfree-lazy-expire', 'no'),
  bool('lazyfree-lazy-server-del', 'no'),
  bool('lazyfree-lazy-user-del', 'no'),
  bool('lazyfree-lazy-user-flush', 'no'),
  integer('lfu-decay-time', '1', 0n, INT_MAX),
  integer('lfu-log-factor', '10', 0n, INT_MAX),
  integer('list-compress-depth', '0', 0n, INT_MAX),
  integer('list-max-listpack-size', '-2', INT_MIN, INT_MAX, 'list-max-ziplist-size'),
  immutable('logfile', ''),
  oneOf('loglevel', 'notice', ['debug', 'verbose', 'notice', 'warning']),
  text('masterauth', ''),
  text('masteruser', ''),
  integer('maxclients', '10000', 1n, UINT_MAX),
  memory('maxmemory', '0', 0n, ULLONG_MAX),
  memoryOrPercent('maxmemory-clients', '0'),
  integer('maxmemory-eviction-tenacity', '10', 0n, 100n),
  oneOf('maxmemory-policy', 'noeviction', POLICIES),
  integer('maxmemory-samples', '5', 1n, INT_MAX),
  integer('min-replicas-max-lag', '10', 0n, INT_MAX, 'min-slaves-max-lag'),
  integer('min-replicas-to-write', '0', 0n, INT_MAX, 'min-slaves-to-write'),
  bool('no-appendfsync-on-rewrite', 'no'),
  notifyKeyspaceEvents(),
  oneOf('oom-score-adj', 'no', ['no', 'yes', 'relative', 'absolute']),
  oomScoreAdjValues(),
  immutable('pidfile', ''),
  integer('port', '6379', 0n, 65535n),
  text('proc-title-template', '{title} {listen-addr} {server-mode}'),
  oneOf('propagation-error-behavior', 'ignore', ['ignore', 'panic', 'panic-on-replicas']),
  bool('protected-mode', 'yes'),
  memory('proto-max-bulk-len', '536870912', 1048576n, LLONG_MAX),
  bool('rdb-del-sync-files', 'no'),
  bool('rdb-save-incremental-fsync', 'yes'),
  immutable('rdbchecksum', 'yes'),
  bool('rdbcompression', 'yes'),
  memory('repl-backlog-size', '1048576', 1n, LLONG_MAX),
  integer('repl-backlog-ttl', '3600', 0n, LLONG_MAX),
  bool('repl-disable-tcp-nodelay', 'no'),
  oneOf('repl-diskless-load', 'disabled', ['disabled', 'on-empty-db', 'swapdb']),
  bool('repl-diskless-sync', 'yes'),
  integer('repl-diskless-sync-delay', '5', 0n, INT_MAX),
  integer('repl-diskless-sync-max-replicas', '0', 0n, INT_MAX),
  integer('repl-ping-replica-period', '10', 1n, INT_MAX, 'repl-ping-slave-period'),
  integer('repl-timeout', '60', 1n, INT_MAX),
  text('replica-announce-ip', '', 'slave-announce-ip'),
  integer('replica-announce-port', '0', 0n, 65535n, 'slave-announce-port'),
  bool('replica-announced', 'yes'),
  bool('replica-ignore-disk-write-errors', 'no'),
  bool('replica-ignore-maxmemory', 'yes', 'slave-ignore-maxmemory'),
  bool('replica-lazy-flush', 'no', 'slave-lazy-flush'),
  integer('replica-priority', '100', 0n, INT_MAX, 'slave-priority'),
  bool('replica-read-only', 'yes', 'slave-read-only'),
  bool('replica-serve-stale-data', 'yes', 'slave-serve-stale-data'),
  immutable('replicaof', '', 'slaveof'),
  text('requirepass', ''),
  oneOf('sanitize-dump-payload', 'no', ['no', 'yes', 'clients']),
  savePoints(),
  immutable('server_cpulist', ''),
  integer('set-max-intset-entries', '512', 0n, LLONG_MAX),
  immutable('set-proc-title', 'yes'),
  oneOf('shutdown-on-sigint', 'default', SHUTDOWN_ACTIONS),
  oneOf('shutdown-on-sigterm', 'default', SHUTDOWN_ACTIONS),
  integer('shutdown-timeout', '10', 0n, INT_MAX),
  integer('slowlog-log-slower-than', '10000', -1n, LLONG_MAX),
  integer('slowlog-max-len', '128', 0n, LLONG_MAX),
  immutable('socket-mark-id', '0'),
  bool('stop-writes-on-bgsave-error', 'yes'),
  memory('stream-node-max-bytes', '4096', 0n, LLONG_MAX),
  integer('stream-node-max-entries', '100', 0n, LLONG_MAX),
  immutable('supervised', 'no'),
  immutable('syslog-enabled', 'no'),
  immutable('syslog-facility', 'local0'),
  immutable('syslog-ident', 'redis'),
  immutable('tcp-backlog', '511'),
  integer('tcp-keepalive', '300', 0n, INT_MAX),
  integer('timeout', '0', 0n, INT_MAX),
  oneOf('tls-auth-clients', 'yes', ['no', 'yes', 'optional']),
  text('tls-ca-cert-dir', ''),
  text('tls-ca-cert-file', ''),
  text('tls-cert-file', ''),
  text('tls-ciphers', ''),
  text('tls-ciphersuites', ''),
  text('tls-client-cert-file', ''),
  text('tls-client-key-file', ''),
  text('tls-client-key-file-pass', ''),
  bool('tls-cluster', 'no'),
  text('tls-dh-params-file', ''),
  text('tls-key-file', ''),
  text('tls-key-file-pass', ''),
  integer('tls-port', '0', 0n, 65535n),
  bool('tls-prefer-server-ciphers', 'no'),
  text('tls-protocols', ''),
  bool('tls-replication', 'no'),
  integer('tls-session-cache-size', '20480', 0n, INT_MAX),
  integer('tls-session-cache-timeout', '300', 0n, INT_MAX),
  bool('tls-session-caching', 'yes'),
  integer('tracking-table-max-keys', '1000000', 0n, LLONG_MAX),
  immutable('unixsocket', ''),
  immutable('unixsocketperm', '0'),
  integer('zset-max-listpack-entries', '128', 0n, LLONG_MAX, 'zset-max-ziplist-entries'),
  memory('zset-max-listpack-value', '64', 0n, LLONG_MAX, 'zset-max-ziplist-value'),
]

/** Parameters by every name they answer to (canonical and alias), lowercase. */
export const PARAMETERS_BY_NAME: ReadonlyMap<string, Parameter> = new Map(
  PARAMETERS.flatMap((parameter) =>
    parameter.alias === undefined ? [[parameter.name, parameter]] : [[parameter.name, parameter], [parameter.alias, parameter]],
  ),
)

/** Every name CONFIG GET patterns match against, canonical names and aliases alike. */
export const PARAMETER_NAMES: readonly string[] = [...PARAMETERS_BY_NAME.keys()]

/**
 * The configuration of an engine: parameter texts by canonical name, with a version that every
 * change bumps, so that values derived from it (encoding limits read on every write) are parsed
 * once per change instead of once per command (see {@link derivedFromConfig}).
 */
export class ConfigTable extends Map<string, string> {
  version = 0

  override set(name: string, value: string): this {
    this.version++
    return super.set(name, value)
  }

  override delete(name: string): boolean {
    this.version++
    return super.delete(name)
  }

  override clear(): void {
    this.version++
    super.clear()
  }
}

/**
 * `compute` over a configuration, remembered until the configuration changes (one entry: the
 * last configuration asked about).
 */
export function derivedFromConfig<T>(compute: (config: ReadonlyMap<string, string>) => T): (config: ConfigTable) => T {
  let source: ConfigTable | undefined
  let version = -1
  let value!: T
  return (config) => {
    if (config !== source || config.version !== version) {
      value = compute(config)
      source = config
      version = config.version
    }
    return value
  }
}

/** A fresh configuration with Redis's defaults; `databases` follows the engine's option. */
export function defaultConfig(databases = 16): ConfigTable {
  const config = new ConfigTable()
  for (const parameter of PARAMETERS) config.set(parameter.name, parameter.defaultValue)
  config.set('databases', String(databases))
  return config
}
