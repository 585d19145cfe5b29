import { describe, expect, test } from 'vitest'
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** Starts the CLI from source and resolves with its printed URL and token once it listens. */
function startCli(args: string[], env: Record<string, string> = {}) {
  // Durable by default: a data home of its own, removed on exit.
  const dataHome = mkdtempSync(join(tmpdir(), 'restis-cli-data-'))
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', './scripts/text-import.mjs', 'src/cli.ts', '--port', '0', ...args], {
    cwd: new URL('../..', import.meta.url).pathname,
    env: { ...process.env, SERVICE_REST_TOKEN: '', SERVICE_REST_READONLY_TOKEN: '', UPSTASH_REDIS_REST_TOKEN: '', REDIS_URL: '', XDG_DATA_HOME: dataHome, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  child.once('exit', () => rmSync(dataHome, { recursive: true, force: true }))
  let output = ''
  const ready = new Promise<{ url: string; token: string }>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1]
      const token = /^token(?: \(generated\))?: (\S+)$/m.exec(output)?.[1]
      if (url && token) resolve({ url, token })
    })
    child.once('exit', (code) => reject(new Error(`cli exited with ${code}: ${output}`)))
  })
  return { child, ready, output: () => output }
}

async function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<number | null> {
  child.kill(signal)
  const [code] = (await once(child, 'exit')) as [number | null]
  return code
}

describe('restis CLI', () => {
  test('serves the gateway with a generated token and shuts down cleanly on SIGTERM', async () => {
    const cli = startCli([])
    const { url, token } = await cli.ready
    expect(token.length).toBeGreaterThanOrEqual(32)
    const response = await fetch(`${url}/set/a/1`, { headers: { authorization: `Bearer ${token}` } })
    expect(await response.json()).toEqual({ result: 'OK' })
    expect(await stop(cli.child, 'SIGTERM')).toBe(0)
  })

  test('takes the token from SERVICE_REST_TOKEN and the read-only token from its flag; SIGINT stops it', async () => {
    const cli = startCli(['--readonly-token', 'ro'], { SERVICE_REST_TOKEN: 'from-env' })
    const { url, token } = await cli.ready
    expect(token).toBe('from-env')
    expect(cli.output()).toContain('read-only token: ro')
    const refused = await fetch(`${url}/set/a/1`, { headers: { authorization: 'Bearer ro' } })
    expect(refused.status).toBe(400)
    expect(await stop(cli.child, 'SIGINT')).toBe(0)
  })

  test('an invalid flag exits with status 2 and the usage', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--import', './scripts/text-import.mjs', 'src/cli.ts', '--bogus'], {
      cwd: new URL('../..', import.meta.url).pathname,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()))
    const [code] = (await once(child, 'exit')) as [number]
    expect(code).toBe(2)
    expect(stderr).toContain('Usage: restis')
  })
})
