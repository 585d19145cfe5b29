/**
 * One port for RESP and HTTP (the specification's direct database-port mode): the listener looks
 * at a connection's first bytes and hands an HTTP request to the gateway's Node HTTP server.
 *
 * How a connection is told apart:
 * - A first byte `*` is a RESP multibulk, what every client library and redis-cli send: RESP, at
 *   once, nothing buffered.
 * - Otherwise the first line decides. An HTTP/1.x request line is `METHOD SP target SP HTTP/1.x`
 *   (RFC 9112, section 3); anything else is a RESP inline command (`PING`, `GET key` typed in a
 *   terminal). An inline command could only look like a request line by ending in ` HTTP/1.1`.
 * - Over TLS the bytes looked at are the decrypted ones, after the handshake.
 *
 * Without a server to hand HTTP to, a connection whose first line is an HTTP request line is
 * closed without a reply: Redis does the same when it sees `POST` or `Host:` (its defence
 * against cross-protocol scripting from browsers, server.c `securityWarningCommand`).
 */

import type net from 'node:net'

/** Longest first line waited for: past it the bytes go to RESP (Redis's inline limit answers). */
const MAX_FIRST_LINE = 8 * 1024

/** `GET /path HTTP/1.1` and the other methods of RFC 9110 (section 9) and PATCH (RFC 5789). */
const REQUEST_LINE = /^(?:GET|HEAD|POST|PUT|DELETE|CONNECT|OPTIONS|TRACE|PATCH) \S+ HTTP\/1\.[01]\r?$/

export type Protocol = 'resp' | 'http'

/** What the first bytes say, or undefined while the first line is incomplete. */
export function classify(head: Buffer): Protocol | undefined {
  if (head.length === 0) return undefined
  if (head[0] === 0x2a /* '*' */) return 'resp'
  const end = head.indexOf(0x0a)
  if (end < 0) return head.length >= MAX_FIRST_LINE ? 'resp' : undefined
  return REQUEST_LINE.test(head.subarray(0, end).toString('latin1')) ? 'http' : 'resp'
}

/**
 * Reads `socket` until its protocol is known, puts the bytes read back (`unshift`) and calls
 * `decided`: the next reader sees the stream from its first byte. Gives up silently when the
 * socket closes first. `timeoutMs` (0: none) closes a socket that says nothing for that long.
 */
export function sniffProtocol(socket: net.Socket, timeoutMs: number, decided: (protocol: Protocol) => void): void {
  let head: Buffer = Buffer.alloc(0)
  const timer = timeoutMs > 0 ? setTimeout(() => socket.destroy(), timeoutMs) : undefined
  timer?.unref()
  const finish = (): void => {
    clearTimeout(timer)
    socket.removeListener('data', onData)
    socket.removeListener('close', finish)
  }
  const onData = (chunk: Buffer): void => {
    head = head.length === 0 ? chunk : Buffer.concat([head, chunk])
    const protocol = classify(head)
    if (protocol === undefined) return
    finish()
    socket.pause()
    socket.unshift(head)
    decided(protocol)
    socket.resume()
  }
  socket.on('data', onData)
  socket.once('close', finish)
  socket.on('error', () => {}) // 'close' follows; the next owner adds its own handling
}
