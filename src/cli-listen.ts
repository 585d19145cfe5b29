/**
 * What the command-line tools print when they cannot listen: one line naming the address and the
 * reason (`cannot listen on 127.0.0.1:8080: address already in use`), never a stack trace.
 */

import type { Server } from 'node:net'

/** The reasons `listen` fails for, as people say them; other codes fall back to the error's message. */
const REASONS: Readonly<Record<string, string>> = {
  EADDRINUSE: 'address already in use',
  EACCES: 'permission denied',
  EADDRNOTAVAIL: 'address not available on this machine',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
}

/** A listener that could not start; `message` is the whole line to print after the tool's name. */
export class ListenError extends Error {
  constructor(host: string, port: number, cause: unknown) {
    super(`cannot listen on ${hostPort(host, port)}: ${reason(cause)}`)
    this.name = 'ListenError'
  }
}

/** `host:port`, with brackets around an IPv6 address. */
export function hostPort(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`
}

function reason(cause: unknown): string {
  const code = (cause as { code?: unknown } | undefined)?.code
  if (typeof code === 'string' && REASONS[code] !== undefined) return REASONS[code]
  return cause instanceof Error ? cause.message : String(cause)
}

/** `server.listen(port, host)` as a promise; a failure rejects with a {@link ListenError}. */
export function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const fail = (error: unknown): void => reject(new ListenError(host, port, error))
    server.once('error', fail)
    server.listen(port, host, () => {
      server.removeListener('error', fail)
      resolve()
    })
  })
}
