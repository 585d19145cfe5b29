/**
 * The in-memory engine for unit tests: an executor, or a bare engine with a session, on a clock
 * the test moves by hand (active expiry off, so only the test decides when time passes), and
 * replies rendered as plain values, so that assertions read `expect(run('GET', 'k')).toBe('v')`.
 *
 * A file that uses them registers `afterEach(closeEngines)`.
 *
 * ```ts
 * afterEach(closeEngines)
 *
 * test('a key lives through its deadline millisecond', () => {
 *   const { run, advance } = memoryEngine()
 *   run('SET', 'k', 'v', 'PX', '100')
 *   advance(100)
 *   expect(run('GET', 'k')).toBe('v')
 * })
 * ```
 */
import type { Session } from '../../src/executor/memory/command.js'
import { Engine, type EngineOptions } from '../../src/executor/memory/engine.js'
import { MemoryExecutor, toReply } from '../../src/executor/memory/memory-executor.js'
import { ReplyError, Status, type Arg, type Reply } from '../../src/reply.js'

/** Where the test clock starts unless a test says otherwise (November 2023, in ms). */
export const START = 1_700_000_000_000

/** A reply as a plain value, for `toEqual`; see {@link plain}. */
export type Plain = string | number | null | { error: string } | Plain[]

/**
 * A reply as a plain value: a bulk string as latin1 text, a status as its text, an error as
 * `{ error: message }`, an integer as a number (a `bigint` too), the null bulk and the null
 * array as null.
 */
export function plain(reply: Reply): Plain {
  return toPlain(reply, Number)
}

/** Like {@link plain}, but a `bigint` (an integer beyond 2^53) as its exact decimal text. */
export function plainExact(reply: Reply): Plain {
  return toPlain(reply, String)
}

function toPlain(reply: Reply, bigint: (value: bigint) => number | string): Plain {
  if (reply === null || typeof reply === 'symbol') return null
  if (typeof reply === 'number') return reply
  if (typeof reply === 'bigint') return bigint(reply)
  if (reply instanceof ReplyError) return { error: reply.message }
  if (reply instanceof Status) return reply.text
  if (reply instanceof Uint8Array) return Buffer.from(reply).toString('latin1')
  return (reply as readonly Reply[]).map((item) => toPlain(item, bigint))
}

/**
 * A reply as redis-cli would print it, markers kept: a bulk string as latin1 text, a status as
 * `+text`, an error as `-message`; integers, nulls and the null array as they are.
 */
export function marked(reply: Reply): unknown {
  if (reply instanceof Uint8Array) return Buffer.from(reply).toString('latin1')
  if (reply instanceof ReplyError) return `-${reply.message}`
  if (reply instanceof Status) return `+${reply.text}`
  if (Array.isArray(reply)) return reply.map(marked)
  return reply
}

/** The test's clock: read by the engine, moved by the test. */
interface TestClock {
  /** The time the engine reads next, in ms since the epoch; tests may set it. */
  now: number
  /** Moves the clock on by `ms`; returns the new time. */
  advance(ms: number): number
}

interface ClockOptions {
  /** The clock's first reading. Default {@link START}. */
  readonly start?: number
  /** How far the clock moves on by itself each time the engine reads it, in ms. Default 0. */
  readonly step?: number
}

/** A manual clock, and the function the engine reads it through. */
function testClock({ start = START, step = 0 }: ClockOptions): { clock: TestClock; read: () => number } {
  const clock: TestClock = {
    now: start,
    advance: (ms) => (clock.now += ms),
  }
  const read = (): number => {
    const current = clock.now
    clock.now += step
    return current
  }
  return { clock, read }
}

const open: { close(): unknown }[] = []

/** Closes every executor and engine made since the last call; for `afterEach`. */
export async function closeEngines(): Promise<void> {
  const closing = open.splice(0)
  await Promise.all(closing.map((resource) => resource.close()))
}

