/**
 * Server-wide state the server family keeps beside the engine (one per engine): the run id and
 * the time of the last SAVE. Counters live in `engine.stats`, where dispatch updates them.
 */
import type { Engine } from '../../engine.js'

export interface ServerState {
  /** 40 hex characters, fixed for the engine's life (INFO run_id). */
  readonly runId: string
  /** Seconds since the epoch of the last SAVE; the start time until one runs (LASTSAVE). */
  lastSave: number
}

const states = new WeakMap<Engine, ServerState>()

export function serverState(engine: Engine): ServerState {
  let state = states.get(engine)
  if (state === undefined) {
    state = { runId: randomHex(40), lastSave: Math.floor(engine.stats.startedAt / 1000) }
    states.set(engine, state)
  }
  return state
}

function randomHex(length: number): string {
  let out = ''
  for (let i = 0; i < length; i++) out += Math.floor(Math.random() * 16).toString(16)
  return out
}

/** CONFIG RESETSTAT: zeroes what Redis's resetServerStats zeroes. */
export function resetStats(engine: Engine): void {
  const stats = engine.stats
  stats.commandsProcessed = 0
  stats.connectionsReceived = 0
  stats.errorReplies = 0
  stats.errorCodes.clear()
  // Zeroed in place, as Redis's resetCommandTableStats does: the running command (CONFIG
  // RESETSTAT itself) holds its counters and still counts its own call.
  for (const counters of stats.commands.values()) {
    counters.calls = 0
    counters.usec = 0
    counters.timedCalls = 0
    counters.rejectedCalls = 0
    counters.failedCalls = 0
  }
  for (const db of engine.databases) db.expiredCount = 0
  engine.evictor.evictedKeys = 0
}
