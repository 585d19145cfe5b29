/**
 * Seeded stream sequences (`stream.generator.ts`) against redis-server 7.0: a few hundred XADD,
 * trim, delete, group, read, claim and XINFO commands per seed, with node limits small enough that
 * entries span many listpack nodes. Replies are compared exactly, the time-bearing ones under the
 * timing relaxations of `stream.timing.ts`.
 */
import { streamSequence } from './stream.generator.js'
import { runStreamDifferential } from './stream.timing.js'

const SEEDS = Number(process.env.STREAM_SEEDS ?? 30)
const LENGTH = Number(process.env.STREAM_LENGTH ?? 400)

runStreamDifferential(
  'stream sequences',
  Array.from({ length: SEEDS }, (_, i) => ({ name: `seed ${i + 1}: ${LENGTH} random stream commands`, commands: streamSequence(i + 1, LENGTH) })),
)
