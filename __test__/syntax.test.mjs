// The syntax guard through the JS API, the MCP server and an agent-SDK
// adapter: a parse error an edit introduces is reported in the result's
// `syntax` (written: the default 'warn'), refused with
// SYNTAX_ERROR_INTRODUCED ('refuse': nothing written) or not looked for
// ('off'); errors the file already had are never the edit's; multi-edit and
// batch calls are judged on each file's final content; dry runs report too.
// The grammars and the introduced-error rule have their own tests per
// language in the engine (core/src/check/syntax).
import './helpers/private-state.mjs'
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { withClient, resultOf } from './helpers/mcp-client.mjs'
import { createTextEditor } from 'patch-file-tool/anthropic'
import * as api from '../index.mjs'

const SRC = 'export function total(a, b) {\n  const x = a * 2;\n  return x + b;\n}\n'
const BREAK = { search: '  return x + b;\n}\n', replace: '  return x + b;\n' }

function dir(files = { 'f.ts': SRC }) {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pft-syntax-')))
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(d, name), text)
  return d
}
const read = (d, f = 'f.ts') => fs.readFileSync(path.join(d, f), 'utf8')
const opts = (d, extra = {}) => ({ workspaceRoot: d, durable: false, ...extra })

test('an edit that breaks the parse is written and reported, in the full and the compact view', async () => {
  for (const results of ['full', 'compact']) {
    const d = dir()
    const r = await api.patchFile({ file_path: 'f.ts', ...BREAK }, opts(d, { results }))
    assert.equal(r.ok, true, JSON.stringify(r))
    assert.equal(r.syntax.language, 'typescript')
    assert.equal(r.syntax.errors.length, 1, JSON.stringify(r.syntax))
    const [e] = r.syntax.errors
    assert.deepEqual([e.problem, e.token, e.line], ['missing', '}', 3])
    assert.equal(e.text, '  return x + b;')
    assert.equal(read(d), SRC.replace('}\n', ''))
  }
})

test('YAML nested past its grammar\'s buffer is left unchecked, and the host lives (it aborted Node)', async () => {
  const deep = '- '.repeat(300) + 'x\n'
  const d = dir({ 'f.yml': 'a: 1\n' })
  const r = await api.patchFile({ file_path: 'f.yml', search: 'a: 1\n', replace: deep }, opts(d, { results: 'compact' }))
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(r.syntax.unchecked, 'too_deep')
  assert.equal(read(d, 'f.yml'), deep)
})

test('a clean edit, an unknown extension and syntax: off say nothing', async () => {
  const d = dir({ 'f.ts': SRC, 'notes.txt': SRC })
  const clean = await api.patchFile({ file_path: 'f.ts', search: 'a * 2', replace: 'a * 3' }, opts(d))
  assert.equal(clean.ok, true)
  assert.equal('syntax' in clean, false, JSON.stringify(clean))
  const txt = await api.patchFile({ file_path: 'notes.txt', ...BREAK }, opts(d))
  assert.equal(txt.ok, true)
  assert.equal('syntax' in txt, false)
  const off = await api.patchFile({ file_path: 'f.ts', ...BREAK }, opts(d, { syntax: 'off' }))
  assert.equal(off.ok, true)
  assert.equal('syntax' in off, false)
})

test('syntax: refuse writes nothing and answers SYNTAX_ERROR_INTRODUCED with the errors', async () => {
  const d = dir()
  const r = await api.patchFile({ file_path: 'f.ts', ...BREAK }, opts(d, { syntax: 'refuse' }))
  assert.equal(r.ok, false)
  assert.equal(r.code, api.PATCH_FILE_ERROR_CODES.SYNTAX_ERROR_INTRODUCED)
  assert.match(r.message, /does not parse as typescript: at line 3, column \d+, `\}` is missing/)
  assert.equal(r.syntax.errors[0].problem, 'missing')
  assert.equal(read(d), SRC)
  const w = await api.writeFile({ file_path: 'new.py', content: 'def f(:\n  pass\n' }, opts(d, { syntax: 'refuse' }))
  assert.equal(w.code, 'SYNTAX_ERROR_INTRODUCED', JSON.stringify(w))
  assert.equal(fs.existsSync(path.join(d, 'new.py')), false)
  const bad = await api.patchFile({ file_path: 'f.ts', search: 'a', replace: 'b' }, opts(d, { syntax: 'strict' }))
  assert.equal(bad.code, 'INVALID_INPUT')
  assert.match(bad.message, /`syntax` must be "warn", "refuse" or "off"/)
})

