/**
 * The protocol a RESP connection speaks (2 until `HELLO 3`), and the framing that depends on it:
 * command replies (reshaped per command for RESP3), pub/sub and other out-of-band frames (an
 * array in RESP2, a push `>` in RESP3), and HELLO's own reply.
 *
 * Shared by everything in the listener that writes to a connection, so that a new kind of
 * out-of-band message (sharded pub/sub, invalidations) is framed in one place.
 */

import { OK, ReplyMap, ReplyPush, type Command, type Reply } from '../../reply.js'
import { encodeReplies, encodeReply, encodeResp3Replies, encodeResp3Reply } from '../../resp/encode.js'
import { resp3Reply } from '../../resp/resp3-shape.js'

/** The RESP version of a connection: 2 by default, 3 after `HELLO 3`. */
export type RespVersion = 2 | 3

/**
 * The bytes of the reply to `argv`: as the executor gave it in RESP2, reshaped into the RESP3
 * types Redis uses for that command in RESP3.
 */
export function encodeCommandReply(version: RespVersion, argv: Command, reply: Reply): Buffer {
  if (reply === OK) return OK_FRAME // the same bytes in both protocols; shared, never written into
  return version === 3 ? encodeResp3Reply(resp3Reply(argv, reply)) : encodeReply(reply)
}

const OK_FRAME = encodeReply(OK)

/** A reply already in its final shape (no per-command reshaping). */
export function encodeFor(version: RespVersion, reply: Reply): Buffer {
  return version === 3 ? encodeResp3Reply(reply) : encodeReply(reply)
}

/**
 * One out-of-band frame: a pub/sub message or (un)subscribe confirmation, an invalidation… An
 * array in RESP2, a push in RESP3, as Redis's `addReplyPushLen` writes it.
 */
export function pushFrame(version: RespVersion, items: readonly Reply[]): Buffer {
  return version === 3 ? encodeResp3Reply(new ReplyPush(items)) : encodeReply(items)
}

/** Several out-of-band frames in one buffer (one per channel of a SUBSCRIBE). */
export function pushFrames(version: RespVersion, frames: readonly (readonly Reply[])[]): Buffer {
  return version === 3 ? encodeResp3Replies(frames.map((items) => new ReplyPush(items))) : encodeReplies(frames)
}

/** What HELLO answers: the server's description, a map in RESP3 and a flat array in RESP2. */
export function helloReply(version: RespVersion, fields: { version: string; id: number }): Reply {
  const entries: Reply[] = [
    bulk('server'), bulk('redis'),
    bulk('version'), bulk(fields.version),
    bulk('proto'), version,
    bulk('id'), fields.id,
    bulk('mode'), bulk('standalone'),
    bulk('role'), bulk('master'),
    bulk('modules'), [],
  ]
  return version === 3 ? new ReplyMap(entries) : entries
}

function bulk(text: string): Buffer {
  return Buffer.from(text, 'latin1')
}
