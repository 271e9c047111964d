// Smoke test of the public API shape (ESM). Detailed behaviour lives in the
// other suites.
import './helpers/private-state.mjs'
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { patchFile, patchFileSync, PATCH_FILE_ERROR_CODES, patchFileSchema } from '../index.mjs'

test('README example: patch 2 -> 3 gives line 1 and 26/26/26/26', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pft-api-'))
  fs.writeFileSync(path.join(dir, 'config.ts'), 'export const retries = 2;\n')
  const r = await patchFile(
    { file_path: 'config.ts', search_block: 'retries = 2;', replace_block: 'retries = 3;' },
    { workspaceRoot: dir },
  )
  assert.equal(r.ok, true)
  assert.equal(r.file_path, path.join(fs.realpathSync(dir), 'config.ts'))
  assert.deepEqual(
    [r.replacements, r.line_number, r.before_chars, r.after_chars, r.before_bytes, r.after_bytes],
    [1, 1, 26, 26, 26, 26],
  )
  assert.equal(fs.readFileSync(path.join(dir, 'config.ts'), 'utf8'), 'export const retries = 3;\n')
  const again = patchFileSync({ filePath: 'config.ts', searchBlock: 'retries = 2;', replaceBlock: 'x' }, { workspaceRoot: dir })
  assert.equal(again.ok, false)
  assert.equal(again.code, PATCH_FILE_ERROR_CODES.SEARCH_BLOCK_NOT_FOUND)
  assert.equal(again.match_count, 0)
})

test('exports: frozen codes and the schema', () => {
  assert.ok(Object.isFrozen(PATCH_FILE_ERROR_CODES))
  for (const [k, v] of Object.entries(PATCH_FILE_ERROR_CODES)) assert.equal(k, v)
  assert.equal(patchFileSchema.name, 'patch_file')
})
