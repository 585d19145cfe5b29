/**
 * Keyspace notifications (https://redis.io/docs/manual/keyspace-notifications/), as Redis 7.0's
 * `notify.c`: `notify-keyspace-events` selects classes of events; each event a command reports
 * is published on `__keyspace@<db>__:<key>` (message: the event) and on
 * `__keyevent@<db>__:<event>` (message: the key) through the engine's pub/sub hub, so RESP
 * subscribers and REST `/subscribe` streams receive them alike.
 *
 * Commands report their events where Redis calls `notifyKeyspaceEvent`, in the same order;
 * `new`, `expired` and `evicted` come from the keyspace itself (a key added, a TTL passed, a key
 * evicted). With notifications off (the default) a report costs one bitwise test.
 */
import type { CommandContext } from './command.js'
import type { PubSub } from './pubsub.js'

/** Event classes, with Redis's bit values (`server.h` NOTIFY_*). */
export const NOTIFY_KEYSPACE = 1 << 0
export const NOTIFY_KEYEVENT = 1 << 1
export const NOTIFY_GENERIC = 1 << 2
export const NOTIFY_STRING = 1 << 3
export const NOTIFY_LIST = 1 << 4
export const NOTIFY_SET = 1 << 5
export const NOTIFY_HASH = 1 << 6
export const NOTIFY_ZSET = 1 << 7
export const NOTIFY_EXPIRED = 1 << 8
export const NOTIFY_EVICTED = 1 << 9
export const NOTIFY_STREAM = 1 << 10
export const NOTIFY_KEY_MISS = 1 << 11
export const NOTIFY_MODULE = 1 << 13
export const NOTIFY_NEW = 1 << 14
/** `A`: every class but `m` (key misses) and `n` (new keys), as Redis defines it. */
export const NOTIFY_ALL =
  NOTIFY_GENERIC | NOTIFY_STRING | NOTIFY_LIST | NOTIFY_SET | NOTIFY_HASH | NOTIFY_ZSET | NOTIFY_EXPIRED | NOTIFY_EVICTED | NOTIFY_STREAM | NOTIFY_MODULE

const CLASS_BY_CHAR: ReadonlyMap<string, number> = new Map([
  ['A', NOTIFY_ALL], ['g', NOTIFY_GENERIC], ['$', NOTIFY_STRING], ['l', NOTIFY_LIST], ['s', NOTIFY_SET],
  ['h', NOTIFY_HASH], ['z', NOTIFY_ZSET], ['x', NOTIFY_EXPIRED], ['e', NOTIFY_EVICTED], ['K', NOTIFY_KEYSPACE],
  ['E', NOTIFY_KEYEVENT], ['t', NOTIFY_STREAM], ['m', NOTIFY_KEY_MISS], ['d', NOTIFY_MODULE], ['n', NOTIFY_NEW],
])

/** The classes CONFIG GET lists one by one when not all of `A` is set, in Redis's order. */
const SHOWN_CLASSES: readonly (readonly [string, number])[] = [
  ['g', NOTIFY_GENERIC], ['$', NOTIFY_STRING], ['l', NOTIFY_LIST], ['s', NOTIFY_SET], ['h', NOTIFY_HASH],
  ['z', NOTIFY_ZSET], ['x', NOTIFY_EXPIRED], ['e', NOTIFY_EVICTED], ['t', NOTIFY_STREAM], ['d', NOTIFY_MODULE],
  ['n', NOTIFY_NEW],
]

/** The flags a `notify-keyspace-events` value selects, or null for a character Redis refuses. */
export function parseEventClasses(text: string): number | null {
  let flags = 0
  for (const char of text) {
    const flag = CLASS_BY_CHAR.get(char)
    if (flag === undefined) return null
    flags |= flag
  }
  return flags
}

/**
 * The value CONFIG GET shows for `flags` (Redis's `keyspaceEventsFlagsToString`): `A` when the
 * whole set is on (then `n` is not shown even when set), else each class, then `K`, `E`, `m`.
 */
export function formatEventClasses(flags: number): string {
  let text = ''
  if ((flags & NOTIFY_ALL) === NOTIFY_ALL) text = 'A'
  else for (const [char, flag] of SHOWN_CLASSES) if (flags & flag) text += char
  if (flags & NOTIFY_KEYSPACE) text += 'K'
  if (flags & NOTIFY_KEYEVENT) text += 'E'
  if (flags & NOTIFY_KEY_MISS) text += 'm'
  return text
}

/** Where the engine's events go: the classes selected and the hub they are published through. */
export class KeyspaceNotifier {
  /**
   * The selected classes, 0 when off. Set only through {@link KeyspaceNotifier.configure}: `n`
   * is not visible in the configuration's text once `A` is set, so the flags are kept here.
   */
  flags = 0

  constructor(private readonly pubsub: PubSub) {}

  /** Applies a `notify-keyspace-events` value; false when it holds a character Redis refuses. */
  configure(text: string): boolean {
    const flags = parseEventClasses(text)
    if (flags === null) return false
    this.flags = flags
    return true
  }

  /** True when events of class `type` are published. */
  wants(type: number): boolean {
    return (this.flags & type) !== 0
  }

  /** Publishes `event` about `key` of database `db` when its class `type` is selected. */
  emit(type: number, event: string, key: string, db: number): void {
    const flags = this.flags
    if ((flags & type) === 0) return
    // Nobody listens to any channel or pattern: the messages would reach no one.
    const audience = this.pubsub.size
    if (audience.channels === 0 && audience.patterns === 0) return
    if (flags & NOTIFY_KEYSPACE) this.pubsub.publish(`__keyspace@${db}__:${key}`, event)
    if (flags & NOTIFY_KEYEVENT) this.pubsub.publish(`__keyevent@${db}__:${event}`, key)
  }
}

/**
 * Events Redis 7.0 reports without calling `signalModifiedKey` (`t_stream.c`: consumer-group
 * bookkeeping and XSETID), so they touch no WATCH. Every other event a command reports comes with
 * that call on the same key, which is why {@link notify} signals the key too.
 */
const UNSIGNALED_EVENTS: ReadonlySet<string> = new Set([
  'xgroup-create', 'xgroup-setid', 'xgroup-destroy', 'xgroup-createconsumer', 'xgroup-delconsumer', 'xsetid',
])

/**
 * Reports `event` about `key` of the command's database (Redis's `notifyKeyspaceEvent` call in a
 * command), and signals the key modified as Redis does beside it. Costs a counter and one test
 * when notifications are off and no connection watches or blocks.
 */
export function notify(ctx: CommandContext, type: number, event: string, key: string): void {
  const engine = ctx.engine
  // Only stream events start with 'x'; the common events skip the set lookup.
  if (event.charCodeAt(0) !== 120 || !UNSIGNALED_EVENTS.has(event)) engine.keyspace.signalModified(ctx.db, key)
  const notifier = engine.notifier
  if ((notifier.flags & type) === 0) return
  notifier.emit(type, event, key, ctx.db.index)
}
