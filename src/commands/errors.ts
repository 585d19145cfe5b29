import { ReplyError } from '../reply.js'

/**
 * Redis's error texts that more than the engine answers: the RESP listener, the socket executor,
 * the REST gateway and the permission checks reply with the same words as the engine, so each
 * text lives here once. Texts only one engine family uses stay with that family
 * (`executor/memory/errors.ts` re-exports these for the engine's families).
 *
 * Constants are shared instances (errors are immutable values); functions build the texts that
 * carry a name.
 */

export const SYNTAX = new ReplyError('ERR syntax error')
export const NOT_INTEGER = new ReplyError('ERR value is not an integer or out of range')
export const DB_INDEX_OUT_OF_RANGE = new ReplyError('ERR DB index is out of range')

// Connections and authentication

export const NOAUTH = new ReplyError('NOAUTH Authentication required.')
export const WRONGPASS = new ReplyError('WRONGPASS invalid username-password pair or user is disabled.')
export const AUTH_WITHOUT_PASSWORD = new ReplyError(
  'ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?',
)
export const BAD_CLIENT_NAME = new ReplyError('ERR Client names cannot contain spaces, newlines or special characters.')
export const PROTOCOL_VERSION_NOT_INTEGER = new ReplyError('ERR Protocol version is not an integer or out of range')
export const NOPROTO = new ReplyError('NOPROTO unsupported protocol version')
export const HELLO_NOAUTH = new ReplyError(
  'NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time',
)
/** The command a MONITOR connection may not run (Redis treats that connection as a replica). */
export const REPLICA_KEYSPACE = new ReplyError("ERR Replica can't interact with the keyspace")

/** `ERR Syntax error in HELLO option '<option>'`. */
export function helloSyntax(option: string): ReplyError {
  return new ReplyError(`ERR Syntax error in HELLO option '${option}'`)
}

/** Redis's refusal of other commands in the RESP2 pub/sub context; `fullName` as `pubsub|channels`. */
export function subscribedModeError(fullName: string): ReplyError {
  return new ReplyError(
    `ERR Can't execute '${fullName}': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context`,
  )
}

// Transactions

export const EXEC_ABORT = new ReplyError('EXECABORT Transaction discarded because of previous errors.')
export const MULTI_NESTED = new ReplyError('ERR MULTI calls can not be nested')
export const EXEC_WITHOUT_MULTI = new ReplyError('ERR EXEC without MULTI')
export const DISCARD_WITHOUT_MULTI = new ReplyError('ERR DISCARD without MULTI')
export const WATCH_INSIDE_MULTI = new ReplyError('ERR WATCH inside MULTI is not allowed')

// Arity and ACL

/** `ERR wrong number of arguments for '<name>' command`, with `parent|sub` for subcommands. */
export function wrongArity(fullName: string): ReplyError {
  return new ReplyError(`ERR wrong number of arguments for '${fullName}' command`)
}

export const NOPERM_KEY = new ReplyError('NOPERM this user has no permissions to access one of the keys used as arguments')
export const NOPERM_CHANNEL = new ReplyError('NOPERM this user has no permissions to access one of the channels used as arguments')

/** `NOPERM this user has no permissions to run the '<cmd>' command` (full name: `config|get`). */
export function nopermRunText(fullName: string): string {
  return `NOPERM this user has no permissions to run the '${fullName}' command`
}
