/**
 * A restis queue and the `@upstash/workflow` endpoints a test mounts on it: each endpoint is the
 * SDK's `serve()` with a queue client for this queue and a receiver of its signing keys, so it
 * takes only signed deliveries and a run starts by a publish through the queue. `close()` stops
 * the endpoints, then the queue.
 */
import { expect } from 'vitest'
import { serve as sdkServe } from '@upstash/workflow'
import { Client as SdkQueueClient, Receiver } from '@upstash/qstash'
import { listenFetch, startQueue, TOKEN, until, type Listening } from './support.js'
import type { QueueService, QueueServiceOptions } from '../../src/queue/index.js'

export type Queue = QueueService & { url: string }

export interface SdkWorkflows {
  readonly queue: Queue
  /** Serves the workflow `body` on its own port; resolves with its workflow URL. */
  mount<Context>(body: (context: Context) => Promise<unknown>): Promise<string>
  /** Publishes `payload` to the workflow URL through the queue; resolves with the run's id. */
  start(url: string, payload: unknown): Promise<string>
  close(): Promise<void>
}

export async function startSdkWorkflows(options: Partial<QueueServiceOptions> = {}): Promise<SdkWorkflows> {
  const queue = await startQueue(options)
  const endpoints: Listening[] = []
  return {
    queue,
    async mount(body) {
      const { handler } = sdkServe(body as never, {
        qstashClient: new SdkQueueClient({ baseUrl: queue.url, token: TOKEN }),
        receiver: new Receiver({ currentSigningKey: queue.signingKeys.current, nextSigningKey: queue.signingKeys.next }),
        env: {},
      })
      const endpoint = await listenFetch(handler)
      endpoints.push(endpoint)
      return `${endpoint.url}/api/workflow`
    },
    async start(url, payload) {
      const response = await fetch(`${queue.url}/v2/publish/${url}`, {
        method: 'POST',
        body: JSON.stringify(payload),
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      })
      expect(response.status).toBe(201)
      return until(async () => (await queue.runs.list()).runs.find((run) => run.url === url)?.workflowRunId, 10_000, 'the run to start')
    },
    async close() {
      await Promise.all(endpoints.map((endpoint) => endpoint.close()))
      await queue.close()
    },
  }
}
