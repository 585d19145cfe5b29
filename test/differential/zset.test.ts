import { runDifferential } from './harness.js'
import { zsetCases } from './zset.cases.js'
import { zsetRangeCases } from './zset.range.cases.js'
import { zsetSequenceCases } from './zset.sequences.js'

runDifferential('zset', zsetCases)
runDifferential('zset ranges and set operations', zsetRangeCases)
runDifferential('zset seeded sequences', zsetSequenceCases)
