/**
 * The gateway's authentication of a request: the token it presents, looked up in the
 * {@link TokenStore} (or a custom {@link Authenticator}), and for an ACL user's token, the check
 * that the user's password still opens the user on the executor. Also `ACL RESTTOKEN`, which
 * issues those tokens, and the notice of ACL changes that makes the check run again.
 *
 * Everything here needs the request's headers and query only, never its body.
 */
import { bytesEqual, sha256Hex } from './digest.js'
import { ReplyError, type Arg, type Command, type Reply } from '../reply.js'
import type { Executor } from '../executor/executor.js'
import { TokenStore, generateToken, principalId, type Authenticator, type Principal, type UserTokenEntry } from './tokens.js'
import { GuessThrottle } from './guess-throttle.js'

/** What {@link createRequestAuth} needs. */
export interface RequestAuthOptions {
  readonly executor: Executor
  readonly auth: Authenticator
  readonly clock: () => number
  /** How long an ACL user's token is trusted after its password was last confirmed, ms. */
  readonly checkInterval: number
}

/** The authentication of the gateway's requests. */
export interface RequestAuth {
  /** The principal of a presented token; undefined for none, an unknown one, or a revoked user's. */
  authenticate(presented: string | undefined): Promise<Principal | undefined> | Principal | undefined
  /** `ACL RESTTOKEN <user> <password>`: a token for the user, or the error reply. */
  restToken(command: Command, principal: Principal): Promise<Reply>
  /** ACL commands that ran through the gateway: the tokens of the users they touch are checked again. */
  noticeAclChanges(commands: readonly Command[]): void
  /** Whether any ACL user's token is live (only then do ACL changes need noticing). */
  readonly watchesAcl: boolean
}

const utf8 = new TextDecoder()

function text(arg: Arg | Reply): string {
  if (typeof arg === 'string') return arg
  return arg instanceof Uint8Array ? utf8.decode(arg) : String(arg)
}

/** Whether a command word is `lower` (ASCII, case-insensitive), without allocating. */
export function isWord(arg: Arg | undefined, lower: string): boolean {
  if (arg === undefined || arg.length !== lower.length) return false
  for (let i = 0; i < lower.length; i++) {
    const c = typeof arg === 'string' ? arg.charCodeAt(i) : arg[i]
    if ((c >= 65 && c <= 90 ? c + 32 : c) !== lower.charCodeAt(i)) return false
  }
  return true
}

const RESTTOKEN_UNAVAILABLE = new ReplyError('ERR ACL RESTTOKEN needs a gateway built with a TokenStore')

/** `ERR too many failed ACL RESTTOKEN attempts …`: the guess throttle refused before checking. */
function tooManyGuesses(retryAfterMs: number): ReplyError {
  return new ReplyError(`ERR too many failed ACL RESTTOKEN attempts; try again in ${Math.ceil(retryAfterMs / 1000)} s`)
}

/** `ERR Wrong password or user "<user>" does not exist` (the source spec's text). */
function wrongPassword(user: string): ReplyError {
  return new ReplyError(`ERR Wrong password or user "${user}" does not exist`)
}

/** Whether the `ACL GETUSER` reply shows an enabled user with a password and `password` among its hashes. */
function getUserOpens(info: readonly Reply[], password: string): boolean {
  const fields = new Map<string, Reply>()
  for (let i = 0; i + 1 < info.length; i += 2) fields.set(text(info[i]), info[i + 1])
  const flags = ((fields.get('flags') ?? []) as Reply[]).map((f) => text(f))
  if (!flags.includes('on') || flags.includes('nopass')) return false
  const hash = Buffer.from(sha256Hex(password))
  let found = false
  for (const stored of (fields.get('passwords') ?? []) as Reply[]) {
    const candidate = Buffer.from(text(stored))
    if (bytesEqual(candidate, hash)) found = true
  }
  return found
}

/**
 * Whether `password` opens `user` on the executor: ACL GETUSER (the user is on, has a password
 * and this is one of them), or, when the gateway's own connection may not run ACL GETUSER,
 * AUTH as the user (and a second AUTH with a random password, to tell a `nopass` user apart).
 * Users without a password (`nopass`) never get a token: anyone holding any token of the
 * gateway could otherwise take their rights.
 */
export async function verifyUser(executor: Executor, user: string, password: string): Promise<boolean> {
  const info = await executor.exec(['ACL', 'GETUSER', user])
  if (info === null) return false
  if (Array.isArray(info)) return getUserOpens(info, password)
  const opened = await executor.exec(['AUTH', user, password], { user, password })
  if (opened instanceof ReplyError) return false
  const probe = generateToken()
  return (await executor.exec(['AUTH', user, probe], { user, password: probe })) instanceof ReplyError
}

/** Builds the gateway's authentication over a token store or a custom authenticator. */
export function createRequestAuth(options: RequestAuthOptions): RequestAuth {
  const { executor, auth, clock, checkInterval } = options
  const store = auth instanceof TokenStore ? auth : undefined
  const pendingChecks = new Map<UserTokenEntry, Promise<boolean>>()
  const guesses = new GuessThrottle(clock)

  /** Confirms (again) that an ACL user's token still opens its user; false revokes it. */
  const confirm = async (entry: UserTokenEntry): Promise<boolean> => {
    const now = clock()
    if (!entry.stale && now - entry.verifiedAt < checkInterval) return true
    let pending = pendingChecks.get(entry)
    if (pending === undefined) {
      const { user, password } = entry.principal
      // A change noticed while this check runs marks the entry stale again, for the next request.
      entry.stale = false
      pending = verifyUser(executor, user, password ?? '')
        .catch((error: unknown) => {
          entry.stale = true
          throw error
        })
        .finally(() => pendingChecks.delete(entry))
      pendingChecks.set(entry, pending)
    }
    const ok = await pending
    if (ok) entry.verifiedAt = now
    else store?.revoke(entry)
    return ok
  }

  const confirmed = async (principal: Principal, entry: UserTokenEntry): Promise<Principal | undefined> => ((await confirm(entry)) ? principal : undefined)

  return {
    authenticate(presented) {
      if (store === undefined) return auth.authenticate(presented)
      const found = store.lookup(presented)
      if (found === undefined) return undefined
      return found.entry === undefined ? found.principal : confirmed(found.principal, found.entry)
    },
    // Failed attempts are throttled per principal and per user name (guess-throttle.ts).
    async restToken(command, principal) {
      const user = text(command[2])
      if (store === undefined) return RESTTOKEN_UNAVAILABLE
      const attempt = guesses.begin(principalId(principal), user)
      if ('retryAfterMs' in attempt) return tooManyGuesses(attempt.retryAfterMs)
      const password = text(command[3])
      const ok = await verifyUser(executor, user, password)
      guesses.settle(attempt, ok)
      if (!ok) return wrongPassword(user)
      return Buffer.from(store.issueUserToken(user, password, clock()))
    },
    noticeAclChanges(commands) {
      if (store === undefined || store.userTokenCount === 0) return
      for (const command of commands) {
        if (!isWord(command[0], 'acl') || command.length < 2) continue
        if (isWord(command[1], 'setuser') || isWord(command[1], 'deluser')) store.markStale(command.slice(2).map(text))
        else if (isWord(command[1], 'load')) store.markStale()
      }
    },
    get watchesAcl() {
      return store !== undefined && store.userTokenCount > 0
    },
  }
}
