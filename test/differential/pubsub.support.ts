/**
 * Helpers for the live pub/sub and MONITOR differentials: a raw RESP2 connection to
 * redis-server (the socket executor refuses SUBSCRIBE as a command, and connection-mode replies
 * are what the RESP listener must reproduce), and an event collector that resolves when enough
 * events arrived (no sleeps).
 */
import net from 'node:net'
import { encodeCommand, NEED_MORE, RespDecoder } from '../../src/resp/index.js'
import { Status, type Command, type Reply } from '../../src/reply.js'
import type { PubSubEvent } from '../../src/executor/executor.js'

/** An `Executor.subscribe` event with its bytes as latin1 text, for comparisons. */
export function showEvent(event: PubSubEvent): string {
  const text = (bytes: Uint8Array): string => Buffer.from(bytes).toString('latin1')
  switch (event.type) {
    case 'subscribe':
    case 'psubscribe':
    case 'ssubscribe':
    case 'sunsubscribe':
      return `${event.type} ${text(event.channel)} ${event.count}`
    case 'message':
    case 'smessage':
      return `${event.type} ${text(event.channel)} ${text(event.message)}`
    case 'pmessage':
      return `pmessage ${text(event.pattern)} ${text(event.channel)} ${text(event.message)}`
  }
}

/** One RESP2 connection; replies are read in order with {@link RawClient.next}. */
export class RawClient {
  private readonly decoder = new RespDecoder()
  private readonly ready: Reply[] = []
  private waiting: ((reply: Reply) => void) | undefined
  private failure: Error | undefined

  private constructor(private readonly socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.decoder.push(chunk)
      for (let reply = this.decoder.next(); reply !== NEED_MORE; reply = this.decoder.next()) {
        const waiter = this.waiting
        if (waiter !== undefined) {
          this.waiting = undefined
          waiter(reply)
        } else this.ready.push(reply)
      }
    })
    socket.on('error', (error) => (this.failure = error))
  }

  static connect(port: number): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => resolve(new RawClient(socket)))
      socket.once('error', reject)
    })
  }

  send(command: Command): void {
    this.socket.write(encodeCommand(command))
  }

  next(): Promise<Reply> {
    if (this.failure !== undefined) return Promise.reject(this.failure)
    const reply = this.ready.shift()
    if (reply !== undefined) return Promise.resolve(reply)
    return new Promise((resolve) => (this.waiting = resolve))
  }

  /**
   * Sends PING and returns every reply received before its answer (`+PONG`, or `pong` in the
   * pub/sub context). Redis handles a connection's commands in order, so whatever an earlier
   * command caused to be sent to this connection is in these replies.
   */
  async barrier(): Promise<Reply[]> {
    this.send(['PING'])
    const replies: Reply[] = []
    for (;;) {
      const reply = await this.next()
      if (isPong(reply)) return replies
      replies.push(reply)
    }
  }

  close(): void {
    this.socket.destroy()
  }
}

function isPong(reply: Reply): boolean {
  if (reply instanceof Status) return reply.text === 'PONG'
  return Array.isArray(reply) && reply.length === 2 && reply[0] instanceof Uint8Array && Buffer.from(reply[0]).toString() === 'pong'
}

/** Collects events; {@link Collector.waitFor} resolves once enough of them arrived. */
export class Collector<T> {
  readonly items: T[] = []
  private wanted: ((items: readonly T[]) => boolean) | undefined
  private wake: (() => void) | undefined

  readonly push = (item: T): void => {
    this.items.push(item)
    if (this.wanted?.(this.items)) {
      this.wanted = undefined
      this.wake?.()
    }
  }

  /** Resolves once `count` items arrived. */
  waitFor(count: number): Promise<void> {
    return this.waitUntil((items) => items.length >= count)
  }

  /** Resolves once `done` holds for the items so far (checked on every arrival). */
  waitUntil(done: (items: readonly T[]) => boolean): Promise<void> {
    if (done(this.items)) return Promise.resolve()
    this.wanted = done
    return new Promise((resolve) => (this.wake = resolve))
  }
}
