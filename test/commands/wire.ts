/**
 * Test-only RESP2 plumbing for comparing replies byte for byte with a live server, without a
 * parser: `encodeReply` writes a {@link Reply} the way Redis does, and {@link RawConnection}
 * returns the raw bytes of one reply, framed by a unique `ECHO` sent right after the request.
 */

import net from 'node:net'
import { randomBytes } from 'node:crypto'
import { NULL_ARRAY, ReplyError, Status, type Reply } from '../../src/reply.js'

/** The RESP2 bytes of a reply. */
export function encodeReply(reply: Reply): Buffer {
  const parts: Buffer[] = []
  const walk = (value: Reply): void => {
    if (value === null) parts.push(Buffer.from('$-1\r\n'))
    else if (value === NULL_ARRAY) parts.push(Buffer.from('*-1\r\n'))
    else if (typeof value === 'number' || typeof value === 'bigint') parts.push(Buffer.from(`:${value}\r\n`))
    else if (value instanceof Uint8Array) {
      parts.push(Buffer.from(`$${value.length}\r\n`), Buffer.from(value), Buffer.from('\r\n'))
    } else if (value instanceof Status) parts.push(Buffer.from(`+${value.text}\r\n`))
    else if (value instanceof ReplyError) parts.push(Buffer.from(`-${value.message}\r\n`))
    else if (Array.isArray(value)) {
      parts.push(Buffer.from(`*${value.length}\r\n`))
      for (const item of value) walk(item)
    } else throw new Error(`cannot encode ${String(value)}`)
  }
  walk(reply)
  return Buffer.concat(parts)
}

/** A RESP2 command. */
export function encodeCommand(args: readonly (string | Uint8Array)[]): Buffer {
  const parts: Buffer[] = [Buffer.from(`*${args.length}\r\n`)]
  for (const arg of args) {
    const bytes = typeof arg === 'string' ? Buffer.from(arg) : Buffer.from(arg)
    parts.push(Buffer.from(`$${bytes.length}\r\n`), bytes, Buffer.from('\r\n'))
  }
  return Buffer.concat(parts)
}

/** One connection; `request` resolves with the raw bytes of the reply. Requests run one at a time. */
export class RawConnection {
  private buffer = Buffer.alloc(0)
  private waiting: { sentinel: Buffer; resolve: (bytes: Buffer) => void; reject: (error: Error) => void } | undefined
  private failure: Error | undefined
  private queue: Promise<unknown> = Promise.resolve()

  private constructor(private readonly socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk])
      this.check()
    })
    const fail = (error: Error): void => {
      this.failure = error
      this.waiting?.reject(error)
      this.waiting = undefined
    }
    socket.on('error', fail)
    socket.on('close', () => fail(new Error('connection closed')))
  }

  static connect(port: number, host = '127.0.0.1'): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, host)
      socket.once('connect', () => resolve(new RawConnection(socket)))
      socket.once('error', reject)
    })
  }

  private check(): void {
    const waiting = this.waiting
    if (!waiting) return
    const { sentinel } = waiting
    if (this.buffer.length >= sentinel.length && this.buffer.subarray(this.buffer.length - sentinel.length).equals(sentinel)) {
      const reply = this.buffer.subarray(0, this.buffer.length - sentinel.length)
      this.buffer = Buffer.alloc(0)
      this.waiting = undefined
      waiting.resolve(Buffer.from(reply))
    }
  }

  request(args: readonly (string | Uint8Array)[]): Promise<Buffer> {
    const run = (): Promise<Buffer> =>
      new Promise<Buffer>((resolve, reject) => {
        if (this.failure) return reject(this.failure)
        const nonce = `restis-frame-${randomBytes(12).toString('hex')}`
        const sentinel = encodeReply(Buffer.from(nonce))
        this.waiting = { sentinel, resolve, reject }
        this.socket.write(Buffer.concat([encodeCommand(args), encodeCommand(['ECHO', nonce])]))
      })
    const result = this.queue.then(run, run)
    this.queue = result.catch(() => undefined)
    return result
  }

  close(): void {
    this.socket.destroy()
  }
}
