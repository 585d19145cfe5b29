/**
 * WAIT numreplicas timeout (Redis 7.0 `replication.c`). The engine has no replicas: WAIT answers
 * 0 at once when it asks for none (or inside MULTI), and otherwise waits, as Redis with no
 * replica would, until its timeout (0: forever), CLIENT UNBLOCK or the disconnection, then 0.
 *
 * WAITAOF numlocal numreplicas timeout (Redis 7.2 `waitaofCommand`): numlocal (0 or 1) waits
 * until the local AOF has fsynced this connection's last write; numreplicas ≥ 1 is never met
 * (no replicas), so it waits its timeout. The reply is `[local fsynced (0|1), replicas (0)]`.
 */
import { ReplyError } from '../../../../reply.js'
import type { CommandContext, Out, Session } from '../../command.js'
import type { Engine } from '../../engine.js'
import { NOT_INTEGER } from '../../errors.js'
import { readInteger } from '../../lib/numbers.js'
import { blockClient, mayBlock, readMillisecondsTimeout } from './common.js'

/** Replicas that acknowledged: there are none. */
const ACKNOWLEDGED = 0

function wait(ctx: CommandContext, argv: readonly string[]): Out {
  const replicas = readInteger(argv[1])
  if (replicas === null) return NOT_INTEGER
  const timeout = readMillisecondsTimeout(argv[2])
  if (timeout instanceof ReplyError) return timeout
  if (ACKNOWLEDGED >= replicas || !mayBlock(ctx)) return ACKNOWLEDGED
  return blockClient(ctx, { kind: 'wait', keys: [], timeout, timedOut: ACKNOWLEDGED, serve: () => undefined })
}

const NUMLOCAL_RANGE = new ReplyError('ERR value is out of range, value must between 0 and 1')
const NOT_POSITIVE = new ReplyError('ERR value is out of range, must be positive')
/** Redis 7.2's refusal, also given to a blocked caller when the AOF is turned off meanwhile. */
export const WAITAOF_WITHOUT_AOF = new ReplyError('ERR WAITAOF cannot be used when numlocal is set but appendonly is disabled.')

/** 1 when the local AOF has fsynced the last write `session` logged (Redis: fsynced_reploff >= woff). */
function localAck(engine: Engine, session: Session): number {
  const target = engine.propagationTarget
  return target !== undefined && target.syncedOffset >= (session.loggedOffset ?? 0) ? 1 : 0
}

function waitaof(ctx: CommandContext, argv: readonly string[]): Out {
  // Redis's order: numlocal, numreplicas, timeout, then the AOF check.
  const numlocal = readInteger(argv[1])
  if (numlocal === null) return NOT_INTEGER
  if (numlocal < 0 || numlocal > 1) return NUMLOCAL_RANGE
  const numreplicas = readInteger(argv[2])
  if (numreplicas === null) return NOT_INTEGER
  if (numreplicas < 0) return NOT_POSITIVE
  const timeout = readMillisecondsTimeout(argv[3])
  if (timeout instanceof ReplyError) return timeout
  const { engine, session } = ctx
  if (numlocal === 1 && engine.propagationTarget === undefined) return WAITAOF_WITHOUT_AOF
  const answer = (): Out => [localAck(engine, session), ACKNOWLEDGED]
  if ((localAck(engine, session) >= numlocal && ACKNOWLEDGED >= numreplicas) || !mayBlock(ctx)) return answer()
  return blockClient(ctx, {
    kind: 'waitaof',
    keys: [],
    timeout,
    // Read when the time runs out: the local fsync may have happened meanwhile.
    get timedOut() {
      return answer()
    },
    serve: () => {
      if (numlocal === 1 && engine.propagationTarget === undefined) return WAITAOF_WITHOUT_AOF
      return localAck(engine, session) >= numlocal && ACKNOWLEDGED >= numreplicas ? answer() : undefined
    },
  })
}

export const waitCommands = { wait, waitaof }
