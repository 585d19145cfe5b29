/**
 * INFO [section ...]: Redis 7.0's sections, names, `# Section` headers and CRLF lines. Figures
 * come from the engine where it has them (keys, expiries, commands, errors, connections, uptime,
 * config, RDB saves); memory is an estimate (`memory-estimate.ts`); replication and the other
 * figures of machinery this engine does not have are those of an idle standalone master.
 */
import { aofControlOf } from '../../persistence/aof-control.js'
import type { Engine } from '../../engine.js'
import type { CommandContext, Out } from '../../command.js'
import { SERVER_VERSION } from '../../../../commands/lookup.js'
import { bytesToHuman } from './memory-estimate.js'
import { serverState } from './stats.js'
import { scriptingCounts } from '../scripting/state.js'

type Lines = (string | readonly [field: string, value: string | number])[]

interface Section {
  /** Lowercase name, as INFO's arguments name it. */
  readonly name: string
  readonly title: string
  readonly inDefault: boolean
  readonly lines: (engine: Engine, now: number) => Lines
}

/** Process figures when the host is Node (pid, CPU); zeros elsewhere (edge runtimes). */
const host = (globalThis as {
  process?: { pid?: number; platform?: string; arch?: string; cpuUsage?: () => { user: number; system: number } }
}).process

function cpuSeconds(micros: number): string {
  return `${Math.floor(micros / 1e6)}.${String(Math.floor(micros % 1e6)).padStart(6, '0')}`
}

function percent(part: number, whole: number): string {
  return `${whole === 0 ? '0.00' : ((part / whole) * 100).toFixed(2)}%`
}

/** The process's resident set, where the runtime tells it (0 elsewhere). */
function residentBytes(): number {
  return typeof process !== 'undefined' && typeof process.memoryUsage?.rss === 'function' ? process.memoryUsage.rss() : 0
}

function serverSection(engine: Engine, now: number): Lines {
  const state = serverState(engine)
  const uptime = Math.floor((now - engine.stats.startedAt) / 1000)
  const hz = engine.config.get('hz') ?? '10'
  return [
    ['redis_version', SERVER_VERSION],
    ['redis_git_sha1', '00000000'],
    ['redis_git_dirty', 0],
    ['redis_build_id', '0'],
    ['redis_mode', 'standalone'],
    ['os', `${host?.platform ?? 'unknown'} ${host?.arch ?? ''}`.trim()],
    ['arch_bits', 64],
    ['monotonic_clock', 'POSIX clock_gettime'],
    ['multiplexing_api', 'restis'],
    ['atomicvar_api', 'restis'],
    ['gcc_version', '0.0.0'],
    ['process_id', host?.pid ?? 0],
    ['process_supervised', 'no'],
    ['run_id', state.runId],
    ['tcp_port', engine.config.get('port') ?? '6379'],
    ['server_time_usec', Math.floor(now * 1000)],
    ['uptime_in_seconds', uptime],
    ['uptime_in_days', Math.floor(uptime / 86400)],
    ['hz', hz],
    ['configured_hz', hz],
    // LRU_CLOCK: seconds, 24 bits, as Redis's object idle times count.
    ['lru_clock', Math.floor(now / 1000) & 0xffffff],
    ['executable', ''],
    ['config_file', ''],
    ['io_threads_active', 0],
  ]
}

function clientsSection(engine: Engine): Lines {
  return [
    ['connected_clients', 1],
    ['cluster_connections', 0],
    ['maxclients', engine.config.get('maxclients') ?? '10000'],
    ['client_recent_max_input_buffer', 0],
    ['client_recent_max_output_buffer', 0],
    ['blocked_clients', engine.blocking.count],
    ['tracking_clients', 0],
    ['clients_in_timeout_table', 0],
  ]
}

const peaks = new WeakMap<Engine, number>()

