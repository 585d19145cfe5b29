import { NULL_ARRAY, ReplyError, Status, type Arg, type Command, type Reply } from '../../reply.js'
import type { CallContext, Executor, MonitorEvent, PubSubEvent, Subscription } from '../executor.js'
import type { Out, Session } from './command.js'
import { Engine, type EngineOptions } from './engine.js'

/** Options of {@link MemoryExecutor}. @public */
export type MemoryExecutorOptions = EngineOptions

/**
 * The embedded executor: a Redis-compatible engine in this process. Calls complete
 * synchronously inside the engine; the promises only fit the {@link Executor} interface.
 * @public
 */
export class MemoryExecutor implements Executor {
  /** The engine behind this executor, for embedding and tests. */
  readonly engine: Engine
  private closed = false

  constructor(options: MemoryExecutorOptions = {}) {
    this.engine = new Engine(options)
  }

  exec(command: Command, context?: CallContext): Promise<Reply> {
    return Promise.resolve(this.execSync(command, context))
  }

  /** Runs one command synchronously (the engine never waits). */
  execSync(command: Command, context?: CallContext): Reply {
    this.assertOpen()
    return toReply(this.engine.call(this.session(context), toArgv(command)))
  }

  pipeline(commands: readonly Command[], context?: CallContext): Promise<Reply[]> {
    this.assertOpen()
    const session = this.session(context)
    return Promise.resolve(commands.map((command) => toReply(this.engine.call(session, toArgv(command)))))
  }

  transaction(commands: readonly Command[], context?: CallContext): Promise<Reply[] | ReplyError> {
    this.assertOpen()
    const replies = this.engine.transaction(this.session(context), commands.map(toArgv))
    return Promise.resolve(replies instanceof ReplyError ? replies : replies.map(toReply))
  }

  subscribe(
    _target: Subscription,
    _onEvent: (event: PubSubEvent) => void,
    _signal: AbortSignal,
  ): Promise<void> {
    return Promise.reject(new Error('pub/sub is not implemented by the memory engine yet'))
  }

  monitor(onEvent: (event: MonitorEvent) => void, signal: AbortSignal): Promise<void> {
    this.assertOpen()
    if (signal.aborted) return Promise.resolve()
    return new Promise((resolve) => {
      const remove = this.engine.addMonitor((line) => onEvent({ line }))
      signal.addEventListener('abort', () => {
        remove()
        resolve()
      }, { once: true })
    })
  }

  close(): Promise<void> {
    this.closed = true
    this.engine.close()
    return Promise.resolve()
  }

  private session(context: CallContext | undefined): Session {
    const session = this.engine.createSession(context?.client, context?.user)
    if (context?.db !== undefined) session.db = context.db
    return session
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('executor is closed')
  }
}

const ASCII = /^[\x00-\x7f]*$/

/** One command word as the engine's binary string: strings are UTF-8, bytes are kept as they are. */
export function toBinary(arg: Arg): string {
  if (typeof arg === 'string') return ASCII.test(arg) ? arg : Buffer.from(arg, 'utf8').toString('latin1')
  return Buffer.from(arg.buffer, arg.byteOffset, arg.byteLength).toString('latin1')
}

/** A command as the engine's argv. */
export function toArgv(command: Command): string[] {
  return command.map(toBinary)
}

/** An engine reply as a {@link Reply}: binary strings become bytes. */
export function toReply(out: Out): Reply {
  if (typeof out === 'string') return Buffer.from(out, 'latin1')
  if (Array.isArray(out)) return out.map(toReply)
  return out as null | typeof NULL_ARRAY | number | bigint | Status | ReplyError
}
