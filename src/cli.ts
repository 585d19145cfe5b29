#!/usr/bin/env node
import cluster from 'node:cluster'
import { readFileSync } from 'node:fs'
import { createServer as createHttpServer } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import { availableParallelism } from 'node:os'
import { parseArgs } from 'node:util'
import { createNodeHandler } from './adapters/node.js'
import { generateToken } from './auth/tokens.js'
import { MemoryExecutor } from './executor/memory/memory-executor.js'
import type { PersistenceOptions } from './executor/memory/persistence/rdb-persistence.js'
import type { Executor } from './executor/executor.js'
import { RedisExecutor } from './executor/cluster/redis-executor.js'
import { splitSeeds } from './executor/cluster/options.js'
import { redact, resolveOptions } from './executor/socket/options.js'
import { serveResp, type RespServer } from './adapters/resp-server.js'
import { createGateway, type Gateway } from './rest/gateway.js'
import { runPrimary, runWorker, type Listening, type Serving } from './cli-workers.js'
import { runQueueCli } from './queue/cli.js'
import { hostPort, listen, ListenError } from './cli-listen.js'
import { fromEnv, readTls } from './cli-tls.js'
import { capConnections, closeGracefully, LIMIT_FLAGS, LIMITS_USAGE, listenerOptions, readLimits, serverOptions, type ServerLimits } from './cli-limits.js'
import { readRespLimits, RESP_LIMIT_FLAGS, RESP_LIMITS_USAGE, type RespLimits } from './cli-resp-limits.js'
import { GATEWAY_PERSISTENCE, PERSISTENCE_FLAGS, persistenceLine, persistenceUsage, readPersistence } from './cli-persistence.js'
import { MEMORY_USAGE, memoryBoundBanner, memoryBoundWarning, readMemoryBound, type MemoryBoundOptions } from './cli-memory.js'

const USAGE = `restis: a Redis-compatible database behind HTTP

Usage: restis [options]
       restis queue [options]   the local message-queue service for workflows (restis queue --help)

Options:
  --port <n>             HTTP port (default 8080; 0 picks a free one)
  --host <addr>          address to bind (default 127.0.0.1)
  --token <t>            standard token (or SERVICE_REST_TOKEN; generated when neither is set)
  --readonly-token <t>   read-only token (or SERVICE_REST_READONLY_TOKEN)
  --resp-port <n>        also serve RESP (redis-cli, Redis clients) on this port, same host and data;
                         clients AUTH with the token (user default), or as user readonly with the
                         read-only token, or as an ACL user with its password. The port answers
                         HTTP (the REST API, same tokens) too: the first line of a connection tells
  --redis <url>          run commands on a real server (redis://[[user]:pass@]host[:port][/db], rediss://)
                         instead of the in-memory engine (or REDIS_URL; the flag wins); a cluster
                         node finds the whole cluster; several seeds: url,url,…
  --tls-cert <file>      serve HTTPS, and RESP over TLS, with this PEM certificate (chain)
                         (or SERVICE_TLS_CERT); needs --tls-key
  --tls-key <file>       the certificate's PEM private key (or SERVICE_TLS_KEY)
${persistenceUsage(GATEWAY_PERSISTENCE, 25)}  --workers <n|auto>     with --redis: n processes share the ports (auto: one per core; default 1);
                         limits and usage counters are per process. Not with the in-memory
                         engine, whose data lives in one process
${MEMORY_USAGE}  -h, --help             this text
  --version              print the version and exit

Limits (docs/protocol.md, "Limits"):
${LIMITS_USAGE}

${RESP_LIMITS_USAGE}`

interface CliOptions {
  port: number
  host: string
  token: string
  tokenGenerated: boolean
  readonlyToken?: string
  respPort?: number
  redis?: string
  /** Where `redis` came from: the flag, or the REDIS_URL variable. */
  redisFrom?: 'flag' | 'REDIS_URL'
  /** PEM certificate and key, read at startup (workers get the text, not the paths). */
  tls?: { readonly cert: string; readonly key: string }
  workers: number
  limits: ServerLimits
  /** The gateway's part of the limits, for the gateway of each process. */
  gatewayLimits: { readonly maxPipelineRows: number; readonly maxReplyBytes: number }
  shutdownTimeout: number
  /** The RESP listener's limits (--resp-max-clients …). */
  respLimits: RespLimits
  /** The in-memory engine's data directory and save points; undefined with --no-persistence or --redis. */
  persistence?: PersistenceOptions
  /** --maxmemory and --maxmemory-policy, for the in-memory engine. */
  memory: MemoryBoundOptions
}

/** `restis <version>`, from the package.json next to src/ and dist/. */
function version(): string {
  const text = readFileSync(new URL('../package.json', import.meta.url), 'utf8')
  return `restis ${(JSON.parse(text) as { version: string }).version}`
}

