/**
 * The package as users get it: `npm pack` (building through `prepack`), installed into a fresh
 * project, every subpath loaded by `import` and `require` on this Node and on every Node the
 * `engines` field admits at its lower bounds (and the latest 22 and 24), and type-checked from
 * ESM and CommonJS TypeScript consumers.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { engineMinima, installConsumer, manifest, packTarball, ROOT, run, specifiers, type Run } from './consumer.js'

const SETUP_TIMEOUT = 900_000
const NODE_TIMEOUT = 300_000

/** The last release below each lower bound of `engines`: require(esm) is missing there. */
const RELEASE_BEFORE: Record<string, string> = { '20.19.0': '20.18.3', '22.12.0': '22.11.0' }

let packDir: string
let tarball: string
let consumer: string
let install: Run

beforeAll(async () => {
  packDir = mkdtempSync(path.join(os.tmpdir(), 'restis-pack-'))
  tarball = await packTarball(packDir)
  ;({ dir: consumer, install } = await installConsumer(tarball))
}, SETUP_TIMEOUT)

afterAll(() => {
  rmSync(packDir, { recursive: true, force: true })
  if (consumer) rmSync(consumer, { recursive: true, force: true })
})

interface Loaded {
  readonly version: string
  readonly loaded: Record<string, string[]>
  readonly eval: string
}

function parseLoad(result: Run, what: string): Loaded {
  if (result.code !== 0) throw new Error(`${what} exited ${result.code}:\n${result.stderr}`)
  return JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '') as Loaded
}

/** Loads every subpath by import and by require with `node` (+ its leading arguments). */
async function loadBoth(node: readonly string[]): Promise<{ esm: Loaded; cjs: Loaded }> {
  const [command, ...args] = node
  const esm = parseLoad(await run(command, [...args, 'load.mjs'], consumer, NODE_TIMEOUT), `${node.join(' ')} load.mjs`)
  const cjs = parseLoad(await run(command, [...args, 'load.cjs'], consumer, NODE_TIMEOUT), `${node.join(' ')} load.cjs`)
  return { esm, cjs }
}

function expectEverySubpath({ esm, cjs }: { esm: Loaded; cjs: Loaded }): void {
  expect(Object.keys(esm.loaded)).toEqual(specifiers)
  for (const specifier of specifiers) {
    expect(esm.loaded[specifier].length, specifier).toBeGreaterThan(0)
    // Both formats export the same names.
    expect(cjs.loaded[specifier], specifier).toEqual(esm.loaded[specifier])
  }
  expect(esm.eval).toBe('{"result":42}')
  expect(cjs.eval).toBe('{"result":42}')
}

describe('the packed tarball', () => {
  it('holds the built code, declarations, README, LICENSE and docs, and no source maps or sources', async () => {
    const listing = await run('tar', ['-tzf', tarball], ROOT)
    const files = listing.stdout.split('\n').filter(Boolean).map((name) => name.replace(/^package\//, ''))
    for (const key of Object.keys(manifest.exports).filter((key) => key !== './package.json')) {
      const base = key === '.' ? 'index' : key.slice(2)
      for (const ext of ['.js', '.cjs', '.d.ts', '.d.cts']) expect(files).toContain(`dist/${base}${ext}`)
    }
    for (const bin of Object.values(manifest.bin)) expect(files).toContain(bin.replace(/^\.\//, ''))
    expect(files).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'package.json', 'docs/protocol.md']))
    expect(files.filter((name) => name.endsWith('.map'))).toEqual([])
    expect(files).not.toContain('dist/cli.cjs')
    expect(files.filter((name) => !/^(dist|docs)\/|^(LICENSE|README\.md|package\.json)$/.test(name))).toEqual([])
  })

  it('installs with no engine warning but the one documented for lua-redis-wasm on Node 20', () => {
    const warnings = install.stderr.split('\n').filter((line) => line.includes('EBADENGINE'))
    const packages = new Set(warnings.flatMap((line) => /package: '([^@']+)@/.exec(line)?.[1] ?? []))
    expect([...packages].filter((name) => name !== 'lua-redis-wasm')).toEqual([])
  })

  it(`loads every subpath by import and require on this Node (${process.version}), and runs Lua`, async () => {
    expectEverySubpath(await loadBoth([process.execPath]))
  })

  it('runs the restis bin', async () => {
    const result = await run(process.execPath, [path.join(consumer, 'node_modules', '.bin', 'restis'), '--help'], consumer)
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^restis: /)
  })
})

