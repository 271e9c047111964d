// The MCP roots capability: without a configured root (--root or
// PATCH_FILE_WORKSPACE_ROOT) the server works in the client's roots, asked
// for with roots/list after initialize and again on
// notifications/roots/list_changed; a configured root wins; no root at all is
// a refusal, never the server's working directory. Driven by the official SDK
// client declaring `roots: { listChanged: true }`.
import './helpers/private-state.mjs'
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { BIN, tempDir, cleanEnv } from './helpers/mcp-raw.mjs'
import { rootFromUri, pathsOf } from '../js/workspace.js'

const T = { timeout: 60_000 }

/**
 * The SDK client with the roots capability, answering roots/list with `roots()`
 * (URIs or {uri, name}); `capabilities` replaces its capabilities.
 */
async function connect({ roots = () => [], args = [], env = cleanEnv(), cwd, capabilities = { roots: { listChanged: true } } } = {}) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, '--tools', 'all', ...args], env, cwd, stderr: 'pipe' })
  let stderr = ''
  transport.stderr.setEncoding('utf8')
  transport.stderr.on('data', (s) => (stderr += s))
  const client = new Client({ name: 'roots-test', version: '0' }, { capabilities })
  let asked = 0
  if (capabilities.roots) {
    client.setRequestHandler(ListRootsRequestSchema, async () => {
      asked++
      return { roots: (await roots(asked)).map((r) => (typeof r === 'string' ? { uri: r } : r)) }
    })
  }
  await client.connect(transport)
  const call = async (name, args) => {
    const answer = await client.callTool({ name, arguments: args })
    const result = JSON.parse(answer.content[0].text)
    assert.equal(answer.isError, result.ok !== true)
    return result
  }
  return { client, call, stderr: () => stderr, asked: () => asked }
}

const uri = (dir) => pathToFileURL(dir).href
const read = (f) => fs.readFileSync(f, 'utf8')

function project(files) {
  const dir = tempDir('pft-mcproots-')
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true })
    fs.writeFileSync(path.join(dir, name), text)
  }
  return dir
}

