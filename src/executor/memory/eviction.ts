/**
 * The memory bound: `maxmemory` and its eight policies (Redis 7.0 `evict.c`).
 *
 * Before a command flagged `denyoom` runs while the dataset's estimate is over the limit, keys
 * are evicted until it is under; when the policy is `noeviction` or no key qualifies, the command
 * is refused with Redis's OOM error. As in Redis, LRU and LFU are approximated by sampling
 * `maxmemory-samples` keys per database into a pool of the best candidates seen so far (kept
 * across evictions), and evicting the best of the pool. Samples are drawn by a cursor that walks
 * each keyspace round and round (a JS Map offers no random access; the walk visits every key
 * in turn, so no key escapes sampling for long). `volatile-ttl` takes the nearest deadline off
 * the expiry heap, exact where Redis samples.
 */
import { ReplyError } from '../../reply.js'
import type { Database } from './keyspace.js'

/** What the sampler walks: a database's keys, or its keys with a TTL. */
interface KeySpace {
  readonly size: number
  keys(): Iterator<string>
}

/** The eight values of `maxmemory-policy`. @public */
export type MaxmemoryPolicy =
  | 'noeviction' | 'allkeys-lru' | 'allkeys-lfu' | 'allkeys-random'
  | 'volatile-lru' | 'volatile-lfu' | 'volatile-random' | 'volatile-ttl'

export const MAXMEMORY_POLICIES: readonly MaxmemoryPolicy[] = [
  'noeviction', 'allkeys-lru', 'allkeys-lfu', 'allkeys-random', 'volatile-lru', 'volatile-lfu', 'volatile-random', 'volatile-ttl',
]

/** Redis's reply to a `denyoom` command it cannot make room for. */
export const OOM_ERROR = new ReplyError("OOM command not allowed when used memory > 'maxmemory'.")

/** Samples are drawn 1 to this many keys apart along the walk. */
const SAMPLE_STRIDE = 8
/** EVPOOL_SIZE: candidates kept between evictions. */
const POOL_SIZE = 16

interface Candidate {
  readonly db: Database
  readonly key: string
  /** Higher is a better victim: idle seconds (LRU), 255 - counter (LFU). */
  readonly score: number
}

/** What the engine hands the evictor: its databases, its limit and a way to report evictions. */
export interface EvictionHost {
  readonly databases: readonly Database[]
  /** Estimated used memory, bytes (the same figure INFO's used_memory shows). */
  usedMemory(): number
  /** Called once per {@link Evictor.makeRoom}: lets the host refresh what usedMemory() scales by. */
  sampleMemory(): void
  /** Called for each key about to be evicted, before it is removed (snapshots write it first). */
  beforeEvict(db: Database, key: string): void
  /** Called for each evicted key, after it is gone. */
  onEvict(db: Database, key: string): void
}

export class Evictor {
  limit = 0
  policy: MaxmemoryPolicy = 'noeviction'
  samples = 5
  /** INFO's evicted_keys. */
  evictedKeys = 0
  private pool: Candidate[] = []
  private readonly walks = new WeakMap<KeySpace, Iterator<string>>()
  /** Where random policies look next, so successive evictions spread over the databases. */
  private nextDatabase = 0

  constructor(private readonly host: EvictionHost) {}

  /** True when a limit is set and the estimate exceeds it. */
  get overLimit(): boolean {
    return this.limit !== 0 && this.host.usedMemory() > this.limit
  }

  /**
   * Evicts per policy until used memory is within the limit (`performEvictions`); false when the
   * limit is still exceeded and nothing more may be evicted.
   */
  makeRoom(): boolean {
    this.host.sampleMemory()
    while (this.overLimit) {
      if (this.policy === 'noeviction') return false
      const victim = this.pick()
      if (victim === undefined) return false
      this.host.beforeEvict(victim.db, victim.key)
      victim.db.remove(victim.key)
      this.evictedKeys++
      this.host.onEvict(victim.db, victim.key)
    }
    return true
  }

  /** Forgets the candidate pool (the policy changed, or the keyspace was flushed). */
  reset(): void {
    this.pool = []
  }

  private pick(): Candidate | undefined {
    switch (this.policy) {
      case 'allkeys-random': return this.pickRandom(false)
      case 'volatile-random': return this.pickRandom(true)
      case 'volatile-ttl': return this.pickNearestDeadline()
      default: return this.pickFromPool()
    }
  }

  private get volatileOnly(): boolean {
    return this.policy.startsWith('volatile-')
  }

  /** LRU and LFU: refill the pool from every database, then take its best live candidate. */
  private pickFromPool(): Candidate | undefined {
    const volatile = this.volatileOnly
    const lfu = this.policy.endsWith('-lfu')
    for (const db of this.host.databases) {
      const space = volatile ? db.expires : db.data
      if (space.size === 0) continue
      for (let i = 0; i < this.samples; i++) {
        const key = this.sample(db, space)
        if (key === undefined) break
        const score = lfu ? 255 - db.frequency(key) : db.idleSeconds(key)
        this.offer({ db, key, score })
      }
    }
    while (this.pool.length > 0) {
      const best = this.pool.pop()!
      if (best.db.data.has(best.key) && (!volatile || best.db.expires.has(best.key))) return best
    }
    return undefined
  }

  /** Adds a candidate to the pool kept sorted by score, best last, at most {@link POOL_SIZE}. */
  private offer(candidate: Candidate): void {
    const pool = this.pool
    for (const entry of pool) if (entry.db === candidate.db && entry.key === candidate.key) return
    if (pool.length === POOL_SIZE && candidate.score <= pool[0].score) return
    let at = pool.length
    while (at > 0 && pool[at - 1].score > candidate.score) at--
    pool.splice(at, 0, candidate)
    if (pool.length > POOL_SIZE) pool.shift()
  }

  private pickRandom(volatile: boolean): Candidate | undefined {
    const databases = this.host.databases
    for (let tried = 0; tried < databases.length; tried++) {
      const db = databases[this.nextDatabase]
      this.nextDatabase = (this.nextDatabase + 1) % databases.length
      const space = volatile ? db.expires : db.data
      if (space.size === 0) continue
      const key = this.sample(db, space)
      if (key !== undefined) return { db, key, score: 0 }
    }
    return undefined
  }

  private pickNearestDeadline(): Candidate | undefined {
    let best: Candidate | undefined
    for (const db of this.host.databases) {
      const nearest = db.nearestDeadline()
      if (nearest !== undefined && (best === undefined || nearest.at < -best.score)) best = { db, key: nearest.key, score: -nearest.at }
    }
    return best
  }

  /**
   * A key a random stride further along the walk: neighbours in insertion order tend to share
   * their history (written together, read together), so consecutive keys would make a poor sample.
   */
  private sample(db: Database, space: KeySpace): string | undefined {
    const skip = Math.floor(db.shared.random() * SAMPLE_STRIDE)
    let key = this.walk(space)
    for (let i = 0; i < skip && key !== undefined; i++) key = this.walk(space)
    return key
  }

  /** The next key of the endless walk over `space` (undefined when it is empty). */
  private walk(space: KeySpace): string | undefined {
    let iterator = this.walks.get(space)
    let next = iterator?.next()
    if (next === undefined || next.done) {
      iterator = space.keys()
      this.walks.set(space, iterator)
      next = iterator.next()
    }
    return next.done ? undefined : next.value
  }
}
