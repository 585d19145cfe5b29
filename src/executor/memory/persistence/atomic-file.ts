/**
 * Replacing a file so that a crash at any moment leaves either the old file or the new one, never
 * a mix: write a temporary file in the same directory, fsync it, rename it over the target (atomic
 * within one file system, POSIX `rename(2)`), then fsync the directory so the rename itself is
 * durable. On any error the temporary file is removed and the old file stays as it was.
 */
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs'
import { open, rename, rm, type FileHandle } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'

/** Bytes to write: a list of chunks, or chunks produced over time (a snapshot in slices). */
export type Chunks = Iterable<Uint8Array> | AsyncIterable<Uint8Array>

let sequence = 0

/** A temporary name next to `path`, unique in this process and across processes. */
export function temporaryPathFor(path: string): string {
  return join(dirname(path), `temp-${process.pid}-${++sequence}-${basename(path)}`)
}

/** Writes `chunks` to `path`, replacing it atomically (see the module comment). */
export async function writeFileAtomic(path: string, chunks: Chunks): Promise<void> {
  const temp = temporaryPathFor(path)
  let handle: FileHandle | undefined
  try {
    handle = await open(temp, 'wx')
    for await (const chunk of chunks) await writeAll(handle, chunk)
    await handle.sync()
    await handle.close()
    handle = undefined
    await rename(temp, path)
  } catch (error) {
    await handle?.close().catch(() => undefined)
    await rm(temp, { force: true })
    throw error
  }
  syncDirectory(dirname(path))
}

/** {@link writeFileAtomic} without yielding: SAVE blocks the server while it writes, as in Redis. */
export function writeFileAtomicSync(path: string, chunks: Iterable<Uint8Array>): void {
  const temp = temporaryPathFor(path)
  let fd: number | undefined
  try {
    fd = openSync(temp, 'wx')
    for (const chunk of chunks) {
      for (let offset = 0; offset < chunk.length; ) offset += writeSync(fd, chunk, offset, chunk.length - offset)
    }
    fsyncSync(fd)
    closeSync(fd)
    fd = undefined
    renameSync(temp, path)
  } catch (error) {
    if (fd !== undefined) closeQuietly(fd)
    rmSync(temp, { force: true })
    throw error
  }
  syncDirectory(dirname(path))
}

async function writeAll(handle: FileHandle, chunk: Uint8Array): Promise<void> {
  for (let offset = 0; offset < chunk.length; ) {
    const { bytesWritten } = await handle.write(chunk, offset, chunk.length - offset)
    offset += bytesWritten
  }
}

/**
 * Makes a rename in `dir` durable. Windows cannot open a directory for fsync (and its renames
 * need no such step), so there it is skipped; elsewhere a failure is an error.
 */
export function syncDirectory(dir: string): void {
  if (process.platform === 'win32') return
  const fd = openSync(dir, 'r')
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd)
  } catch {
    // Already failing: the original error is the one to report.
  }
}
