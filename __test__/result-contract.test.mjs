// The result contract (schemas/results.json, generated from the Rust
// result types) against what the engine really answers: every entry point,
// its success, dry run and failures, in the full and the compact view, must
// fit its entry's schema, with every object closed (`additionalProperties:
// false` added here), so a field the engine gives but the contract does not
// declare fails as surely as a wrong type. And the result types in
// types/header.d.ts are what scripts/gen-results.mjs makes of the contract.
import './helpers/private-state.mjs'
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { resultTypes, withTypes } from '../scripts/gen-results.mjs'
import { expected as inputFiles, toleranceNames } from '../scripts/gen-inputs.mjs'

const require = createRequire(import.meta.url)
const api = require('../index.js')
const binding = require('../binding.js')
const Ajv2020 = require('ajv/dist/2020').default
// The MCP output schemas' own relaxation for the compact view, applied here to the closed schemas.
const { compactable } = require('../js/output-schemas.js')
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const contract = JSON.parse(fs.readFileSync(path.join(repo, 'schemas/results.json'), 'utf8'))

/** `schema` with every object schema that lists properties closed to others. */
function closed(schema) {
  if (Array.isArray(schema)) return schema.map(closed)
  if (schema === null || typeof schema !== 'object') return schema
  const out = {}
  for (const [k, v] of Object.entries(schema)) {
    out[k] = k === 'properties' ? Object.fromEntries(Object.entries(v).map(([p, s]) => [p, closed(s)])) : closed(v)
  }
  if (out.properties && out.additionalProperties === undefined) out.additionalProperties = false
  return out
}

const ajv = new Ajv2020({ strict: false, allErrors: true })
const validators = new Map()
/** Asserts that `result` of the entry point `engine` fits the contract (`compact`: its compact view). */
function fits(engine, result, compact) {
  const key = `${engine}/${compact}`
  if (!validators.has(key)) {
    const entry = contract.results[engine]
    assert.ok(entry, `the contract has a result for ${engine}`)
    const defs = compact ? compactable(closed(contract.$defs)) : closed(contract.$defs)
    validators.set(key, ajv.compile({ ...closed(entry), $defs: defs }))
  }
  const v = validators.get(key)
  assert.ok(v(result), `${engine}${compact ? ' (compact)' : ''}: ${ajv.errorsText(v.errors)}\n${JSON.stringify(result).slice(0, 1500)}`)
}

function workspace() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pft-contract-'))
  fs.writeFileSync(path.join(dir, 'a.txt'), 'alpha\nbeta\ngamma\nbeta\n')
  fs.writeFileSync(path.join(dir, 'b.txt'), 'one\ntwo\nthree\n')
  return dir
}

