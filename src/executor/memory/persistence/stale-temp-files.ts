/**
 * Temporary files a crash left in the data directory, removed when an executor opens it. A save
 * or a rewrite writes a temporary file and renames it over its target; a process killed in
 * between leaves the temporary file behind, listed nowhere and never loaded, and each crash would
 * add one more (a snapshot's is as large as the keyspace).
 *
 * Redis 7.0.15 removes its own temporary files when a child fails or is killed
 * (`rdbRemoveTempFile`, `aofDelTempIncrAofFile`) but nothing at start: it calls only
 * `aofDelHistoryFiles`, for the files the manifest marks as history. Its names carry the pid of
 * the process writing them, so they never clash. Restarted in a container a process often gets
 * the same pid again, so here the leftovers are removed at start instead: the names restis writes
 * and those redis-server writes, when the pid they carry is this process's or no running
 * process's (a live process may be another server sharing the directory, whose save is not ours
 * to break). Only the names below are touched; every other file is left alone.
 *
 * A crash between a rewrite's new manifest and the deletion of the files it replaced leaves them
 * listed as history (`type h`); Redis deletes those at start whether the AOF is on or off
 * (`aofDelHistoryFiles` after `aofLoadManifestFromDisk`), and so does {@link removeAofHistoryFiles}.
 */
import fs from 'node:fs'
import path from 'node:path'
import { formatManifest, parseManifest, writeFileAtomicSync } from './aof-manifest.js'

/** Names carrying the writer's pid, in the data directory and in the AOF directory. */
const PID_NAMES: readonly RegExp[] = [
  // restis: atomic-file.ts (`temp-<pid>-<n>-<target>`), aof-manifest.ts (`temp-<manifest>.<pid>`).
  /^temp-(\d+)-\d+-.+$/,
  /^temp-.+\.manifest\.(\d+)$/,
  // redis-server: rdb.c `temp-<pid>.rdb`, aof.c `temp-rewriteaof-bg-<pid>.aof` and `temp-rewriteaof-<pid>.aof`.
  /^temp-(\d+)\.rdb$/,
  /^temp-rewriteaof-(?:bg-)?(\d+)\.aof$/,
]

/**
 * The temporary increment of an AOF started on a keyspace with data (`temp-<appendfilename>.incr`,
 * both servers' name) and Redis's temporary manifest (`temp-<appendfilename>.manifest`): no pid;
 * Redis truncates the increment when it next needs one, so nothing in it is ever read.
 */
function pidlessNames(appendfilename: string): Set<string> {
  return new Set([`temp-${appendfilename}.incr`, `temp-${appendfilename}.manifest`])
}

function processRunning(pid: number): boolean {
  if (pid === process.pid) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it exists, owned by someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

function isStale(name: string, pidless: Set<string>): boolean {
  if (pidless.has(name)) return true
  for (const pattern of PID_NAMES) {
    const match = pattern.exec(name)
    if (match !== null) return !processRunning(Number(match[1]))
  }
  return false
}

export interface StaleTempFileOptions {
  readonly dir: string
  readonly appenddirname?: string
  readonly appendfilename?: string
  readonly log?: (line: string) => void
}

/** Removes the leftovers of interrupted saves and rewrites; returns the paths removed. */
export function removeStaleTempFiles(options: StaleTempFileOptions): string[] {
  const pidless = pidlessNames(options.appendfilename ?? 'appendonly.aof')
  const removed: string[] = []
  for (const folder of [options.dir, path.join(options.dir, options.appenddirname ?? 'appendonlydir')]) {
    let names: string[]
    try {
      names = fs.readdirSync(folder)
    } catch {
      continue // No such directory yet: nothing was left there.
    }
    for (const name of names) {
      if (!name.startsWith('temp-') || !isStale(name, pidless)) continue
      const file = path.join(folder, name)
      try {
        if (!fs.lstatSync(file).isFile()) continue
        fs.rmSync(file)
        removed.push(file)
        options.log?.(`Removed the temporary file ${file} left by an interrupted save or rewrite`)
      } catch (error) {
        options.log?.(`Could not remove the temporary file ${file}: ${(error as Error).message}`)
      }
    }
  }
  return removed
}

/**
 * Deletes the files the AOF manifest lists as history and writes the manifest without them, as
 * Redis does at start. A manifest that does not parse is left for the AOF loader to report.
 */
export function removeAofHistoryFiles(options: StaleTempFileOptions): string[] {
  const folder = path.join(options.dir, options.appenddirname ?? 'appendonlydir')
  const manifestPath = path.join(folder, `${options.appendfilename ?? 'appendonly.aof'}.manifest`)
  let text: string
  try {
    text = fs.readFileSync(manifestPath, 'utf8')
  } catch {
    return [] // No manifest: no AOF here.
  }
  let manifest
  try {
    manifest = parseManifest(text, manifestPath)
  } catch {
    return []
  }
  if (manifest.history.length === 0) return []
  const removed: string[] = []
  for (const file of manifest.history) {
    const target = path.join(folder, file.name)
    fs.rmSync(target, { force: true })
    removed.push(target)
    options.log?.(`Removing the history file ${file.name}`)
  }
  writeFileAtomicSync(manifestPath, formatManifest({ ...manifest, history: [] }))
  return removed
}
