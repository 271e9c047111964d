// Never U+FFFD over a user's bytes, never a guess: lone surrogates from JS
// and invalid UTF-8 from MCP lines or CLI stdin are INVALID_INPUT (nothing
// is run, nothing written); readFile says when its `content` is not the
// file's bytes; writeFile refuses to replace a file that is not UTF-8 unless
// told `encoding: "utf-8"`.
import { test, afterEach } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import {
  patchFile,
  patchFileSync,
  batchPatchFiles,
  readFile,
  writeFile,
  applyEditBlocks,
  applyPatch,
  textEditor,
  editFile,
} from '../index.mjs'
import { BIN, tempDir, cleanEnv, rawServer, killAll } from './helpers/mcp-raw.mjs'

afterEach(killAll)

const T = { timeout: 60_000 }
const opts = (root, extra = {}) => ({ workspaceRoot: root, durable: false, ...extra })
const put = (root, rel, body) => {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
  fs.writeFileSync(path.join(root, rel), body)
}
const read = (root, rel) => fs.readFileSync(path.join(root, rel))
const latin1 = (s) => Buffer.from(s, 'latin1')

/** A workspace holding a file with a real U+FFFD (and its bytes), plus `a\uFFFD.txt`. */
function fffdWorkspace() {
  const root = tempDir('pft-bytes-')
  const body = Buffer.from('keep \uFFFD here\nx = 1\n')
  put(root, 'f.txt', body)
  put(root, 'a\uFFFD.txt', body)
  return { root, body, names: fs.readdirSync(root).sort() }
}

/** The file is byte-identical, no file was added and none removed. */
function untouched({ root, body, names }) {
  assert.ok(read(root, 'f.txt').equals(body), 'f.txt changed')
  assert.ok(read(root, 'a\uFFFD.txt').equals(body), 'a\uFFFD.txt changed')
  assert.deepEqual(fs.readdirSync(root).sort(), names)
}

function invalid(r, where) {
  assert.equal(r.ok, false, JSON.stringify(r))
  assert.equal(r.code, 'INVALID_INPUT', JSON.stringify(r))
  assert.match(r.message, /lone surrogate/, JSON.stringify(r))
  if (where) assert.ok(r.message.includes(where), `message names ${where}: ${r.message}`)
}

// ---------------------------------------------------------------------------
// Lone surrogates from JS

test('patchFile: a lone surrogate in search_block is INVALID_INPUT, not a match on a real U+FFFD', async () => {
  const ws = fffdWorkspace()
  for (const bad of ['\uD800', '\uDC00', 'keep \uD83D here', '\uDC00\uD83D', 'x\uD800']) {
    invalid(await patchFile({ file_path: 'f.txt', search_block: bad, replace_block: 'y' }, opts(ws.root)), 'input.search_block')
    invalid(patchFileSync({ file_path: 'f.txt', search_block: bad, replace_block: 'y' }, opts(ws.root)), 'input.search_block')
    invalid(await patchFile({ file_path: 'f.txt', searchBlock: bad, replaceBlock: 'y' }, opts(ws.root)), 'input.searchBlock')
  }
  untouched(ws)
})

test('patchFile: a lone surrogate in replace_block, file_path, edits[] or an option is INVALID_INPUT', async () => {
  const ws = fffdWorkspace()
  invalid(await patchFile({ file_path: 'f.txt', search_block: 'x = 1', replace_block: 'x = \uD800' }, opts(ws.root)), 'input.replace_block')
  invalid(await patchFile({ file_path: 'a\uD800.txt', search_block: 'x = 1', replace_block: 'x = 2' }, opts(ws.root)), 'input.file_path')
  invalid(await patchFile({ filePath: 'a\uDFFF.txt', search_block: 'x = 1', replace_block: 'x = 2' }, opts(ws.root)), 'input.filePath')
  invalid(
    await patchFile({ file_path: 'f.txt', edits: [{ search_block: 'x = 1', replace_block: 'x = 2' }, { old_str: '\uD800', new_str: 'z' }] }, opts(ws.root)),
    'input.edits[1].old_str',
  )
  // Options too: a workspace root whose real name has U+FFFD is not reached by a lone surrogate.
  const outer = tempDir('pft-bytes-root-')
  put(outer, 'ws\uFFFD/f.txt', 'x = 1\n')
  invalid(await patchFile({ file_path: 'f.txt', search_block: 'x = 1', replace_block: 'x = 2' }, { workspaceRoot: path.join(outer, 'ws\uD800') }), 'options.workspaceRoot')
  assert.equal(read(outer, 'ws\uFFFD/f.txt').toString(), 'x = 1\n')
  // Keys: the key is reported, not decoded into U+FFFD.
  const key = await patchFile({ file_path: 'f.txt', search_block: 'x = 1', replace_block: 'x = 2', ['k\uD800']: 1 }, opts(ws.root))
  invalid(key, 'input')
  assert.match(key.message, /key/)
  invalid(await patchFile({ file_path: 'f.txt', search_block: 'x = 1', replace_block: 'x = 2' }, { ...opts(ws.root), ['\uDC00']: true }), 'options')
  untouched(ws)
})