/** Calls that reach every kind of result, each `[engine, input]` run in order on one workspace. */
const CALLS = [
  ['patchFile', { file_path: 'a.txt', search_block: 'alpha', replace_block: 'ALPHA' }],
  ['patchFile', { file_path: 'a.txt', search_block: 'ALPHA', replace_block: 'alpha', dry_run: true }],
  ['patchFile', { file_path: 'a.txt', search_block: 'beta', replace_block: 'x' }],
  ['patchFile', { file_path: 'a.txt', search_block: 'gamma\ndelta', replace_block: 'x' }],
  ['patchFile', { file_path: 'a.txt', edits: [{ search_block: 'nope', replace_block: 'x' }, { search_block: 'beta', replace_block: 'y' }] }],
  ['patchFile', { file_path: 'a.txt', search_block: '  alpha', replace_block: 'a', match: ['indentation'] }],
  ['patchFile', { file_path: 'a.txt', search_block: 'x', replace_block: 'y', expected_sha256: '0'.repeat(64) }],
  ['patchFile', { file_path: '../out.txt', search_block: 'x', replace_block: 'y' }],
  ['patchFile', { nope: 1 }],
  ['batchPatchFiles', { files: [{ file_path: 'a.txt', search_block: 'gamma', replace_block: 'G' }, { file_path: 'b.txt', search_block: 'two', replace_block: '2' }] }],
  ['batchPatchFiles', { files: [{ file_path: 'a.txt', search_block: 'G', replace_block: 'gamma' }], dry_run: true }],
  ['batchPatchFiles', { files: [{ file_path: 'a.txt', search_block: 'G', replace_block: 'g' }, { file_path: 'b.txt', search_block: 'zzz', replace_block: '2' }] }],
  ['writeFile', { file_path: 'c.txt', content: 'new\n' }],
  ['writeFile', { file_path: 'c.txt', content: 'newer\n', dry_run: true }],
  ['writeFile', { file_path: 'c.txt', content: 'x', expected_sha256: '0'.repeat(64) }],
  ['readFile', { file_path: 'a.txt' }],
  ['readFile', { file_path: 'a.txt', offset: 1, limit: 1 }],
  ['readFile', { file_path: 'missing.txt' }],
  ['applyEditBlocks', 'a.txt\n<<<<<<< SEARCH\nG\n=======\ngamma\n>>>>>>> REPLACE\n'],
  ['applyEditBlocks', 'a.txt\n<<<<<<< SEARCH\nnot there\n=======\nx\n>>>>>>> REPLACE\n'],
  ['applyEditBlocks', 'a.txt\n<<<<<<< SEARCH\nbroken\n'],
  ['applyPatch', '*** Begin Patch\n*** Update File: b.txt\n@@\n-2\n+two\n*** Add File: d.txt\n+d\n*** End Patch\n'],
  ['applyPatch', { patch: '*** Begin Patch\n*** Delete File: d.txt\n*** End Patch\n', dry_run: true }],
  ['applyPatch', '--- a/b.txt\n+++ b/b.txt\n@@ -1,3 +1,3 @@\n one\n-zwei\n+two\n three\n'],
  ['editFile', { path: 'b.txt', edits: [{ oldText: 'three', newText: '3' }] }],
  ['editFile', { path: 'b.txt', edits: [{ oldText: 'four', newText: '4' }] }],
  ['textEditor', { command: 'view', path: 'b.txt' }],
  ['textEditor', { command: 'view', path: '.' }],
  ['textEditor', { command: 'str_replace', path: 'b.txt', old_str: '3', new_str: 'three' }],
  ['textEditor', { command: 'insert', path: 'b.txt', insert_line: 1, insert_text: 'inserted' }],
  ['textEditor', { command: 'create', path: 'e.txt', file_text: 'e\n' }],
  ['textEditor', { command: 'str_replace', path: 'b.txt', old_str: 'absent', new_str: 'x' }],
  ['textEditor', { command: 'undo_edit', path: 'e.txt' }],
  ['readFile', { file_path: 'a.txt', anchors: true }],
  ['editLines', { file_path: 'a.txt', edits: [{ op: 'append', lines: 'z' }] }],
  ['editLines', { file_path: 'a.txt', edits: [{ op: 'prepend', lines: ['y'] }], dry_run: true }],
  ['editLines', { file_path: 'a.txt', edits: [{ op: 'replace', pos: '999#aa', lines: null }] }],
  ['history', {}],
  ['history', { limit: -1 }],
  ['undo', { dry_run: true }],
  ['undo', {}],
  ['undo', { id: 'nope' }],
]

test('every entry point answers what the contract says, in the full and the compact view', async () => {
  for (const compact of [false, true]) {
    const dir = workspace()
    const options = { workspaceRoot: dir, journal: fs.mkdtempSync(path.join(os.tmpdir(), 'pft-contract-j-')) }
    if (compact) options.results = 'compact'
    const seen = new Set()
    for (const [engine, input] of CALLS) {
      const result = await api[engine](input, options)
      seen.add(`${engine}:${result.ok}`)
      fits(engine, result, compact)
    }
    // A dry run applied, and the journal cleared (binding only: the CLI's `journal clear`).
    fs.writeFileSync(path.join(dir, 'f.txt'), 'f\n')
    const dry = await api.patchFile({ file_path: 'f.txt', search_block: 'f', replace_block: 'F', dry_run: true }, options)
    const applied = await api.applyDryRun({ run_id: dry.run_id }, options)
    assert.equal(applied.ok, true, JSON.stringify(applied))
    fits('applyDryRun', applied, compact)
    const again = await api.applyDryRun({ run_id: dry.run_id }, options)
    assert.equal(again.code, 'RUN_ID_NOT_FOUND')
    fits('applyDryRun', again, compact)
    fits('journalClear', await binding.journalClear({}, options), compact)
    for (const engine of new Set(CALLS.map(([e]) => e))) {
      assert.ok(seen.has(`${engine}:true`) || engine === 'undo', `${engine} answered a success`)
      assert.ok(seen.has(`${engine}:false`), `${engine} answered a failure`)
    }
  }
})

