/**
 * ACL users of the in-memory engine: Redis 7.0's rule language (`ACL SETUSER`), the permission
 * check that runs before every command, and the descriptions `ACL LIST` / `ACL GETUSER` print.
 *
 * The model is Redis's (`acl.c` of 7.0.15):
 * - a user has flags (`on`/`off`, `nopass`, `skip-sanitize-payload`/`sanitize-payload`), a list
 *   of SHA-256 password hashes, a root selector and optional extra selectors `(…)`;
 * - a selector is a bitmap of allowed commands (one bit per command and per subcommand, plus a
 *   reserved "future commands" bit that only `+@all` sets), allowed first arguments
 *   (`+select|0`), key patterns with read/write permissions (`~`, `%R~`, `%W~`) and channel
 *   patterns (`&`);
 * - a command runs when any selector allows the command, every key it names and every channel
 *   it publishes or subscribes to.
 *
 * Category rules follow Redis 7.0: module commands (the JSON family, flagged `module`) belong to
 * no category, so only `+@all` / `allcommands` or naming them (`+json.get`) grants them.
 *
 * Names, passwords and patterns are binary strings (one char per byte), the engine's form.
 *
 */
import { randomBytes } from 'node:crypto'
import { bytesEqual, sha256Hex } from '../../auth/digest.js'
import { ReplyError } from '../../reply.js'
import { NOPERM_CHANNEL, NOPERM_KEY, WRONGPASS, nopermRunText } from '../../commands/errors.js'
import { ACL_CATEGORIES } from '../../commands/table.js'
import { allCommands, commandKeys, findCommand, type CommandInfo, type KeySpec } from '../../commands/lookup.js'
import { compileGlob, type GlobMatcher } from './lib/glob.js'

// ---------------------------------------------------------------------------------------------
// Command ids and categories

/** Every command and subcommand, containers before their subcommands (table order). */
const COMMANDS: readonly CommandInfo[] = [...allCommands()]
const COMMAND_ID = new Map<CommandInfo, number>(COMMANDS.map((info, id) => [info, id]))
/** Top-level commands in table order: the walk of the final pass of a description. */
const TOP_LEVEL: readonly CommandInfo[] = COMMANDS.filter((info) => info.parent === undefined)

function isModule(info: CommandInfo): boolean {
  return info.flags.has('module')
}

/**
 * Categories in Redis's order (`ACL CAT`), without the ones only module commands carry: in Redis
 * 7.0 module commands have no ACL categories.
 */
export const CATEGORIES: readonly string[] = ACL_CATEGORIES.map((name) => name.slice(1)).filter((name) =>
  COMMANDS.some((info) => !isModule(info) && info.categories.has(`@${name}`)),
)
const CATEGORY_INDEX = new Map<string, number>(CATEGORIES.map((name, i) => [name, i]))
/** Members of each category (non-module commands carrying it), in table order. */
const CATEGORY_MEMBERS: readonly (readonly CommandInfo[])[] = CATEGORIES.map((name) =>
  COMMANDS.filter((info) => !isModule(info) && info.categories.has(`@${name}`)),
)

/** A category by name, case-insensitively (`strcasecmp`); -1 when unknown. */
function categoryIndex(name: string): number {
  return CATEGORY_INDEX.get(name.toLowerCase()) ?? -1
}

// ---------------------------------------------------------------------------------------------
// Error texts

export { NOPERM_CHANNEL, NOPERM_KEY, WRONGPASS }
const nopermCommand = new Map<string, ReplyError>()

/** `NOPERM this user has no permissions to run the '<cmd>' command` (full name: `config|get`). */
export function nopermRun(name: string): ReplyError {
  let error = nopermCommand.get(name)
  if (error === undefined) {
    error = new ReplyError(nopermRunText(name))
    nopermCommand.set(name, error)
  }
  return error
}

/** Why `ACL SETUSER` refused a rule (Redis's `ACLSetUserStringError`, by errno). */
const RULE_ERRORS = {
  ENOENT: 'Unknown command or category name in ACL',
  EINVAL: 'Syntax error',
  EEXIST:
    "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns",
  EISDIR:
    "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels",
  ENODEV: 'The password you are trying to remove from the user does not exist',
  EBADMSG: 'The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters',
  ECHILD: 'Allowing first-arg of a subcommand is not supported',
} as const
type RuleError = keyof typeof RULE_ERRORS

