/**
 * A small typed client for the gateway's server-sent-event streams (`/subscribe`,
 * `/psubscribe`, `/monitor`), built on `fetch` and `eventsource-parser`. Works in Node 20+,
 * browsers, Deno, Bun and Workers.
 *
 * ```ts
 * const controller = new AbortController()
 * await subscribe('https://db.example.com', token, 'news', {
 *   signal: controller.signal,
 *   onMessage: ({ channel, message }) => console.log(channel, message),
 * })
 * ```
 *
 */
import { createParser } from 'eventsource-parser'

/** Options every stream takes. @public */
export interface StreamOptions {
  /** Aborting it closes the stream; the gateway releases the subscription at once. */
  readonly signal?: AbortSignal
  /** The `fetch` to use; default the global one. */
  readonly fetch?: typeof fetch
  /** Extra request headers. */
  readonly headers?: Readonly<Record<string, string>>
  /** Every raw `data:` payload, before it is interpreted (also keep-alive-free). */
  readonly onEvent?: (data: string) => void
}

/** A message delivered to a subscription. `pattern` is set for `psubscribe`. @public */
export interface StreamMessage {
  readonly channel: string
  readonly message: string
  readonly pattern?: string
}

/** Options of {@link subscribe} and {@link psubscribe}. @public */
export interface SubscribeOptions extends StreamOptions {
  /** Each published message. */
  readonly onMessage: (message: StreamMessage) => void
  /** Each confirmation: the channel (or pattern) and the subscription count. */
  readonly onSubscribe?: (channel: string, count: number) => void
}

/** Options of {@link monitor}. @public */
export interface MonitorOptions extends StreamOptions {
  /** Each executed command, as a MONITOR line (`1700000000.123456 [0 127.0.0.1:5000] "SET" "k" "v"`). */
  readonly onCommand: (line: string) => void
  /** Called once the gateway confirmed the stream (`"OK"`). */
  readonly onReady?: () => void
}

/**
 * The gateway refused to open the stream: `status` and the `error` text of its JSON body
 * (`401 WRONGPASS …`, `400 NOPERM …`).
 * @public
 */
export class StreamError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
    this.name = 'StreamError'
  }
}

/**
 * Opens an SSE stream and delivers its `data:` payloads until the signal aborts (resolves) or
 * the gateway ends the stream (resolves). Rejects with {@link StreamError} when the gateway
 * refuses the request.
 * @public
 */
export async function openEventStream(url: string, token: string, onData: (data: string) => void, options: StreamOptions = {}): Promise<void> {
  const fetchImpl = options.fetch ?? fetch
  let response: Response
  try {
    response = await fetchImpl(url, {
      method: 'POST',
      headers: { ...options.headers, authorization: `Bearer ${token}`, accept: 'text/event-stream' },
      signal: options.signal,
    })
  } catch (error) {
    if (options.signal?.aborted) return
    throw error
  }
  if (!response.ok || response.body === null) {
    let message = `HTTP ${response.status}`
    try {
      const body = (await response.json()) as { error?: unknown }
      if (typeof body.error === 'string') message = body.error
    } catch {
      // not JSON: keep the status line
    }
    throw new StreamError(response.status, message)
  }
  const parser = createParser({
    onEvent: (event) => {
      options.onEvent?.(event.data)
      onData(event.data)
    },
  })
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
  try {
    for (;;) {
      const { value, done } = await reader.read()
      if (done) return
      parser.feed(value)
    }
  } catch (error) {
    if (options.signal?.aborted) return
    throw error
  } finally {
    reader.releaseLock()
  }
}

function join(base: string, path: string, names: readonly string[]): string {
  return base.replace(/\/+$/, '') + path + names.map((name) => `/${encodeURIComponent(name)}`).join('')
}

/** Splits `kind,<name>,<rest>` where `<name>` is one of `names` (names may contain commas). */
function afterName(payload: string, prefix: string, names: readonly string[]): [string, string] | undefined {
  if (!payload.startsWith(prefix)) return undefined
  const rest = payload.slice(prefix.length)
  for (const name of names) if (rest.startsWith(`${name},`)) return [name, rest.slice(name.length + 1)]
  const comma = rest.indexOf(',')
  return comma === -1 ? undefined : [rest.slice(0, comma), rest.slice(comma + 1)]
}

function subscription(kind: 'subscribe' | 'psubscribe', url: string, token: string, names: readonly string[], options: SubscribeOptions): Promise<void> {
  const path = kind === 'subscribe' ? '/subscribe' : '/psubscribe'
  return openEventStream(
    join(url, path, names),
    token,
    (data) => {
      const confirmation = afterName(data, `${kind},`, names)
      if (confirmation !== undefined) {
        options.onSubscribe?.(confirmation[0], Number(confirmation[1]))
        return
      }
      if (kind === 'subscribe') {
        const message = afterName(data, 'message,', names)
        if (message !== undefined) options.onMessage({ channel: message[0], message: message[1] })
        return
      }
      const pmessage = afterName(data, 'pmessage,', names)
      if (pmessage === undefined) return
      const comma = pmessage[1].indexOf(',')
      if (comma === -1) return
      options.onMessage({ pattern: pmessage[0], channel: pmessage[1].slice(0, comma), message: pmessage[1].slice(comma + 1) })
    },
    options,
  )
}

/**
 * Subscribes to one or more channels (`POST /subscribe/<channel>…`). Resolves when the signal
 * aborts or the gateway closes the stream.
 * @public
 */
export function subscribe(url: string, token: string, channels: string | readonly string[], options: SubscribeOptions): Promise<void> {
  return subscription('subscribe', url, token, typeof channels === 'string' ? [channels] : channels, options)
}

/**
 * Subscribes to channel patterns (`POST /psubscribe/<pattern>…`); messages carry the pattern
 * they matched.
 * @public
 */
export function psubscribe(url: string, token: string, patterns: string | readonly string[], options: SubscribeOptions): Promise<void> {
  return subscription('psubscribe', url, token, typeof patterns === 'string' ? [patterns] : patterns, options)
}

/**
 * Follows every command the database executes (`POST /monitor`, standard token or an ACL user
 * allowed MONITOR).
 * @public
 */
export function monitor(url: string, token: string, options: MonitorOptions): Promise<void> {
  let ready = false
  return openEventStream(
    join(url, '/monitor', []),
    token,
    (data) => {
      if (!ready && data === '"OK"') {
        ready = true
        options.onReady?.()
        return
      }
      options.onCommand(data)
    },
    options,
  )
}
