/**
 * The one launcher of throwaway `redis-server` processes for tests, benchmarks and scripts.
 *
 * Every server runs in its own temporary directory (`--dir`, also its working directory), so
 * nothing it writes (an RDB on SAVE or shutdown, an AOF after `CONFIG SET appendonly yes`) lands
 * in the checkout, and no server loads another's files. Persistence is off (`--save ''`,
 * `--appendonly no`) unless the caller's `args` turn it on (later arguments win in redis-server).
 * The directory is removed when the server is stopped, and at the latest when this process exits.
 *
 * Plain ESM with a sibling `.d.mts`, so the .mjs benchmarks and scripts and the TypeScript tests
 * import the same module.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'

/** The binary to run; `REDIS_SERVER_BIN` overrides. */
export const REDIS_SERVER_BIN = process.env.REDIS_SERVER_BIN || 'redis-server'

/** Servers still running and directories still to remove, cleaned up when this process exits. */
const live = new Set()
const ownedDirs = new Set()
process.on('exit', () => {
  for (const child of live) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  for (const dir of ownedDirs) rmSync(dir, { recursive: true, force: true })
})

/** A fresh temporary directory for a server; removed when this process exits. */
export function makeServerDir() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'restis-redis-'))
  ownedDirs.add(dir)
  return dir
}

/** Removes a directory made by {@link makeServerDir}. */
export function removeServerDir(dir) {
  rmSync(dir, { recursive: true, force: true })
  ownedDirs.delete(dir)
}

/** A free TCP port on 127.0.0.1, chosen by the OS (listen on port 0, then close). */
export function freePort() {
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
export function ping(port, timeoutMs = 500) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1')
    let data = ''
    let settled = false
    const done = (ok) => {
      if (settled) return
      settled = true
      socket.destroy()
      resolve(ok)
    }
    socket.setTimeout(timeoutMs, () => done(false))
    socket.once('error', () => done(false))
    socket.once('connect', () => socket.write('PING\r\n'))
    socket.on('data', (chunk) => {
      data += chunk.toString('latin1')
      if (data.includes('\r\n')) done(data.startsWith('+PONG'))
    })
  })
}

/** Spawns the server and watches its output and exit. */
function spawnServer(port, dir, args) {
  const child = spawn(
    REDIS_SERVER_BIN,
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', ...args],
    { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  live.add(child)
  const state = { child, output: '', exited: false }
  child.stdout.on('data', (chunk) => (state.output = (state.output + chunk).slice(-65_536)))
  child.stderr.on('data', (chunk) => (state.output = (state.output + chunk).slice(-65_536)))
  state.exit = new Promise((resolve) => {
    const finish = () => {
      state.exited = true
      live.delete(child)
      resolve()
    }
    child.once('exit', finish)
    child.once('error', (error) => {
      state.output += `${error.message}\n`
      finish()
    })
  })
  return state
}

/** Polls PING with a short, growing back-off until the first PONG, the exit, or the deadline. */
async function waitReady(state, port, timeoutMs) {
  const deadline = Date.now() + timeoutMs
  let delay = 5
  while (!state.exited && Date.now() < deadline) {
    if (await ping(port)) return true
    await new Promise((resolve) => setTimeout(resolve, delay))
    delay = Math.min(delay * 2, 100)
  }
  return false
}

function serverHandle(state, port, dir, ownsDir) {
  let stopping
  const kill = async () => {
    if (!state.exited) state.child.kill('SIGKILL')
    await state.exit
  }
  return {
    host: '127.0.0.1',
    port,
    url: `redis://127.0.0.1:${port}`,
    dir,
    child: state.child,
    exited: state.exit,
    log: () => state.output,
    kill,
    stop() {
      stopping ??= (async () => {
        if (!state.exited) {
          state.child.kill('SIGTERM')
          const timer = setTimeout(() => state.child.kill('SIGKILL'), 5_000)
          await state.exit
          clearTimeout(timer)
        }
        if (ownsDir) removeServerDir(dir)
      })()
      return stopping
    },
  }
}

/**
 * Starts `redis-server --port <port> --bind 127.0.0.1 --dir <temp> --save '' --appendonly no
 * ...args` and resolves once it answers PING. Without `port`, a free one is chosen, and another
 * is tried if it was taken meanwhile. Without `dir`, a temporary directory is made and removed on
 * `stop()`; a given `dir` is the caller's (e.g. to restart a server on its own files).
 * Rejects with the server's output when it cannot start (e.g. the binary is missing).
 */
export async function startRedisServer(options = {}) {
  const { args = [], readyTimeoutMs = 10_000 } = options
  let reason = ''
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = options.port ?? (await freePort())
    const dir = options.dir ?? makeServerDir()
    const state = spawnServer(port, dir, args)
    if (await waitReady(state, port, readyTimeoutMs)) return serverHandle(state, port, dir, options.dir === undefined)
    if (!state.exited) state.child.kill('SIGKILL')
    await state.exit
    if (options.dir === undefined) removeServerDir(dir)
    reason = state.output.trim() || (state.exited ? 'exited without output' : 'no answer to PING')
    if (options.port !== undefined || !/address already in use/i.test(state.output)) break
  }
  throw new Error(`could not start ${REDIS_SERVER_BIN}: ${reason}`)
}
