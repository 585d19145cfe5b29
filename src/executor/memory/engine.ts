import { NULL_ARRAY, ReplyError, type NullArray } from '../../reply.js'
import { findCommand, checkArity, arityError, lookupError, type CommandInfo } from '../../commands/lookup.js'
import type { CommandContext, Handler, Out, Session } from './command.js'
import { handlers } from './commands/index.js'
import { EXEC_ABORT } from './errors.js'
import { defaultConfig, type ConfigTable } from './commands/server/config-parameters.js'
import { Database, KeyspaceState } from './keyspace.js'
import { Evictor, MAXMEMORY_POLICIES, OOM_ERROR, type MaxmemoryPolicy } from './eviction.js'
import { expireHashFields } from './types/hash.js'
import { formatMonitorLine, monitorTiming } from './monitor.js'
import { PubSub } from './pubsub.js'
import { KeyspaceNotifier, NOTIFY_EVICTED, NOTIFY_KEY_MISS } from './notify.js'
import { Acl } from './acl.js'
import { mayChangeConnectionState } from '../connection-state.js'
import { DEFAULT_MAX_REPLY_BYTES, DEFAULT_MAX_REPLY_ELEMENTS, UNCHARGED_STRING_BYTES, chargeReply, requestBudget, tooManyElements } from './reply-budget.js'
import { commandKeys } from '../../commands/lookup.js'
import type { Snapshot } from './persistence/snapshot.js'
import { MISCONF, RdbPersistence, type PersistenceOptions } from './persistence/rdb-persistence.js'
import { boundHeapGrowth } from './heap-growth.js'
import { HeapFootprint, startupFootprint } from './heap-footprint.js'
import { propagatedForm } from './persistence/aof-propagation.js'
import { Blocking, type BlockKind } from './blocking.js'
import { Watches } from './watch.js'

/** One write as it is logged: the database it ran in and its propagated argv. */
export interface PropagatedOp {
  readonly db: number
  readonly argv: readonly string[]
}

/**
 * Where the engine hands the writes it propagates (the append-only file). A unit is what must be
 * logged atomically: one command, or every write of a transaction or script.
 */
export interface PropagationTarget {
  writeUnit(ops: readonly PropagatedOp[]): void
  /** The {@link Engine.loggedUnits} offset up to which the logged units are on disk (WAITAOF). */
  readonly syncedOffset: number
}

/** Options of the in-memory engine. @public */
export interface EngineOptions {
  /** Number of logical databases (SELECT 0..n-1). Default 16, as Redis. */
  readonly databases?: number
  /** Milliseconds since the epoch; inject a fake clock to test expiry without waiting. */
  readonly clock?: () => number
  /** Interval of the active expiry cycle in ms; 0 turns it off (lazy expiry still applies). Default 100. */
  readonly activeExpiryInterval?: number
  /**
   * Longest a Lua script (EVAL, FCALL …) may run, in ms; a script still running then is stopped
   * with an error and its effects so far stay. Default 5000, Redis's `busy-reply-threshold`.
   */
  readonly scriptTimeLimit?: number
  /**
   * Most elements (array items at any depth) the replies of one request may hold: a pipeline or
   * transaction of the memory executor, else one command. A command whose reply would pass it
   * answers `ERR reply exceeds the limit of … elements per request …` instead; the commands that
   * build large replies (RAND* with a count, ranges, whole collections) check before building.
   * Redis has no such limit (it streams replies); default 1,048,576 (2^20).
   */
  readonly maxReplyElements?: number
  /**
   * Most bytes of bulk strings the replies of one request may hold (as `maxReplyElements`).
   * Default 512 MiB, Redis's `proto-max-bulk-len`.
   */
  readonly maxReplyBytes?: number
  /**
   * Where and how the engine keeps its data (`persistence/`); without it nothing touches the
   * disk and SAVE, BGSAVE and save points are refused.
   */
  readonly persistence?: PersistenceOptions
  /**
   * What SHUTDOWN stops once its save succeeded (the executor closes, the CLI exits). Without it
   * SHUTDOWN is refused: an embedded engine has nothing to stop.
   */
  readonly onShutdown?: () => void
  /**
   * Memory limit in bytes (CONFIG SET maxmemory); 0, the default, sets none. Over it, commands
   * that may grow the dataset evict keys per {@link EngineOptions.maxmemoryPolicy} or are refused
   * with Redis's OOM error. The used memory it bounds starts at the process's heap when the
   * engine was made (INFO's used_memory_startup, about 12 MB in the CLI): a limit at or below
   * that refuses every such command.
   */
  readonly maxmemory?: number
  /** Which keys to evict over {@link EngineOptions.maxmemory}. Default `noeviction`. */
  readonly maxmemoryPolicy?: MaxmemoryPolicy
  /**
   * Uniform random numbers in [0, 1) for the LFU counter's increments and random eviction;
   * inject a seeded generator to make eviction reproducible. Default `Math.random`.
   */
  readonly random?: () => number
}

/** A command that passed the queue-time checks: its handler and full name. */
export interface Resolved {
  readonly handler: Handler
  readonly name: string
  readonly info: CommandInfo
  /** Flagged `write` (counted by rdb_changes_since_last_save when it succeeds). */
  readonly write: boolean
  /**
   * One of the commands executors refuse because they change the state of a connection
   * (`connection-state.ts`); the engine itself runs them (the RESP listener needs them).
   */
  readonly connectionState: boolean
  /** Flagged `denyoom`: refused (after eviction failed) while used memory exceeds maxmemory. */
  readonly denyoom: boolean
  /** Flagged `readonly`: its lookups that miss report `keymiss` (`notify.ts`). */
  readonly readonly: boolean
  /** Its counters in `stats.commands`, once it ran; they are zeroed in place, never replaced. */
  counters: CommandStats | undefined
}