/** A {@link MemoryExecutor} on a test clock. */
export interface ExecutorUnderTest<R> extends TestClock {
  readonly executor: MemoryExecutor
  /** Runs one command through `execSync` and renders its reply. */
  run(...command: Arg[]): R
}

export interface ExecutorOptions<R> extends ClockOptions {
  /** How `run` renders a reply. Default {@link plain}. */
  readonly render?: (reply: Reply) => R
  /** Engine options besides the clock (active expiry is off unless given). */
  readonly engine?: Omit<EngineOptions, 'clock'>
}

/** A memory executor on a test clock, with active expiry off. */
export function memoryEngine(options?: ExecutorOptions<Plain> & { readonly render?: undefined }): ExecutorUnderTest<Plain>
export function memoryEngine<R>(options: ExecutorOptions<R> & { readonly render: (reply: Reply) => R }): ExecutorUnderTest<R>
export function memoryEngine(options: ExecutorOptions<unknown> = {}): ExecutorUnderTest<unknown> {
  const { clock, read } = testClock(options)
  const render = options.render ?? plain
  const executor = new MemoryExecutor({ activeExpiryInterval: 0, ...options.engine, clock: read })
  open.push(executor)
  return Object.assign(clock, {
    executor,
    run: (...command: Arg[]): unknown => render(executor.execSync(command)),
  })
}

/** The latest executor of {@link currentEngine}. */
export interface CurrentEngine<R> {
  /** Makes a fresh executor on a clock at the given start; the other members reach it. */
  start(): MemoryExecutor
  /** Runs one command on the latest executor and renders its reply. */
  run(...command: Arg[]): R
  readonly executor: MemoryExecutor
  /** The latest executor's clock, in ms since the epoch; tests set it. */
  now: number
}

/**
 * For a file whose tests begin with `start()` and then talk to "the" executor through file-level
 * helpers: `start` makes a fresh {@link memoryEngine}, and `run`, `executor` and `now` reach the
 * latest one. `start` and `run` may be destructured.
 */
export function currentEngine<R>(options: ExecutorOptions<R> & { readonly render: (reply: Reply) => R }): CurrentEngine<R> {
  let latest: ExecutorUnderTest<R> | undefined
  const current = (): ExecutorUnderTest<R> => {
    if (latest === undefined) throw new Error('start() has not been called')
    return latest
  }
  return {
    start: () => (latest = memoryEngine(options)).executor,
    run: (...command) => current().run(...command),
    get executor() {
      return current().executor
    },
    get now() {
      return current().now
    },
    set now(ms: number) {
      current().now = ms
    },
  }
}

/** An {@link Engine} on a test clock, with a session to talk to it; replies as {@link plain} values. */
export interface SessionUnderTest extends TestClock {
  readonly engine: Engine
  readonly session: Session
  /** Runs one command (binary-string arguments) on the session. */
  run(...argv: string[]): Plain
  /** Runs one command on another session of the same engine. */
  runAs(other: Session, ...argv: string[]): Plain
}

export interface SessionOptions extends ClockOptions {
  /** Engine options besides the clock (active expiry is off unless given). */
  readonly engine?: Omit<EngineOptions, 'clock'>
  /** The session's client address. Default the engine's own default. */
  readonly address?: string
}

/** A bare engine on a test clock, with active expiry off, and one session. */
export function engineSession(options: SessionOptions = {}): SessionUnderTest {
  const { clock, read } = testClock(options)
  const engine = new Engine({ activeExpiryInterval: 0, ...options.engine, clock: read })
  open.push(engine)
  const session = options.address === undefined ? engine.createSession() : engine.createSession(options.address)
  const runAs = (other: Session, ...argv: string[]): Plain => plain(toReply(engine.call(other, argv)))
  return Object.assign(clock, {
    engine,
    session,
    run: (...argv: string[]): Plain => runAs(session, ...argv),
    runAs,
  })
}
