import { runDifferential } from './harness.js'
import { hashCases } from './hash.cases.js'

runDifferential('hash', hashCases)