// ---------------------------------------------------------------------------------------------
// Selectors

const READ = 1
const WRITE = 2
const READ_WRITE = READ | WRITE

interface KeyPattern {
  readonly pattern: string
  /** READ, WRITE or both. */
  flags: number
  readonly matches: GlobMatcher
}

/** The outcome of a check: allowed, or which kind of refusal and at which argument. */
const enum Verdict {
  Ok = 0,
  DeniedCommand = 1,
  DeniedKey = 2,
  DeniedChannel = 4,
}

interface CheckResult {
  verdict: Verdict
  /** Index into argv of the refused key or channel. */
  index: number
}

/** Key positions of one command call, computed once per check across selectors. */
interface KeyCache {
  positions?: number[]
  flags?: number[]
}

/** One selector: commands, keys, channels (Redis's `aclSelector`). */
export class Selector {
  /** One byte per command id: 1 when allowed. */
  allowed: Uint8Array
  /** The reserved bit `+@all` sets: the selector may run commands added later. */
  future = false
  /** SELECTOR_FLAG_ALLCOMMANDS: every command, no bit test (set by `+@all`, cleared by any `-`). */
  allCommands = false
  /** Allowed first arguments of otherwise refused commands (`+select|0`), by command id. */
  firstArgs: Map<number, string[]> | undefined
  allKeys = false
  patterns: KeyPattern[] = []
  allChannels = false
  channels: string[] = []

  constructor() {
    this.allowed = new Uint8Array(COMMANDS.length)
  }

  clone(): Selector {
    const copy = new Selector()
    copy.allowed = this.allowed.slice()
    copy.future = this.future
    copy.allCommands = this.allCommands
    if (this.firstArgs) copy.firstArgs = new Map([...this.firstArgs].map(([id, args]) => [id, [...args]]))
    copy.allKeys = this.allKeys
    copy.patterns = this.patterns.map((p) => ({ ...p }))
    copy.allChannels = this.allChannels
    copy.channels = [...this.channels]
    return copy
  }

  /** Whether every command, key and channel is allowed (the default user): checks are skipped. */
  get unrestricted(): boolean {
    return this.allCommands && this.allKeys && this.allChannels
  }

  private setBit(id: number, value: boolean): void {
    this.allowed[id] = value ? 1 : 0
    if (!value) this.allCommands = false
  }

  /** `ACLChangeSelectorPerm`: a command's bit, and for a container every subcommand's bit too. */
  changePerm(info: CommandInfo, allow: boolean): void {
    const id = COMMAND_ID.get(info)!
    this.setBit(id, allow)
    this.firstArgs?.delete(id)
    if (info.subcommands) for (const sub of info.subcommands.values()) this.setBit(COMMAND_ID.get(sub)!, allow)
  }

  /** `+@category` / `-@category`. */
  setCategory(index: number, allow: boolean): void {
    for (const info of CATEGORY_MEMBERS[index]) this.changePerm(info, allow)
  }

  setAll(allow: boolean): void {
    this.allowed.fill(allow ? 1 : 0)
    this.future = allow
    this.allCommands = allow
    this.firstArgs = undefined
  }

  /** Applies one selector rule (`ACLSetSelector`); returns the errno-like reason on failure. */
  apply(op: string): RuleError | null {
    const lower = op.toLowerCase()
    if (lower === 'allkeys' || op === '~*') {
      this.allKeys = true
      this.patterns = []
    } else if (lower === 'resetkeys') {
      this.allKeys = false
      this.patterns = []
    } else if (lower === 'allchannels' || op === '&*') {
      this.allChannels = true
      this.channels = []
    } else if (lower === 'resetchannels') {
      this.allChannels = false
      this.channels = []
    } else if (lower === 'allcommands' || lower === '+@all') {
      this.setAll(true)
    } else if (lower === 'nocommands' || lower === '-@all') {
      this.setAll(false)
    } else if (op[0] === '~' || op[0] === '%') {
      return this.addKeyPattern(op)
    } else if (op[0] === '&') {
      if (this.allChannels) return 'EISDIR'
      const pattern = op.slice(1)
      if (hasSpaces(pattern)) return 'EINVAL'
      if (!this.channels.includes(pattern)) this.channels.push(pattern)
      this.allChannels = false
    } else if (op[0] === '+' && op[1] !== '@') {
      return this.allowCommand(op.slice(1))
    } else if (op[0] === '-' && op[1] !== '@') {
      const info = lookupRuleCommand(op.slice(1))
      if (info === undefined) return 'ENOENT'
      this.changePerm(info, false)
    } else if ((op[0] === '+' || op[0] === '-') && op[1] === '@') {
      const index = categoryIndex(op.slice(2))
      if (index === -1) return 'ENOENT'
      this.setCategory(index, op[0] === '+')
    } else return 'EINVAL'
    return null
  }

