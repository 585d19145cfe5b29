/**
 * `restis queue`: the local message-queue service on its own port, for developing workflow
 * endpoints. Its state is durable by default: the in-memory engine with a data directory of its
 * own and the append-only file fsynced before each acknowledgement, so a restart (after a crash
 * too) resumes every run and message. `--redis` keeps the state in a Redis server instead (then
 * several `restis queue` processes can share it); `--no-persistence` keeps it in memory only.
 */
import { parseArgs } from 'node:util'
import { generateToken } from '../auth/tokens.js'
import type { Executor } from '../executor/executor.js'
import { RedisExecutor } from '../executor/cluster/redis-executor.js'
import { MemoryExecutor } from '../executor/memory/memory-executor.js'
import type { PersistenceOptions } from '../executor/memory/persistence/rdb-persistence.js'
import { redact } from '../executor/socket/options.js'
import { ENV_NAMES, readEnv } from '../workflow/env.js'
import { generateSigningKey } from '../workflow/signature.js'
import { createQueueService, type QueueService } from './service.js'
import { QueueStore } from './store.js'
import { resolveCredentials, type CredentialOrigin, type QueueCredentials, type ResolvedCredentials } from './credentials.js'
import { releaseAbandonedLeases } from './recovery.js'
import { ListenError } from '../cli-listen.js'
import { readTls, type TlsFiles } from '../cli-tls.js'
import { PERSISTENCE_FLAGS, persistenceLine, persistenceUsage, QUEUE_PERSISTENCE, readPersistence } from '../cli-persistence.js'

export const QUEUE_USAGE = `restis queue: the local message-queue service for workflows

Usage: restis queue [options]

Options:
  --port <n>               HTTP port (default 8081; 0 picks a free one)
  --host <addr>            address to bind (default 127.0.0.1)
  --token <t>              API token (or QUEUE_TOKEN / QSTASH_TOKEN; else generated once and kept
                           with the queue's data)
  --current-signing-key <k>  key that signs deliveries (or QUEUE_CURRENT_SIGNING_KEY; generated, kept)
  --next-signing-key <k>     next key (or QUEUE_NEXT_SIGNING_KEY; generated, kept)
  --redis <url>            keep state in Redis (redis://…) instead of the data directory;
                           processes can share it
  --retries <n>            default retries per message (default 3)
  --concurrency <n>        deliveries in flight (default 64)
  --backoff local|hosted   delay before retry n: local 1s, 2s, 4s … 60s (default);
                           hosted min(86400, e^(2.5n)) s, as the hosted queue
  --delivery-timeout <ms>  how long one delivery may take (default 30000)
  --lease <ms>             how long a claimed delivery stays reserved for this process (default timeout + 10000)
  --tls-cert <file>        serve HTTPS with this PEM certificate (or SERVICE_TLS_CERT); needs --tls-key
  --tls-key <file>         the certificate's PEM private key (or SERVICE_TLS_KEY)
${persistenceUsage(QUEUE_PERSISTENCE, 27)}  -h, --help               this text
`

interface QueueSettings {
  readonly port: number
  readonly host: string
  readonly token?: string
  readonly current?: string
  readonly next?: string
  readonly redis?: string
  readonly retries?: number
  readonly concurrency?: number
  readonly backoff?: 'hosted'
  readonly deliveryTimeout?: number
  readonly leaseMs?: number
  readonly tls?: TlsFiles
  /** The data directory and AOF; undefined with --redis or --no-persistence. */
  readonly persistence?: PersistenceOptions
}

/** The state the service runs on, and what the CLI must release when it stops. */
interface QueueState {
  readonly executor: Executor
  readonly prefix: string | undefined
  readonly credentials: ResolvedCredentials
  /** Deliveries an earlier process left in flight, due again now. */
  readonly recovered: number
}

const log = (line: string): void => void process.stdout.write(`restis queue: ${line}\n`)

function integer(value: string | undefined, name: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined
  const parsed = Number(value)
  if (!Number.isInteger(parsed) || parsed < min || parsed > max) throw new Error(`invalid --${name}: ${value}`)
  return parsed
}

function backoffOf(value: string | undefined): 'hosted' | undefined {
  if (value === undefined || value === 'local') return undefined
  if (value === 'hosted') return 'hosted'
  throw new Error(`invalid --backoff: ${value} (local or hosted)`)
}