function memorySection(engine: Engine): Lines {
  const used = engine.usedMemory()
  const peak = Math.max(used, peaks.get(engine) ?? 0)
  peaks.set(engine, peak)
  const startup = engine.baselineMemory
  const dataset = used - startup
  const rss = residentBytes()
  const fragmentation = used === 0 ? '0.00' : (rss / used).toFixed(2)
  const maxmemory = Number(engine.config.get('maxmemory') ?? '0')
  const counts = scriptingCounts(engine)
  return [
    ['used_memory', used],
    ['used_memory_human', bytesToHuman(used)],
    ['used_memory_rss', rss],
    ['used_memory_rss_human', bytesToHuman(rss)],
    ['used_memory_peak', peak],
    ['used_memory_peak_human', bytesToHuman(peak)],
    ['used_memory_peak_perc', percent(used, peak)],
    ['used_memory_overhead', startup],
    ['used_memory_startup', startup],
    ['used_memory_dataset', dataset],
    ['used_memory_dataset_perc', percent(dataset, used)],
    ['allocator_allocated', used],
    ['allocator_active', used],
    ['allocator_resident', used],
    ['total_system_memory', 0],
    ['total_system_memory_human', '0B'],
    ['used_memory_lua', 32768],
    ['used_memory_vm_eval', 32768],
    ['used_memory_lua_human', '32.00K'],
    ['used_memory_scripts_eval', 0],
    ['number_of_cached_scripts', counts.scripts],
    ['number_of_functions', counts.functions],
    ['number_of_libraries', counts.libraries],
    ['used_memory_vm_functions', 32768],
    ['used_memory_vm_total', 65536],
    ['used_memory_vm_total_human', '64.00K'],
    ['used_memory_functions', 0],
    ['used_memory_scripts', 0],
    ['used_memory_scripts_human', '0B'],
    ['maxmemory', maxmemory],
    ['maxmemory_human', bytesToHuman(maxmemory)],
    ['maxmemory_policy', engine.config.get('maxmemory-policy') ?? 'noeviction'],
    ['allocator_frag_ratio', '1.00'],
    ['allocator_frag_bytes', 0],
    ['allocator_rss_ratio', '1.00'],
    ['allocator_rss_bytes', 0],
    ['rss_overhead_ratio', '1.00'],
    ['rss_overhead_bytes', 0],
    ['mem_fragmentation_ratio', fragmentation],
    ['mem_fragmentation_bytes', rss - used],
    ['mem_not_counted_for_evict', 0],
    ['mem_replication_backlog', 0],
    ['mem_total_replication_buffers', 0],
    ['mem_clients_slaves', 0],
    ['mem_clients_normal', 0],
    ['mem_cluster_links', 0],
    ['mem_aof_buffer', 0],
    ['mem_allocator', 'restis'],
    ['active_defrag_running', 0],
    ['lazyfree_pending_objects', 0],
    ['lazyfreed_objects', 0],
  ]
}

/** INFO's AOF fields; the sizes and buffers only while the AOF is on, as Redis prints them. */
function aofLines(engine: Engine): Lines {
  const control = aofControlOf(engine)
  const aof = control?.aof
  const status = aof?.status() ?? control?.offlineStatus()
  const lines: Lines = [
    ['aof_enabled', aof === undefined ? 0 : 1],
    ['aof_rewrite_in_progress', status?.rewriteInProgress ? 1 : 0],
    ['aof_rewrite_scheduled', status?.rewriteScheduled ? 1 : 0],
    ['aof_last_rewrite_time_sec', status?.lastRewriteTimeSec ?? -1],
    ['aof_current_rewrite_time_sec', status?.currentRewriteTimeSec ?? -1],
    ['aof_last_bgrewrite_status', status?.lastRewriteStatus ?? 'ok'],
    ['aof_rewrites', status?.rewrites ?? 0],
    ['aof_rewrites_consecutive_failures', status?.consecutiveRewriteFailures ?? 0],
    ['aof_last_write_status', aof?.status().lastWriteStatus ?? 'ok'],
    ['aof_last_cow_size', 0],
  ]
  return lines
}

/** Printed after the module_fork fields, and only while the AOF is on. */
function aofSizeLines(engine: Engine): Lines {
  const status = aofControlOf(engine)?.aof?.status()
  if (status === undefined) return []
  return [
    ['aof_current_size', status.currentSize],
    ['aof_base_size', status.baseSize],
    ['aof_pending_rewrite', status.rewriteScheduled ? 1 : 0],
    ['aof_buffer_length', status.bufferLength],
    ['aof_pending_bio_fsync', status.pendingFsync ? 1 : 0],
    ['aof_delayed_fsync', 0],
  ]
}

