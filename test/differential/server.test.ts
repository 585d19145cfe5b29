import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, test } from 'vitest'
import type { Executor } from '../../src/executor/executor.js'
import { ReplyError, type Reply } from '../../src/reply.js'
import { commandCalls, describeDifferential, runDifferential, showReply } from './harness.js'
import { databaseCases, infoCases, miscCases } from './server.cases.js'
import { commandCases } from './server.command.cases.js'
import { configCases } from './server.config.cases.js'
import { connectionCases } from './server.connection.cases.js'

runDifferential('server: DBSIZE FLUSHDB FLUSHALL SWAPDB MOVE', databaseCases)
runDifferential('server: INFO', infoCases)
// With a data directory (and Redis's test server's `save ""`): an engine without one refuses
// save points it could never honour.
const configDir = mkdtempSync(join(tmpdir(), 'restis-config-diff-'))
afterAll(() => rmSync(configDir, { recursive: true, force: true }))
runDifferential('server: CONFIG', configCases, undefined, { memory: { persistence: { dir: configDir, save: '' } } })
runDifferential('server: COMMAND', commandCases)
runDifferential('server: TIME LASTSAVE ROLE SLOWLOG MEMORY DEBUG', miscCases)
runDifferential('connection', connectionCases)

/** Parameters that describe the host rather than the server: the test server is started with its own. */
const HOST_PARAMETERS = new Set(['port', 'bind', 'dir', 'save'])

function text(reply: Reply): string {
  return Buffer.from(reply as Uint8Array).toString('latin1')
}

/** A flattened map as pairs. */
function pairs(reply: Reply): [string, Reply][] {
  const items = reply as Reply[]
  const out: [string, Reply][] = []
  for (let i = 0; i < items.length; i += 2) out.push([text(items[i]), items[i + 1]])
  return out
}

/**
 * COMMAND INFO entry with its subcommand entries sorted by name (Redis lists them in dict order),
 * keeping only subcommands the server knows (the table adds newer ones, e.g. ACL RESTTOKEN).
 */
function normalizeInfo(entry: Reply, known: ReadonlySet<string>): string {
  if (!Array.isArray(entry)) return showReply(entry)
  const head = (entry as Reply[]).slice(0, 9)
  const subcommands = ((entry as Reply[])[9] as Reply[])
    .filter((sub) => known.has(text((sub as Reply[])[0])))
    .map((sub) => normalizeInfo(sub, known))
    .sort()
  return `${showReply(head)} subcommands ${subcommands.join(' ')}`
}

/** COMMAND DOCS map with its subcommands map sorted by name, server-known subcommands only. */
function normalizeDocs(docs: Reply, known: ReadonlySet<string>): string {
  return pairs(docs)
    .map(([field, value]) => {
      if (field !== 'subcommands') return `${field}=${showReply(value)}`
      const subs = pairs(value)
        .filter(([name]) => known.has(name))
        .map(([name, sub]) => `${name}:{${normalizeDocs(sub, known)}}`)
      return `subcommands=${subs.sort().join(' ')}`
    })
    .join(' ')
}

/** Every command and subcommand name the server lists. */
async function serverCommands(redis: Executor): Promise<{ all: Set<string>; top: string[] }> {
  const all = ((await redis.exec(['COMMAND', 'LIST'])) as Reply[]).map(text)
  return { all: new Set(all), top: all.filter((name) => !name.includes('|')) }
}

/** INFO text as section titles with their field names, values dropped. */
function infoShape(info: string, skipFieldsOf: ReadonlySet<string>): string[] {
  const shape: string[] = []
  let section = ''
  for (const line of info.split('\r\n')) {
    if (line.startsWith('# ')) {
      section = line
      shape.push(line)
    } else if (line !== '' && !skipFieldsOf.has(section)) shape.push(line.slice(0, line.indexOf(':')))
  }
  return shape
}