/** The settings from the flags and environment; throws on a bad flag (the caller prints the usage). */
function readSettings(argv: string[], env: NodeJS.ProcessEnv): QueueSettings {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      token: { type: 'string' },
      'current-signing-key': { type: 'string' },
      'next-signing-key': { type: 'string' },
      redis: { type: 'string' },
      retries: { type: 'string' },
      concurrency: { type: 'string' },
      backoff: { type: 'string' },
      'delivery-timeout': { type: 'string' },
      lease: { type: 'string' },
      'tls-cert': { type: 'string' },
      'tls-key': { type: 'string' },
      ...PERSISTENCE_FLAGS,
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  })
  if (values.help) {
    process.stdout.write(QUEUE_USAGE)
    process.exit(0)
  }
  return {
    port: integer(values.port, 'port', 0, 65535) ?? 8081,
    host: values.host ?? '127.0.0.1',
    token: values.token || readEnv(env, ENV_NAMES.token),
    current: values['current-signing-key'] || readEnv(env, ENV_NAMES.currentSigningKey),
    next: values['next-signing-key'] || readEnv(env, ENV_NAMES.nextSigningKey),
    redis: values.redis,
    retries: integer(values.retries, 'retries', 0, 100),
    concurrency: integer(values.concurrency, 'concurrency', 1, 10_000),
    backoff: backoffOf(values.backoff),
    deliveryTimeout: integer(values['delivery-timeout'], 'delivery-timeout', 1, 3_600_000),
    leaseMs: integer(values.lease, 'lease', 1, 3_600_000),
    tls: readTls(values['tls-cert'], values['tls-key'], env),
    persistence: readPersistence(values, values.redis !== undefined, env, QUEUE_PERSISTENCE, log),
  }
}

/**
 * On a Redis Cluster the queue's keys carry one hash tag, `{restis:queue}:`, so its transactions
 * find all their keys in one slot; on one server (or when the server cannot be reached yet) the
 * default `restis:queue:` stays.
 */
async function queuePrefix(executor: Executor): Promise<string | undefined> {
  if (!(executor instanceof RedisExecutor)) return undefined
  const topology = await executor.resolve().then(() => executor.topology, () => undefined)
  return topology === 'cluster' ? '{restis:queue}:' : undefined
}

/** The secrets for state that is not kept: the given ones, else new ones. */
function freshCredentials(given: Partial<QueueCredentials>): ResolvedCredentials {
  const pick = (value: string | undefined, generate: () => string): [string, CredentialOrigin] => (value === undefined ? [generate(), 'generated'] : [value, 'given'])
  const [token, tokenOrigin] = pick(given.token, generateToken)
  const [currentSigningKey, currentOrigin] = pick(given.currentSigningKey, generateSigningKey)
  const [nextSigningKey, nextOrigin] = pick(given.nextSigningKey, generateSigningKey)
  return { token, currentSigningKey, nextSigningKey, origin: { token: tokenOrigin, currentSigningKey: currentOrigin, nextSigningKey: nextOrigin } }
}

/** State in Redis: other processes may share it, so leases are left to expire. */
async function openRedis(url: string, given: Partial<QueueCredentials>): Promise<QueueState> {
  const executor = new RedisExecutor({ url })
  const prefix = await queuePrefix(executor)
  const credentials = await resolveCredentials(executor, prefix ?? new QueueStore(executor).prefix, given).catch(async (error: unknown) => {
    await executor.close()
    throw new Error(`cannot read the queue's kept token and keys from ${redact(url)}: ${(error as Error).message}`)
  })
  return { executor, prefix, credentials, recovered: 0 }
}

/**
 * State in the in-memory engine, loaded from the data directory. The engine locks the directory
 * (`restis.pid`, persistence/dir-lock.ts): no other live process can hold a lease on its state,
 * so the deliveries a killed process left in flight are released at once.
 */
async function openDataDirectory(persistence: PersistenceOptions, given: Partial<QueueCredentials>): Promise<QueueState> {
  const executor = new MemoryExecutor({ persistence })
  try {
    const store = new QueueStore(executor)
    const recovered = await releaseAbandonedLeases(store)
    const credentials = await resolveCredentials(executor, store.prefix, given)
    return { executor, prefix: undefined, credentials, recovered: recovered.length }
  } catch (error) {
    await executor.exec(['SHUTDOWN', 'NOSAVE'])
    throw error
  }
}

