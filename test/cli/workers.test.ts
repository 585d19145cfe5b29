import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import net from 'node:net'
import { startRedisServer, redisServerSkipReason, liveSuiteName, type RedisServer } from '../support/redis-server.js'
import {
  ROOT,
  KeptConnection,
  connectionsTo,
  fresh,
  isGone,
  startCli,
  stop,
  waitUntil,
  workerPids,
  type Banner,
  type Cli,
} from './cli-process.js'

/** Requests over fresh connections: enough for the round-robin to give every worker several. */
const ROUNDS = 12

/** `AUTH <token>` and one command on a RESP connection of its own; resolves with the command's reply line. */
function respOnce(port: number, token: string, args: string[]): Promise<string> {
  const encode = (words: string[]) => `*${words.length}\r\n${words.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1')
    let data = ''
    socket.once('error', reject)
    socket.once('connect', () => socket.write(encode(['AUTH', token]) + encode(args)))
    socket.on('data', (chunk: Buffer) => {
      data += chunk.toString()
      const lines = data.split('\r\n')
      if (lines.length < 3) return
      socket.destroy()
      if (lines[0] !== '+OK') reject(new Error(`AUTH answered ${lines[0]}`))
      else resolve(lines[1])
    })
  })
}

async function result(url: string, token: string, command: string[]): Promise<unknown> {
  const response = await fresh(url, token, command)
  expect(response.status, response.body).toBe(200)
  return (JSON.parse(response.body) as { result: unknown }).result
}

/** Statuses of `ROUNDS` GETs with `token`, each on a fresh connection. */
async function statuses(url: string, token: string): Promise<number[]> {
  const seen: number[] = []
  for (let i = 0; i < ROUNDS; i++) seen.push((await fresh(`${url}/get/k`, token)).status)
  return seen
}

describe('restis --workers without --redis', () => {
  test('exits with status 2 and says why', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--import', './scripts/text-import.mjs', 'src/cli.ts', '--workers', '2'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
    let stderr = ''
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()))
    const [code] = (await once(child, 'exit')) as [number]
    expect(code).toBe(2)
    expect(stderr).toContain("restis: --workers 2 needs --redis: the in-memory engine's data lives in one process")
  })
})

describe.skipIf(redisServerSkipReason !== undefined)(liveSuiteName('restis --workers 2 --redis'), () => {
  let redis: RedisServer
  let cli: Cli
  let banner: Banner
  let primary: number

  beforeAll(async () => {
    redis = await startRedisServer()
    cli = startCli(['--workers', '2', '--redis', redis.url, '--resp-port', '0'])
    banner = await cli.ready
    primary = cli.child.pid!
  })
  afterAll(async () => {
    if (cli) await stop(cli.child, 'SIGINT')
    await redis?.stop()
  })

  test('prints the banner once, after both workers listen, and both serve HTTP and RESP', async () => {
    expect(cli.output()).toContain(`(socket executor to ${redis.url}, 2 workers)`)
    expect(cli.output().match(/listening on http/g)).toHaveLength(1)
    expect(banner.respPort).toBeGreaterThan(0)
    const workers = workerPids(primary)
    expect(workers).toHaveLength(2)

    // The generated token works on every fresh connection, so on both workers.
    for (let i = 0; i < ROUNDS; i++) expect(await result(banner.url, banner.token, ['SET', `k${i}`, String(i)])).toBe('OK')
    for (let i = 0; i < ROUNDS; i++) expect(await respOnce(banner.respPort!, banner.token, ['SET', `r${i}`, String(i)])).toBe('+OK')
    expect(await result(banner.url, banner.token, ['MGET', 'k0', `k${ROUNDS - 1}`, 'r0', `r${ROUNDS - 1}`])).toEqual([
      '0',
      String(ROUNDS - 1),
      '0',
      String(ROUNDS - 1),
    ])
    // The socket executor connects lazily: a worker holds a connection to the server once it ran a command.
    for (const pid of workers) expect(connectionsTo(pid, redis.port), `worker ${pid}`).toBeGreaterThan(0)
  })

  test('a token issued by ACL RESTTOKEN on one worker works at once on every worker, and a password change revokes it on all', async () => {
    await result(banner.url, banner.token, ['SET', 'k', 'v'])
    for (let n = 0; n < 4; n++) {
      const user = `user${n}`
      expect(await result(banner.url, banner.token, ['ACL', 'SETUSER', user, 'on', `>pw${n}`, '~*', '+@all'])).toBe('OK')
      const token = (await result(banner.url, banner.token, ['ACL', 'RESTTOKEN', user, `pw${n}`])) as string
      expect(await statuses(banner.url, token)).toEqual(new Array(ROUNDS).fill(200))
    }
    const token = (await result(banner.url, banner.token, ['ACL', 'RESTTOKEN', 'user0', 'pw0'])) as string
    expect(await result(banner.url, banner.token, ['ACL', 'SETUSER', 'user0', 'resetpass', '>changed'])).toBe('OK')
    expect(await statuses(banner.url, token)).toEqual(new Array(ROUNDS).fill(401))
  })

  test('a token issued on one worker works at once on a connection already open to the other', async () => {
    // Two keep-alive connections held by different workers (found through /proc).
    const workers = workerPids(primary)
    const byWorker = new Map<number, KeptConnection>()
    const spare: KeptConnection[] = []
    for (let i = 0; i < 20 && byWorker.size < 2; i++) {
      const connection = new KeptConnection(banner.url)
      expect((await connection.send(banner.token, ['PING'])).status).toBe(200)
      const holder = workers.find((pid) => connectionsTo(pid, connection.localPort!) > 0)
      if (holder === undefined || byWorker.has(holder)) spare.push(connection)
      else byWorker.set(holder, connection)
    }
    const [first, second] = [...byWorker.values()]
    expect(second, 'a connection on each worker').toBeDefined()
    try {
      for (let n = 0; n < 20; n++) {
        const [issuing, using] = n % 2 === 0 ? [first, second] : [second, first]
        const user = `kept${n}`
        expect((await issuing.send(banner.token, ['ACL', 'SETUSER', user, 'on', '>pw', '~*', '+@all'])).status).toBe(200)
        const issued = await issuing.send(banner.token, ['ACL', 'RESTTOKEN', user, 'pw'])
        const token = (JSON.parse(issued.body) as { result: string }).result
        const used = await using.send(token, ['PING'])
        expect(used, `token of ${user}`).toEqual({ status: 200, body: '{"result":"PONG"}' })
      }
    } finally {
      for (const connection of [...byWorker.values(), ...spare]) connection.close()
    }
  })

  test('a killed worker is replaced; service goes on, with the tokens issued before', async () => {
    expect(await result(banner.url, banner.token, ['ACL', 'SETUSER', 'bob', 'on', '>bob-pw', '~*', '+@all'])).toBe('OK')
    const bobToken = (await result(banner.url, banner.token, ['ACL', 'RESTTOKEN', 'bob', 'bob-pw'])) as string
    const [victim, survivor] = workerPids(primary)
    process.kill(victim, 'SIGKILL')
    const [, replacement] = await cli.waitForError(new RegExp(`worker (\\d+) listening \\(replaces worker ${victim}\\)`))
    expect(cli.errors()).toContain(`restis: worker ${victim} exited (signal SIGKILL)`)
    expect(workerPids(primary)).toEqual([survivor, Number(replacement)].sort((a, b) => a - b))

    expect(await statuses(banner.url, banner.token)).toEqual(new Array(ROUNDS).fill(200))
    expect(await statuses(banner.url, bobToken)).toEqual(new Array(ROUNDS).fill(200))
    expect(connectionsTo(Number(replacement), redis.port)).toBeGreaterThan(0)
  })
})

describe.skipIf(redisServerSkipReason !== undefined)(liveSuiteName('stopping restis --workers 2'), () => {
  let redis: RedisServer
  beforeAll(async () => {
    redis = await startRedisServer()
  })
  afterAll(() => redis?.stop())

  test('SIGTERM to the primary stops every worker and exits 0', async () => {
    const cli = startCli(['--workers', '2', '--redis', redis.url])
    const { url, token } = await cli.ready
    expect((await fresh(`${url}/set/a/1`, token)).status).toBe(200)
    const workers = workerPids(cli.child.pid!)
    expect(workers).toHaveLength(2)
    expect(await stop(cli.child, 'SIGTERM')).toBe(0)
    // The primary waits for its workers before it exits.
    for (const pid of workers) expect(isGone(pid), `worker ${pid}`).toBe(true)
    expect(cli.output().match(/SIGTERM, shutting down/g)).toHaveLength(1)
  })

  test('workers exit when the primary is killed', async () => {
    const cli = startCli(['--workers', '2', '--redis', redis.url])
    await cli.ready
    const workers = workerPids(cli.child.pid!)
    expect(workers).toHaveLength(2)
    await stop(cli.child, 'SIGKILL')
    await waitUntil(() => workers.every(isGone), `workers ${workers.join(', ')} exit`)
  })
})
