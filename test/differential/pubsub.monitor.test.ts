/**
 * MONITOR lines of the memory engine against redis-server 7.0's, both through `Executor.monitor`
 * (the socket executor's shared MONITOR connection on the Redis side). Compared: everything but
 * the timestamp and the client address (the db is kept); the timestamp's shape is checked apart.
 */
import { describe, expect, test } from 'vitest'
import type { Executor } from '../../src/executor/executor.js'
import type { Command } from '../../src/reply.js'
import { liveSuiteName, redisServerSkipReason } from '../support/redis-server.js'
import { withDifferentialExecutors } from './harness.js'
import { Collector } from './pubsub.support.js'

/** One thing a client does: a command, or a MULTI/EXEC block. */
type Action = { readonly exec: Command } | { readonly transaction: readonly Command[] }

interface MonitorCase {
  readonly name: string
  readonly actions: readonly Action[]
}

const LINE = /^(\d{10})\.(\d{6}) \[(\d+) [^\]]+\] (.*)$/s

const bin = (...bytes: number[]): Buffer => Buffer.from(bytes)

const monitorCases: MonitorCase[] = [
  {
    name: 'arguments are quoted as sdscatrepr quotes them: escapes, binary, UTF-8, NUL',
    actions: [
      { exec: ['SET', 'k', 'a"b\\c\n\r\t\x07\x08 é'] },
      { exec: ['SET', bin(0, 0x7f, 0x80, 0xff, 0x20, 0x7e), bin(0x22, 0x5c, 0x00)] },
      { exec: ['GET', 'k'] },
      { exec: ['ECHO', ''] },
      { exec: ['set', 'lower', 'Case Kept'] },
    ],
  },
  {
    name: 'runtime errors are shown; unknown commands and wrong arity are not',
    actions: [
      { exec: ['SET', 'a', 'x'] },
      { exec: ['INCR', 'a'] },
      { exec: ['LPUSH', 'a', 'x'] },
      { exec: ['NOSUCHCOMMAND', 'x'] },
      { exec: ['GET'] },
      { exec: ['GET', 'a'] },
    ],
  },
  {
    name: 'admin commands are hidden, their non-admin siblings shown',
    actions: [
      { exec: ['CONFIG', 'GET', 'maxmemory'] },
      { exec: ['CLIENT', 'ID'] },
      { exec: ['PING'] },
    ],
  },
  {
    name: 'pub/sub commands are shown',
    actions: [
      { exec: ['PUBLISH', 'ch', 'hello'] },
      { exec: ['PUBSUB', 'NUMSUB', 'ch'] },
      { exec: ['SPUBLISH', 'ch', 'x'] },
    ],
  },
  {
    name: 'a transaction shows MULTI, each command, then EXEC',
    actions: [{ transaction: [['SET', 'a', '1'], ['INCR', 'a'], ['GET', 'a']] }],
  },
  {
    name: 'a transaction with a runtime error shows every command',
    actions: [{ transaction: [['SET', 'a', 'x'], ['INCR', 'a'], ['GET', 'a']] }],
  },
  {
    name: 'a transaction refused with EXECABORT shows MULTI and EXEC only',
    actions: [{ transaction: [['SET', 'a', '1'], ['NOSUCHCOMMAND']] }],
  },
]

/** What a MONITOR line shows once the timestamp and the address are dropped: `[db] "arg" …`. */
function normalise(line: string): string {
  const match = LINE.exec(line)
  return match === null ? `unparsed: ${line}` : `[${match[3]}] ${match[4]}`
}

const BEGIN = 'restis-monitor-begin'
const END = 'restis-monitor-end'

function isMarker(line: string, marker: string): boolean {
  return line.endsWith(`"ECHO" "${marker}"`)
}

/**
 * Runs `actions` on `executor` with a monitor attached; the lines between the begin and end
 * markers. The MONITOR connection of the socket executor is live once it reports a command: the
 * probe ECHOs are repeated until one shows.
 */
async function monitorLines(executor: Executor, actions: readonly Action[]): Promise<string[]> {
  const lines = new Collector<string>()
  const controller = new AbortController()
  const watching = executor.monitor((event) => lines.push(event.line), controller.signal)
  try {
    while (lines.items.length === 0) {
      await executor.exec(['ECHO', 'restis-monitor-probe'])
      // One turn of the event loop lets a line already on its way arrive before probing again.
      await Promise.race([lines.waitFor(1), new Promise((resolve) => setImmediate(resolve))])
    }
    await executor.exec(['ECHO', BEGIN])
    await lines.waitUntil((items) => items.some((line) => isMarker(line, BEGIN)))
    for (const action of actions) {
      if ('exec' in action) await executor.exec(action.exec)
      else await executor.transaction(action.transaction)
    }
    await executor.exec(['ECHO', END])
    await lines.waitUntil((items) => items.some((line) => isMarker(line, END)))
  } finally {
    controller.abort()
    await watching
  }
  const begin = lines.items.findIndex((line) => isMarker(line, BEGIN))
  const end = lines.items.findIndex((line) => isMarker(line, END))
  return lines.items.slice(begin + 1, end)
}

describe.skipIf(redisServerSkipReason !== undefined)(liveSuiteName('MONITOR lines (differential: memory vs redis-server)'), () => {
  const live = withDifferentialExecutors({ memory: { activeExpiryInterval: 0 }, flushBeforeEach: false })

  for (const entry of monitorCases) {
    test(entry.name, async () => {
      await live.both(['FLUSHALL'])
      const ours = await monitorLines(live.memory, entry.actions)
      const theirs = await monitorLines(live.redis, entry.actions)
      for (const line of [...ours, ...theirs]) expect(line).toMatch(LINE)
      expect(ours.map(normalise)).toEqual(theirs.map(normalise))
    })
  }
})
