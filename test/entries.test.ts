// The public entry points, at run time: what each exports, what none does, and that package.json
// `exports` and the build's entries name the same modules. (The declarations are checked by
// `npm run api:check`.)
import { readFileSync } from 'node:fs'
import { describe, expect, test } from 'vitest'
import tsupConfig from '../tsup.config.js'

/** Source module of each subpath of package.json `exports`, as the build maps them. */
const entries: Record<string, string> = {
  '.': 'src/index.ts',
  './resp': 'src/resp/index.ts',
  './rest': 'src/rest/index.ts',
  './fetch': 'src/entries/fetch.ts',
  './node': 'src/entries/node.ts',
  './memory': 'src/executor/memory/index.ts',
  './socket': 'src/executor/socket/index.ts',
  './auth': 'src/auth/index.ts',
  './workflow': 'src/workflow/index.ts',
  './queue': 'src/queue/index.ts',
}

async function load(subpath: string): Promise<Record<string, unknown>> {
  const url = new URL(`../${entries[subpath]!.replace(/\.ts$/, '.js')}`, import.meta.url)
  return (await import(/* @vite-ignore */ url.href)) as Record<string, unknown>
}

/** Helpers that once leaked from the root and the subpaths: no entry exports them now. */
const internals = [
  'parseCall',
  'splitUrl',
  'requestToken',
  'envelope',
  'envelopes',
  'errorEnvelope',
  'replyToJson',
  'eventStream',
  'formatEvent',
  'formatPubSubEvent',
  'RestError',
  'badRequest',
  'backendUnavailable',
  'commandNotAvailable',
  'UNAUTHORIZED',
  'principalId',
  'checkPermission',
  'noPermission',
  'redact',
  'Engine',
  'QueueStore',
  'newRunId',
  'bodyHash',
]

describe('public entry points', () => {
  test('package.json exports, the build entries and the declaration entries name the same modules', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { exports: Record<string, unknown> }
    const subpaths = Object.keys(pkg.exports).filter((subpath) => subpath !== './package.json')
    expect(subpaths.sort()).toEqual(Object.keys(entries).sort())
    const config = tsupConfig as { entry: Record<string, string>; dts: { entry: Record<string, string> } }
    for (const [subpath, source] of Object.entries(entries)) {
      const name = subpath === '.' ? 'index' : subpath.slice(2)
      expect(config.entry[name], name).toBe(source)
      expect(config.dts.entry[name], name).toBe(source)
    }
    expect(Object.keys(config.dts.entry).sort()).toEqual(Object.keys(entries).map((s) => (s === '.' ? 'index' : s.slice(2))).sort())
  })

  test('no entry exports an internal helper', async () => {
    for (const subpath of Object.keys(entries)) {
      const exported = Object.keys(await load(subpath))
      expect(exported.filter((name) => internals.includes(name)), subpath).toEqual([])
    }
  })

  test('the root exports what a server is wired from, and not the workflow or queue modules', async () => {
    const root = await load('.')
    for (const name of [
      'MemoryExecutor',
      'SocketExecutor',
      'createGateway',
      'createFetchHandler',
      'createNodeHandler',
      'serveResp',
      'TokenStore',
      'Limits',
      'generateToken',
      'provisionReadonlyUser',
      'ReplyError',
      'Status',
      'NULL_ARRAY',
      'isReplyError',
      'BackendUnavailableError',
      'HandshakeError',
      'ReplyTooLargeError',
    ]) {
      expect(root[name], name).toBeDefined()
    }
    for (const name of ['serve', 'createQueueService', 'parseRedisUrl', 'encodeCommand']) expect(root[name], name).toBeUndefined()
  })

  test('restis/queue creates the service; its store and key layout stay inside', async () => {
    const queue = await load('./queue')
    expect(Object.keys(queue).sort()).toEqual(['AttributedReply', 'BigNumber', 'BlobError', 'NULL_ARRAY', 'ReplyDouble', 'ReplyError', 'ReplyMap', 'ReplyPush', 'ReplySet', 'SkippedFireNotice', 'Status', 'VerbatimString', 'createQueueService', 'defaultBackoff'])
    expect(typeof queue.createQueueService).toBe('function')
  })

  test('an entry that hands out the reply model exports its values too', async () => {
    for (const subpath of ['.', './rest', './fetch', './node', './memory', './socket', './auth', './queue']) {
      const module = await load(subpath)
      for (const name of ['ReplyError', 'Status', 'NULL_ARRAY']) expect(module[name], `${subpath} ${name}`).toBeDefined()
    }
  })
})
