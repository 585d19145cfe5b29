#!/usr/bin/env node
import cluster from 'node:cluster'
import { createServer } from 'node:http'
import { availableParallelism } from 'node:os'
import { parseArgs } from 'node:util'
import { createNodeHandler } from './adapters/node.js'
import { generateToken } from './auth/tokens.js'
import { MemoryExecutor } from './executor/memory/memory-executor.js'
import type { Executor } from './executor/executor.js'
import { RedisExecutor } from './executor/cluster/redis-executor.js'
import { splitSeeds } from './executor/cluster/options.js'
import { redact, resolveOptions } from './executor/socket/options.js'
import { serveResp, type RespServer } from './adapters/resp-server.js'
import { createGateway, type Gateway } from './rest/gateway.js'
import { runPrimary, runWorker, type Listening, type Serving } from './cli-workers.js'
import { runQueueCli } from './queue/cli.js'

const USAGE = `restis: a Redis-compatible database behind HTTP

Usage: restis [options]
       restis queue [options]   the local message-queue service for workflows (restis queue --help)

Options:
  --port <n>             HTTP port (default 8080; 0 picks a free one)
  --host <addr>          address to bind (default 127.0.0.1)
  --token <t>            standard token (or SERVICE_REST_TOKEN; generated when neither is set)
  --readonly-token <t>   read-only token (or SERVICE_REST_READONLY_TOKEN)
  --resp-port <n>        also serve RESP (redis-cli, Redis clients) on this port, same host and data
  --redis <url>          run commands on a real server (redis://[[user]:pass@]host[:port][/db], rediss://);
                         a cluster node finds the whole cluster; several seeds: url,url,…
                         instead of the in-memory engine
  --workers <n|auto>     with --redis: n processes share the ports (auto: one per core; default 1);
                         limits and usage counters are per process. Not with the in-memory
                         engine, whose data lives in one process
  -h, --help             this text
`

interface CliOptions {
  port: number
  host: string
  token: string
  tokenGenerated: boolean
  readonlyToken?: string
  respPort?: number
  redis?: string
  workers: number
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
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  })
  if (values.help) {
    process.stdout.write(USAGE)
    process.exit(0)
  }
  const port = Number(values.port ?? env.PORT ?? 8080)
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid --port: ${values.port}`)
  const respPort = values['resp-port'] === undefined ? undefined : Number(values['resp-port'])
  if (respPort !== undefined && (!Number.isInteger(respPort) || respPort < 0 || respPort > 65535)) {
    throw new Error(`invalid --resp-port: ${values['resp-port']}`)
  }
  const workers = values.workers === 'auto' ? availableParallelism() : Number(values.workers ?? 1)
  if (!Number.isInteger(workers) || workers < 1) throw new Error(`invalid --workers: ${values.workers} (a positive number or auto)`)
  if (values.workers !== undefined && values.workers !== '1' && values.redis === undefined) {
    throw new Error(
      `--workers ${values.workers} needs --redis: the in-memory engine's data lives in one process, ` +
        'so each worker would serve a database of its own',
    )
  }
  if (values.redis !== undefined) for (const seed of splitSeeds(values.redis)) resolveOptions({ url: seed })
  // An empty variable counts as unset, so `SERVICE_REST_TOKEN= restis` still gets a real token.
  const given = values.token || env.SERVICE_REST_TOKEN || env.UPSTASH_REDIS_REST_TOKEN || undefined
  return {
    port,
    host: values.host ?? '127.0.0.1',
    token: given ?? generateToken(),
    tokenGenerated: given === undefined,
    readonlyToken: values['readonly-token'] || env.SERVICE_REST_READONLY_TOKEN || undefined,
    respPort,
    redis: values.redis,
    workers,
  }
}

/** Serves the gateway `gatewayFor` builds over HTTP, and RESP with --resp-port, from this process. */
async function serve(options: CliOptions, gatewayFor: (executor: Executor) => Gateway): Promise<Serving> {
  const executor = options.redis !== undefined ? new RedisExecutor({ url: options.redis }) : new MemoryExecutor()
  const server = createServer(createNodeHandler(gatewayFor(executor)))
  server.keepAliveTimeout = 65_000
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.host, resolve)
  })
  const address = server.address()
  const port = typeof address === 'object' && address !== null ? address.port : options.port
  let resp: RespServer | undefined
  if (options.respPort !== undefined) resp = await serveResp(executor, { port: options.respPort, host: options.host })
  return {
    port,
    respPort: resp?.address.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => void Promise.all([resp?.close(), executor.close()]).then(() => resolve()))
        server.closeAllConnections()
      }),
  }
}

function banner(options: CliOptions, at: Listening): string {
  const host = options.host.includes(':') ? `[${options.host}]` : options.host
  const backend = options.redis !== undefined ? `socket executor to ${redact(options.redis)}` : 'in-memory executor'
  const workers = options.workers > 1 ? `, ${options.workers} workers` : ''
  return (
    `restis listening on http://${host}:${at.port} (${backend}${workers})\n` +
    (at.respPort !== undefined ? `RESP listening on redis://${host}:${at.respPort}\n` : '') +
    `token${options.tokenGenerated ? ' (generated)' : ''}: ${options.token}\n` +
    (options.readonlyToken ? `read-only token: ${options.readonlyToken}\n` : '') +
    `try: curl -H "Authorization: Bearer ${options.token}" http://${host}:${at.port}/set/a/1\n`
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
  const served = await serve(options, (executor) =>
    createGateway({ executor, token: options.token, readonlyToken: options.readonlyToken }),
  )
  let stopping = false
  const stop = (signal: string) => {
    if (stopping) return
    stopping = true
    process.stdout.write(`restis: ${signal}, shutting down\n`)
    void served.close().then(() => process.exit(0))
  }
  // Handlers first, banner second: whoever reads the banner may signal at once.
  process.on('SIGINT', () => stop('SIGINT'))
  process.on('SIGTERM', () => stop('SIGTERM'))
  process.stdout.write(banner(options, served))
}

void main()
