/**
 * `restis queue` survives `kill -9`: real processes on a temporary --dir, killed while a step
 * runs (synchronised on the step's request arriving), restarted on the same directory and port.
 * A workflow (the real `@upstash/workflow` SDK, and restis's own `serve()`) completes with every
 * step run, the steps finished before the crash not run again and at most the interrupted one
 * repeated; plain messages that were delayed, being delivered or dead-lettered when the process
 * died are delivered (or kept) after the restart.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { serve as sdkServe } from '@upstash/workflow'
import { Client as SdkQueueClient, Receiver } from '@upstash/qstash'
import { serve } from '../../src/workflow/index.js'
import { Counter, listenFetch, listenServer, until, type Listening } from './support.js'
import { startQueueCli, stopProcess, type QueueProcess } from './queue-process.js'

const dirs: string[] = []
const processes: QueueProcess[] = []
afterAll(async () => {
  await Promise.all(processes.map((queue) => stopProcess(queue.child, 'SIGKILL')))
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'restis-queue-durable-'))
  dirs.push(dir)
  return dir
}

async function launch(args: string[]): Promise<QueueProcess> {
  const queue = await startQueueCli(args)
  processes.push(queue)
  return queue
}

/** Kills the process without warning and waits until it is gone. */
async function kill9(queue: QueueProcess): Promise<void> {
  expect(await stopProcess(queue.child, 'SIGKILL')).toBeNull()
}

async function api<T>(queue: QueueProcess, path: string, init: RequestInit = {}): Promise<T> {
  const response = await fetch(`${queue.url}${path}`, { ...init, headers: { authorization: `Bearer ${queue.token}`, ...(init.headers as Record<string, string>) } })
  const text = await response.text()
  expect(response.ok, `${path}: ${response.status} ${text}`).toBe(true)
  return JSON.parse(text) as T
}

interface RunDetail {
  readonly run: { readonly state: string; readonly result?: string }
  readonly steps: { readonly messageId: string; readonly stepName: string; readonly status: string }[]
}

/** A step body that blocks its first execution until released, and says when it started. */
class Gate {
  readonly entered: Promise<void>
  private enter!: () => void
  private open!: () => void
  private readonly opened = new Promise<void>((resolve) => (this.open = resolve))
  private first = true
  constructor() {
    this.entered = new Promise((resolve) => (this.enter = resolve))
  }
  async pass(): Promise<void> {
    if (!this.first) return
    this.first = false
    this.enter()
    await this.opened
  }
  release(): void {
    this.open()
  }
}

/** The workflow both flavours run: three steps, the second held by the gate on its first execution. */
function workflow(counter: Counter, gate: Gate) {
  return async (context: { run<T>(name: string, fn: () => T | Promise<T>): Promise<T> }) => {
    const a = await context.run('a', () => counter.hit('a'))
    const b = await context.run('b', async () => {
      await gate.pass()
      return counter.hit('b')
    })
    const c = await context.run('c', () => counter.hit('c'))
    return { a, b, c }
  }
}

type Mount = (queue: QueueProcess, counter: Counter, gate: Gate) => Promise<Listening>

const flavours: { name: string; mount: Mount }[] = [
  {
    name: '@upstash/workflow serve()',
    mount: (queue, counter, gate) => {
      const { handler } = sdkServe(workflow(counter, gate) as never, {
        qstashClient: new SdkQueueClient({ baseUrl: queue.url, token: queue.token }),
        receiver: new Receiver({ currentSigningKey: queue.current, nextSigningKey: queue.next }),
        env: {},
      })
      return listenFetch(handler)
    },
  },
  {
    name: 'restis serve()',
    mount: (queue, counter, gate) =>
      listenFetch(serve(workflow(counter, gate), { queueUrl: queue.url, token: queue.token, currentSigningKey: queue.current, nextSigningKey: queue.next, env: {} })),
  },
]

