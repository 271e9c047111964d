// Elision markers (`// ... existing code ...`) in new text through the JS
// API, the MCP server and an agent-SDK adapter: expanded when the lines they
// stand for are certain (the result says which), refused with ELIDED_CONTENT
// otherwise (nothing written, in the full and the compact view), written as
// sent with options.elisions: 'literal'. The engine's own tests cover every
// entry point and format (core/tests/suite/elisions.rs) and the algorithm
// (core/src/check/elision.rs, property tests against a naive reference).
import './helpers/private-state.mjs'
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { withClient, resultOf } from './helpers/mcp-client.mjs'
import { createTextEditor } from 'patch-file-tool/anthropic'
import { patchFile, writeFile, PATCH_FILE_ERROR_CODES as CODES } from '../index.mjs'

const SRC = 'function total(a, b) {\n  const x = a * 2;\n  const y = b * 3;\n  const z = x + y;\n  return z + 1;\n}\n\nexport { total };\n'
const SEARCH = 'function total(a, b) {\n  const x = a * 2;\n  const y = b * 3;\n  const z = x + y;\n  return z + 1;\n}\n'
const LAZY = 'function total(a, b, c) {\n  const x = a * 2;\n  // ... existing code ...\n  return z + 1;\n}\n'
const BAD = 'function total(a, b) {\n  // ... existing code ...\n  return z + 2;\n}\n'
const INTENDED = SRC.replace('(a, b)', '(a, b, c)')

function dir() {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pft-elide-')))
  fs.writeFileSync(path.join(d, 'f.js'), SRC)
  return d
}

test('patchFile expands a marker between unchanged lines and says which lines it kept', async () => {
  const d = dir()
  const r = await patchFile({ file_path: 'f.js', search: SEARCH, replace: LAZY }, { workspaceRoot: d, durable: false })
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.deepEqual(r.expanded, [{ marker: '// ... existing code ...', line: 3, kept_lines: [3, 4] }])
  assert.equal(fs.readFileSync(path.join(d, 'f.js'), 'utf8'), INTENDED)
})

test('patchFile and writeFile refuse a marker beside a changed line: ELIDED_CONTENT, nothing written', async () => {
  const d = dir()
  for (const view of ['full', 'compact']) {
    const r = await patchFile({ file_path: 'f.js', search: SEARCH, replace: BAD }, { workspaceRoot: d, durable: false, results: view })
    assert.equal(r.code, CODES.ELIDED_CONTENT, JSON.stringify(r))
    assert.equal(r.elision.deleted, 4)
    assert.deepEqual(r.elision.deletes[0], { line: 2, text: '  const x = a * 2;' })
    assert.match(r.message, /Send those lines in place of the marker/)
  }
  const w = await writeFile({ file_path: 'f.js', content: SRC.replace(SEARCH, BAD) }, { workspaceRoot: d, durable: false })
  assert.equal(w.code, 'ELIDED_CONTENT', JSON.stringify(w))
  assert.equal(fs.readFileSync(path.join(d, 'f.js'), 'utf8'), SRC)
  const lit = await patchFile({ file_path: 'f.js', search: SEARCH, replace: BAD }, { workspaceRoot: d, durable: false, elisions: 'literal' })
  assert.equal(lit.ok, true, JSON.stringify(lit))
  assert.equal(fs.readFileSync(path.join(d, 'f.js'), 'utf8'), SRC.replace(SEARCH, BAD))
})

