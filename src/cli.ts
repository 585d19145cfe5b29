#!/usr/bin/env node
import { createServer } from 'node:http'
import { parseArgs } from 'node:util'
import { createNodeHandler } from './adapters/node.js'
import { generateToken } from './auth/tokens.js'
import { MemoryExecutor } from './executor/memory/memory-executor.js'
import type { Executor } from './executor/executor.js'

const USAGE = `restis: a Redis-compatible database behind HTTP

Usage: restis [options]

Options:
  --port <n>             HTTP port (default 8080; 0 picks a free one)
  --host <addr>          address to bind (default 127.0.0.1)
  --token <t>            standard token (or SERVICE_REST_TOKEN; generated when neither is set)
  --readonly-token <t>   read-only token (or SERVICE_REST_READONLY_TOKEN)
  -h, --help             this text
`

interface CliOptions {
  port: number
  host: string
  token: string
  tokenGenerated: boolean
  readonlyToken?: string
}

function readOptions(argv: string[], env: NodeJS.ProcessEnv): CliOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      token: { type: 'string' },
      'readonly-token': { type: 'string' },
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
  // An empty variable counts as unset, so `SERVICE_REST_TOKEN= restis` still gets a real token.
  const given = values.token || env.SERVICE_REST_TOKEN || env.UPSTASH_REDIS_REST_TOKEN || undefined
  return {
    port,
    host: values.host ?? '127.0.0.1',
    token: given ?? generateToken(),
    tokenGenerated: given === undefined,
    readonlyToken: values['readonly-token'] || env.SERVICE_REST_READONLY_TOKEN || undefined,
  }
}

async function main(): Promise<void> {
  let options: CliOptions
  try {
    options = readOptions(process.argv.slice(2), process.env)
  } catch (error) {
    process.stderr.write(`restis: ${(error as Error).message}\n\n${USAGE}`)
    process.exit(2)
  }
  const executor: Executor = new MemoryExecutor()
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
  process.stdout.write(
    `restis listening on http://${host}:${port} (in-memory executor)\n` +
      `token${options.tokenGenerated ? ' (generated)' : ''}: ${options.token}\n` +
      (options.readonlyToken ? `read-only token: ${options.readonlyToken}\n` : '') +
      `try: curl -H "Authorization: Bearer ${options.token}" http://${host}:${port}/set/a/1\n`,
  )
  let stopping = false
  const stop = (signal: string) => {
    if (stopping) return
    stopping = true
    process.stdout.write(`restis: ${signal}, shutting down\n`)
    server.close(() => {
      void executor.close().then(() => process.exit(0))
    })
    server.closeAllConnections()
  }
  process.on('SIGINT', () => stop('SIGINT'))
  process.on('SIGTERM', () => stop('SIGTERM'))
}

void main()
