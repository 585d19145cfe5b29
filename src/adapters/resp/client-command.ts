/**
 * CLIENT for the RESP listener: the subcommands that concern the listener's own connections,
 * answered from its {@link ClientRegistry} with Redis 7.0.15's checks, replies and errors
 * (networking.c `clientCommand`), plus Redis 7.2's `SETINFO` and `NO-TOUCH`.
 *
 * TRACKING and CACHING are not answered here: they go on to the executor like any command.
 * Over the socket executor too, LIST, INFO, KILL … describe and act on the listener's clients,
 * not on the upstream server's.
 */

import { CLIENT_HELP } from '../../commands/client-help.js'
import { OK, ReplyError, Status, type Reply } from '../../reply.js'
import { arityError, checkArity, lookupError, resolveCommand } from '../../commands/lookup.js'
import { BAD_CLIENT_NAME, NOT_INTEGER, SYNTAX, wrongArity } from '../../commands/errors.js'
import { formatClientInfo, type ClientRecord, type ClientRegistry, type ClientType } from './clients.js'
import type { PauseMode } from './client-pause.js'

/** The command ran and owes no reply (CLIENT REPLY OFF and SKIP). */
export const NO_REPLY = Symbol('no reply')
/** Not answered by the listener: the command goes to the executor. */
export const FORWARD = Symbol('forward')

/** What CLIENT needs from the connection that runs it. */
export interface ClientCaller {
  readonly record: ClientRecord
  readonly registry: ClientRegistry
  /** Whether an ACL user of that name exists (CLIENT KILL USER). */
  userExists(name: string): boolean | Promise<boolean>
  /** Whether the executor honours `CallContext.noTouch` (the in-memory engine does). */
  readonly noTouchSupported: boolean
}

export type ClientOutcome = Reply | Promise<Reply> | typeof NO_REPLY | typeof FORWARD

const INVALID_CLIENT_ID = new ReplyError('ERR Invalid client ID')
const CLIENT_ID_RANGE = new ReplyError('ERR client-id should be greater than 0')
const NO_SUCH_CLIENT = new ReplyError('ERR No such client')
const PAUSE_MODE = new ReplyError('ERR CLIENT PAUSE mode must be WRITE or ALL')
const TIMEOUT_NOT_INTEGER = new ReplyError('ERR timeout is not an integer or out of range')
const TIMEOUT_NEGATIVE = new ReplyError('ERR timeout is negative')
const UNBLOCK_REASON = new ReplyError('ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR')
const MAXAGE_NOT_INTEGER = new ReplyError('ERR maxage is not an integer or out of range')
const MAXAGE_RANGE = new ReplyError('ERR maxage should be greater than 0')

const text = (arg: Buffer): string => arg.toString('latin1')
const lower = (arg: Buffer): string => text(arg).toLowerCase()

