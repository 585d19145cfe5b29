/**
 * Connection commands the engine answers itself: PING, ECHO, SELECT, RESET, READONLY/READWRITE
 * and the CLIENT subcommands that concern the calling session. AUTH, HELLO and QUIT belong to
 * the RESP listener (they act on the socket); CLIENT subcommands that act on other connections
 * (KILL, PAUSE, REPLY, TRACKING …) are not answered here because the engine does not track the
 * listener's connections.
 */
import { CLIENT_HELP } from '../../../../commands/client-help.js'
import { OK, PONG, ReplyError, Status } from '../../../../reply.js'
import type { CommandTable, CommandContext, Out, Session } from '../../command.js'
import { BAD_CLIENT_NAME, DB_INDEX_OUT_OF_RANGE, NOT_INTEGER, SYNTAX, wrongArity } from '../../errors.js'
import { readInteger } from '../../lib/numbers.js'
import { readDbIndex } from '../server/databases.js'

const RESET = new Status('RESET')
const CLUSTER_DISABLED = new ReplyError('ERR This instance has cluster support disabled')
const INVALID_CLIENT_ID = new ReplyError('ERR Invalid client ID')
const UNBLOCK_REASON = new ReplyError('ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR')

/** PING [message]: PONG, or the message as a bulk string. The table's arity (-1) allows more words; PING checks itself. */
function ping(_ctx: CommandContext, argv: readonly string[]): Out {
  if (argv.length > 2) return wrongArity('ping')
  return argv.length === 1 ? PONG : argv[1]
}

function echo(_ctx: CommandContext, argv: readonly string[]): Out {
  return argv[1]
}

/** SELECT index: the session's database from its next command on. */
function select(ctx: CommandContext, argv: readonly string[]): Out {
  const index = readDbIndex(argv[1])
  if (index instanceof ReplyError) return index
  if (index < 0 || index >= ctx.engine.databases.length) return DB_INDEX_OUT_OF_RANGE
  ctx.session.db = index
  return OK
}

/**
 * RESET: back to a fresh connection's state (database 0, no name). The ACL user is kept:
 * Redis re-authenticates as `default`, but a session here carries no separate "authenticated"
 * state, so switching users would grant the default user's rights without its password.
 */
function reset(ctx: CommandContext): Out {
  ctx.session.db = 0
  ctx.session.name = ''
  return RESET
}

/** READONLY / READWRITE only mean something to a cluster replica. */
function clusterOnly(): Out {
  return CLUSTER_DISABLED
}

function clientId(ctx: CommandContext): Out {
  return ctx.session.id
}

function clientGetname(ctx: CommandContext): Out {
  return ctx.session.name === '' ? null : ctx.session.name
}

/** CLIENT SETNAME name: printable ASCII without spaces ('!'..'~'); empty clears the name. */
function clientSetname(ctx: CommandContext, argv: readonly string[]): Out {
  const name = argv[2]
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i)
    if (c < 33 || c > 126) return BAD_CLIENT_NAME
  }
  ctx.session.name = name
  return OK
}

/**
 * One CLIENT LIST / CLIENT INFO line, fields as Redis 7.0 writes them. Figures the engine does
 * not have (socket, buffers, age) read as an idle connection's; `fd=-1` as Redis shows for
 * connections without a socket of their own.
 */
function describeClient(ctx: CommandContext, session: Session, argv: readonly string[]): string {
  let argvBytes = 0
  for (const arg of argv) argvBytes += arg.length
  return (
    `id=${session.id} addr=${session.address} laddr=127.0.0.1:${ctx.engine.config.get('port') ?? '6379'} fd=-1 ` +
    `name=${session.name} age=0 idle=0 flags=N db=${session.db} sub=0 psub=0 ssub=0 multi=-1 qbuf=0 qbuf-free=0 ` +
    `argv-mem=${argvBytes} multi-mem=0 rbs=0 rbp=0 obl=0 oll=0 omem=0 tot-mem=0 events=r cmd=${ctx.name} ` +
    `user=${session.user} redir=-1 resp=2\n`
  )
}

function clientInfo(ctx: CommandContext, argv: readonly string[]): Out {
  return describeClient(ctx, ctx.session, argv)
}

const CLIENT_TYPES = new Set(['normal', 'master', 'replica', 'slave', 'pubsub'])

/**
 * CLIENT LIST [TYPE type] [ID id ...]: the calling session is the only connection the engine
 * knows, so it lists that one when the filters admit it.
 */
function clientList(ctx: CommandContext, argv: readonly string[]): Out {
  let included = true
  for (let i = 2; i < argv.length; i++) {
    const option = argv[i].toLowerCase()
    if (option === 'type' && i + 1 < argv.length) {
      const type = argv[++i].toLowerCase()
      if (!CLIENT_TYPES.has(type)) return new ReplyError(`ERR Unknown client type '${argv[i]}'`)
      if (type !== 'normal') included = false
    } else if (option === 'id' && i + 1 < argv.length) {
      let matched = false
      while (i + 1 < argv.length) {
        const id = readInteger(argv[++i])
        if (id === null || id <= 0) return INVALID_CLIENT_ID
        if (id === ctx.session.id) matched = true
      }
      if (!matched) included = false
    } else return SYNTAX
  }
  return included ? describeClient(ctx, ctx.session, argv) : ''
}

/** CLIENT NO-EVICT on|off: accepted; the engine never evicts clients. */
function clientNoEvict(_ctx: CommandContext, argv: readonly string[]): Out {
  const mode = argv[2].toLowerCase()
  return mode === 'on' || mode === 'off' ? OK : SYNTAX
}

function clientGetredir(): Out {
  return -1
}

/** CLIENT UNBLOCK id [TIMEOUT|ERROR]: no client is ever blocked inside the engine, so 0. */
/**
 * CLIENT UNBLOCK id [TIMEOUT|ERROR]: ends the blocked call of client `id` (the session id, as
 * CLIENT ID reports it) as if its time ran out, or with an UNBLOCKED error. 1 when it was blocked.
 */
function clientUnblock(ctx: CommandContext, argv: readonly string[]): Out {
  const id = readInteger(argv[2])
  if (id === null) return NOT_INTEGER
  let error = false
  if (argv.length === 4) {
    const reason = argv[3].toLowerCase()
    if (reason !== 'timeout' && reason !== 'error') return UNBLOCK_REASON
    error = reason === 'error'
  } else if (argv.length > 4) return SYNTAX
  return ctx.engine.blocking.unblock(id, error) ? 1 : 0
}



/** Connection commands. */
export const connectionCommands: CommandTable = {
  ping,
  echo,
  select,
  reset,
  readonly: clusterOnly,
  readwrite: clusterOnly,
  'client|id': clientId,
  'client|getname': clientGetname,
  'client|setname': clientSetname,
  'client|info': clientInfo,
  'client|list': clientList,
  'client|no-evict': clientNoEvict,
  'client|getredir': clientGetredir,
  'client|unblock': clientUnblock,
  'client|help': () => CLIENT_HELP,
}
