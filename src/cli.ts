#!/usr/bin/env node
import { createServer } from 'node:http'
import { parseArgs } from 'node:util'
import { createNodeHandler } from './adapters/node.js'
import { generateToken } from './auth/tokens.js'
import { MemoryExecutor } from './executor/memory/memory-executor.js'
import type { Executor } from './executor/executor.js'
import { SocketExecutor } from './executor/socket/socket-executor.js'
import { redact } from './executor/socket/options.js'
import { serveResp, type RespServer } from './adapters/resp-server.js'
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
  --redis <url>          run commands on a real server (redis://[[user]:pass@]host[:port][/db], rediss://)
                         instead of the in-memory engine
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
  }
}

async function main(): Promise<void> {
  if (process.argv[2] === 'queue') return runQueueCli(process.argv.slice(3), process.env)
  let options: CliOptions
  let executor: Executor
  try {
    options = readOptions(process.argv.slice(2), process.env)
    executor = options.redis !== undefined ? new SocketExecutor({ url: options.redis }) : new MemoryExecutor()
  } catch (error) {
    process.stderr.write(`restis: ${(error as Error).message}\n\n${USAGE}`)
    process.exit(2)
  }
  const handler = createNodeHandler({ executor, token: options.token, readonlyToken: options.readonlyToken })
  const server = createServer(handler)
  server.keepAliveTimeout = 65_000
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.host, resolve)
  })
  const address = server.address()
  const port = typeof address === 'object' && address !== null ? address.port : options.port
  const host = options.host.includes(':') ? `[${options.host}]` : options.host
  let resp: RespServer | undefined
  if (options.respPort !== undefined) resp = await serveResp(executor, { port: options.respPort, host: options.host })
  let stopping = false
  const stop = (signal: string) => {
    if (stopping) return
    stopping = true
    process.stdout.write(`restis: ${signal}, shutting down\n`)
    server.close(() => {
      void Promise.all([resp?.close(), executor.close()]).then(() => process.exit(0))
    })
    server.closeAllConnections()
  }
  // Handlers first, banner second: whoever reads the banner may signal at once.
  process.on('SIGINT', () => stop('SIGINT'))
  process.on('SIGTERM', () => stop('SIGTERM'))
  const backend = options.redis !== undefined ? `socket executor to ${redact(options.redis)}` : 'in-memory executor'
  process.stdout.write(
    `restis listening on http://${host}:${port} (${backend})\n` +
      (resp ? `RESP listening on redis://${host}:${resp.address.port}\n` : '') +
      `token${options.tokenGenerated ? ' (generated)' : ''}: ${options.token}\n` +
      (options.readonlyToken ? `read-only token: ${options.readonlyToken}\n` : '') +
      `try: curl -H "Authorization: Bearer ${options.token}" http://${host}:${port}/set/a/1\n`,
  )
}

void main()