test('a marker between neighbouring lines, in a text deleting lines elsewhere, is refused naming those lines', async () => {
  const d = dir()
  const content = SRC.replace('  const z = x + y;\n', '').replace('}\n\n', '}\n// ... existing code ...\n\n')
  const r = await writeFile({ file_path: 'f.js', content }, { workspaceRoot: d, durable: false })
  assert.equal(r.code, CODES.ELIDED_CONTENT, JSON.stringify(r))
  assert.deepEqual(r.elision.deletes, [{ line: 4, text: '  const z = x + y;' }])
  assert.match(r.message, /neighbours in the current file.*deletes 1 line\(s\) elsewhere \(the first at line 4/)
  assert.equal(fs.readFileSync(path.join(d, 'f.js'), 'utf8'), SRC)
})

test('code and prose that only look like markers are written as sent; a moved line is not kept twice', async () => {
  const d = dir()
  const opts = { workspaceRoot: d, durable: false }
  const cases = [
    // A rest element (`...rest`) replacing the fields it collects.
    ['user.js', 'const {\n  id,\n  name,\n  email,\n} = user;\nsave(id, name, email);\n', 'const {\n  id,\n  ...rest\n} = user;\nsave(id, rest);\n'],
    // A spread of an object named like a word of keeping.
    ['merge.js', 'const next = {\n  name: existing.name,\n  age: existing.age,\n  id,\n};\n', 'const next = {\n  ...existing,\n  id,\n};\n'],
    // A sentence of prose that says something is unchanged.
    ['MIGRATION.md', '# Migration to v2\n\n## Summary\n\nVersion 2 renames several functions.\nCallers must update their imports.\n', '# Migration to v3\n\n## Summary\n\nThe public API remains unchanged.\n'],
    // A comment that says more than "kept".
    ['load.js', 'function load(cfg) {\n  const a = legacyParse(cfg);\n  const b = legacyCheck(a);\n  return b;\n}\n', 'function load(cfg) {\n  // Keep existing behaviour for old clients\n  return parse(cfg);\n}\n'],
  ]
  for (const [name, before, after] of cases) {
    fs.writeFileSync(path.join(d, name), before)
    const r = await writeFile({ file_path: name, content: after }, opts)
    assert.equal(r.ok, true, `${name}: ${JSON.stringify(r)}`)
    assert.equal(r.expanded, undefined, name)
    assert.equal(fs.readFileSync(path.join(d, name), 'utf8'), after, name)
  }
  // Two calls moved above `init_logging()`, a marker for the rest: keeping the moved lines twice, or
  // dropping them, is a guess. Refused, nothing written.
  const py = 'def setup():\n    init_logging()\n    load_config()\n    connect_db()\n    start_server()\n'
  fs.writeFileSync(path.join(d, 'app.py'), py)
  const moved = 'def setup():\n    load_config()\n    connect_db()\n    init_logging()\n    # ... existing code ...\n'
  const r = await patchFile({ file_path: 'app.py', search: py, replace: moved }, opts)
  assert.equal(r.code, CODES.ELIDED_CONTENT, JSON.stringify(r))
  assert.match(r.message, /moved or copied/)
  assert.equal(fs.readFileSync(path.join(d, 'app.py'), 'utf8'), py)
})

test('MCP tools answer the expansion and the refusal within their output schemas', { timeout: 60_000 }, async () => {
  const d = dir()
  await withClient({ args: ['--root', d] }, async (client) => {
    let a = await client.callTool({ name: 'edit_file', arguments: { path: 'f.js', edits: [{ oldText: SEARCH, newText: BAD }] } })
    assert.equal(a.isError, true)
    assert.equal(resultOf(a).code, 'ELIDED_CONTENT')
    assert.equal(fs.readFileSync(path.join(d, 'f.js'), 'utf8'), SRC)
    a = await client.callTool({ name: 'edit_file', arguments: { path: 'f.js', edits: [{ oldText: SEARCH, newText: LAZY }] } })
    assert.equal(a.isError, false, JSON.stringify(a))
    assert.equal(fs.readFileSync(path.join(d, 'f.js'), 'utf8'), INTENDED)
  })
})

test('the Anthropic text editor adapter refuses through the same check', async () => {
  const d = dir()
  const editor = createTextEditor({ workspaceRoot: d })
  const r = await editor.toolResult({ id: 't', name: 'str_replace_based_edit_tool', input: { command: 'str_replace', path: 'f.js', old_str: SEARCH, new_str: BAD } })
  assert.equal(r.is_error, true, JSON.stringify(r))
  assert.match(JSON.stringify(r.content), /ELIDED_CONTENT|elision marker/)
  assert.equal(fs.readFileSync(path.join(d, 'f.js'), 'utf8'), SRC)
})
