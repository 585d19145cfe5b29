import type { CommandTable } from '../../command.js'
import { addCommands } from './add.js'
import { memberCommands } from './members.js'
import { popCommands } from './pop.js'
import { rangeCommands } from './range.js'
import { setOperationCommands } from './setops.js'

/**
 * Sorted-set commands (t_zset.c), with Redis 7.0.15's replies, errors and argument order. The
 * value type is `types/zset.ts`; the commands live in `zset/`:
 * - `add.ts`: ZADD, ZINCRBY
 * - `members.ts`: ZCARD, ZSCORE, ZMSCORE, ZRANK, ZREVRANK, ZREM, ZRANDMEMBER, ZSCAN
 * - `range.ts`: ZRANGE and its older forms, ZRANGESTORE, ZCOUNT, ZLEXCOUNT, ZREMRANGEBY*
 * - `pop.ts`: ZPOPMIN, ZPOPMAX, ZMPOP
 * - `setops.ts`: ZUNION, ZINTER, ZDIFF, their *STORE forms, ZINTERCARD
 * Scores are parsed and formatted in `zset/score.ts`, ranges in `zset/ranges.ts`.
 * The blocking forms (BZPOPMIN, BZPOPMAX, BZMPOP) are not served by this engine.
 */
export const sortedSetCommands: CommandTable = {
  ...addCommands,
  ...memberCommands,
  ...rangeCommands,
  ...popCommands,
  ...setOperationCommands,
}
