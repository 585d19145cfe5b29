import { expect, test } from 'vitest'
import { MemoryExecutor } from '../../../src/executor/memory/memory-executor.js'
import { BackendUnavailableError } from '../../../src/executor/executor.js'

test('closing the executor ends running monitor and subscribe streams with BackendUnavailableError', async () => {
  const executor = new MemoryExecutor()
  const signal = new AbortController().signal
  const monitor = executor.monitor(() => {}, signal)
  const subscription = executor.subscribe({ kind: 'channel', names: ['c'] }, () => {}, signal)
  await executor.close()
  await expect(monitor).rejects.toBeInstanceOf(BackendUnavailableError)
  await expect(subscription).rejects.toBeInstanceOf(BackendUnavailableError)
})

test('a closed executor refuses new calls', async () => {
  const executor = new MemoryExecutor()
  await executor.close()
  await expect(executor.exec(['PING'])).rejects.toThrow()
})
