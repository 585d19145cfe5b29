import { describe, expect, test } from 'vitest'
import { Status } from '../../src/reply.js'
import { MemoryExecutor } from '../../src/executor/memory/memory-executor.js'
import { runDifferential } from './harness.js'
import { dumpCases, RESTORING_CASES } from './dump.cases.js'

runDifferential('dump', dumpCases)

describe('dump cases that must restore', () => {
  for (const entry of dumpCases.filter((candidate) => RESTORING_CASES.has(candidate.name))) {
    test(entry.name, () => {
      const executor = new MemoryExecutor({ activeExpiryInterval: 0 })
      for (const command of entry.commands) {
        const reply = executor.execSync(command)
        if (String(command[0]).toUpperCase() === 'RESTORE') expect(reply).toEqual(new Status('OK'))
      }
      void executor.close()
    })
  }
})
