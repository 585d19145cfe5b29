/**
 * The access flags COMMAND GETKEYSANDFLAGS reports for each key. Redis takes them from the key
 * spec that found the key when the key specs answer (`getKeysUsingKeySpecs`); when it falls back
 * to the command's own key finder (`getkeys_proc`), the flags are those that finder sets: SET,
 * BITFIELD, SORT, MIGRATE and GEORADIUS set their own, the generic numkeys finder (EVAL, LMPOP,
 * ZUNIONSTORE … with a numkeys the spec could not read) sets none.
 */
import { resolveCommand, type CommandInfo, type KeySpec } from '../../../../commands/lookup.js'

export interface KeyWithFlags {
  readonly position: number
  readonly flags: readonly string[]
}

/** Redis's string2l: the strict integer syntax, or undefined. */
function strictInteger(text: string): number | undefined {
  return /^(?:0|-?[1-9][0-9]{0,17})$/.test(text) ? Number(text) : undefined
}

/** Key positions one spec finds in `args` (args[0] is the command), or undefined when invalid. */
function specPositions(spec: KeySpec, args: readonly string[]): number[] | undefined {
  const argc = args.length
  let first = 0
  const begin = spec.beginSearch
  if (begin.type === 'index') first = begin.index
  else if (begin.type === 'keyword') {
    const keyword = begin.keyword.toLowerCase()
    const start = begin.startFrom > 0 ? begin.startFrom : argc + begin.startFrom
    const end = begin.startFrom > 0 ? argc - 1 : 1
    for (let i = start; i !== end; i = start <= end ? i + 1 : i - 1) {
      if (i >= argc || i < 1) break
      if (args[i].toLowerCase() === keyword) {
        first = i + 1
        break
      }
    }
    if (first === 0) return []
  } else return undefined
  let last: number
  let step: number
  const find = spec.findKeys
  if (find.type === 'range') {
    step = find.keyStep
    if (find.lastKey >= 0) last = first + find.lastKey
    else if (find.limit === 0) last = argc + find.lastKey
    else last = first + Math.trunc((argc - first) / find.limit) + find.lastKey
  } else if (find.type === 'keynum') {
    step = find.keyStep
    const count = first + find.keyNumIdx < argc ? strictInteger(args[first + find.keyNumIdx]) : undefined
    if (count === undefined || count < 0) return undefined
    first += find.firstKey
    last = first + (count - 1) * step
  } else return undefined
  if (last >= argc || last < first || first >= argc) return undefined
  const positions: number[] = []
  for (let i = first; i <= last; i += step) positions.push(i)
  return positions
}

/** The keys with their flags from the key specs, or undefined when Redis would fall back. */
function fromKeySpecs(info: CommandInfo, args: readonly string[]): KeyWithFlags[] | undefined {
  const specs = info.keySpecs.filter((spec) => !spec.flags.has('not_key'))
  if (specs.length === 0 || specs.some((spec) => spec.flags.has('variable_flags') || spec.flags.has('incomplete'))) return undefined
  const keys: KeyWithFlags[] = []
  for (const spec of specs) {
    const positions = specPositions(spec, args)
    if (positions === undefined) return undefined
    const flags = [...spec.flags]
    for (const position of positions) keys.push({ position, flags })
  }
  return keys
}

const READ = ['RO', 'access']
const OVERWRITE = ['OW', 'update']
const READ_WRITE = ['RW', 'access', 'update']

/** The flags a command's own key finder gives the key at `index` of its result. */
function fallbackFlags(name: string, args: readonly string[], index: number): readonly string[] {
  switch (name) {
    case 'set':
      // SET … GET reads the old value: RW access; a plain SET overwrites.
      return args.slice(3).some((arg) => arg.toLowerCase() === 'get') ? READ_WRITE : OVERWRITE
    case 'bitfield':
      return bitfieldWrites(args) ? READ_WRITE : READ
    case 'sort':
    case 'georadius':
    case 'georadiusbymember':
      return index === 0 ? READ : OVERWRITE
    case 'sort_ro':
      return READ
    case 'migrate':
      return ['RW', 'access', 'delete']
    default:
      return []
  }
}

/** True when a BITFIELD call has a SET or INCRBY operation. */
function bitfieldWrites(args: readonly string[]): boolean {
  for (let i = 2; i < args.length; i++) {
    const operation = args[i].toLowerCase()
    if (operation === 'set' || operation === 'incrby') return true
  }
  return false
}

/** Flags for each of `positions` (as COMMAND GETKEYS found them in `args`). */
export function keysWithFlags(args: readonly string[], positions: readonly number[]): KeyWithFlags[] {
  const info = resolveCommand(args)
  if (info === undefined) return []
  const fromSpecs = fromKeySpecs(info, args)
  if (fromSpecs !== undefined && fromSpecs.length === positions.length && fromSpecs.every((key, i) => key.position === positions[i])) {
    return fromSpecs
  }
  return positions.map((position, index) => ({ position, flags: fallbackFlags(info.name, args, index) }))
}
