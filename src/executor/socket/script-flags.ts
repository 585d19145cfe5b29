/**
 * Scripts written for the hosted service may open with `#!lua flags=allow-key-locking`, a flag of
 * that service (it lets a script lock only the keys it declares) which Redis does not know and
 * refuses: `ERR Unexpected flag in script shebang: allow-key-locking`. Before EVAL, EVAL_RO and
 * SCRIPT LOAD reach the server, this drops that one flag from the shebang line and keeps every
 * other byte of the script, so its other flags and its line numbers stay as written.
 *
 * The server then caches the script under the SHA1 of the text it got, while the client knows
 * the SHA1 of the text it sent. A map per executor, from the client's SHA1 to the server's, keeps
 * the two consistent: SCRIPT LOAD answers the client's SHA1; EVALSHA, EVALSHA_RO and SCRIPT EXISTS
 * given it ask the server about its own; errors that name the script (`… script: <sha1>, on
 * @user_script:2.`) name it by the client's. A SHA1 the map does not know passes unchanged, so
 * the server answers NOSCRIPT exactly as it would.
 *
 * FUNCTION LOAD is not rewritten: the hosted service takes the flag per function, inside the
 * library's Lua code (`redis.register_function{…, flags={'allow-key-locking'}}`), which cannot be
 * rewritten safely as text, so Redis refuses such a library with its own `ERR unknown flag given`.
 */
import { createHash } from 'node:crypto'
import { ReplyError, type Arg, type Command, type Reply } from '../../reply.js'
import { asBuffer } from '../../resp/protocol.js'
import { splitInlineArgs } from '../../resp/request.js'

/** The hosted service's flag that Redis refuses. */
const HOSTED_FLAG = 'allow-key-locking'
const HOSTED_FLAG_BYTES = Buffer.from(HOSTED_FLAG, 'latin1')

/**
 * SHA1 pairs kept at most, oldest dropped first: EVALSHA of a dropped script then answers
 * NOSCRIPT until the client sends the script again, as after a SCRIPT FLUSH.
 */
const MAX_SCRIPTS = 10_000

/**
 * Rewritten scripts kept by their text, for clients that send the script with every call (EVAL
 * rather than EVALSHA): they then pay a map lookup instead of a parse and two SHA1s.
 */
const MAX_REWRITES = 1_000

/** A command to send instead of the client's, and how to put the server's reply in the client's terms. */
export interface ScriptRewrite {
  readonly command: Command
  readonly reply: (reply: Reply) => Reply
}

interface RewrittenScript {
  readonly body: Buffer
  readonly clientSha: string
  readonly serverSha: string
}

function text(arg: Arg): string {
  return typeof arg === 'string' ? arg : asBuffer(arg).toString('latin1')
}

function sha1(bytes: Uint8Array): string {
  return createHash('sha1').update(bytes).digest('hex')
}

function replaced(command: Command, index: number, arg: Arg): Command {
  const copy = command.slice()
  copy[index] = arg
  return copy
}

/** A word of the shebang line as `sdssplitargs` reads it back: plain, or quoted with `\xHH` escapes. */
function quoted(word: Buffer): string {
  let plain = word.length > 0
  for (const byte of word) if (byte <= 0x20 || byte >= 0x7f || byte === 0x22 || byte === 0x27 || byte === 0x5c) plain = false
  if (plain) return word.toString('latin1')
  let out = '"'
  for (const byte of word) {
    const printable = byte > 0x20 && byte < 0x7f && byte !== 0x22 && byte !== 0x5c
    out += printable ? String.fromCharCode(byte) : `\\x${byte.toString(16).padStart(2, '0')}`
  }
  return `${out}"`
}

/**
 * The shebang line without the hosted flag, or null when there is nothing to drop or the line is
 * not a `#!lua` one (the server then answers its own error for it).
 */
function withoutHostedFlag(line: Buffer): string | null {
  let words: Buffer[]
  try {
    words = splitInlineArgs(line)
  } catch {
    return null
  }
  if (words.length === 0 || words[0].toString('latin1') !== '#!lua') return null
  let changed = false
  const out = words.map((word, index) => {
    const option = word.toString('latin1')
    if (index === 0 || !option.startsWith('flags=')) return quoted(word)
    const flags = option.slice(6).split(',')
    const kept = flags.filter((flag) => flag !== HOSTED_FLAG)
    if (kept.length === flags.length) return quoted(word)
    changed = true
    // A lone empty flag (`flags=allow-key-locking,`) must stay an empty flag, which the server
    // refuses as it would have: `flags=` alone would be an empty list, which it accepts.
    const list = kept.length === 1 && kept[0] === '' ? ',' : kept.join(',')
    return quoted(Buffer.from(`flags=${list}`, 'latin1'))
  })
  return changed ? out.join(' ') : null
}