/** Command words remembered by {@link Engine.resolve}; beyond this, odd spellings resolve uncached. */
const RESOLVED_CACHE_LIMIT = 1024

/** Per-command counters, as INFO commandstats reports them. */
export interface CommandStats {
  calls: number
  /** Time spent in the handler by the timed calls, microseconds. */
  usec: number
  /**
   * Calls whose time was measured: the first 8, then one in 32. Reading the clock twice per call
   * would double the cost of a fast command; INFO extrapolates `usec` from the timed calls.
   */
  timedCalls: number
  /** Refused before running (wrong arity, refused inside a transaction). */
  rejectedCalls: number
  /** Ran and replied with an error. */
  failedCalls: number
}

/** Counters INFO reports; CONFIG RESETSTAT zeroes them. */
export interface EngineStats {
  commandsProcessed: number
  readonly startedAt: number
  /** Sessions created, INFO's total_connections_received. */
  connectionsReceived: number
  /** Every error reply, INFO's total_error_replies. */
  errorReplies: number
  /** Error replies by code (`ERR`, `WRONGTYPE` …), INFO errorstats. */
  readonly errorCodes: Map<string, number>
  /** Counters by full command name (`get`, `config|get`), INFO commandstats. */
  readonly commands: Map<string, CommandStats>
  /** Write commands that succeeded, INFO's rdb_changes_since_last_save (counted per command). */
  changesSinceSave: number
}

const monotonic: { now(): number } = globalThis.performance ?? Date

/**
 * The embedded Redis-compatible engine. Synchronous by construction: every command, transaction
 * and script runs to completion without yielding, which is what makes them atomic.
 */
export class Engine {
  readonly databases: Database[]
  readonly clock: () => number
  readonly stats: EngineStats
  /**
   * CONFIG GET/SET parameters by canonical name, as CONFIG GET shows them (Redis's defaults, see
   * `commands/server/config-parameters.ts`); families read their thresholds here.
   */
  readonly config: ConfigTable
  /** Channels, patterns and their subscribers: PUBLISH, SUBSCRIBE …, PUBSUB (see `pubsub.ts`). */
  readonly pubsub = new PubSub()
  /** Keyspace notifications: `notify-keyspace-events` and where events go (`notify.ts`). */
  readonly notifier = new KeyspaceNotifier(this.pubsub)
  /** ACL users and their rules (`acl.ts`); every command passes `acl.check` before it runs. */
  readonly acl = new Acl()
  /**
   * Time limit of Lua scripts in ms: {@link EngineOptions.scriptTimeLimit} at start, then what
   * `CONFIG SET busy-reply-threshold` (alias `lua-time-limit`) sets.
   */
  get scriptTimeLimit(): number {
    return Number(this.config.get('busy-reply-threshold'))
  }
  /** {@link EngineOptions.maxReplyElements}. */
  readonly maxReplyElements: number
  /** {@link EngineOptions.maxReplyBytes}. */
  readonly maxReplyBytes: number
  /**
   * Snapshots being written (`persistence/snapshot.ts`): each sees every key change first, via
   * {@link Engine.beforeKeyChange}. Empty almost always, which is all the hot path looks at.
   */
  readonly snapshots = new Set<Snapshot>()
  /** RDB files, save points and BGSAVE; undefined without {@link EngineOptions.persistence}. */
  readonly rdb: RdbPersistence | undefined
  /**
   * True while the last save failed: only then does a write look at stop-writes-on-bgsave-error
   * (the MISCONF refusal), so the hot path pays one field read.
   */
  diskErrorPossible = false
  /** Set during MULTI/EXEC blocks: BGSAVE there is scheduled, as Redis's `server.in_exec` does. */
  inTransaction = false
  /** {@link EngineOptions.onShutdown}. */
  readonly onShutdown: (() => void) | undefined
  private readonly monitors = new Set<(line: string) => void>()
  /**
   * Commands without subcommands by the first word as sent (`GET`, `get`): one Map lookup
   * instead of the table lookup, the handler lookup and a new {@link Resolved} on every call.
   */
  private readonly resolvedByName = new Map<string, Resolved>()
  private readonly expiryTimer: ReturnType<typeof setInterval> | undefined
  private nextSessionId = 1
  /**
   * Receives the propagated writes ({@link Engine.propagate}); undefined when nothing logs them,
   * and then no propagated form is computed at all.
   */
  propagationTarget: PropagationTarget | undefined
  /**
   * Units handed to {@link Engine.propagationTarget} so far (Redis's replication offset, counted in
   * units): the offset of the last one, which the target reports back once it is on disk (WAITAOF).
   */
  loggedUnits = 0
  /**
   * While set, write commands are refused with it before running: Redis's MISCONF while the
   * append-only file cannot be written.
   */
  writeRefusal: ReplyError | undefined
  /**
   * Live effects of CONFIG SET by canonical parameter name: called with the new value before it
   * is stored; a string is the reason the change is refused (`CONFIG SET failed … - reason`).
   */
  readonly configAppliers = new Map<string, (value: string, sent?: string) => string | undefined>()
  /** True while the AOF loads ({@link Engine.loadWhileExpiryHeld}): commands never expire keys then. */
  loading = false
  /** Nesting of running commands (a script's calls run inside EVAL); a unit ends at depth 0. */
  private depth = 0
  private unit: PropagatedOp[] = []
  /** Shared by every database: access clock and policy, dataset bytes (`key-access.ts`). */
  readonly keyspace = new KeyspaceState()
  /** The memory bound: limit, policy, sampling, evicted_keys (`eviction.ts`). */
  readonly evictor: Evictor
  /** Clients blocked on keys and the keys ready to serve them (`blocking.ts`). */
  readonly blocking: Blocking
  /** The keys connections WATCH (`watch.ts`). */
  readonly watches: Watches
  /**
   * Heap bytes in use before any data, INFO's used_memory_startup: the process's heap when its
   * first engine was made (the runtime, the command table, the Lua VM are not dataset).
   */
  readonly baselineMemory: number
  /** What a byte of the dataset's estimate costs the process, measured while a limit is set. */
  readonly footprint: HeapFootprint
  /** True while EXEC runs its block: the memory bound was checked for the block as a whole. */
  private insideExec = false
  /** The configuration version the memory settings were last read at. */
  private memoryConfigVersion = -1

