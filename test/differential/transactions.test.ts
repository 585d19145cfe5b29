import { expect, test } from 'vitest'
import type { Executor } from '../../src/executor/executor.js'
import { ReplyError, type Command, type Reply } from '../../src/reply.js'
import { commandCalls, compareReplies, describeDifferential, runSequence, showReply } from './harness.js'
import { transactionCases, type TransactionCase } from './transactions.cases.js'

function text(reply: Reply): string {
  return Buffer.from(reply as Uint8Array).toString('latin1')
}

/** Runs one case on both executors; a description of the first difference, or null. */
async function runCase(memory: Executor, redis: Executor, entry: TransactionCase): Promise<string | null> {
  const setup = await runSequence(memory, redis, entry.setup ?? [])
  if (setup !== null) return `setup: ${setup}`
  const [ours, theirs] = await Promise.all([memory.transaction(entry.transaction), redis.transaction(entry.transaction)])
  if (ours instanceof ReplyError || theirs instanceof ReplyError || !Array.isArray(ours) || !Array.isArray(theirs)) {
    const difference = compareReplies(ours as Reply, theirs as Reply)
    if (difference !== null) return `transaction:\n${difference}`
  } else {
    if (ours.length !== theirs.length) return `transaction: ${ours.length} replies, redis ${theirs.length}\nmemory ${showReply(ours)}\nredis  ${showReply(theirs)}`
    for (let i = 0; i < ours.length; i++) {
      const difference = compareReplies(ours[i], theirs[i], entry.relax?.[i])
      if (difference !== null) return `transaction slot ${i}: ${entry.transaction[i].join(' ')}\n${difference}`
    }
  }
  const after = await runSequence(memory, redis, entry.after ?? [])
  return after === null ? null : `after: ${after}`
}

describeDifferential('transactions', (live) => {
  for (const entry of transactionCases) {
    test(entry.name, async () => {
      const difference = await runCase(live.memory, live.redis, entry)
      expect(difference, difference ?? '').toBeNull()
    })
  }

  test('INFO commandstats and errorstats count MULTI, EXEC, rejected and failed commands as Redis does', async () => {
    const blocks: Command[][] = [
      [['SET', 'a', '1'], ['GET'], ['SAVE']],
      [['SET', 'a', 'x'], ['INCR', 'a']],
      [['NOSUCH']],
    ]
    await live.both(['CONFIG', 'RESETSTAT'])
    for (const block of blocks) await Promise.all([live.memory.transaction(block), live.redis.transaction(block)])
    const [ourErrors, theirErrors] = await live.both(['INFO', 'errorstats'])
    expect(text(ourErrors)).toBe(text(theirErrors))
    const [ours, theirs] = await live.both(['INFO', 'commandstats'])
    expect(commandCalls(ours)).toEqual(commandCalls(theirs))
  })
})
