/**
 * Node module hooks that load the source's text assets (`.lua`, `.html`) as a module whose
 * default export is the file's text, as the build's `text` loader does. Registered by
 * text-import.mjs; see src/text-modules.d.ts.
 */
import { readFile } from 'node:fs/promises'

export const TEXT_ASSET = /\.(lua|html)$/

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !TEXT_ASSET.test(new URL(url).pathname)) return nextLoad(url, context)
  const text = await readFile(new URL(url), 'utf8')
  return { format: 'module', source: `export default ${JSON.stringify(text)}`, shortCircuit: true }
}