  constructor(options: EngineOptions = {}) {
    const count = options.databases ?? 16
    this.clock = options.clock ?? Date.now
    if (options.random !== undefined) this.keyspace.random = options.random
    this.keyspace.setTime(this.clock())
    this.keyspace.notifier = this.notifier
    this.databases = Array.from({ length: count }, (_, index) => new Database(index, this.keyspace))
    this.blocking = new Blocking(
      count,
      (db, key) => this.valueKind(db, key),
      () => this.observeKeys(),
      (command, error) => {
        this.countError(error)
        if (command !== '') this.commandStats(command).failedCalls++
      },
    )
    this.watches = new Watches(count, () => this.observeKeys())
    this.maxReplyElements = positiveLimit(options.maxReplyElements, DEFAULT_MAX_REPLY_ELEMENTS, 'maxReplyElements')
    this.maxReplyBytes = positiveLimit(options.maxReplyBytes, DEFAULT_MAX_REPLY_BYTES, 'maxReplyBytes')
    this.onShutdown = options.onShutdown
    this.config = defaultConfig(count)
    if (options.scriptTimeLimit !== undefined) {
      if (!Number.isSafeInteger(options.scriptTimeLimit) || options.scriptTimeLimit <= 0) {
        throw new RangeError(`scriptTimeLimit must be a whole number of ms > 0, got ${options.scriptTimeLimit}`)
      }
      this.config.set('busy-reply-threshold', String(options.scriptTimeLimit))
    }
    this.baselineMemory = processBaseline()
    this.footprint = new HeapFootprint(startupFootprint())
    this.evictor = new Evictor(this)
    if (options.maxmemory !== undefined) {
      if (!Number.isSafeInteger(options.maxmemory) || options.maxmemory < 0) {
        throw new RangeError(`maxmemory must be a whole number of bytes >= 0, got ${options.maxmemory}`)
      }
      this.config.set('maxmemory', String(options.maxmemory))
    }
    if (options.maxmemoryPolicy !== undefined) {
      if (!MAXMEMORY_POLICIES.includes(options.maxmemoryPolicy)) {
        throw new RangeError(`maxmemoryPolicy must be one of ${MAXMEMORY_POLICIES.join(', ')}, got ${options.maxmemoryPolicy}`)
      }
      this.config.set('maxmemory-policy', options.maxmemoryPolicy)
    }
    this.applyMemoryConfig()
    // The flags come from the text as sent: the shown form hides `n` under `A`.
    this.configAppliers.set('notify-keyspace-events', (shown, sent) =>
      this.notifier.configure(sent ?? shown) ? undefined : "Invalid event class character. Use 'Ag$lshzxeKEtmdn'.")
    this.stats = {
      commandsProcessed: 0,
      startedAt: this.clock(),
      connectionsReceived: 0,
      errorReplies: 0,
      errorCodes: new Map(),
      commands: new Map(),
      changesSinceSave: 0,
    }
    if (options.persistence !== undefined) {
      this.rdb = new RdbPersistence(this, options.persistence)
      try {
        this.rdb.loadAtStart()
      } catch (error) {
        this.rdb.close()
        throw error
      }
    } else this.config.set('save', '')
    const interval = options.activeExpiryInterval ?? 100
    if (interval > 0) {
      this.expiryTimer = setInterval(() => this.expireDue(), interval)
      this.expiryTimer.unref?.()
    }
  }

  /** A new client session on database 0 as the default user. */
  createSession(address = '127.0.0.1:0', user = 'default'): Session {
    this.stats.connectionsReceived++
    return { db: 0, user, address, name: '', id: this.nextSessionId++ }
  }

  /**
   * Has the keyspace report each changed key to {@link Engine.keyChanged} while a connection
   * watches keys or is blocked on keys, and stops it when none does.
   */
  private observeKeys(): void {
    this.keyspace.keyObserver = this.watches.count !== 0 || this.blocking.count !== 0 ? this.keyChanged : undefined
  }

  /**
   * `key` of `db` changed: its watchers are touched and clients blocked on it are readied
   * (Redis's `signalModifiedKey` and `signalKeyAsReady`).
   */
  readonly keyChanged = (db: Database, key: string): void => {
    if (this.watches.count !== 0) this.watches.touch(db, key)
    if (this.blocking.count !== 0) this.blocking.signal(db, key)
  }

