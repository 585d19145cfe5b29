#!/usr/bin/env node
// Generates src/commands/table.ts and src/commands/docs.ts from a real redis-server.
//
//   npm run gen:commands                 # starts its own redis-server on a free loopback port
//   REDIS_URL=redis://host:port npm run gen:commands   # or reads an existing server
//
// Reads COMMAND INFO, COMMAND DOCS, ACL CAT and INFO server through `redis-cli` (RESP3 --json
// keeps the map key order), merges scripts/command-overlay.json (commands newer than the server
// or outside Redis core), normalizes every list into the order Redis writes it, and checks the
// server data against those orders so a server that writes them differently fails loudly.

import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { startRedisServer } from './redis-server.mjs'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const overlayPath = path.join(root, 'scripts', 'command-overlay.json')
const tablePath = path.join(root, 'src', 'commands', 'table.ts')
const docsPath = path.join(root, 'src', 'commands', 'docs.ts')

const REDIS_CLI = process.env.REDIS_CLI_BIN || 'redis-cli'

// The order in which Redis writes each list (server.c / commands.c). Server data is checked
// against these; overlay data is sorted by them.
const COMMAND_FLAG_ORDER = [
  'write', 'readonly', 'denyoom', 'module', 'admin', 'pubsub', 'noscript', 'blocking', 'loading',
  'stale', 'skip_monitor', 'skip_slowlog', 'asking', 'fast', 'no_auth', 'no_mandatory_keys',
  'no_async_loading', 'no_multi', 'movablekeys', 'allow_busy',
]
const KEY_SPEC_FLAG_ORDER = [
  'RO', 'RW', 'OW', 'RM', 'access', 'update', 'insert', 'delete', 'not_key', 'incomplete', 'variable_flags',
]
const KEY_SPEC_KEY_ORDER = ['notes', 'flags', 'begin_search', 'find_keys']
const DOCS_KEY_ORDER = [
  'summary', 'since', 'group', 'complexity', 'module', 'doc_flags', 'deprecated_since', 'replaced_by',
  'history', 'arguments', 'subcommands',
]
const ARG_KEY_ORDER = [
  'name', 'type', 'display_text', 'key_spec_index', 'token', 'summary', 'since', 'flags',
  'deprecated_since', 'arguments',
]
const ARG_FLAG_ORDER = ['optional', 'multiple', 'multiple_token']
const DOC_FLAG_ORDER = ['deprecated', 'syscmd']

function fail(message) {
  console.error(`gen-command-table: ${message}`)
  process.exit(1)
}

// ---------------------------------------------------------------------------------------------
// Server

/** A throwaway server through the shared launcher (own port and temporary --dir, no persistence). */
async function startServer() {
  try {
    return await startRedisServer()
  } catch (error) {
    fail(error.message)
  }
}

