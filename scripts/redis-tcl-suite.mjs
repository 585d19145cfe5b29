#!/usr/bin/env node
/**
 * Redis's own tcl test suite, in external-server mode, against restis's RESP listener over the
 * memory engine and against redis-server, unit by unit: a local measure of compatibility (not
 * part of CI). Prints, per unit, the `[ok]` and `[err]` counts on both, and flags a unit that
 * aborted (an `[exception]`, the suite exiting early) or hung (killed at the per-unit timeout).
 *
 * Usage:
 *   node scripts/redis-tcl-suite.mjs --redis-git <git dir> [--ref 7.0.15]
 *   node scripts/redis-tcl-suite.mjs --redis-src <checkout with runtest and tests/>
 *   options: --units type/string,expire,…   --timeout <seconds per unit, default 300>
 *            --only restis|redis            --verbose (print each unit's failing tests)
 *            --skiptest <name or /regexp>   (repeatable) tests the suite skips, e.g. to see past a
 *                                           test that aborts its unit
 *
 * Needs `tclsh` (8.5+; `apt-get install tcl`) and `redis-server` on PATH (REDIS_SERVER_BIN
 * overrides). Tests tagged as needing DEBUG, replication, SAVE, RESET or CONFIG RESETSTAT are
 * excluded; the suite itself skips those tagged `external:skip`.
 */
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { startRedisServer } from './redis-server.mjs'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

/** The units the comparison covers (paths under tests/unit, as `--single unit/<name>` takes them). */
export const DEFAULT_UNITS = [
  'type/string', 'type/incr', 'type/list', 'type/hash', 'type/set', 'type/zset', 'type/stream', 'type/stream-cgroups',
  'expire', 'keyspace', 'hyperloglog', 'geo', 'bitops', 'bitfield', 'scripting', 'multi', 'pubsub', 'scan', 'sort',
]

/** Tags whose tests need what an external server need not offer (tests/README.md). */
const EXCLUDED_TAGS = ['needs:debug', 'needs:repl', 'needs:save', 'needs:reset', 'needs:config-resetstat']

const { values } = parseArgs({
  options: {
    'redis-git': { type: 'string' },
    'redis-src': { type: 'string' },
    ref: { type: 'string', default: '7.0.15' },
    units: { type: 'string' },
    timeout: { type: 'string', default: '300' },
    only: { type: 'string' },
    verbose: { type: 'boolean', default: false },
    skiptest: { type: 'string', multiple: true, default: [] },
  },
})

const units = values.units === undefined ? DEFAULT_UNITS : values.units.split(',').map((unit) => unit.trim()).filter(Boolean)
const timeoutSeconds = Number(values.timeout)
if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) throw new Error(`invalid --timeout: ${values.timeout}`)
if (values.only !== undefined && values.only !== 'restis' && values.only !== 'redis') throw new Error('--only takes restis or redis')

/** A directory holding `tests/` of the wanted Redis version: the given checkout, or an archive of the ref. */
function suiteDirectory() {
  if (values['redis-src'] !== undefined) {
    const dir = path.resolve(values['redis-src'])
    if (!existsSync(path.join(dir, 'tests', 'test_helper.tcl'))) throw new Error(`${dir} has no tests/test_helper.tcl`)
    return { dir, cleanup: () => {} }
  }
  const gitDir = values['redis-git']
  if (gitDir === undefined) throw new Error('give --redis-git <git dir of redis/redis> or --redis-src <checkout>')
  const dir = mkdtempSync(path.join(os.tmpdir(), `redis-suite-${values.ref}-`))
  // The tests need their assets and helpers only; the server is the one on PATH.
  const archive = execFileSync('git', ['--git-dir', gitDir, 'archive', values.ref, 'tests'], { maxBuffer: 1 << 30 })
  execFileSync('tar', ['-x', '-C', dir], { input: archive })
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}

function tclsh() {
  for (const name of ['tclsh8.6', 'tclsh8.7', 'tclsh8.5', 'tclsh']) {
    try {
      execFileSync('which', [name], { stdio: 'ignore' })
      return name
    } catch {
      // try the next name
    }
  }
  throw new Error('tclsh not found: install tcl (apt-get install tcl)')
}

/** Starts the RESP listener over the memory engine in a child process; resolves with its port. */
function startRestis() {
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', './scripts/text-import.mjs', 'scripts/redis-tcl-suite-listener.ts'], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  return new Promise((resolve, reject) => {
    let output = ''
    child.stdout.on('data', (chunk) => {
      output += chunk.toString()
      const match = /^port (\d+)$/m.exec(output)
      if (match !== null) resolve({ port: Number(match[1]), stop: () => stopChild(child) })
    })
    child.once('exit', (code) => reject(new Error(`the listener exited with ${code} before listening: ${output}`)))
  })
}

function stopChild(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once('exit', () => resolve())
    child.kill('SIGTERM')
  })
}

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g

/**
 * Runs one unit against `port`. The suite's test server and client are a process group of their
 * own, killed as a whole when the unit outlives the timeout.
 */