  /**
   * After a write command: the collections it looked up may have changed in place. Their
   * watchers are touched; blocked clients are readied only by what can serve them without a new
   * value (new stream entries, a group destroyed), as Redis signals only there. Readying on every
   * write that looked a key up would also re-serve, forever, a reader whose own read finds nothing.
   */
  private changedInPlace(resolved: Resolved, signalMark: number): void {
    const keyspace = this.keyspace
    const name = resolved.name
    if (this.watches.count !== 0) {
      const touch = (db: Database, key: string): void => this.watches.touch(db, key)
      if (SIGNALING_GROUPS.has(resolved.info.group)) keyspace.forEachSignaled(signalMark, touch)
      else keyspace.forEachNoted(touch)
    }
    if (this.blocking.count !== 0 && (name === 'xadd' || name === 'xgroup|destroy')) {
      keyspace.forEachNoted((db, key) => this.blocking.signal(db, key))
    }
  }

  /** The kind of value at `key` of database `index` as blocked clients see it. */
  private valueKind(index: number, key: string): BlockKind | 'other' | undefined {
    const value = this.databases[index].get(key, this.clock())
    if (value === undefined) return undefined
    if (typeof value === 'string') return 'other'
    return value.type === 'list' || value.type === 'zset' || value.type === 'stream' ? value.type : 'other'
  }

  /**
   * Runs the non-blocking form of a blocked client's command for it, without the ACL check (its
   * blocking form passed it) and with its own statistics and propagation, as a command.
   */
  serveBlocked(session: Session, db: number, argv: readonly string[]): Out {
    const resolved = this.resolve(argv)
    if (resolved instanceof ReplyError) return resolved
    session.db = db
    return this.run(session, argv, resolved, NOT_READ)
  }

  /**
   * Runs one command (argv as binary strings, name first) and returns its reply. `now` fixes the
   * command's time (transactions and scripts share one); without it the clock is read when the
   * command first needs the time, if ever.
   */
  call(session: Session, argv: readonly string[], now = NOT_READ): Out {
    const resolved = this.resolve(argv)
    if (resolved instanceof ReplyError) return this.reject(argv, resolved)
    return this.execute(session, argv, resolved, now)
  }

  /** {@link Engine.call} for a command {@link Engine.resolve} has accepted: the ACL check, then the command. */
  execute(session: Session, argv: readonly string[], resolved: Resolved, now = NOT_READ): Out {
    const denied = this.acl.check(session.user, resolved.info, argv)
    if (denied !== null) return this.reject(argv, denied, resolved.name)
    return this.run(session, argv, resolved, now)
  }

  /**
   * Runs commands atomically, as MULTI/EXEC: when any command fails the queue-time checks
   * (unknown command or subcommand, wrong arity, a command flagged `no_multi`) nothing runs and
   * the reply is EXECABORT; otherwise every command runs, runtime errors landing in their own
   * slot. One time snapshot serves the whole block, as Redis caches the time for EXEC's nested
   * calls: a key that is live when the block starts stays live to its end.
   */
  transaction(session: Session, commands: readonly (readonly string[])[]): Out[] | ReplyError {
    return this.runTransaction(session, commands, false) as Out[] | ReplyError
  }

  /**
   * {@link Engine.transaction} for a connection that may WATCH: when a key it watches changed
   * since (or expired, Redis's `isWatchedKeyExpired`), the null array and nothing runs. Its
   * watches end either way, as EXEC ends them in Redis.
   */
  watchedTransaction(session: Session, commands: readonly (readonly string[])[]): Out[] | ReplyError | NullArray {
    const watch = session.watch
    // Redis reads the watches first (a key expired since WATCH dooms the block too), then unwatches.
    const touched = watch !== undefined && (watch.dirty || this.watches.expiredSinceWatch(watch, this.databases, this.clock()))
    if (watch !== undefined) this.watches.unwatchAll(watch)
    return this.runTransaction(session, commands, touched)
  }

