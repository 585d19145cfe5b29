import { describe, expect, test } from 'vitest'
import type { Command, Reply } from '../../src/reply.js'
import type { Executor } from '../../src/executor/executor.js'
import { handlers } from '../../src/executor/memory/commands/index.js'
import { describeDifferential, runDifferential, showReply } from './harness.js'
import { genericCases, sortZsetCases } from './generic.cases.js'

runDifferential('generic', genericCases)

describe.skipIf(!handlers.has('zadd'))('SORT of sorted sets (runs once the zset family exists)', () => {
  runDifferential('generic: SORT of sorted sets', sortZsetCases)
})

/**
 * SCAN's cursors and batch boundaries are not comparable with Redis's (its order is hash order),
 * so full iterations are compared instead: the union of what a whole iteration returns, with the
 * same MATCH / TYPE / COUNT, on both executors, also while keys come and go between calls.
 */
describeDifferential('SCAN full iterations', (live) => {
  /** Runs a command on both executors and checks the replies agree. */
  async function both(command: Command): Promise<void> {
    const [ours, theirs] = await live.both(command)
    expect(showReply(ours), command.join(' ')).toBe(showReply(theirs))
  }

  /** One full SCAN iteration; `between` runs after each call (both executors get the same writes). */
  async function iterate(executor: Executor, options: string[], between?: (step: number) => Promise<void>): Promise<Set<string>> {
    const seen = new Set<string>()
    let cursor = '0'
    let step = 0
    do {
      const reply = (await executor.exec(['SCAN', cursor, ...options])) as Reply[]
      cursor = Buffer.from(reply[0] as Uint8Array).toString()
      for (const key of reply[1] as Uint8Array[]) seen.add(Buffer.from(key).toString())
      if (between !== undefined) await between(step++)
      expect(step).toBeLessThan(100_000)
    } while (cursor !== '0')
    return seen
  }

  async function populate(): Promise<void> {
    for (let i = 0; i < 300; i++) {
      await both(['SET', `str:${i}`, 'v'])
      if (i % 3 === 0) await both(['RPUSH', `list:${i}`, 'a'])
      if (i % 5 === 0) await both(['SADD', `set:${i}`, 'a'])
    }
  }

  const sorted = (keys: Set<string>) => [...keys].sort()

  for (const options of [[], ['COUNT', '7'], ['MATCH', 'list:*'], ['MATCH', 'str:1?', 'COUNT', '3'], ['TYPE', 'set'], ['TYPE', 'list', 'MATCH', '*5*', 'COUNT', '50']]) {
    test(`a full iteration with [${options.join(' ')}] returns the same keys`, async () => {
      await populate()
      const ours = await iterate(live.memory, options)
      const theirs = await iterate(live.redis, options)
      expect(sorted(ours)).toEqual(sorted(theirs))
      expect(ours.size).toBeGreaterThan(0)
    })
  }

  test('KEYS agrees with Redis on 400 random glob patterns over binary keys', async () => {
    // A fixed-seed generator, so a failure names a reproducible pattern.
    let seed = 0x2545f491
    const random = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
      return (seed >>> 8) % n
    }
    const keyBytes = ['a', 'b', 'A', '-', ']', '^', '\\', '*', '?', '[', '\xff', '\x80', '\x00', 'z']
    const patternBytes = [...keyBytes, '*', '*', '?', '[', '[', ']', '^', '-', '\\']
    const text = (alphabet: string[], max: number) =>
      Array.from({ length: random(max + 1) }, () => alphabet[random(alphabet.length)]).join('')
    const keys = new Set<string>([''])
    while (keys.size < 60) keys.add(text(keyBytes, 5))
    for (const key of keys) await both(['SET', Buffer.from(key, 'latin1'), '1'])
    const asSet = (reply: Reply) => (reply as Uint8Array[]).map((key) => Buffer.from(key).toString('latin1')).sort()
    for (let i = 0; i < 400; i++) {
      const pattern = Buffer.from(text(patternBytes, 8), 'latin1')
      const [ours, theirs] = await live.both(['KEYS', pattern])
      expect(asSet(ours), `KEYS ${JSON.stringify(pattern.toString('latin1'))}`).toEqual(asSet(theirs))
    }
  })

  test('keys present for the whole iteration are returned despite inserts and deletes between calls', async () => {
    await populate()
    const stable = new Set<string>()
    for (let i = 0; i < 300; i++) if (i % 2 === 0) stable.add(`str:${i}`)
    // Odd string keys are deleted as the iteration goes, new keys are added.
    const churn = (executor: Executor) => async (step: number) => {
      for (let j = 0; j < 5; j++) {
        const victim = 2 * (step * 5 + j) + 1
        if (victim < 300) await executor.exec(['DEL', `str:${victim}`])
        await executor.exec(['SET', `new:${step}:${j}`, 'v'])
      }
    }
    const ours = await iterate(live.memory, ['COUNT', '10', 'MATCH', 'str:*'], churn(live.memory))
    const theirs = await iterate(live.redis, ['COUNT', '10', 'MATCH', 'str:*'], churn(live.redis))
    for (const key of stable) {
      expect(ours.has(key), `memory missed ${key}`).toBe(true)
      expect(theirs.has(key), `redis missed ${key}`).toBe(true)
    }
  })
})
