/**
 * The check of {@link PersistenceOptions} before anything touches the disk. TypeScript callers
 * are held to the type already; this is for JavaScript callers and values read at run time, so
 * that a misspelt key or a value of the wrong kind is refused by name instead of ignored (an
 * `appendfsync: 'sometimes'` that quietly fsyncs every second, a `dir: ''` that writes dump.rdb
 * into the working directory, a `dbfilename: '../x.rdb'` that writes outside `dir`).
 */
import { Type, type TSchema } from 'typebox'
import Value from 'typebox/value'
import type { PersistenceOptions } from './rdb-persistence.js'

/** A name inside `dir`: no separator, not `.` or `..` (Redis refuses a path for these settings). */
const BASE_NAME = Type.String({ pattern: '^(?!\\.\\.?$)[^/\\\\]+$' })

/** Each option, and what the message says it must be. */
const OPTIONS: Record<keyof PersistenceOptions, { schema: TSchema; expected: string }> = {
  dir: { schema: Type.String({ minLength: 1 }), expected: 'a directory path, not empty' },
  dbfilename: { schema: BASE_NAME, expected: "a file name, not a path, as Redis's dbfilename" },
  save: { schema: Type.String(), expected: 'save points as a string, "" for none' },
  appendonly: { schema: Type.Boolean(), expected: 'true or false' },
  appendfsync: { schema: Type.Union([Type.Literal('always'), Type.Literal('everysec'), Type.Literal('no')]), expected: "'always', 'everysec' or 'no'" },
  appendfilename: { schema: BASE_NAME, expected: "a file name, not a path, as Redis's appendfilename" },
  appenddirname: { schema: BASE_NAME, expected: "a folder name inside dir, not a path, as Redis's appenddirname" },
  log: { schema: Type.Function([Type.String()], Type.Void()), expected: 'a function taking a line' },
}

const NAMES = Object.keys(OPTIONS) as (keyof PersistenceOptions)[]

/** Throws a TypeError naming the first option that is unknown, missing or of the wrong kind. */
export function checkPersistenceOptions(options: unknown): asserts options is PersistenceOptions {
  if (typeof options !== 'object' || options === null) throw new TypeError(`persistence must be an object with at least dir, got ${describe(options)}`)
  for (const key of Object.keys(options)) {
    if (!(NAMES as string[]).includes(key)) throw new TypeError(`unknown persistence option '${key}' (known: ${NAMES.join(', ')})`)
  }
  const values = options as Record<string, unknown>
  if (values.dir === undefined) throw new TypeError('persistence.dir is required: the data directory')
  for (const name of NAMES) {
    const value = values[name]
    if (value === undefined) continue
    const { schema, expected } = OPTIONS[name]
    if (!Value.Check(schema, value)) throw new TypeError(`invalid persistence.${name}: ${describe(value)} (${expected})`)
  }
}

function describe(value: unknown): string {
  if (typeof value === 'function') return 'a function'
  return JSON.stringify(value) ?? String(value)
}