  private addKeyPattern(op: string): RuleError | null {
    if (this.allKeys) return 'EEXIST'
    let flags = 0
    let offset = 1
    if (op[0] === '%') {
      for (; offset < op.length; offset++) {
        const c = op[offset].toUpperCase()
        if (c === 'R' && !(flags & READ)) flags |= READ
        else if (c === 'W' && !(flags & WRITE)) flags |= WRITE
        else if (op[offset] === '~') {
          offset++
          break
        } else return 'EINVAL'
      }
      // `%` alone has no permission at all; Redis would store it and later fail an assertion
      // describing it, so it is refused here as the syntax error it is.
      if (flags === 0) return 'EINVAL'
    } else flags = READ_WRITE
    const pattern = op.slice(offset)
    if (hasSpaces(pattern)) return 'EINVAL'
    const existing = this.patterns.find((p) => p.pattern === pattern)
    if (existing) existing.flags |= flags
    else this.patterns.push({ pattern, flags, matches: compileGlob(pattern) })
    this.allKeys = false
    return null
  }

  /** `+cmd`, `+container|sub`, or `+cmd|first-arg` for a command without subcommands. */
  private allowCommand(name: string): RuleError | null {
    const bar = name.lastIndexOf('|')
    if (bar === -1) {
      const info = lookupRuleCommand(name)
      if (info === undefined) return 'ENOENT'
      this.changePerm(info, true)
      return null
    }
    const info = lookupRuleCommand(name.slice(0, bar))
    if (info === undefined) return 'ENOENT'
    if (info.parent !== undefined) return 'ECHILD'
    const sub = name.slice(bar + 1)
    if (sub.length === 0) return 'EINVAL'
    if (info.subcommands !== undefined) {
      const subInfo = lookupRuleCommand(name)
      if (subInfo === undefined) return 'ENOENT'
      this.changePerm(subInfo, true)
      return null
    }
    const id = COMMAND_ID.get(info)!
    this.firstArgs ??= new Map()
    const args = this.firstArgs.get(id) ?? []
    if (!args.some((arg) => arg.toLowerCase() === sub.toLowerCase())) args.push(sub)
    this.firstArgs.set(id, args)
    return null
  }

  /** `ACLSelectorCheckCmd`. */
  check(info: CommandInfo, argv: readonly string[], cache: KeyCache): CheckResult {
    const id = COMMAND_ID.get(info)
    if (!this.allCommands && !info.flags.has('no_auth')) {
      if (id === undefined || this.allowed[id] === 0) {
        const args = id === undefined ? undefined : this.firstArgs?.get(id)
        const at = info.parent ? 2 : 1
        if (args === undefined || argv.length < 2 || at >= argv.length) return { verdict: Verdict.DeniedCommand, index: 0 }
        const first = argv[at].toLowerCase()
        if (!args.some((arg) => arg.toLowerCase() === first)) return { verdict: Verdict.DeniedCommand, index: 0 }
      }
    }
    if (!this.allKeys && info.keySpecs.length > 0) {
      cache.positions ??= commandKeys(argv, info)
      const needFlags = this.patterns.some((p) => p.flags !== READ_WRITE)
      if (needFlags) cache.flags ??= keyFlags(info, argv, cache.positions)
      for (let j = 0; j < cache.positions.length; j++) {
        const index = cache.positions[j]
        if (!this.keyAllowed(argv[index], needFlags ? cache.flags![j] : READ_WRITE)) return { verdict: Verdict.DeniedKey, index }
      }
    }
    if (!this.allChannels) {
      const root = (info.parent ?? info).name
      if (root === 'publish' || root === 'spublish') {
        if (!this.channelAllowed(argv[1], false)) return { verdict: Verdict.DeniedChannel, index: 1 }
      } else if (root === 'subscribe' || root === 'ssubscribe' || root === 'psubscribe') {
        const literal = root === 'psubscribe'
        for (let i = 1; i < argv.length; i++) {
          if (!this.channelAllowed(argv[i], literal)) return { verdict: Verdict.DeniedChannel, index: i }
        }
      }
    }
    return { verdict: Verdict.Ok, index: 0 }
  }

