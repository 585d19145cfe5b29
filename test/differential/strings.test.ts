import { runDifferential } from './harness.js'
import { stringCases } from './strings.cases.js'
import { incrbyfloatCases } from './strings.incrbyfloat.cases.js'

runDifferential('strings', stringCases)
runDifferential('strings: INCRBYFLOAT random sequences', incrbyfloatCases)
