/**
 * restis's own `serve()` survives `kill -9` of `restis queue` (a real process on a temporary
 * --dir, restarted on the same directory and port): killed while a step of a parallel group
 * runs, and again while the run waits for an event; the restarted queue finishes the run with
 * the notification, the call and every step, the finished ones not run again.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { createQueueClient, serve, type WorkflowContext } from '../../src/workflow/index.js'
import { Counter, listenFetch, listenServer, until } from '../queue/support.js'
import { startQueueCli, stopProcess, type QueueProcess } from '../queue/queue-process.js'

const dirs: string[] = []
const processes: QueueProcess[] = []
afterAll(async () => {
  await Promise.all(processes.map((queue) => stopProcess(queue.child, 'SIGKILL')))
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

const KEYS = ['--token', 'restart-token', '--current-signing-key', 'sig_restart_1', '--next-signing-key', 'sig_restart_2']

async function launch(dir: string, port: string): Promise<QueueProcess> {
  const queue = await startQueueCli(['--port', port, '--dir', dir, ...KEYS])
  processes.push(queue)
  return queue
}

async function kill9(queue: QueueProcess): Promise<void> {
  expect(await stopProcess(queue.child, 'SIGKILL')).toBeNull()
}

/** Holds the first execution of a step until released, and says when it started. */
class Gate {
  readonly entered: Promise<void>
  #enter!: () => void
  #open!: () => void
  readonly #opened = new Promise<void>((resolve) => (this.#open = resolve))
  #first = true
  constructor() {
    this.entered = new Promise((resolve) => (this.#enter = resolve))
  }
  async pass(): Promise<void> {
    if (!this.#first) return
    this.#first = false
    this.#enter()
    await this.#opened
  }
  release(): void {
    this.#open()
  }
}

describe('kill -9 of restis queue during a run of restis serve()', () => {
  test('mid parallel step and mid wait: the restarted queue finishes the run; each finished step ran once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'restis-serve-restart-'))
    dirs.push(dir)
    const first = await launch(dir, '0')
    const port = new URL(first.url).port
    const counter = new Counter()
    const gate = new Gate()
    const upstream = await listenServer(
      createServer((request: IncomingMessage, response: ServerResponse) => {
        counter.hit('upstream')
        response.writeHead(200, { 'content-type': 'application/json' })
        response.end(JSON.stringify({ path: request.url }))
      }),
    )
    const endpoint = await listenFetch(
      serve(
        async (context: WorkflowContext) => {
          const [a, b] = await Promise.all([
            context.run('a', async () => {
              await gate.pass()
              return counter.hit('a')
            }),
            context.run('b', () => counter.hit('b')),
          ])
          const { eventData } = await context.waitForEvent('wait', 'restart-event', { timeout: '5m' })
          const call = await context.call<{ path: string }>('call', { url: `${upstream.url}/after` })
          return { a, b, eventData, call: call.body }
        },
        { queueUrl: first.url, token: 'restart-token', currentSigningKey: 'sig_restart_1', nextSigningKey: 'sig_restart_2', env: {} },
      ),
    )
    try {
      const client = createQueueClient({ url: first.url, token: 'restart-token', retries: 0 })
      const { workflowRunId } = await client.trigger({ url: `${endpoint.url}/wf` })
      await gate.entered
      // Step b runs beside a and ends at once; its delivery counts as done only once the queue took
      // its answer (its result published first). Killed before that, b would rightly run again.
      await until(async () => {
        const found = await client.getRun(workflowRunId)
        return found?.steps.some((step) => step.stepName === 'b' && step.status === 'delivered') ? true : undefined
      }, 20_000, 'step b to be delivered')
      await kill9(first)
      const second = await launch(dir, port)
      // the killed process's request still runs: its result reaches the new process
      gate.release()
      await until(async () => ((await client.getWaiters('restart-event')).length === 1 ? true : undefined), 20_000, 'the run to wait')
      await kill9(second)
      const third = await launch(dir, port)
      expect(await client.getWaiters('restart-event')).toHaveLength(1)
      const notified = await client.notify('restart-event', { resumed: true })
      expect(notified).toHaveLength(1)
      const detail = await until(async () => {
        const found = await client.getRun(workflowRunId)
        return found && found.run.state !== 'RUN_STARTED' ? found : undefined
      }, 20_000, 'the run to end')
      expect(detail.run.state, detail.run.error).toBe('RUN_SUCCESS')
      const result = JSON.parse(detail.run.result!) as { a: number; b: number; eventData: unknown; call: unknown }
      expect(result.eventData).toEqual({ resumed: true })
      expect(result.call).toEqual({ path: '/after' })
      expect(result.b).toBe(1)
      // the interrupted step may run again once (its delivery was in flight when the queue died)
      expect(counter.get('a')).toBeLessThanOrEqual(2)
      expect(counter.get('b')).toBe(1)
      expect(counter.get('upstream')).toBe(1)
      await stopProcess(third.child, 'SIGTERM')
    } finally {
      await endpoint.close()
      await upstream.close()
    }
  })
})