function persistenceSection(engine: Engine): Lines {
  const rdb = engine.rdb
  return [
    // Files are loaded in the constructor, before any command can ask.
    ['loading', 0],
    ['async_loading', 0],
    ['current_cow_peak', 0],
    ['current_cow_size', 0],
    ['current_cow_size_age', 0],
    ['current_fork_perc', '0.00'],
    ['current_save_keys_processed', 0],
    ['current_save_keys_total', 0],
    ['rdb_changes_since_last_save', engine.stats.changesSinceSave],
    ['rdb_bgsave_in_progress', rdb?.bgsaveInProgress ? 1 : 0],
    ['rdb_last_save_time', rdb?.lastSave ?? serverState(engine).lastSave],
    ['rdb_last_bgsave_status', rdb?.lastStatus ?? 'ok'],
    ['rdb_last_bgsave_time_sec', rdb?.lastBgsaveSeconds ?? -1],
    ['rdb_current_bgsave_time_sec', rdb?.currentBgsaveSeconds ?? -1],
    ['rdb_saves', rdb?.saves ?? 0],
    ['rdb_last_cow_size', 0],
    ['rdb_last_load_keys_expired', rdb?.keysExpiredAtLoad ?? 0],
    ['rdb_last_load_keys_loaded', rdb?.keysLoaded ?? 0],
    ...aofLines(engine),
    ['module_fork_in_progress', 0],
    ['module_fork_last_cow_size', 0],
    ...aofSizeLines(engine),
  ]
}

function statsSection(engine: Engine): Lines {
  let expired = 0
  for (const db of engine.databases) expired += db.expiredCount
  const stats = engine.stats
  const zero = (names: string): Lines => names.split(' ').map((name) => [name, 0] as const)
  return [
    ['total_connections_received', stats.connectionsReceived],
    ['total_commands_processed', stats.commandsProcessed],
    ['instantaneous_ops_per_sec', 0],
    ...zero('total_net_input_bytes total_net_output_bytes total_net_repl_input_bytes total_net_repl_output_bytes'),
    ['instantaneous_input_kbps', '0.00'],
    ['instantaneous_output_kbps', '0.00'],
    ['instantaneous_input_repl_kbps', '0.00'],
    ['instantaneous_output_repl_kbps', '0.00'],
    ...zero('rejected_connections sync_full sync_partial_ok sync_partial_err'),
    ['expired_keys', expired],
    ['expired_stale_perc', '0.00'],
    ...zero('expired_time_cap_reached_count expire_cycle_cpu_milliseconds'),
    ['evicted_keys', engine.evictor.evictedKeys],
    ['evicted_clients', 0],
    ...zero('total_eviction_exceeded_time current_eviction_exceeded_time keyspace_hits keyspace_misses'),
    ...zero('pubsub_channels pubsub_patterns pubsubshard_channels latest_fork_usec total_forks'),
    ...zero('migrate_cached_sockets slave_expires_tracked_keys active_defrag_hits active_defrag_misses'),
    ...zero('active_defrag_key_hits active_defrag_key_misses total_active_defrag_time current_active_defrag_time'),
    ...zero('tracking_total_keys tracking_total_items tracking_total_prefixes unexpected_error_replies'),
    ['total_error_replies', stats.errorReplies],
    ...zero('dump_payload_sanitizations total_reads_processed total_writes_processed'),
    ...zero('io_threaded_reads_processed io_threaded_writes_processed reply_buffer_shrinks reply_buffer_expands'),
  ]
}

function replicationSection(engine: Engine): Lines {
  return [
    ['role', 'master'],
    ['connected_slaves', 0],
    ['master_failover_state', 'no-failover'],
    ['master_replid', serverState(engine).runId],
    ['master_replid2', '0000000000000000000000000000000000000000'],
    ['master_repl_offset', 0],
    ['second_repl_offset', -1],
    ['repl_backlog_active', 0],
    ['repl_backlog_size', engine.config.get('repl-backlog-size') ?? '1048576'],
    ['repl_backlog_first_byte_offset', 0],
    ['repl_backlog_histlen', 0],
  ]
}

function cpuSection(): Lines {
  const usage = host?.cpuUsage?.() ?? { user: 0, system: 0 }
  return [
    ['used_cpu_sys', cpuSeconds(usage.system)],
    ['used_cpu_user', cpuSeconds(usage.user)],
    ['used_cpu_sys_children', '0.000000'],
    ['used_cpu_user_children', '0.000000'],
    ['used_cpu_sys_main_thread', cpuSeconds(usage.system)],
    ['used_cpu_user_main_thread', cpuSeconds(usage.user)],
  ]
}

