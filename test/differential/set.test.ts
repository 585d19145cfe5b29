import { runDifferential } from './harness.js'
import { setCases } from './set.cases.js'

runDifferential('set', setCases)
