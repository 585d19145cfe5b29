/**
 * Helpers of the socket-executor tests: a redis-server that can be killed and restarted on the
 * same port, condition waits, stub servers, and a raw RESP client.
 */
import net from 'node:net'
import tls from 'node:tls'
import { RespDecoder } from '../../../src/resp/decode.js'
import { NEED_MORE } from '../../../src/resp/protocol.js'
import type { Reply } from '../../../src/reply.js'
import { freePort, makeServerDir, removeServerDir, startRedisServer, type RedisServer } from '../../support/redis-server.js'

/** Polls `condition` every few ms until it holds; fails with `what` after `timeoutMs`. */
export async function waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (await condition()) return
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/** A redis-server on a fixed port and directory that the test can SIGKILL and start again. */
export class RestartableRedis {
  #server: RedisServer | undefined

  private constructor(
    readonly port: number,
    readonly dir: string,
  ) {}

  static async start(args: readonly string[] = []): Promise<RestartableRedis> {
    const redis = new RestartableRedis(await freePort(), makeServerDir())
    await redis.startAgain(args)
    return redis
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`
  }

  /** Starts the server on the same port and directory and resolves once it answers PING. */
  async startAgain(args: readonly string[] = []): Promise<void> {
    this.#server = await startRedisServer({ port: this.port, dir: this.dir, args })
  }

  /** SIGSTOP: the server keeps its sockets (the kernel still accepts and buffers) but runs nothing. */
  pause(): void {
    this.#server?.child.kill('SIGSTOP')
  }

  /** SIGCONT after {@link pause}: the server reads and runs whatever reached it meanwhile. */
  resume(): void {
    this.#server?.child.kill('SIGCONT')
  }

  /** SIGKILL: the server vanishes mid-stream, as in a crash. Resolves once it exited. */
  async kill(): Promise<void> {
    await this.#server?.kill()
  }

  async stop(): Promise<void> {
    await this.kill()
    removeServerDir(this.dir)
  }
}

/** A TCP server that hands each connection to `onConnection`; closes everything on `close`. */
export async function stubServer(onConnection: (socket: net.Socket) => void): Promise<{ port: number; sockets: Set<net.Socket>; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>()
  const server = net.createServer((socket) => {
    sockets.add(socket)
    socket.on('error', () => {})
    socket.once('close', () => sockets.delete(socket))
    onConnection(socket)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as net.AddressInfo).port
  return {
    port,
    sockets,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}

/** A raw RESP client: write any bytes, read decoded replies, see the server close. */
export class RawClient {
  readonly #socket: net.Socket
  readonly #decoder = new RespDecoder()
  readonly #replies: Reply[] = []
  #waiter: (() => void) | undefined
  #closed = false
  readonly closed: Promise<void>

  private constructor(socket: net.Socket) {
    this.#socket = socket
    socket.on('data', (chunk: Buffer) => {
      this.#decoder.push(chunk)
      for (let reply = this.#decoder.next(); reply !== NEED_MORE; reply = this.#decoder.next()) this.#replies.push(reply)
      this.#waiter?.()
    })
    socket.on('error', () => {})
    this.closed = new Promise((resolve) =>
      socket.once('close', () => {
        this.#closed = true
        this.#waiter?.()
        resolve()
      }),
    )
  }

  static connect(port: number): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => resolve(new RawClient(socket)))
      socket.once('error', reject)
    })
  }

  /** Connects over TLS, trusting `ca` (a PEM certificate). */
  static connectTls(port: number, ca: string): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const socket = tls.connect({ port, host: '127.0.0.1', ca, servername: 'localhost' }, () => resolve(new RawClient(socket)))
      socket.once('error', reject)
    })
  }

  get isClosed(): boolean {
    return this.#closed
  }

  write(data: string | Buffer): void {
    this.#socket.write(data)
  }

  /** Resolves with the next `count` replies; rejects if the connection closes first. */
  async read(count = 1, timeoutMs = 10_000): Promise<Reply[]> {
    const deadline = Date.now() + timeoutMs
    while (this.#replies.length < count) {
      if (this.#closed) throw new Error(`connection closed after ${this.#replies.length} of ${count} replies`)
      if (Date.now() > deadline) throw new Error(`timed out after ${this.#replies.length} of ${count} replies`)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(1, deadline - Date.now()))
        this.#waiter = () => {
          clearTimeout(timer)
          this.#waiter = undefined
          resolve()
        }
      })
    }
    return this.#replies.splice(0, count)
  }

  async one(): Promise<Reply> {
    return (await this.read(1))[0]
  }

  /** Sends a command as a multibulk and reads its reply. */
  async call(...args: (string | Buffer)[]): Promise<Reply> {
    this.write(multibulk(args))
    return this.one()
  }

  end(): void {
    this.#socket.end()
  }

  destroy(): void {
    this.#socket.destroy()
  }
}

/** A reply as text for assertions: bulk strings decoded, arrays mapped. */
export function show(reply: Reply): unknown {
  if (reply instanceof Uint8Array) return Buffer.from(reply).toString('utf8')
  if (Array.isArray(reply)) return (reply as Reply[]).map(show)
  if (reply !== null && typeof reply === 'object' && 'message' in reply) return `-${(reply as { message: string }).message}`
  if (reply !== null && typeof reply === 'object' && 'text' in reply) return `+${(reply as { text: string }).text}`
  return reply
}

/** A command as the multibulk bytes a client sends. */
export function multibulk(args: readonly (string | Buffer)[]): Buffer {
  const parts: Buffer[] = [Buffer.from(`*${args.length}\r\n`)]
  for (const arg of args) {
    const bytes = typeof arg === 'string' ? Buffer.from(arg) : arg
    parts.push(Buffer.from(`$${bytes.length}\r\n`), bytes, Buffer.from('\r\n'))
  }
  return Buffer.concat(parts)
}