function runUnit(dir, shell, port, unit) {
  const args = ['tests/test_helper.tcl', '--host', '127.0.0.1', '--port', String(port), '--singledb', '--single', `unit/${unit}`,
    '--timeout', String(timeoutSeconds), '--tags', EXCLUDED_TAGS.map((tag) => `-${tag}`).join(' '),
    // The suite's own test server listens 32 ports below the base: a random base lets runs coexist.
    '--baseport', String(20_000 + Math.floor(Math.random() * 30_000)),
    ...values.skiptest.flatMap((test) => ['--skiptest', test])]
  const child = spawn(shell, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  let output = ''
  child.stdout.on('data', (chunk) => (output += chunk.toString()))
  child.stderr.on('data', (chunk) => (output += chunk.toString()))
  return new Promise((resolve) => {
    let hung = false
    const timer = setTimeout(() => {
      hung = true
      try {
        process.kill(-child.pid, 'SIGKILL')
      } catch {
        // already gone
      }
    }, timeoutSeconds * 1000)
    child.once('exit', (code) => {
      clearTimeout(timer)
      resolve(summarise(output.replace(ANSI, ''), code, hung))
    })
  })
}

/** The counts and the fate of a unit from the suite's output. */
function summarise(output, code, hung) {
  const lines = output.split('\n')
  const ok = lines.filter((line) => line.startsWith('[ok]: ')).length
  const errors = lines.filter((line) => line.startsWith('[err]: '))
  const exception = lines.find((line) => line.startsWith('[exception]: '))
  const lastTest = [...lines].reverse().find((line) => /^\[(ok|err)\]: /.test(line))
  let fate = 'completed'
  if (hung) fate = 'HUNG'
  else if (exception !== undefined || (code !== 0 && errors.length === 0)) fate = 'ABORTED'
  // Why it stopped: the exception and what follows, else the end of the output.
  const tail = lines.filter((line) => line.trim() !== '').slice(-8)
  const detail = exception !== undefined ? lines.slice(lines.indexOf(exception), lines.indexOf(exception) + 6) : fate === 'completed' ? [] : tail
  return { ok, err: errors.length, fate, errors, detail, lastTest }
}

async function runSide(name, start, dir, shell) {
  const results = new Map()
  for (const unit of units) {
    // A fresh server per unit, so one unit's leftovers (or a crash) cannot spoil the next.
    const server = await start()
    const started = Date.now()
    const result = await runUnit(dir, shell, server.port, unit)
    await server.stop()
    result.seconds = Math.round((Date.now() - started) / 1000)
    results.set(unit, result)
    process.stderr.write(`${name} ${unit}: ${result.ok} ok, ${result.err} err, ${result.fate} (${result.seconds} s)\n`)
  }
  return results
}

function printTable(restis, redis) {
  const rows = [['unit', 'restis ok', 'restis err', 'restis', 'redis ok', 'redis err', 'redis', 'ok ratio']]
  let restisOk = 0
  let redisOk = 0
  for (const unit of units) {
    const a = restis?.get(unit)
    const b = redis?.get(unit)
    restisOk += a?.ok ?? 0
    redisOk += b?.ok ?? 0
    const ratio = a !== undefined && b !== undefined && b.ok > 0 ? `${Math.round((100 * a.ok) / b.ok)}%` : '-'
    rows.push([unit, a?.ok ?? '-', a?.err ?? '-', a?.fate ?? '-', b?.ok ?? '-', b?.err ?? '-', b?.fate ?? '-', ratio])
  }
  const total = restis !== undefined && redis !== undefined && redisOk > 0 ? `${Math.round((100 * restisOk) / redisOk)}%` : '-'
  rows.push(['total', restis === undefined ? '-' : restisOk, '', '', redis === undefined ? '-' : redisOk, '', '', total])
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => String(row[column]).length)))
  for (const row of rows) console.log(row.map((cell, column) => String(cell).padEnd(widths[column])).join('  '))
}

function printDetails(name, results) {
  for (const [unit, result] of results) {
    if (result.err === 0 && result.fate === 'completed') continue
    console.log(`\n${name} ${unit} (${result.fate}${result.fate === 'completed' ? '' : `, last finished test: ${result.lastTest ?? 'none'}`}):`)
    for (const line of result.errors) console.log(`  ${line}`)
    for (const line of result.detail) console.log(`  ${line}`)
  }
}

const shell = tclsh()
const suite = suiteDirectory()
try {
  const restis = values.only === 'redis' ? undefined : await runSide('restis', startRestis, suite.dir, shell)
  const redis = values.only === 'restis' ? undefined : await runSide('redis-server', () => startRedisServer(), suite.dir, shell)
  console.log(`\nRedis tcl suite (${values['redis-src'] ?? values.ref}), external mode, --singledb, excluding ${EXCLUDED_TAGS.join(', ')}\n`)
  printTable(restis, redis)
  if (values.verbose) {
    if (restis !== undefined) printDetails('restis', restis)
    if (redis !== undefined) printDetails('redis-server', redis)
  }
} finally {
  suite.cleanup()
}
