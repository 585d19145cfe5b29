/**
 * The CONFIG parameters of Redis 7.0: names, aliases, defaults and the rules CONFIG SET checks.
 *
 * The table was read from redis-server 7.0.15 itself: `CONFIG GET *` for the names and defaults,
 * and CONFIG SET probes for each parameter's kind, bounds, enum values and whether it is
 * immutable or protected (the error texts below are the server's). Defaults that describe the
 * host (port, bind, dir, save) are those of a stock server started without a config file.
 *
 * Values are kept as the text CONFIG GET shows, in `engine.config` under the canonical name;
 * other families read their thresholds from there (`hash-max-listpack-entries`, …).
 */
import { readInt64 } from '../../numbers.js'

/** Why CONFIG SET refused a value: the text after `CONFIG SET failed (…) - `. */
export class InvalidValue {
  constructor(readonly reason: string) {}
}

/** How a parameter may be changed at run time (Redis's IMMUTABLE_CONFIG / PROTECTED_CONFIG). */
export type Access = 'mutable' | 'immutable' | 'protected'

export interface Parameter {
  /** The canonical (lowercase) name, the key in `engine.config`. */
  readonly name: string
  /** The older name Redis still accepts and lists (`slave-priority` for `replica-priority`). */
  readonly alias?: string
  readonly defaultValue: string
  readonly access: Access
  /** Checks a CONFIG SET value: the text CONFIG GET will show, or why it is refused. */
  readonly parse: (value: string, current: string) => string | InvalidValue
}

const INT_MAX = 2147483647n
const INT_MIN = -2147483648n
const LLONG_MAX = 9223372036854775807n
const ULLONG_MAX = 18446744073709551615n
const UINT_MAX = 4294967295n

function define(name: string, defaultValue: string, parse: Parameter['parse'], alias?: string, access: Access = 'mutable'): Parameter {
  return alias === undefined ? { name, defaultValue, access, parse } : { name, alias, defaultValue, access, parse }
}

const acceptAny = (value: string): string => value
const refuse = (): InvalidValue => new InvalidValue('unreachable')

function bool(name: string, defaultValue: 'yes' | 'no', alias?: string): Parameter {
  return define(name, defaultValue, (value) => {
    const lower = value.toLowerCase()
    return lower === 'yes' || lower === 'no' ? lower : new InvalidValue("argument must be 'yes' or 'no'")
  }, alias)
}

function text(name: string, defaultValue: string, alias?: string): Parameter {
  return define(name, defaultValue, acceptAny, alias)
}

/** Parameters CONFIG SET refuses outright; their values only change with a restart in Redis. */
function immutable(name: string, defaultValue: string, alias?: string): Parameter {
  return define(name, defaultValue, refuse, alias, 'immutable')
}

/** Parameters Redis refuses unless `enable-protected-configs` allows it (never, here). */
function protectedParameter(name: string, defaultValue: string): Parameter {
  return define(name, defaultValue, refuse, undefined, 'protected')
}

function oneOf(name: string, defaultValue: string, values: readonly string[]): Parameter {
  const reason = `argument(s) must be one of the following: ${values.join(', ')}`
  return define(name, defaultValue, (value) => {
    const lower = value.toLowerCase()
    return values.includes(lower) ? lower : new InvalidValue(reason)
  })
}

function outOfRange(min: bigint, max: bigint): InvalidValue {
  return new InvalidValue(`argument must be between ${min} and ${max} inclusive`)
}

/** A plain integer: string2ll's strict syntax, then the parameter's bounds. */
function integer(name: string, defaultValue: string, min: bigint, max: bigint, alias?: string): Parameter {
  return define(name, defaultValue, (value) => {
    const parsed = readInt64(value)
    if (parsed === null) return new InvalidValue("argument couldn't be parsed into an integer")
    if (parsed < min || parsed > max) return outOfRange(min, max)
    return parsed.toString()
  }, alias)
}

const MEMORY_UNITS: ReadonlyMap<string, bigint> = new Map([
  ['', 1n], ['b', 1n], ['k', 1000n], ['kb', 1024n], ['m', 1000n ** 2n], ['mb', 1024n ** 2n], ['g', 1000n ** 3n], ['gb', 1024n ** 3n],
])

