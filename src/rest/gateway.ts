import { createHash, timingSafeEqual } from 'node:crypto'
import { ReplyError, type Arg, type Command, type Reply } from '../reply.js'
import { encodeReply } from '../resp/encode.js'
import { BackendUnavailableError, type CallContext, type Executor, type PubSubEvent } from '../executor/executor.js'
import { resolveCommand, restAvailability, isReadOnly, readOnlyTokenMay, type CommandInfo } from '../commands/lookup.js'
import { TokenStore, generateToken, principalId, type Authenticator, type Principal, type UserTokenEntry } from '../auth/tokens.js'
import { checkPermission, noPermission } from '../auth/permissions.js'
import { Limits, type Endpoint, type LimitOptions } from '../auth/limits.js'
import { GuessThrottle } from '../auth/guess-throttle.js'
import {
  METHOD_NOT_ALLOWED,
  MAX_DAILY_REQUESTS,
  MAX_REQUEST_SIZE,
  UNAUTHORIZED,
  RestError,
  badRequest,
  backendUnavailable,
  commandNotAvailable,
} from './errors.js'
import { parseCall, requestToken, splitUrl, type RestRequest } from './request.js'
import { envelope, envelopes, errorEnvelope, type StringEncoding } from './render.js'
import { eventStream, type EventStream, type SseOptions } from './sse.js'
import { corsPolicy, type CorsOptions } from './cors.js'

/**
 * A response, independent of any server framework: a body that is text, bytes, or an event
 * stream that adapters pipe to the client.
 * @public
 */
export interface RestResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string | Uint8Array | EventStream
}

/**
 * Options of {@link createGateway}. The limit options (`maxRequestSize`, `maxBodySize`,
 * `dailyRequestLimit`, `onUsage`, `clock`) are those of {@link Limits}.
 * @public
 */
export interface GatewayOptions extends LimitOptions {
  /** Runs the commands: a `MemoryExecutor`, a `SocketExecutor`, or your own. */
  readonly executor: Executor
  /** The standard token. Give this or `auth`. */
  readonly token?: string
  /** The read-only token. */
  readonly readonlyToken?: string
  /**
   * Authentication: a {@link TokenStore} (shared with your code, e.g. to `rotate()` it), or a
   * custom {@link Authenticator}, replacing `token`/`readonlyToken`. `ACL RESTTOKEN` needs a
   * `TokenStore`.
   */
  readonly auth?: Authenticator
  /** Secret ACL users' tokens are derived from (see {@link TokenStore}); used with `token`. */
  readonly userTokenSecret?: string | Uint8Array
  /**
   * How long an ACL user's token is trusted after its password was last confirmed, ms. Past it,
   * the next request with the token checks the password against the executor again (one
   * `ACL GETUSER`) and the token is refused (401) if the password no longer opens the user.
   * ACL SETUSER / DELUSER / LOAD sent through this gateway make the check happen on the next
   * request at once. Default 1000; 0 checks on every request.
   */
  readonly userTokenCheckInterval?: number
  /**
   * Run the read-only token's calls as this ACL user (create it with `provisionReadonlyUser`), so
   * the backend enforces the read-only rules as well as the gateway, including inside scripts.
   * Without it the read-only token's calls run as the executor's own user and the gateway's
   * check is the only one: an `EVAL_RO` script may then call the powerful reads (KEYS, SCAN).
   */
  readonly readonlyUser?: { readonly user: string; readonly password: string }
  /** Options of the /monitor and /subscribe streams. */
  readonly sse?: SseOptions
  /** Cross-origin requests from browsers (off by default). */
  readonly cors?: CorsOptions
}

/** The gateway core: one method, framework-agnostic. @public */
export interface Gateway {
  handle(request: RestRequest): Promise<RestResponse>
  /** The largest body adapters read for any request (`maxBodySize`). */
  readonly maxBodySize: number
  /** The body-size limit adapters enforce while reading the body of a request to `url`. */
  bodyLimit(url: string): number
  /** The limits and usage counters. */
  readonly limits: Limits
  /** The token store, when the gateway has one (built from `token`, or given as `auth`). */
  readonly tokens: TokenStore | undefined
}

const ALLOWED_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT'])
const JSON_TYPE = 'application/json'

interface Format {
  readonly encoding: StringEncoding
  readonly resp2: boolean
}

