// Line endings kept, the users' first complaint about edit tools:
//
// - A whole-file write over an existing file keeps its line breaks (LF text
//   over a CRLF file stays CRLF), in UTF-8, UTF-8 with a BOM and a legacy
//   encoding written as UTF-8 on request; `line_endings: "as_sent"` writes
//   them as sent.
// - An LF search block against a CRLF file (the commonest near miss: models
//   emit LF) lands through the MCP server and the agent-SDK adapters when it
//   is unique, the file keeping its CRLF; the JS API keeps its exact default,
//   and an explicit `match: "exact"` is obeyed everywhere.
import './helpers/private-state.mjs'
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import { tempDir as newTempDir, cleanEnv } from './helpers/mcp-raw.mjs'
import { withClient, resultOf } from './helpers/mcp-client.mjs'
import { createPatchFileTools } from 'patch-file-tool/ai-sdk'

const require = createRequire(import.meta.url)
const api = require('../index.js')
const made = []
function tempDir() {
  const d = newTempDir('pft-eol-')
  made.push(d)
  return d
}
after(() => {
  for (const d of made) fs.rmSync(d, { recursive: true, force: true })
})

const FILES = {
  'crlf.txt': Buffer.from('one\r\ntwo\r\nthree\r\n'),
  'bom.txt': Buffer.from('\uFEFFone\r\ntwo\r\nthree\r\n'),
  'latin1.txt': Buffer.from('caf\xe9\r\ntwo\r\nthree\r\n', 'latin1'),
}
function workspace() {
  const d = tempDir()
  for (const [n, b] of Object.entries(FILES)) fs.writeFileSync(path.join(d, n), b)
  return d
}
const read = (d, n) => fs.readFileSync(path.join(d, n))

test('writeFile keeps an existing file\'s CRLF (UTF-8, BOM, legacy written as UTF-8); as_sent writes LF', async () => {
  const d = workspace()
  const w = (input) => api.writeFile(input, { workspaceRoot: d })
  assert.equal((await w({ file_path: 'crlf.txt', content: 'a\nb\n' })).ok, true)
  assert.deepEqual(read(d, 'crlf.txt'), Buffer.from('a\r\nb\r\n'))
  assert.equal((await w({ file_path: 'bom.txt', content: 'a\nb\n' })).ok, true)
  assert.deepEqual(read(d, 'bom.txt'), Buffer.from('\uFEFFa\r\nb\r\n'))
  assert.equal((await w({ file_path: 'latin1.txt', content: 'café\nb\n', encoding: 'utf-8' })).ok, true)
  assert.deepEqual(read(d, 'latin1.txt'), Buffer.from('café\r\nb\r\n'))
  assert.equal((await w({ file_path: 'crlf.txt', content: 'x\ny\n', lineEndings: 'as_sent' })).ok, true)
  assert.deepEqual(read(d, 'crlf.txt'), Buffer.from('x\ny\n'))
})

test('MCP: an LF search block on a CRLF file lands once, the file keeps CRLF; match "exact" is obeyed', async () => {
  const d = workspace()
  await withClient({ args: ['--root', d], env: cleanEnv() }, async (client) => {
    for (const n of ['crlf.txt', 'bom.txt']) {
      const r = resultOf(await client.callTool({ name: 'patch_file', arguments: { file_path: n, search_block: 'one\ntwo\n', replace_block: '1\n2\n' } }))
      assert.equal(r.ok, true, JSON.stringify(r))
      assert.deepEqual(r.matched_with, ['line_endings'])
    }
    assert.deepEqual(read(d, 'crlf.txt'), Buffer.from('1\r\n2\r\nthree\r\n'))
    assert.deepEqual(read(d, 'bom.txt'), Buffer.from('\uFEFF1\r\n2\r\nthree\r\n'))
    const exact = resultOf(await client.callTool({ name: 'patch_file', arguments: { file_path: 'latin1.txt', search_block: 'two\nthree\n', replace_block: 'x\n', match: 'exact' } }))
    assert.equal(exact.code, 'SEARCH_BLOCK_NOT_FOUND')
    const w = resultOf(await client.callTool({ name: 'write_file', arguments: { file_path: 'crlf.txt', content: 'w\nx\n' } }))
    assert.equal(w.ok, true, JSON.stringify(w))
    assert.deepEqual(read(d, 'crlf.txt'), Buffer.from('w\r\nx\r\n'))
  })
})

