/**
 * `mkdir -p` that always ends. Node's `mkdirSync(dir, { recursive: true })` spins forever, at
 * 100% CPU, where mkdir(2) answers ENOENT although the parent exists: under procfs or sysfs
 * (`--dir /proc/x` hung the CLI before its banner). Here each level is made at most twice, and an
 * ENOENT once the parent exists is the answer.
 */
import { mkdirSync, statSync } from 'node:fs'
import { dirname } from 'node:path'

/** Makes `dir` and any missing parents; a directory already there is fine. Throws what mkdir(2) reported. */
export function makeDirectory(dir: string): void {
  const missingParent = tryMakeOne(dir)
  if (missingParent === undefined) return
  const parent = dirname(dir)
  if (parent === dir) throw missingParent
  makeDirectory(parent)
  const stillMissing = tryMakeOne(dir)
  if (stillMissing !== undefined) throw stillMissing
}

/** Makes `dir` alone: undefined when it is a directory now, the ENOENT error when mkdir reported one. */
function tryMakeOne(dir: string): NodeJS.ErrnoException | undefined {
  try {
    mkdirSync(dir)
    return undefined
  } catch (thrown) {
    const error = thrown as NodeJS.ErrnoException
    if (error.code === 'ENOENT') return error
    // Made meanwhile by another process, or there already: fine only if it is a directory.
    if (error.code === 'EEXIST' && statSync(dir).isDirectory()) return undefined
    throw error
  }
}
