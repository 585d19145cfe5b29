/**
 * CLIENT TRACKING and its companions on the RESP listener: client-side caching is not offered.
 *
 * Tracking means sending invalidation messages whenever a key a client read is written by
 * anyone; the listener has no such feed from the executors, so it cannot keep that promise.
 * Turning tracking on is refused with an error that says so (never an OK that does nothing);
 * what describes tracking being off (OFF, TRACKINGINFO, GETREDIR, CACHING outside tracking)
 * answers exactly as Redis 7.0 does for a client that is not tracking.
 */

import { OK, ReplyError, type Reply } from '../../reply.js'
import { SYNTAX, wrongArity } from '../../commands/errors.js'

/** The refusal of `CLIENT TRACKING ON`. */
export const TRACKING_REFUSED = new ReplyError(
  'ERR CLIENT TRACKING ON is not supported by this server: client-side caching needs invalidation messages, which it does not send',
)

const CACHING_WITHOUT_TRACKING = new ReplyError(
  'ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled',
)

/**
 * The answer to a tracking subcommand of CLIENT (`sub` lowercased), or undefined for any other
 * subcommand. `args` is the whole command.
 */
export function clientTrackingReply(sub: string, args: readonly Uint8Array[]): Reply | undefined {
  switch (sub) {
    case 'tracking': {
      if (args.length < 3) return wrongArity('client|tracking')
      const mode = Buffer.from(args[2]).toString('latin1').toLowerCase()
      if (mode === 'on') return TRACKING_REFUSED
      if (mode === 'off') return OK
      return SYNTAX
    }
    case 'trackinginfo':
      if (args.length !== 2) return wrongArity('client|trackinginfo')
      // Reshaped into a map with a set of flags for RESP3 (see resp3-shape.ts).
      return [bulk('flags'), [bulk('off')], bulk('redirect'), -1, bulk('prefixes'), []]
    case 'getredir':
      if (args.length !== 2) return wrongArity('client|getredir')
      return -1
    case 'caching':
      if (args.length !== 3) return wrongArity('client|caching')
      return CACHING_WITHOUT_TRACKING
  }
  return undefined
}

function bulk(text: string): Buffer {
  return Buffer.from(text, 'latin1')
}
