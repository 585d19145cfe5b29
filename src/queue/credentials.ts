/**
 * The queue's token and signing keys when the command line and the environment leave them out:
 * generated once and kept with the queue's state (`<prefix>credentials`, a hash). A restarted
 * process over the same state, or a second one over the same Redis, answers to the same token
 * and signs with the same keys, so the endpoints configured from the first banner keep working
 * (a new key would make them refuse every delivery after a restart). Given values are used as
 * they are and never stored.
 */
import { generateToken } from '../auth/tokens.js'
import { isReplyError, type Reply } from '../reply.js'
import type { Executor } from '../executor/executor.js'
import { generateSigningKey } from '../workflow/signature.js'

/** The three secrets of a queue service. */
export interface QueueCredentials {
  readonly token: string
  readonly currentSigningKey: string
  readonly nextSigningKey: string
}

/** Where each secret came from: the flags or environment, a new one, or the one kept from an earlier start. */
export type CredentialOrigin = 'given' | 'generated' | 'kept'

export interface ResolvedCredentials extends QueueCredentials {
  readonly origin: { readonly [name in keyof QueueCredentials]: CredentialOrigin }
}

const GENERATORS: { readonly [name in keyof QueueCredentials]: () => string } = {
  token: generateToken,
  currentSigningKey: generateSigningKey,
  nextSigningKey: generateSigningKey,
}

function text(reply: Reply, command: string): string {
  if (isReplyError(reply)) throw new Error(`queue credentials: ${command} failed: ${reply.message}`)
  if (reply instanceof Uint8Array) return Buffer.from(reply).toString('utf8')
  if (typeof reply === 'string') return reply
  throw new Error(`queue credentials: ${command} answered no value`)
}

/**
 * Fills in the secrets not given: the kept one when the state has it, else a new one, stored with
 * HSETNX so that processes starting together over one Redis agree on the first one written.
 */
export async function resolveCredentials(executor: Executor, prefix: string, given: Partial<QueueCredentials>): Promise<ResolvedCredentials> {
  const key = `${prefix}credentials`
  const values: Partial<Record<keyof QueueCredentials, string>> = {}
  const origin: Partial<Record<keyof QueueCredentials, CredentialOrigin>> = {}
  for (const name of Object.keys(GENERATORS) as (keyof QueueCredentials)[]) {
    const value = given[name]
    if (value !== undefined && value !== '') {
      values[name] = value
      origin[name] = 'given'
      continue
    }
    const created = await executor.exec(['HSETNX', key, name, GENERATORS[name]()])
    if (isReplyError(created)) throw new Error(`queue credentials: HSETNX failed: ${created.message}`)
    values[name] = text(await executor.exec(['HGET', key, name]), 'HGET')
    origin[name] = Number(created) === 1 ? 'generated' : 'kept'
  }
  return { ...(values as QueueCredentials), origin: origin as ResolvedCredentials['origin'] }
}
