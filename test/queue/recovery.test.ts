/**
 * Releasing what a killed queue process left in its own state: the messages it was delivering
 * are due again at once (state, due time, attempt log), its run locks go, and a lease whose
 * attempt was already settled (or never got as far as the claim's transaction) changes nothing
 * but the lock.
 */
import { describe, expect, test } from 'vitest'
import { MemoryExecutor } from '../../src/executor/memory/memory-executor.js'
import { QueueStore, type NewMessage } from '../../src/queue/store.js'
import { releaseAbandonedLeases } from '../../src/queue/recovery.js'

const message = (dueAt: number): NewMessage => ({ kind: 'publish', url: 'http://127.0.0.1:9/x', method: 'POST', headers: {}, body: new Uint8Array([1]), retries: 3, dueAt })

describe('releaseAbandonedLeases', () => {
  test('a claimed message is due again now, pending, with a recovered log entry; run locks are dropped', async () => {
    const executor = new MemoryExecutor()
    const store = new QueueStore(executor)
    const start = Date.now()
    const { messageId: claimed } = await store.addMessage(message(start))
    const { messageId: waiting } = await store.addMessage(message(start + 3_600_000))
    expect(await store.claim(claimed, 'worker_dead', 60_000, start)).toBe(true)
    expect(await store.dueIds(start + 1000, 10)).toEqual([])
    await store.call(['SET', store.runLockKey('wfr_1'), 'token', 'PX', '10000'])

    const now = start + 5
    expect(await releaseAbandonedLeases(store, now)).toEqual([claimed])
    expect(await store.dueIds(now, 10)).toEqual([claimed])
    const record = await store.loadMessage(claimed)
    expect([record?.state, record?.dueAt, record?.claimedBy]).toEqual(['pending', now, undefined])
    expect((await store.attemptLog(claimed)).map((entry) => [entry.outcome, entry.by])).toEqual([
      ['created', undefined],
      ['recovered', 'worker_dead'],
    ])
    expect(await store.call(['EXISTS', store.messageLockKey(claimed), store.runLockKey('wfr_1')])).toBe(0)
    // the delayed message was never claimed: untouched
    expect((await store.loadMessage(waiting))?.state).toBe('pending')
    expect(Number(await store.call(['ZSCORE', store.dueKey, waiting]))).toBe(start + 3_600_000)
    // nothing left to release
    expect(await releaseAbandonedLeases(store)).toEqual([])
    await executor.close()
  })

  test('a lock without a delivering message (settled, or the claim cut short) is dropped and nothing else changes', async () => {
    const executor = new MemoryExecutor()
    const store = new QueueStore(executor, '{q*}:')
    const start = Date.now()
    const { messageId } = await store.addMessage(message(start + 60_000))
    await store.call(['SET', store.messageLockKey(messageId), 'worker_dead', 'PX', '60000'])
    // another prefix's lock is not this store's
    await store.call(['SET', 'restis:queue:lock:msg:other', 'x'])
    expect(await releaseAbandonedLeases(store)).toEqual([])
    expect(await store.call(['EXISTS', store.messageLockKey(messageId)])).toBe(0)
    expect(await store.call(['EXISTS', 'restis:queue:lock:msg:other'])).toBe(1)
    expect(Number(await store.call(['ZSCORE', store.dueKey, messageId]))).toBe(start + 60_000)
    expect((await store.attemptLog(messageId)).map((entry) => entry.outcome)).toEqual(['created'])
    await executor.close()
  })
})
