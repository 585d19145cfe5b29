/**
 * Shared pieces of the workflow and queue tests: a loopback HTTP server around a Fetch handler,
 * a queue service on an ephemeral port, and counters of step executions.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createQueueService, type QueueService, type QueueServiceOptions } from '../../src/queue/index.js'

export interface Listening {
  readonly url: string
  readonly port: number
  readonly server: Server
  close(): Promise<void>
}

async function toRequest(request: IncomingMessage, base: string): Promise<Request> {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  const headers = new Headers()
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue
    if (Array.isArray(value)) for (const item of value) headers.append(name, item)
    else headers.set(name, value)
  }
  const body = Buffer.concat(chunks)
  return new Request(new URL(request.url ?? '/', base), {
    method: request.method,
    headers,
    body: request.method === 'GET' || request.method === 'HEAD' ? undefined : body,
  })
}

/** Serves a Fetch handler on 127.0.0.1 (port 0 = a free one, or a given port). */
export async function listenFetch(handler: (request: Request) => Promise<Response>, port = 0): Promise<Listening> {
  let base = ''
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    toRequest(request, base)
      .then(handler)
      .then(async (answer) => {
        const body = Buffer.from(await answer.arrayBuffer())
        const headers: Record<string, string> = {}
        answer.headers.forEach((value, name) => (headers[name] = value))
        response.writeHead(answer.status, { ...headers, 'content-length': String(body.length) })
        response.end(body)
      })
      .catch((error: unknown) => {
        response.writeHead(500, { 'content-type': 'text/plain' })
        response.end(String(error))
      })
  })
  return listenServer(server, port, (url) => (base = url))
}

/** Listens a Node server on 127.0.0.1. */
export async function listenServer(server: Server, port = 0, onUrl?: (url: string) => void): Promise<Listening> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => resolve())
  })
  const address = server.address() as AddressInfo
  const url = `http://127.0.0.1:${address.port}`
  onUrl?.(url)
  return {
    url,
    port: address.port,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

export const TOKEN = 'test-queue-token'

/** A queue service on an ephemeral loopback port with a short test backoff. */
export async function startQueue(options: Partial<QueueServiceOptions> = {}, port = 0): Promise<QueueService & { url: string }> {
  const queue = createQueueService({ token: TOKEN, backoff: () => 20, pollInterval: 50, deliveryTimeout: 10_000, ...options })
  const { url } = await queue.listen(port)
  return Object.assign(queue, { url })
}

/** Counts how many times each step body ran. */
export class Counter {
  readonly counts = new Map<string, number>()
  hit(name: string): number {
    const next = (this.counts.get(name) ?? 0) + 1
    this.counts.set(name, next)
    return next
  }
  get(name: string): number {
    return this.counts.get(name) ?? 0
  }
  toJSON(): Record<string, number> {
    return Object.fromEntries(this.counts)
  }
}

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function until<T>(check: () => T | undefined | Promise<T | undefined>, timeoutMs = 10_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/**
 * A three-step workflow body (steps a, b and c, each counted in `counter`) whose step b waits,
 * each time it runs, until `release()`: `inStep` resolves when b first starts, so a test can
 * stop the queue while a step is running. The run returns the three counts.
 */
export function heldStepWorkflow(counter: Counter) {
  let entered!: () => void
  const inStep = new Promise<void>((resolve) => (entered = resolve))
  let release!: () => void
  const gate = new Promise<void>((resolve) => (release = resolve))
  const body = async (context: { run<T>(name: string, fn: () => T | Promise<T>): Promise<T> }): Promise<number[]> => {
    const a = await context.run('a', () => counter.hit('a'))
    const b = await context.run('b', async () => {
      entered()
      await gate
      return counter.hit('b')
    })
    const c = await context.run('c', () => counter.hit('c'))
    return [a, b, c]
  }
  return { body, inStep, release }
}
