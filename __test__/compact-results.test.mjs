// options.results: 'compact' — the view a model reads (the MCP server's default):
// each fact once, paths relative to the workspace root, failures keep their diagnosis.
import './helpers/private-state.mjs'
import { test } from 'node:test'
import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { patchFile, batchPatchFiles, applyDryRun, readFile, writeFile } from '../index.mjs'

const sha256 = (bytes) => crypto.createHash('sha256').update(bytes).digest('hex')

function workspace() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pft-compact-'))
  fs.mkdirSync(path.join(dir, 'src'))
  fs.writeFileSync(path.join(dir, 'src', 'a.ts'), 'const a = 1\nconst b = 2\n')
  fs.writeFileSync(path.join(dir, 'b.ts'), 'let x = 1\n')
  return dir
}

test('a compact success is where the edit landed and the new sha256; full stays the default', async (t) => {
  const dir = workspace()
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  const file = path.join(dir, 'src', 'a.ts')
  const full = await patchFile({ file_path: 'src/a.ts', search_block: 'b = 2', replace_block: 'b = 3' }, { workspaceRoot: dir })
  assert.equal(full.ok, true)
  assert.equal(full.file_path, fs.realpathSync(file))
  assert.equal(full.replacements, 1)
  assert.equal(typeof full.sha256_before, 'string')
  assert.equal(full.write_strategy, 'rename')
  const r = await patchFile({ file_path: 'src/a.ts', search_block: 'b = 3', replace_block: 'b = 4' }, { workspaceRoot: dir, results: 'compact' })
  assert.deepEqual(r, { ok: true, file_path: 'src/a.ts', line_number: 2, sha256: sha256(fs.readFileSync(file)) })
})

test('compact keeps what says something: several replacements, per-edit lines of several edits', async (t) => {
  const dir = workspace()
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  const r = await patchFile(
    { file_path: 'src/a.ts', edits: [{ search_block: 'a = 1', replace_block: 'a = 10' }, { search_block: 'const', replace_block: 'let', expected_replacements: 2 }] },
    { workspaceRoot: dir, results: 'compact' },
  )
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(r.replacements, 3)
  assert.equal(r.edits.length, 2)
  assert.equal(r.sha256_before, undefined)
  assert.equal(r.before_bytes, undefined)
})

test('a compact failure keeps its diagnosis, with the path relative', async (t) => {
  const dir = workspace()
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  const input = { file_path: 'src/a.ts', search_block: 'const b  = 2\n', replace_block: 'const b = 3\n' }
  const full = await patchFile(input, { workspaceRoot: dir })
  const r = await patchFile(input, { workspaceRoot: dir, results: 'compact' })
  assert.equal(r.ok, false)
  assert.equal(r.code, 'SEARCH_BLOCK_NOT_FOUND')
  assert.equal(r.file_path, 'src/a.ts')
  assert.ok(full.closest_match, JSON.stringify(full))
  assert.deepEqual(r.closest_match, full.closest_match)
  assert.deepEqual({ ...r, file_path: full.file_path }, full)
})

test('compact batches, dry runs, reads and writes name files relative to the root', async (t) => {
  const dir = workspace()
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  const opts = { workspaceRoot: dir, results: 'compact' }
  const dry = await batchPatchFiles({
    files: [
      { file_path: 'src/a.ts', search_block: 'a = 1', replace_block: 'a = 2' },
      { file_path: path.join(dir, 'b.ts'), search_block: 'x = 1', replace_block: 'x = 2' },
    ],
    dry_run: true,
  }, opts)
  assert.equal(dry.ok, true, JSON.stringify(dry))
  assert.deepEqual(dry.files.map((f) => f.file_path), ['src/a.ts', 'b.ts'])
  assert.match(dry.diff, /^--- a\/src\/a\.ts$/m)
  const applied = await applyDryRun({ run_id: dry.run_id }, opts)
  assert.equal(applied.ok, true, JSON.stringify(applied))
  assert.deepEqual(applied.files.map((f) => f.file_path), ['src/a.ts', 'b.ts'])
  const read = await readFile({ file_path: 'b.ts' }, opts)
  assert.equal(read.file_path, 'b.ts')
  assert.equal(read.content, 'let x = 2\n')
  const w = await writeFile({ file_path: 'src/new.ts', content: 'n\n' }, opts)
  assert.equal(w.ok, true, JSON.stringify(w))
  assert.equal(w.file_path, 'src/new.ts')
})

test('options.results takes full or compact only', async () => {
  const r = await patchFile({ file_path: 'x', search_block: 'a', replace_block: 'b' }, { workspaceRoot: os.tmpdir(), results: 'short' })
  assert.equal(r.ok, false)
  assert.equal(r.code, 'INVALID_INPUT')
  assert.match(r.message, /`results` must be "full" or "compact", got "short"/)
})

test('compact answers give each fact once: patch entries, dry-run diffs, an applied run, history, undo', async (t) => {
  const dir = workspace()
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  const { applyPatch, history, undo } = await import('../index.mjs')
  const opts = { workspaceRoot: dir, results: 'compact' }
  const patch = '*** Begin Patch\n*** Update File: b.ts\n@@\n-let x = 1\n+let x = 2\n*** End Patch\n'
  const dry = await applyPatch({ patch, dry_run: true }, opts)
  assert.equal(dry.ok, true)
  assert.equal(typeof dry.diff, 'string')
  assert.deepEqual(Object.keys(dry.files[0]).sort(), ['action', 'file_path', 'hunks', 'sha256'], 'no `path` beside the same file_path, no second diff')
  const applied = await applyDryRun({ run_id: dry.run_id }, opts)
  assert.equal(applied.ok, true)
  assert.equal(applied.file_path, 'b.ts')
  assert.ok(!('files' in applied), 'one file, given once')
  const h = await history({}, opts)
  assert.equal(h.ok, true)
  assert.ok(!('workspace_root' in h) && !('journal' in h))
  assert.equal(h.transactions[0].files[0].file_path, 'b.ts')
  const u = await undo({ dry_run: true }, opts)
  assert.equal(u.ok, true)
  assert.equal(typeof u.diff, 'string')
  assert.ok(!('diff' in u.files[0]), 'the diff once')
  fs.writeFileSync(path.join(dir, 'b.ts'), 'changed outside\n')
  const refused = await undo({}, opts)
  assert.equal(refused.code, 'FILE_CHANGED')
  assert.deepEqual(refused.files_changed, ['b.ts'])
  const full = await history({}, { workspaceRoot: dir })
  assert.equal(full.workspace_root, fs.realpathSync(dir))
  assert.equal(typeof full.journal, 'string')
})
