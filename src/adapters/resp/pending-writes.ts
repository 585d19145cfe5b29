/**
 * When the listener's replies are written: the connections served in one turn of the event loop
 * after the first have their replies written together once every connection that was ready has
 * been read (Redis's `clients_pending_write`, written in `beforeSleep`).
 *
 * Writing each reply as soon as its command ran wakes the client once per reply: a client
 * process with many connections (redis-benchmark, a pool) goes back to sleep after each one and
 * is woken again by the next. Written together, the replies of a turn reach it in one burst. The
 * first connection of a turn is written at once: a lone client pays no wait, and the burst still
 * happens in the same turn (the event loop's check phase), after no timer and no further input.
 */
export interface PendingWriter {
  /** Writes what is ready to be written. */
  flushPending(): void
}

export class PendingWrites {
  readonly #writers = new Set<PendingWriter>()
  #turnOpen = false

  /** Writes `writer`'s replies now when it is the first of this turn, else once the turn's input is read. */
  add(writer: PendingWriter): void {
    if (this.#turnOpen) {
      this.#writers.add(writer)
      return
    }
    this.#turnOpen = true
    setImmediate(this.#endTurn)
    writer.flushPending()
  }

  /** Flushes every writer added so far, now (the event loop is held: a busy script). */
  flushNow(): void {
    const writers = [...this.#writers]
    this.#writers.clear()
    for (const writer of writers) writer.flushPending()
  }

  readonly #endTurn = (): void => {
    this.#turnOpen = false
    // A writer added while these are flushed (a reply made by another's flush) opens the next turn.
    this.flushNow()
  }
}
