import { runDifferential } from './harness.js'
import { genericCases } from './generic.cases.js'

runDifferential('generic', genericCases)
