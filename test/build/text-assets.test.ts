/**
 * The source's text assets (the Lua runtime, the dashboard page) in every form the code runs:
 * tsup's build, ESM and CJS (inlined by the `text` loader, so dist/ and the packed tarball need
 * no extra files), and `tsx` with the module hook of `npm start`. Vitest itself loads them through
 * the plugin in vitest.config.ts, which every scripting and dashboard test exercises.
 */
import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { build, type Options } from 'tsup'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import config from '../../tsup.config.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const run = promisify(execFile)

/** A script that runs one EVAL and fetches the dashboard, printing both as JSON; `imports` binds `MemoryExecutor` and `createQueueService`. */
function probe(imports: string): string {
  return `${imports}
const executor = new MemoryExecutor()
const reply = await executor.exec(['EVAL', "return {redis.REDIS_VERSION, redis.call('SET', KEYS[1], ARGV[1]), redis.call('GET', KEYS[1])}", '1', 'k', 'v'])
await executor.close()
const queue = createQueueService({ token: 'probe', autoStart: false })
const page = await (await queue.fetch(new Request('http://queue.test/dashboard'))).text()
await queue.close()
console.log(JSON.stringify({ reply: reply.map(String), title: /<title>(.*)<\\/title>/.exec(page)?.[1] }))
`
}

/** ESM imports of the two entry points from `queue` and `memory` (file paths). */
function esmImports(queue: string, memory: string): string {
  const url = (file: string) => JSON.stringify(pathToFileURL(file).href)
  return `import { createQueueService } from ${url(queue)}\nimport { MemoryExecutor } from ${url(memory)}`
}

const EXPECTED = { reply: ['7.0.15', 'OK', 'v'], title: 'restis queue' }

async function runNode(args: string[]): Promise<unknown> {
  const { stdout } = await run(process.execPath, args, { cwd: ROOT, timeout: 60_000 })
  return JSON.parse(stdout.trim().split('\n').pop() ?? '')
}

describe('text assets in the tsup build (ESM and CJS)', () => {
  let outDir: string

  beforeAll(async () => {
    // Inside the repository (temp/ is git-ignored) so the build finds node_modules.
    await mkdir(path.join(ROOT, 'temp'), { recursive: true })
    outDir = await mkdtemp(path.join(ROOT, 'temp', 'text-assets-'))
    const options = config as Options
    await build({ ...options, entry: { queue: 'src/queue/index.ts', memory: 'src/executor/memory/index.ts' }, outDir, dts: false, sourcemap: false, silent: true, config: false })
  }, 120_000)
  afterAll(async () => {
    if (outDir) await rm(outDir, { recursive: true, force: true })
  })

  test('the build holds no .lua or .html files: the text is inlined', async () => {
    const files = await readdir(outDir)
    expect(files.filter((file) => /\.(lua|html)$/.test(file))).toEqual([])
    expect(files).toEqual(expect.arrayContaining(['queue.js', 'queue.cjs', 'memory.js', 'memory.cjs']))
  })

  test('ESM: EVAL runs on the Lua runtime and the dashboard serves its page', async () => {
    const script = probe(esmImports(path.join(outDir, 'queue.js'), path.join(outDir, 'memory.js')))
    expect(await runNode(['--input-type=module', '-e', script])).toEqual(EXPECTED)
  }, 60_000)

  test('CJS: EVAL runs on the Lua runtime and the dashboard serves its page', async () => {
    const required = (file: string) => `require(${JSON.stringify(path.join(outDir, file))})`
    const script = probe(`const { createQueueService } = ${required('queue.cjs')}\nconst { MemoryExecutor } = ${required('memory.cjs')}`)
    expect(await runNode(['--input-type=commonjs', '-e', `(async () => {${script}})()`])).toEqual(EXPECTED)
  }, 60_000)
})

describe('text assets under tsx with the module hook of npm start', () => {
  test('EVAL runs on the Lua runtime and the dashboard serves its page', async () => {
    const script = probe(esmImports(path.join(ROOT, 'src/queue/index.ts'), path.join(ROOT, 'src/executor/memory/index.ts')))
    expect(await runNode(['--import', 'tsx', '--import', './scripts/text-import.mjs', '--input-type=module', '-e', script])).toEqual(EXPECTED)
  }, 60_000)
})