/**
 * Redis's `memtoull`: digits then an optional unit (`b k kb m mb g gb`, any case). Like the C
 * code, an overlong number saturates (strtoull) and the unit product wraps modulo 2^64; no digits
 * at all reads as 0.
 */
export function parseMemory(value: string): bigint | null {
  let end = 0
  while (end < value.length && value.charCodeAt(end) >= 48 && value.charCodeAt(end) <= 57) end++
  const multiplier = MEMORY_UNITS.get(value.slice(end).toLowerCase())
  if (multiplier === undefined) return null
  let amount = end === 0 ? 0n : BigInt(value.slice(0, end))
  if (amount > ULLONG_MAX) amount = ULLONG_MAX
  return (amount * multiplier) & ULLONG_MAX
}

function memory(name: string, defaultValue: string, min: bigint, max: bigint, alias?: string): Parameter {
  return define(name, defaultValue, (value) => {
    const parsed = parseMemory(value)
    if (parsed === null) return new InvalidValue('argument must be a memory value')
    if (parsed < min || parsed > max) return outOfRange(min, max)
    return parsed.toString()
  }, alias)
}

/** A memory value or a percentage of maxmemory (`10%`), as maxmemory-clients takes. */
function memoryOrPercent(name: string, defaultValue: string): Parameter {
  const invalid = new InvalidValue('argument must be a memory or percent value')
  return define(name, defaultValue, (value) => {
    if (value.endsWith('%')) {
      const percent = readInt64(value.slice(0, -1))
      if (percent === null || percent < 0n) return invalid
      if (percent > 100n) return new InvalidValue('percentage argument must be less or equal to 100')
      return percent === 0n ? '0' : `${percent}%`
    }
    const parsed = parseMemory(value)
    return parsed === null ? invalid : parsed.toString()
  })
}

/** `hz`: any int is accepted, then Redis clamps it to 1..500 (CONFIG_MIN_HZ, CONFIG_MAX_HZ). */
function serverHz(): Parameter {
  const plain = integer('hz', '10', 0n, INT_MAX)
  return define('hz', '10', (value, current) => {
    const parsed = plain.parse(value, current)
    if (parsed instanceof InvalidValue) return parsed
    return String(Math.min(500, Math.max(1, Number(parsed))))
  })
}

/** Splits a multi-word value the way sdssplitargs does for unquoted words. */
function words(value: string): string[] {
  const trimmed = value.trim()
  return trimmed === '' ? [] : trimmed.split(/\s+/)
}

/** C's strtoll over a whole word: optional leading space and sign, then digits only. */
function readLooseInteger(word: string): number | null {
  return /^\s*[+-]?\d+$/.test(word) ? Number(word) : null
}

/** `save "<seconds> <changes> …"`: pairs of non-negative integers, or empty to disable. */
function savePoints(): Parameter {
  const invalid = new InvalidValue('Invalid save parameters')
  return define('save', '3600 1 300 100 60 10000', (value) => {
    const parts = words(value)
    if (parts.length % 2 !== 0) return invalid
    const numbers: number[] = []
    for (const part of parts) {
      const parsed = readLooseInteger(part)
      if (parsed === null || parsed < 0) return invalid
      numbers.push(parsed)
    }
    return numbers.join(' ')
  })
}

/**
 * Keyspace notification classes. CONFIG GET shows them normalized: `A` for the whole
 * `g$lshzxetd` set, then `K`, `E`, `m`; Redis 7.0 does not echo `n`.
 */
const EVENT_CLASSES = 'g$lshzxetd'
function notifyKeyspaceEvents(): Parameter {
  const invalid = new InvalidValue("Invalid event class character. Use 'Ag$lshzxeKEtmdn'.")
  return define('notify-keyspace-events', '', (value) => {
    const seen = new Set<string>()
    for (const flag of value) {
      if (flag === 'A') for (const member of EVENT_CLASSES) seen.add(member)
      else if ('g$lshzxeKEtmdn'.includes(flag)) seen.add(flag)
      else return invalid
    }
    let shown = ''
    const all = [...EVENT_CLASSES].every((flag) => seen.has(flag))
    if (all) shown = 'A'
    else for (const flag of EVENT_CLASSES) if (seen.has(flag)) shown += flag
    for (const flag of 'KEm') if (seen.has(flag)) shown += flag
    return shown
  })
}

