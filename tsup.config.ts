import { rm } from 'node:fs/promises'
import { defineConfig } from 'tsup'

/** The package's public entry points (package.json `exports`), each with its declarations. */
const publicEntries = {
  index: 'src/index.ts',
  resp: 'src/resp/index.ts',
  rest: 'src/rest/index.ts',
  fetch: 'src/entries/fetch.ts',
  node: 'src/entries/node.ts',
  memory: 'src/executor/memory/index.ts',
  socket: 'src/executor/socket/index.ts',
  auth: 'src/auth/index.ts',
  workflow: 'src/workflow/index.ts',
  queue: 'src/queue/index.ts',
}

export default defineConfig({
  entry: { ...publicEntries, cli: 'src/cli.ts' },
  format: ['esm', 'cjs'],
  // Declarations for every public entry (all but the CLI). Declarations tagged @internal are
  // left out: they stay callable for the CLI, benchmarks and tests, but are no public contract.
  dts: {
    entry: publicEntries,
    compilerOptions: { stripInternal: true },
  },
  target: 'node20',
  platform: 'node',
  splitting: true,
  // No source maps in the package: they would point at (or embed) src/ files the tarball does
  // not ship; the published JS is unminified and readable as it is.
  sourcemap: false,
  clean: true,
  shims: false,
  // Keep `node:` specifiers: Deno and other runtimes resolve built-ins only with the prefix.
  removeNodeProtocol: false,
  // The Lua runtime and the dashboard page are source files imported as text: inlined as strings.
  loader: { '.lua': 'text', '.html': 'text' },
  // The CLI is ESM (the `bin` is dist/cli.js); tsup builds every entry in both formats, and a
  // CommonJS CLI would be dead weight in the package, so it goes once the build is done.
  async onSuccess() {
    await rm('dist/cli.cjs', { force: true })
  },
})
