// Hash-anchored line edits: readFile with anchors, editLines through the one
// pipeline, the MCP `anchors` profile, and the adapters' `tools` option.
import './helpers/private-state.mjs'
import { test, afterEach } from 'node:test'
import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import { spawnSync } from 'node:child_process'
import { tempDir, killAll, cleanEnv, BIN } from './helpers/mcp-raw.mjs'
import { withClient, resultOf } from './helpers/mcp-client.mjs'

afterEach(killAll)

const require = createRequire(import.meta.url)
const api = require('../index.js')
const tools = require('../js/tools.js')

const T = { timeout: 120_000 }

/** The anchors of a read with anchors, by 0-based line. */
async function anchorsOf(root, file) {
  const r = await api.readFile({ file_path: file, anchors: true }, { workspaceRoot: root, durable: false })
  assert.equal(r.ok, true, JSON.stringify(r))
  return r.content.split('\n').filter(Boolean).map((l) => l.split('|')[0])
}

test('readFile with anchors tags each line (IDs in a-p); editLines replaces (the default op), inserts and deletes, keeping CRLF', async () => {
  const root = tempDir()
  fs.writeFileSync(path.join(root, 'a.txt'), 'one\r\ntwo\r\nthree\r\n')
  const a = await anchorsOf(root, 'a.txt')
  assert.match(a[0], /^1#[a-p]{2}$/)
  const plain = await api.readFile({ file_path: 'a.txt' }, { workspaceRoot: root })
  assert.equal(plain.content, 'one\r\ntwo\r\nthree\r\n')
  const r = await api.editLines(
    {
      file_path: 'a.txt',
      edits: [
        { pos: a[1], lines: ['TWO', '2b'] }, // no op: replace, the default
        { op: 'replace', pos: a[2], lines: null },
        { op: 'prepend', lines: 'zero' },
      ],
    },
    { workspaceRoot: root, durable: false },
  )
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(r.verified, 'snapshot')
  assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'zero\r\none\r\nTWO\r\n2b\r\n')
})

test('a stale anchor is ANCHOR_MISMATCH with the current lines; the code is exported', async () => {
  const root = tempDir()
  fs.writeFileSync(path.join(root, 's.txt'), 'a\nb\nc\n')
  const a = await anchorsOf(root, 's.txt')
  fs.writeFileSync(path.join(root, 's.txt'), 'a\nB\nc\n')
  const r = await api.editLines({ file_path: 's.txt', edits: [{ op: 'replace', pos: a[1], lines: 'x' }] }, { workspaceRoot: root })
  assert.equal(r.code, 'ANCHOR_MISMATCH', JSON.stringify(r))
  assert.equal(r.anchors[0].problem, 'changed')
  assert.match(r.anchors[0].lines, /\|B\n/)
  assert.equal(api.PATCH_FILE_ERROR_CODES.ANCHOR_MISMATCH, 'ANCHOR_MISMATCH')
  assert.equal(fs.readFileSync(path.join(root, 's.txt'), 'utf8'), 'a\nB\nc\n')
})

test('a refusal of many stale anchors shows the lines around the first 32 only, and its retry with them lands', async () => {
  const root = tempDir()
  const file = path.join(root, 'm.txt')
  const n = 200
  fs.writeFileSync(file, Array.from({ length: n }, (_, i) => `line ${i}\n`).join(''))
  const a = await anchorsOf(root, 'm.txt')
  fs.writeFileSync(file, Array.from({ length: n }, (_, i) => `LINE ${i}\n`).join(''))
  const edits = a.filter((_, i) => i % 2 === 0).map((pos) => ({ pos, lines: 'x' }))
  const r = await api.editLines({ file_path: 'm.txt', edits }, { workspaceRoot: root })
  assert.equal(r.code, 'ANCHOR_MISMATCH')
  assert.equal(r.anchors.length, 100)
  assert.ok(r.anchors.slice(0, 32).every((x) => x.lines !== ''))
  assert.ok(r.anchors.slice(32).every((x) => x.lines === '' && x.problem === 'changed'))
  assert.match(r.message, /around the first 32 are in `anchors`; for the others, read the file again/)
  // The lines shown count as a read: an edit with one of their anchors lands.
  const shown = r.anchors[5].lines.split('\n').find((l) => l.endsWith('|LINE 10'))
  const again = await api.editLines({ file_path: 'm.txt', edits: [{ pos: shown.split('|')[0], lines: 'ten' }] }, { workspaceRoot: root })
  assert.equal(again.ok, true, JSON.stringify(again))
  assert.equal(fs.readFileSync(file, 'utf8').split('\n')[10], 'ten')
})

