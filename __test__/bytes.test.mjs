// Never U+FFFD over a user's bytes, never a guess: lone surrogates from JS
// and invalid UTF-8 from MCP lines or CLI stdin are INVALID_INPUT (nothing
// is run, nothing written); readFile says when its `content` is not the
// file's bytes; writeFile refuses to replace a file that is not UTF-8 unless
// told `encoding: "utf-8"`.
import './helpers/private-state.mjs'
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
    const r = await s.result(id)
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

// ---------------------------------------------------------------------------
// Invalid UTF-8 on the MCP line and CLI stdin

/** A tools/call line whose arguments hold raw bytes `raw` where `@@` is. */
function rawLine(id, name, args, raw) {
  const text = JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } })
  const [a, b] = text.split('@@')
  return Buffer.concat([Buffer.from(a), raw, Buffer.from(b), Buffer.from('\n')])
}

test('MCP: a line with invalid UTF-8 is answered with a JSON-RPC error (its id when readable) and never runs', T, async () => {
  const root = tempDir('pft-bytes-mcp-')
  put(root, 'f.txt', 'name = "cafe"\n')
  const s = rawServer({ args: ['--root', root] })
  await s.initialize()
  s.child.stdin.write(rawLine(1, 'write_file', { file_path: 'w.txt', content: 'caf@@\n' }, Buffer.from([0xe9])))
  s.child.stdin.write(rawLine(2, 'patch_file', { file_path: 'f.txt', search_block: 'cafe', replace_block: 'caf@@' }, Buffer.from([0xe9])))
  s.child.stdin.write(rawLine(3, 'patch_file', { file_path: 'f.txt', search_block: 'caf@@', replace_block: 'x' }, Buffer.from([0xed, 0xa0, 0x80])))
  for (const id of [1, 2, 3]) {
    const r = await s.response(id)
    assert.ok(r.error, JSON.stringify(r))
    assert.equal(r.error.code, -32700)
    assert.match(r.error.message, /UTF-8/)
  }
  // Unreadable id: the line starts with the bad byte.
  s.child.stdin.write(Buffer.concat([Buffer.from([0xff]), Buffer.from('{"jsonrpc":"2.0","id":4,"method":"ping"}\n')]))
  const anon = await s.waitFor((m) => m.error && m.id === null, 'error with id null')
  assert.match(anon.error.message, /UTF-8/)
  // Reading goes on.
  s.send({ jsonrpc: '2.0', id: 5, method: 'ping' })
  assert.deepEqual((await s.response(5)).result, {})
  s.child.stdin.end()
  assert.deepEqual(await s.exit, { code: 0, signal: null })
  assert.deepEqual(s.nonJson, [])
  assert.equal(s.messages.some((m) => m.id === 4), false, 'the line with a bad first byte ran')
  assert.equal(read(root, 'f.txt').toString(), 'name = "cafe"\n')
  assert.equal(fs.existsSync(path.join(root, 'w.txt')), false)
})

function cli(args, { cwd, input }) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, input, env: cleanEnv(), encoding: 'utf8', timeout: 30_000 })
  if (r.error) throw r.error
  return r
}