  private keyAllowed(key: string, wanted: number): boolean {
    if (this.allKeys) return true
    for (const pattern of this.patterns) {
      if ((pattern.flags & wanted) !== wanted) continue
      if (pattern.matches(key)) return true
    }
    return false
  }

  private channelAllowed(channel: string, literal: boolean): boolean {
    for (const pattern of this.channels) {
      if (literal ? pattern === channel : compileGlob(pattern)(channel)) return true
    }
    return false
  }

  /** `keys` of ACL GETUSER: `~*`, or the patterns joined by spaces. */
  describeKeys(): string {
    if (this.allKeys) return '~*'
    return this.patterns.map(patternString).join(' ')
  }

  /** `channels` of ACL GETUSER. */
  describeChannels(): string {
    if (this.allChannels) return '&*'
    return this.channels.map((c) => `&${c}`).join(' ')
  }

  /** `ACLDescribeSelector`: keys, channels and command rules, as ACL LIST prints them. */
  describe(): string {
    let out = ''
    if (this.allKeys) out += '~* '
    else for (const p of this.patterns) out += `${patternString(p)} `
    if (this.allChannels) out += '&* '
    else {
      out += 'resetchannels '
      for (const c of this.channels) out += `&${c} `
    }
    return out + this.describeCommands()
  }

  /**
   * `ACLDescribeSelectorCommandRules` of Redis 7.0: start from `+@all` (when the selector may run
   * future commands) or `-@all`, repeatedly apply the category that best matches what is left,
   * then fix single commands. Single commands come in table order (Redis walks its command
   * dictionary, whose order is random per server process).
   */
  describeCommands(): string {
    const additive = !this.future
    let rules = additive ? '-@all ' : '+@all '
    const fake = new Selector()
    fake.setAll(!additive)
    const temp = new Selector()
    temp.allowed = this.allowed.slice()
    const applied = new Set<number>()
    for (;;) {
      let best = -1
      let minDiff = Number.MAX_SAFE_INTEGER
      let maxSame = 0
      for (let j = 0; j < CATEGORIES.length; j++) {
        if (applied.has(j)) continue
        let on = 0
        for (const info of CATEGORY_MEMBERS[j]) on += temp.allowed[COMMAND_ID.get(info)!]
        const off = CATEGORY_MEMBERS[j].length - on
        const diff = additive ? off : on
        const same = additive ? on : off
        if (same > diff && (diff < minDiff || (diff === minDiff && same > maxSame))) {
          best = j
          minDiff = diff
          maxSame = same
        }
      }
      if (best === -1) break
      fake.setCategory(best, additive)
      temp.setCategory(best, !additive)
      rules += `${additive ? '+' : '-'}@${CATEGORIES[best]} `
      applied.add(best)
    }
    const walk = (infos: Iterable<CommandInfo>): void => {
      for (const info of infos) {
        const id = COMMAND_ID.get(info)!
        const userBit = this.allowed[id] === 1
        if (userBit !== (fake.allowed[id] === 1)) {
          rules += `${userBit ? '+' : '-'}${info.name} `
          fake.changePerm(info, userBit)
        }
        if (info.subcommands) walk(info.subcommands.values())
        const args = this.firstArgs?.get(id)
        if (!userBit && args) for (const arg of args) rules += `+${info.name}|${arg} `
      }
    }
    walk(TOP_LEVEL)
    return rules.slice(0, -1)
  }
}

function patternString(p: KeyPattern): string {
  const prefix = p.flags === READ_WRITE ? '~' : p.flags === READ ? '%R~' : '%W~'
  return prefix + p.pattern
}

/** A command or `container|sub` by name, case-insensitively, as ACL rules name them. */
function lookupRuleCommand(name: string): CommandInfo | undefined {
  if (name.length === 0) return undefined
  const parts = name.split('|')
  if (parts.length > 2) return undefined
  const info = findCommand(parts[0])
  if (info === undefined || info.parent !== undefined) return undefined
  if (parts.length === 1) return info
  return info.subcommands?.get(parts[1].toLowerCase())
}

/** `isspace` of the C locale, or NUL: names and patterns may not contain them. */
function hasSpaces(text: string): boolean {
  return /[\t\n\v\f\r \0]/.test(text)
}

