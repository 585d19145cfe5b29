/**
 * Overload safety of the CLI's HTTP side, probed as an attacker would, with real processes on
 * loopback: unauthenticated uploads, slow headers, idle sockets, a client that stops reading, and
 * a shutdown with requests in flight.
 */
import { afterEach, describe, expect, test } from 'vitest'
import { once } from 'node:events'
import { readFileSync, readdirSync, readlinkSync } from 'node:fs'
import { Agent, request, type IncomingMessage } from 'node:http'
import { connect, type Socket } from 'node:net'
import { startCli, stop, type Cli } from './cli-process.js'

const running: Cli[] = []

afterEach(async () => {
  for (const cli of running.splice(0)) await stop(cli.child, 'SIGKILL')
})

async function started(args: string[]): Promise<{ cli: Cli; port: number; token: string }> {
  const cli = startCli(['--token', 'overload-token', ...args])
  running.push(cli)
  const banner = await cli.ready
  return { cli, port: Number(new URL(banner.url).port), token: banner.token }
}

/** Peak resident memory of a process so far (VmHWM), bytes. */
function peakRss(pid: number): number {
  const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return Number(match?.[1] ?? 0) * 1024
}

/** Open sockets (listening ones included) of a process. */
function socketCount(pid: number): number {
  let count = 0
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:')) count++
    } catch {
      // closed meanwhile
    }
  }
  return count
}

/** Connections the process `pid` holds open on its own port `port` (by its socket fds), whatever their TCP state. */
function servedConnections(pid: number, port: number): number {
  const inodes = new Set<string>()
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1]
      if (inode !== undefined) inodes.add(inode)
    } catch {
      // closed meanwhile
    }
  }
  const local = `:${port.toString(16).toUpperCase().padStart(4, '0')}`
  let count = 0
  for (const line of readFileSync(`/proc/${pid}/net/tcp`, 'utf8').split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/)
    // local address, remote address, state (0A = listening), …, inode (10th)
    if (fields.length > 9 && fields[1].endsWith(local) && fields[3] !== '0A' && inodes.has(fields[9])) count++
  }
  return count
}

/** Polls `condition` every 20 ms until it holds or `timeoutMs` passes; the time it took. */
async function until(condition: () => boolean, timeoutMs: number): Promise<number> {
  const start = Date.now()
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return Date.now() - start
}

function readAll(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = ''
    response.setEncoding('utf8')
    response.on('data', (chunk: string) => (text += chunk))
    response.on('end', () => resolve(text))
    response.on('error', reject)
  })
}

function get(port: number, path: string, token: string, agent: Agent | false = false): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent, headers: { authorization: `Bearer ${token}` } }, (response) => {
      readAll(response).then((body) => resolve({ status: response.statusCode ?? 0, body }), reject)
    })
    req.on('error', reject)
    req.end()
  })
}

