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

/** The refusal of a connection-state command, or null for any other command. */
export function connectionStateRefusal(command: Command): ReplyError | null {
  const name = lower(command[0])
  if (CONNECTION_STATE.has(name)) return notAvailable(name)
  if (name === 'client' && CONNECTION_STATE_CLIENT.has(lower(command[1]))) return notAvailable(`client|${lower(command[1])}`)
  return null
}

/** `ERR Command is not available: '<name>'`, the protocol's text for a refused command. */
export function notAvailable(name: string): ReplyError {
  return new ReplyError(`ERR Command is not available: '${name}'`)
}