  private runTransaction(session: Session, commands: readonly (readonly string[])[], touched: boolean): Out[] | ReplyError | NullArray {
    // A user who may not run MULTI or EXEC gets their NOPERM, and nothing runs.
    const deniedBlock = this.acl.check(session.user, MULTI_INFO, MULTI_ARGV) ?? this.acl.check(session.user, EXEC_INFO, EXEC_ARGV)
    if (deniedBlock !== null) return this.countError(deniedBlock)
    // MONITOR shows MULTI when the block opens and EXEC when it ends, even refused (Redis 7.0).
    this.feedMonitors(session, MULTI_ARGV)
    const resolved: Resolved[] = []
    let refused = false
    // Like Redis, every queued command is checked (and counted) even after one was refused.
    for (const argv of commands) {
      const entry = this.resolve(argv)
      if (entry instanceof ReplyError) {
        this.reject(argv, entry)
        refused = true
      } else if (entry.info.flags.has('no_multi')) {
        this.reject(argv, NOT_IN_TRANSACTION, entry.name)
        refused = true
      } else if (entry.name === 'watch') {
        // A connection answers WATCH inside MULTI itself; in a block handed over whole it dooms it.
        this.reject(argv, WATCH_IN_TRANSACTION, entry.name)
        refused = true
      } else {
        const denied = this.acl.check(session.user, entry.info, argv)
        if (denied !== null) {
          this.reject(argv, denied, entry.name)
          refused = true
        } else resolved.push(entry)
      }
    }
    this.countControl('multi', false)
    if (refused) {
      this.countControl('exec', true)
      this.feedMonitors(session, EXEC_ARGV)
      return this.countError(EXEC_ABORT)
    }
    if (touched) {
      // A watched key changed: the null array, nothing runs (not an error in Redis's counts).
      this.countControl('exec', false)
      this.feedMonitors(session, EXEC_ARGV)
      return NULL_ARRAY
    }
    if (this.config.version !== this.memoryConfigVersion) this.applyMemoryConfig()
    // Redis checks the memory bound once for the whole block, at EXEC, when any command in it
    // may grow the dataset; the commands inside then run unchecked. The refusal aborts the block
    // (`execCommandAbort`), so it reads as EXECABORT naming the OOM error.
    if (this.evictor.limit !== 0 && resolved.some((entry) => entry.denyoom) && !this.evictor.makeRoom()) {
      this.feedMonitors(session, EXEC_ARGV)
      this.countControl('exec', true)
      return this.countError(EXEC_ABORT_OOM)
    }
    const now = this.clock()
    // The block's replies share one budget, unless the caller's request already has one.
    const ownBudget = session.replyBudget === undefined
    if (ownBudget) session.replyBudget = requestBudget(this)
    this.inTransaction = true
    this.depth++
    this.keyspace.setTime(now)
    this.insideExec = true
    let replies: Out[]
    try {
      replies = resolved.map((entry, i) => this.run(session, commands[i], entry, now))
    } finally {
      if (ownBudget) session.replyBudget = undefined
      this.inTransaction = false
      if (--this.depth === 0) this.endUnit(session)
      this.insideExec = false
    }
    this.feedMonitors(session, EXEC_ARGV)
    this.countControl('exec', false)
    return replies
  }

  /**
   * What Redis checks before queueing a command inside MULTI (`processCommand`): {@link
   * Engine.resolve}'s checks, a command flagged `no_multi` (SAVE, SHUTDOWN, …), then memory: over maxmemory, with eviction unable to make room, any
   * command is refused with OOM, not only the `denyoom` ones (a queue could grow without bound),
   * and counted as a rejected call. EXEC, DISCARD, QUIT and RESET are never queued, so never
   * refused here.
   */
  checkQueued(argv: readonly string[]): ReplyError | undefined {
    const resolved = this.resolve(argv)
    if (resolved instanceof ReplyError) return resolved
    if (resolved.info.flags.has('no_multi')) return this.reject(argv, NOT_IN_TRANSACTION, resolved.name)
    if (this.config.version !== this.memoryConfigVersion) this.applyMemoryConfig()
    if (this.evictor.limit !== 0 && !this.evictor.makeRoom()) return this.reject(argv, OOM_ERROR, resolved.name)
    return undefined
  }

  /** The queue-time checks of Redis: the command exists, the subcommand exists, arity holds. */
  resolve(argv: readonly string[]): Resolved | ReplyError {
    if (argv.length === 0) return lookupError(argv)
    const cached = this.resolvedByName.get(argv[0])
    if (cached !== undefined) return checkArity(cached.info, argv.length) ? cached : arityError(cached.info)
    const info = findCommand(argv[0])
    if (info === undefined) return lookupError(argv)
    let target = info
    if (info.subcommands !== undefined && argv.length >= 2) {
      const subInfo = info.subcommands.get(argv[1].toLowerCase())
      if (subInfo === undefined) return lookupError(argv)
      target = subInfo
    }
    if (!checkArity(target, argv.length)) return arityError(target)
    const handler = handlers.get(target.name)
    // A command the table knows but the engine does not implement answers as Redis does for
    // a command it lacks.
    if (handler === undefined) return lookupError(argv)
    const resolved: Resolved = {
      handler,
      name: target.name,
      info: target,
      write: target.flags.has('write'),
      connectionState: mayChangeConnectionState(target.name),
      denyoom: target.flags.has('denyoom'),
      readonly: target.flags.has('readonly'),
      counters: undefined,
    }
    if (target === info && info.subcommands === undefined && this.resolvedByName.size < RESOLVED_CACHE_LIMIT) {
      this.resolvedByName.set(argv[0], resolved)
    }
    return resolved
  }

  private run(session: Session, argv: readonly string[], resolved: Resolved, now: number): Out {
    if (this.config.version !== this.memoryConfigVersion) this.applyMemoryConfig()
    if (resolved.denyoom && this.evictor.limit !== 0 && !this.insideExec && session.script?.oomExempt !== true && !this.evictor.makeRoom()) {
      return this.reject(argv, OOM_ERROR, resolved.name)
    }
    if (this.diskErrorPossible && (resolved.write || resolved.name === 'ping') && this.rdb?.refusesWrites) {
      // Redis refuses PING too, so that a health check notices the disk.
      return this.reject(argv, MISCONF, resolved.name)
    }
    if (resolved.write && this.writeRefusal !== undefined) return this.reject(argv, this.writeRefusal, resolved.name)
    if (resolved.write && this.snapshots.size !== 0) this.beforeWrite(session, argv, resolved)
    if (this.propagationTarget === undefined) return this.runCommand(session, argv, resolved, now)
    this.depth++
    try {
      return this.runCommand(session, argv, resolved, now)
    } finally {
      if (--this.depth === 0) this.endUnit(session)
    }
  }

