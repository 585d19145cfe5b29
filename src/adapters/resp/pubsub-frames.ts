/**
 * How the RESP listener frames what a pub/sub connection is sent: the confirmations of
 * (P|S)SUBSCRIBE and (P|S)UNSUBSCRIBE (one frame per channel) and the messages. Redis 7.0 sends
 * them as arrays on a RESP2 connection and as push frames on a RESP3 one; this is the one place
 * that builds them, so the listener switches framing here.
 */

import type { Bytes, Reply } from '../../reply.js'
import { pushFrame, pushFrames, type RespVersion } from './connection-protocol.js'

/** The kinds of confirmation frame: `[kind, channel or null, count]`. */
export type ConfirmationKind = 'subscribe' | 'psubscribe' | 'ssubscribe' | 'unsubscribe' | 'punsubscribe' | 'sunsubscribe'

/** One confirmation: its kind, the channel (null for an UNSUBSCRIBE of nothing) and the count after it. */
export interface Confirmation {
  readonly kind: ConfirmationKind
  readonly channel: Bytes | null
  readonly count: number
}

const KIND_BULK = new Map<string, Buffer>(
  ['subscribe', 'psubscribe', 'ssubscribe', 'unsubscribe', 'punsubscribe', 'sunsubscribe', 'message', 'pmessage', 'smessage'].map((kind) => [kind, Buffer.from(kind)]),
)

function kindBulk(kind: string): Buffer {
  return KIND_BULK.get(kind) ?? Buffer.from(kind)
}

/** The confirmations of one command, each a frame of its own, in order. */
export function confirmationFrames(resp: RespVersion, confirmations: readonly Confirmation[]): Buffer {
  return pushFrames(resp, confirmations.map((c): Reply[] => [kindBulk(c.kind), c.channel, c.count]))
}

/** A message on a channel (`message`) or a shard channel (`smessage`). */
export function messageFrame(resp: RespVersion, kind: 'message' | 'smessage', channel: Bytes, message: Bytes): Buffer {
  return pushFrame(resp, [kindBulk(kind), channel, message])
}

/** A message on a channel matching a pattern. */
export function patternMessageFrame(resp: RespVersion, pattern: Bytes, channel: Bytes, message: Bytes): Buffer {
  return pushFrame(resp, [kindBulk('pmessage'), pattern, channel, message])
}