test('a .json file is strict JSON: a comment is refused, an exponent JSON.stringify writes is not', async () => {
  const PKG = '{\n  "name": "a",\n  "n": 1\n}\n'
  const d = dir({ 'package.json': PKG })
  const big = await api.patchFile({ file_path: 'package.json', search: '"n": 1', replace: `"n": ${JSON.stringify(1e21)}` }, opts(d, { syntax: 'refuse' }))
  assert.equal(big.ok, true, JSON.stringify(big))
  assert.equal(big.syntax, undefined)
  const pinned = await api.patchFile({ file_path: 'package.json', search: '  "name"', replace: '  // pinned\n  "name"' }, opts(d, { syntax: 'refuse' }))
  assert.equal(pinned.code, 'SYNTAX_ERROR_INTRODUCED', JSON.stringify(pinned))
  assert.deepEqual([pinned.syntax.errors[0].line, pinned.syntax.errors[0].token], [2, '/'])
  assert.equal(read(d, 'package.json'), PKG.replace('1', '1e+21'))
  assert.doesNotThrow(() => JSON.parse(read(d, 'package.json')))
})

test('a file already broken elsewhere stays editable: its old error is not the edit\'s', async () => {
  const broken = SRC + '\nconst y = (1;\n'
  const d = dir({ 'f.ts': broken })
  const r = await api.patchFile({ file_path: 'f.ts', search: 'a * 2', replace: 'a * 4' }, opts(d, { syntax: 'refuse' }))
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal('syntax' in r, false)
  // A second, new break is the edit's.
  const r2 = await api.patchFile({ file_path: 'f.ts', search: 'a * 4;', replace: 'a * 4 +;' }, opts(d))
  assert.equal(r2.syntax?.errors?.length >= 1, true, JSON.stringify(r2))
  assert.equal(r2.syntax.errors[0].line, 2)
})

test('several edits of a call and a batch are judged on each file\'s final content', async () => {
  const d = dir({ 'f.ts': SRC, 'g.ts': SRC })
  // Each edit alone breaks the file; together they leave it whole.
  const edits = [
    { search: '  const x = a * 2;', replace: '  const x = [a * 2,' },
    { search: '  return x + b;', replace: '  b];\n  return x + b;' },
  ]
  const one = await api.patchFile({ file_path: 'f.ts', edits }, opts(d))
  assert.equal(one.ok, true, JSON.stringify(one))
  assert.equal('syntax' in one, false, JSON.stringify(one))
  const b = await api.batchPatchFiles(
    { files: [{ file_path: 'g.ts', edits }, { file_path: 'f.ts', search: 'x + b;', replace: 'x + b;;(' }] },
    opts(d),
  )
  assert.equal(b.ok, true, JSON.stringify(b))
  assert.equal('syntax' in b.files[0], false)
  assert.equal(b.files[1].syntax.errors.length >= 1, true, JSON.stringify(b.files[1]))
  const refused = await api.batchPatchFiles(
    { files: [{ file_path: 'g.ts', search: 'a * 2', replace: 'a * 5' }, { file_path: 'f.ts', search: 'x + b', replace: 'x + ' }] },
    opts(d, { syntax: 'refuse' }),
  )
  assert.equal(refused.code, 'SYNTAX_ERROR_INTRODUCED', JSON.stringify(refused))
  assert.equal(read(d, 'g.ts').includes('a * 5'), false, 'all or nothing')
})

test('a dry run reports what the write would introduce, and its run_id applies it', async () => {
  const d = dir()
  const r = await api.patchFile({ file_path: 'f.ts', ...BREAK, dry_run: true }, opts(d))
  assert.equal(r.dry_run, true)
  assert.equal(r.syntax.errors[0].token, '}', JSON.stringify(r))
  assert.equal(read(d), SRC)
  const applied = await api.applyDryRun(r.run_id, opts(d))
  assert.equal(applied.ok, true, JSON.stringify(applied))
  assert.equal(read(d), SRC.replace('}\n', ''))
})

test('patches, edit blocks, writeFile, editLines and editFile run the same check', async () => {
  const d = dir()
  const patch = '*** Begin Patch\n*** Update File: f.ts\n@@\n-  return x + b;\n+  return (x + b;\n*** End Patch\n'
  const p = await api.applyPatch(patch, opts(d, { dryRun: true }))
  assert.equal(p.files[0].syntax.errors[0].problem, 'missing', JSON.stringify(p))
  const refusedPatch = await api.applyPatch(patch, opts(d, { syntax: 'refuse' }))
  assert.equal(refusedPatch.code, 'SYNTAX_ERROR_INTRODUCED', JSON.stringify(refusedPatch))
  assert.equal(refusedPatch.syntax.language, 'typescript')
  // A moved file is judged under its new name.
  fs.writeFileSync(path.join(d, 'notes.txt'), 'x = 1\n')
  const moved = await api.applyPatch('*** Begin Patch\n*** Update File: notes.txt\n*** Move to: m.py\n@@\n-x = 1\n+x = (1\n*** End Patch\n', opts(d, { dryRun: true }))
  assert.equal(moved.files[0].syntax?.language, 'python', JSON.stringify(moved))
  const blocks = 'f.ts\n<<<<<<< SEARCH\n  return x + b;\n=======\n  return x +* b;\n>>>>>>> REPLACE\n'
  const e = await api.applyEditBlocks(blocks, opts(d, { dryRun: true }))
  assert.equal(e.files[0].syntax?.errors?.length >= 1, true, JSON.stringify(e))
  const w = await api.writeFile({ file_path: 'f.ts', content: SRC.replace('{\n', '\n'), dry_run: true }, opts(d))
  assert.equal(w.syntax?.errors?.length >= 1, true, JSON.stringify(w))
  const ef = await api.editFile({ path: 'f.ts', edits: [{ oldText: '  return x + b;\n}', newText: '  return x + b;' }], dryRun: true }, opts(d))
  assert.equal(ef.syntax?.errors?.[0]?.token, '}', JSON.stringify(ef))
  const anchored = await api.readFile({ file_path: 'f.ts', anchors: true }, opts(d))
  const last = anchored.content.split('\n')[3].split('|')[0]
  const l = await api.editLines({ file_path: 'f.ts', edits: [{ op: 'replace', pos: last, lines: null }] }, opts(d, { syntax: 'refuse' }))
  assert.equal(l.code, 'SYNTAX_ERROR_INTRODUCED', JSON.stringify(l))
  assert.equal(read(d), SRC)
})