function oomScoreAdjValues(): Parameter {
  return define('oom-score-adj-values', '0 200 800', (value) => {
    const parts = words(value)
    if (parts.length !== 3) return new InvalidValue('wrong number of arguments')
    const numbers = parts.map(readLooseInteger)
    if (numbers.some((n) => n === null || n < -2000 || n > 2000)) {
      return new InvalidValue('Invalid oom-score-adj-values, elements must be between -2000 and 2000.')
    }
    return numbers.join(' ')
  })
}

const BUFFER_CLASSES: ReadonlyMap<string, number> = new Map([['normal', 0], ['slave', 1], ['replica', 1], ['pubsub', 2]])
const BUFFER_CLASS_NAMES = ['normal', 'slave', 'pubsub']

/** `<class> <hard> <soft> <soft-seconds>` groups, merged into the current limits. */
function clientOutputBufferLimit(): Parameter {
  return define('client-output-buffer-limit', 'normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60', (value, current) => {
    const parts = words(value)
    if (parts.length % 4 !== 0) return new InvalidValue('Wrong number of arguments in buffer limit configuration.')
    const limits = chunk(words(current), 4).map((group) => group.slice(1))
    for (const [name, hard, soft, seconds] of chunk(parts, 4)) {
      const index = BUFFER_CLASSES.get(name.toLowerCase())
      if (index === undefined) return new InvalidValue('Invalid client class specified in buffer limit configuration.')
      const hardBytes = parseMemory(hard)
      const softBytes = parseMemory(soft)
      const softSeconds = readLooseInteger(seconds)
      if (hardBytes === null || softBytes === null || softSeconds === null || softSeconds < 0) {
        return new InvalidValue('Error in hard, soft or soft_seconds setting in buffer limit configuration.')
      }
      limits[index] = [hardBytes.toString(), softBytes.toString(), String(softSeconds)]
    }
    return limits.map((group, i) => `${BUFFER_CLASS_NAMES[i]} ${group.join(' ')}`).join(' ')
  })
}

function chunk<T>(items: readonly T[], size: number): T[][] {
  const groups: T[][] = []
  for (let i = 0; i < items.length; i += size) groups.push(items.slice(i, i + size))
  return groups
}

const DECIMAL = /^\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/
function latencyPercentiles(): Parameter {
  return define('latency-tracking-info-percentiles', '50 99 99.9', (value) => {
    const shown: number[] = []
    for (const word of words(value)) {
      if (!DECIMAL.test(word)) return new InvalidValue('Invalid latency-tracking-info-percentiles parameters')
      const percentile = Number(word)
      if (percentile < 0 || percentile > 100) {
        return new InvalidValue('latency-tracking-info-percentiles parameters should sit between [0.0,100.0]')
      }
      shown.push(percentile)
    }
    return shown.join(' ')
  })
}

const HOSTNAME = /^[A-Za-z0-9.-]*$/
function clusterAnnounceHostname(): Parameter {
  return define('cluster-announce-hostname', '', (value) =>
    HOSTNAME.test(value) ? value : new InvalidValue('Hostnames may only contain alphanumeric characters, hyphens or dots'))
}

/** `dir` of the host process when there is one (CONFIG GET dir shows the working directory). */
function workingDirectory(): string {
  const host = (globalThis as { process?: { cwd?: () => string } }).process
  try {
    return host?.cwd?.() ?? '/'
  } catch {
    return '/'
  }
}

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
  integer('busy-reply-threshold', '5000', 0n, LLONG_MAX, 'lua-time-limit'),
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

/** A fresh configuration with Redis's defaults; `databases` follows the engine's option. */
export function defaultConfig(databases = 16): Map<string, string> {
  const config = new Map<string, string>()
  for (const parameter of PARAMETERS) config.set(parameter.name, parameter.defaultValue)
  config.set('databases', String(databases))
  return config
}