/** An error naming the script by the server's SHA1 names it by the client's. */
function renamed(reply: Reply, serverSha: string, clientSha: string): Reply {
  if (!(reply instanceof ReplyError) || !reply.message.includes(serverSha)) return reply
  return new ReplyError(reply.message.replaceAll(serverSha, clientSha))
}

/** One executor's rewrites of scripts that carry the hosted flag, and the SHA1s they map. */
export class HostedScriptFlags {
  /** The client's SHA1 → the SHA1 of the text the server got, oldest first. */
  readonly #serverSha = new Map<string, string>()
  /** Scripts given as strings → their rewrite, oldest first. */
  readonly #rewrites = new Map<string, RewrittenScript>()

  /**
   * What to send instead of `command`, or null to send it as it is. Other commands pay a test of
   * their name's first character and length (EVAL 4, EVAL_RO and EVALSHA 7, EVALSHA_RO 10,
   * SCRIPT 6); a script without shebang pays a test of its first two characters.
   */
  rewrite(command: Command): ScriptRewrite | null {
    if (command.length < 2) return null
    const name = command[0]
    const length = name.length
    const initial = (typeof name === 'string' ? name.charCodeAt(0) : name[0]) | 0x20
    if (initial === 0x65 && (length === 4 || length === 7 || length === 10)) return this.#eval(text(name).toLowerCase(), command)
    if (initial === 0x73 && length === 6 && text(name).toLowerCase() === 'script') return this.#script(command)
    return null
  }

  #eval(name: string, command: Command): ScriptRewrite | null {
    if (name === 'eval' || name === 'eval_ro') {
      const script = this.#rewriteScript(command[1])
      if (script === null) return null
      const { serverSha, clientSha } = script
      return { command: replaced(command, 1, script.body), reply: (reply) => renamed(reply, serverSha, clientSha) }
    }
    if ((name === 'evalsha' || name === 'evalsha_ro') && this.#serverSha.size > 0) {
      const clientSha = text(command[1]).toLowerCase()
      const serverSha = this.#serverSha.get(clientSha)
      if (serverSha === undefined) return null
      return { command: replaced(command, 1, serverSha), reply: (reply) => renamed(reply, serverSha, clientSha) }
    }
    return null
  }

  #script(command: Command): ScriptRewrite | null {
    const subcommand = text(command[1]).toLowerCase()
    if (subcommand === 'load' && command.length === 3) {
      const script = this.#rewriteScript(command[2])
      if (script === null) return null
      const answer = Buffer.from(script.clientSha, 'latin1')
      // The server answers its SHA1 as a bulk string when the script compiled; errors pass.
      return { command: replaced(command, 2, script.body), reply: (reply) => (reply instanceof Uint8Array ? answer : reply) }
    }
    if (subcommand === 'exists' && this.#serverSha.size > 0) {
      let changed = false
      const asked = command.map((arg, index) => {
        const serverSha = index < 2 ? undefined : this.#serverSha.get(text(arg).toLowerCase())
        if (serverSha === undefined) return arg
        changed = true
        return serverSha
      })
      return changed ? { command: asked, reply: (reply) => reply } : null
    }
    return null
  }

  /** The script without the hosted flag, with both SHA1s (remembered), or null to send it as it is. */
  #rewriteScript(arg: Arg): RewrittenScript | null {
    if (typeof arg === 'string' ? !arg.startsWith('#!') : arg[0] !== 0x23 || arg[1] !== 0x21) return null
    const known = typeof arg === 'string' ? this.#rewrites.get(arg) : undefined
    if (known !== undefined) {
      this.#remember(known.clientSha, known.serverSha)
      return known
    }
    const bytes = typeof arg === 'string' ? Buffer.from(arg, 'utf8') : asBuffer(arg)
    const end = bytes.indexOf(0x0a)
    if (end === -1) return null
    const line = bytes.subarray(0, end)
    if (line.indexOf(HOSTED_FLAG_BYTES) === -1) return null
    const shebang = withoutHostedFlag(line)
    if (shebang === null) return null
    const body = Buffer.concat([Buffer.from(shebang, 'latin1'), bytes.subarray(end)])
    const script = { body, clientSha: sha1(bytes), serverSha: sha1(body) }
    this.#remember(script.clientSha, script.serverSha)
    if (typeof arg === 'string') {
      this.#rewrites.set(arg, script)
      if (this.#rewrites.size > MAX_REWRITES) this.#rewrites.delete(this.#rewrites.keys().next().value as string)
    }
    return script
  }

  #remember(clientSha: string, serverSha: string): void {
    this.#serverSha.delete(clientSha)
    this.#serverSha.set(clientSha, serverSha)
    if (this.#serverSha.size > MAX_SCRIPTS) this.#serverSha.delete(this.#serverSha.keys().next().value as string)
  }
}