function cli(connection, args) {
  try {
    return execFileSync(REDIS_CLI, [...connection, ...args], {
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
  } catch (error) {
    fail(`${REDIS_CLI} ${args.join(' ')} failed: ${error.stderr || error.message}`)
  }
}

function cliJson(connection, args) {
  const text = cli(connection, ['-3', '--json', ...args])
  try {
    return JSON.parse(text)
  } catch {
    fail(`${REDIS_CLI} --json ${args.join(' ')} did not print JSON: ${text.slice(0, 200)}`)
  }
}

async function readServer() {
  let server
  let connection
  if (process.env.REDIS_URL) {
    connection = ['-u', process.env.REDIS_URL]
  } else {
    server = await startServer()
    connection = ['-h', '127.0.0.1', '-p', String(server.port)]
  }
  try {
    const infoText = cli(connection, ['INFO', 'server'])
    const version = /redis_version:([^\r\n]+)/.exec(infoText)?.[1]
    if (!version) fail('INFO server has no redis_version')
    const categories = cli(connection, ['ACL', 'CAT'])
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter(Boolean)
    const info = cliJson(connection, ['COMMAND', 'INFO'])
    const docs = cliJson(connection, ['COMMAND', 'DOCS'])
    const count = Number(cli(connection, ['COMMAND', 'COUNT']).trim())
    if (!Array.isArray(info) || info.length !== count) fail(`COMMAND INFO has ${info?.length} entries, COMMAND COUNT says ${count}`)
    if (!docs || typeof docs !== 'object') fail('COMMAND DOCS is not a map')
    return { version, categories, info, docs }
  } finally {
    await server?.stop()
  }
}

// ---------------------------------------------------------------------------------------------
// Ordering

function orderIndex(order, what) {
  const index = new Map(order.map((name, i) => [name, i]))
  return (name) => {
    const i = index.get(name)
    if (i === undefined) fail(`unknown ${what} '${name}' (add it to the order list in the generator)`)
    return i
  }
}

const commandFlagRank = orderIndex(COMMAND_FLAG_ORDER, 'command flag')
const keySpecFlagRank = orderIndex(KEY_SPEC_FLAG_ORDER, 'key spec flag')
const argFlagRank = orderIndex(ARG_FLAG_ORDER, 'argument flag')
const docFlagRank = orderIndex(DOC_FLAG_ORDER, 'doc flag')

function sortBy(list, rank) {
  return [...list].sort((a, b) => rank(a) - rank(b))
}

function checkOrder(list, rank, where) {
  for (let i = 1; i < list.length; i++) {
    if (rank(list[i - 1]) >= rank(list[i])) fail(`${where}: [${list.join(', ')}] is not in the expected order`)
  }
}

function orderKeys(object, order, where) {
  const out = {}
  for (const key of order) if (key in object) out[key] = object[key]
  for (const key of Object.keys(object)) if (!order.includes(key)) fail(`${where}: unexpected key '${key}'`)
  return out
}

function checkKeyOrder(object, order, where) {
  const keys = Object.keys(object)
  const expected = Object.keys(orderKeys(object, order, where))
  if (keys.join() !== expected.join()) fail(`${where}: keys [${keys}] are not in Redis's order`)
}

// ---------------------------------------------------------------------------------------------
// Normalization (checks server data, sorts overlay data)

function normalizeArgs(args, where, strict) {
  return args.map((arg) => {
    const at = `${where} argument ${arg.name}`
    if (strict) checkKeyOrder(arg, ARG_KEY_ORDER, at)
    const out = { ...arg }
    if (out.flags) {
      if (strict) checkOrder(out.flags, argFlagRank, at)
      out.flags = sortBy(out.flags, argFlagRank)
    }
    if (out.arguments) out.arguments = normalizeArgs(out.arguments, at, strict)
    return orderKeys(out, ARG_KEY_ORDER, at)
  })
}

function normalizeDocs(docs, where, strict) {
  if (strict) checkKeyOrder(docs, DOCS_KEY_ORDER, where)
  const out = { ...docs }
  if (out.doc_flags) {
    if (strict) checkOrder(out.doc_flags, docFlagRank, where)
    out.doc_flags = sortBy(out.doc_flags, docFlagRank)
  }
  if (out.arguments) out.arguments = normalizeArgs(out.arguments, where, strict)
  if (out.subcommands) {
    const subs = {}
    for (const name of Object.keys(out.subcommands).sort()) {
      subs[name] = normalizeDocs(out.subcommands[name], `${where} ${name}`, strict)
    }
    out.subcommands = subs
  }
  return orderKeys(out, DOCS_KEY_ORDER, where)
}

function normalizeKeySpec(spec, where, strict) {
  if (strict) {
    checkKeyOrder(spec, KEY_SPEC_KEY_ORDER, where)
    checkOrder(spec.flags, keySpecFlagRank, where)
  }
  return orderKeys({ ...spec, flags: sortBy(spec.flags, keySpecFlagRank) }, KEY_SPEC_KEY_ORDER, where)
}

/** COMMAND INFO entry (array of 10) → internal record. */
function fromInfoEntry(entry, categoryRank, strict) {
  const [name, arity, flags, firstKey, lastKey, step, categories, tips, keySpecs, subcommands] = entry
  const where = `COMMAND INFO ${name}`
  if (strict) {
    checkOrder(flags, commandFlagRank, where)
    checkOrder(categories, categoryRank, where)
  }
  return {
    name: name.toLowerCase(),
    arity,
    flags: sortBy(flags, commandFlagRank),
    firstKey,
    lastKey,
    step,
    categories: sortBy(categories, categoryRank),
    tips,
    keySpecs: keySpecs.map((spec, i) => normalizeKeySpec(spec, `${where} key spec ${i}`, strict)),
    subcommands: subcommands.map((sub) => fromInfoEntry(sub, categoryRank, strict)),
  }
}

function fromOverlay(entry, categoryRank) {
  const { info } = entry
  return fromInfoEntry(
    [
      entry.name,
      info.arity,
      info.flags,
      info.first_key,
      info.last_key,
      info.step,
      info.categories,
      info.tips ?? [],
      info.key_specs ?? [],
      [],
    ],
    categoryRank,
    false,
  )
}

// ---------------------------------------------------------------------------------------------
// Derived data

/** Values taken by the option introduced by `arg` (a top-level docs argument with a token). */
function optionValueCount(arg) {
  if (arg.type === 'pure-token') return 0
  if (arg.type === 'block') return (arg.arguments ?? []).length
  return 1
}

/**
 * For a command flagged `blocking` that only blocks when an optional token (BLOCK) is given,
 * the option walk that finds it: [token, stop keyword, {TOKEN: value count}].
 */
function deriveBlock(record, docs) {
  if (!record.flags.includes('blocking') || !docs?.arguments) return undefined
  const blockArg = docs.arguments.find((arg) => arg.token === 'BLOCK' && arg.flags?.includes('optional'))
  if (!blockArg) return undefined
  const keyword = record.keySpecs.find((spec) => spec.begin_search.type === 'keyword')?.begin_search.spec.keyword
  if (!keyword) fail(`${record.name}: conditionally blocking but no keyword key spec`)
  const options = {}
  for (const arg of docs.arguments) {
    if (arg.token === keyword) break
    const alternatives = arg.type === 'oneof' ? arg.arguments : [arg]
    for (const alt of alternatives) {
      if (!alt.token) fail(`${record.name}: option without token before ${keyword}`)
      options[alt.token] = optionValueCount(alt)
    }
  }
  return ['BLOCK', keyword, options]
}

// ---------------------------------------------------------------------------------------------
// Output

function rawBeginSearch(spec) {
  const { type } = spec.begin_search
  if (type === 'index') return spec.begin_search.spec.index
  if (type === 'keyword') return [spec.begin_search.spec.keyword, spec.begin_search.spec.startfrom]
  if (type === 'unknown') return null
  fail(`unknown begin_search type ${type}`)
}

function rawFindKeys(spec) {
  const { type } = spec.find_keys
  const s = spec.find_keys.spec
  if (type === 'range') return ['r', s.lastkey, s.keystep, s.limit]
  if (type === 'keynum') return ['n', s.keynumidx, s.firstkey, s.keystep]
  if (type === 'unknown') return null
  fail(`unknown find_keys type ${type}`)
}

function row(record, group, since, block, hiddenFlags) {
  const keySpecs = record.keySpecs.map((spec) => {
    const raw = [spec.flags.join(' '), rawBeginSearch(spec), rawFindKeys(spec)]
    if (spec.notes !== undefined) raw.push(spec.notes)
    return raw
  })
  const out = [
    record.name,
    record.arity,
    record.flags.join(' '),
    record.categories.join(' '),
    record.firstKey,
    record.lastKey,
    record.step,
    group,
    since,
    keySpecs,
  ]
  const extra = {}
  if (block) extra.block = block
  if (hiddenFlags.length > 0) extra.hidden_flags = hiddenFlags.join(' ')
  const hasExtra = Object.keys(extra).length > 0
  if (record.tips.length > 0 || hasExtra) out.push(record.tips.join(' '))
  if (hasExtra) out.push(extra)
  return JSON.stringify(out)
}

function header(version, counts) {
  return [
    '// GENERATED FILE — DO NOT EDIT.',
    '// Generated by scripts/gen-command-table.mjs; regenerate with `npm run gen:commands`',
    `// (optionally REDIS_URL=redis://host:port to read an existing server).`,
    `// Source: COMMAND INFO / COMMAND DOCS of redis-server ${version}, merged with`,
    `// scripts/command-overlay.json (${counts}).`,
    '',
  ].join('\n')
}

async function main() {
  const overlay = JSON.parse(fs.readFileSync(overlayPath, 'utf8'))
  const server = await readServer()
  const categoryRank = (() => {
    const known = server.categories.map((name) => `@${name}`)
    const index = new Map(known.map((name, i) => [name, i]))
    // Module categories (e.g. @json) come after the core ones, in the order first seen.
    return (name) => {
      if (!index.has(name)) index.set(name, index.size)
      return index.get(name)
    }
  })()

  const records = new Map()
  for (const entry of server.info) {
    const record = fromInfoEntry(entry, categoryRank, true)
    if (records.has(record.name)) fail(`duplicate command ${record.name}`)
    records.set(record.name, record)
  }
  const docs = new Map()
  for (const [name, value] of Object.entries(server.docs)) {
    docs.set(name.toLowerCase(), normalizeDocs(value, `COMMAND DOCS ${name}`, true))
  }
  for (const name of records.keys()) if (!docs.has(name)) fail(`COMMAND DOCS has no entry for ${name}`)

  const added = []
  const skipped = []
  for (const entry of overlay.commands) {
    const name = entry.name.toLowerCase()
    if (!entry.sources?.length) fail(`overlay ${name}: no sources`)
    const record = fromOverlay({ ...entry, name }, categoryRank)
    const entryDocs = normalizeDocs(entry.docs, `overlay ${name}`, false)
    const bar = name.indexOf('|')
    if (bar === -1) {
      if (records.has(name)) {
        skipped.push(name)
        continue
      }
      records.set(name, record)
      docs.set(name, entryDocs)
    } else {
      const parentName = name.slice(0, bar)
      const parent = records.get(parentName)
      if (!parent) fail(`overlay ${name}: no parent command ${parentName}`)
      if (parent.subcommands.some((sub) => sub.name === name)) {
        skipped.push(name)
        continue
      }
      parent.subcommands.push(record)
      const parentDocs = docs.get(parentName)
      const subs = { ...parentDocs.subcommands, [name]: entryDocs }
      const sorted = {}
      for (const key of Object.keys(subs).sort()) sorted[key] = subs[key]
      docs.set(parentName, orderKeys({ ...parentDocs, subcommands: sorted }, DOCS_KEY_ORDER, parentName))
    }
    added.push(name)
  }
  if (skipped.length > 0) console.log(`overlay entries the server already has (server data kept): ${skipped.join(' ')}`)

  const hiddenFlags = readHiddenFlags(overlay, records)
  const hiddenOf = (name) => [...hiddenFlags].filter(([, names]) => names.has(name)).map(([flag]) => flag)

  const lines = []
  let commandCount = 0
  let subcommandCount = 0
  for (const name of [...records.keys()].sort()) {
    const record = records.get(name)
    const commandDocs = docs.get(name)
    lines.push(row(record, commandDocs.group, commandDocs.since ?? '', deriveBlock(record, commandDocs), hiddenOf(name)))
    commandCount++
    for (const sub of [...record.subcommands].sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const subDocs = commandDocs.subcommands?.[sub.name]
      if (!subDocs) fail(`COMMAND DOCS has no entry for ${sub.name}`)
      lines.push(row(sub, subDocs.group, subDocs.since ?? '', deriveBlock(sub, subDocs), hiddenOf(sub.name)))
      subcommandCount++
    }
  }

  const counts = `${commandCount} commands, ${subcommandCount} subcommands; overlay: ${added.length}`
  const table = [
    header(server.version, counts),
    "import type { CommandRow } from './types.js'",
    '',
    '/** Version of the redis-server the table was generated from. @public */',
    `export const SERVER_VERSION = ${JSON.stringify(server.version)}`,
    '',
    '/** ACL categories in the order Redis lists them (`ACL CAT`), module categories last. @public */',
    `export const ACL_CATEGORIES: readonly string[] = ${JSON.stringify(
      [...server.categories.map((c) => `@${c}`), ...collectModuleCategories(records, server.categories)],
    )}`,
    '',
    '/**',
    ' * Every command, then its subcommands (`parent|sub`), sorted by name. See {@link CommandRow}.',
    ' * @public',
    ' */',
    'export const COMMAND_ROWS: readonly CommandRow[] = [',
    ...lines.map((line) => `  ${line},`),
    ']',
    '',
  ].join('\n')

  const docLines = [...docs.keys()].sort().map((name) => `  ${JSON.stringify(name)}: ${JSON.stringify(docs.get(name))},`)
  const docsFile = [
    header(server.version, counts),
    "import type { CommandDocs } from './types.js'",
    '',
    '/**',
    ' * The `COMMAND DOCS` map of every command, keyed by lowercase name; subcommands are nested',
    ' * under `subcommands` of their container, keyed by full name (`config|get`). Keys are in the',
    ' * order Redis writes them.',
    ' * @public',
    ' */',
    'export const COMMAND_DOCS: Readonly<Record<string, CommandDocs>> = {',
    ...docLines,
    '}',
    '',
  ].join('\n')

  fs.writeFileSync(tablePath, table)
  fs.writeFileSync(docsPath, docsFile)
  console.log(
    `wrote ${path.relative(root, tablePath)} (${table.length} bytes) and ${path.relative(root, docsPath)} (${docsFile.length} bytes): ` +
      `${counts}; server ${server.version}`,
  )
}

/**
 * The overlay's `hidden_flags`: flag name → the commands that carry it. Every name must be a
 * command of the table, so a typo fails loudly instead of leaving a command unflagged.
 */
function readHiddenFlags(overlay, records) {
  const section = overlay.hidden_flags
  const out = new Map()
  if (section === undefined) return out
  if (!section.sources?.length) fail('overlay hidden_flags: no sources')
  const known = new Set()
  for (const record of records.values()) for (const r of [record, ...record.subcommands]) known.add(r.name)
  for (const [flag, names] of Object.entries(section)) {
    if (flag.startsWith('$') || flag === 'sources') continue
    if (!Array.isArray(names)) fail(`overlay hidden_flags.${flag}: not a list of command names`)
    for (const name of names) if (!known.has(name)) fail(`overlay hidden_flags.${flag}: unknown command ${name}`)
    out.set(flag, new Set(names))
  }
  return out
}

function collectModuleCategories(records, coreCategories) {
  const core = new Set(coreCategories.map((c) => `@${c}`))
  const extra = []
  for (const record of records.values()) {
    for (const r of [record, ...record.subcommands]) {
      for (const category of r.categories) if (!core.has(category) && !extra.includes(category)) extra.push(category)
    }
  }
  return extra
}

await main()
