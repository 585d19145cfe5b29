/**
 * Server-sent events: framing, keep-alive comments, a bounded buffer per client, and closing.
 * The gateway produces an {@link EventStream}; each adapter connects it to its transport through
 * an {@link EventSink}.
 */

/** Where an event stream writes. Adapters implement it over a Node response or a ReadableStream. @public */
export interface EventSink {
  /** Writes a chunk; returns false when the transport's buffer is full. */
  write(chunk: string): boolean
  /** Bytes written but not yet taken by the client. */
  readonly pending: number
  /** Ends the response. */
  close(): void
  /**
   * Drops the connection at once, discarding what is buffered (a client that fell too far behind).
   * Without it, {@link EventSink.close} is used.
   */
  abort?(): void
}

/**
 * A stream of events that runs until the client goes away (`signal` aborts) or the backend
 * ends it. `run` resolves when the stream is over and never rejects.
 * @public
 */
export interface EventStream {
  readonly kind: 'event-stream'
  run(sink: EventSink, signal: AbortSignal): Promise<void>
}

/** Options of the SSE emitter. @public */
export interface SseOptions {
  /** Interval of `: keep-alive` comments while idle, ms. Default 15000; 0 sends none. */
  readonly keepAliveInterval?: number
  /** A client whose unsent data exceeds this many bytes is disconnected. Default 1 MiB. */
  readonly maxBufferedBytes?: number
}

/** One `data:` event; payloads with line breaks become several `data:` lines, per the SSE format. @public */
export function formatEvent(data: string): string {
  if (!data.includes('\n') && !data.includes('\r')) return `data: ${data}\n\n`
  return data.split(/\r\n|\r|\n/).map((line) => `data: ${line}\n`).join('') + '\n'
}

/**
 * Builds an {@link EventStream} from a producer that emits payloads until its signal aborts.
 * The emitter owns keep-alive and the slow-client rule: a client that lets more than
 * `maxBufferedBytes` pile up is disconnected, so it can never hold up the producer.
 * @public
 */
export function eventStream(
  produce: (emit: (data: string) => void, signal: AbortSignal) => Promise<void>,
  options: SseOptions = {},
): EventStream {
  const keepAliveInterval = options.keepAliveInterval ?? 15_000
  const maxBufferedBytes = options.maxBufferedBytes ?? 1024 * 1024
  return {
    kind: 'event-stream',
    async run(sink, clientSignal) {
      const stop = new AbortController()
      const abort = () => stop.abort()
      if (clientSignal.aborted) return sink.close()
      clientSignal.addEventListener('abort', abort, { once: true })
      let lastWrite = Date.now()
      let overflowed = false
      // Events of one burst (a pipeline of PUBLISH, a backend read with many messages) leave in
      // one write, flushed before the next turn of the event loop.
      let buffered = ''
      let scheduled = false
      const overflow = () => {
        // A client this far behind is disconnected: its subscription goes, others go on.
        overflowed = true
        buffered = ''
        stop.abort()
      }
      const flush = () => {
        scheduled = false
        if (buffered === '' || overflowed) return
        const chunk = buffered
        buffered = ''
        sink.write(chunk)
        if (sink.pending > maxBufferedBytes) overflow()
      }
      const send = (chunk: string) => {
        if (stop.signal.aborted) return
        buffered += chunk
        lastWrite = Date.now()
        if (buffered.length + sink.pending > maxBufferedBytes) return overflow()
        if (!scheduled) {
          scheduled = true
          queueMicrotask(flush)
        }
      }
      const timer =
        keepAliveInterval > 0
          ? setInterval(() => {
              if (Date.now() - lastWrite >= keepAliveInterval) send(': keep-alive\n\n')
            }, Math.max(1, Math.floor(keepAliveInterval / 2)))
          : undefined
      try {
        await produce((data) => send(formatEvent(data)), stop.signal)
      } catch {
        // The backend failed: the stream ends; the client sees the connection close.
      } finally {
        if (timer !== undefined) clearInterval(timer)
        clientSignal.removeEventListener('abort', abort)
        if (!clientSignal.aborted) flush()
        stop.abort()
        if (overflowed && sink.abort !== undefined) sink.abort()
        else sink.close()
      }
    },
  }
}
