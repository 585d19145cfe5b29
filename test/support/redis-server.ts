/**
 * Starts a throwaway `redis-server` for tests: its own free loopback port, no persistence,
 * ready when it answers PING, stopped (and awaited) by `stop()`.
 *
 * Availability rule: without `redis-server` on PATH the live suites are skipped, with the reason
 * in the suite name — except under `CI=true`, where they run and fail loudly.
 *
 * ```ts
 * import { startRedisServer, redisServerSkipReason, liveSuiteName } from '../support/redis-server.js'
 *
 * describe.skipIf(redisServerSkipReason !== undefined)(liveSuiteName('GETKEYS parity'), () => {
 *   let server: RedisServer
 *   beforeAll(async () => { server = await startRedisServer() })
 *   afterAll(() => server?.stop())
 * })
 * ```
 */

import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import net from 'node:net'

/** The binary to run; `REDIS_SERVER_BIN` overrides. */
export const REDIS_SERVER_BIN: string = process.env.REDIS_SERVER_BIN || 'redis-server'

/** A running test server. */
export interface RedisServer {
  readonly host: '127.0.0.1'
  readonly port: number
  /** `redis://127.0.0.1:<port>` */
  readonly url: string
  /** The server's own log (stdout and stderr), for failure messages. */
  readonly log: () => string
  /** The server's process id, for fault tests that kill it (`kill -9`). */
  readonly pid: number | undefined
  /** Resolves once the process exited, however it ended. */
  readonly exited: Promise<void>
  /** Terminates the server (SIGTERM, then SIGKILL after 5 s) and resolves once it exited. Idempotent. */
  stop(): Promise<void>
}

/** Options of {@link startRedisServer}. */
export interface StartOptions {
  /** Extra `redis-server` arguments, e.g. `['--requirepass', 'secret']`. */
  readonly args?: readonly string[]
  /** How long to wait for the first PONG. Default 10 s. */
  readonly readyTimeoutMs?: number
  /** A fixed port (to restart a server where it was); default a free one. */
  readonly port?: number
}

function probeBinary(): boolean {
  const result = spawnSync(REDIS_SERVER_BIN, ['--version'], { stdio: 'ignore', timeout: 10_000 })
  return !result.error && result.status === 0
}

/** Whether `redis-server` can be run here. */
export const redisServerAvailable: boolean = probeBinary()

/**
 * Why live suites should be skipped, or `undefined` when they should run: they run when the
 * binary is available, and always when `CI=true` (a missing server must fail there, not skip).
 */
export const redisServerSkipReason: string | undefined =
  redisServerAvailable || process.env.CI === 'true' ? undefined : `${REDIS_SERVER_BIN} not found on PATH`

/** A suite name carrying the skip reason when the suite is skipped. */
export function liveSuiteName(name: string): string {
  return redisServerSkipReason === undefined ? name : `${name} (skipped: ${redisServerSkipReason})`
}

/** A free TCP port on 127.0.0.1, chosen by the OS (listen on port 0, then close). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.unref()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => (port ? resolve(port) : reject(new Error('no port assigned'))))
    })
  })
}

/** One inline PING; true when the server answered `+PONG`. */
export function ping(port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1')
    let data = ''
    let settled = false
    const done = (ok: boolean): void => {
      if (settled) return
      settled = true
      socket.destroy()
      resolve(ok)
    }
    socket.setTimeout(timeoutMs, () => done(false))
    socket.once('error', () => done(false))
    socket.once('connect', () => socket.write('PING\r\n'))
    socket.on('data', (chunk: Buffer) => {
      data += chunk.toString('latin1')
      if (data.includes('\r\n')) done(data.startsWith('+PONG'))
    })
  })
}

interface Attempt {
  readonly server?: RedisServer
  readonly retry: boolean
  readonly reason: string
}

async function attempt(options: StartOptions): Promise<Attempt> {
  const port = options.port ?? (await freePort())
  const child: ChildProcess = spawn(
    REDIS_SERVER_BIN,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...(options.args ?? [])],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  let output = ''
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()))
  let exited = false
  const exit = new Promise<void>((resolve) => {
    child.once('exit', () => {
      exited = true
      resolve()
    })
    child.once('error', (error) => {
      exited = true
      output += `${error.message}\n`
      resolve()
    })
  })

  const deadline = Date.now() + (options.readyTimeoutMs ?? 10_000)
  let delay = 5
  while (!exited && Date.now() < deadline) {
    if (await ping(port)) {
      let stopping: Promise<void> | undefined
      const server: RedisServer = {
        host: '127.0.0.1',
        port,
        url: `redis://127.0.0.1:${port}`,
        log: () => output,
        pid: child.pid,
        exited: exit,
        stop() {
          stopping ??= (async () => {
            if (exited) return
            child.kill('SIGTERM')
            const timer = setTimeout(() => child.kill('SIGKILL'), 5_000)
            await exit
            clearTimeout(timer)
          })()
          return stopping
        },
      }
      return { server, retry: false, reason: '' }
    }
    // Poll with a short, growing back-off until the first PONG (or the process exits).
    await new Promise((resolve) => setTimeout(resolve, delay))
    delay = Math.min(delay * 2, 100)
  }
  if (!exited) child.kill('SIGKILL')
  await exit
  const reason = output.trim() || (exited ? 'exited without output' : 'no answer to PING')
  // Another process may have taken the port between freePort() and the bind: try another one.
  return { retry: /address already in use/i.test(output), reason }
}

/**
 * Starts `redis-server --port <free> --bind 127.0.0.1 --save '' --appendonly no` and resolves
 * once it answers PING. Retries on another port if the chosen one was taken meanwhile.
 * Rejects with the server's output when it cannot start (e.g. the binary is missing).
 */
export async function startRedisServer(options: StartOptions = {}): Promise<RedisServer> {
  let reason = ''
  for (let i = 0; i < 5; i++) {
    const result = await attempt(options)
    if (result.server) return result.server
    reason = result.reason
    if (!result.retry || options.port !== undefined) break
  }
  throw new Error(`could not start ${REDIS_SERVER_BIN}: ${reason}`)
}
