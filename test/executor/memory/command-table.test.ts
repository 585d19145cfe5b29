/**
 * The engine's handlers against the generated command table (`src/commands/table.ts`): a handler
 * whose name is not a row would never run (the engine resolves names through the table first),
 * and a command the compatibility page lists must have a handler, or the engine would answer it
 * with "unknown command".
 */
import { readFileSync } from 'node:fs'
import { describe, expect, test } from 'vitest'
import { findCommand, findSubcommand, type CommandInfo } from '../../../src/commands/lookup.js'
import { handlers } from '../../../src/executor/memory/commands/index.js'

/** The table row of a full handler name (`get`, `config|get`), or undefined. */
function row(name: string): CommandInfo | undefined {
  const [command, sub] = name.split('|')
  if (sub === undefined) return findCommand(command)
  const parent = findCommand(command)
  return parent === undefined ? undefined : findSubcommand(parent, sub)
}

/**
 * The command names the compatibility page's Families table claims, as full table names: upper
 * case words that are table rows, a word following a container command (`CLIENT (ID …)`,
 * `ACL SETUSER …`) read as its subcommand when it is one. Other words (prose, `RESP`) are not rows
 * and are skipped.
 */
function claimedCommands(): string[] {
  const page = readFileSync(new URL('../../../docs/compatibility.md', import.meta.url), 'utf8')
  const families = page.slice(page.indexOf('## Families'), page.indexOf('\n## ', page.indexOf('## Families') + 1))
  const claimed: string[] = []
  for (const line of families.split('\n')) {
    const cells = line.split('|')
    if (cells.length < 4) continue
    let container: CommandInfo | undefined
    for (const word of cells[2].match(/\b[A-Z][A-Z0-9_]+\b/g) ?? []) {
      const name = word.toLowerCase()
      const sub = container?.subcommands?.get(name)
      if (sub !== undefined) {
        claimed.push(sub.name)
        continue
      }
      const info = findCommand(name)
      if (info === undefined) continue
      container = info.subcommands === undefined ? undefined : info
      if (container === undefined) claimed.push(info.name)
    }
  }
  return claimed
}

describe('the command table and the engine handlers', () => {
  test('every handler is a row of the command table', () => {
    const orphans = [...handlers.keys()].filter((name) => row(name) === undefined)
    expect(orphans).toEqual([])
  })

  test('every handler of a subcommand belongs to a container command', () => {
    for (const name of handlers.keys()) {
      const info = row(name)
      if (name.includes('|')) expect(info?.parent?.name, name).toBe(name.split('|')[0])
    }
  })

  test('every command the compatibility page lists has a handler', () => {
    const claimed = claimedCommands()
    expect(claimed.length).toBeGreaterThan(150)
    expect(claimed.filter((name) => !handlers.has(name))).toEqual([])
  })
})
