import { NULL_ARRAY, ReplyError, Status } from '../../../../reply.js'
import type { CommandContext, CommandTable, Handler, Out } from '../../command.js'
import { NOTIFY_MODULE, notify } from '../../notify.js'
import { jsonArrayCommands } from './array-commands.js'
import { jsonReadCommands } from './read-commands.js'
import { jsonWriteCommands } from './write-commands.js'

/**
 * The JSON family (RedisJSON 2.x, type `ReJSON-RL`). Paths, evaluation, parsing and
 * serialization live in `lib/json/`; the document type in `types/json.ts`.
 */

/**
 * RedisJSON's keyspace events (module class `d`): once per command that changed a document, the
 * event `json.<command>` (JSON.FORGET reports `json.del`; JSON.MSET reports `json.mset` per key it
 * changed, from its handler). What counts as a change is read off the reply the way RedisJSON
 * decides it: a path that matched a value of the right type (an array for ARRAPPEND, a number for
 * NUMINCRBY, …), an element popped, a count above zero for DEL and CLEAR, OK for SET and MERGE.
 */
const EVENTS: Readonly<Record<string, string>> = {
  'json.set': 'json.set',
  'json.merge': 'json.merge',
  'json.del': 'json.del',
  'json.forget': 'json.del',
  'json.clear': 'json.clear',
  'json.toggle': 'json.toggle',
  'json.numincrby': 'json.numincrby',
  'json.nummultby': 'json.nummultby',
  'json.strappend': 'json.strappend',
  'json.arrappend': 'json.arrappend',
  'json.arrinsert': 'json.arrinsert',
  'json.arrpop': 'json.arrpop',
  'json.arrtrim': 'json.arrtrim',
}

/** Commands whose integer reply counts what they changed (0: nothing changed). */
const COUNTING: ReadonlySet<string> = new Set(['json.del', 'json.forget', 'json.clear'])

function changedDocument(name: string, reply: Out): boolean {
  if (reply === null || reply === NULL_ARRAY || reply instanceof ReplyError) return false
  if (reply instanceof Status) return true
  if (typeof reply === 'number' || typeof reply === 'bigint') return !COUNTING.has(name) || reply > 0
  if (Array.isArray(reply)) return reply.some((item) => item !== null)
  // NUMINCRBY / NUMMULTBY answer a JSON array for `$` paths (one entry per match, null for a
  // match that is not a number), a bare number for legacy paths.
  if (typeof reply === 'string' && reply.startsWith('[')) {
    try {
      return (JSON.parse(reply) as unknown[]).some((item) => item !== null)
    } catch {
      return true
    }
  }
  return true
}

/** `handler`, reporting its RedisJSON event after it changed a document. */
function reportingEvent(name: string, handler: Handler): Handler {
  return (ctx: CommandContext, argv: readonly string[]): Out => {
    const reply = handler(ctx, argv)
    if ((ctx.engine.notifier.flags & NOTIFY_MODULE) !== 0 && changedDocument(name, reply)) notify(ctx, NOTIFY_MODULE, EVENTS[name], argv[1])
    return reply
  }
}

const writeCommands: Record<string, Handler> = { ...jsonWriteCommands, ...jsonArrayCommands }
for (const name of Object.keys(EVENTS)) writeCommands[name] = reportingEvent(name, writeCommands[name])

export const jsonCommands: CommandTable = {
  ...jsonReadCommands,
  ...writeCommands,
}
