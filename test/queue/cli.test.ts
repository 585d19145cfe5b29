/**
 * `restis queue`: the CLI prints what an endpoint needs, serves the API, stops cleanly; its data
 * directory (defaults, kept secrets, the lock, refused flags); over a real Redis processes share
 * generated secrets and a killed process is replaced by a new one that finishes its runs. Crashes
 * on the data directory: durability.test.ts.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { serve } from '../../src/workflow/index.js'
import { liveSuiteName, redisServerSkipReason, startRedisServer, type RedisServer } from '../support/redis-server.js'
import { Counter, heldStepWorkflow, listenFetch } from './support.js'
import { runQueueCli, startQueueCli, stopProcess, type QueueProcess } from './queue-process.js'

type Started = QueueProcess

const ROOT = new URL('../..', import.meta.url).pathname
const stop = stopProcess

describe('restis queue (CLI)', () => {
  test('prints URL, token, dashboard and signing keys; serves the API; SIGTERM stops it', async () => {
    const cli = await startQueueCli(['--port', '0'])
    try {
      expect(cli.token.length).toBeGreaterThanOrEqual(32)
      expect(cli.output()).toContain(`dashboard: ${cli.url}/dashboard`)
      expect(cli.output()).toContain(`QUEUE_URL=${cli.url}`)
      expect((await fetch(`${cli.url}/v2/keys`)).status).toBe(401)
      const keys = await (await fetch(`${cli.url}/v2/keys`, { headers: { authorization: `Bearer ${cli.token}` } })).json()
      expect(keys).toEqual({ current: cli.current, next: cli.next })
      expect((await fetch(`${cli.url}/dashboard`)).headers.get('content-type')).toMatch(/text\/html/)
    } finally {
      expect(await stop(cli.child, 'SIGTERM')).toBe(0)
    }
  })

  test('takes the token from QUEUE_TOKEN (alias QSTASH_TOKEN) and keys from flags', async () => {
    const cli = await startQueueCli(['--port', '0', '--current-signing-key', 'sig_a', '--next-signing-key', 'sig_b'], { QSTASH_TOKEN: 'from-alias' })
    try {
      expect(cli.token).toBe('from-alias')
      expect(cli.output()).not.toContain('(generated)')
      expect([cli.current, cli.next]).toEqual(['sig_a', 'sig_b'])
    } finally {
      expect(await stop(cli.child, 'SIGINT')).toBe(0)
    }
  })

  test('an invalid flag exits with status 2 and the usage', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--import', './scripts/text-import.mjs', 'src/cli.ts', 'queue', '--port', 'x'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
    let stderr = ''
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    const [code] = (await once(child, 'exit')) as [number]
    expect(code).toBe(2)
    expect(stderr).toContain('invalid --port: x')
    expect(stderr).toContain('Usage: restis queue')
  })
})

describe('restis queue: its data directory', () => {
  const homes: string[] = []
  afterAll(() => {
    for (const home of homes) rmSync(home, { recursive: true, force: true })
  })
  const tempHome = (): string => {
    const home = mkdtempSync(join(tmpdir(), 'restis-queue-home-'))
    homes.push(home)
    return home
  }

  test('durable by default in <data home>/restis/queue: AOF with appendfsync always; generated secrets are kept for the next start', async () => {
    const home = tempHome()
    const dir = join(home, 'restis', 'queue')
    const first = await startQueueCli(['--port', '0'], { XDG_DATA_HOME: home })
    let second: QueueProcess | undefined
    try {
      expect(first.output()).toContain('(state in the in-memory engine)')
      expect(first.output()).toContain(`data: ${dir}/dump.rdb (save points "3600 1 300 100 60 10000", and on shutdown; append-only file on, appendfsync always)\n`)
      expect(first.output()).toMatch(/^token \(generated\): /m)
      expect(readFileSync(join(dir, 'restis.pid'), 'utf8')).toMatch(new RegExp(`^${first.child.pid}\\b`))
      expect(await stop(first.child, 'SIGTERM')).toBe(0)
      expect(existsSync(join(dir, 'restis.pid'))).toBe(false)
      expect(readdirSync(join(dir, 'appendonlydir'))).toContain('appendonly.aof.manifest')
      second = await startQueueCli(['--port', '0'], { XDG_DATA_HOME: home })
      expect(second.output()).toMatch(/^token \(generated earlier, kept with the data\): /m)
      expect([second.token, second.current, second.next]).toEqual([first.token, first.current, first.next])
      const keys = await (await fetch(`${second.url}/v2/keys`, { headers: { authorization: `Bearer ${first.token}` } })).json()
      expect(keys).toEqual({ current: first.current, next: first.next })
    } finally {
      await stop(first.child, 'SIGKILL')
      if (second) expect(await stop(second.child, 'SIGTERM')).toBe(0)
    }
  })

  test('a given token is used and not kept; --no-persistence writes nothing', async () => {
    const home = tempHome()
    const given = await startQueueCli(['--port', '0', '--token', 'mine'], { XDG_DATA_HOME: home })
    expect(given.token).toBe('mine')
    expect(await stop(given.child, 'SIGTERM')).toBe(0)
    const generated = await startQueueCli(['--port', '0'], { XDG_DATA_HOME: home })
    expect(generated.token).not.toBe('mine')
    expect(generated.output()).toMatch(/^token \(generated\): /m)
    expect(await stop(generated.child, 'SIGTERM')).toBe(0)
    const empty = tempHome()
    const volatile = await startQueueCli(['--port', '0', '--no-persistence'], { XDG_DATA_HOME: empty })
    expect(volatile.output()).toContain('(state in memory)\ndata: in memory only (--no-persistence): nothing is written to disk\n')
    expect(await stop(volatile.child, 'SIGTERM')).toBe(0)
    expect(readdirSync(empty)).toEqual([])
  })

  test('a second process on the same directory is refused while the first runs; a stale pid file is taken over', async () => {
    const dir = join(tempHome(), 'q')
    const first = await startQueueCli(['--port', '0', '--dir', dir])
    try {
      const refused = await runQueueCli(['--port', '0', '--dir', dir])
      expect(refused.code).toBe(1)
      expect(refused.stderr).toBe(`restis queue: data directory ${dir} is in use by another process (pid ${first.child.pid}, lock file ${dir}/restis.pid)\n`)
    } finally {
      await stop(first.child, 'SIGKILL')
    }
    // kill -9 left the file behind, naming a process that is gone
    expect(existsSync(join(dir, 'restis.pid'))).toBe(true)
    const again = await startQueueCli(['--port', '0', '--dir', dir])
    expect(readFileSync(join(dir, 'restis.pid'), 'utf8')).toMatch(new RegExp(`^${again.child.pid}\\b`))
    expect(await stop(again.child, 'SIGTERM')).toBe(0)
  })

  test('persistence flags with --redis, and bad persistence flags, exit with status 2 and say why', async () => {
    const cases: [string[], string][] = [
      [['--redis', 'redis://127.0.0.1:1', '--dir', '/tmp/x'], '--dir is for the in-memory engine: with --redis the Redis server keeps the data'],
      [['--redis', 'redis://127.0.0.1:1', '--no-persistence'], '--no-persistence is for the in-memory engine: with --redis the Redis server keeps the data'],
      [['--no-persistence', '--appendfsync', 'always'], '--appendfsync contradicts --no-persistence'],
      [['--appendfsync', 'sometimes'], 'invalid --appendfsync: sometimes (always, everysec or no)'],
      [['--save', '60'], 'invalid save points: "60" (pairs of <seconds> <changes>)'],
    ]
    const results = await Promise.all(cases.map(([args]) => runQueueCli(['--port', '0', ...args])))
    results.forEach((result, index) => {
      const [args, message] = cases[index]
      expect(result.code, args.join(' ')).toBe(2)
      expect(result.stderr).toContain(`restis queue: ${message}\n`)
    })
  })
})

describe.skipIf(redisServerSkipReason !== undefined)(liveSuiteName('restis queue --redis: a killed process is replaced'), () => {
  let redis: RedisServer
  beforeAll(async () => {
    redis = await startRedisServer()
  })
  afterAll(() => redis?.stop())

  test('processes over one Redis that generate their token and keys share the first one written', async () => {
    // this server is the suite's own, started empty
    const first = await startQueueCli(['--port', '0', '--redis', redis.url])
    const second = await startQueueCli(['--port', '0', '--redis', redis.url])
    try {
      expect(first.output()).toMatch(/^token \(generated\): /m)
      expect(second.output()).toMatch(/^token \(generated earlier, kept with the data\): /m)
      expect([second.token, second.current, second.next]).toEqual([first.token, first.current, first.next])
    } finally {
      expect(await stop(first.child, 'SIGTERM')).toBe(0)
      expect(await stop(second.child, 'SIGTERM')).toBe(0)
    }
  })

  // The lease outlives the step: delivery is at least once by design (docs/workflows.md), so a
  // step still running when its lease ends may be delivered again. Within the lease, a replaced
  // queue process must neither lose nor repeat a step.
  test('SIGKILL mid-step, a new process on the same port and Redis finishes the run; each step once', async () => {
    const args = ['--redis', redis.url, '--token', 'shared', '--current-signing-key', 'sig_k1', '--next-signing-key', 'sig_k2', '--lease', '5000']
    const first = await startQueueCli(['--port', '0', ...args])
    const port = new URL(first.url).port
    const counter = new Counter()
    const { body, inStep, release } = heldStepWorkflow(counter)
    const endpoint = await listenFetch(serve(body, { queueUrl: first.url, token: 'shared', currentSigningKey: 'sig_k1', nextSigningKey: 'sig_k2', env: {} }))
    let second: Started | undefined
    try {
      const published = await fetch(`${first.url}/v2/publish/${endpoint.url}/wf`, { method: 'POST', body: '{}', headers: { authorization: 'Bearer shared' } })
      expect(published.status).toBe(201)
      await inStep
      first.child.kill('SIGKILL')
      await once(first.child, 'exit')
      second = await startQueueCli(['--port', port, ...args])
      release()
      const headers = { authorization: 'Bearer shared' }
      const deadline = Date.now() + 20_000
      let run: { workflowRunId: string; state: string; result?: string } | undefined
      while (Date.now() < deadline) {
        const runs = (await (await fetch(`${second.url}/v2/dashboard/runs`, { headers })).json()) as { runs: NonNullable<typeof run>[] }
        run = runs.runs[0]
        if (run && run.state !== 'RUN_STARTED') break
        await new Promise((resolve) => setTimeout(resolve, 25))
      }
      expect(run?.state).toBe('RUN_SUCCESS')
      expect(JSON.parse(run!.result!)).toEqual([1, 1, 1])
      expect(counter.toJSON()).toEqual({ a: 1, b: 1, c: 1 })
    } finally {
      await endpoint.close()
      await stop(first.child, 'SIGKILL')
      if (second) expect(await stop(second.child, 'SIGTERM')).toBe(0)
    }
  })
})
