import { runDifferential } from './harness.js'
import { listCases } from './list.cases.js'

runDifferential('list', listCases)
