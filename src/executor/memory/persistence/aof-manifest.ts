/**
 * The manifest of Redis 7.0's multi-part AOF (`<appendfilename>.manifest` in `<appenddirname>`):
 * one line per file, `file <name> seq <n> type <b|h|i>`, the base first, then the increments in
 * order. `b` is the base (an RDB preamble `.base.rdb` or commands `.base.aof`), `i` an increment,
 * `h` a file a rewrite replaced and not yet deleted (never loaded).
 */
import fs from 'node:fs'
import path from 'node:path'
import { AofError } from './aof-format.js'

export type AofFileType = 'b' | 'h' | 'i'

export interface AofFileInfo {
  readonly name: string
  readonly seq: number
  readonly type: AofFileType
}

export interface AofManifest {
  readonly base: AofFileInfo | undefined
  readonly increments: readonly AofFileInfo[]
  /** Replaced files still listed (type `h`). */
  readonly history: readonly AofFileInfo[]
}

export class AofManifestError extends AofError {
  constructor(file: string, line: number, reason: string) {
    super(`Invalid AOF manifest ${file} at line ${line}: ${reason}`)
    this.name = 'AofManifestError'
  }
}

/** Redis quotes a name with spaces or special characters (sdscatrepr); plain names stay bare. */
function quoteName(name: string): string {
  return /^[\x21-\x7e]+$/.test(name) && !name.includes('"') ? name : JSON.stringify(name)
}

export function formatManifest(manifest: AofManifest): string {
  const line = (file: AofFileInfo): string => `file ${quoteName(file.name)} seq ${file.seq} type ${file.type}\n`
  let out = ''
  if (manifest.base !== undefined) out += line(manifest.base)
  for (const file of manifest.history) out += line(file)
  for (const file of manifest.increments) out += line(file)
  return out
}

/** Words of a manifest line, honouring double quotes. */
function splitLine(text: string): string[] | undefined {
  const words: string[] = []
  const pattern = /\s*(?:"((?:[^"\\]|\\.)*)"|(\S+))/gy
  let match: RegExpExecArray | null
  while ((match = pattern.exec(text)) !== null) {
    if (match[1] !== undefined) words.push(JSON.parse(`"${match[1]}"`) as string)
    else words.push(match[2])
    if (pattern.lastIndex >= text.length) break
  }
  return text.trim() === '' || words.length > 0 ? words : undefined
}

export function parseManifest(text: string, file: string): AofManifest {
  let base: AofFileInfo | undefined
  const increments: AofFileInfo[] = []
  const history: AofFileInfo[] = []
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i].trim()
    if (raw === '' || raw.startsWith('#')) continue
    const words = splitLine(raw)
    if (words === undefined || words.length % 2 !== 0) throw new AofManifestError(file, i + 1, 'expected key/value pairs')
    const fields = new Map<string, string>()
    for (let w = 0; w < words.length; w += 2) fields.set(words[w], words[w + 1])
    const name = fields.get('file')
    const seq = Number(fields.get('seq'))
    const type = fields.get('type')
    if (name === undefined || !Number.isSafeInteger(seq) || seq < 1 || (type !== 'b' && type !== 'h' && type !== 'i')) {
      throw new AofManifestError(file, i + 1, 'each line needs file, seq and type b|h|i')
    }
    if (name.includes('/')) throw new AofManifestError(file, i + 1, `file name ${name} must not contain a path`)
    const info: AofFileInfo = { name, seq, type }
    if (type === 'b') {
      if (base !== undefined) throw new AofManifestError(file, i + 1, 'more than one base file')
      base = info
    } else if (type === 'i') increments.push(info)
    else history.push(info)
  }
  if (base === undefined && increments.length === 0) throw new AofManifestError(file, lines.length, 'no base and no increment file')
  return { base, increments, history }
}

/**
 * Writes `text` to `target` so that a crash leaves the old file or the new one, never a mix:
 * a temporary file in the same directory, fsync, rename, fsync of the directory.
 */
export function writeFileAtomicSync(target: string, text: string): void {
  const dir = path.dirname(target)
  const temp = path.join(dir, `temp-${path.basename(target)}.${process.pid}`)
  try {
    const fd = fs.openSync(temp, 'w')
    try {
      fs.writeSync(fd, text)
      fs.fsyncSync(fd)
    } finally {
      fs.closeSync(fd)
    }
    fs.renameSync(temp, target)
  } catch (error) {
    fs.rmSync(temp, { force: true })
    throw error
  }
  syncDirectory(dir)
}

/** fsync of a directory, so a rename or a new file in it survives a crash. */
export function syncDirectory(dir: string): void {
  const fd = fs.openSync(dir, 'r')
  try {
    fs.fsyncSync(fd)
  } finally {
    fs.closeSync(fd)
  }
}