function readOptions(argv: string[], env: NodeJS.ProcessEnv): CliOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      token: { type: 'string' },
      'readonly-token': { type: 'string' },
      'resp-port': { type: 'string' },
      redis: { type: 'string' },
      workers: { type: 'string' },
      'tls-cert': { type: 'string' },
      'tls-key': { type: 'string' },
      ...LIMIT_FLAGS,
      ...PERSISTENCE_FLAGS,
      maxmemory: { type: 'string' },
      'maxmemory-policy': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean' },
      ...RESP_LIMIT_FLAGS,
    },
    strict: true,
  })
  if (values.help) {
    process.stdout.write(USAGE)
    process.exit(0)
  }
  if (values.version) {
    process.stdout.write(`${version()}\n`)
    process.exit(0)
  }
  const redis = values.redis || fromEnv(env, 'REDIS_URL')
  const port = Number(values.port ?? env.PORT ?? 8080)
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid --port: ${values.port}`)
  const respPort = values['resp-port'] === undefined ? undefined : Number(values['resp-port'])
  if (respPort !== undefined && (!Number.isInteger(respPort) || respPort < 0 || respPort > 65535)) {
    throw new Error(`invalid --resp-port: ${values['resp-port']}`)
  }
  const respLimits = readRespLimits(values)
  if (respPort === undefined && Object.keys(respLimits).length > 0) {
    throw new Error('the --resp-… limits need --resp-port (there is no RESP listener without it)')
  }
  const workers = values.workers === 'auto' ? availableParallelism() : Number(values.workers ?? 1)
  if (!Number.isInteger(workers) || workers < 1) throw new Error(`invalid --workers: ${values.workers} (a positive number or auto)`)
  if (values.workers !== undefined && values.workers !== '1' && redis === undefined) {
    throw new Error(
      `--workers ${values.workers} needs --redis: the in-memory engine's data lives in one process, ` +
        'so each worker would serve a database of its own',
    )
  }
  if (redis !== undefined) for (const seed of splitSeeds(redis)) resolveOptions({ url: seed })
  const given = values.token || fromEnv(env, 'SERVICE_REST_TOKEN') || fromEnv(env, 'UPSTASH_REDIS_REST_TOKEN')
  const limits = readLimits(values)
  return {
    limits,
    gatewayLimits: { maxPipelineRows: limits.maxPipelineRows, maxReplyBytes: limits.maxReplyBytes },
    shutdownTimeout: limits.shutdownTimeout,
    port,
    host: values.host ?? '127.0.0.1',
    token: given ?? generateToken(),
    tokenGenerated: given === undefined,
    readonlyToken: values['readonly-token'] || fromEnv(env, 'SERVICE_REST_READONLY_TOKEN'),
    respPort,
    redis,
    redisFrom: redis === undefined ? undefined : values.redis ? 'flag' : 'REDIS_URL',
    tls: readTls(values['tls-cert'], values['tls-key'], env),
    workers,
    respLimits,
    persistence: readPersistence(values, redis !== undefined, env, GATEWAY_PERSISTENCE, (line) => void process.stdout.write(`restis: ${line}\n`)),
    memory: readMemoryBound(values.maxmemory, values['maxmemory-policy'], redis !== undefined),
  }
}

/** Set by main: what SHUTDOWN (from a client) does once the engine saved. */
let onShutdown: (() => void) | undefined

/**
 * Serves the gateway `gatewayFor` builds over HTTP (HTTPS with TLS), and RESP with --resp-port,
 * from this process. The RESP listener takes the gateway's tokens, so both ports accept the same.
 * A port that cannot be taken rejects with a {@link ListenError}, after closing what was opened.
 */
