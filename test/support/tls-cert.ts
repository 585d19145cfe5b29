/**
 * A throwaway self-signed certificate for TLS tests, made by `openssl req -x509` in a temporary
 * directory (for `localhost` and 127.0.0.1).
 *
 * Availability rule, as for redis-server: without `openssl` on PATH the TLS tests are skipped
 * with the reason, except under `CI=true`, where they run and fail.
 */

import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

function probe(): boolean {
  const result = spawnSync('openssl', ['version'], { stdio: 'ignore', timeout: 10_000 })
  return !result.error && result.status === 0
}

/** Why TLS tests should be skipped, or `undefined` when they should run. */
export const opensslSkipReason: string | undefined = probe() || process.env.CI === 'true' ? undefined : 'openssl not found on PATH'

/** A certificate and its key, as files and as PEM text. */
export interface TestCertificate {
  readonly dir: string
  readonly certPath: string
  readonly keyPath: string
  readonly cert: string
  readonly key: string
  /** Removes the directory. */
  remove(): void
}

/** Makes a self-signed certificate valid for a day. Throws with openssl's output when it fails. */
export function makeCertificate(): TestCertificate {
  const dir = mkdtempSync(join(tmpdir(), 'restis-tls-'))
  const certPath = join(dir, 'cert.pem')
  const keyPath = join(dir, 'key.pem')
  const result = spawnSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyPath, '-out', certPath, '-days', '1', '-subj', '/CN=localhost',
      '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'],
    { encoding: 'utf8', timeout: 60_000 },
  )
  if (result.error || result.status !== 0) {
    rmSync(dir, { recursive: true, force: true })
    throw new Error(`openssl req -x509 failed: ${result.error?.message ?? result.stderr}`)
  }
  return {
    dir,
    certPath,
    keyPath,
    cert: readFileSync(certPath, 'utf8'),
    key: readFileSync(keyPath, 'utf8'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  }
}
