import type { ChildProcess } from 'node:child_process'

/** The binary to run; `REDIS_SERVER_BIN` overrides. */
export declare const REDIS_SERVER_BIN: string

/** A running throwaway server. */
export interface RedisServer {
  readonly host: '127.0.0.1'
  readonly port: number
  /** `redis://127.0.0.1:<port>` */
  readonly url: string
  /** The server's `--dir` and working directory. */
  readonly dir: string
  readonly child: ChildProcess
  /** Resolves once the process exited. */
  readonly exited: Promise<void>
  /** The server's own log (stdout and stderr, the last 64 KiB), for failure messages. */
  readonly log: () => string
  /** SIGKILL, as in a crash; the directory stays. Resolves once the process exited. */
  kill(): Promise<void>
  /** SIGTERM (SIGKILL after 5 s), then removes the directory if the launcher made it. Idempotent. */
  stop(): Promise<void>
}

/** Options of {@link startRedisServer}. */
export interface StartOptions {
  /** Extra `redis-server` arguments, e.g. `['--requirepass', 'secret']`; they override the defaults. */
  readonly args?: readonly string[]
  /** A fixed port (no retry on another); default a free one. */
  readonly port?: number
  /** The caller's directory for `--dir` (kept on stop); default a fresh temporary one. */
  readonly dir?: string
  /** How long to wait for the first PONG. Default 10 s. */
  readonly readyTimeoutMs?: number
}

export declare function makeServerDir(): string
export declare function removeServerDir(dir: string): void
export declare function freePort(): Promise<number>
export declare function ping(port: number, timeoutMs?: number): Promise<boolean>
export declare function startRedisServer(options?: StartOptions): Promise<RedisServer>
