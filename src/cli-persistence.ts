/**
 * The persistence flags of the CLIs (`restis` and `restis queue`): one parser, one banner line and
 * one usage text, with the defaults of each program. Both are durable by default and keep their
 * data in the per-user data home of the XDG base directory spec, each in a folder of its own.
 */
import { homedir } from 'node:os'
import { join, resolve } from 'node:path'
import { DEFAULT_SAVE, parseSavePoints, type PersistenceOptions } from './executor/memory/persistence/rdb-persistence.js'

type FsyncPolicy = NonNullable<PersistenceOptions['appendfsync']>

/** Where a program keeps its data and how, unless its flags say otherwise. */
export interface PersistenceDefaults {
  /** The data directory below the data home (`restis`, `restis/queue`). */
  readonly folder: string
  readonly appendonly: boolean
  readonly appendfsync: FsyncPolicy
  /** What writes the snapshot besides save points and shutdown, for the usage text (`SAVE, BGSAVE`). */
  readonly snapshotCommands?: string
}

/** The gateway's defaults: Redis's (snapshots only, `everysec` once the AOF is turned on). */
export const GATEWAY_PERSISTENCE: PersistenceDefaults = { folder: 'restis', appendonly: false, appendfsync: 'everysec', snapshotCommands: 'SAVE, BGSAVE' }

/**
 * The queue's defaults: a folder inside the gateway's, so the two never share a file, and every
 * change on disk before it is acknowledged, so an accepted message or a recorded step survives a
 * crash of the machine, not only of the process.
 */
export const QUEUE_PERSISTENCE: PersistenceDefaults = { folder: join('restis', 'queue'), appendonly: true, appendfsync: 'always' }

/** The flags, for `parseArgs`. */
export const PERSISTENCE_FLAGS = {
  dir: { type: 'string' },
  dbfilename: { type: 'string' },
  save: { type: 'string' },
  'no-persistence': { type: 'boolean' },
  appendonly: { type: 'string' },
  appendfsync: { type: 'string' },
} as const

/** What `parseArgs` read of {@link PERSISTENCE_FLAGS}. */
export interface PersistenceFlagValues {
  readonly dir?: string
  readonly dbfilename?: string
  readonly save?: string
  readonly appendonly?: string
  readonly appendfsync?: string
  readonly 'no-persistence'?: boolean
}

const DATA_FLAGS = ['dir', 'dbfilename', 'save', 'appendonly', 'appendfsync'] as const

/**
 * The engine's persistence from the flags: undefined with --no-persistence or with a Redis server
 * (`socket`). Persistence flags with --redis are refused, since that server keeps the data; so
 * are flags that contradict --no-persistence. `log` receives the engine's notices.
 */
export function readPersistence(
  values: PersistenceFlagValues,
  socket: boolean,
  env: NodeJS.ProcessEnv,
  defaults: PersistenceDefaults,
  log: (line: string) => void,
): PersistenceOptions | undefined {
  const given = DATA_FLAGS.filter((flag) => values[flag] !== undefined)
  if (socket && values['no-persistence']) throw new Error('--no-persistence is for the in-memory engine: with --redis the Redis server keeps the data')
  if (socket && given.length > 0) throw new Error(`--${given[0]} is for the in-memory engine: with --redis the Redis server keeps the data`)
  if (socket) return undefined
  if (values['no-persistence']) {
    if (given.length > 0) throw new Error(`--${given[0]} contradicts --no-persistence`)
    return undefined
  }
  const save = values.save ?? DEFAULT_SAVE
  parseSavePoints(save)
  if (values.dbfilename !== undefined && (values.dbfilename === '' || values.dbfilename.includes('/'))) {
    throw new Error(`invalid --dbfilename: ${values.dbfilename} (a file name, not a path)`)
  }
  const appendonly = values.appendonly?.toLowerCase() ?? (defaults.appendonly ? 'yes' : 'no')
  if (appendonly !== 'yes' && appendonly !== 'no') throw new Error(`invalid --appendonly: ${values.appendonly} (yes or no)`)
  const appendfsync = values.appendfsync?.toLowerCase() ?? defaults.appendfsync
  if (appendfsync !== 'always' && appendfsync !== 'everysec' && appendfsync !== 'no') {
    throw new Error(`invalid --appendfsync: ${values.appendfsync} (always, everysec or no)`)
  }
  const dir = resolve(values.dir ?? defaultDataDirectory(env, defaults))
  return { dir, dbfilename: values.dbfilename, save, appendonly: appendonly === 'yes', appendfsync, log }
}