  private runCommand(session: Session, argv: readonly string[], resolved: Resolved, now: number): Out {
    const ctx = new Invocation(this, session, this.databases[session.db], resolved.name, now)
    // Where MONITOR shows this command: EVAL and FCALL before their script's commands, admin never.
    const monitorAt = this.monitors.size === 0 ? 'never' : monitorTiming(resolved.info)
    if (monitorAt === 'before') this.feedMonitors(session, argv)
    let reply: Out
    const counters = (resolved.counters ??= this.commandStats(resolved.name))
    const timed = counters.calls < 8 || (counters.calls & 31) === 0
    const started = timed ? monotonic.now() : 0
    // CLIENT NO-TOUCH: the client's commands (and its scripts') leave the access clocks alone, TOUCH excepted.
    const noTouchBefore = this.keyspace.noTouch
    if (session.noTouch === true) this.keyspace.noTouch = resolved.name !== 'touch'
    // Key misses are reported for read-only commands only while the `m` class is on.
    const missesBefore = this.keyspace.reportMisses
    if ((this.notifier.flags & NOTIFY_KEY_MISS) !== 0) this.keyspace.reportMisses = resolved.readonly
    // What the command changes: compared after it (WATCH, rdb_changes_since_last_save).
    const signalMark = this.keyspace.signalMark
    const signalsBefore = this.keyspace.signalCount
    const changesBefore = this.keyspace.changes
    try {
      reply = resolved.handler(ctx, argv)
    } catch (error) {
      // A bug in one handler must not take the engine (or the gateway) down with it.
      reply = new ReplyError(`ERR internal error in '${resolved.name}': ${(error as Error)?.message ?? error}`)
    } finally {
      this.keyspace.reportMisses = missesBefore
      this.keyspace.noTouch = noTouchBefore
    }
    reply = this.boundReply(session, reply)
    if (this.config.version !== this.memoryConfigVersion) {
      // CONFIG SET changed a memory setting: it applies now, and a lowered limit evicts at
      // once, as Redis's apply function for maxmemory does.
      this.applyMemoryConfig()
      if (this.evictor.limit !== 0) this.evictor.makeRoom()
    }
    const keyspace = this.keyspace
    if (keyspace.hasNoted) {
      if (resolved.write) {
        // A collection the write looked up may have changed in place: its watchers and waiters hear of it.
        if (keyspace.keyObserver !== undefined && !(reply instanceof ReplyError)) this.changedInPlace(resolved, signalMark)
        keyspace.settle()
      } else keyspace.forgetNoted()
    }
    keyspace.dropSignals(signalMark)
    counters.calls++
    if (timed) {
      counters.usec += (monotonic.now() - started) * 1000
      counters.timedCalls++
    }
    this.stats.commandsProcessed++
    if (reply instanceof ReplyError) {
      counters.failedCalls++
      this.countError(reply)
    } else if (resolved.write) {
      if (keyspace.changes !== changesBefore || keyspace.signalCount !== signalsBefore || !changesOnlyWhenSignaled(resolved.info)) {
        this.stats.changesSinceSave++
      }
      if (this.propagationTarget !== undefined) this.propagateCommand(ctx, argv, reply)
    } else if (resolved.name === 'pfcount' && this.propagationTarget !== undefined) {
      // PFCOUNT of one key stores the cardinality it computed in the HLL (a read that writes).
      this.propagateCommand(ctx, argv, reply)
    }
    if (monitorAt === 'after') this.feedMonitors(session, argv)
    return reply
  }

  /**
   * The second line of reply accounting (`reply-budget.ts`): bulk strings are charged to the
   * request, and an array longer than the element limit is refused (commands that build large
   * arrays check before building; this catches the others before the reply is converted).
   */
  private boundReply(session: Session, reply: Out): Out {
    if (typeof reply === 'string') {
      if (reply.length < UNCHARGED_STRING_BYTES) return reply
      return chargeReply(session, this, 0, reply.length) ?? reply
    }
    if (Array.isArray(reply) && reply.length > this.maxReplyElements) return tooManyElements(this)
    return reply
  }

  /**
   * Lets every running snapshot write the keys a write command may change before it changes them.
   * The keys come from the command table's key specs (more than the command changes is harmless);
   * MOVE and COPY reach into another database, so their keys are offered in every database; what
   * changes whole databases completes the snapshots first.
   */
  private beforeWrite(session: Session, argv: readonly string[], resolved: Resolved): void {
    switch (resolved.name) {
      case 'flushdb':
      case 'flushall':
      case 'swapdb':
        return this.beforeKeyspaceChange()
      case 'move':
      case 'copy':
        for (const db of this.databases) this.beforeKeyChange(db, argv[resolved.name === 'move' ? 1 : 2])
    }
    const db = this.databases[session.db]
    for (const position of commandKeys(argv, resolved.info)) this.beforeKeyChange(db, argv[position])
  }

  /**
   * Called before anything changes `key` of `db` while snapshots run. Commands get it from the
   * engine; code that changes keys outside commands (eviction) calls it itself.
   */
  beforeKeyChange(db: Database, key: string): void {
    for (const snapshot of this.snapshots) snapshot.beforeKeyChange(db, key)
  }

  /** Called before a change no key names (FLUSHALL, SWAPDB): running snapshots complete first. */
  beforeKeyspaceChange(): void {
    for (const snapshot of [...this.snapshots]) snapshot.completeNow()
  }

  /** Logs what a successful write command changed, in the form Redis propagates (`aof-propagation.ts`). */
  private propagateCommand(ctx: Invocation, argv: readonly string[], reply: Out): void {
    const forms = propagatedForm(ctx, argv, reply)
    if (forms === null) return
    for (const form of forms) this.propagate(ctx.session.db, form)
  }