describe.each(flavours)('kill -9 of restis queue mid-step: $name', ({ mount }) => {
  test('the restarted queue finishes the run; steps done before the crash run once, the interrupted one at most twice', async () => {
    const dir = tempDir()
    // generated token and keys: the endpoint, configured from the first banner, must keep working
    const first = await launch(['--port', '0', '--dir', dir])
    const port = new URL(first.url).port
    const counter = new Counter()
    const gate = new Gate()
    const endpoint = await mount(first, counter, gate)
    try {
      // started through the queue: the endpoint verifies signatures, so only the queue may call it
      await api(first, `/v2/publish/${endpoint.url}/api/workflow`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } })
      await gate.entered
      const { runs } = await api<{ runs: { workflowRunId: string }[] }>(first, '/v2/dashboard/runs')
      expect(runs).toHaveLength(1)
      const { workflowRunId } = runs[0]
      await kill9(first)
      const second = await launch(['--port', port, '--dir', dir])
      // step b's delivery, and maybe step a's, if the kill came before its attempt was settled
      // (then it is found superseded: step b was recorded, so it is not sent again)
      const resumed = Number(/^resumed: (\d+) deliveries in flight when the last process stopped are due again$/m.exec(second.output())?.[1])
      expect(resumed).toBeGreaterThanOrEqual(1)
      expect(resumed).toBeLessThanOrEqual(2)
      expect([second.token, second.current, second.next]).toEqual([first.token, first.current, first.next])
      // the request the killed process made is still running: let it finish too (its step result
      // reaches the new process, which records the step once)
      gate.release()
      const detail = await until(async () => {
        const found = await api<RunDetail>(second, `/v2/dashboard/runs/${workflowRunId}`)
        return found.run.state === 'RUN_STARTED' ? undefined : found
      }, 30_000, 'the run to end')
      expect(detail.run.state).toBe('RUN_SUCCESS')
      expect(counter.get('a')).toBe(1)
      expect(counter.get('b')).toBeGreaterThanOrEqual(1)
      expect(counter.get('b')).toBeLessThanOrEqual(2)
      expect(counter.get('c')).toBe(1)
      expect(JSON.parse(detail.run.result!)).toEqual({ a: 1, b: expect.any(Number), c: 1 })
      expect(detail.steps.map((step) => step.stepName)).toEqual(['init', 'a', 'b', 'c'])
      // the delivery that ran step b was in flight at the kill: its log says it was resumed
      const interrupted = detail.steps[1]
      const { log } = await api<{ log: { outcome: string }[] }>(second, `/v2/dashboard/messages/${interrupted.messageId}`)
      expect(log.map((entry) => entry.outcome)).toContain('recovered')
      expect(log.at(-1)?.outcome).toMatch(/^(delivered|superseded)$/)
      expect(await stopProcess(second.child, 'SIGTERM')).toBe(0)
    } finally {
      gate.release()
      await endpoint.close()
    }
  })
})

/** A destination that records what reaches it; `/hold` keeps its first request open until released. */
class Destination {
  readonly arrivals: { path: string; at: number; body: string }[] = []
  private readonly waiters: (() => void)[] = []
  readonly hold = new Gate()

  handle = (request: IncomingMessage, response: ServerResponse): void => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const path = request.url ?? '/'
      this.arrivals.push({ path, at: Date.now(), body: Buffer.concat(chunks).toString('utf8') })
      for (const wake of this.waiters.splice(0)) wake()
      if (path === '/fail') return void response.writeHead(500).end('always failing')
      if (path === '/hold') return void this.hold.pass().then(() => response.writeHead(200).end('ok'), () => undefined)
      response.writeHead(200).end('ok')
    })
  }

  count(path: string): number {
    return this.arrivals.filter((arrival) => arrival.path === path).length
  }

  /** Resolves once `path` was requested `times` times. */
  async reached(path: string, times = 1): Promise<void> {
    while (this.count(path) < times) await new Promise<void>((resolve) => this.waiters.push(resolve))
  }
}