/** Access flags of a key spec: `access` reads; `insert`, `delete`, `update` write. */
function specFlags(spec: KeySpec): number {
  let flags = 0
  if (spec.flags.has('access')) flags |= READ
  if (spec.flags.has('insert') || spec.flags.has('delete') || spec.flags.has('update')) flags |= WRITE
  return flags
}

/**
 * The access each key position needs, for `%R~` / `%W~` patterns: the flags of the key spec
 * that found it (specs applied one at a time), or of every spec when no single spec finds it
 * (keys found by a command's own parser).
 */
function keyFlags(info: CommandInfo, argv: readonly string[], positions: readonly number[]): number[] {
  // The commands whose key flags depend on their arguments (`variable_flags`), as their
  // `getkeys_proc` reports them.
  if (info.name === 'set') {
    const get = argv.slice(3).some((arg) => arg.toLowerCase() === 'get')
    return positions.map(() => (get ? READ_WRITE : WRITE))
  }
  if (info.name === 'bitfield') return positions.map(() => (bitfieldWrites(argv) ? READ_WRITE : READ))
  const bySpec = info.keySpecs.map((spec) => ({ flags: specFlags(spec), positions: new Set(commandKeys(argv, { ...info, keySpecs: [spec] })) }))
  const union = bySpec.reduce((all, s) => all | s.flags, 0)
  return positions.map((position) => {
    let flags = 0
    let found = false
    for (const spec of bySpec) {
      if (spec.positions.has(position)) {
        flags |= spec.flags
        found = true
      }
    }
    return found ? flags : union
  })
}

/** BITFIELD writes when it has a SET or INCRBY operation (Redis's `bitfieldGetKeys`). */
function bitfieldWrites(argv: readonly string[]): boolean {
  for (let i = 2; i < argv.length; i++) {
    const remaining = argv.length - i - 1
    const arg = argv[i].toLowerCase()
    if (arg === 'get' && remaining >= 2) i += 2
    else if ((arg === 'set' || arg === 'incrby') && remaining >= 3) return true
    else if (arg === 'overflow' && remaining >= 1) i += 1
  }
  return false
}

// ---------------------------------------------------------------------------------------------
// Users

const FLAG_ON = 1
const FLAG_OFF = 2
const FLAG_NOPASS = 4
const FLAG_SKIP_SANITIZE = 8
const FLAG_SANITIZE = 16
const FLAG_NAMES: readonly (readonly [number, string])[] = [
  [FLAG_ON, 'on'],
  [FLAG_OFF, 'off'],
  [FLAG_NOPASS, 'nopass'],
  [FLAG_SKIP_SANITIZE, 'skip-sanitize-payload'],
  [FLAG_SANITIZE, 'sanitize-payload'],
]

/** SHA-256 of a password's bytes, lowercase hex: how Redis stores passwords. */
export function hashPassword(password: string): string {
  return sha256Hex(Buffer.from(password, 'latin1'))
}

function isPasswordHash(text: string): boolean {
  return /^[0-9a-f]{64}$/.test(text)
}

/** One ACL user. */
export class AclUser {
  flags = FLAG_OFF
  /** Password hashes (lowercase hex), in the order they were added. */
  passwords: string[] = []
  root = new Selector()
  /** Selectors added with `(…)`, after the root one. */
  selectors: Selector[] = []

  constructor(readonly name: string) {}

  clone(name = this.name): AclUser {
    const copy = new AclUser(name)
    copy.flags = this.flags
    copy.passwords = [...this.passwords]
    copy.root = this.root.clone()
    copy.selectors = this.selectors.map((s) => s.clone())
    return copy
  }

  get enabled(): boolean {
    return (this.flags & FLAG_ON) !== 0
  }

  get nopass(): boolean {
    return (this.flags & FLAG_NOPASS) !== 0
  }

  /** Whether `password` (a binary string) opens this user: enabled, and nopass or a matching hash. */
  authenticates(password: string): boolean {
    if (!this.enabled) return false
    if (this.nopass) return true
    const hashed = Buffer.from(hashPassword(password))
    let ok = false
    for (const stored of this.passwords) if (bytesEqual(hashed, Buffer.from(stored))) ok = true
    return ok
  }

