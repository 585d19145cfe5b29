/**
 * What a queue process killed mid-delivery leaves in its state: each message it was delivering
 * holds a lease (its `lock:msg:` key, and a due time moved to the lease end), and a run it was
 * changing may hold its short `lock:run:` key. Over a shared Redis they must wait for their
 * expiry, since another process may still be delivering. When the state is this process's own
 * (the in-memory engine, loaded from its data directory) no earlier holder is alive: the messages
 * are due again at once and the locks are dropped, so a restart resumes without waiting out the
 * lease. Delivery stays at least once: the endpoint may already have run the interrupted step.
 */
import type { Command, Reply } from '../reply.js'
import type { AttemptLog, QueueStore } from './store.js'

/** Escapes Redis glob characters, so a prefix matches only itself. */
function globLiteral(text: string): string {
  return text.replace(/[*?[\]\\]/g, (character) => `\\${character}`)
}

function decode(reply: Reply): string {
  return reply instanceof Uint8Array ? Buffer.from(reply).toString('utf8') : String(reply)
}

/** Every key of the store under `lock:` (SCAN: the keyspace is walked once, at start). */
async function lockKeys(store: QueueStore): Promise<string[]> {
  const pattern = `${globLiteral(store.prefix)}lock:*`
  const keys: string[] = []
  let cursor = '0'
  do {
    const reply = await store.call(['SCAN', cursor, 'MATCH', pattern, 'COUNT', '1000'])
    const [next, batch] = reply as [Reply, Reply[]]
    cursor = decode(next)
    for (const key of batch) keys.push(decode(key))
  } while (cursor !== '0')
  return keys
}

/** Commands that make message `id`, claimed by a process that is gone, due at `now`. */
function releaseCommands(store: QueueStore, id: string, attempt: number, claimedBy: string | undefined, now: number): Command[] {
  const log: AttemptLog = { attempt, at: now, outcome: 'recovered', error: 'the queue process stopped during this delivery; delivering it again', by: claimedBy }
  return [
    ['ZADD', store.dueKey, 'XX', String(now), id],
    ['HSET', store.messageKey(id), 'state', 'pending', 'dueAt', String(now)],
    ['HDEL', store.messageKey(id), 'claimedBy'],
    ['RPUSH', store.logKey(id), JSON.stringify(log)],
    ['LTRIM', store.logKey(id), '-50', '-1'],
    ['DEL', store.messageLockKey(id)],
  ]
}

/**
 * Releases the leases and run locks an earlier process left in `store`, which no other live
 * process may share; returns the ids of the messages that are due again.
 */
export async function releaseAbandonedLeases(store: QueueStore, now = Date.now()): Promise<string[]> {
  const messageLocks = `${store.prefix}lock:msg:`
  const runLocks = `${store.prefix}lock:run:`
  const released: string[] = []
  for (const key of await lockKeys(store)) {
    if (key.startsWith(runLocks)) {
      await store.call(['DEL', key])
      continue
    }
    if (!key.startsWith(messageLocks)) continue
    const id = key.slice(messageLocks.length)
    const [state, retried, claimedBy] = (await store.call(['HMGET', store.messageKey(id), 'state', 'retried', 'claimedBy'])) as Reply[]
    if (state !== null && decode(state) === 'delivering') {
      await store.multi(releaseCommands(store, id, retried === null ? 0 : Number(decode(retried)), claimedBy === null ? undefined : decode(claimedBy), now))
      released.push(id)
    } else {
      // a lease whose attempt was settled (the settling transaction drops it too): nothing to redo
      await store.call(['DEL', key])
    }
  }
  return released
}
