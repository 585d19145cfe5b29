/**
 * The first line of scripts and function libraries: `#!lua flags=no-writes,allow-oom` for EVAL
 * (Redis 7.0's `evalExtractShebangFlags`) and `#!lua name=mylib` for FUNCTION LOAD
 * (`functionExtractLibMetaData`). Both split the line with `sdssplitargs` and hand the engine
 * the code from the line's newline on, so that line numbers in errors stay the script's own.
 */
import { splitInlineArgs } from '../../../../resp/request.js'
import { SCRIPT_FLAGS } from '../../lua/vm.js'

/** A script's body and flags. `flags` is null for a script without shebang (Redis's "compat mode"). */
export interface ParsedScript {
  /** The code the Lua compiler gets: the whole script, or from the shebang's newline on. */
  readonly body: string
  readonly flags: number | null
}

/** Bit of `no-writes` in {@link SCRIPT_FLAGS} order. */
export const NO_WRITES = 1
/** The `allow-oom` bit of script flags. */
export const ALLOW_OOM = 2

/** A library's metadata and code, or the error text (without code) FUNCTION LOAD replies. */
export interface ParsedLibrary {
  readonly name: string
  readonly engine: string
  /** The code from the shebang's newline on. */
  readonly code: string
}

/** The words of a shebang line, or null when its quotes do not balance. */
function splitShebang(line: string): string[] | null {
  try {
    return splitInlineArgs(Buffer.from(line, 'latin1')).map((word) => word.toString('latin1'))
  } catch {
    return null
  }
}

/** EVAL / SCRIPT LOAD: the script's flags from `#!lua flags=…`, or the error text. */
export function parseScript(script: string): ParsedScript | string {
  if (!script.startsWith('#!')) return { body: script, flags: null }
  const end = script.indexOf('\n')
  if (end === -1) return 'Invalid script shebang'
  const parts = splitShebang(script.slice(0, end))
  if (parts === null || parts.length === 0) return 'Invalid engine in script shebang'
  if (parts[0] !== '#!lua') return `Unexpected engine in script shebang: ${parts[0]}`
  let flags = 0
  for (const part of parts.slice(1)) {
    if (!part.startsWith('flags=')) return `Unknown lua shebang option: ${part}`
    const list = part.slice(6)
    // sdssplitlen of an empty string yields no element: `flags=` sets nothing.
    if (list === '') continue
    for (const flag of list.split(',')) {
      const index = (SCRIPT_FLAGS as readonly string[]).indexOf(flag)
      if (index === -1) return `Unexpected flag in script shebang: ${flag}`
      flags |= 1 << index
    }
  }
  return { body: script.slice(end), flags }
}

/** FUNCTION LOAD: the library's name and engine from `#!<engine> name=<name>`, or the error text. */
export function parseLibrary(payload: string): ParsedLibrary | string {
  if (!payload.startsWith('#!')) return 'Missing library metadata'
  const end = payload.indexOf('\n')
  if (end === -1) return 'Invalid library metadata'
  const parts = splitShebang(payload.slice(0, end))
  if (parts === null || parts.length === 0) return 'Invalid library metadata'
  let name: string | null = null
  for (const part of parts.slice(1)) {
    if (part.slice(0, 5).toLowerCase() !== 'name=') return `Invalid metadata value given: ${part}`
    if (name !== null) return 'Invalid metadata value, name argument was given multiple times'
    name = part.slice(5)
  }
  if (name === null) return 'Library name was not given'
  return { name, engine: parts[0].slice(2), code: payload.slice(end) }
}

const VALID_NAME = /^[A-Za-z0-9_]+$/

/** Library and function names: letters, digits and underscores, at least one (`functionsVerifyName`). */
export function isValidName(name: string): boolean {
  return VALID_NAME.test(name)
}