  /** Applies one rule (`ACLSetUser`). */
  apply(op: string): RuleError | null {
    if (op.length === 0) return null
    const lower = op.toLowerCase()
    switch (lower) {
      case 'on':
        this.flags = (this.flags | FLAG_ON) & ~FLAG_OFF
        return null
      case 'off':
        this.flags = (this.flags | FLAG_OFF) & ~FLAG_ON
        return null
      case 'skip-sanitize-payload':
        this.flags = (this.flags | FLAG_SKIP_SANITIZE) & ~FLAG_SANITIZE
        return null
      case 'sanitize-payload':
        this.flags = (this.flags | FLAG_SANITIZE) & ~FLAG_SKIP_SANITIZE
        return null
      case 'nopass':
        this.flags |= FLAG_NOPASS
        this.passwords = []
        return null
      case 'resetpass':
        this.flags &= ~FLAG_NOPASS
        this.passwords = []
        return null
      case 'clearselectors':
        this.selectors = []
        return null
      case 'reset':
        this.apply('resetpass')
        this.root.apply('resetkeys')
        this.root.apply('resetchannels')
        this.apply('off')
        this.apply('sanitize-payload')
        this.selectors = []
        this.root.apply('-@all')
        return null
    }
    if (op[0] === '>' || op[0] === '#') {
      let hash: string
      if (op[0] === '>') hash = hashPassword(op.slice(1))
      else {
        hash = op.slice(1)
        if (!isPasswordHash(hash)) return 'EBADMSG'
      }
      if (!this.passwords.includes(hash)) this.passwords.push(hash)
      this.flags &= ~FLAG_NOPASS
      return null
    }
    if (op[0] === '<' || op[0] === '!') {
      let hash: string
      if (op[0] === '<') hash = hashPassword(op.slice(1))
      else {
        hash = op.slice(1)
        if (!isPasswordHash(hash)) return 'EBADMSG'
      }
      const at = this.passwords.indexOf(hash)
      if (at === -1) return 'ENODEV'
      this.passwords.splice(at, 1)
      return null
    }
    if (op[0] === '(' && op[op.length - 1] === ')') {
      const selector = new Selector()
      for (const rule of op.slice(1, -1).split(/[ \t\n\r]+/)) {
        if (rule.length === 0) continue
        const error = selector.apply(rule)
        if (error !== null) return error
      }
      this.selectors.push(selector)
      return null
    }
    return this.root.apply(op)
  }

  /** Flag names in Redis's order, as ACL GETUSER lists them. */
  flagNames(): string[] {
    return FLAG_NAMES.filter(([flag]) => (this.flags & flag) !== 0).map(([, name]) => name)
  }

  /** `ACLDescribeUser`: the ACL LIST line after `user <name> `. */
  describe(): string {
    let out = ''
    for (const name of this.flagNames()) out += `${name} `
    for (const hash of this.passwords) out += `#${hash} `
    out += this.root.describe()
    for (const selector of this.selectors) out += ` (${selector.describe()})`
    return out
  }

  /** Whether nothing is ever refused (the default user): the hot path skips the check. */
  get unrestricted(): boolean {
    return this.root.unrestricted
  }

  /** `ACLCheckAllUserCommandPerm`: null when allowed, else the refusal and the argument it concerns. */
  check(info: CommandInfo, argv: readonly string[]): CheckResult | null {
    const cache: KeyCache = {}
    let relevant: CheckResult = { verdict: Verdict.DeniedCommand, index: 0 }
    for (const selector of [this.root, ...this.selectors]) {
      const result = selector.check(info, argv, cache)
      if (result.verdict === Verdict.Ok) return null
      if (result.verdict > relevant.verdict || (result.verdict === relevant.verdict && result.index > relevant.index)) relevant = result
    }
    return relevant
  }
}

/** ACL rules arguments with selectors spread over several words merged (`ACLMergeSelectorArguments`). */
function mergeSelectorArguments(args: readonly string[]): string[] | { unmatched: number } {
  const merged: string[] = []
  let open = -1
  let selector = ''
  for (let j = 0; j < args.length; j++) {
    const op = args[j]
    if (op[0] === '(' && op[op.length - 1] !== ')') {
      selector = op
      open = j
      continue
    }
    if (open !== -1) {
      selector += ` ${op}`
      if (op[op.length - 1] === ')') {
        open = -1
        merged.push(selector)
      }
      continue
    }
    merged.push(op)
  }
  return open === -1 ? merged : { unmatched: open }
}

