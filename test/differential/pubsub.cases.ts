import type { DiffCase } from './harness.js'

/**
 * PUBLISH, SPUBLISH and PUBSUB as one client sees them, against redis-server 7.0. These run with
 * nobody subscribed; the live cases with subscribers (counts, message order, connection-mode
 * replies) are in `pubsub.test.ts`.
 */
export const pubsubCases: DiffCase[] = [
  {
    name: 'PUBLISH and SPUBLISH with nobody listening reach 0 receivers',
    commands: [
      ['PUBLISH', 'news', 'hello'],
      ['publish', '', ''],
      ['PUBLISH', Buffer.from([0, 255, 10]), Buffer.from('é')],
      ['SPUBLISH', 'news', 'hello'],
    ],
  },
  {
    name: 'PUBSUB introspection with nobody subscribed',
    commands: [
      ['PUBSUB', 'CHANNELS'],
      ['PUBSUB', 'CHANNELS', '*'],
      ['PUBSUB', 'NUMSUB'],
      ['PUBSUB', 'NUMSUB', 'a', 'b', 'a'],
      ['PUBSUB', 'NUMPAT'],
      ['PUBSUB', 'SHARDCHANNELS'],
      ['PUBSUB', 'SHARDCHANNELS', 'a*'],
      ['PUBSUB', 'SHARDNUMSUB'],
      ['pubsub', 'shardnumsub', 'x', ''],
    ],
  },
  {
    name: 'PUBSUB HELP lists the subcommands',
    commands: [['PUBSUB', 'HELP'], ['pubsub', 'help']],
  },
  {
    name: 'PUBSUB CHANNELS and SHARDCHANNELS take one pattern at most, named as typed in the error',
    commands: [
      ['PUBSUB', 'CHANNELS', 'a', 'b'],
      ['pubsub', 'channels', 'a', 'b'],
      ['PUBSUB', 'ShardChannels', 'a', 'b', 'c'],
    ],
  },
  {
    name: 'wrong arity and unknown subcommands',
    commands: [
      ['PUBLISH', 'a'],
      ['PUBLISH', 'a', 'b', 'c'],
      ['SPUBLISH', 'a'],
      ['PUBSUB'],
      ['PUBSUB', 'FOO'],
      ['PUBSUB', 'NUMPAT', 'x'],
      ['PUBSUB', 'HELP', 'x'],
    ],
  },
]
