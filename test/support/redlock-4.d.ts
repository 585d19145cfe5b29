/**
 * The part of redlock 4.2.0's API the tests use (the package ships no types). Its methods return
 * bluebird promises; only their `then` is relied on here.
 */
declare module 'redlock' {
  import type { EventEmitter } from 'node:events'

  namespace Redlock {
    interface Options {
      driftFactor?: number
      retryCount?: number
      retryDelay?: number
      retryJitter?: number
    }
    interface Lock {
      readonly resource: string | string[]
      readonly value: string
      readonly expiration: number
      readonly attempts: number
      unlock(): Promise<void>
      extend(ttl: number): Promise<Lock>
    }
    class LockError extends Error {
      readonly attempts: number
    }
  }

  class Redlock extends EventEmitter {
    static readonly LockError: typeof Redlock.LockError
    constructor(clients: readonly unknown[], options?: Redlock.Options)
    lock(resource: string | string[], ttl: number): Promise<Redlock.Lock>
    unlock(lock: Redlock.Lock): Promise<void>
    extend(lock: Redlock.Lock, ttl: number): Promise<Redlock.Lock>
    quit(): Promise<unknown>
  }

  export = Redlock
}
