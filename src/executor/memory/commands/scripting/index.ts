import type { CommandTable } from '../../command.js'
import { evalCommands } from './eval.js'
import { functionCommands } from './functions.js'

/**
 * Scripting: EVAL and SCRIPT (`scripting/eval.ts`), FUNCTION and FCALL
 * (`scripting/functions.ts`), run by Redis's Lua in WebAssembly (`../lua/`).
 */
export const scriptingCommands: CommandTable = { ...evalCommands, ...functionCommands }