/** One command of a request after admission: run by the executor, answered by the gateway, or refused. */
interface Row {
  readonly command: Command
  readonly local: boolean
  /** The command's table entry, when the table knows it. */
  readonly info?: CommandInfo
  /** Known to the table and not flagged `readonly`: running it counts as a write (sync token). */
  readonly write: boolean
  refusal: RestError | null
}

/** What admission needs to know of a command from the table, worked out once per command. */
interface Admission {
  readonly info: CommandInfo
  /** Available on the REST endpoints; null when it depends on the arguments (`XREAD … BLOCK`). */
  readonly available: boolean | null
  /** The read-only token may run it. */
  readonly readonlyMay: boolean
  /** Not flagged `readonly`. */
  readonly write: boolean
}

const admissions = new Map<CommandInfo, Admission>()
/** Admissions by the first word as sent, for commands without subcommands (the word decides). */
const admissionsByWord = new Map<string, Admission>()
/** Bounds the by-word map: every case spelling of every name could otherwise be added. */
const MAX_ADMISSION_WORDS = 1024

function admissionOf(info: CommandInfo): Admission {
  let admission = admissions.get(info)
  if (admission === undefined) {
    admission = {
      info,
      available: info.flags.has('blocking') ? null : restAvailability(info) === 'ok',
      readonlyMay: readOnlyTokenMay(info),
      write: !isReadOnly(info),
    }
    admissions.set(info, admission)
  }
  return admission
}

/**
 * The admission of the command `command` runs, or undefined for a command the table does not
 * know. (A first word found by {@link admissionsByWord} names a command without subcommands.)
 */
function resolveAdmission(command: Command): Admission | undefined {
  const word = command[0]
  const info = resolveCommand(command)
  if (info === undefined) return undefined
  const admission = admissionOf(info)
  if (typeof word === 'string' && info.subcommands === undefined && info.parent === undefined && admissionsByWord.size < MAX_ADMISSION_WORDS) {
    admissionsByWord.set(word, admission)
  }
  return admission
}

const utf8 = new TextDecoder()

function text(arg: Arg | Reply): string {
  if (typeof arg === 'string') return arg
  return arg instanceof Uint8Array ? utf8.decode(arg) : String(arg)
}

/** Whether a command word is `lower` (ASCII, case-insensitive), without allocating. */
function isWord(arg: Arg | undefined, lower: string): boolean {
  if (arg === undefined || arg.length !== lower.length) return false
  for (let i = 0; i < lower.length; i++) {
    const c = typeof arg === 'string' ? arg.charCodeAt(i) : arg[i]
    if ((c >= 65 && c <= 90 ? c + 32 : c) !== lower.charCodeAt(i)) return false
  }
  return true
}

/** `ACL RESTTOKEN …`, which the gateway answers itself. */
function isRestToken(command: Command): boolean {
  return isWord(command[0], 'acl') && isWord(command[1], 'resttoken')
}

const RESTTOKEN_ARITY = new RestError(400, "ERR wrong number of arguments for 'acl|resttoken' command")
const RESTTOKEN_UNAVAILABLE = new ReplyError('ERR ACL RESTTOKEN needs a gateway built with a TokenStore')
/** The read-only token may not mint tokens (it could otherwise guess passwords of stronger users). */
const RESTTOKEN_READONLY = new RestError(400, noPermission('acl|resttoken'))

/** `ERR too many failed ACL RESTTOKEN attempts …`: the guess throttle refused before checking. */
function tooManyGuesses(retryAfterMs: number): ReplyError {
  return new ReplyError(`ERR too many failed ACL RESTTOKEN attempts; try again in ${Math.ceil(retryAfterMs / 1000)} s`)
}

/** `ERR Wrong password or user "<user>" does not exist` (the source spec's text). */
function wrongPassword(user: string): ReplyError {
  return new ReplyError(`ERR Wrong password or user "${user}" does not exist`)
}

/**
 * Builds the gateway: parse, authenticate, authorize, limit, execute, render.
 * @public
 */
