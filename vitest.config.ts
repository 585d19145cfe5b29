import { readFile } from 'node:fs/promises'
import { defineConfig, type Plugin } from 'vitest/config'

/** Imports of the source's `.lua` and `.html` files give their text, as the build's `text` loader does. */
function textAssets(): Plugin {
  return {
    name: 'restis-text-assets',
    enforce: 'pre',
    async load(id) {
      if (!/\.(lua|html)$/.test(id)) return null
      return `export default ${JSON.stringify(await readFile(id, 'utf8'))}`
    },
  }
}

export default defineConfig({
  plugins: [textAssets()],
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
})