test('CLI: invalid UTF-8 on stdin (call JSON, apply-patch, --search-file -) exits 2 and writes nothing', () => {
  const dir = tempDir('pft-bytes-cli-')
  put(dir, 'f.txt', 'name = "cafe"\n')
  const json = Buffer.concat([Buffer.from('{"file_path":"f.txt","content":"caf'), Buffer.from([0xe9]), Buffer.from('\\n"}')])
  const w = cli(['call', 'write_file'], { cwd: dir, input: json })
  assert.equal(w.status, 2, w.stderr + w.stdout)
  const res = JSON.parse(w.stdout)
  assert.equal(res.code, 'INVALID_INPUT')
  assert.match(res.message, /UTF-8/)
  const p = cli(['patch', '--json'], { cwd: dir, input: Buffer.concat([Buffer.from('{"file_path":"f.txt","search_block":"cafe","replace_block":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]) })
  assert.equal(p.status, 2, p.stderr + p.stdout)
  const patch = Buffer.concat([Buffer.from('*** Begin Patch\n*** Update File: f.txt\n@@\n-name = "cafe"\n+name = "caf'), Buffer.from([0xe9]), Buffer.from('"\n*** End Patch\n')])
  const a = cli(['apply-patch'], { cwd: dir, input: patch })
  assert.equal(a.status, 2, a.stderr + a.stdout)
  assert.match(a.stderr, /not valid UTF-8/)
  const a2 = cli(['apply-patch', '-'], { cwd: dir, input: patch })
  assert.equal(a2.status, 2, a2.stderr + a2.stdout)
  put(dir, 'patch.diff', patch)
  const a3 = cli(['apply-patch', 'patch.diff'], { cwd: dir })
  assert.equal(a3.status, 2, a3.stderr + a3.stdout)
  const s = cli(['patch', 'f.txt', '--search', 'cafe', '--replace-file', '-'], { cwd: dir, input: latin1('caf\xe9') })
  assert.equal(s.status, 2, s.stderr + s.stdout)
  assert.equal(read(dir, 'f.txt').toString(), 'name = "cafe"\n')
  assert.equal(fs.existsSync(path.join(dir, 'w.txt')), false)
  // Valid UTF-8 (with a real U+FFFD) still goes through.
  const ok = cli(['call', 'write_file'], { cwd: dir, input: '{"file_path":"w.txt","content":"caf\uFFFD\\n"}' })
  assert.equal(ok.status, 0, ok.stderr + ok.stdout)
  assert.ok(read(dir, 'w.txt').equals(Buffer.from('caf\uFFFD\n')))
})

// ---------------------------------------------------------------------------
// readFile / writeFile of files that are not UTF-8

// A file read at byte level: mostly UTF-8, with a stray Latin-1 byte (a
// Latin-1 file as a whole is read as windows-1252, decoded).
const mixed = (s) => Buffer.from(s.replace('\xe9', '\u0000'), 'utf8').map((b) => (b === 0 ? 0xe9 : b))

test('readFile of a byte-level file says content is not faithful; UTF-8, UTF-16 and legacy files are', async () => {
  const root = tempDir('pft-bytes-read-')
  put(root, 'l1.txt', mixed('ok na\u00efve line\ncaf\xe9\n'))
  let r = await readFile({ file_path: 'l1.txt' }, opts(root))
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(r.encoding, 'binary-safe-bytes')
  assert.equal(r.content, 'ok na\u00efve line\ncaf\uFFFD\n')
  assert.equal(r.faithful, false)
  assert.equal(typeof r.warning, 'string')
  assert.match(r.warning, /not valid UTF-8/)
  assert.match(r.warning, /U\+FFFD/)
  assert.match(r.warning, /patchFile/)
  assert.match(r.warning, /encoding/)
  // A range whose lines are all UTF-8 is exact, but the file is still byte-level.
  r = await readFile({ file_path: 'l1.txt', limit: 1 }, opts(root))
  assert.equal(r.content, 'ok na\u00efve line\n')
  assert.equal(r.faithful, true)
  assert.match(r.warning, /not valid UTF-8/)

  put(root, 'u8.txt', 'caf\u00e9 \uFFFD\n')
  r = await readFile({ file_path: 'u8.txt' }, opts(root))
  assert.equal(r.faithful, true)
  assert.equal(r.warning, undefined)
  put(root, 'u16.txt', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('caf\u00e9\n', 'utf16le')]))
  r = await readFile({ file_path: 'u16.txt' }, opts(root))
  assert.equal(r.faithful, true)
  assert.equal(r.warning, undefined)
  put(root, 'sjis.txt', Buffer.from([0x83, 0x41, 0x83, 0x43, 0x0a])) // アイ
  r = await readFile({ file_path: 'sjis.txt' }, opts(root))
  assert.equal(r.encoding, 'shift_jis', JSON.stringify(r))
  assert.equal(r.content, '\u30a2\u30a4\n')
  assert.equal(r.faithful, true)
  assert.match(r.warning, /shift_jis/)
})

test('writeFile over a byte-level file refuses with UNSUPPORTED_ENCODING unless encoding: "utf-8"', async () => {
  const root = tempDir('pft-bytes-write-')
  const body = mixed('na\u00efve caf\xe9\n')
  put(root, 'l1.txt', body)
  // The round trip: read, write the content back.
  const r = await readFile({ file_path: 'l1.txt' }, opts(root))
  let w = await writeFile({ file_path: 'l1.txt', content: r.content }, opts(root))
  assert.equal(w.ok, false, JSON.stringify(w))
  assert.equal(w.code, 'UNSUPPORTED_ENCODING')
  assert.match(w.message, /encoding/)
  assert.match(w.message, /patchFile/)
  assert.ok(read(root, 'l1.txt').equals(body))
  // expected_sha256 does not stand in for the encoding; a dry run is refused too.
  w = await writeFile({ file_path: 'l1.txt', content: 'cafe\n', expected_sha256: r.sha256 }, opts(root))
  assert.equal(w.code, 'UNSUPPORTED_ENCODING')
  w = await writeFile({ file_path: 'l1.txt', content: 'cafe\n', dry_run: true }, opts(root))
  assert.equal(w.code, 'UNSUPPORTED_ENCODING')
  assert.ok(read(root, 'l1.txt').equals(body))
  for (const bad of ['latin1', 'UTF-8', 'utf8', '', 5, true]) {
    w = await writeFile({ file_path: 'l1.txt', content: 'cafe\n', encoding: bad }, opts(root))
    assert.equal(w.code, 'INVALID_INPUT', `${JSON.stringify(bad)}: ${JSON.stringify(w)}`)
  }
  assert.ok(read(root, 'l1.txt').equals(body))
  // patchFile with ASCII blocks edits it byte-exactly.
  const p = await patchFile({ file_path: 'l1.txt', search_block: 'caf', replace_block: 'CAF' }, opts(root))
  assert.equal(p.ok, true, JSON.stringify(p))
  assert.ok(read(root, 'l1.txt').equals(mixed('na\u00efve CAF\xe9\n')))
  // Told the encoding: replaced with UTF-8, knowingly (dry run first).
  const dry = await writeFile({ file_path: 'l1.txt', content: 'caf\u00e9\n', encoding: 'utf-8', dry_run: true }, opts(root))
  assert.equal(dry.ok, true, JSON.stringify(dry))
  assert.ok(read(root, 'l1.txt').equals(mixed('na\u00efve CAF\xe9\n')))
  w = await writeFile({ file_path: 'l1.txt', content: 'caf\u00e9\n', encoding: 'utf-8' }, opts(root))
  assert.equal(w.ok, true, JSON.stringify(w))
  assert.equal(w.encoding, 'utf-8')
  assert.ok(read(root, 'l1.txt').equals(Buffer.from('caf\u00e9\n')))
})

test('writeFile encoding: "utf-8" on new, UTF-8 (BOM kept) and UTF-16 files (written as UTF-8)', async () => {
  const root = tempDir('pft-bytes-enc-')
  let w = await writeFile({ file_path: 'new.txt', content: 'n\u00e9\n', encoding: 'utf-8' }, opts(root))
  assert.equal(w.ok, true, JSON.stringify(w))
  assert.ok(read(root, 'new.txt').equals(Buffer.from('n\u00e9\n')))
  put(root, 'bom.txt', '\uFEFFold\n')
  w = await writeFile({ file_path: 'bom.txt', content: 'new\n', encoding: 'utf-8' }, opts(root))
  assert.equal(w.ok, true, JSON.stringify(w))
  assert.ok(read(root, 'bom.txt').equals(Buffer.from('\uFEFFnew\n')))
  put(root, 'u16.txt', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('old\n', 'utf16le')]))
  w = await writeFile({ file_path: 'u16.txt', content: 'new\n', encodingx: 'utf-8' }, opts(root))
  assert.equal(w.code, 'INVALID_INPUT')
  w = await writeFile({ file_path: 'u16.txt', content: 'new \u2603\n', encoding: 'utf-8' }, opts(root))
  assert.equal(w.ok, true, JSON.stringify(w))
  assert.equal(w.encoding, 'utf-8')
  assert.ok(read(root, 'u16.txt').equals(Buffer.from('new \u2603\n')))
})

test('MCP read_file / write_file carry faithful, warning and encoding', T, async () => {
  const root = tempDir('pft-bytes-mcpfile-')
  const body = mixed('na\u00efve caf\xe9\n')
  put(root, 'l1.txt', body)
  const s = rawServer({ args: ['--root', root] })
  await s.initialize()
  const call = (id, name, args) => s.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } })
  call(1, 'read_file', { file_path: 'l1.txt' })
  const rd = await s.result(1)
  assert.equal(rd.faithful, false)
  assert.match(rd.warning, /not valid UTF-8/)
  call(2, 'write_file', { file_path: 'l1.txt', content: rd.content })
  assert.equal((await s.result(2)).code, 'UNSUPPORTED_ENCODING')
  assert.ok(read(root, 'l1.txt').equals(body))
  call(3, 'write_file', { file_path: 'l1.txt', content: 'caf\u00e9\n', encoding: 'utf-8' })
  assert.equal((await s.result(3)).ok, true)
  assert.ok(read(root, 'l1.txt').equals(Buffer.from('caf\u00e9\n')))
  s.child.stdin.end()
  await s.exit
})

test('tools/list: write_file takes encoding, read_file and write_file output schemas describe the new fields', T, async () => {
  const s = rawServer({ args: ['--root', tempDir(), '--output-schemas'] })
  await s.initialize()
  s.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
  const { tools } = (await s.response(1)).result
  const w = tools.find((t) => t.name === 'write_file')
  assert.deepEqual(w.inputSchema.properties.encoding.enum, ['utf-8'])
  // The success branch of read_file's output schema (the generated contract's ReadDone).
  const r = tools.find((t) => t.name === 'read_file')
  const done = r.outputSchema.anyOf.map((b) => r.outputSchema.$defs[b.$ref.split('/').pop()]).find((d) => d.properties.ok.const === true)
  assert.equal(done.properties.faithful.type, 'boolean')
  assert.equal(done.properties.warning.type, 'string')
  s.child.stdin.end()
  await s.exit
})