test('the anchors profile lists read_file, edit_lines and undo, and runs them over MCP', T, async () => {
  assert.deepEqual(tools.PROFILES.anchors, ['read_file', 'edit_lines', 'undo'])
  const root = tempDir()
  fs.writeFileSync(path.join(root, 'm.txt'), 'x\ny\n')
  await withClient({ tools: 'anchors', cwd: root, args: ['--root', root] }, async (client) => {
    const listed = (await client.listTools()).tools.map((t) => t.name)
    assert.deepEqual(listed, ['read_file', 'edit_lines', 'undo'])
    const read = resultOf(await client.callTool({ name: 'read_file', arguments: { file_path: 'm.txt', anchors: true } }))
    const pos = read.content.split('\n')[1].split('|')[0]
    const done = resultOf(
      await client.callTool({ name: 'edit_lines', arguments: { file_path: 'm.txt', edits: [{ op: 'append', pos, lines: 'z' }] } }),
    )
    assert.equal(done.ok, true, JSON.stringify(done))
    // The cheapest call, as the tool's description teaches it: no op for a replace.
    const again = resultOf(await client.callTool({ name: 'read_file', arguments: { file_path: 'm.txt', anchors: true } }))
    const first = again.content.split('|')[0]
    const replaced = resultOf(await client.callTool({ name: 'edit_lines', arguments: { file_path: 'm.txt', edits: [{ pos: first, lines: 'X' }] } }))
    assert.equal(replaced.ok, true, JSON.stringify(replaced))
  })
  assert.equal(fs.readFileSync(path.join(root, 'm.txt'), 'utf8'), 'X\ny\nz\n')
})