/** Opens the state the flags name: Redis, the data directory, or memory only. */
function openState(settings: QueueSettings): Promise<QueueState> {
  const given = { token: settings.token, currentSigningKey: settings.current, nextSigningKey: settings.next }
  if (settings.redis !== undefined) return openRedis(settings.redis, given)
  if (settings.persistence !== undefined) return openDataDirectory(settings.persistence, given)
  return Promise.resolve({ executor: new MemoryExecutor(), prefix: undefined, credentials: freshCredentials(given), recovered: 0 })
}

function banner(settings: QueueSettings, state: QueueState, queue: QueueService, url: string): string {
  const backend = settings.redis !== undefined ? `state in ${redact(settings.redis)}` : settings.persistence === undefined ? 'state in memory' : 'state in the in-memory engine'
  const origin = state.credentials.origin.token
  const label = origin === 'generated' ? ' (generated)' : origin === 'kept' ? ' (generated earlier, kept with the data)' : ''
  return (
    `restis queue listening on ${url} (${backend})\n` +
    (settings.redis === undefined ? `${persistenceLine(settings.persistence, QUEUE_PERSISTENCE)}\n` : '') +
    (state.recovered > 0 ? `resumed: ${state.recovered} deliveries in flight when the last process stopped are due again\n` : '') +
    `token${label}: ${state.credentials.token}\n` +
    `dashboard: ${url}/dashboard\n` +
    `for your workflow endpoint:\n` +
    `  QUEUE_URL=${url}\n` +
    `  QUEUE_TOKEN=${state.credentials.token}\n` +
    `  QUEUE_CURRENT_SIGNING_KEY=${queue.signingKeys.current}\n` +
    `  QUEUE_NEXT_SIGNING_KEY=${queue.signingKeys.next}\n`
  )
}

/** Closes what `openState` opened; `save` false when the service never served (nothing to save). */
async function closeState(state: QueueState, save: boolean): Promise<void> {
  if (!save && state.executor instanceof MemoryExecutor) await state.executor.exec(['SHUTDOWN', 'NOSAVE'])
  else await state.executor.close()
}

/** Runs the `queue` subcommand until SIGINT/SIGTERM. */
export async function runQueueCli(argv: string[], env: NodeJS.ProcessEnv): Promise<void> {
  let settings: QueueSettings
  try {
    settings = readSettings(argv, env)
  } catch (error) {
    process.stderr.write(`restis queue: ${(error as Error).message}\n\n${QUEUE_USAGE}`)
    process.exit(2)
  }
  let state: QueueState
  try {
    state = await openState(settings)
  } catch (error) {
    // a data directory in use or unusable, a file that does not load, Redis unreachable
    process.stderr.write(`restis queue: ${(error as Error).message}\n`)
    process.exit(1)
  }
  const queue = createQueueService({
    token: state.credentials.token,
    executor: state.executor,
    prefix: state.prefix,
    currentSigningKey: state.credentials.currentSigningKey,
    nextSigningKey: state.credentials.nextSigningKey,
    retries: settings.retries,
    concurrency: settings.concurrency,
    backoff: settings.backoff,
    deliveryTimeout: settings.deliveryTimeout,
    leaseMs: settings.leaseMs,
    onError: (error) => process.stderr.write(`restis queue: ${(error as Error)?.stack ?? error}\n`),
  })
  let url: string
  try {
    ;({ url } = await queue.listen(settings.port, settings.host, settings.tls))
  } catch (error) {
    process.stderr.write(`restis queue: ${new ListenError(settings.host, settings.port, error).message}\n`)
    await queue.close()
    await closeState(state, false)
    process.exit(1)
  }
  // handlers first: whoever reads the banner may signal at once
  let stopping = false
  const stop = (signal: string) => {
    if (stopping) return
    stopping = true
    process.stdout.write(`restis queue: ${signal}, shutting down\n`)
    // No new deliveries, the listener closed, then the engine writes its final state.
    void queue
      .close()
      .then(() => closeState(state, true))
      .then(
        () => process.exit(0),
        (error: unknown) => {
          process.stderr.write(`restis queue: the state could not be saved on shutdown: ${(error as Error).message}\n`)
          process.exit(1)
        },
      )
  }
  process.on('SIGINT', () => stop('SIGINT'))
  process.on('SIGTERM', () => stop('SIGTERM'))
  process.stdout.write(banner(settings, state, queue, url))
}