describe('kill -9 of restis queue with messages waiting', () => {
  test('delayed (Upstash-Delay and the QStash client), in-flight and dead-lettered messages survive a restart', async () => {
    const dir = tempDir()
    const flags = ['--dir', dir, '--token', 'durable', '--current-signing-key', 'sig_one', '--next-signing-key', 'sig_two']
    const first = await launch(['--port', '0', ...flags])
    const port = new URL(first.url).port
    const destination = new Destination()
    const target = await listenServer(createServer(destination.handle))
    const publish = (path: string, headers: Record<string, string> = {}) =>
      api<{ messageId: string }>(first, `/v2/publish/${target.url}${path}`, { method: 'POST', body: `to ${path}`, headers })
    try {
      const dead = await publish('/fail', { 'Upstash-Retries': '0' })
      await until(async () => ((await api<{ messages: { messageId: string }[] }>(first, '/v2/dlq')).messages.length > 0 ? true : undefined), 10_000, 'the dead letter')
      await publish('/hold')
      await destination.hold.entered
      const scheduledAt = Date.now()
      await publish('/delayed', { 'Upstash-Delay': '5s' })
      const client = new SdkQueueClient({ baseUrl: first.url, token: 'durable' })
      await client.publishJSON({ url: `${target.url}/sdk`, body: { hello: 'after the crash' }, delay: 5 })
      await kill9(first)
      const killedAt = Date.now()
      expect([destination.count('/delayed'), destination.count('/sdk'), destination.count('/hold')]).toEqual([0, 0, 1])

      const second = await launch(['--port', port, ...flags])
      expect(second.output()).toContain('resumed: 1 deliveries in flight when the last process stopped are due again\n')
      await Promise.all([destination.reached('/delayed'), destination.reached('/sdk'), destination.reached('/hold', 2)])
      const delivered = (path: string) => destination.arrivals.find((arrival) => arrival.path === path)!
      for (const path of ['/delayed', '/sdk']) {
        expect(delivered(path).at).toBeGreaterThan(killedAt)
        expect(delivered(path).at).toBeGreaterThanOrEqual(scheduledAt + 5000)
      }
      expect(JSON.parse(delivered('/sdk').body)).toEqual({ hello: 'after the crash' })
      const { messages } = await api<{ messages: { messageId: string; responseStatus: number; responseBody: string }[] }>(second, '/v2/dlq')
      expect(messages).toEqual([expect.objectContaining({ messageId: dead.messageId, responseStatus: 500, responseBody: 'always failing' })])
      expect(destination.count('/fail')).toBe(1)
      expect(await stopProcess(second.child, 'SIGTERM')).toBe(0)
    } finally {
      destination.hold.release()
      await target.close()
    }
  })
})

describe('SIGTERM of restis queue', () => {
  test('stops taking work, saves, exits 0; the delivery it abandoned is delivered after the restart', async () => {
    const dir = tempDir()
    const flags = ['--dir', dir, '--token', 'graceful', '--current-signing-key', 'sig_one', '--next-signing-key', 'sig_two']
    const first = await launch(['--port', '0', ...flags])
    const destination = new Destination()
    const target = await listenServer(createServer(destination.handle))
    try {
      await api(first, `/v2/publish/${target.url}/hold`, { method: 'POST', body: 'held' })
      await destination.hold.entered
      expect(await stopProcess(first.child, 'SIGTERM')).toBe(0)
      expect(first.output()).toContain('restis queue: SIGTERM, shutting down\n')
      expect(existsSync(join(dir, 'dump.rdb'))).toBe(true)
      expect(existsSync(join(dir, 'restis.pid'))).toBe(false)
      const second = await launch(['--port', '0', ...flags])
      expect(second.output()).toContain('resumed: 1 deliveries in flight when the last process stopped are due again\n')
      await destination.reached('/hold', 2)
      expect(destination.arrivals.filter((arrival) => arrival.path === '/hold').map((arrival) => arrival.body)).toEqual(['held', 'held'])
      expect(await stopProcess(second.child, 'SIGINT')).toBe(0)
    } finally {
      destination.hold.release()
      await target.close()
    }
  })
})