/** One line per command that ran or was refused since the last reset, as Redis lists them. */
function commandstatsSection(engine: Engine): Lines {
  const lines: Lines = []
  for (const [name, counters] of engine.stats.commands) {
    if (counters.calls === 0 && counters.rejectedCalls === 0 && counters.failedCalls === 0) continue
    // Not every call is timed (see CommandStats): the total is the timed mean times the calls.
    const usec = counters.timedCalls === 0 ? 0 : Math.round((counters.usec / counters.timedCalls) * counters.calls)
    const perCall = counters.calls === 0 ? 0 : usec / counters.calls
    lines.push(
      `cmdstat_${name}:calls=${counters.calls},usec=${usec},usec_per_call=${perCall.toFixed(2)},` +
        `rejected_calls=${counters.rejectedCalls},failed_calls=${counters.failedCalls}`,
    )
  }
  return lines
}

function errorstatsSection(engine: Engine): Lines {
  return [...engine.stats.errorCodes].map(([code, count]) => `errorstat_${code}:count=${count}`)
}

/** `db<N>:keys=…,expires=…,avg_ttl=…` for each non-empty database; avg_ttl in ms over keys with a TTL. */
function keyspaceSection(engine: Engine, now: number): Lines {
  const lines: Lines = []
  for (const db of engine.databases) {
    const keys = db.size
    const expires = db.expires.size
    if (keys === 0 && expires === 0) continue
    let total = 0
    let live = 0
    for (const at of db.expires.values()) {
      if (at >= now) {
        total += at - now
        live++
      }
    }
    const averageTtl = live === 0 ? 0 : Math.floor(total / live)
    lines.push(`db${db.index}:keys=${keys},expires=${expires},avg_ttl=${averageTtl}`)
  }
  return lines
}

/** The sections in the order Redis writes them; `inDefault` is what INFO without arguments shows. */
const SECTIONS: readonly Section[] = [
  { name: 'server', title: 'Server', inDefault: true, lines: serverSection },
  { name: 'clients', title: 'Clients', inDefault: true, lines: clientsSection },
  { name: 'memory', title: 'Memory', inDefault: true, lines: memorySection },
  { name: 'persistence', title: 'Persistence', inDefault: true, lines: persistenceSection },
  { name: 'stats', title: 'Stats', inDefault: true, lines: statsSection },
  { name: 'replication', title: 'Replication', inDefault: true, lines: replicationSection },
  { name: 'cpu', title: 'CPU', inDefault: true, lines: cpuSection },
  { name: 'modules', title: 'Modules', inDefault: true, lines: () => [] },
  { name: 'commandstats', title: 'Commandstats', inDefault: false, lines: commandstatsSection },
  { name: 'errorstats', title: 'Errorstats', inDefault: true, lines: errorstatsSection },
  // No latency histograms are kept, so the section has its header only.
  { name: 'latencystats', title: 'Latencystats', inDefault: false, lines: () => [] },
  { name: 'cluster', title: 'Cluster', inDefault: true, lines: () => [['cluster_enabled', 0]] },
  { name: 'keyspace', title: 'Keyspace', inDefault: true, lines: keyspaceSection },
]

/**
 * Which sections the arguments select: named ones, `default`, `all` (everything but module
 * sections) and `everything`; names compare case-insensitively and unknown names select nothing.
 */
function selectSections(argv: readonly string[]): Set<string> {
  const chosen = new Set<string>()
  if (argv.length === 1) {
    for (const section of SECTIONS) if (section.inDefault) chosen.add(section.name)
    return chosen
  }
  for (let i = 1; i < argv.length; i++) {
    const name = argv[i].toLowerCase()
    if (name === 'default') {
      for (const section of SECTIONS) if (section.inDefault) chosen.add(section.name)
    } else if (name === 'all' || name === 'everything') {
      for (const section of SECTIONS) chosen.add(section.name)
    } else chosen.add(name)
  }
  return chosen
}

/** INFO [section ...] (several sections since 7.0). */
export function info(ctx: CommandContext, argv: readonly string[]): Out {
  const chosen = selectSections(argv)
  let text = ''
  for (const section of SECTIONS) {
    if (!chosen.has(section.name)) continue
    if (text !== '') text += '\r\n'
    text += `# ${section.title}\r\n`
    for (const line of section.lines(ctx.engine, ctx.now)) {
      text += typeof line === 'string' ? `${line}\r\n` : `${line[0]}:${line[1]}\r\n`
    }
  }
  return text
}
