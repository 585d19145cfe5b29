/**
 * Which commands the REST protocol runs over its plain command endpoints (single command,
 * pipeline, transaction): the protocol's rule, worked out from what the command table says of
 * each command (group, `blocking` flag).
 */
import type { Command } from '../reply.js'
import { isBlocking, type CommandInfo } from '../commands/lookup.js'

/** Result of {@link restAvailability}. @public */
export type RestAvailability = 'ok' | 'unavailable'

/** Pub/Sub commands the REST protocol runs over plain command endpoints (source spec: PUBLISH, PUBSUB; plus SPUBLISH). */
const REST_PUBSUB_COMMANDS: ReadonlySet<string> = new Set(['publish', 'pubsub', 'spublish'])
/** Connection commands the REST protocol runs (source spec: "Only PING and ECHO are supported"). */
const REST_CONNECTION_COMMANDS: ReadonlySet<string> = new Set(['ping', 'echo'])
/** Streams with their own endpoints (`/monitor`, `/subscribe`, `/psubscribe`), not plain commands. */
const REST_STREAM_COMMANDS: ReadonlySet<string> = new Set(['monitor', 'subscribe', 'psubscribe', 'ssubscribe'])

/**
 * Whether the REST protocol runs this command over its plain command endpoints (single command,
 * pipeline, transaction). `unavailable` (→ `ERR Command is not available: '<cmd>'`) for:
 * blocking commands (see {@link isBlocking}; pass `command` so XREAD without BLOCK stays
 * available); the `transactions` group (WATCH, UNWATCH, DISCARD, and MULTI/EXEC, which only
 * `/multi-exec` provides); the `pubsub` group except PUBLISH, PUBSUB (all subcommands) and
 * SPUBLISH; the `connection` group except PING and ECHO; the `cluster` group; MONITOR and the
 * SUBSCRIBE family, which have their own endpoints.
 * @public
 */
export function restAvailability(info: CommandInfo, command?: Command): RestAvailability {
  if (isBlocking(info, command)) return 'unavailable'
  const root = info.parent ?? info
  switch (info.group) {
    case 'transactions':
    case 'cluster':
      return 'unavailable'
    case 'connection':
      return REST_CONNECTION_COMMANDS.has(root.name) ? 'ok' : 'unavailable'
    case 'pubsub':
      return REST_PUBSUB_COMMANDS.has(root.name) ? 'ok' : 'unavailable'
  }
  return REST_STREAM_COMMANDS.has(root.name) ? 'unavailable' : 'ok'
}