export function createGateway(options: GatewayOptions): Gateway {
  const { executor } = options
  const auth =
    options.auth ??
    (options.token !== undefined
      ? new TokenStore({ token: options.token, readonlyToken: options.readonlyToken, secret: options.userTokenSecret })
      : undefined)
  if (auth === undefined) throw new TypeError('createGateway needs `token` or `auth`')
  const store = auth instanceof TokenStore ? auth : undefined
  const limits = new Limits(options)
  const clock = options.clock ?? Date.now
  const checkInterval = options.userTokenCheckInterval ?? 1000
  const guesses = new GuessThrottle(clock)
  const cors = options.cors === undefined ? undefined : corsPolicy(options.cors)
  const syncPrefix = Date.now().toString(36)
  let writes = 0

  // Responses share one frozen headers object while no write happens in between (adapters may
  // rely on that to reuse work per headers object; see the Node adapter).
  let jsonHeaders: Readonly<Record<string, string>> | undefined
  let jsonHeadersWrites = -1
  const headers = (contentType: string): Readonly<Record<string, string>> => {
    if (contentType === JSON_TYPE && jsonHeadersWrites === writes && jsonHeaders !== undefined) return jsonHeaders
    const token = `${syncPrefix}-${writes}`
    const made = Object.freeze({ 'content-type': contentType, 'service-sync-token': token, 'upstash-sync-token': token })
    if (contentType === JSON_TYPE) {
      jsonHeaders = made
      jsonHeadersWrites = writes
    }
    return made
  }
  const json = (status: number, body: string): RestResponse => ({ status, headers: headers(JSON_TYPE), body })
  const fail = (error: RestError): RestResponse => json(error.status, errorEnvelope(error.message))

  /**
   * Checks availability, permission and size of one command. `sized`: the caller already knows
   * the command is within `maxRequestSize` (it came from a body that is).
   */
  const admit = (principal: Principal, command: Command, sized = false): Row => {
    const word = command[0]
    let admission = typeof word === 'string' ? admissionsByWord.get(word) : undefined
    if (admission === undefined) {
      // ACL RESTTOKEN is the gateway's own, whatever the table says of it.
      if (isRestToken(command)) {
        const refusal =
          command.length !== 4 ? RESTTOKEN_ARITY : principal.kind === 'readonly' ? RESTTOKEN_READONLY : !sized && limits.tooLarge(command) ? MAX_REQUEST_SIZE : null
        return { command, local: true, write: false, refusal }
      }
      admission = resolveAdmission(command)
    }
    if (admission !== undefined) {
      const { info, write } = admission
      const available = admission.available ?? restAvailability(info, command) === 'ok'
      if (!available) return { command, local: false, info, write, refusal: commandNotAvailable(commandName(command)) }
      // checkPermission's rule, from the admission: only the read-only token is checked here.
      if (principal.kind === 'readonly' && !admission.readonlyMay) return { command, local: false, info, write, refusal: new RestError(400, noPermission(info.name)) }
    }
    const info = admission?.info
    const write = admission?.write ?? false
    if (!sized && limits.tooLarge(command)) return { command, local: false, info, write, refusal: MAX_REQUEST_SIZE }
    return { command, local: false, info, write, refusal: null }
  }

  /**
   * Whether every command of a request body is within `maxRequestSize` because the body is: a
   * command's words take at most the bytes of their JSON text, except where the body's invalid
   * UTF-8 was replaced by U+FFFD (3 bytes for 1), hence the factor.
   */
  const bodyWithinCommandLimit = (body: Uint8Array | undefined): boolean => body === undefined || 3 * body.length <= limits.maxRequestSize

  /** Counts writes for the sync token once a command is about to run. */
  const counted = (rows: readonly Row[]): void => {
    for (const row of rows) {
      if (isWriteRow(row)) {
        writes++
        return
      }
    }
  }

  const render = (reply: Reply, format: Format): RestResponse => {
    const status = reply instanceof ReplyError ? 400 : 200
    if (format.resp2) return { status, headers: headers('application/octet-stream'), body: encodeReply(reply) }
    return json(status, envelope(reply, format.encoding))
  }

  // --- ACL users' tokens ---------------------------------------------------------------------

  /**
   * Whether `password` opens `user` on the executor: ACL GETUSER (the user is on, has a password
   * and this is one of them), or, when the gateway's own connection may not run ACL GETUSER,
   * AUTH as the user (and a second AUTH with a random password, to tell a `nopass` user apart).
   * Users without a password (`nopass`) never get a token: anyone holding any token of the
   * gateway could otherwise take their rights.
   */
  const verifyUser = async (user: string, password: string): Promise<boolean> => {
    const info = await executor.exec(['ACL', 'GETUSER', user])
    if (info === null) return false
    if (Array.isArray(info)) {
      const fields = new Map<string, Reply>()
      for (let i = 0; i + 1 < info.length; i += 2) fields.set(text(info[i] as Reply), info[i + 1] as Reply)
      const flags = ((fields.get('flags') ?? []) as Reply[]).map((f) => text(f))
      if (!flags.includes('on') || flags.includes('nopass')) return false
      const hash = Buffer.from(createHash('sha256').update(password, 'utf8').digest('hex'))
      let found = false
      for (const stored of (fields.get('passwords') ?? []) as Reply[]) {
        const candidate = Buffer.from(text(stored))
        if (candidate.length === hash.length && timingSafeEqual(candidate, hash)) found = true
      }
      return found
    }
    const opened = await executor.exec(['AUTH', user, password], { user, password })
    if (opened instanceof ReplyError) return false
    const probe = generateToken()
    return (await executor.exec(['AUTH', user, probe], { user, password: probe })) instanceof ReplyError
  }

  const pendingChecks = new Map<UserTokenEntry, Promise<boolean>>()

  /** Confirms (again) that an ACL user's token still opens its user; false revokes it. */
  const confirmUserToken = async (entry: UserTokenEntry): Promise<boolean> => {
    const now = clock()
    if (!entry.stale && now - entry.verifiedAt < checkInterval) return true
    let pending = pendingChecks.get(entry)
    if (pending === undefined) {
      const { user, password } = entry.principal
      // A change noticed while this check runs marks the entry stale again, for the next request.
      entry.stale = false
      pending = verifyUser(user, password ?? '')
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

  /** `ACL RESTTOKEN <user> <password>`, failed attempts throttled per principal and per user. */
  const restToken = async (command: Command, principal: Principal): Promise<Reply> => {
    const user = text(command[2])
    if (store === undefined) return RESTTOKEN_UNAVAILABLE
    const attempt = guesses.begin(principalId(principal), user)
    if ('retryAfterMs' in attempt) return tooManyGuesses(attempt.retryAfterMs)
    const password = text(command[3])
    const ok = await verifyUser(user, password)
    guesses.settle(attempt, ok)
    if (!ok) return wrongPassword(user)
    return Buffer.from(store.issueUserToken(user, password, clock()))
  }

  /** ACL commands that went through the gateway: the tokens of the users they touch are checked again. */
  const noticeAclChanges = (commands: readonly Command[]): void => {
    if (store === undefined || store.userTokenCount === 0) return
    for (const command of commands) {
      if (!isWord(command[0], 'acl') || command.length < 2) continue
      if (isWord(command[1], 'setuser') || isWord(command[1], 'deluser')) store.markStale(command.slice(2).map(text))
      else if (isWord(command[1], 'load')) store.markStale()
    }
  }

  // --- running rows --------------------------------------------------------------------------

  /** Takes today's allowance for the admitted rows in order; rows that no longer fit are refused. */
  const takeDaily = (rows: Row[]): number => {
    let taken = 0
    for (const row of rows) {
      if (row.refusal !== null) continue
      if (limits.take(1)) taken++
      else row.refusal = MAX_DAILY_REQUESTS
    }
    return taken
  }

  /** A pipeline's rows in order: runs of executor rows go as one pipeline, gateway rows between them. */
  const runPipeline = async (rows: readonly Row[], context: CallContext, principal: Principal): Promise<Reply[]> => {
    if (rows.every((row) => row.refusal === null && !row.local)) {
      return executor.pipeline(
        rows.map((row) => row.command),
        context,
      )
    }
    const replies: Reply[] = new Array(rows.length)
    let batch: number[] = []
    const flush = async (): Promise<void> => {
      if (batch.length === 0) return
      const indices = batch
      batch = []
      const out = await executor.pipeline(
        indices.map((i) => rows[i].command),
        context,
      )
      indices.forEach((index, k) => (replies[index] = out[k]))
    }
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]
      if (row.refusal !== null) replies[i] = new ReplyError(row.refusal.message)
      else if (row.local) {
        await flush()
        replies[i] = await restToken(row.command, principal)
      } else batch.push(i)
    }
    await flush()
    return replies
  }

  // --- the request ---------------------------------------------------------------------------

  const run = async (request: RestRequest, method: string): Promise<RestResponse> => {
    if (!ALLOWED_METHODS.has(method)) return fail(METHOD_NOT_ALLOWED)
    const target = splitUrl(request.url)
    const presented = requestToken(request.headers, target.query)
    const found = store !== undefined ? store.lookup(presented) : wrap(auth.authenticate(presented))
    if (found === undefined) return fail(UNAUTHORIZED)
    if (found.entry !== undefined && !(await confirmUserToken(found.entry))) return fail(UNAUTHORIZED)
    const principal = found.principal
    const format = responseFormat(request.headers)
    if (format instanceof RestError) return fail(format)
    const call = parseCall(method, target, request.body)
    if (call instanceof RestError) return fail(call)
    const context: CallContext = contextOf(principal, request, options.readonlyUser)
    const tokenId = principalId(principal)
    const usage = (endpoint: Endpoint, commands: number): void => limits.record(tokenId, endpoint, commands)

    switch (call.type) {
      case 'command': {
        const row = admit(principal, call.command)
        if (row.refusal !== null) return fail(row.refusal)
        if (!limits.take(1)) return fail(MAX_DAILY_REQUESTS)
        usage('command', 1)
        if (isWriteRow(row)) writes++
        const reply = row.local ? await restToken(row.command, principal) : await executor.exec(row.command, context)
        if (store !== undefined && store.userTokenCount > 0) noticeAclChanges([row.command])
        return render(reply, format)
      }
      case 'pipeline': {
        const sized = bodyWithinCommandLimit(request.body)
        const rows = call.commands.map((command) => admit(principal, command, sized))
        const taken = takeDaily(rows)
        if (taken > 0) usage('pipeline', taken)
        counted(rows)
        const replies = await runPipeline(rows, context, principal)
        if (store !== undefined && store.userTokenCount > 0) noticeAclChanges(rows.filter((row) => row.refusal === null).map((row) => row.command))
        if (format.resp2) {
          return { status: 200, headers: headers('application/octet-stream'), body: Buffer.concat(replies.map(encodeReply)) }
        }
        return json(200, envelopes(replies, format.encoding))
      }
      case 'transaction': {
        const sized = bodyWithinCommandLimit(request.body)
        const rows = call.commands.map((command) => admit(principal, command, sized))
        for (const row of rows) if (row.refusal !== null) return fail(row.refusal)
        // An ACL user needs MULTI and EXEC. Asked first: a server that refuses MULTI would run
        // the commands sent after it one by one, outside any transaction.
        if (rows.some((row) => !row.local)) {
          const refused = await dryRun(principal, ['MULTI'], ['EXEC'])
          if (refused !== null) return fail(refused)
        }
        if (!limits.take(rows.length)) return fail(MAX_DAILY_REQUESTS)
        usage('transaction', rows.length)
        counted(rows)
        const remote = rows.filter((row) => !row.local)
        const out = remote.length > 0 ? await executor.transaction(remote.map((row) => row.command), context) : []
        if (out instanceof ReplyError) return fail(new RestError(400, out.message))
        noticeAclChanges(remote.map((row) => row.command))
        // ACL RESTTOKEN rows are answered after the transaction ran: they see its ACL changes.
        let next = 0
        const replies: Reply[] = []
        for (const row of rows) replies.push(row.local ? await restToken(row.command, principal) : out[next++])
        return json(200, envelopes(replies, format.encoding)) // /multi-exec answers JSON only
      }
      case 'monitor': {
        const denied = checkPermission(principal, ['MONITOR'])
        if (denied !== null) return fail(new RestError(400, denied))
        const refused = await dryRun(principal, ['MONITOR'])
        if (refused !== null) return fail(refused)
        if (!limits.take(1)) return fail(MAX_DAILY_REQUESTS)
        usage('monitor', 1)
        return streamResponse(
          eventStream(async (emit, signal) => {
            emit('"OK"')
            await executor.monitor((event) => emit(event.line), signal, context)
          }, options.sse),
        )
      }
      case 'subscribe': {
        const { kind, names } = call
        const refused = await dryRun(principal, [kind === 'channel' ? 'SUBSCRIBE' : 'PSUBSCRIBE', ...names])
        if (refused !== null) return fail(refused)
        if (!limits.take(1)) return fail(MAX_DAILY_REQUESTS)
        usage('subscribe', 1)
        return streamResponse(
          eventStream((emit, signal) => executor.subscribe({ kind, names }, (event) => emit(formatPubSubEvent(event)), signal, context), options.sse),
        )
      }
    }
  }

  /**
   * Whether an ACL user may run `command` (MONITOR, SUBSCRIBE to these channels, MULTI): asked
   * with `ACL DRYRUN` before a stream or a transaction starts, so a refusal is a 400 with Redis's
   * NOPERM text rather than a stream that ends at once. When the gateway's own connection may not
   * run ACL DRYRUN, the executor's own refusal stands.
   */
  const dryRun = async (principal: Principal, ...commands: Command[]): Promise<RestError | null> => {
    if (principal.kind !== 'user') return null
    const { user } = principal
    const verdicts = await executor.pipeline(commands.map((command) => ['ACL', 'DRYRUN', user, ...command]))
    for (let i = 0; i < commands.length; i++) {
      const verdict = verdicts[i]
      if (!(verdict instanceof Uint8Array)) continue
      const sentence = text(verdict)
      if (sentence.includes("' channel")) return new RestError(400, 'NOPERM this user has no permissions to access one of the channels used as arguments')
      if (sentence.includes("' key")) return new RestError(400, 'NOPERM this user has no permissions to access one of the keys used as arguments')
      return new RestError(400, noPermission(text(commands[i][0]).toLowerCase()))
    }
    return null
  }

  const streamResponse = (body: EventStream): RestResponse => ({
    status: 200,
    headers: { ...headers('text/event-stream'), 'cache-control': 'no-cache', connection: 'keep-alive' },
    body,
  })

  return {
    maxBodySize: limits.maxBodySize,
    bodyLimit: (url) => limits.bodyLimit(url),
    limits,
    tokens: store,
    async handle(request) {
      const method = request.method.toUpperCase()
      const origin = cors === undefined ? null : request.headers.get('origin')
      if (method === 'OPTIONS' && cors !== undefined) return cors.preflight(origin, request.headers)
      let response: RestResponse
      try {
        response = await run(request, method)
        if (method === 'HEAD') response = { ...response, body: '' }
      } catch (error) {
        if (error instanceof BackendUnavailableError) response = fail(backendUnavailable(error.message))
        // Never leak internals (stack traces, tokens) to the client.
        else response = fail(new RestError(500, 'ERR internal error'))
      }
      return cors === undefined ? response : cors.decorate(origin, response)
    },
  }
}