test('the JS API stays exact by default; the AI SDK adapter applies the LF block', async () => {
  const d = workspace()
  const strict = await api.patchFile({ file_path: 'crlf.txt', search_block: 'one\ntwo\n', replace_block: '1\n2\n' }, { workspaceRoot: d })
  assert.equal(strict.code, 'SEARCH_BLOCK_NOT_FOUND')
  assert.deepEqual(strict.closest_match.differences, ['line_endings'])
  assert.deepEqual(read(d, 'crlf.txt'), FILES['crlf.txt'])
  const tools = createPatchFileTools({ workspaceRoot: d })
  const r = await tools.patch_file.execute({ file_path: 'crlf.txt', search_block: 'one\ntwo\n', replace_block: '1\n2\n' }, { toolCallId: 't', messages: [] })
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.deepEqual(read(d, 'crlf.txt'), Buffer.from('1\r\n2\r\nthree\r\n'))
  // An LF block that is not unique once line endings are ignored is still refused.
  fs.writeFileSync(path.join(d, 'twice.txt'), 'a\r\nb\r\na\r\nb\r\n')
  const twice = await tools.patch_file.execute({ file_path: 'twice.txt', search_block: 'a\nb\n', replace_block: 'c\n' }, { toolCallId: 'u', messages: [] })
  assert.equal(twice.ok, false)
  assert.deepEqual(read(d, 'twice.txt'), Buffer.from('a\r\nb\r\na\r\nb\r\n'))
})

test('MCP and the adapters: new lines of a one-line block found exactly take the file\'s CRLF; the JS API writes them as sent', async () => {
  const d = workspace()
  const edit = { search_block: 'one', replace_block: 'one\nhalf' }
  await withClient({ args: ['--root', d, '--tools', 'default,edit_file'], env: cleanEnv() }, async (client) => {
    const r = resultOf(await client.callTool({ name: 'patch_file', arguments: { file_path: 'crlf.txt', ...edit } }))
    assert.equal(r.ok, true, JSON.stringify(r))
    assert.deepEqual(r.matched_with, ['line_endings'])
    const e = resultOf(await client.callTool({ name: 'edit_file', arguments: { path: 'bom.txt', edits: [{ oldText: 'two', newText: 'two\nmore' }] } }))
    assert.equal(e.ok, true, JSON.stringify(e))
  })
  assert.deepEqual(read(d, 'crlf.txt'), Buffer.from('one\r\nhalf\r\ntwo\r\nthree\r\n'))
  assert.deepEqual(read(d, 'bom.txt'), Buffer.from('\uFEFFone\r\ntwo\r\nmore\r\nthree\r\n'))
  const tools = createPatchFileTools({ workspaceRoot: d })
  const t = await tools.patch_file.execute({ file_path: 'crlf.txt', search_block: 'three', replace_block: 'three\nfour' }, { toolCallId: 't', messages: [] })
  assert.equal(t.ok, true, JSON.stringify(t))
  assert.deepEqual(read(d, 'crlf.txt'), Buffer.from('one\r\nhalf\r\ntwo\r\nthree\r\nfour\r\n'))
  const plain = await api.patchFile({ file_path: 'crlf.txt', search_block: 'two', replace_block: 'two\n2' }, { workspaceRoot: d })
  assert.equal(plain.ok, true, JSON.stringify(plain))
  assert.equal(plain.matched_with, undefined)
  assert.deepEqual(read(d, 'crlf.txt'), Buffer.from('one\r\nhalf\r\ntwo\n2\r\nthree\r\nfour\r\n'))
})
