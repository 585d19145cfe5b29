#!/usr/bin/env node
// Runs after tsup: makes the CommonJS declarations (dist/*.d.cts) import the types of ESM-only
// dependencies as ESM.
//
// A `.d.cts` file is a CommonJS module to TypeScript, so `import { TSchema } from 'typebox'` in
// it asks for a `require` of typebox, which ships ESM only: a CommonJS consumer under
// `moduleResolution: node16` gets TS1479. A type-only import with the `resolution-mode: import`
// attribute (TypeScript 5.3+) resolves the package as ESM and needs no `require` at run time.
// (The declaration bundler drops import attributes, so writing it in src/ would not survive.)

import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/** Dependencies whose types are ESM only (no `require` condition in their exports). */
const ESM_ONLY = ['typebox']

const dist = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist')
const named = /^import (type )?(\{[^}]*\}) from '([^']+)';$/gm

function esmOnly(specifier) {
  return ESM_ONLY.some((name) => specifier === name || specifier.startsWith(`${name}/`))
}

let rewritten = 0
for (const file of fs.readdirSync(dist).filter((name) => name.endsWith('.d.cts'))) {
  const full = path.join(dist, file)
  const before = fs.readFileSync(full, 'utf8')
  const after = before.replace(named, (line, _type, names, specifier) => {
    if (!esmOnly(specifier)) return line
    rewritten++
    return `import type ${names} from '${specifier}' with { 'resolution-mode': 'import' };`
  })
  if (after !== before) fs.writeFileSync(full, after)
}
console.log(`cjs-declarations: ${rewritten} import(s) of ESM-only types made resolution-mode import`)
