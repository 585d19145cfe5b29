import { runDifferential } from './harness.js'
import { streamCases } from './stream.cases.js'
import { streamGroupCases } from './stream.groups.cases.js'
import { runStreamDifferential } from './stream.timing.js'

runDifferential('stream', streamCases)
runStreamDifferential('stream consumer groups', streamGroupCases)
