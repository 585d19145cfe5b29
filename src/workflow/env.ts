/**
 * Environment variables of the workflow runtime, each with its `QSTASH_*` / `UPSTASH_*` alias so
 * an endpoint configured for the hosted queue works unchanged. An empty value counts as unset.
 */

/** A map of environment variables, like `process.env`. @public */
export type Environment = Readonly<Record<string, string | undefined>>

/** Names read from the environment, first name wins. */
export const ENV_NAMES = {
  token: ['QUEUE_TOKEN', 'QSTASH_TOKEN'],
  queueUrl: ['QUEUE_URL', 'QSTASH_URL'],
  baseUrl: ['SERVICE_WORKFLOW_URL', 'UPSTASH_WORKFLOW_URL'],
  currentSigningKey: ['QUEUE_CURRENT_SIGNING_KEY', 'QSTASH_CURRENT_SIGNING_KEY'],
  nextSigningKey: ['QUEUE_NEXT_SIGNING_KEY', 'QSTASH_NEXT_SIGNING_KEY'],
} as const

/** The process environment where there is one (Node, Bun, Deno's compat layer), else empty. */
export function processEnv(): Environment {
  const proc = (globalThis as { process?: { env?: Environment } }).process
  return proc?.env ?? {}
}

/** The first non-empty value among `names`. */
export function readEnv(env: Environment, names: readonly string[]): string | undefined {
  for (const name of names) {
    const value = env[name]
    if (value !== undefined && value !== '') return value
  }
  return undefined
}
