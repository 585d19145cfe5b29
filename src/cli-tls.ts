/**
 * The CLI's TLS settings: `--tls-cert` / `--tls-key` or `SERVICE_TLS_CERT` / `SERVICE_TLS_KEY`,
 * read and checked at start, shared by `restis` and `restis queue`.
 */
import { readFileSync } from 'node:fs'
import { createSecureContext } from 'node:tls'

/** A PEM certificate (chain) and its private key. */
export interface TlsFiles {
  readonly cert: string
  readonly key: string
}

/** An empty variable counts as unset, so `SERVICE_REST_TOKEN= restis` behaves as if it were unset. */
export function fromEnv(env: NodeJS.ProcessEnv, name: string): string | undefined {
  return env[name] || undefined
}

/** Reads the certificate and key named by the flags or their variables; both or neither. */
export function readTls(certFlag: string | undefined, keyFlag: string | undefined, env: NodeJS.ProcessEnv): TlsFiles | undefined {
  const certPath = certFlag || fromEnv(env, 'SERVICE_TLS_CERT')
  const keyPath = keyFlag || fromEnv(env, 'SERVICE_TLS_KEY')
  if (certPath === undefined && keyPath === undefined) return undefined
  if (certPath === undefined || keyPath === undefined) {
    throw new Error('TLS needs both a certificate and its key: --tls-cert and --tls-key (or SERVICE_TLS_CERT and SERVICE_TLS_KEY)')
  }
  const read = (path: string, what: string): string => {
    try {
      return readFileSync(path, 'utf8')
    } catch (error) {
      throw new Error(`cannot read the TLS ${what} ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
    }
  }
  const tls = { cert: read(certPath, 'certificate'), key: read(keyPath, 'key') }
  try {
    createSecureContext(tls) // a key that does not match, or text that is not PEM, fails here rather than at the first client
  } catch (error) {
    throw new Error(`unusable TLS certificate or key (${certPath}, ${keyPath}): ${(error as Error).message}`)
  }
  return tls
}