/** A command that will run on the executor and is not flagged `readonly`. */
function isWriteRow(row: Row): boolean {
  return row.refusal === null && !row.local && row.write
}

function wrap(principal: Principal | undefined): { principal: Principal; entry?: UserTokenEntry } | undefined {
  return principal === undefined ? undefined : { principal }
}

/** Reads `Service-Response-Format` / `Service-Encoding` (and their `Upstash-` aliases). */
function responseFormat(headers: RestRequest['headers']): Format | RestError {
  const formatValue = headers.get('service-response-format') ?? headers.get('upstash-response-format')
  const encodingValue = headers.get('service-encoding') ?? headers.get('upstash-encoding')
  let resp2 = false
  if (formatValue !== null) {
    const value = formatValue.trim().toLowerCase()
    if (value === 'resp2') resp2 = true
    else if (value !== 'json') return badRequest(`invalid Service-Response-Format '${formatValue}': use json or resp2`)
  }
  let encoding: StringEncoding = 'utf8'
  if (encodingValue !== null) {
    const value = encodingValue.trim().toLowerCase()
    if (value === 'base64') encoding = 'base64'
    else if (value !== '') return badRequest(`invalid Service-Encoding '${encodingValue}': the only encoding is base64`)
  }
  if (resp2 && encoding === 'base64') return badRequest('Service-Encoding: base64 cannot be combined with Service-Response-Format: resp2')
  return { encoding, resp2 }
}

function contextOf(principal: Principal, request: RestRequest, readonlyUser: GatewayOptions['readonlyUser']): CallContext {
  if (principal.kind === 'user') return { user: principal.user, password: principal.password, client: request.remoteAddress }
  if (principal.kind === 'readonly' && readonlyUser !== undefined) return { user: readonlyUser.user, password: readonlyUser.password, client: request.remoteAddress }
  return request.remoteAddress === undefined ? {} : { client: request.remoteAddress }
}

function commandName(command: Command): string {
  const name = command[0]
  return (typeof name === 'string' ? name : Buffer.from(name).toString('utf8')).toLowerCase()
}

/** The SSE payloads of the protocol: `subscribe,<channel>,<count>`, `message,<channel>,<text>` … @public */
export function formatPubSubEvent(event: PubSubEvent): string {
  switch (event.type) {
    case 'subscribe':
    case 'psubscribe':
      return `${event.type},${utf8.decode(event.channel)},${event.count}`
    case 'message':
      return `message,${utf8.decode(event.channel)},${utf8.decode(event.message)}`
    case 'pmessage':
      return `pmessage,${utf8.decode(event.pattern)},${utf8.decode(event.channel)},${utf8.decode(event.message)}`
  }
}

export type { Arg }
