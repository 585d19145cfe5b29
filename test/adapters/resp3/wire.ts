/**
 * A client that reads replies as bytes: it sends a command and returns the exact bytes of the
 * next whole reply (framed by the RESP3 decoder), so that two servers can be compared byte for
 * byte, and pushes can be told from replies.
 */
import net from 'node:net'
import { decodeReply, encodeCommand, NEED_MORE } from '../../../src/resp/index.js'
import type { Command, Reply } from '../../../src/reply.js'

export class WireClient {
  readonly #socket: net.Socket
  #buffer: Buffer = Buffer.alloc(0)
  #waiter: (() => void) | undefined
  #closed = false

  private constructor(socket: net.Socket) {
    this.#socket = socket
    socket.on('data', (chunk: Buffer) => {
      this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk])
      this.#waiter?.()
    })
    socket.on('error', () => {})
    socket.on('close', () => {
      this.#closed = true
      this.#waiter?.()
    })
  }

  static connect(port: number): Promise<WireClient> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => resolve(new WireClient(socket)))
      socket.once('error', reject)
    })
  }

  get closed(): boolean {
    return this.#closed
  }

  send(bytes: Buffer | Command): void {
    this.#socket.write(Buffer.isBuffer(bytes) ? bytes : encodeCommand(bytes))
  }

  /** The bytes of the next whole reply (or push), and what they decode to. */
  async next(timeoutMs = 10_000): Promise<{ bytes: Buffer; value: Reply }> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const decoded = this.#buffer.length === 0 ? NEED_MORE : decodeReply(this.#buffer)
      if (decoded !== NEED_MORE) {
        const bytes = this.#buffer.subarray(0, decoded.end)
        this.#buffer = this.#buffer.subarray(decoded.end)
        return { bytes, value: decoded.value }
      }
      if (this.#closed) throw new Error('connection closed before a whole reply')
      const left = deadline - Date.now()
      if (left <= 0) throw new Error(`no whole reply within ${timeoutMs} ms (have ${JSON.stringify(this.#buffer.toString('latin1'))})`)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left)
        this.#waiter = () => {
          clearTimeout(timer)
          resolve()
        }
      })
      this.#waiter = undefined
    }
  }

  /** Sends `command` and returns its reply's bytes. */
  async call(command: Command): Promise<Buffer> {
    this.send(command)
    return (await this.next()).bytes
  }

  /** Bytes received and not yet read as a reply. */
  get pending(): number {
    return this.#buffer.length
  }

  close(): void {
    this.#socket.destroy()
  }
}
