import { afterEach, describe, expect, test } from 'vitest'
import { MemoryExecutor, toReply } from '../../../src/executor/memory/memory-executor.js'
import { ReplyError, type Reply } from '../../../src/reply.js'
import { closeEngines, engineSession, plain, START, type Plain } from '../../support/engine.js'

/**
 * Transaction semantics that a live comparison cannot pin down: the single time snapshot of a
 * block (Redis caches the time for EXEC's nested calls, see `call()` and `keyIsExpired` in
 * server.c / db.c), expiry at the block's edges, and what the engine refuses at queue time.
 */

/** An engine whose clock moves `step` ms every time it is read. */
function setup(step = 0) {
  const under = engineSession({ step })
  const { engine, session } = under
  return {
    engine,
    session,
    run: under.run,
    multi: (...commands: string[][]): Plain => {
      const replies = engine.transaction(session, commands)
      return replies instanceof ReplyError ? { error: replies.message } : replies.map((reply) => plain(toReply(reply)))
    },
    setNow: (ms: number) => (under.now = ms),
  }
}

afterEach(closeEngines)

describe('one time snapshot per transaction', () => {
  test('a key that is live when the block starts stays live to its end, even as the clock moves', () => {
    const { run, multi, setNow } = setup(40)
    setNow(START)
    run('SET', 'k', 'v', 'PX', '100')
    expect(multi(['GET', 'k'], ['GET', 'k'], ['GET', 'k'], ['PTTL', 'k'], ['GET', 'k'])).toEqual(['v', 'v', 'v', 60, 'v'])
    // Outside a transaction each command reads the clock (40 ms per read here): the key expires
    // between two of them.
    setNow(START)
    run('SET', 'k', 'v', 'PX', '100')
    expect([run('GET', 'k'), run('GET', 'k'), run('GET', 'k')]).toEqual(['v', 'v', null])
  })

  test('a key already expired when the block starts is gone for every command of it', () => {
    const { run, multi, setNow } = setup()
    setNow(START)
    run('SET', 'k', 'v', 'PX', '100')
    // Redis expires a key once the time is past its deadline (now > when).
    setNow(START + 101)
    expect(multi(['EXISTS', 'k'], ['SET', 'k', 'new', 'NX'], ['GET', 'k'], ['TTL', 'k'])).toEqual([0, 'OK', 'new', -1])
  })

  test('TIME inside a block reports the block time for every slot', () => {
    const { multi } = setup(7)
    const [first, second] = multi(['TIME'], ['TIME']) as Plain[]
    expect(first).toEqual(second)
  })
})

describe('queue-time refusals discard the block', () => {
  test('nothing runs, and every queued command is still checked and counted', () => {
    const { run, multi } = setup()
    run('SET', 'a', 'before')
    expect(multi(['SET', 'a', 'inside'], ['GET'], ['NOSUCH'], ['SAVE'], ['INCR', 'a'])).toEqual({
      error: 'EXECABORT Transaction discarded because of previous errors.',
    })
    expect(run('GET', 'a')).toBe('before')
    expect(run('INFO', 'errorstats')).toBe('# Errorstats\r\nerrorstat_ERR:count=3\r\nerrorstat_EXECABORT:count=1\r\n')
    const stats = run('INFO', 'commandstats') as string
    // GET ran once after the block (above); its arity error inside the block is a rejected call.
    expect(stats).toMatch(/cmdstat_get:calls=1,usec=\d+,usec_per_call=[\d.]+,rejected_calls=1,failed_calls=0/)
    expect(stats).toMatch(/cmdstat_save:calls=0,usec=0,usec_per_call=0\.00,rejected_calls=1,failed_calls=0/)
    expect(stats).toMatch(/cmdstat_exec:calls=1,usec=0,usec_per_call=0\.00,rejected_calls=0,failed_calls=1/)
    expect(stats).toMatch(/cmdstat_multi:calls=1,/)
    // Only the SET before the block ran.
    expect(stats).toMatch(/cmdstat_set:calls=1,/)
  })

  test('transaction control commands inside a block are refused: the block is the transaction', () => {
    const { multi } = setup()
    for (const control of [['MULTI'], ['EXEC'], ['DISCARD'], ['WATCH', 'a']]) {
      expect(multi(['SET', 'a', '1'], control)).toEqual({ error: 'EXECABORT Transaction discarded because of previous errors.' })
    }
  })

  test('runtime errors stay in their slot; MULTI and EXEC count as commands processed', () => {
    const { run, multi } = setup()
    expect(multi(['SET', 'a', 'x'], ['INCR', 'a'], ['APPEND', 'a', 'y'])).toEqual(['OK', { error: 'ERR value is not an integer or out of range' }, 2])
    const stats = run('INFO', 'stats') as string
    expect(stats).toMatch(/total_commands_processed:5\r\n/)
  })
})

describe('MemoryExecutor.transaction', () => {
  test('runs a block on one session: SELECT applies to the rest of the block', async () => {
    const executor = new MemoryExecutor({ activeExpiryInterval: 0 })
    try {
      const replies = await executor.transaction([['SELECT', '2'], ['SET', 'k', 'two'], ['SELECT', '0'], ['GET', 'k']])
      expect((replies as Reply[]).map(plain)).toEqual(['OK', 'OK', 'OK', null])
      expect(plain(await executor.exec(['GET', 'k'], { db: 2 }))).toBe('two')
    } finally {
      await executor.close()
    }
  })

  test('MONITOR sees MULTI, the commands, then EXEC', async () => {
    const executor = new MemoryExecutor({ activeExpiryInterval: 0 })
    const lines: string[] = []
    const controller = new AbortController()
    const watching = executor.monitor((event) => lines.push(event.line), controller.signal)
    try {
      await executor.transaction([['SET', 'a', '1'], ['GET', 'a']])
      const shown = lines.map((line) => line.slice(line.indexOf(']') + 2).toLowerCase())
      expect(shown).toEqual(['"multi"', '"set" "a" "1"', '"get" "a"', '"exec"'])
    } finally {
      controller.abort()
      await watching
      await executor.close()
    }
  })
})
