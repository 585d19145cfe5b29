/**
 * WAIT numreplicas timeout (Redis 7.0 `replication.c`). The engine has no replicas: WAIT answers
 * 0 at once when it asks for none (or inside MULTI), and otherwise waits, as Redis with no
 * replica would, until its timeout (0: forever), CLIENT UNBLOCK or the disconnection, then 0.
 */
import { ReplyError } from '../../../../reply.js'
import type { CommandContext, Out } from '../../command.js'
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

export const waitCommands = { wait }
