import { afterEach } from 'vitest'
import { MemoryExecutor } from '../../../../src/executor/memory/memory-executor.js'
import { ReplyError, Status, type Reply } from '../../../../src/reply.js'

/**
 * Helpers of the JSON tests. No local server has the RedisJSON module, so these tests follow the
 * RedisJSON command documentation (redis.io/docs/latest/commands/json.*, whose examples each
 * become a test named after its page) and RedisJSON 2.x's source; edge cases of our own say so
 * in their names.
 */

/** A reply in test-friendly form: bulk strings decoded as UTF-8, simple strings as their text. */
export type Plain = string | number | null | { error: string } | Plain[]

export function plain(reply: Reply): Plain {
  if (reply === null || typeof reply === 'symbol') return null
  if (typeof reply === 'number') return reply
  if (typeof reply === 'bigint') return reply.toString()
  if (reply instanceof ReplyError) return { error: reply.message }
  if (reply instanceof Status) return reply.text
  if (reply instanceof Uint8Array) return Buffer.from(reply).toString('utf8')
  return (reply as readonly Reply[]).map(plain)
}

let executors: MemoryExecutor[] = []

afterEach(async () => {
  await Promise.all(executors.map((executor) => executor.close()))
  executors = []
})

/** A fresh engine; `run` answers plain replies, `raw` the replies themselves. */
export function engine() {
  const executor = new MemoryExecutor({ activeExpiryInterval: 0 })
  executors.push(executor)
  return {
    executor,
    run: (...command: (string | Uint8Array)[]): Plain => plain(executor.execSync(command)),
    raw: (...command: (string | Uint8Array)[]): Reply => executor.execSync(command),
  }
}

/** The error reply `{ error: message }`. */
export function error(message: string): { error: string } {
  return { error: message }
}

/** The redis.io page of a JSON command, for test names. */
export function docs(command: string): string {
  return `https://redis.io/docs/latest/commands/${command.toLowerCase()}/`
}

export const PATH_DOCS = 'https://redis.io/docs/latest/develop/data-types/json/path/'
