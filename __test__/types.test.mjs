// The result types as a TypeScript consumer writes against them
// (__test__/fixtures/types/results.mts): a dry run's result narrows by its
// flag, a failure has no field it does not declare. The fixture type-checks
// under `tsc --strict` against index.d.ts, and each line it marks with
// @ts-expect-error is an error without the directive (and no other line is).
import './helpers/private-state.mjs'
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { REPO, consumerProject, tsc } from './helpers/typescript.mjs'

const FIXTURE = path.join(REPO, '__test__', 'fixtures', 'types', 'results.mts')

test('result types: dry runs narrow by their flag and failures declare every field, under tsc --strict', () => {
  const text = fs.readFileSync(FIXTURE, 'utf8')
  const ok = tsc(consumerProject({ 'results.mts': text }))
  // An unused @ts-expect-error is itself an error (TS2578), so passing means each one fired.
  assert.equal(ok.status, 0, ok.output)

  const lines = text.split('\n')
  const marked = lines.flatMap((l, i) => (/^\s*\/\/ @ts-expect-error/.test(l) ? [i + 2] : []))
  assert.ok(marked.length >= 10, `${marked.length} @ts-expect-error lines`)
  const stripped = lines.map((l) => (/^\s*\/\/ @ts-expect-error/.test(l) ? '//' : l)).join('\n')
  const bad = tsc(consumerProject({ 'results.mts': stripped }))
  assert.notEqual(bad.status, 0)
  assert.deepEqual([...new Set(bad.errors.map((e) => e.line))].sort((a, b) => a - b), marked, bad.output)
})

test('result types: a failure type has no index signature', () => {
  const dts = fs.readFileSync(path.join(REPO, 'index.d.ts'), 'utf8')
  assert.doesNotMatch(dts, /\[\s*\w+\s*:\s*string\s*\]\s*:\s*unknown/)
})
