/**
 * The access flags COMMAND GETKEYSANDFLAGS reports for each key. Redis takes them from the key
 * spec that found the key when the key specs answer (`getKeysUsingKeySpecs`); when it falls back
 * to the command's own key finder (`getkeys_proc`), the flags are those that finder sets: SET,
 * BITFIELD, SORT, MIGRATE and GEORADIUS set their own, the generic numkeys finder (EVAL, LMPOP,
 * ZUNIONSTORE … with a numkeys the spec could not read) sets none.
 */
import { keysFoundBySpecs, resolveCommand, type CommandInfo } from '../../../../commands/lookup.js'

export interface KeyWithFlags {
  readonly position: number
  readonly flags: readonly string[]
}

/** The keys with their flags from the key specs, or undefined when Redis would fall back. */
function fromKeySpecs(info: CommandInfo, args: readonly string[]): KeyWithFlags[] | undefined {
  return keysFoundBySpecs(args, info)?.map(({ position, spec }) => ({ position, flags: [...spec.flags] }))
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
