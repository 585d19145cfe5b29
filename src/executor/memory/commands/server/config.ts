/**
 * CONFIG GET / SET / RESETSTAT / REWRITE / HELP, over the parameter table of Redis 7.0
 * (`config-parameters.ts`). Values live in `engine.config` under canonical names.
 */
import { OK, ReplyError, Status } from '../../../../reply.js'
import type { CommandContext, Out } from '../../command.js'
import { SYNTAX } from '../../errors.js'
import { stringMatch as globMatch } from '../../lib/glob.js'
import { InvalidValue, PARAMETERS_BY_NAME, PARAMETER_NAMES, type Parameter } from './config-parameters.js'
import { resetStats } from './stats.js'

const NO_CONFIG_FILE = new ReplyError('ERR The server is running without a config file')

/** A name Redis treats as a glob pattern: it contains `*`, `?` or `[` (strpbrk "[*?"). */
function isPattern(name: string): boolean {
  return name.includes('*') || name.includes('?') || name.includes('[')
}

/**
 * CONFIG GET parameter [parameter ...] (several since 7.0). An exact name answers under the name
 * as given; a pattern matches canonical names and aliases case-insensitively. Each parameter is
 * reported once: the first name that reached it wins (Redis dedups through a case-insensitive dict).
 */
function configGet(ctx: CommandContext, argv: readonly string[]): Out {
  const matches = new Map<string, readonly [shownName: string, parameter: Parameter]>()
  for (let i = 2; i < argv.length; i++) {
    const requested = argv[i]
    if (!isPattern(requested)) {
      const lower = requested.toLowerCase()
      const parameter = PARAMETERS_BY_NAME.get(lower)
      if (parameter !== undefined && !matches.has(lower)) matches.set(lower, [requested, parameter])
      continue
    }
    for (const name of PARAMETER_NAMES) {
      if (matches.has(name) || !globMatch(requested, name, true)) continue
      matches.set(name, [name, PARAMETERS_BY_NAME.get(name)!])
    }
  }
  const reply: string[] = []
  for (const [shownName, parameter] of matches.values()) {
    reply.push(shownName, ctx.engine.config.get(parameter.name) ?? parameter.defaultValue)
  }
  return reply
}

/**
 * CONFIG SET parameter value [parameter value ...] (several since 7.0), all or nothing. The
 * names are checked first, in order, and the first problem wins: unknown name, immutable or
 * protected parameter, the same parameter twice. Then each value is checked; a bad one refuses
 * the whole call and names the parameter as Redis names it (its own name, lowercase).
 */
function configSet(ctx: CommandContext, argv: readonly string[]): Out {
  if ((argv.length - 2) % 2 !== 0) return SYNTAX
  const chosen: { readonly name: string; readonly parameter: Parameter; readonly value: string }[] = []
  const seen = new Set<string>()
  for (let i = 2; i < argv.length; i += 2) {
    const given = argv[i]
    const lower = given.toLowerCase()
    const parameter = PARAMETERS_BY_NAME.get(lower)
    if (parameter === undefined) return new ReplyError(`ERR Unknown option or number of arguments for CONFIG SET - '${given}'`)
    if (parameter.access !== 'mutable') return setFailed(given, `can't set ${parameter.access} config`)
    if (seen.has(lower)) return setFailed(given, 'duplicate parameter')
    seen.add(lower)
    chosen.push({ name: lower === parameter.name || lower === parameter.alias ? lower : parameter.name, parameter, value: argv[i + 1] })
  }
  const updates = new Map<string, string>()
  const sent = new Map<string, string>()
  for (const { name, parameter, value } of chosen) {
    sent.set(parameter.name, value)
    const current = updates.get(parameter.name) ?? ctx.engine.config.get(parameter.name) ?? parameter.defaultValue
    const parsed = parameter.parse(value, current)
    if (parsed instanceof InvalidValue) return setFailed(name, parsed.reason)
    if (parameter.name === 'save' && parsed !== '' && ctx.engine.rdb === undefined) return setFailed(name, SAVE_WITHOUT_DIRECTORY)
    updates.set(parameter.name, parsed)
  }
  // Parameters with a live effect (appendonly, appendfsync …) apply before they are stored; a
  // refusal stops there, and what was applied before it stays, as Redis applies in order.
  for (const [name, value] of updates) {
    const refused = applyLive(ctx, name, value, sent.get(name) ?? value)
    if (refused !== undefined) return setFailed(name, refused)
    ctx.engine.config.set(name, value)
  }
  return OK
}

/** Save points on an engine without a data directory would be accepted and never honoured. */
const SAVE_WITHOUT_DIRECTORY = 'persistence is off (no data directory): save points cannot take effect'

/**
 * Runs the engine's live effect of a parameter, if it has one. `appendonly yes` without a data
 * directory has nothing to write to: it is refused rather than stored and ignored.
 */
function applyLive(ctx: CommandContext, name: string, value: string, sent: string): string | undefined {
  const current = ctx.engine.config.get(name)
  // The shown text of notify-keyspace-events hides `n` under `A`: the same text may change flags.
  if (current === value && name !== 'notify-keyspace-events') return undefined
  const apply = ctx.engine.configAppliers.get(name)
  if (apply !== undefined) return apply(value, sent)
  if (name === 'appendonly' && value === 'yes') return 'this executor has no data directory (start it with persistence options, or the CLI without --no-persistence)'
  return undefined
}

function setFailed(name: string, reason: string): ReplyError {
  return new ReplyError(`ERR CONFIG SET failed (possibly related to argument '${name}') - ${reason}`)
}

/** CONFIG RESETSTAT: zeroes the counters INFO reports (commands, errors, expired keys …). */
function configResetstat(ctx: CommandContext): Out {
  resetStats(ctx.engine)
  return OK
}

/** CONFIG REWRITE: there is never a config file to rewrite, as for a server started without one. */
function configRewrite(): Out {
  return NO_CONFIG_FILE
}

const HELP = [
  'CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:',
  'GET <pattern>',
  '    Return parameters matching the glob-like <pattern> and their values.',
  'SET <directive> <value>',
  '    Set the configuration <directive> to <value>.',
  'RESETSTAT',
  '    Reset statistics reported by the INFO command.',
  'REWRITE',
  '    Rewrite the configuration file.',
  'HELP',
  '    Prints this help.',
].map((line) => new Status(line))

function configHelp(): Out {
  return HELP
}

export const configCommands = {
  'config|get': configGet,
  'config|set': configSet,
  'config|resetstat': configResetstat,
  'config|rewrite': configRewrite,
  'config|help': configHelp,
}
