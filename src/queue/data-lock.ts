/**
 * One `restis queue` per data directory. Two processes over one directory would both append to
 * its append-only file and both deliver the same messages from diverging copies of the state, and
 * a second start would take the running one's deliveries for abandoned. The directory holds
 * `queue.pid` with the owner's process id; a file whose process is gone (a `kill -9`) is taken over.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** The lock of a data directory; `release` removes the file if it still names this process. */
export interface DataLock {
  readonly path: string
  release(): void
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: the process exists under another user
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

function owner(path: string): number | undefined {
  try {
    const pid = Number(readFileSync(path, 'utf8').trim())
    return Number.isInteger(pid) && pid > 0 ? pid : undefined
  } catch {
    return undefined
  }
}

/** Takes `<dir>/queue.pid` for this process, or throws naming the process that holds it. */
export function lockDataDirectory(dir: string): DataLock {
  try {
    mkdirSync(dir, { recursive: true })
  } catch (error) {
    throw new Error(`cannot use ${dir} as the data directory: ${(error as Error).message}`)
  }
  const path = join(dir, 'queue.pid')
  const write = (flag: 'wx' | 'w'): void => writeFileSync(path, `${process.pid}\n`, { flag })
  try {
    write('wx')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw new Error(`cannot lock the data directory ${dir}: ${(error as Error).message}`)
    const holder = owner(path)
    if (holder !== undefined && holder !== process.pid && alive(holder)) {
      throw new Error(`the data directory ${dir} is in use by restis queue process ${holder} (${path}); stop it, or give this one another --dir`)
    }
    write('w')
  }
  return {
    path,
    release() {
      if (owner(path) === process.pid) rmSync(path, { force: true })
    },
  }
}
