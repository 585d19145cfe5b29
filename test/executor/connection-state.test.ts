import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { ReplyError } from '../../src/reply.js'
import type { Executor } from '../../src/executor/executor.js'
import { executorsUnderTest } from '../support/executors.js'

const refused = [['MULTI'], ['EXEC'], ['WATCH', 'k'], ['UNWATCH'], ['DISCARD'], ['RESET'], ['HELLO', '2'], ['QUIT'], ['MONITOR'], ['SUBSCRIBE', 'c'], ['PSUBSCRIBE', 'c*'], ['UNSUBSCRIBE'], ['CLIENT', 'SETNAME', 'x'], ['CLIENT', 'REPLY', 'OFF']]
/** The same commands in mixed case: names are case-insensitive. */
const refusedMixedCase = [['mUlTi'], ['Exec'], ['sUbScRiBe', 'c'], ['Sync'], ['pSync', '?', '-1'], ['Client', 'SetName', 'x']]
/** Commands whose names share a length and first letter with a refused one, and CLIENT subcommands that are fine. */
const accepted = [['SADD', 's', 'm'], ['HSET', 'h', 'f', 'v'], ['MGET', 'k'], ['ECHO', 'e'], ['PUBLISH', 'c', 'm'], ['CLIENT', 'GETNAME']]

for (const entry of executorsUnderTest()) {
  describe.skipIf(entry.skipReason !== null)(`connection-state commands over the ${entry.name} executor`, () => {
    let executor: Executor
    let release: () => Promise<void>
    beforeAll(async () => {
      ;({ executor, release } = await entry.create())
    })
    afterAll(() => release())

    test.each(refused.map((command) => [command.join(' '), command] as const))('%s is refused with the protocol error', async (_name, command) => {
      const name = command[0].toLowerCase() === 'client' ? `client|${command[1].toLowerCase()}` : command[0].toLowerCase()
      const expected = `ERR Command is not available: '${name}'`
      expect(await executor.exec(command)).toEqual(new ReplyError(expected))
      expect(await executor.pipeline([['PING'], command])).toEqual([expect.anything(), new ReplyError(expected)])
      expect(await executor.transaction([['PING'], command])).toEqual(new ReplyError(expected))
    })

    test.each(refusedMixedCase.map((command) => [command.join(' '), command] as const))('%s is refused under its lowercase name', async (_name, command) => {
      const name = command[0].toLowerCase() === 'client' ? `client|${command[1].toLowerCase()}` : command[0].toLowerCase()
      expect(await executor.exec(command)).toEqual(new ReplyError(`ERR Command is not available: '${name}'`))
    })

    test('a command name given as bytes is refused the same way', async () => {
      expect(await executor.exec([Buffer.from('Multi')])).toEqual(new ReplyError("ERR Command is not available: 'multi'"))
      expect(await executor.exec([Buffer.from('CLIENT'), Buffer.from('TRACKING'), 'on'])).toEqual(
        new ReplyError("ERR Command is not available: 'client|tracking'"),
      )
    })

    test.each(accepted.map((command) => [command.join(' '), command] as const))('%s runs', async (_name, command) => {
      expect(await executor.exec(command)).not.toBeInstanceOf(ReplyError)
    })
  })
}
