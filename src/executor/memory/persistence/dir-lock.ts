/**
 * One process per data directory. Two engines writing `dump.rdb` and the append-only files of
 * one directory would replace each other's files, so the first to start takes `<dir>/restis.pid`
 * and the second refuses to start, naming the directory and the holder's pid.
 *
 * The file is created whole or not at all: the pid is written to a file of this process's own,
 * then hard-linked to the lock's name (`link` fails when the name exists, atomically, as an
 * `O_EXCL` create does, and readers never see it empty). A lock whose pid is no longer running
 * is stale (the holder was killed) and is taken over. The file is removed on release and when
 * the process exits normally.
 *
 * The lock is between processes, as POSIX record locks are: engines of one process on one
 * directory (tests reopening a directory they did not close) share it, counted, and the file
 * goes when the last of them releases it.
 */
import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** The lock's name inside the data directory. */
export const LOCK_FILE = 'restis.pid'

/** Lock files this process holds and how many engines hold each; the exit hook removes them. */
const held = new Map<string, number>()
let exitHookInstalled = false

/** Thrown when another live process holds the directory. */
export class DirLockedError extends Error {
  constructor(
    readonly dir: string,
    readonly holder: number,
  ) {
    super(`data directory ${dir} is in use by another process (pid ${holder}, lock file ${join(dir, LOCK_FILE)})`)
    this.name = 'DirLockedError'
  }
}

export class DirLock {
  private released = false

  private constructor(readonly path: string) {}

  /** Takes the lock of `dir` (which exists) or throws {@link DirLockedError}. */
  static acquire(dir: string): DirLock {
    const path = join(dir, LOCK_FILE)
    const holders = held.get(path)
    if (holders !== undefined && readHolder(path) === process.pid) return DirLock.hold(path)
    const staging = `${path}.${process.pid}.tmp`
    try {
      writeFileSync(staging, `${process.pid}\n`)
    } catch (error) {
      throw new Error(`cannot lock the data directory ${dir}: ${(error as Error).message}`)
    }
    try {
      // Twice at most: once more after taking a stale lock away.
      for (let attempt = 0; attempt < 2; attempt++) {
        if (tryLink(staging, path)) return DirLock.hold(path)
        const holder = readHolder(path)
        // Our own pid on a file we do not hold is a previous process's (pids are reused, often
        // the same small ones in a container): stale.
        if (holder !== undefined && holder !== process.pid && isRunning(holder)) throw new DirLockedError(dir, holder)
        removeStale(path, holder)
      }
      throw new DirLockedError(dir, readHolder(path) ?? 0)
    } finally {
      unlinkQuietly(staging)
    }
  }

  private static hold(path: string): DirLock {
    held.set(path, (held.get(path) ?? 0) + 1)
    if (!exitHookInstalled) {
      exitHookInstalled = true
      process.once('exit', () => {
        for (const path of held.keys()) removeIfOurs(path)
        held.clear()
      })
    }
    return new DirLock(path)
  }

  /** Removes the lock file (when it is still this process's). Idempotent. */
  release(): void {
    if (this.released) return
    this.released = true
    const holders = (held.get(this.path) ?? 1) - 1
    if (holders > 0) {
      held.set(this.path, holders)
      return
    }
    held.delete(this.path)
    removeIfOurs(this.path)
  }
}

function removeIfOurs(path: string): void {
  if (readHolder(path) === process.pid) unlinkQuietly(path)
}

/** Errors of file systems without hard links (some network and FUSE mounts). */
const NO_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS'])

/**
 * Creates `to` with the content of `from` unless `to` exists: by a hard link, else (no links on
 * this file system) by an exclusive create, whose file is briefly empty.
 */
function tryLink(from: string, to: string): boolean {
  try {
    linkSync(from, to)
    return true
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EEXIST') return false
    if (code === undefined || !NO_LINKS.has(code)) throw error
  }
  try {
    writeFileSync(to, readFileSync(from), { flag: 'wx' })
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw error
  }
}

/** The pid in the lock file; undefined when it is missing or holds no pid. */
function readHolder(path: string): number | undefined {
  let text: string
  try {
    text = readFileSync(path, 'latin1')
  } catch {
    return undefined
  }
  const pid = Number.parseInt(text.trim(), 10)
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined
}

/**
 * True when a process with this pid exists (signal 0 checks without sending; EPERM means it
 * exists under another user).
 */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Takes a stale lock away: moved aside first, so that when another process replaced it with a
 * live lock meanwhile, that one is put back rather than deleted.
 */
function removeStale(path: string, stalePid: number | undefined): void {
  const aside = `${path}.${process.pid}.stale`
  try {
    renameSync(path, aside)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
    throw error
  }
  if (readHolder(aside) !== stalePid) tryLink(aside, path)
  unlinkQuietly(aside)
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path)
  } catch {}
}