/** Runs `CLIENT <subcommand> …` for `caller`. */
export function clientCommand(caller: ClientCaller, argv: Buffer[]): ClientOutcome {
  if (argv.length < 2) return wrongArity('client')
  const sub = lower(argv[1])
  // Redis 7.2's subcommands, absent from 7.0.15's command table.
  if (sub === 'setinfo') return argv.length === 4 ? setInfo(caller.record, argv) : wrongArity('client|setinfo')
  if (sub === 'no-touch') return argv.length === 3 ? noTouch(caller, argv) : wrongArity('client|no-touch')
  const info = resolveCommand(argv)
  if (info === undefined) return lookupError(argv)
  if (!checkArity(info, argv.length)) return arityError(info)
  const argc = argv.length
  switch (sub) {
    case 'id':
      if (argc === 2) return caller.record.id
      break
    case 'info':
      if (argc === 2) return Buffer.from(formatClientInfo(caller.record) + '\n', 'latin1')
      break
    case 'list':
      return list(caller.registry, argv)
    case 'setname':
      if (argc !== 3) break
      if (!validAttribute(argv[2])) return BAD_CLIENT_NAME
      caller.record.name = text(argv[2])
      return OK
    case 'getname':
      if (argc === 2) return caller.record.name === '' ? null : Buffer.from(caller.record.name, 'latin1')
      break
    case 'kill':
      return kill(caller, argv)
    case 'reply':
      if (argc === 3) return reply(caller.record, argv)
      break
    case 'no-evict':
      if (argc !== 3) break
      return onOff(argv[2], (on) => (caller.record.noEvict = on))
    case 'pause':
      if (argc === 3 || argc === 4) return pause(caller.registry, argv)
      break
    case 'unpause':
      if (argc !== 2) break
      caller.registry.pause.unpause()
      return OK
    case 'unblock':
      if (argc === 3 || argc === 4) return unblock(caller.registry, argv)
      break
    case 'getredir':
      if (argc === 2) return -1 // tracking is off, as TRACKINGINFO says
      break
    case 'trackinginfo':
      if (argc === 2) return [Buffer.from('flags'), [Buffer.from('off')], Buffer.from('redirect'), -1, Buffer.from('prefixes'), []]
      break
    case 'help':
      if (argc === 2) return CLIENT_HELP
      break
    case 'tracking':
    case 'caching':
      return FORWARD
  }
  return new ReplyError(
    `ERR unknown subcommand or wrong number of arguments for '${text(argv[1]).slice(0, 128)}'. Try CLIENT HELP.`,
  )
}

/** Printable ASCII without spaces (`!` … `~`): names and SETINFO values keep LIST splittable. */
function validAttribute(value: Buffer): boolean {
  for (const byte of value) if (byte < 0x21 || byte > 0x7e) return false
  return true
}

function onOff(arg: Buffer, set: (on: boolean) => void): Reply {
  const mode = lower(arg)
  if (mode !== 'on' && mode !== 'off') return SYNTAX
  set(mode === 'on')
  return OK
}

function setInfo(record: ClientRecord, argv: Buffer[]): Reply {
  const attribute = lower(argv[2])
  if (attribute !== 'lib-name' && attribute !== 'lib-ver') return new ReplyError(`ERR Unrecognized option '${text(argv[2])}'`)
  if (!validAttribute(argv[3])) return new ReplyError(`ERR ${text(argv[2])} cannot contain spaces, newlines or special characters.`)
  if (attribute === 'lib-name') record.libName = text(argv[3])
  else record.libVer = text(argv[3])
  return OK
}

const NO_TOUCH_UNSUPPORTED = new ReplyError(
  'ERR CLIENT NO-TOUCH ON is not supported over the socket executor: its upstream connections are shared by every client',
)

/**
 * NO-TOUCH ON|OFF: this client's reads stop updating the keys' access clock (LRU/LFU), as
 * Redis 7.2. The flag travels with each call (`CallContext.noTouch`); an executor that cannot
 * honour it gets ON refused rather than ignored.
 */
function noTouch(caller: ClientCaller, argv: Buffer[]): Reply {
  if (lower(argv[2]) === 'on' && !caller.noTouchSupported) return NO_TOUCH_UNSUPPORTED
  return onOff(argv[2], (on) => (caller.record.noTouch = on))
}

/**
 * CLIENT KILL USER's check that the user exists: `default`, a user some client is logged in as,
 * or one the executor's `ACL GETUSER` knows.
 */
export function userExistsVia(registry: ClientRegistry, call: (argv: Buffer[]) => Promise<Reply>): (name: string) => boolean | Promise<boolean> {
  return (name) => {
    if (name === 'default') return true
    for (const record of registry) if (record.handle.probe().user === name) return true
    return call([Buffer.from('ACL'), Buffer.from('GETUSER'), Buffer.from(name, 'latin1')]).then(
      (reply) => reply !== null && !(reply instanceof ReplyError),
      () => false,
    )
  }
}

