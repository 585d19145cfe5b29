/**
 * The stream family's timing relaxations and the runner that applies them.
 *
 * Consumer groups report times: XPENDING's idle time per entry, XINFO CONSUMERS' `idle`, and XINFO
 * STREAM FULL's delivery times and consumers' `seen-time` (milliseconds since the epoch). Both
 * servers read their own clock, so these numbers may differ by a few milliseconds. The
 * relaxations below accept exactly those numbers within {@link TOLERANCE_MS}; every other part of
 * the reply is compared byte for byte. They apply by command, so a case needs no annotation:
 *
 * - `pendingIdle`: XPENDING with a range, third element of each row
 * - `consumerIdle`: XINFO CONSUMERS, the value after `idle`
 * - `fullTimes`: XINFO STREAM FULL, delivery times in the group and consumer PELs, `seen-time`
 */
import type { Executor } from '../../src/executor/executor.js'
import type { Command, Reply } from '../../src/reply.js'
import { compareReplies, runDifferential, showReply, type DiffCase } from './harness.js'

export type TimingRelaxation = 'pendingIdle' | 'consumerIdle' | 'fullTimes'

/**
 * How far apart two clock readings may be. The two executors run each command at nearly the same
 * moment, but a pause of the test process (garbage collection) between the two can shift one
 * side's reading by tens of milliseconds. Which commands update these times is checked exactly by
 * the unit tests, with an injected clock.
 */
export const TOLERANCE_MS = 250

const ID_SHAPE = /^\d+-\d+$/

function word(arg: Command[number] | undefined): string {
  return arg === undefined ? '' : typeof arg === 'string' ? arg.toLowerCase() : Buffer.from(arg).toString('latin1').toLowerCase()
}

/** The timing relaxation a stream command's reply needs, if any. */
export function timingOf(command: Command): TimingRelaxation | undefined {
  const name = word(command[0])
  if (name === 'xpending' && command.length > 3) return 'pendingIdle'
  if (name === 'xinfo' && word(command[1]) === 'consumers') return 'consumerIdle'
  if (name === 'xinfo' && word(command[1]) === 'stream' && word(command[3]) === 'full') return 'fullTimes'
  return undefined
}

function text(reply: Reply | undefined): string | undefined {
  return reply instanceof Uint8Array ? Buffer.from(reply).toString('latin1') : undefined
}

/** Whether the integer at `parent[index]` is a time under `relaxation`. */
function isTime(relaxation: TimingRelaxation, parent: readonly Reply[], index: number, depth: number): boolean {
  switch (relaxation) {
    case 'pendingIdle':
      return depth === 2 && index === 2 && parent.length === 4
    case 'consumerIdle':
      return depth === 2 && text(parent[index - 1]) === 'idle'
    case 'fullTimes': {
      if (text(parent[index - 1]) === 'seen-time') return true
      const id = text(parent[0])
      if (id === undefined || !ID_SHAPE.test(id)) return false
      // Group PEL rows: [id, consumer, delivery-time, count]; consumer PEL rows: [id, delivery-time, count].
      return (parent.length === 4 && index === 2 && text(parent[1]) !== undefined) || (parent.length === 3 && index === 1)
    }
  }
}

/** Compares two replies, letting the times of `relaxation` differ by up to {@link TOLERANCE_MS}. */
export function compareTimed(ours: Reply, redis: Reply, relaxation: TimingRelaxation): string | null {
  const walk = (a: Reply, b: Reply, parent: readonly Reply[] | null, index: number, depth: number): boolean => {
    if (Array.isArray(a) && Array.isArray(b)) {
      if (a.length !== b.length) return false
      return a.every((item: Reply, i: number) => walk(item, (b as Reply[])[i], a as Reply[], i, depth + 1))
    }
    if (typeof a === 'number' && typeof b === 'number' && a !== b && parent !== null) {
      return isTime(relaxation, parent, index, depth) && Math.abs(a - b) <= TOLERANCE_MS
    }
    return compareReplies(a, b) === null
  }
  return walk(ours, redis, null, 0, 0) ? null : `memory ${showReply(ours)}\nredis  ${showReply(redis)} (${relaxation})`
}

/**
 * Like `runDifferential`, with the timing relaxations applied by command (and a case's own
 * `relax` for the others).
 */
export function runStreamDifferential(title: string, cases: readonly DiffCase[]): void {
  runDifferential(title, cases, runTimedSequence)
}

/** Runs commands on both executors; the first difference, described, or null. */
export async function runTimedSequence(
  memory: Executor,
  redis: Executor,
  commands: readonly Command[],
  relax: DiffCase['relax'] = {},
): Promise<string | null> {
  for (let i = 0; i < commands.length; i++) {
    const [ours, theirs] = await Promise.all([memory.exec(commands[i]), redis.exec(commands[i])])
    const timing = timingOf(commands[i])
    const difference = timing !== undefined ? compareTimed(ours, theirs, timing) : compareReplies(ours, theirs, relax[i])
    if (difference !== null) return `command ${i}: ${showCommand(commands[i])}\n${difference}`
  }
  return null
}

export function showCommand(command: Command): string {
  return command
    .map((arg) => (typeof arg === 'string' ? (arg.length > 60 ? `${arg.slice(0, 60)}…(${arg.length})` : arg) : `<${Buffer.from(arg).toString('hex')}>`))
    .join(' ')
}