test('one client root: relative paths resolve from it; history and undo are its journal', T, async () => {
  const dir = project({ 'a.txt': 'x = 1\n' })
  const elsewhere = project({ 'a.txt': 'x = 1\n' })
  const c = await connect({ roots: () => [uri(dir)], cwd: elsewhere })
  try {
    const r = await c.call('patch_file', { file_path: 'a.txt', search_block: 'x = 1', replace_block: 'x = 2' })
    assert.equal(r.ok, true, JSON.stringify(r))
    assert.equal(read(path.join(dir, 'a.txt')), 'x = 2\n')
    assert.equal(read(path.join(elsewhere, 'a.txt')), 'x = 1\n', 'the working directory is not the root')
    const h = await c.call('history', {})
    // The compact history names no absolute root; its files (relative) are the root's own.
    assert.equal(h.transactions.length, 1)
    assert.deepEqual(h.transactions[0].files.map((f) => f.file_path), ['a.txt'])
    assert.equal((await c.call('undo', {})).ok, true)
    assert.equal(read(path.join(dir, 'a.txt')), 'x = 1\n')
    const out = await c.call('read_file', { file_path: path.join(elsewhere, 'a.txt') })
    assert.equal(out.code, 'PATH_OUTSIDE_WORKSPACE')
    assert.match(c.stderr(), /workspace root the client's roots/)
  } finally {
    await c.client.close()
  }
})

test('a root URI is percent-decoded; non-file URIs and missing directories are left out', T, async () => {
  const dir = project({ 'f.txt': 'old\n' })
  const spaced = path.join(dir, 'my dir#1 é')
  fs.mkdirSync(spaced)
  fs.writeFileSync(path.join(spaced, 'g.txt'), 'old\n')
  const encoded = uri(spaced)
  assert.match(encoded, /my%20dir%231%20%C3%A9$/)
  assert.deepEqual(rootFromUri(encoded), { root: spaced })
  assert.match(rootFromUri('https://example.com/x').error, /not a file:\/\/ URI/)
  assert.match(rootFromUri(uri(path.join(dir, 'missing'))).error, /cannot be used/)
  assert.match(rootFromUri(uri(path.join(dir, 'f.txt'))).error, /not a directory/)
  // (The SDK client itself refuses to send a root that is not file://: rootFromUri above covers that case.)
  const c = await connect({ roots: () => [uri(path.join(dir, 'missing')), { uri: encoded, name: 'spaced' }] })
  try {
    const r = await c.call('patch_file', { file_path: 'g.txt', search_block: 'old', replace_block: 'new' })
    assert.equal(r.ok, true, JSON.stringify(r))
    assert.equal(read(path.join(spaced, 'g.txt')), 'new\n')
    assert.match(c.stderr(), /client root left out: file:\S+\/missing cannot be used \(ENOENT\)/)
  } finally {
    await c.client.close()
  }
})

test('two roots: each path runs in the root it lies beneath, each root its own journal; ambiguity is refused', T, async () => {
  const a = project({ 'only-a.txt': 'a\n', 'both.txt': 'A\n' })
  const b = project({ 'only-b.txt': 'b\n', 'both.txt': 'B\n' })
  const c = await connect({ roots: () => [uri(a), uri(b)] })
  try {
    assert.equal((await c.call('patch_file', { file_path: 'only-b.txt', search_block: 'b', replace_block: 'b2' })).ok, true)
    assert.equal(read(path.join(b, 'only-b.txt')), 'b2\n')
    assert.equal((await c.call('patch_file', { file_path: path.join(a, 'both.txt'), search_block: 'A', replace_block: 'A2' })).ok, true)
    assert.equal(read(path.join(a, 'both.txt')), 'A2\n')
    // Relative and present under both roots, or under none: refused, naming the roots.
    const amb = await c.call('read_file', { file_path: 'both.txt' })
    assert.equal(amb.code, 'INVALID_INPUT')
    assert.ok(amb.message.includes(a) && amb.message.includes(b) && /absolute path/.test(amb.message), amb.message)
    const none = await c.call('write_file', { file_path: 'new.txt', content: 'n\n' })
    assert.equal(none.code, 'INVALID_INPUT')
    assert.match(none.message, /exists under none/)
    assert.equal((await c.call('write_file', { file_path: path.join(b, 'new.txt'), content: 'n\n' })).ok, true)
    assert.equal(read(path.join(b, 'new.txt')), 'n\n')
    // Outside both.
    const out = await c.call('read_file', { file_path: path.join(path.dirname(a), 'x.txt') })
    assert.equal(out.code, 'PATH_OUTSIDE_WORKSPACE')
    // A patch across roots is refused; one within a root is applied there.
    const across = await c.call('apply_patch', {
      patch: `*** Begin Patch\n*** Update File: ${path.join(a, 'only-a.txt')}\n@@\n-a\n+a2\n*** Update File: ${path.join(b, 'only-b.txt')}\n@@\n-b2\n+b3\n*** End Patch\n`,
    })
    assert.equal(across.code, 'INVALID_INPUT')
    assert.match(across.message, /one workspace root/)
    assert.equal(read(path.join(a, 'only-a.txt')), 'a\n')
    const within = await c.call('apply_patch', { patch: '*** Begin Patch\n*** Update File: only-a.txt\n@@\n-a\n+a2\n*** End Patch\n' })
    assert.equal(within.ok, true, JSON.stringify(within))
    assert.equal(read(path.join(a, 'only-a.txt')), 'a2\n')
    // Each root has its own journal: history and undo without a path act in the root of the latest call that named one.
    const filesOf = (h) => h.transactions.flatMap((t) => t.files.map((f) => f.file_path)).sort()
    const ha = await c.call('history', {})
    assert.equal(ha.transactions.length, 2)
    assert.equal(ha.workspace_root, a, 'an answer to a call naming no path says which root it ran in')
    assert.ok(filesOf(ha).includes('only-a.txt') && !filesOf(ha).includes('new.txt'), JSON.stringify(ha))
    const hb = await c.call('history', { file_path: path.join(b, 'new.txt') })
    assert.deepEqual(filesOf(hb), ['new.txt'], JSON.stringify(hb))
    const u = await c.call('undo', {})
    assert.equal(u.ok, true)
    assert.equal(u.workspace_root, b)
    assert.equal(fs.existsSync(path.join(b, 'new.txt')), false, "undo acted in b, the current root: it undid b's newest, the creation of new.txt")
    assert.equal(read(path.join(a, 'only-a.txt')), 'a2\n')
    assert.equal((await c.call('read_file', { file_path: path.join(a, 'only-a.txt') })).ok, true)
    // One operation as structure is routed by its path as well: it ran in the last root used, so an
    // ambiguous path was edited there, a file of b's was created in a, and b's absolute path was outside.
    const op = (o) => c.call('apply_patch', { operation: o })
    const opAmb = await op({ type: 'update_file', path: 'both.txt', diff: '@@\n-A2\n+A3\n' })
    assert.equal(opAmb.code, 'INVALID_INPUT', JSON.stringify(opAmb))
    assert.equal(read(path.join(a, 'both.txt')), 'A2\n')
    const opNone = await op({ type: 'create_file', path: 'made.txt', diff: '+m\n' })
    assert.equal(opNone.code, 'INVALID_INPUT', JSON.stringify(opNone))
    assert.equal(fs.existsSync(path.join(a, 'made.txt')), false)
    const opB = await op({ type: 'update_file', path: path.join(b, 'only-b.txt'), diff: '@@\n-b2\n+b3\n' })
    assert.equal(opB.ok, true, JSON.stringify(opB))
    assert.equal(read(path.join(b, 'only-b.txt')), 'b3\n')
    assert.equal(read(path.join(a, 'only-a.txt')), 'a2\n')
  } finally {
    await c.client.close()
  }
})

test('two roots: a call whose text names files the server cannot read is refused, never run in the last root used; a dry run applies after roots change', T, async () => {
  const a = project({ 'README.md': 'a\n', 'notes.txt': 'a\n', 'app.py': 'a = 1\n', 'only-a.txt': 'x\n' })
  const b = project({ 'README.md': 'b\n', 'notes.txt': 'b\n', 'app.py': 'b = 1\n', 'only-b.txt': 'y\n' })
  let current = [uri(a), uri(b)]
  const c = await connect({ roots: () => current })
  try {
    // The last call named a file of b.
    assert.equal((await c.call('read_file', { file_path: 'only-b.txt' })).ok, true)
    const rename = await c.call('apply_patch', { patch: 'diff --git a/README.md b/docs/README.md\nsimilarity index 100%\nrename from README.md\nrename to docs/README.md\n' })
    assert.equal(rename.code, 'INVALID_INPUT', JSON.stringify(rename))
    const fenced = await c.call('edit_block', { blockContent: 'app.py\n```python\n<<<<<<< SEARCH\nb = 1\n=======\nb = 2\n>>>>>>> REPLACE\n```\n' })
    assert.equal(fenced.code, 'INVALID_INPUT', JSON.stringify(fenced))
    const aliased = await c.call('apply_patch', { text: '*** Begin Patch\n*** Update File: notes.txt\n@@\n-b\n+B\n*** End Patch\n' })
    assert.equal(aliased.code, 'INVALID_INPUT', JSON.stringify(aliased))
    const unnamed = await c.call('apply_patch', { patch: '@@ -1 +1 @@\n-b\n+B\n' })
    assert.equal(unnamed.code, 'INVALID_INPUT', JSON.stringify(unnamed))
    for (const d of [a, b]) {
      assert.equal(read(path.join(d, 'README.md')), path.basename(d) === path.basename(a) ? 'a\n' : 'b\n')
      assert.ok(!fs.existsSync(path.join(d, 'docs')))
    }
    assert.equal(read(path.join(b, 'app.py')), 'b = 1\n')
    assert.equal(read(path.join(b, 'notes.txt')), 'b\n')
    // A dry run made with one root applies after the client adds another.
    current = [uri(a)]
    let before = c.asked()
    await c.client.sendRootsListChanged()
    for (let i = 0; i < 100 && c.asked() === before; i++) await new Promise((r) => setTimeout(r, 20))
    const dry = await c.call('patch_file', { file_path: 'only-a.txt', search_block: 'x', replace_block: 'x2', dry_run: true })
    assert.equal(dry.ok, true, JSON.stringify(dry))
    current = [uri(b), uri(a)]
    before = c.asked()
    await c.client.sendRootsListChanged()
    for (let i = 0; i < 100 && c.asked() === before; i++) await new Promise((r) => setTimeout(r, 20))
    const applied = await c.call('apply_last_dry_run', { run_id: dry.run_id })
    assert.equal(applied.ok, true, JSON.stringify(applied))
    assert.equal(read(path.join(a, 'only-a.txt')), 'x2\n')
  } finally {
    await c.client.close()
  }
})

test('notifications/roots/list_changed: the server asks again and switches roots', T, async () => {
  const one = project({ 'f.txt': 'one\n' })
  const two = project({ 'f.txt': 'two\n' })
  let current = [uri(one)]
  const c = await connect({ roots: () => current })
  try {
    assert.equal((await c.call('read_file', { file_path: 'f.txt' })).content, 'one\n')
    current = [uri(two)]
    const before = c.asked()
    await c.client.sendRootsListChanged()
    for (let i = 0; i < 100 && c.asked() === before; i++) await new Promise((r) => setTimeout(r, 20))
    assert.equal(c.asked(), before + 1)
    assert.equal((await c.call('read_file', { file_path: 'f.txt' })).content, 'two\n')
    assert.equal((await c.call('read_file', { file_path: path.join(one, 'f.txt') })).code, 'PATH_OUTSIDE_WORKSPACE')
    current = []
    await c.client.sendRootsListChanged()
    for (let i = 0; i < 100 && c.asked() === before + 1; i++) await new Promise((r) => setTimeout(r, 20))
    const refused = await c.call('read_file', { file_path: 'f.txt' })
    assert.equal(refused.code, 'INVALID_INPUT')
  } finally {
    await c.client.close()
  }
})

test('answers to roots/list that arrive out of order: the newest ask\'s answer stands, an older one arriving last is dropped', T, async () => {
  const one = project({ 'f.txt': 'one\n' })
  const two = project({ 'f.txt': 'two\n' })
  // The first ask (at start) and the second (roots then were still one) answer one, the second only after the
  // third, which answers two: the roots as they are now.
  const c = await connect({
    roots: async (n) => {
      if (n === 2) await new Promise((r) => setTimeout(r, 400))
      return n === 3 ? [uri(two)] : [uri(one)]
    },
  })
  try {
    assert.equal((await c.call('read_file', { file_path: 'f.txt' })).content, 'one\n')
    await c.client.sendRootsListChanged()
    for (let i = 0; i < 100 && c.asked() < 2; i++) await new Promise((r) => setTimeout(r, 10))
    await c.client.sendRootsListChanged()
    for (let i = 0; i < 100 && c.asked() < 3; i++) await new Promise((r) => setTimeout(r, 10))
    assert.equal(c.asked(), 3)
    await new Promise((r) => setTimeout(r, 700))
    assert.equal((await c.call('read_file', { file_path: 'f.txt' })).content, 'two\n', c.stderr())
  } finally {
    await c.client.close()
  }
})

test('no roots and none configured: every call is refused, saying how to configure a root; the cwd is never edited', T, async () => {
  const cwd = project({ 'f.txt': 'cwd\n' })
  for (const opts of [{ roots: () => [] }, { capabilities: {} }]) {
    const c = await connect({ ...opts, cwd })
    try {
      const r = await c.call('patch_file', { file_path: 'f.txt', search_block: 'cwd', replace_block: 'edited' })
      assert.equal(r.ok, false)
      assert.equal(r.code, 'INVALID_INPUT')
      assert.match(r.message, /no workspace root/)
      assert.match(r.message, /PATCH_FILE_WORKSPACE_ROOT/)
      assert.match(r.message, /--root/)
      assert.equal(read(path.join(cwd, 'f.txt')), 'cwd\n')
      assert.equal((await c.call('history', {})).code, 'INVALID_INPUT')
    } finally {
      await c.client.close()
    }
  }
})

test('a configured root (--root, or PATCH_FILE_WORKSPACE_ROOT) wins over the client\'s roots, which are not asked for', T, async () => {
  const configured = project({ 'f.txt': 'configured\n' })
  const client = project({ 'f.txt': 'client\n' })
  for (const opts of [{ args: ['--root', configured] }, { env: cleanEnv({ PATCH_FILE_WORKSPACE_ROOT: configured }) }]) {
    const c = await connect({ ...opts, roots: () => [uri(client)] })
    try {
      assert.equal((await c.call('read_file', { file_path: 'f.txt' })).content, 'configured\n')
      assert.equal((await c.call('read_file', { file_path: path.join(client, 'f.txt') })).code, 'PATH_OUTSIDE_WORKSPACE')
      await c.client.sendRootsListChanged()
      await new Promise((r) => setTimeout(r, 100))
      assert.equal(c.asked(), 0)
      assert.equal(c.client.getInstructions(), `Workspace root: ${configured}. Relative paths resolve from it. A failed call changes nothing.`)
    } finally {
      await c.client.close()
    }
  }
})

test('tools/list is the same with client roots as with a configured root', T, async () => {
  const dir = project({})
  const a = await connect({ roots: () => [uri(dir)] })
  const b = await connect({ args: ['--root', dir] })
  try {
    assert.deepEqual((await a.client.listTools()).tools, (await b.client.listTools()).tools)
    assert.match(a.client.getInstructions(), /client's/)
  } finally {
    await a.client.close()
    await b.client.close()
  }
})

test('pathsOf reads the paths of every tool shape', () => {
  assert.deepEqual(pathsOf({ file_path: 'a', search_block: 'x' }), ['a'])
  assert.deepEqual(pathsOf({ path: 'p', command: 'view' }), ['p'])
  assert.deepEqual(pathsOf({ files: [{ file_path: 'a' }, { filePath: 'b' }] }), ['a', 'b'])
  assert.deepEqual(pathsOf({ patch: '*** Begin Patch\n*** Add File: n.txt\n+x\n*** Update File: u.txt\n*** Move to: m.txt\n@@\n-a\n+b\n*** Delete File: d.txt\n*** End Patch' }), ['n.txt', 'u.txt', 'm.txt', 'd.txt'])
  assert.deepEqual(pathsOf({ patch: '--- a/x.c\n+++ b/x.c\n@@ -1 +1 @@\n-a\n+b\n--- /dev/null\n+++ b/new.c\n' }), ['x.c', 'x.c', 'new.c'])
  assert.deepEqual(pathsOf({ blockContent: 'src/a.ts\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n' }), ['src/a.ts'])
  assert.deepEqual(pathsOf({ id: '3' }), [])
  assert.deepEqual(pathsOf({ operation: { type: 'update_file', path: 'u.txt', diff: '', move_to: 'm.txt' } }, 'apply_patch'), ['u.txt', 'm.txt'])
  // Shapes a reading by lines once missed: a rename-only git diff, a block's
  // name above its fence, the `text` alias; a hunk line removing `-- x` is no header.
  assert.deepEqual(pathsOf({ patch: 'diff --git a/README.md b/docs/README.md\nsimilarity index 100%\nrename from README.md\nrename to docs/README.md\n' }, 'apply_patch'), ['README.md', 'docs/README.md', 'README.md', 'docs/README.md'])
  assert.deepEqual(pathsOf({ blockContent: 'app.py\n```python\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n' }, 'edit_block'), ['app.py'])
  assert.deepEqual(pathsOf({ text: '*** Begin Patch\n*** Update File: notes.txt\n@@\n-a\n+b\n*** End Patch\n' }, 'apply_patch'), ['notes.txt'])
  assert.deepEqual(pathsOf({ text: 'notes.txt\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n' }, 'edit_block'), ['notes.txt'])
  assert.deepEqual(pathsOf({ patch: '--- /abs/q.sql\n+++ /abs/q.sql\n@@ -1,2 +1,1 @@\n--- TODO\n select 1;\n' }, 'apply_patch'), ['/abs/q.sql', '/abs/q.sql'])
})

test('a call waits for an unanswered roots/list at most 5 s, then runs with the roots known so far; later calls do not wait for it again', T, async () => {
  const dir = project({ 'f.txt': 'f\n' })
  let release
  const late = new Promise((r) => (release = r))
  const c = await connect({ roots: () => [uri(dir)], capabilities: { roots: { listChanged: true } } })
  try {
    assert.equal((await c.call('read_file', { file_path: 'f.txt' })).content, 'f\n')
    // Replace the handler: this client answers roots/list only when released.
    c.client.setRequestHandler(ListRootsRequestSchema, async () => {
      await late
      return { roots: [{ uri: uri(dir) }] }
    })
    await c.client.sendRootsListChanged()
    const started = Date.now()
    const r = await c.call('read_file', { file_path: 'f.txt' })
    const waited = Date.now() - started
    assert.ok(waited >= 4000 && waited < 15000, `waited ${waited} ms`)
    // The roots known so far: the first list's, until the client answers.
    assert.equal(r.content, 'f\n', JSON.stringify(r))
    // The next call does not wait for the same unanswered list again (each call waited 5 s).
    const again = Date.now()
    assert.equal((await c.call('read_file', { file_path: 'f.txt' })).content, 'f\n')
    assert.ok(Date.now() - again < 4000, `waited ${Date.now() - again} ms again`)
  } finally {
    release()
    await c.client.close()
  }
})

test('a root that is not a file:// URI is left out and the others kept (the SDK refused the whole list)', T, async () => {
  const dir = project({ 'a.txt': 'x = 1\n' })
  const c = await connect({ roots: () => [uri(dir), 'https://example.com/y'] })
  try {
    const r = await c.call('patch_file', { file_path: 'a.txt', search_block: 'x = 1', replace_block: 'x = 2' })
    assert.equal(r.ok, true, JSON.stringify(r))
    assert.equal(read(path.join(dir, 'a.txt')), 'x = 2\n')
    assert.match(c.stderr(), /client root left out: https:\/\/example\.com\/y is not a file:\/\/ URI/)
  } finally {
    await c.client.close()
  }
})