/** REPLY ON|OFF|SKIP: OFF and SKIP are not answered; SKIP under OFF changes nothing (Redis). */
function reply(record: ClientRecord, argv: Buffer[]): Reply | typeof NO_REPLY {
  switch (lower(argv[2])) {
    case 'on':
      record.reply = 'on'
      return OK
    case 'off':
      record.reply = 'off'
      return NO_REPLY
    case 'skip':
      if (record.reply !== 'off') record.reply = 'skip-next'
      return NO_REPLY
  }
  return SYNTAX
}

/** Redis's `getClientTypeByName`. */
function clientType(arg: Buffer): ClientType | undefined {
  switch (lower(arg)) {
    case 'normal':
      return 'normal'
    case 'slave':
    case 'replica':
      return 'replica'
    case 'pubsub':
      return 'pubsub'
    case 'master':
      return 'master'
  }
  return undefined
}

const unknownType = (arg: Buffer): ReplyError => new ReplyError(`ERR Unknown client type '${text(arg)}'`)

/** Redis's `string2ll`: an optional minus, digits, no leading zeros, within 64 bits. */
function integer(arg: Buffer): bigint | undefined {
  const value = text(arg)
  if (!/^(?:0|-?[1-9][0-9]{0,18})$/.test(value)) return undefined
  const n = BigInt(value)
  return n >= -(2n ** 63n) && n < 2n ** 63n ? n : undefined
}

/** LIST [TYPE type] | LIST ID id [id …] (one filter or the other, as Redis 7.0 parses them). */
function list(registry: ClientRegistry, argv: Buffer[]): Reply {
  const now = Date.now()
  let lines = ''
  if (argv.length === 4 && lower(argv[2]) === 'type') {
    const type = clientType(argv[3])
    if (type === undefined) return unknownType(argv[3])
    for (const record of registry) if (record.type() === type) lines += formatClientInfo(record, now) + '\n'
  } else if (argv.length > 3 && lower(argv[2]) === 'id') {
    const ids: bigint[] = []
    for (const arg of argv.slice(3)) {
      const id = integer(arg)
      if (id === undefined) return INVALID_CLIENT_ID
      ids.push(id)
    }
    for (const id of ids) {
      const record = id > 0n && id <= BigInt(Number.MAX_SAFE_INTEGER) ? registry.get(Number(id)) : undefined
      if (record !== undefined) lines += formatClientInfo(record, now) + '\n'
    }
  } else if (argv.length !== 2) {
    return SYNTAX
  } else {
    for (const record of registry) lines += formatClientInfo(record, now) + '\n'
  }
  return Buffer.from(lines, 'latin1')
}

interface KillFilter {
  addr?: string
  laddr?: string
  user?: string
  type?: ClientType
  id?: number
  /** Redis 7.4's MAXAGE: only clients connected at least this many seconds. */
  maxAge?: number
  skipme: boolean
}

/**
 * KILL addr (old form: OK or `No such client`), or KILL <filter> <value> … (a count), with
 * Redis 7.0's filters and 7.4's MAXAGE.
 */
function kill(caller: ClientCaller, argv: Buffer[]): Reply | Promise<Reply> {
  const oldForm = argv.length === 3
  const filter = oldForm ? { addr: text(argv[2]), skipme: false } : parseKillFilter(argv)
  if (filter instanceof ReplyError) return filter
  const run = (): Reply => {
    const killed = killMatching(caller, filter)
    if (oldForm) return killed === 0 ? NO_SUCH_CLIENT : OK
    return killed
  }
  if (filter.user === undefined) return run()
  const user = filter.user
  const exists = caller.userExists(user)
  const verdict = (found: boolean): Reply => (found ? run() : new ReplyError(`ERR No such user '${user}'`))
  return exists instanceof Promise ? exists.then(verdict) : verdict(exists)
}

