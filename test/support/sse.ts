/**
 * Helpers for the SSE tests: an event reader over a response body (eventsource-parser), an
 * executor wrapper that reports when its streams settle, and what an executor holds open.
 */
import { EventEmitter, once } from 'node:events'
import type { IncomingMessage } from 'node:http'
import { createParser } from 'eventsource-parser'
import type { CallContext, Executor, MonitorEvent, PubSubEvent, Subscription } from '../../src/executor/executor.js'
import { MemoryExecutor } from '../../src/executor/memory/memory-executor.js'
import { SocketExecutor } from '../../src/executor/socket/socket-executor.js'
import { ClusterExecutor } from '../../src/executor/cluster/cluster-executor.js'
import type { Command, Reply, ReplyError } from '../../src/reply.js'

/** Reads `data:` payloads (and comments) of an SSE body, one `next()` at a time. */
export class EventReader {
  readonly events: string[] = []
  readonly comments: string[] = []
  /** Raw text received so far. */
  raw = ''
  ended = false
  error: unknown
  private readonly changed = new EventEmitter()

  constructor(source: ReadableStream<Uint8Array> | IncomingMessage) {
    const parser = createParser({
      onEvent: (event) => {
        this.events.push(event.data)
        this.changed.emit('change')
      },
      onComment: (comment) => {
        this.comments.push(comment)
        this.changed.emit('change')
      },
    })
    const feed = (text: string) => {
      this.raw += text
      parser.feed(text)
    }
    const finish = (error?: unknown) => {
      this.ended = true
      this.error = error
      this.changed.emit('change')
    }
    if ('getReader' in source) {
      const reader = source.getReader()
      const decoder = new TextDecoder()
      void (async () => {
        try {
          for (;;) {
            const { value, done } = await reader.read()
            if (done) return finish()
            feed(decoder.decode(value, { stream: true }))
          }
        } catch (error) {
          finish(error)
        }
      })()
    } else {
      source.setEncoding('utf8')
      source.on('data', feed)
      source.on('end', () => finish())
      source.on('error', finish)
      source.on('close', () => finish())
    }
  }

  private cursor = 0

  /** The next payload; rejects when the stream ends first. */
  async next(): Promise<string> {
    while (this.cursor >= this.events.length) {
      if (this.ended) throw new Error(`stream ended${this.error ? `: ${String(this.error)}` : ''} after ${this.events.length} events`)
      await once(this.changed, 'change')
    }
    return this.events[this.cursor++]
  }

  /** Waits until `count` payloads arrived in total. */
  async waitForEvents(count: number): Promise<void> {
    while (this.events.length < count) {
      if (this.ended) throw new Error(`stream ended after ${this.events.length} of ${count} events`)
      await once(this.changed, 'change')
    }
  }

  /** Waits for a comment line (keep-alive). */
  async nextComment(): Promise<string> {
    const seen = this.comments.length
    while (this.comments.length === seen) {
      if (this.ended) throw new Error('stream ended without a comment')
      await once(this.changed, 'change')
    }
    return this.comments[seen]
  }

  /** Waits for the end of the stream. */
  async closed(): Promise<void> {
    while (!this.ended) await once(this.changed, 'change')
  }
}

/** An executor that counts its running streams and tells when one settles. */
export class TrackedExecutor implements Executor {
  active = 0
  private readonly settled = new EventEmitter()
  constructor(readonly inner: Executor) {}

  exec(command: Command, context?: CallContext): Promise<Reply> {
    return this.inner.exec(command, context)
  }
  pipeline(commands: readonly Command[], context?: CallContext): Promise<Reply[]> {
    return this.inner.pipeline(commands, context)
  }
  transaction(commands: readonly Command[], context?: CallContext): Promise<Reply[] | ReplyError> {
    return this.inner.transaction(commands, context)
  }
  subscribe(target: Subscription, onEvent: (event: PubSubEvent) => void, signal: AbortSignal, context?: CallContext): Promise<void> {
    return this.track(this.inner.subscribe(target, onEvent, signal, context))
  }
  monitor(onEvent: (event: MonitorEvent) => void, signal: AbortSignal, context?: CallContext): Promise<void> {
    return this.track(this.inner.monitor(onEvent, signal, context))
  }
  close(): Promise<void> {
    return this.inner.close()
  }

  private track(running: Promise<void>): Promise<void> {
    this.active++
    this.settled.emit('started')
    const done = () => {
      this.active--
      this.settled.emit('settled')
    }
    running.then(done, done)
    return running
  }

  /** Resolves once no stream runs any more. */
  async idle(): Promise<void> {
    await this.atMost(0)
  }

  /** Resolves once at most `count` streams run. */
  async atMost(count: number): Promise<void> {
    while (this.active > count) await once(this.settled, 'settled')
  }

  /** Resolves once at least `count` streams run. */
  async running(count: number): Promise<void> {
    while (this.active < count) await once(this.settled, 'started')
  }
}

/** Subscriptions, subscribed clients and monitors an executor holds (0 when everything was released). */
export function heldStreams(executor: Executor): number {
  if (executor instanceof TrackedExecutor) return heldStreams(executor.inner)
  if (executor instanceof MemoryExecutor) {
    const size = executor.engine.pubsub.size
    return size.clients + size.channels + size.patterns + executor.engine.monitorCount
  }
  if (executor instanceof SocketExecutor) {
    const stats = executor.stats
    return stats.subscribers + stats.subscriberConnections + stats.monitors + stats.monitorConnections
  }
  if (executor instanceof ClusterExecutor) {
    const stats = executor.stats
    return stats.subscribers + stats.monitors + stats.streamConnections
  }
  throw new Error('unknown executor')
}
