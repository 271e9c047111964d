// The published types tell the truth about the entry points: index.d.ts
// declares exactly the values index.js (CommonJS) and index.mjs (ES module)
// export at run time, every type the docs name exists, and the generated
// files (binding.d.ts from napi-rs; index.mjs and index.d.ts from
// scripts/gen-entry.mjs) are up to date with the tool table and the Rust
// binding.
import './helpers/private-state.mjs'
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createRequire } from 'node:module'
import { REPO, ts } from './helpers/typescript.mjs'
import { outputs } from '../scripts/gen-entry.mjs'

const require = createRequire(import.meta.url)

/**
 * What a declaration file exports, by the TypeScript checker: `values`
 * (functions, consts...) and `types`; plus its own diagnostics under --strict.
 */
function declaredExports(file) {
  const program = ts.createProgram([file], { strict: true, noEmit: true, types: [], skipLibCheck: false, target: ts.ScriptTarget.ES2022 })
  const checker = program.getTypeChecker()
  const moduleSymbol = checker.getSymbolAtLocation(program.getSourceFile(file))
  assert.ok(moduleSymbol, `${file} is a module`)
  const values = []
  const types = []
  for (const s of checker.getExportsOfModule(moduleSymbol)) {
    const target = s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s
    if (target.flags & ts.SymbolFlags.Value) values.push(s.name)
    if (target.flags & ts.SymbolFlags.Type) types.push(s.name)
  }
  const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))
  return { values: values.sort(), types: types.sort(), diagnostics }
}

const sorted = (a) => [...a].sort()

test('index.d.ts declares exactly the values index.js exports, and index.mjs exports the same', async () => {
  const cjs = require('../index.js')
  const esm = await import('../index.mjs')
  const dts = declaredExports(path.join(REPO, 'index.d.ts'))

  const runtime = sorted(Object.keys(cjs))
  assert.deepEqual(dts.values, runtime, 'index.d.ts value declarations = index.js exports')
  const named = Object.keys(esm).filter((k) => k !== 'default')
  assert.deepEqual(sorted(named), runtime, 'index.mjs named exports = index.js exports')
  for (const k of named) assert.equal(esm[k], cjs[k], `index.mjs ${k} is index.js's`)
  assert.equal(esm.default, cjs, 'the default export is the CommonJS module')

  // What index.js has today, so that a removal shows here too.
  for (const name of ['patchFile', 'patchFileSync', 'batchPatchFiles', 'applyDryRun', 'readFile', 'writeFile', 'applyEditBlocks', 'applyPatch', 'textEditor', 'editFile', 'PATCH_FILE_ERROR_CODES', 'patchFileSchema', 'schemas']) {
    assert.ok(runtime.includes(name), `index.js exports ${name}`)
  }
  // binding.js's extras are not part of the public entry, in either place.
  for (const name of ['errorCodes', '__napiBindingTarget']) {
    assert.ok(!runtime.includes(name) && !dts.values.includes(name), `${name} is neither exported nor declared`)
  }

  // The comparison sees a declaration on one side only.
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pft-dts-'))
  const extra = path.join(tmp, 'index.d.ts')
  fs.writeFileSync(extra, fs.readFileSync(path.join(REPO, 'index.d.ts'), 'utf8') + '\nexport declare function notExported(): void\n')
  assert.notDeepEqual(declaredExports(extra).values, runtime)
  fs.rmSync(tmp, { recursive: true, force: true })
})

test('index.d.ts type-checks on its own under --strict', () => {
  assert.deepEqual(declaredExports(path.join(REPO, 'index.d.ts')).diagnostics, [])
})

test('every type the README and docs/core-api.md name is exported by index.d.ts', () => {
  const { types } = declaredExports(path.join(REPO, 'index.d.ts'))
  const paragraph = (file, start) => {
    const text = fs.readFileSync(path.join(REPO, file), 'utf8')
    const at = text.indexOf(start)
    assert.notEqual(at, -1, `${file} has a paragraph starting "${start}"`)
    return text.slice(at, text.indexOf('\n\n', at))
  }
  const documented = new Set()
  for (const [file, start] of [
    ['README.md', '\nTypes: '],
    ['docs/core-api.md', '\nTypeScript types '],
  ]) {
    for (const m of paragraph(file, start).matchAll(/`([A-Z][A-Za-z0-9]*)`/g)) documented.add(m[1])
  }
  assert.ok(documented.size >= 7, `types found in the docs: ${[...documented].join(', ')}`)
  for (const t of documented) assert.ok(types.includes(t), `index.d.ts exports the type ${t}`)
  // Every function's input and result types are exported too.
  for (const t of ['PatchFileInput', 'BatchPatchFilesInput', 'ApplyDryRunInput', 'ReadFileInput', 'WriteFileInput', 'EditBlocksInput', 'ApplyPatchInput', 'TextEditorCommand', 'EditFileInput', 'FormatOptions']) {
    assert.ok(types.includes(t), `index.d.ts exports the type ${t}`)
  }
})

test('binding.d.ts (napi-rs) declares exactly the values binding.js exports', () => {
  const binding = require('../binding.js')
  const dts = declaredExports(path.join(REPO, 'binding.d.ts'))
  assert.deepEqual(dts.values, sorted(Object.keys(binding)))
  assert.deepEqual(dts.diagnostics, [])
})

test('index.mjs and index.d.ts are what scripts/gen-entry.mjs writes from js/tools.js, types/ and binding.d.ts', () => {
  for (const [file, text] of Object.entries(outputs())) {
    const current = fs.readFileSync(path.join(REPO, file), 'utf8').replace(/\r\n/g, '\n')
    assert.ok(current === text, `${file} is stale: run npm run build (or node scripts/gen-entry.mjs)`)
  }
})

test('every tool of js/tools.js is a function of index.js with its schema in `schemas`', () => {
  const api = require('../index.js')
  const native = require('../binding.js')
  const tools = require('../js/tools.js').list()
  assert.ok(tools.length >= 9)
  for (const tool of tools) {
    assert.equal(typeof api[tool.engine], 'function', tool.engine)
    // The async function waits for a busy file on the event loop (js/calls.js) around the native one.
    assert.equal(api[tool.engine].native, native[tool.engine], `${tool.engine} wraps the native function`)
    if (tool.sync) assert.equal(api[tool.sync], native[tool.sync], tool.sync)
    assert.equal(api.schemas[tool.name], tool.schema, `schemas.${tool.name}`)
    assert.ok(Object.isFrozen(tool.schema.parameters), `schemas.${tool.name} is frozen`)
  }
  assert.deepEqual(Object.keys(api.schemas), tools.map((t) => t.name))
  assert.equal(api.patchFileSchema, api.schemas.patch_file)
})