/** `$XDG_DATA_HOME/<folder>`, else `~/.local/share/<folder>`: the same wherever the program starts. */
export function defaultDataDirectory(env: NodeJS.ProcessEnv, defaults: PersistenceDefaults): string {
  const dataHome = env.XDG_DATA_HOME || join(homedir(), '.local', 'share')
  return join(dataHome, defaults.folder)
}

/** The banner's word on durability: where the data goes and when (`defaults` names what else writes a snapshot). */
export function persistenceLine(persistence: PersistenceOptions | undefined, defaults: PersistenceDefaults): string {
  if (persistence === undefined) return 'data: in memory only (--no-persistence): nothing is written to disk'
  const unsaved = defaults.snapshotCommands === undefined ? 'no save points: no snapshot is written' : `no save points: written by ${defaults.snapshotCommands.replace(', ', ' and ')} only`
  const when = persistence.save === '' ? unsaved : `save points "${persistence.save}", and on shutdown`
  const aof = persistence.appendonly ? `; append-only file on, appendfsync ${persistence.appendfsync}` : ''
  return `data: ${join(persistence.dir, persistence.dbfilename ?? 'dump.rdb')} (${when}${aof})`
}

/** The flags' lines of a usage text, the option names padded to `width` columns. */
export function persistenceUsage(defaults: PersistenceDefaults, width: number): string {
  const fsyncDefault = (policy: FsyncPolicy): string => (policy === defaults.appendfsync ? ' (default)' : '')
  const writers = defaults.snapshotCommands === undefined ? 'save points and shutdown' : `${defaults.snapshotCommands}, save points and shutdown`
  const entries: [string, string[]][] = [
    [
      '--dir <path>',
      [
        `data directory of the in-memory engine (default $XDG_DATA_HOME/${defaults.folder},`,
        `else ~/.local/share/${defaults.folder}); created when missing. dump.rdb there is`,
        `loaded at start and written by ${writers}`,
      ],
    ],
    ['--dbfilename <name>', ['snapshot file name in --dir (default dump.rdb)']],
    [
      '--save "<s> <n> …"',
      ['save points, Redis\'s syntax: BGSAVE after <s> seconds if <n> keys changed', `(default "${DEFAULT_SAVE}"); --save "" disables them`],
    ],
    ['--no-persistence', ['keep the data in memory only: nothing is read from or written to disk']],
    [
      '--appendonly yes|no',
      [
        'log every write to the append-only file in <dir>/appendonlydir and load it at',
        `start, where it wins over dump.rdb (default ${defaults.appendonly ? 'yes' : 'no'})`,
      ],
    ],
    [
      '--appendfsync <p>',
      [
        `always${fsyncDefault('always')}: a write is acknowledged once it is on disk (one fsync per event-loop`,
        `turn for all its writes); everysec${fsyncDefault('everysec')}: fsync once a second, a crash`,
        `loses at most about a second of writes; no${fsyncDefault('no')}: the OS decides`,
      ],
    ],
  ]
  const indent = ' '.repeat(width)
  return entries.map(([flag, lines]) => lines.map((line, index) => (index === 0 ? `  ${flag}`.padEnd(width) : indent) + line).join('\n') + '\n').join('')
}