test('the result types of types/header.d.ts are generated from the contract', () => {
  const header = fs.readFileSync(path.join(repo, 'types/header.d.ts'), 'utf8').replace(/\r\n/g, '\n')
  assert.equal(withTypes(header, resultTypes(contract, header)), header, 'run npm run contract')
})

test('every entry point has a result type named after it: generated, or finer by hand', () => {
  const header = fs.readFileSync(path.join(repo, 'types/header.d.ts'), 'utf8').replace(/\r\n/g, '\n')
  const index = fs.readFileSync(path.join(repo, 'index.d.ts'), 'utf8')
  for (const entry of Object.keys(contract.results)) {
    const name = `${entry[0].toUpperCase()}${entry.slice(1)}Result`
    assert.match(index, new RegExp(`^export (type|interface) ${name}\\b`, 'm'), `${name} in index.d.ts`)
  }
  // Without the hand-written one, the result is generated from the contract; with it, it is not generated again.
  const bare = header.replace(/^export type PatchFileResult = .*\n/m, '')
  assert.match(resultTypes(contract, bare), /^export type PatchFileResult = PatchDone \| Failed$/m)
  assert.doesNotMatch(resultTypes(contract, header), /^export type PatchFileResult\b/m)
})

test("every input schema's `match` list is the contract's Tolerance, written by npm run contract", () => {
  const names = toleranceNames(contract)
  assert.ok(names.includes('indentation') && names.length >= 4, names.join())
  /** Every `match` property below `node`. */
  const matches = (node, out = []) => {
    if (Array.isArray(node)) node.forEach((n) => matches(n, out))
    else if (node && typeof node === 'object') {
      for (const [k, v] of Object.entries(node)) {
        if (k === 'properties' && v.match) out.push(v.match)
        matches(v, out)
      }
    }
    return out
  }
  const dirs = ['schemas', 'schemas/strict']
  // What the generator writes with the contract's list, and with another.
  const written = inputFiles({ tolerances: names })
  const writtenOther = inputFiles({ tolerances: ['line_endings'] })
  let found = 0
  for (const dir of dirs) {
    for (const f of fs.readdirSync(path.join(repo, dir)).filter((f) => f.endsWith('.json') && f !== 'results.json')) {
      const text = fs.readFileSync(path.join(repo, dir, f), 'utf8')
      for (const m of matches(JSON.parse(text))) {
        found++
        assert.deepEqual(m.items.enum.filter((n) => n !== null), names, `${dir}/${f}: run npm run contract`)
      }
      if (dir === 'schemas') {
        // The generator writes the contract's list, and another list when the contract names another.
        const file = path.join(repo, dir, f)
        assert.equal(written.get(file), text, f)
        const other = JSON.parse(writtenOther.get(file))
        assert.deepEqual(matches(other).map((m) => m.items.enum), matches(JSON.parse(text)).map(() => ['line_endings']), f)
      }
    }
  }
  // patch_file and batch_patch_files, each with its strict variant.
  assert.ok(found >= 4, `${found} match lists`)
})

test('the check is strict: an undeclared field, a missing required one or a wrong type does not fit', async () => {
  const dir = workspace()
  const ok = await api.patchFile({ file_path: 'a.txt', search_block: 'alpha', replace_block: 'A' }, { workspaceRoot: dir, journal: false })
  fits('patchFile', ok, false)
  const { sha256_before, ...missing } = ok
  for (const bad of [{ ...ok, surplus: 1 }, missing, { ...ok, line_number: 'one' }, { ...ok, edits: [{ ...ok.edits[0], extra: true }] }]) {
    assert.throws(() => fits('patchFile', bad, false), /patchFile/)
  }
  const failed = await api.patchFile({ file_path: 'a.txt', search_block: 'nope', replace_block: 'x' }, { workspaceRoot: dir })
  assert.throws(() => fits('patchFile', { ...failed, code: 'NOT_A_CODE' }, false), /patchFile/)
})
