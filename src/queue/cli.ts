/**
 * `restis queue`: the local message-queue service on its own port, for developing workflow
 * endpoints. State is in memory unless `--redis` names a server (then several `restis queue`
 * processes can share it).
 */
import { parseArgs } from 'node:util'
import { generateToken } from '../auth/tokens.js'
import type { Executor } from '../executor/executor.js'
import { RedisExecutor } from '../executor/cluster/redis-executor.js'
import { redact } from '../executor/socket/options.js'
import { ENV_NAMES, readEnv } from '../workflow/env.js'
import { createQueueService } from './service.js'
import { ListenError } from '../cli-listen.js'
import { readTls, type TlsFiles } from '../cli-tls.js'

export const QUEUE_USAGE = `restis queue: the local message-queue service for workflows

Usage: restis queue [options]

Options:
  --port <n>               HTTP port (default 8081; 0 picks a free one)
  --host <addr>            address to bind (default 127.0.0.1)
  --token <t>              API token (or QUEUE_TOKEN / QSTASH_TOKEN; generated when neither is set)
  --current-signing-key <k>  key that signs deliveries (or QUEUE_CURRENT_SIGNING_KEY; generated)
  --next-signing-key <k>     next key (or QUEUE_NEXT_SIGNING_KEY; generated)
  --redis <url>            keep state in Redis (redis://…) instead of memory; processes can share it
  --retries <n>            default retries per message (default 3)
  --concurrency <n>        deliveries in flight (default 64)
  --delivery-timeout <ms>  how long one delivery may take (default 30000)
  --lease <ms>             how long a claimed delivery stays reserved for this process (default timeout + 10000)
  --tls-cert <file>        serve HTTPS with this PEM certificate (or SERVICE_TLS_CERT); needs --tls-key
  --tls-key <file>         the certificate's PEM private key (or SERVICE_TLS_KEY)
  -h, --help               this text
`

function integer(value: string | undefined, name: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined
  const parsed = Number(value)
  if (!Number.isInteger(parsed) || parsed < min || parsed > max) throw new Error(`invalid --${name}: ${value}`)
  return parsed
}

/** Runs the `queue` subcommand until SIGINT/SIGTERM. */
/**
 * On a Redis Cluster the queue's keys carry one hash tag, `{restis:queue}:`, so its transactions
 * find all their keys in one slot; on one server (or when the server cannot be reached yet) the
 * default `restis:queue:` stays.
 */
async function queuePrefix(executor: Executor | undefined): Promise<string | undefined> {
  if (!(executor instanceof RedisExecutor)) return undefined
  const topology = await executor.resolve().then(() => executor.topology, () => undefined)
  return topology === 'cluster' ? '{restis:queue}:' : undefined
}

export async function runQueueCli(argv: string[], env: NodeJS.ProcessEnv): Promise<void> {
  let executor: Executor | undefined
  let settings: {
    port: number
    host: string
    token: string
    generated: boolean
    current?: string
    next?: string
    redis?: string
    retries?: number
    concurrency?: number
    deliveryTimeout?: number
    leaseMs?: number
    tls?: TlsFiles
  }
  try {
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
        'delivery-timeout': { type: 'string' },
        lease: { type: 'string' },
        'tls-cert': { type: 'string' },
        'tls-key': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    })
    if (values.help) {
      process.stdout.write(QUEUE_USAGE)
      process.exit(0)
    }
    const given = values.token || readEnv(env, ENV_NAMES.token)
    settings = {
      port: integer(values.port, 'port', 0, 65535) ?? 8081,
      host: values.host ?? '127.0.0.1',
      token: given ?? generateToken(),
      generated: given === undefined,
      current: values['current-signing-key'] || readEnv(env, ENV_NAMES.currentSigningKey),
      next: values['next-signing-key'] || readEnv(env, ENV_NAMES.nextSigningKey),
      redis: values.redis,
      retries: integer(values.retries, 'retries', 0, 100),
      concurrency: integer(values.concurrency, 'concurrency', 1, 10_000),
      deliveryTimeout: integer(values['delivery-timeout'], 'delivery-timeout', 1, 3_600_000),
      leaseMs: integer(values.lease, 'lease', 1, 3_600_000),
      tls: readTls(values['tls-cert'], values['tls-key'], env),
    }
    if (settings.redis !== undefined) executor = new RedisExecutor({ url: settings.redis })
  } catch (error) {
    process.stderr.write(`restis queue: ${(error as Error).message}\n\n${QUEUE_USAGE}`)
    process.exit(2)
  }
  const queue = createQueueService({
    token: settings.token,
    executor,
    prefix: await queuePrefix(executor),
    currentSigningKey: settings.current,
    nextSigningKey: settings.next,
    retries: settings.retries,
    concurrency: settings.concurrency,
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
    await executor?.close()
    process.exit(1)
  }
  // handlers first: whoever reads the banner may signal at once
  let stopping = false
  const stop = (signal: string) => {
    if (stopping) return
    stopping = true
    process.stdout.write(`restis queue: ${signal}, shutting down\n`)
    void queue
      .close()
      .then(() => executor?.close())
      .then(() => process.exit(0))
  }
  process.on('SIGINT', () => stop('SIGINT'))
  process.on('SIGTERM', () => stop('SIGTERM'))
  const backend = settings.redis !== undefined ? `state in ${redact(settings.redis)}` : 'state in memory'
  process.stdout.write(
    `restis queue listening on ${url} (${backend})\n` +
      `token${settings.generated ? ' (generated)' : ''}: ${settings.token}\n` +
      `dashboard: ${url}/dashboard\n` +
      `for your workflow endpoint:\n` +
      `  QUEUE_URL=${url}\n` +
      `  QUEUE_TOKEN=${settings.token}\n` +
      `  QUEUE_CURRENT_SIGNING_KEY=${queue.signingKeys.current}\n` +
      `  QUEUE_NEXT_SIGNING_KEY=${queue.signingKeys.next}\n`,
  )
}
