// The benchmark compares like with like: js-reference must implement the same
// contract as the native engine (same result figures, same failure codes, the
// file untouched on failure), and the workloads must be deterministic.
import './helpers/private-state.mjs'
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createHash } from 'node:crypto'
import { patchFile } from '../index.mjs'
import * as ref from '../benchmark/js-reference.mjs'
import { smallTs, multiEditFile, writeBigFile, countOf } from '../benchmark/workloads.mjs'

const sha = (b) => createHash('sha256').update(b).digest('hex')
const FIGURES = ['ok', 'replacements', 'line_number', 'before_chars', 'after_chars', 'before_bytes', 'after_bytes', 'sha256_before', 'sha256']

const made = []
function twoCopies(text) {
  const dirs = [0, 1].map(() => fs.mkdtempSync(path.join(os.tmpdir(), 'pft-benchref-')))
  for (const d of dirs) fs.writeFileSync(path.join(d, 'f.ts'), text)
  made.push(...dirs)
  return dirs
}
after(() => {
  for (const d of made) fs.rmSync(d, { recursive: true, force: true })
})

test('js-reference gives the same figures as the native engine for the same edit', async () => {
  const ts = smallTs()
  const text = '\uFEFF' + ts.text.replace('// Generated', '// Généré 😀') // BOM and non-ASCII
  const [a, b] = twoCopies(text)
  const input = { file_path: 'f.ts', search_block: ts.edit.a, replace_block: ts.edit.b }
  const native = await patchFile(input, { workspaceRoot: a })
  const js = await ref.patchFile(input, { workspaceRoot: b })
  assert.equal(native.ok, true)
  for (const k of FIGURES) assert.deepEqual(js[k], native[k], k)
  assert.deepEqual(fs.readFileSync(path.join(b, 'f.ts')), fs.readFileSync(path.join(a, 'f.ts')))
  assert.equal(native.line_number, ts.line)
})

test('js-reference multi-edit matches the native engine', async () => {
  const m = multiEditFile()
  const [a, b] = twoCopies(m.text)
  const input = { file_path: 'f.ts', edits: m.pairs.map((p) => ({ search_block: p.a, replace_block: p.b })) }
  const native = await patchFile(input, { workspaceRoot: a })
  const js = await ref.patchFile(input, { workspaceRoot: b })
  assert.equal(native.replacements, 10)
  for (const k of FIGURES) assert.deepEqual(js[k], native[k], k)
  assert.deepEqual(js.edits, native.edits.map((e) => ({ line_number: e.line_number, replacements: e.replacements })))
})

test('js-reference failures: same codes and counts, file untouched, no temp file', async () => {
  const ts = smallTs()
  const text = ts.text + ts.edit.a + '\n'
  const [a, b] = twoCopies(text)
  for (const [search, code, count] of [
    ['no such block anywhere', 'SEARCH_BLOCK_NOT_FOUND', 0],
    [ts.edit.a, 'SEARCH_BLOCK_AMBIGUOUS', 2],
  ]) {
    const input = { file_path: 'f.ts', search_block: search, replace_block: 'x' }
    const native = await patchFile(input, { workspaceRoot: a })
    const js = await ref.patchFile(input, { workspaceRoot: b })
    assert.equal(native.code, code)
    assert.equal(js.code, code)
    assert.equal(js.match_count, count)
    assert.equal(native.match_count, count)
    if (count > 1) assert.deepEqual(js.match_lines, native.match_lines)
  }
  for (const d of [a, b]) {
    assert.equal(fs.readFileSync(path.join(d, 'f.ts'), 'utf8'), text)
    assert.deepEqual(fs.readdirSync(d), ['f.ts'])
  }
})

test('workloads are deterministic and place their markers as documented', () => {
  assert.equal(sha(smallTs().text), sha(smallTs().text))
  assert.equal(smallTs().lines.length, 1000)
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pft-benchref-'))
  const f1 = path.join(dir, 'a.ts')
  const f2 = path.join(dir, 'b.ts')
  const i1 = writeBigFile(f1, 2 << 20, 7)
  writeBigFile(f2, 2 << 20, 7)
  const bytes = fs.readFileSync(f1)
  assert.equal(sha(bytes), sha(fs.readFileSync(f2)))
  assert.equal(bytes.length, i1.size)
  const text = bytes.toString('utf8')
  assert.equal(countOf(text, i1.edit.a), 1)
  assert.equal(countOf(text, i1.edit.b), 0)
  assert.equal(countOf(text, i1.missing), 0)
  assert.equal(countOf(text, i1.ambiguous), 2)
  assert.ok(text.indexOf(i1.edit.a) > text.length * 0.95, 'the edit is near the end')
  assert.equal(Buffer.byteLength(i1.edit.a), Buffer.byteLength(i1.edit.b), 'toggling keeps the size')
  fs.rmSync(dir, { recursive: true })
})