test('the MCP server reports by default, refuses with --syntax refuse or PATCH_FILE_SYNTAX', { timeout: 60_000 }, async () => {
  const d = dir()
  await withClient({ args: ['--root', d] }, async (client) => {
    const a = await client.callTool({ name: 'edit_file', arguments: { path: 'f.ts', edits: [{ oldText: BREAK.search, newText: BREAK.replace }], dryRun: true } })
    assert.equal(a.isError, false, JSON.stringify(a))
    assert.equal(resultOf(a).syntax.errors[0].token, '}')
  })
  await withClient({ args: ['--root', d, '--syntax', 'refuse'] }, async (client) => {
    const a = await client.callTool({ name: 'edit_file', arguments: { path: 'f.ts', edits: [{ oldText: BREAK.search, newText: BREAK.replace }] } })
    assert.equal(a.isError, true)
    assert.equal(resultOf(a).code, 'SYNTAX_ERROR_INTRODUCED')
    // The way out named as this server is configured, not as the JavaScript API's options.
    assert.doesNotMatch(resultOf(a).message, /options\./)
    assert.match(resultOf(a).message, /--syntax warn \(or PATCH_FILE_SYNTAX=warn\) in the server's configuration/)
  })
  const env = { ...process.env, PATCH_FILE_SYNTAX: 'refuse' }
  delete env.PATCH_FILE_TOOLS
  await withClient({ args: ['--root', d], env }, async (client) => {
    const a = await client.callTool({ name: 'edit_file', arguments: { path: 'f.ts', edits: [{ oldText: BREAK.search, newText: BREAK.replace }] } })
    assert.equal(resultOf(a).code, 'SYNTAX_ERROR_INTRODUCED')
  })
  assert.equal(read(d), SRC)
})

test('the Anthropic text editor adapter reports and refuses through the same check', async () => {
  const d = dir()
  const refusing = createTextEditor({ workspaceRoot: d, syntax: 'refuse' })
  const r = await refusing.toolResult({ id: 't', name: 'str_replace_based_edit_tool', input: { command: 'str_replace', path: 'f.ts', old_str: BREAK.search, new_str: BREAK.replace } })
  assert.equal(r.is_error, true, JSON.stringify(r))
  assert.match(JSON.stringify(r.content), /SYNTAX_ERROR_INTRODUCED|does not parse/)
  assert.equal(read(d), SRC)
  const warning = createTextEditor({ workspaceRoot: d })
  const w = await warning.toolResult({ id: 't', name: 'str_replace_based_edit_tool', input: { command: 'str_replace', path: 'f.ts', old_str: BREAK.search, new_str: BREAK.replace } })
  assert.equal(w.is_error, undefined, JSON.stringify(w))
  assert.match(JSON.stringify(w.content), /missing/)
})

test('the server refuses to start with a --syntax or PATCH_FILE_SYNTAX it does not know (exit 2)', () => {
  const bin = fileURLToPath(new URL('../bin/patch-file-tool.js', import.meta.url))
  const d = dir()
  const flag = spawnSync(process.execPath, [bin, '--root', d, '--syntax', 'strict'], { input: '', encoding: 'utf8' })
  assert.equal(flag.status, 2, flag.stderr)
  assert.match(flag.stderr, /--syntax must be warn, refuse or off/)
  const env = { ...process.env, PATCH_FILE_SYNTAX: 'loud' }
  const variable = spawnSync(process.execPath, [bin, '--root', d], { input: '', encoding: 'utf8', env })
  assert.equal(variable.status, 2, variable.stderr)
  assert.match(variable.stderr, /PATCH_FILE_SYNTAX must be warn, refuse or off/)
})
