/**
 * `restis queue` as a real process for tests: started from source, its banner read, stopped by a
 * signal. The queue is durable by default, so a run without `--dir`, `--redis` or
 * `--no-persistence` gets a data home of its own, removed when the process exits.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface QueueProcess {
  readonly child: ChildProcess
  readonly url: string
  readonly token: string
  readonly current: string
  readonly next: string
  output(): string
}

const ROOT = new URL('../..', import.meta.url).pathname

/** The variables the queue CLI reads, unset unless a test sets them. */
const CLEAN_ENV = { QUEUE_TOKEN: '', QSTASH_TOKEN: '', QUEUE_CURRENT_SIGNING_KEY: '', QUEUE_NEXT_SIGNING_KEY: '', QSTASH_CURRENT_SIGNING_KEY: '', QSTASH_NEXT_SIGNING_KEY: '' }

/** Spawns `src/cli.ts queue …args` and resolves once its banner is complete; rejects if it exits first. */
export function startQueueCli(args: string[], env: Record<string, string> = {}): Promise<QueueProcess> {
  const ownHome = !args.some((arg) => arg === '--dir' || arg === '--redis' || arg === '--no-persistence') && env.XDG_DATA_HOME === undefined
  const dataHome = ownHome ? mkdtempSync(join(tmpdir(), 'restis-queue-data-')) : undefined
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', './scripts/text-import.mjs', 'src/cli.ts', 'queue', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...CLEAN_ENV, ...(dataHome === undefined ? {} : { XDG_DATA_HOME: dataHome }), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  if (dataHome !== undefined) child.once('exit', () => rmSync(dataHome, { recursive: true, force: true }))
  let output = ''
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      const url = /listening on (https?:\/\/\S+)/.exec(output)?.[1]
      const token = /^token(?: \([^)]*\))?: (\S+)$/m.exec(output)?.[1]
      const current = /QUEUE_CURRENT_SIGNING_KEY=(\S+)/.exec(output)?.[1]
      const next = /QUEUE_NEXT_SIGNING_KEY=(\S+)/.exec(output)?.[1]
      if (url && token && current && next) resolve({ child, url, token, current, next, output: () => output })
    })
    child.once('exit', (code) => reject(new Error(`restis queue exited with ${code}: ${output}`)))
  })
}

/** Runs `src/cli.ts queue …args` to its end: exit code and output (for refusals). */
export async function runQueueCli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', './scripts/text-import.mjs', 'src/cli.ts', 'queue', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...CLEAN_ENV, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const [code] = (await once(child, 'exit')) as [number | null]
  return { code, stdout, stderr }
}

/** Sends `signal` and resolves with the exit code once the process exited (null when a signal ended it). */
export async function stopProcess(child: ChildProcess, signal: NodeJS.Signals): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode
  const exited = once(child, 'exit') as Promise<[number | null]>
  child.kill(signal)
  const [code] = await exited
  return code
}