test('read_file lists `anchors` only beside edit_lines; without it a call that sends it reads plainly', T, async () => {
  const root = tempDir()
  fs.writeFileSync(path.join(root, 'p.txt'), 'x\ny\n')
  const props = (t) => Object.keys(t.inputSchema.properties)
  await withClient({ tools: 'default', cwd: root, args: ['--root', root] }, async (client) => {
    const read = (await client.listTools()).tools.find((t) => t.name === 'read_file')
    assert.deepEqual(props(read), ['file_path', 'offset', 'limit'])
    const r = resultOf(await client.callTool({ name: 'read_file', arguments: { file_path: 'p.txt', anchors: true } }))
    assert.equal(r.content, 'x\ny\n', JSON.stringify(r))
  })
  await withClient({ tools: 'anchors', cwd: root, args: ['--root', root] }, async (client) => {
    const read = (await client.listTools()).tools.find((t) => t.name === 'read_file')
    assert.ok(props(read).includes('anchors'))
  })
  const { createPatchFileTools } = require('../js/adapters/ai-sdk.js')
  const plain = createPatchFileTools({ workspaceRoot: root })
  assert.equal('anchors' in plain.read_file.inputSchema.jsonSchema.properties, false)
  assert.equal((await plain.read_file.execute({ file_path: 'p.txt', anchors: true }, {})).content, 'x\ny\n')
  const tagged = createPatchFileTools({ workspaceRoot: root, tools: 'anchors' })
  assert.equal('anchors' in tagged.read_file.inputSchema.jsonSchema.properties, true)
  assert.match((await tagged.read_file.execute({ file_path: 'p.txt', anchors: true }, {})).content, /^1#[a-p]{2}\|x\n/)
  // The API is not a tool set: it reads with anchors whatever is listed.
  assert.match((await api.readFile({ file_path: 'p.txt', anchors: true }, { workspaceRoot: root })).content, /^1#/)
})

test('the adapters offer the anchors tool set with options.tools', async () => {
  const { createPatchFileTools } = require('../js/adapters/ai-sdk.js')
  const root = tempDir()
  const set = createPatchFileTools({ workspaceRoot: root, tools: 'anchors' })
  assert.deepEqual(Object.keys(set), ['read_file', 'edit_lines', 'undo'])
  fs.writeFileSync(path.join(root, 'k.txt'), 'k\n')
  const read = await set.read_file.execute({ file_path: 'k.txt', anchors: true }, {})
  const pos = read.content.split('|')[0]
  const r = await set.edit_lines.execute({ file_path: 'k.txt', edits: [{ pos, lines: 'K' }] }, {})
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(fs.readFileSync(path.join(root, 'k.txt'), 'utf8'), 'K\n')
  const lc = require('../js/adapters/langchain.js')
  const names = lc.createPatchFileTools({ workspaceRoot: root, tools: 'anchors' }).map((t) => t.name)
  assert.deepEqual(names, ['read_file', 'edit_lines', 'undo'])
})

test('CLI: read --anchors in one process, edit-lines in another after the file shifted: checked against that read', T, () => {
  const root = tempDir()
  const run = (args, input) =>
    spawnSync(process.execPath, [BIN, ...args, '--root', root], { cwd: root, env: cleanEnv(), input, encoding: 'utf8' })
  fs.writeFileSync(path.join(root, 'c.txt'), 'a\n}\nb\n}\n')
  const read = run(['read', 'c.txt', '--anchors'])
  assert.equal(read.status, 0, read.stderr)
  const pos = read.stdout.split('\n')[3].split('|')[0]
  fs.writeFileSync(path.join(root, 'c.txt'), 'new\na\n}\nb\n}\n')
  const r = run(['edit-lines'], JSON.stringify({ file_path: 'c.txt', edits: [{ op: 'replace', pos, lines: '} // b' }] }))
  assert.equal(r.status, 0, r.stdout + r.stderr)
  const out = JSON.parse(r.stdout)
  assert.equal(out.verified, 'snapshot')
  assert.equal(out.rebased, true)
  assert.equal(fs.readFileSync(path.join(root, 'c.txt'), 'utf8'), 'new\na\n}\nb\n} // b\n')
})

test('a newer read of the same content by another process is the view an edit is judged against', T, async () => {
  const root = tempDir()
  const file = path.join(root, 'a.txt')
  const run = (args, input) =>
    spawnSync(process.execPath, [BIN, ...args, '--root', root], { cwd: root, env: cleanEnv(), input, encoding: 'utf8' })
  // Two contents kept in different files of the state directory (a content's file is picked by its sha256).
  const slot = (t) => parseInt(crypto.createHash('sha256').update(t).digest('hex').slice(-1), 16) % 4
  const v1 = 's\n}\na\n}\nb\n'
  let v2 = ''
  for (let k = 0; !v2 || slot(v2) === slot(v1); k++) v2 = `q${k}\n}\n` + v1
  fs.writeFileSync(file, v1)
  await anchorsOf(root, 'a.txt') // this process reads v1
  fs.writeFileSync(file, v2)
  assert.equal(run(['read', 'a.txt', '--anchors']).status, 0) // the CLI reads v2
  fs.writeFileSync(file, v1)
  const shown = run(['read', 'a.txt', '--anchors']) // reverted; the CLI reads v1 again
  const pos = shown.stdout.split('\n')[3].split('|')[0]
  const r = await api.editLines({ file_path: 'a.txt', edits: [{ pos, lines: '} // closes a' }] }, { workspaceRoot: root, durable: false })
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(r.rebased, undefined, JSON.stringify(r))
  assert.equal(fs.readFileSync(file, 'utf8'), 's\n}\na\n} // closes a\nb\n')
})

test('snapshots still waiting at exit are written, but never into a state directory the process removed', T, () => {
  const root = tempDir()
  fs.writeFileSync(path.join(root, 'e.txt'), 'e\n')
  const INDEX = path.join(path.dirname(BIN), '..', 'index.js')
  const run = (removeAtExit) => {
    const base = tempDir('pft-exit-state-')
    const state = path.join(base, 'state')
    const script = `
      const fs = require('node:fs')
      const api = require(${JSON.stringify(INDEX)})
      api.readFile({ file_path: 'e.txt', anchors: true }, { workspaceRoot: ${JSON.stringify(root)} }).then((r) => {
        if (!r.ok) process.exit(3)
        if (${removeAtExit}) process.on('exit', () => fs.rmSync(${JSON.stringify(base)}, { recursive: true, force: true }))
        process.exit(0)
      })`
    const r = spawnSync(process.execPath, ['-e', script], { env: cleanEnv({ PATCH_FILE_STATE_DIR: state }), encoding: 'utf8' })
    assert.equal(r.status, 0, r.stderr)
    return { base, state }
  }
  // Exiting at once: the snapshot is on disk for the next process.
  const kept = run(false)
  assert.equal(fs.readdirSync(path.join(kept.state, 'anchors')).length, 1)
  fs.rmSync(kept.base, { recursive: true, force: true })
  // Removing its state directory at exit: nothing makes it again.
  const gone = run(true)
  assert.equal(fs.existsSync(gone.base), false)
})
