/**
 * Runs the CLI from source for tests, and looks at its processes through /proc (Linux): its
 * workers, their TCP connections, whether they are gone.
 */

import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Agent, request } from 'node:http'

export const ROOT = new URL('../..', import.meta.url).pathname

/** What the banner says. */
export interface Banner {
  readonly url: string
  readonly token: string
  readonly respPort?: number
}

export interface Cli {
  readonly child: ChildProcess
  /** Resolves once the banner is complete; rejects if the CLI exits first. */
  readonly ready: Promise<Banner>
  readonly output: () => string
  readonly errors: () => string
  /** Resolves with the first match of `pattern` on stderr, waiting for it up to `timeoutMs`. */
  waitForError(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>
}

/** The variables the CLI reads, unset (empty counts as unset) unless a test sets them. */
export const CLEAN_ENV: Readonly<Record<string, string>> = {
  SERVICE_REST_TOKEN: '',
  SERVICE_REST_READONLY_TOKEN: '',
  UPSTASH_REDIS_REST_TOKEN: '',
  REDIS_URL: '',
  SERVICE_TLS_CERT: '',
  SERVICE_TLS_KEY: '',
}

/** Starts `node --import tsx --import ./scripts/text-import.mjs src/cli.ts --port 0 …args` with the variables it reads unset. */
export function startCli(args: string[], env: Record<string, string> = {}): Cli {
  // The in-memory engine is durable by default: each CLI gets a data home of its own, removed
  // when it exits, so runs never share (or leave) a dump.rdb.
  const dataHome = mkdtempSync(join(tmpdir(), 'restis-cli-data-'))
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', './scripts/text-import.mjs', 'src/cli.ts', '--port', '0', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...CLEAN_ENV, XDG_DATA_HOME: dataHome, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  child.once('exit', () => rmSync(dataHome, { recursive: true, force: true }))
  let output = ''
  let errors = ''
  const ready = new Promise<Banner>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      const url = /listening on (https?:\/\/\S+)/.exec(output)?.[1]
      const token = /^token(?: \(generated\))?: (\S+)$/m.exec(output)?.[1]
      const respPort = /^RESP listening on rediss?:\/\/\S+:(\d+)$/m.exec(output)?.[1]
      if (url && token && /^try: /m.test(output)) resolve({ url, token, respPort: respPort === undefined ? undefined : Number(respPort) })
    })
    child.once('exit', (code) => reject(new Error(`cli exited with ${code}: ${output}${errors}`)))
  })
  ready.catch(() => undefined)
  const errorWaiters = new Set<() => void>()
  child.stderr!.on('data', (chunk: Buffer) => {
    errors += chunk.toString()
    for (const check of errorWaiters) check()
  })
  const waitForError = (pattern: RegExp, timeoutMs = 20_000) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const timer = setTimeout(() => {
        errorWaiters.delete(check)
        reject(new Error(`no ${pattern} on stderr within ${timeoutMs} ms: ${errors}`))
      }, timeoutMs)
      const check = () => {
        const match = pattern.exec(errors)
        if (match === null) return
        clearTimeout(timer)
        errorWaiters.delete(check)
        resolve(match)
      }
      errorWaiters.add(check)
      check()
    })
  return { child, ready, output: () => output, errors: () => errors, waitForError }
}

/** Sends `signal` and resolves with the exit code once the process exited. */
export async function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode
  const exited = once(child, 'exit') as Promise<[number | null]>
  child.kill(signal)
  const [code] = await exited
  return code
}

/** A request on a connection of its own (no keep-alive), so the cluster hands each one to a worker afresh. */
export function fresh(url: string, token: string, body?: unknown): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body)
    const req = request(
      url,
      {
        method: payload === undefined ? 'GET' : 'POST',
        agent: false,
        headers: { authorization: `Bearer ${token}`, connection: 'close' },
      },
      (response) => {
        let text = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => (text += chunk))
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }))
        response.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(payload)
  })
}

/** One keep-alive connection: every request goes over the same socket, to the same worker. */
export class KeptConnection {
  readonly #agent = new Agent({ keepAlive: true, maxSockets: 1 })
  /** The client side's port of the socket, once the first request opened it. */
  localPort: number | undefined

  constructor(readonly url: string) {}

  send(token: string, body: unknown): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = request(this.url, { method: 'POST', agent: this.#agent, headers: { authorization: `Bearer ${token}` } }, (response) => {
        let text = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => (text += chunk))
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }))
        response.on('error', reject)
      })
      req.on('socket', (socket) => {
        if (socket.localPort !== undefined) this.localPort = socket.localPort
        else socket.once('connect', () => (this.localPort = socket.localPort))
      })
      req.on('error', reject)
      req.end(JSON.stringify(body))
    })
  }

  close(): void {
    this.#agent.destroy()
  }
}

/** `/proc/<pid>/stat` fields after the command name: state, ppid, …; undefined once reaped. */
function stat(pid: number): { comm: string; state: string; ppid: number } | undefined {
  let text: string
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8')
  } catch {
    return undefined
  }
  const close = text.lastIndexOf(')')
  const [state, ppid] = text.slice(close + 2).split(' ')
  return { comm: text.slice(text.indexOf('(') + 1, close), state, ppid: Number(ppid) }
}

/** The live node processes whose parent is `pid`: a primary's workers. */
export function workerPids(pid: number): number[] {
  const workers: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const info = stat(Number(entry))
    if (info?.ppid === pid && info.comm === 'node' && info.state !== 'Z') workers.push(Number(entry))
  }
  return workers.sort((a, b) => a - b)
}

/** Whether `pid` has exited (reaped, or a zombie waiting for its new parent). */
export function isGone(pid: number): boolean {
  const info = stat(pid)
  return info === undefined || info.state === 'Z'
}

/** How many established TCP connections process `pid` has to 127.0.0.1:`port`. */
export function connectionsTo(pid: number, port: number): number {
  const inodes = new Set<string>()
  let fds: string[]
  try {
    fds = readdirSync(`/proc/${pid}/fd`)
  } catch {
    return 0
  }
  for (const fd of fds) {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`)
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1]
      if (inode !== undefined) inodes.add(inode)
    } catch {
      // closed meanwhile
    }
  }
  const remote = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`
  let count = 0
  for (const line of readFileSync(`/proc/${pid}/net/tcp`, 'utf8').split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/)
    // fields: sl, local address, remote address, state (01 = established), …, inode (10th)
    if (fields[2] === remote && fields[3] === '01' && inodes.has(fields[9])) count++
  }
  return count
}

/** Polls `check` every 20 ms until it holds, failing with `what` after `timeoutMs`. */
export async function waitUntil(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
