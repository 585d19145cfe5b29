/**
 * A consumer project for the package tests: packs restis once (or takes the tarball CI packed,
 * `RESTIS_PACKAGE_TARBALL`), installs it into a temporary directory as a user would, and writes
 * the scripts and TypeScript files that load every subpath.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')

export interface PackageJson {
  readonly name: string
  readonly engines: { readonly node: string }
  readonly bin: Record<string, string>
  readonly exports: Record<string, unknown>
}

export const manifest: PackageJson = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'))

/** Every import specifier the package exports (`restis`, `restis/resp`, …), package.json aside. */
export const specifiers: string[] = Object.keys(manifest.exports)
  .filter((key) => key !== './package.json')
  .map((key) => (key === '.' ? manifest.name : `${manifest.name}/${key.slice(2)}`))

export interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs a command to completion without blocking the event loop. */
export function run(command: string, args: readonly string[], cwd: string, timeoutMs = 300_000): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_update_notifier: 'false' } })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.once('error', reject)
    child.once('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

function check(result: Run, what: string): Run {
  if (result.code !== 0) throw new Error(`${what} failed (${result.code}):\n${result.stdout}\n${result.stderr}`)
  return result
}

/** The tarball: CI's, or a fresh `npm pack` (which builds through `prepack`). */
export async function packTarball(dir: string): Promise<string> {
  const given = process.env.RESTIS_PACKAGE_TARBALL
  if (given) return path.resolve(ROOT, given)
  check(await run('npm', ['pack', '--pack-destination', dir], ROOT, 600_000), 'npm pack')
  const file = readdirSync(dir).find((name) => name.endsWith('.tgz'))
  if (!file) throw new Error(`npm pack wrote no tarball into ${dir}`)
  return path.join(dir, file)
}

/** A temporary project with the tarball installed from it, as `npm i restis` would. */
export async function installConsumer(tarball: string): Promise<{ dir: string; install: Run }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'restis-consumer-'))
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true }))
  const install = check(
    await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], dir, 600_000),
    'npm install of the tarball',
  )
  writeConsumerFiles(dir)
  return { dir, install }
}

/** One EVAL through the Fetch handler and the memory engine: Lua (lua-redis-wasm) runs. */
const EVAL_REQUEST = `new Request('http://consumer/', { method: 'POST', headers: { authorization: 'Bearer t' }, body: JSON.stringify(['EVAL', 'return redis.call("INCRBY", KEYS[1], ARGV[1]) * 2', '1', 'k', '21']) })`

function writeConsumerFiles(dir: string): void {
  const list = JSON.stringify(specifiers)
  writeFileSync(
    path.join(dir, 'load.mjs'),
    `const loaded = {}
for (const specifier of ${list}) loaded[specifier] = Object.keys(await import(specifier)).filter((name) => name !== 'default').sort()
const { createFetchHandler } = await import('restis/fetch')
const { MemoryExecutor } = await import('restis/memory')
const response = await createFetchHandler({ executor: new MemoryExecutor(), token: 't' })(${EVAL_REQUEST})
console.log(JSON.stringify({ version: process.version, loaded, eval: await response.text() }))
`,
  )
  writeFileSync(
    path.join(dir, 'load.cjs'),
    `const loaded = {}
for (const specifier of ${list}) loaded[specifier] = Object.keys(require(specifier)).filter((name) => name !== 'default' && name !== '__esModule').sort()
const { createFetchHandler } = require('restis/fetch')
const { MemoryExecutor } = require('restis/memory')
createFetchHandler({ executor: new MemoryExecutor(), token: 't' })(${EVAL_REQUEST})
  .then((response) => response.text())
  .then((text) => console.log(JSON.stringify({ version: process.version, loaded, eval: text })))
`,
  )
  writeTypeScriptFiles(dir)
}

/** .mts and .cts files importing every subpath, and one tsconfig per resolution mode. */
function writeTypeScriptFiles(dir: string): void {
  const esm = specifiers.map((specifier, i) => `import * as m${i} from '${specifier}'\nvoid m${i}`)
  // The payload type comes from the schema (typebox's Static): a wrong use must not compile.
  esm.push(`import { Type } from 'typebox'
import { serve } from 'restis/workflow'
serve(async (context) => {
  const n: number = context.requestPayload.n
  // @ts-expect-error n is a number
  const s: string = context.requestPayload.n
  return n + s.length
}, { schema: Type.Object({ n: Type.Number() }) })`)
  writeFileSync(path.join(dir, 'esm.mts'), esm.join('\n') + '\n')
  const cjsRequire = specifiers.map((specifier, i) => `import m${i} = require('${specifier}')\nvoid m${i}`)
  writeFileSync(path.join(dir, 'cjs-require.cts'), cjsRequire.join('\n') + '\n')
  writeFileSync(path.join(dir, 'cjs-import.cts'), esm.slice(0, specifiers.length).join('\n') + '\n')
  const typeRoots = [path.join(ROOT, 'node_modules', '@types')]
  const base = { strict: true, noEmit: true, skipLibCheck: false, target: 'es2022', lib: ['es2023', 'dom'], types: ['node'], typeRoots }
  const configs: Record<string, { options: Record<string, string>; files: string[] }> = {
    node16: { options: { module: 'node16', moduleResolution: 'node16' }, files: ['esm.mts', 'cjs-require.cts'] },
    bundler: { options: { module: 'esnext', moduleResolution: 'bundler' }, files: ['esm.mts', 'cjs-import.cts'] },
    'bundler-preserve': { options: { module: 'preserve', moduleResolution: 'bundler' }, files: ['esm.mts', 'cjs-require.cts'] },
  }
  for (const [name, { options, files }] of Object.entries(configs)) {
    writeFileSync(path.join(dir, `tsconfig.${name}.json`), JSON.stringify({ compilerOptions: { ...base, ...options }, files }, null, 2))
  }
}

/** The lowest version of each range in `engines.node`, which must read `^x.y.z || >=x.y.z …`. */
export function engineMinima(range: string): string[] {
  return range.split('||').map((part) => {
    const match = /^(?:\^|>=)(\d+\.\d+\.\d+)$/.exec(part.trim())
    if (!match) throw new Error(`engines.node part ${JSON.stringify(part.trim())} is not ^x.y.z or >=x.y.z`)
    return match[1]
  })
}
