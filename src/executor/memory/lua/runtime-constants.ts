/**
 * Constants of the Lua runtime shared by its TypeScript and Lua parts.
 *
 */

/** What the host substitutes into the runtime source. */
export interface RuntimeConstants {
  /** First argument of control requests (random, binary string). */
  readonly marker: string
  /** Key of the dispatcher in the string metatable (random, `[0-9a-f]` only). */
  readonly key: string
  /** `redis.REDIS_VERSION`, e.g. `7.0.15`. */
  readonly version: string
  /** `redis.REDIS_VERSION_NUM`, e.g. 0x07000f. */
  readonly versionNumber: number
  /** The error a script gets when it runs past the time limit (code included). */
  readonly timeoutError: string
}

/** Deepest reply nesting converted; deeper levels become Redis's stack-limit error. */
export const MAX_REPLY_DEPTH = 500

/** A Lua string literal for any binary string (three-digit escapes, so a digit may follow). */
export function luaString(text: string): string {
  let out = '"'
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    out += code >= 0x20 && code < 0x7f && code !== 0x22 && code !== 0x5c ? text[i] : `\\${String(code).padStart(3, '0')}`
  }
  return out + '"'
}

/**
 * Chunk name of the runtime (`loadstring(source, '=restis')`): its frames are told apart from the
 * scripts' (`@user_script`, `@user_function`) when looking for the line of an error.
 */
export const RUNTIME_CHUNK_NAME = 'restis'

/**
 * Evaluated by the package (as `@user_script`): compiles the runtime, passed as ARGV[1], and runs it
 * with the constants that follow (see `runtimeArguments`).
 */
export const BOOT_CHUNK = `local runtime, e = loadstring(ARGV[1], '=${RUNTIME_CHUNK_NAME}') if not runtime then return {err = e} end return runtime(unpack(ARGV, 2))`
