import { ReplyError, type Arg, type Command } from '../reply.js'

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

function lower(arg: Arg | undefined): string {
  if (arg === undefined) return ''
  const text = typeof arg === 'string' ? arg : Buffer.from(arg.buffer, arg.byteOffset, arg.byteLength).toString('latin1')
  return text.toLowerCase()
}

/** Every name checked below in lower and upper case: most commands are spelled one way or the other. */
const SPELLED = new Set([...CONNECTION_STATE, 'client'].flatMap((name) => [name, name.toUpperCase()]))

/**
 * True when the string `name` cannot name a connection-state command (nor CLIENT): it is not
 * one of their all-lower or all-upper spellings, and is itself in one case only. This is the
 * answer for nearly every command, found without building a lowercase copy.
 */
function plainlyOther(name: string): boolean {
  if (SPELLED.has(name)) return false
  let upper = false
  let lower = false
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i)
    if (c >= 65 && c <= 90) upper = true
    else if (c >= 97 && c <= 122) lower = true
  }
  return !(upper && lower)
}

/** The refusal of a connection-state command, or null for any other command. */
export function connectionStateRefusal(command: Command): ReplyError | null {
  const first = command[0]
  if (typeof first === 'string' && plainlyOther(first)) return null
  const name = lower(first)
  if (CONNECTION_STATE.has(name)) return notAvailable(name)
  if (name === 'client' && CONNECTION_STATE_CLIENT.has(lower(command[1]))) return notAvailable(`client|${lower(command[1])}`)
  return null
}

/** `ERR Command is not available: '<name>'`, the protocol's text for a refused command. */
export function notAvailable(name: string): ReplyError {
  return new ReplyError(`ERR Command is not available: '${name}'`)
}