  /**
   * The single propagation point: `argv` changed data in database `dbIndex` and is to be logged.
   * Inside a command, transaction or script it joins the running unit, logged atomically when
   * that ends; outside (active expiry, eviction) it is a unit of its own.
   */
  propagate(dbIndex: number, argv: readonly string[]): void {
    const target = this.propagationTarget
    if (target === undefined) return
    if (this.depth === 0) {
      this.loggedUnits++
      target.writeUnit([{ db: dbIndex, argv }])
    } else this.unit.push({ db: dbIndex, argv })
  }

  /** Logs the writes of the unit that ended; `session` ran it, and WAITAOF waits on its offset. */
  private endUnit(session: Session): void {
    if (this.unit.length === 0) return
    const ops = this.unit
    this.unit = []
    session.loggedOffset = ++this.loggedUnits
    this.propagationTarget?.writeUnit(ops)
  }

  /**
   * Runs `load` as Redis loads its AOF: nothing expires (a key whose deadline passed since it
   * was logged must still be there for the commands logged after it) and nothing is propagated.
   * The active expiry cycle reclaims what is due afterwards.
   */
  loadWhileExpiryHeld<T>(load: () => T): T {
    const target = this.propagationTarget
    this.setLoading(true)
    this.propagationTarget = undefined
    try {
      return load()
    } finally {
      this.setLoading(false)
      this.propagationTarget = target
    }
  }

  private setLoading(loading: boolean): void {
    this.loading = loading
    for (const db of this.databases) db.loading = loading
  }

  /** The counters of one command, created on first use. */
  private commandStats(name: string): CommandStats {
    let counters = this.stats.commands.get(name)
    if (counters === undefined) {
      counters = { calls: 0, usec: 0, timedCalls: 0, rejectedCalls: 0, failedCalls: 0 }
      this.stats.commands.set(name, counters)
    }
    return counters
  }

  /**
   * Reads maxmemory, maxmemory-policy, maxmemory-samples and the LFU parameters after CONFIG SET
   * changed them (checked once per command by the configuration's version).
   */
  private applyMemoryConfig(): void {
    const config = this.config
    this.memoryConfigVersion = config.version
    const evictor = this.evictor
    const policy = (config.get('maxmemory-policy') ?? 'noeviction') as MaxmemoryPolicy
    if (policy !== evictor.policy) evictor.reset()
    evictor.policy = policy
    evictor.limit = Number(config.get('maxmemory') ?? '0')
    boundHeapGrowth(this, evictor.limit !== 0)
    this.footprint.setActive(evictor.limit !== 0, policy !== 'noeviction')
    evictor.samples = Number(config.get('maxmemory-samples') ?? '5')
    const keyspace = this.keyspace
    // Every policy but the LFU ones keeps the LRU clock, as Redis does: OBJECT IDLETIME answers.
    const clock = policy.endsWith('-lfu') ? 'lfu' : 'lru'
    // A switch drops every stamp, and with them the marks a running snapshot keeps of the keys it
    // wrote (`persistence/snapshot-marks.ts`): such snapshots complete first.
    if (clock !== keyspace.clock && keyspace.snapshotMark !== 0) this.beforeKeyspaceChange()
    keyspace.useClock(clock, this.databases)
    keyspace.lfuLogFactor = Number(config.get('lfu-log-factor') ?? '10')
    keyspace.lfuDecayTime = Number(config.get('lfu-decay-time') ?? '1')
  }

  /**
   * INFO's used_memory: the baseline plus the dataset's estimate, scaled while a limit is set by
   * what V8 holds for it (`heap-footprint.ts`).
   */
  usedMemory(): number {
    return this.baselineMemory + this.footprint.scaled(this.keyspace.usedBytes, this.limitedKeyCount())
  }

  /** Keys of every database while a limit is set (the footprint counts their table slots), else 0. */
  private limitedKeyCount(): number {
    return this.footprint.active ? this.keyspace.keys : 0
  }

  /** Before a memory check: the footprint's scale is refreshed every so many checks. */
  sampleMemory(): void {
    this.footprint.tick(this.keyspace.usedBytes, this.keyspace.keys)
  }

  /** A key eviction is about to remove: running snapshots write it first. */
  beforeEvict(db: Database, key: string): void {
    if (this.snapshots.size !== 0) this.beforeKeyChange(db, key)
  }

  /** A key eviction removed: logged as a DEL, as Redis propagates an eviction, and reported `evicted`. */
  onEvict(db: Database, key: string): void {
    if (this.footprint.holding) this.footprint.evicted(this.limitedKeyCount())
    this.propagate(db.index, ['DEL', key])
    this.notifier.emit(NOTIFY_EVICTED, 'evicted', key, db.index)
  }

  /** Counts an error reply by its code (INFO errorstats) and returns it. */
  private countError(error: ReplyError): ReplyError {
    this.stats.errorReplies++
    const code = error.code
    this.stats.errorCodes.set(code, (this.stats.errorCodes.get(code) ?? 0) + 1)
    return error
  }

  /**
   * Counts a command refused before running: the error, and a rejected call for the command when
   * it is known (wrong arity, refused in a transaction), as Redis's rejectCommand does.
   */
  private reject(argv: readonly string[], error: ReplyError, name?: string): ReplyError {
    name ??= knownCommandName(argv)
    if (name !== undefined) this.commandStats(name).rejectedCalls++
    return this.countError(error)
  }