describeDifferential(
  'server: whole-table comparisons',
  (live) => {

    test('COMMAND INFO of every command the server has matches (subcommands in any order)', async () => {
      const { all, top: names } = await serverCommands(live.redis)
      const [ours, theirs] = await live.both(['COMMAND', 'INFO', ...names])
      const differences: string[] = []
      names.forEach((name, i) => {
        const a = normalizeInfo((ours as Reply[])[i], all)
        const b = normalizeInfo((theirs as Reply[])[i], all)
        if (a !== b) differences.push(`${name}\n  memory ${a}\n  redis  ${b}`)
      })
      expect(differences.join('\n')).toBe('')
    })

    test('COMMAND DOCS of every command the server has matches (subcommands in any order)', async () => {
      const { all, top: names } = await serverCommands(live.redis)
      const [ours, theirs] = await live.both(['COMMAND', 'DOCS', ...names])
      const mine = new Map(pairs(ours).map(([name, docs]) => [name, normalizeDocs(docs, all)]))
      const differences: string[] = []
      for (const [name, docs] of pairs(theirs)) {
        const expected = normalizeDocs(docs, all)
        if (mine.get(name) !== expected) differences.push(`${name}\n  memory ${mine.get(name)}\n  redis  ${expected}`)
      }
      expect(differences.join('\n')).toBe('')
    })

    test('COMMAND LIST has every command of the server (the table adds newer ones)', async () => {
      const [ours, theirs] = await live.both(['COMMAND', 'LIST'])
      const mine = new Set((ours as Reply[]).map(text))
      expect((theirs as Reply[]).map(text).filter((name) => !mine.has(name))).toEqual([])
    })

    test('CONFIG GET * has the same parameters and defaults (host parameters aside)', async () => {
      const [ours, theirs] = await live.both(['CONFIG', 'GET', '*'])
      const show = (reply: Reply) =>
        pairs(reply)
          .filter(([name]) => !HOST_PARAMETERS.has(name))
          .map(([name, value]) => `${name}=${text(value)}`)
          .sort()
      expect(show(ours)).toEqual(show(theirs))
    })

    test('INFO everything has the same sections and fields, in the same order', async () => {
      const [ours, theirs] = await live.both(['INFO', 'everything'])
      // Per-command, per-error and latency lines depend on each server's history.
      const historyDependent = new Set(['# Commandstats', '# Errorstats', '# Latencystats', '# Keyspace'])
      expect(infoShape(text(ours), historyDependent)).toEqual(infoShape(text(theirs), historyDependent))
      expect(text(ours).endsWith('\r\n')).toBe(true)
    })

    test('INFO default, all and several sections select the same sections', async () => {
      for (const args of [[], ['default'], ['all'], ['server', 'keyspace'], ['keyspace', 'server'], ['KEYSPACE', 'default'], ['cpu', 'nosuch', 'memory']]) {
        const [ours, theirs] = await live.both(['INFO', ...args])
        const titles = (reply: Reply) => text(reply).split('\r\n').filter((line) => line.startsWith('# '))
        expect(titles(ours), `INFO ${args.join(' ')}`).toEqual(titles(theirs))
      }
    })

    test('INFO errorstats and commandstats name the same lines after the same errors', async () => {
      const script: string[][] = [['CONFIG', 'RESETSTAT'], ['GET'], ['SET', 's', '1'], ['HGET', 's', 'f'], ['NOSUCH'], ['GET', 's']]
      for (const command of script) await live.both(command)
      const [ours, theirs] = await live.both(['INFO', 'errorstats'])
      expect(text(ours)).toBe(text(theirs))
      const [ourStats, theirStats] = await live.both(['INFO', 'commandstats'])
      expect(commandCalls(ourStats)).toEqual(commandCalls(theirStats))
      expect(ours).not.toBeInstanceOf(ReplyError)
    })
  },
  { flushBeforeEach: false },
)
