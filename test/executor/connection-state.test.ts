import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { ReplyError } from '../../src/reply.js'
import type { Executor } from '../../src/executor/executor.js'
import { executorsUnderTest } from '../support/executors.js'

const refused = [['MULTI'], ['EXEC'], ['WATCH', 'k'], ['UNWATCH'], ['DISCARD'], ['RESET'], ['HELLO', '2'], ['QUIT'], ['MONITOR'], ['SUBSCRIBE', 'c'], ['PSUBSCRIBE', 'c*'], ['UNSUBSCRIBE'], ['CLIENT', 'SETNAME', 'x'], ['CLIENT', 'REPLY', 'OFF']]

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
  })
}