  /** MULTI and EXEC count as commands of their own, as they do in Redis. */
  private countControl(name: 'multi' | 'exec', failed: boolean): void {
    const counters = this.commandStats(name)
    counters.calls++
    if (failed) counters.failedCalls++
    this.stats.commandsProcessed++
  }

  /** Registers a MONITOR listener; returns the function that removes it. */
  addMonitor(listener: (line: string) => void): () => void {
    this.monitors.add(listener)
    return () => this.monitors.delete(listener)
  }

  /** Number of attached MONITOR listeners. */
  get monitorCount(): number {
    return this.monitors.size
  }

  private feedMonitors(session: Session, argv: readonly string[]): void {
    if (this.monitors.size === 0) return
    const line = formatMonitorLine(session, argv)
    for (const listener of this.monitors) listener(line)
  }

  /** Reclaims every key whose TTL has passed (the active expiry cycle). */
  expireDue(now = this.clock()): number {
    this.keyspace.setTime(now)
    let removed = 0
    for (const db of this.databases) {
      if (db.expires.size !== 0) {
        const keys = db.expireDue(now)
        removed += keys.length
        // Redis logs a key its expiry cycle removed as DEL.
        if (this.propagationTarget !== undefined) for (const key of keys) this.propagate(db.index, ['DEL', key])
      }
      expireHashFields(db, now)
    }
    // An expired stream ends the wait of its group readers, as after a command.
    if (this.blocking.hasReady) this.blocking.serveReady()
    return removed
  }

  /** Stops the active expiry cycle. */
  close(): void {
    boundHeapGrowth(this, false)
    this.footprint.setActive(false)
    this.rdb?.close()
    if (this.expiryTimer !== undefined) clearInterval(this.expiryTimer)
    this.monitors.clear()
    this.pubsub.close()
    this.blocking.cancelAll()
  }
}

/** An engine limit from its option: a positive integer, or the default when not given. */
function positiveLimit(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${value}`)
  return value
}

let heapAtFirstEngine: number | undefined

/** Heap in use when the process made its first engine (0 where `process` is absent). */
function processBaseline(): number {
  heapAtFirstEngine ??= typeof process !== 'undefined' && typeof process.memoryUsage === 'function' ? process.memoryUsage().heapUsed : 0
  return heapAtFirstEngine
}

/** The time of a command whose clock has not been read yet. */
const NOT_READ = NaN

/**
 * The {@link CommandContext} of one command. Its time is read from the clock on first use and
 * then stays fixed: reading the clock costs more than a whole GET, and most commands never need
 * the time (a key lookup needs it only when the database has TTLs, see `Database.read`).
 */
class Invocation implements CommandContext {
  private time: number

  constructor(
    readonly engine: Engine,
    readonly session: Session,
    readonly db: Database,
    readonly name: string,
    time: number,
  ) {
    this.time = time
  }

  get now(): number {
    if (Number.isNaN(this.time)) {
      this.time = this.engine.clock()
      // The access clock follows for free whenever a command reads the time anyway.
      this.engine.keyspace.setTime(this.time)
    }
    return this.time
  }
}

/**
 * Command groups whose in-place changes touch WATCH exactly as Redis 7.0 does: their commands
 * report each key they modify (`notify` signals it, as Redis calls `signalModifiedKey` beside the
 * event), so a write that leaves a collection unchanged (SADD of a member already there, SREM of
 * a missing one, ZADD of the same score, LREM that removes nothing, XACK, XREADGROUP) touches
 * nothing. Other groups (JSON, scripts) still touch every collection they looked up for a write.
 */
const SIGNALING_GROUPS: ReadonlySet<string> = new Set(['set', 'hash', 'sorted-set', 'list', 'stream', 'geo', 'bitmap'])

/**
 * Groups whose writes count toward `rdb_changes_since_last_save` only when they changed a key, as
 * Redis moves its dirty counter only with a real change there (SETBIT of a bit already so, SADD
 * of members already there). The *STORE commands count always: Redis counts their store even
 * when the result is empty and the destination was missing.
 */
const DIRTY_ON_CHANGE_GROUPS: ReadonlySet<string> = new Set(['set', 'hash', 'sorted-set', 'list', 'geo', 'bitmap'])

function changesOnlyWhenSignaled(info: CommandInfo): boolean {
  return DIRTY_ON_CHANGE_GROUPS.has(info.group) && !info.name.endsWith('store')
}

const EXEC_ABORT_OOM = new ReplyError(`EXECABORT Transaction discarded because of: ${OOM_ERROR.message}`)
const NOT_IN_TRANSACTION = new ReplyError('ERR Command not allowed inside a transaction')
const WATCH_IN_TRANSACTION = new ReplyError('ERR WATCH inside MULTI is not allowed')
/** What MONITOR shows around a transaction: what the socket executor (and most clients) send. */
const MULTI_ARGV: readonly string[] = ['MULTI']
const EXEC_ARGV: readonly string[] = ['EXEC']
const MULTI_INFO = findCommand('multi')!
const EXEC_INFO = findCommand('exec')!

/** The full name of the command `argv` names when the table knows it (`config|get`), else undefined. */
function knownCommandName(argv: readonly string[]): string | undefined {
  if (argv.length === 0) return undefined
  const info = findCommand(argv[0].toLowerCase())
  if (info === undefined) return undefined
  if (info.subcommands === undefined || argv.length < 2) return info.name
  return info.subcommands.get(argv[1].toLowerCase())?.name
}
