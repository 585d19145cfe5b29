/**
 * Pub/sub commands (Redis 7.0 `pubsub.c`): PUBLISH, SPUBLISH, PUBSUB and the six subscription
 * commands. The hub itself, its connection-mode API and its ordering rules are in `../pubsub.ts`.
 *
 * SUBSCRIBE and its siblings answer several replies, one per channel; their Out is the array of
 * those replies, which the RESP listener writes one by one (`isSubscriptionCommand`). A session
 * the listener did not attach to the hub (a REST call) cannot subscribe: it gets the answer the
 * socket executor gives, `ERR Command is not available`.
 */
import { ReplyError, Status } from '../../../../reply.js'
import type { CommandContext, CommandTable, Out } from '../../command.js'
import type { PubSubReply } from '../../pubsub.js'

const HELP: readonly Status[] = [
  'PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:',
  'CHANNELS [<pattern>]',
  "    Return the currently active channels matching a <pattern> (default: '*').",
  'NUMPAT',
  '    Return number of subscriptions to patterns.',
  'NUMSUB [<channel> ...]',
  '    Return the number of subscribers for the specified channels, excluding',
  '    pattern subscriptions(default: no channels).',
  'SHARDCHANNELS [<pattern>]',
  "    Return the currently active shard level channels matching a <pattern> (default: '*').",
  'SHARDNUMSUB [<shardchannel> ...]',
  '    Return the number of subscribers for the specified shard level channel(s)',
  'HELP',
  '    Prints this help.',
].map((line) => new Status(line))

/** PUBLISH channel message: the number of receivers (channel subscribers + pattern matches). */
function publish(ctx: CommandContext, argv: readonly string[]): Out {
  return ctx.engine.pubsub.publish(argv[1], argv[2])
}

/** SPUBLISH shardchannel message: the number of shard-channel subscribers. */
function spublish(ctx: CommandContext, argv: readonly string[]): Out {
  return ctx.engine.pubsub.spublish(argv[1], argv[2])
}

/**
 * The error Redis gives CHANNELS / SHARDCHANNELS with more than one pattern: the arity of the
 * table (-2) lets them through, `pubsubCommand` refuses them, naming the subcommand as typed.
 */
function subcommandSyntax(argv: readonly string[]): ReplyError {
  return new ReplyError(`ERR unknown subcommand or wrong number of arguments for '${argv[1]}'. Try PUBSUB HELP.`)
}

/** PUBSUB CHANNELS [pattern]: active channels (with at least one subscriber), matching `pattern`. */
function pubsubChannels(ctx: CommandContext, argv: readonly string[]): Out {
  if (argv.length > 3) return subcommandSyntax(argv)
  return ctx.engine.pubsub.channelNames(argv[2])
}

/** PUBSUB SHARDCHANNELS [pattern]: the same over shard channels. */
function pubsubShardChannels(ctx: CommandContext, argv: readonly string[]): Out {
  if (argv.length > 3) return subcommandSyntax(argv)
  return ctx.engine.pubsub.shardChannelNames(argv[2])
}

/** PUBSUB NUMSUB [channel ...]: channel, count pairs (pattern subscribers not counted). */
function pubsubNumsub(ctx: CommandContext, argv: readonly string[]): Out {
  const out: Out[] = []
  for (let i = 2; i < argv.length; i++) out.push(argv[i], ctx.engine.pubsub.channelSubscribers(argv[i]))
  return out
}

/** PUBSUB SHARDNUMSUB [shardchannel ...]: the same over shard channels. */
function pubsubShardNumsub(ctx: CommandContext, argv: readonly string[]): Out {
  const out: Out[] = []
  for (let i = 2; i < argv.length; i++) out.push(argv[i], ctx.engine.pubsub.shardChannelSubscribers(argv[i]))
  return out
}

/** PUBSUB NUMPAT: distinct patterns subscribed by any client (not subscriptions). */
function pubsubNumpat(ctx: CommandContext): Out {
  return ctx.engine.pubsub.patternCount
}

/** The replies of a subscription command, or the refusal for a session not attached to the hub. */
function connectionReplies(ctx: CommandContext, replies: PubSubReply[] | undefined): Out {
  return replies ?? new ReplyError(`ERR Command is not available: '${ctx.name}'`)
}

/** SUBSCRIBE channel [channel ...]: one confirmation per channel, duplicates included. */
function subscribe(ctx: CommandContext, argv: readonly string[]): Out {
  return connectionReplies(ctx, ctx.engine.pubsub.subscribe(ctx.session.id, argv.slice(1)))
}

/** UNSUBSCRIBE [channel ...]: without channels, every channel of the connection. */
function unsubscribe(ctx: CommandContext, argv: readonly string[]): Out {
  return connectionReplies(ctx, ctx.engine.pubsub.unsubscribe(ctx.session.id, argv.slice(1)))
}

/** PSUBSCRIBE pattern [pattern ...]. */
function psubscribe(ctx: CommandContext, argv: readonly string[]): Out {
  return connectionReplies(ctx, ctx.engine.pubsub.psubscribe(ctx.session.id, argv.slice(1)))
}

/** PUNSUBSCRIBE [pattern ...]. */
function punsubscribe(ctx: CommandContext, argv: readonly string[]): Out {
  return connectionReplies(ctx, ctx.engine.pubsub.punsubscribe(ctx.session.id, argv.slice(1)))
}

/** SSUBSCRIBE shardchannel [shardchannel ...]: counted apart from channels and patterns. */
function ssubscribe(ctx: CommandContext, argv: readonly string[]): Out {
  return connectionReplies(ctx, ctx.engine.pubsub.ssubscribe(ctx.session.id, argv.slice(1)))
}

/** SUNSUBSCRIBE [shardchannel ...]. */
function sunsubscribe(ctx: CommandContext, argv: readonly string[]): Out {
  return connectionReplies(ctx, ctx.engine.pubsub.sunsubscribe(ctx.session.id, argv.slice(1)))
}

/** pubsub commands. */
export const pubSubCommands: CommandTable = {
  publish,
  spublish,
  'pubsub|channels': pubsubChannels,
  'pubsub|shardchannels': pubsubShardChannels,
  'pubsub|numsub': pubsubNumsub,
  'pubsub|shardnumsub': pubsubShardNumsub,
  'pubsub|numpat': pubsubNumpat,
  'pubsub|help': () => HELP,
  subscribe,
  unsubscribe,
  psubscribe,
  punsubscribe,
  ssubscribe,
  sunsubscribe,
}