function parseKillFilter(argv: Buffer[]): KillFilter | ReplyError {
  if (argv.length < 4) return SYNTAX
  const filter: KillFilter = { skipme: true }
  for (let i = 2; i < argv.length; i += 2) {
    const option = lower(argv[i])
    if (i + 1 >= argv.length) return SYNTAX
    const value = argv[i + 1]
    if (option === 'id') {
      const id = integer(value)
      if (id === undefined || id < 1n) return CLIENT_ID_RANGE
      filter.id = id > BigInt(Number.MAX_SAFE_INTEGER) ? -1 : Number(id)
    } else if (option === 'maxage') {
      const seconds = integer(value)
      if (seconds === undefined) return MAXAGE_NOT_INTEGER
      if (seconds <= 0n) return MAXAGE_RANGE
      filter.maxAge = Number(seconds)
    } else if (option === 'type') {
      const type = clientType(value)
      if (type === undefined) return unknownType(value)
      filter.type = type
    } else if (option === 'addr') {
      filter.addr = text(value)
    } else if (option === 'laddr') {
      filter.laddr = text(value)
    } else if (option === 'user') {
      filter.user = text(value)
    } else if (option === 'skipme') {
      const yes = lower(value)
      if (yes !== 'yes' && yes !== 'no') return SYNTAX
      filter.skipme = yes === 'yes'
    } else {
      return SYNTAX
    }
  }
  return filter
}

/** Kills every client the filter matches (the caller after its reply); returns how many. */
function killMatching(caller: ClientCaller, filter: KillFilter): number {
  const now = Date.now()
  let killed = 0
  let self = false
  for (const record of [...caller.registry]) {
    if (filter.addr !== undefined && record.addr !== filter.addr) continue
    if (filter.laddr !== undefined && record.laddr !== filter.laddr) continue
    if (filter.id !== undefined && record.id !== filter.id) continue
    if (filter.maxAge !== undefined && Math.floor(now / 1000) - Math.floor(record.createdAt / 1000) < filter.maxAge) continue
    const probe = filter.type !== undefined || filter.user !== undefined ? record.handle.probe() : undefined
    if (filter.type !== undefined && record.type(probe) !== filter.type) continue
    if (filter.user !== undefined && probe?.user !== filter.user) continue
    if (record === caller.record) {
      if (filter.skipme) continue
      self = true
    } else {
      record.handle.kill()
    }
    killed++
  }
  if (self) caller.record.handle.closeAfterReply()
  return killed
}

/** PAUSE timeout [WRITE|ALL]: the mode is checked before the timeout, as Redis does. */
function pause(registry: ClientRegistry, argv: Buffer[]): Reply {
  let mode: PauseMode = 'all'
  if (argv.length === 4) {
    const given = lower(argv[3])
    if (given !== 'write' && given !== 'all') return PAUSE_MODE
    mode = given
  }
  const timeout = integer(argv[2])
  if (timeout === undefined) return TIMEOUT_NOT_INTEGER
  if (timeout < 0n) return TIMEOUT_NEGATIVE
  const now = Date.now()
  const end = timeout === 0n ? 0 : Number(timeout) + now
  registry.pause.pause(Number.isFinite(end) ? end : Number.MAX_SAFE_INTEGER, mode)
  return OK
}

/** UNBLOCK id [TIMEOUT|ERROR]: the reason is checked first, then the id (Redis's order). */
function unblock(registry: ClientRegistry, argv: Buffer[]): Reply {
  let error = false
  if (argv.length === 4) {
    const reason = lower(argv[3])
    if (reason !== 'timeout' && reason !== 'error') return UNBLOCK_REASON
    error = reason === 'error'
  }
  const id = integer(argv[2])
  if (id === undefined) return NOT_INTEGER
  if (id < 1n || id > BigInt(Number.MAX_SAFE_INTEGER)) return 0
  return registry.get(Number(id))?.handle.unblock?.(error) === true ? 1 : 0
}