async function serve(options: CliOptions, gatewayFor: (executor: Executor) => Gateway): Promise<Serving> {
  const executor = options.redis !== undefined ? new RedisExecutor({ url: options.redis }) : new MemoryExecutor({ ...options.memory, persistence: options.persistence, onShutdown: () => onShutdown?.() })
  if (executor instanceof MemoryExecutor) {
    const warning = memoryBoundWarning(options.memory, executor.engine.baselineMemory)
    if (warning !== '') process.stderr.write(`restis: ${warning}`)
  }
  const gateway = gatewayFor(executor)
  const handler = createNodeHandler(gateway, listenerOptions(options.limits))
  const settings = serverOptions(options.limits)
  const server = options.tls === undefined ? createHttpServer(settings, handler) : createHttpsServer({ ...settings, ...options.tls }, handler)
  capConnections(server, options.limits)
  let resp: RespServer | undefined
  try {
    await listen(server, options.port, options.host)
    if (options.respPort !== undefined) {
      // The RESP port serves the REST API too (the direct database-port mode): HTTP requests it
      // recognises go to a plain HTTP server of the same handler that never listens itself (over
      // TLS the listener has already decrypted them).
      const respHttp = createHttpServer(settings, handler)
      respHttp.keepAliveTimeout = options.limits.keepAliveTimeout // its connection cap is the RESP listener's
      resp = await serveResp(executor, { ...respOptions(options, gateway), http: respHttp })
    }
  } catch (error) {
    server.close()
    // Never served: closing must not save, or a second restis on a busy port would overwrite
    // the running one's snapshot with what it loaded at start.
    if (executor instanceof MemoryExecutor) await executor.exec(['SHUTDOWN', 'NOSAVE'])
    else await executor.close()
    if (error instanceof ListenError || (error as { code?: unknown }).code === undefined) throw error
    throw new ListenError(options.host, options.respPort ?? 0, error)
  }
  const address = server.address()
  const port = typeof address === 'object' && address !== null ? address.port : options.port
  return {
    port,
    respPort: resp?.address.port,
    // Requests in flight finish (up to the shutdown timeout), event streams end, RESP commands in
    // flight reply; the executor closes last, since those still need it.
    close: async () => {
      await Promise.all([closeGracefully(server, handler.endStreams, options.shutdownTimeout), resp?.close({ deadline: options.shutdownTimeout })])
      await executor.close()
    },
  }
}

/** The RESP listener's settings: the gateway's token store checks AUTH, TLS as for HTTP. */
function respOptions(options: CliOptions, gateway: Gateway): Parameters<typeof serveResp>[1] {
  const auth = gateway.tokens
  if (auth === undefined) throw new Error('the gateway has no token store for the RESP listener')
  return { port: options.respPort, host: options.host, auth, tls: options.tls, ...options.respLimits }
}

function banner(options: CliOptions, at: Listening): string {
  const http = options.tls === undefined ? 'http' : 'https'
  const redisScheme = options.tls === undefined ? 'redis' : 'rediss'
  const from = options.redisFrom === 'REDIS_URL' ? ' (from REDIS_URL)' : ''
  const backend = options.redis !== undefined ? `socket executor to ${redact(options.redis)}${from}` : 'in-memory executor'
  const workers = options.workers > 1 ? `, ${options.workers} workers` : ''
  const url = `${http}://${hostPort(options.host, at.port)}`
  return (
    `restis listening on ${url} (${backend}${workers})\n` +
    (at.respPort !== undefined ? `RESP listening on ${redisScheme}://${hostPort(options.host, at.respPort)}\n` : '') +
    (at.respPort !== undefined ? `the RESP port serves HTTP too: ${http}://${hostPort(options.host, at.respPort)}\n` : '') +
    `token${options.tokenGenerated ? ' (generated)' : ''}: ${options.token}\n` +
    (options.readonlyToken ? `read-only token: ${options.readonlyToken}\n` : '') +
    (options.redis === undefined ? `${persistenceLine(options.persistence, GATEWAY_PERSISTENCE)}\n` : '') +
    memoryBoundBanner(options.memory) +
    `try: curl -H "Authorization: Bearer ${options.token}" ${url}/set/a/1\n`
  )
}

async function main(): Promise<void> {
  if (cluster.isWorker) return runWorker(serve)
  if (process.argv[2] === 'queue') return runQueueCli(process.argv.slice(3), process.env)
  let options: CliOptions
  try {
    options = readOptions(process.argv.slice(2), process.env)
  } catch (error) {
    process.stderr.write(`restis: ${(error as Error).message}\n\n${USAGE}`)
    process.exit(2)
  }
  if (options.workers > 1) {
    return runPrimary(options, options.workers, (at) => process.stdout.write(banner(options, at)))
  }
  let served: Serving
  try {
    served = await serve(options, (executor) =>
      createGateway({ executor, token: options.token, readonlyToken: options.readonlyToken, ...options.gatewayLimits }),
    )
  } catch (error) {
    // A port taken, or a data directory or file that cannot be used.
    process.stderr.write(`restis: ${(error as Error).message}\n`)
    process.exit(1)
  }
  let stopping = false
  const stop = (signal: string) => {
    if (stopping) return
    stopping = true
    process.stdout.write(`restis: ${signal}, shutting down\n`)
    void served.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`restis: the data could not be saved on shutdown: ${(error as Error).message}\n`)
        process.exit(1)
      },
    )
  }
  onShutdown = () => {
    // The engine saved already (SHUTDOWN's own save); the executor is closed.
    process.stdout.write('restis: SHUTDOWN, exiting\n')
    process.exit(0)
  }
  // Handlers first, banner second: whoever reads the banner may signal at once.
  process.on('SIGINT', () => stop('SIGINT'))
  process.on('SIGTERM', () => stop('SIGTERM'))
  process.stdout.write(banner(options, served))
}

void main()
