import { runDifferential } from './harness.js'
import { hyperLogLogCases } from './hyperloglog.cases.js'
import { hyperLogLogCardinalityCases } from './hyperloglog.cardinality.cases.js'

runDifferential('hyperloglog', hyperLogLogCases)
runDifferential('hyperloglog cardinality', hyperLogLogCardinalityCases)