/**
 * The users of one engine, and the check every command passes. Starts with the `default` user
 * (`on nopass ~* &* +@all`), as Redis does without an ACL file.
 */
export class Acl {
  private readonly users = new Map<string, AclUser>()
  /** `users.get('default')`, which always exists: the check of nearly every command is for it. */
  private defaultUser: AclUser

  constructor() {
    const user = new AclUser('default')
    user.apply('+@all')
    user.apply('~*')
    user.apply('&*')
    user.apply('on')
    user.apply('nopass')
    this.users.set('default', user)
    this.defaultUser = user
  }

  /** A user by name, or undefined. */
  get(name: string): AclUser | undefined {
    return this.users.get(name)
  }

  /** User names in Redis's (byte-wise) order. */
  names(): string[] {
    return [...this.users.keys()].sort(compareBytes)
  }

  /**
   * The permission check before a command runs: null when `user` may run `argv` (already
   * resolved to `info`, arity checked), else the NOPERM reply. A user that no longer exists gets
   * WRONGPASS: Redis disconnects the clients of a deleted user.
   */
  check(userName: string, info: CommandInfo, argv: readonly string[]): ReplyError | null {
    const user = userName === 'default' ? this.defaultUser : this.users.get(userName)
    if (user === undefined) return WRONGPASS
    if (user.unrestricted) return null
    const denied = user.check(info, argv)
    if (denied === null) return null
    if (denied.verdict === Verdict.DeniedKey) return NOPERM_KEY
    if (denied.verdict === Verdict.DeniedChannel) return NOPERM_CHANNEL
    return nopermRun(info.name)
  }

  /**
   * `ACL DRYRUN`'s verdict: null when allowed, else Redis's sentence (`This user has no
   * permissions to run the 'set' command`, `… to access the 'k' key`, `… the 'c' channel`).
   */
  explain(user: AclUser, info: CommandInfo, argv: readonly string[]): string | null {
    if (user.unrestricted) return null
    const denied = user.check(info, argv)
    if (denied === null) return null
    if (denied.verdict === Verdict.DeniedKey) return `This user has no permissions to access the '${argv[denied.index]}' key`
    if (denied.verdict === Verdict.DeniedChannel) return `This user has no permissions to access the '${argv[denied.index]}' channel`
    return `This user has no permissions to run the '${info.name}' command`
  }

  /** `AUTH`: the user exists, is on, and the password opens it. */
  authenticate(name: string, password: string): boolean {
    return this.users.get(name)?.authenticates(password) ?? false
  }

  /**
   * `ACL SETUSER name rules…`: every rule is applied to a copy first; on the first refused rule
   * nothing changes (and a new user is not created).
   */
  setUser(name: string, rules: readonly string[]): ReplyError | null {
    if (hasSpaces(name)) return new ReplyError("ERR Usernames can't contain spaces or null characters")
    const merged = mergeSelectorArguments(rules)
    if (!Array.isArray(merged)) {
      return new ReplyError(`ERR Unmatched parenthesis in acl selector starting at '${rules[merged.unmatched]}'.`)
    }
    const existing = this.users.get(name)
    const staged = existing ? existing.clone() : new AclUser(name)
    for (const rule of merged) {
      const error = staged.apply(rule)
      if (error !== null) return new ReplyError(`ERR Error in ACL SETUSER modifier '${rule}': ${RULE_ERRORS[error]}`)
    }
    this.users.set(name, staged)
    if (name === 'default') this.defaultUser = staged
    return null
  }

  /** `ACL DELUSER`: how many of the named users existed; `default` cannot be removed. */
  deleteUsers(names: readonly string[]): number | ReplyError {
    if (names.includes('default')) return new ReplyError("ERR The 'default' user cannot be removed")
    let deleted = 0
    for (const name of names) if (this.users.delete(name)) deleted++
    return deleted
  }
}

function compareBytes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** `ACL CAT <category>`: full names of the commands in a category, table order; undefined if unknown. */
export function categoryCommands(name: string): string[] | undefined {
  const index = categoryIndex(name)
  return index === -1 ? undefined : CATEGORY_MEMBERS[index].map((info) => info.name)
}

/** `ACL GENPASS`: `chars` random lowercase hex characters. */
export function randomHex(chars: number): string {
  return randomBytes(Math.ceil(chars / 2)).toString('hex').slice(0, chars)
}
