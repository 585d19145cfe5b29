import { runDifferential } from './harness.js'
import { scriptingCases } from './scripting.cases.js'
import { functionCases } from './scripting.functions.cases.js'
import { libraryCases } from './scripting.libraries.cases.js'

runDifferential('scripting: EVAL, EVALSHA, SCRIPT', scriptingCases)
runDifferential('scripting: Lua libraries', libraryCases)
runDifferential('scripting: FUNCTION, FCALL', functionCases)
