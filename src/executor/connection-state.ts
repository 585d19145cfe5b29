import { ReplyError, type Arg, type Command } from '../reply.js'
import { asBuffer } from '../resp/protocol.js'

/**
 * Commands that change the state of the connection they run on (its protocol, transaction,
 * subscription or reply mode), or make one command answer with several replies. An executor
 * call has no connection of its own, so both executors refuse them alike with
 * `ERR Command is not available`; `CallContext`, `transaction()`, `subscribe()` and `monitor()`
 * are the ways to get what they do. SELECT and AUTH are handled by each executor.
 */
const CONNECTION_STATE = new Set([
  'hello', 'multi', 'exec', 'discard', 'watch', 'unwatch', 'reset', 'quit', 'monitor', 'sync', 'psync',
  'subscribe', 'psubscribe', 'ssubscribe', 'unsubscribe', 'punsubscribe', 'sunsubscribe',
])
const CONNECTION_STATE_CLIENT = new Set(['reply', 'tracking', 'setname', 'setinfo', 'caching', 'no-evict', 'no-touch'])

/** One command word as text: bytes as latin1, one char per byte. */
function text(arg: Arg): string {
  return typeof arg === 'string' ? arg : asBuffer(arg).toString('latin1')
}

const CHECKED_NAMES = [...CONNECTION_STATE, 'client']
/** The names above and CLIENT, by length. */
const NAMES_BY_LENGTH: readonly (readonly string[])[] = Array.from(
  { length: Math.max(...CHECKED_NAMES.map((name) => name.length)) + 1 },
  (_, length) => CHECKED_NAMES.filter((name) => name.length === length),
)
/** By length, a bit mask of the first letters of those names (bit 0 for `a`). */
const FIRST_LETTERS_BY_LENGTH: readonly number[] = NAMES_BY_LENGTH.map((names) =>
  names.reduce((mask, name) => mask | (1 << (name.charCodeAt(0) - 97)), 0),
)

/**
 * The name of the list above (or `client`) that `word` spells in any case, or undefined. Compared
 * in place, without a lowercase copy: most command names already differ in length or first
 * letter. Comparing ASCII letters case-insensitively is what `toLowerCase` would do here, as no
 * other char lowercases to an ASCII letter of these names.
 */
function checkedName(word: string): string | undefined {
  const length = word.length
  if (length >= NAMES_BY_LENGTH.length) return undefined
  const letter = (word.charCodeAt(0) | 0x20) - 97
  if (letter < 0 || letter > 25 || (FIRST_LETTERS_BY_LENGTH[length] & (1 << letter)) === 0) return undefined
  for (const name of NAMES_BY_LENGTH[length]) if (spellsInAnyCase(word, name)) return name
  return undefined
}

/** True when `word` is the lowercase letters of `name`, each in either case. */
function spellsInAnyCase(word: string, name: string): boolean {
  for (let i = 0; i < name.length; i++) if ((word.charCodeAt(i) | 0x20) !== name.charCodeAt(i)) return false
  return true
}

/** The refusal of a connection-state command, or null for any other command. */
export function connectionStateRefusal(command: Command): ReplyError | null {
  if (command.length === 0) return null
  const name = checkedName(text(command[0]))
  if (name === undefined) return null
  if (name !== 'client') return notAvailable(name)
  const subcommand = command.length > 1 ? text(command[1]).toLowerCase() : ''
  return CONNECTION_STATE_CLIENT.has(subcommand) ? notAvailable(`client|${subcommand}`) : null
}

/**
 * Whether the command of full name `name` (`get`, `client|setname`) may be refused by
 * {@link connectionStateRefusal}: false means it never is, whatever its arguments.
 */
export function mayChangeConnectionState(name: string): boolean {
  return CONNECTION_STATE.has(name) || name.startsWith('client|') || name === 'client'
}

/** `ERR Command is not available: '<name>'`, the protocol's text for a refused command. */
export function notAvailable(name: string): ReplyError {
  return new ReplyError(`ERR Command is not available: '${name}'`)
}