test('batchPatchFiles, writeFile, applyEditBlocks, applyPatch, textEditor, editFile: lone surrogates are INVALID_INPUT', async () => {
  const ws = fffdWorkspace()
  const { root } = ws
  invalid(
    await batchPatchFiles(
      { files: [{ file_path: 'f.txt', search_block: 'x = 1', replace_block: 'x = 2' }, { file_path: 'a\uD800.txt', search_block: 'x = 1', replace_block: 'x = 2' }] },
      opts(root),
    ),
    'input.files[1].file_path',
  )
  invalid(
    await batchPatchFiles({ files: [{ file_path: 'f.txt', edits: [{ search_block: '\uD800', replace_block: 'y' }] }] }, opts(root)),
    'input.files[0].edits[0].search_block',
  )
  invalid(await writeFile({ file_path: 'f.txt', content: 'new \uD800\n' }, opts(root)), 'input.content')
  invalid(await writeFile({ file_path: 'new.txt', content: 'new \uDBFF' }, opts(root)), 'input.content')
  invalid(await writeFile({ file_path: 'a\uD800.txt', content: 'new\n' }, opts(root)), 'input.file_path')
  invalid(await readFile({ file_path: 'a\uD800.txt' }, opts(root)), 'input.file_path')
  invalid(await applyEditBlocks('f.txt\n<<<<<<< SEARCH\n\uD800\n=======\ny\n>>>>>>> REPLACE\n', opts(root)), 'input')
  invalid(await applyEditBlocks({ text: 'a\uD800.txt\n<<<<<<< SEARCH\nx = 1\n=======\ny\n>>>>>>> REPLACE\n' }, opts(root)), 'input.text')
  invalid(await applyPatch('*** Begin Patch\n*** Update File: f.txt\n@@\n-keep \uD800 here\n+gone\n*** End Patch\n', opts(root)), 'input')
  invalid(await applyPatch({ patch: '*** Begin Patch\n*** Add File: n\uD800.txt\n+x\n*** End Patch\n' }, opts(root)), 'input.patch')
  invalid(await textEditor({ command: 'str_replace', path: 'f.txt', old_str: '\uD800', new_str: 'y' }, opts(root)), 'input.old_str')
  invalid(await textEditor({ command: 'create', path: 'a\uD800.txt', file_text: 'y' }, opts(root)), 'input.path')
  invalid(await editFile({ path: 'f.txt', edits: [{ oldText: '\uDC00', newText: 'y' }] }, opts(root)), 'input.edits[0].oldText')
  untouched(ws)
})

test('well-formed text still works: surrogate pairs, and a real U+FFFD is matched on purpose', async () => {
  const ws = fffdWorkspace()
  let r = await patchFile({ file_path: 'f.txt', search_block: 'keep \uFFFD here', replace_block: 'keep 😀 here' }, opts(ws.root))
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(read(ws.root, 'f.txt').toString(), 'keep 😀 here\nx = 1\n')
  r = await patchFile({ file_path: 'a\uFFFD.txt', search_block: 'x = 1', replace_block: 'x = \u{1F600}' }, opts(ws.root))
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(read(ws.root, 'a\uFFFD.txt').toString(), 'keep \uFFFD here\nx = 😀\n')
})

test('a lone surrogate sent as a JSON escape through MCP is INVALID_INPUT', T, async () => {
  const ws = fffdWorkspace()
  const s = rawServer({ args: ['--root', ws.root] })
  await s.initialize()
  // JSON.stringify writes a lone surrogate as the escape \udXXX, which JSON.parse turns back into one.
  const call = (id, name, args) => s.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } })
  call(1, 'patch_file', { file_path: 'f.txt', search_block: '\uD800', replace_block: 'y' })
  call(2, 'write_file', { file_path: 'a\uD800.txt', content: 'y' })
  for (const id of [1, 2]) {
    const r = (await s.response(id)).result.structuredContent
    invalid(r)
  }
  s.child.stdin.end()
  await s.exit
  untouched(ws)
})

test('the lone-surrogate check stays cheap on a 50 MB string', async () => {
  const root = tempDir('pft-bytes-big-')
  const big = 'a'.repeat(50 * 1024 * 1024)
  const ascii = await writeFile({ file_path: 'big.txt', content: big, dry_run: true }, opts(root))
  assert.equal(ascii.ok, true)
  // Worst case: the text has real U+FFFD (so the check looks at UTF-16) and one lone surrogate at the end.
  const t0 = process.hrtime.bigint()
  const r = await writeFile({ file_path: 'big.txt', content: '\uFFFD' + big + '\uD800' }, opts(root))
  const ms = Number(process.hrtime.bigint() - t0) / 1e6
  invalid(r, 'input.content')
  assert.equal(fs.existsSync(path.join(root, 'big.txt')), false)
  assert.ok(ms < 5000, `${ms} ms`)
})

