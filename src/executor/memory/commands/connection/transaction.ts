/**
 * WATCH and UNWATCH (Redis 7.0 `multi.c`) on a connection's session; EXEC's check of the watches
 * is `Engine.watchedTransaction`, and what touches a watched key is described in `watch.ts`.
 * Executors refuse both on calls that have no connection (`connection-state.ts`).
 */
import { OK } from '../../../../reply.js'
import type { CommandContext, Out } from '../../command.js'
import { WatchState } from '../../watch.js'

function watch(ctx: CommandContext, argv: readonly string[]): Out {
  const state = (ctx.session.watch ??= new WatchState())
  // Already doomed: watching more changes nothing.
  if (state.dirty) return OK
  for (let i = 1; i < argv.length; i++) ctx.engine.watches.watch(state, ctx.db, argv[i], ctx.now)
  return OK
}

function unwatch(ctx: CommandContext): Out {
  const state = ctx.session.watch
  if (state !== undefined) ctx.engine.watches.unwatchAll(state)
  return OK
}

export const transactionCommands = { watch, unwatch }
