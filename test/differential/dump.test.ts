import { runDifferential } from './harness.js'
import { dumpCases } from './dump.cases.js'

runDifferential('dump', dumpCases)
