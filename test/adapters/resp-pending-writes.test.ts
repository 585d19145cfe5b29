import { describe, expect, it } from 'vitest'
import { PendingWrites, type PendingWriter } from '../../src/adapters/resp/pending-writes.js'

/** A writer that records each flush in `log` under its name. */
function writer(name: string, log: string[], onFlush?: () => void): PendingWriter {
  return {
    flushPending() {
      log.push(name)
      onFlush?.()
    },
  }
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

describe('PendingWrites', () => {
  it('writes the first connection of a turn at once, the others together after the turn, once each, in order', async () => {
    const log: string[] = []
    const pending = new PendingWrites()
    const [a, b, c] = ['a', 'b', 'c'].map((name) => writer(name, log))
    pending.add(a)
    expect(log).toEqual(['a'])
    pending.add(b)
    pending.add(c)
    pending.add(b)
    await Promise.resolve() // replies resolved by microtasks of this turn still join the burst
    expect(log).toEqual(['a'])
    await nextTurn()
    expect(log).toEqual(['a', 'b', 'c'])
    await nextTurn()
    expect(log).toEqual(['a', 'b', 'c'])
  })

  it('a new turn starts with an immediate write again', async () => {
    const log: string[] = []
    const pending = new PendingWrites()
    pending.add(writer('a', log))
    await nextTurn()
    pending.add(writer('b', log))
    expect(log).toEqual(['a', 'b'])
  })

  it('a writer added while the turn\'s writers are flushed opens the next turn: written, not lost', async () => {
    const log: string[] = []
    const pending = new PendingWrites()
    const late = writer('late', log)
    pending.add(writer('first', log))
    pending.add(writer('second', log, () => pending.add(late)))
    await nextTurn()
    expect(log).toEqual(['first', 'second', 'late'])
  })

  it('flushNow writes the waiting ones at once (a busy script holds the event loop); the end of the turn finds none left', async () => {
    const log: string[] = []
    const pending = new PendingWrites()
    pending.add(writer('a', log))
    pending.add(writer('b', log))
    pending.flushNow()
    expect(log).toEqual(['a', 'b'])
    await nextTurn()
    expect(log).toEqual(['a', 'b'])
  })
})