/**
 * Checks that do not depend on the Node running the suite (type checks, other Node versions) run
 * once per CI: the suite runs again on Node 22 with `RESTIS_PACKAGE_ONCE=0`, which skips them.
 */
const onceSkipReason = process.env.RESTIS_PACKAGE_ONCE === '0' ? 'run once per CI, in another run (RESTIS_PACKAGE_ONCE=0)' : undefined

describe.skipIf(onceSkipReason !== undefined)(`TypeScript consumers of the tarball${onceSkipReason ? ` (skipped: ${onceSkipReason})` : ''}`, () => {
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')
  // The three checks are separate tsc processes: run at once, they keep both of CI's cores busy
  // (about 95 s one after the other).
  for (const mode of ['node16', 'bundler', 'bundler-preserve']) {
    it.concurrent(`type-check .mts and .cts files importing every subpath (${mode} resolution)`, async ({ expect }) => {
      const result = await run(process.execPath, [tsc, '-p', `tsconfig.${mode}.json`], consumer)
      expect(result.stdout + result.stderr).toBe('')
      expect(result.code).toBe(0)
    }, NODE_TIMEOUT)
  }
})

/**
 * The binary of another Node version, fetched once through npx (the `node` package); undefined
 * when it cannot be had. Later runs spawn the binary itself: npx resolves the package every time.
 */
async function nodeOf(version: string): Promise<string[] | undefined> {
  const probe = await run('npx', ['-y', '-p', `node@${version}`, 'node', '-p', 'process.execPath'], consumer, NODE_TIMEOUT)
  const binary = probe.stdout.trim().split('\n').at(-1)
  return probe.code === 0 && binary ? [binary] : undefined
}

async function nodeOrSkip(version: string, skip: (note: string) => void): Promise<string[]> {
  const node = await nodeOf(version)
  // CI must run these; elsewhere (no registry access) they are skipped with the reason.
  if (!node && process.env.CI !== 'true') skip(`node@${version} not obtainable through npx`)
  if (!node) throw new Error(`node@${version} not obtainable through npx`)
  return node
}


describe.skipIf(onceSkipReason !== undefined)(`supported Node versions (engines.node)${onceSkipReason ? ` (skipped: ${onceSkipReason})` : ''}`, () => {
  const minima = engineMinima(manifest.engines.node)
  const versions = [...new Set([...minima, '22', '24'])]

  for (const version of versions) {
    it(`loads every subpath by import and require on Node ${version}`, async ({ skip }) => {
      const loaded = await loadBoth(await nodeOrSkip(version, skip))
      expect(loaded.esm.version === `v${version}` || loaded.esm.version.startsWith(`v${version}.`)).toBe(true)
      expectEverySubpath(loaded)
    }, SETUP_TIMEOUT)
  }

  for (const minimum of minima) {
    it(`cannot require restis on Node ${RELEASE_BEFORE[minimum] ?? '(release before ' + minimum + ')'}, so ${minimum} is the lower bound`, async ({ skip }) => {
      const before = RELEASE_BEFORE[minimum]
      expect(before, `add the release before ${minimum} to RELEASE_BEFORE`).toBeDefined()
      const [command, ...args] = await nodeOrSkip(before, skip)
      const esm = await run(command, [...args, 'load.mjs'], consumer, NODE_TIMEOUT)
      expect(esm.code).toBe(0)
      const cjs = await run(command, [...args, 'load.cjs'], consumer, NODE_TIMEOUT)
      expect(cjs.code).not.toBe(0)
      expect(cjs.stderr).toContain('ERR_REQUIRE_ESM')
    }, SETUP_TIMEOUT)
  }
})
