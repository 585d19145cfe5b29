/**
 * Source files that are not TypeScript, imported as their text: the Lua runtime of the scripting
 * engine (`executor/memory/lua/*.lua`) and the queue dashboard's page (`queue/dashboard/*.html`).
 * The build inlines them (tsup's `text` loader), vitest through a plugin in vitest.config.ts, and
 * `npm start` through the module hook in scripts/text-import.mjs.
 */
declare module '*.lua' {
  const text: string
  export default text
}

declare module '*.html' {
  const text: string
  export default text
}