describe('overload safety of the HTTP listener (CLI process, loopback)', () => {
  test('40 unauthenticated 99 MiB uploads get 401 without their bodies being read; memory stays low', async () => {
    const { cli, port } = await started([])
    const size = 99 * 1024 * 1024
    const chunk = Buffer.alloc(1024 * 1024, 0x61)
    const upload = () =>
      new Promise<number>((resolve) => {
        const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/pipeline', agent: false, headers: { authorization: 'Bearer wrong', 'content-length': size } }, (response) => {
          response.resume()
          resolve(response.statusCode ?? 0)
        })
        req.on('error', () => resolve(-1)) // the connection closed before the answer was read
        let sent = 0
        const pump = () => {
          while (sent < size && !req.destroyed) {
            sent += chunk.length
            if (!req.write(chunk)) return void req.once('drain', pump)
          }
          req.end()
        }
        pump()
      })
    const start = Date.now()
    const statuses = await Promise.all(Array.from({ length: 40 }, upload))
    const elapsed = Date.now() - start
    // Every client reads its 401: the server ends its side and stops reading, and closes only later.
    expect(statuses).toEqual(Array.from({ length: 40 }, () => 401))
    expect(elapsed).toBeLessThan(10_000)
    expect(peakRss(cli.child.pid!)).toBeLessThan(300 * 1024 * 1024)
  }, 30_000)

  test('a client that sends its headers slowly (or nothing) is answered 408 and closed within the header timeout', async () => {
    const { port } = await started(['--headers-timeout', '1'])
    const slow = connect(port, '127.0.0.1')
    slow.write('GET /get/a HTTP/1.1\r\nHost: x\r\n')
    const silent = connect(port, '127.0.0.1')
    const start = Date.now()
    const answers = await Promise.all(
      [slow, silent].map(async (socket) => {
        let text = ''
        socket.on('data', (data: Buffer) => (text += data.toString()))
        await once(socket, 'close')
        return text
      }),
    )
    expect(Date.now() - start).toBeLessThan(3_500)
    for (const answer of answers) expect(answer).toMatch(/^HTTP\/1\.1 408/)
  }, 20_000)

  test('5000 idle sockets over a cap of 1000: fds stay bounded, a kept connection is served throughout, new ones once the idle ones time out', async () => {
    const { cli, port, token } = await started(['--max-connections', '1000', '--headers-timeout', '2'])
    const pid = cli.child.pid!
    const kept = new Agent({ keepAlive: true, maxSockets: 1 })
    expect((await get(port, '/set/a/1', token, kept)).status).toBe(200)
    const idle: Socket[] = []
    for (let i = 0; i < 5000; i++) {
      const socket = connect(port, '127.0.0.1')
      socket.on('error', () => undefined)
      idle.push(socket)
    }
    await Promise.all(idle.map((socket) => once(socket, 'connect').catch(() => undefined)))
    const latencies: number[] = []
    for (let i = 0; i < 20; i++) {
      const start = performance.now()
      expect((await get(port, '/get/a', token, kept)).body).toBe('{"result":"1"}')
      latencies.push(performance.now() - start)
      expect(socketCount(pid)).toBeLessThanOrEqual(1000 + 10)
    }
    // The idle sockets are closed by the header timeout; then anyone may connect again.
    await until(() => socketCount(pid) < 50, 10_000)
    expect((await get(port, '/get/a', token)).status).toBe(200)
    for (const socket of idle) socket.destroy()
    kept.destroy()
    expect(Math.max(...latencies)).toBeLessThan(1_000)
  }, 40_000)

  test('a client that stops reading a large reply is dropped after the send timeout', async () => {
    const { cli, port, token } = await started(['--send-timeout', '1'])
    const value = 'v'.repeat(8 * 1024 * 1024)
    const set = await new Promise<number>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/set/big', agent: false, headers: { authorization: `Bearer ${token}` } }, (response) => {
        response.resume()
        resolve(response.statusCode ?? 0)
      })
      req.on('error', reject)
      req.end(value)
    })
    expect(set).toBe(200)
    const pid = cli.child.pid!
    await until(() => servedConnections(pid, port) === 0, 5_000)
    const reader = connect(port, '127.0.0.1')
    reader.on('error', () => undefined)
    await once(reader, 'connect')
    reader.pause() // never reads: the reply stalls in the socket buffers
    reader.write(`GET /get/big HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n\r\n`)
    await until(() => servedConnections(pid, port) === 1, 5_000)
    const took = await until(() => servedConnections(pid, port) === 0, 10_000)
    expect(took).toBeLessThan(6_000)
    // The server is fine for everyone else.
    expect((await get(port, '/strlen/big', token)).body).toBe(`{"result":${value.length}}`)
    reader.destroy()
  }, 30_000)

  test('SIGTERM with 20 requests in flight: each completes, then the process exits 0', async () => {
    const { cli, port, token } = await started([])
    const inFlight = Array.from({ length: 20 }, (_, i) => {
      const body = `value-${i}`.padEnd(64, '.')
      let answered!: Promise<{ status: number; body: string }>
      const headersRead = new Promise<(rest: string) => void>((ready, reject) => {
        const req = request({
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: `/set/k${i}`,
          agent: false,
          headers: { authorization: `Bearer ${token}`, 'content-length': body.length, expect: '100-continue' },
        })
        answered = new Promise((resolve, fail) => {
          req.on('response', (response) => readAll(response).then((text) => resolve({ status: response.statusCode ?? 0, body: text }), fail))
          req.on('error', fail)
        })
        answered.catch(() => undefined)
        req.on('error', reject)
        // 100 Continue: the server has read the headers and waits for the body.
        req.on('continue', () => {
          req.write(body.slice(0, 32))
          ready((rest) => req.end(rest))
        })
        req.flushHeaders()
      })
      return { body, headersRead, answered: () => answered }
    })
    const finishers = await Promise.all(inFlight.map((entry) => entry.headersRead))
    const exited = once(cli.child, 'exit') as Promise<[number | null]>
    cli.child.kill('SIGTERM')
    await until(() => cli.output().includes('shutting down'), 5_000)
    finishers.forEach((finish, i) => finish(inFlight[i].body.slice(32)))
    const answers = await Promise.all(inFlight.map((entry) => entry.answered()))
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200))
    const [code] = await exited
    expect(code).toBe(0)
  }, 30_000)
})
