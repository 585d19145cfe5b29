/**
 * `restis queue`: the CLI prints what an endpoint needs, serves the API, stops cleanly; over a
 * real Redis a killed process is replaced by a new one that finishes its runs.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { serve } from '../../src/workflow/index.js'
import { liveSuiteName, redisServerSkipReason, startRedisServer, type RedisServer } from '../support/redis-server.js'
import { Counter, listenFetch } from './support.js'

interface Started {
  readonly child: ChildProcess
  readonly url: string
  readonly token: string
  readonly current: string
  readonly next: string
  output(): string
}

const ROOT = new URL('../..', import.meta.url).pathname

function startQueueCli(args: string[], env: Record<string, string> = {}): Promise<Started> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', './scripts/text-import.mjs', 'src/cli.ts', 'queue', ...args], {
    cwd: ROOT,
    env: { ...process.env, QUEUE_TOKEN: '', QSTASH_TOKEN: '', QUEUE_CURRENT_SIGNING_KEY: '', QUEUE_NEXT_SIGNING_KEY: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1]
      const token = /^token(?: \(generated\))?: (\S+)$/m.exec(output)?.[1]
      const current = /QUEUE_CURRENT_SIGNING_KEY=(\S+)/.exec(output)?.[1]
      const next = /QUEUE_NEXT_SIGNING_KEY=(\S+)/.exec(output)?.[1]
      if (url && token && current && next) resolve({ child, url, token, current, next, output: () => output })
    })
    child.once('exit', (code) => reject(new Error(`restis queue exited with ${code}: ${output}`)))
  })
}

async function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode
  child.kill(signal)
  const [code] = (await once(child, 'exit')) as [number | null]
  return code
}

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

describe.skipIf(redisServerSkipReason !== undefined)(liveSuiteName('restis queue --redis: a killed process is replaced'), () => {
  let redis: RedisServer
  beforeAll(async () => {
    redis = await startRedisServer()
  })
  afterAll(() => redis?.stop())

  // The lease outlives the step: delivery is at least once by design (docs/workflows.md), so a
  // step still running when its lease ends may be delivered again. Within the lease, a replaced
  // queue process must neither lose nor repeat a step.
  test('SIGKILL mid-step, a new process on the same port and Redis finishes the run; each step once', async () => {
    const args = ['--redis', redis.url, '--token', 'shared', '--current-signing-key', 'sig_k1', '--next-signing-key', 'sig_k2', '--lease', '5000']
    const first = await startQueueCli(['--port', '0', ...args])
    const port = new URL(first.url).port
    const counter = new Counter()
    let entered!: () => void
    const inStep = new Promise<void>((resolve) => (entered = resolve))
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const endpoint = await listenFetch(
      serve(
        async (context) => {
          const a = await context.run('a', () => counter.hit('a'))
          const b = await context.run('b', async () => {
            entered()
            await gate
            return counter.hit('b')
          })
          return [a, b, await context.run('c', () => counter.hit('c'))]
        },
        { queueUrl: first.url, token: 'shared', currentSigningKey: 'sig_k1', nextSigningKey: 'sig_k2', env: {} },
      ),
    )
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
