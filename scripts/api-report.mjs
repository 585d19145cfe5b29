// One API report per public entry point: every subpath in package.json `exports` (other than
// ./package.json) has its declarations in dist/<name>.d.ts and its report in
// docs/api/<name>.api.md. api-extractor analyses one entry point per run, so this runs it once
// per entry with api-extractor.json as the shared base.
//
//   node scripts/api-report.mjs           check: fails when a report is out of date or stale, on
//                                         an api-extractor error (a forgotten export is one), an
//                                         export without a TSDoc summary, or a value the
//                                         declarations promise and the built module lacks
//   node scripts/api-report.mjs --local   regenerate the reports (the same checks, but a changed
//                                         report is written instead of failing)
//   node scripts/api-report.mjs --count   print the exported declarations per report
//
// Run after `npm run build` (the scripts `api` and `api:check` do both).
import { readFileSync, readdirSync, existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const reportFolder = join(root, 'docs', 'api')

/** Entry name ("index" for ".") and its declaration file, from package.json `exports`. */
function entryPoints() {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  const entries = []
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    if (subpath === './package.json') continue
    const name = subpath === '.' ? 'index' : subpath.slice(2)
    const types = target.import?.types
    if (typeof types !== 'string') throw new Error(`package.json exports["${subpath}"] has no import.types`)
    entries.push({ name, types: join(root, types) })
  }
  return entries
}

/**
 * Top-level exports the report marks "(undocumented)": each must have at least a one-line TSDoc
 * summary. Members are left to the report's marks, since a member's name and type often say all
 * there is to say.
 */
function undocumentedExports(reportPath) {
  const lines = readFileSync(reportPath, 'utf8').split('\n')
  const found = []
  lines.forEach((line, i) => {
    if (/^\/\/ .*\(undocumented\)/.test(line)) found.push(lines[i + 1] ?? '')
  })
  return found
}

async function runEntry(entry, localBuild) {
  const base = ExtractorConfig.loadFile(join(root, 'api-extractor.json'))
  base.mainEntryPointFilePath = entry.types
  base.apiReport = { ...base.apiReport, reportFileName: entry.name }
  const config = ExtractorConfig.prepare({
    configObject: base,
    configObjectFullPath: join(root, 'api-extractor.json'),
    packageJsonFullPath: join(root, 'package.json'),
  })
  const result = Extractor.invoke(config, { localBuild })
  const report = join(config.reportTempFolder, `${entry.name}.api.md`)
  const undocumented = undocumentedExports(report)
  for (const line of undocumented) console.error(`api: ${entry.name}: no TSDoc summary: ${line}`)
  const missing = await missingValues(entry, report)
  for (const name of missing) console.error(`api: ${entry.name}: the declarations export ${name}, the module does not`)
  const ok = result.succeeded && undocumented.length === 0 && missing.length === 0
  if (!ok) {
    const problems = [`${result.errorCount} errors`, `${undocumented.length} undocumented exports`, `${missing.length} missing values`]
    if (result.apiReportChanged) problems.push('report changed')
    console.error(`api: ${entry.name}: ${problems.join(', ')}`)
  }
  return ok
}

/** Top-level declarations of a report, name to kind (class, function, type …); overloads once. */
function exportedDeclarations(reportPath) {
  const declarations = new Map()
  for (const line of readFileSync(reportPath, 'utf8').split('\n')) {
    const match = /^export (?:declare )?(?:abstract )?(class|interface|type|function|const|let|enum|namespace) ([A-Za-z0-9_$]+)/.exec(line)
    if (match) declarations.set(match[2], match[1])
  }
  return declarations
}

/**
 * Values the report promises (classes, functions, constants) that the built module lacks. A
 * declaration bundle loses `export type`, so a class re-exported as a type only would appear
 * importable and be undefined at run time.
 */
async function missingValues(entry, reportPath) {
  const module = await import(pathToFileURL(entry.types.replace(/\.d\.ts$/, '.js')).href)
  const values = new Set(['class', 'function', 'const', 'let', 'enum', 'namespace'])
  return [...exportedDeclarations(reportPath)].filter(([name, kind]) => values.has(kind) && !(name in module)).map(([name]) => name)
}

/** Reports in docs/api/ whose entry point is gone from package.json `exports`. */
function staleReports(entries) {
  const current = new Set(entries.map((entry) => `${entry.name}.api.md`))
  return readdirSync(reportFolder).filter((file) => file.endsWith('.api.md') && !current.has(file))
}

const args = process.argv.slice(2)
if (args.includes('--count')) {
  let total = 0
  for (const file of readdirSync(reportFolder).filter((f) => f.endsWith('.api.md')).sort()) {
    const n = exportedDeclarations(join(reportFolder, file)).size
    total += n
    console.log(`${file.replace(/\.api\.md$/, '').padEnd(10)} ${n}`)
  }
  console.log(`${'total'.padEnd(10)} ${total}`)
} else {
  const localBuild = args.includes('--local')
  const entries = entryPoints()
  let failed = 0
  for (const entry of entries) {
    if (!existsSync(entry.types)) throw new Error(`${entry.types} is missing: run npm run build first`)
    if (!(await runEntry(entry, localBuild))) failed++
  }
  for (const file of staleReports(entries)) {
    console.error(`api: docs/api/${file} belongs to no entry point in package.json exports: delete it`)
    failed++
  }
  if (failed > 0) {
    console.error(localBuild ? `api: ${failed} entry points or reports have errors` : `api: ${failed} entry points or reports fail the check: run npm run api`)
    process.exit(1)
  }
}
