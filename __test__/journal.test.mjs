// The edit journal from JavaScript: history/undo through the API (typed,
// never throwing), through the MCP SDK client, and the CLI's history /
// undo / journal clear with their exit codes.
import './helpers/private-state.mjs'
import { test, afterEach } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { createRequire } from 'node:module'
import fs from 'node:fs'
import path from 'node:path'
import { withClient as withMcpClient } from './helpers/mcp-client.mjs'
import { BIN, tempDir, cleanEnv, killAll } from './helpers/mcp-raw.mjs'
import { consumerProject, tsc } from './helpers/typescript.mjs'

const require = createRequire(import.meta.url)
const api = require('../index.js')

afterEach(killAll)
const T = { timeout: 60_000 }

function workspace(files) {
  const dir = tempDir('pft-journal-')
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), content)
  return dir
}
const read = (dir, name) => fs.readFileSync(path.join(dir, name), 'utf8')

test('API: history lists a patch and undo puts it back; bad input is a result, never a throw', async () => {
  const dir = workspace({ 'a.txt': 'one\ntwo\n' })
  const jdir = tempDir('pft-jstate-')
  const options = { workspaceRoot: dir, journal: jdir }
  assert.equal((await api.patchFile({ file_path: 'a.txt', search: 'two', replace: 'TWO' }, options)).ok, true)
  const h = await api.history({}, options)
  assert.equal(h.ok, true)
  assert.ok(h.journal.startsWith(jdir) && !h.journal.startsWith(dir))
  assert.equal(h.transactions.length, 1)
  const t = h.transactions[0]
  assert.equal(t.entry_point, 'patchFile')
  assert.deepEqual(t.files, [{ file_path: 'a.txt', kind: 'modified', added: 1, removed: 1 }])
  const d = await api.undo({ dry_run: true }, options)
  assert.equal(d.ok, true)
  assert.match(d.diff, /-TWO\n\+two\n/)
  assert.equal(read(dir, 'a.txt'), 'one\nTWO\n')
  const u = await api.undo({ id: t.id }, options)
  assert.equal(u.ok, true)
  assert.equal(u.undone, t.id)
  assert.equal(read(dir, 'a.txt'), 'one\ntwo\n')
  // Redo by undoing the undo.
  const r = await api.undo(u.id, options)
  assert.equal(r.ok, true)
  assert.equal(r.redo, true)
  assert.equal(read(dir, 'a.txt'), 'one\nTWO\n')
  // Never throws.
  for (const bad of [{ id: 'nope' }, { id: '99999' }, { limit: 1 }, 42n]) {
    const v = await api.undo(bad, options)
    assert.equal(v.ok, false)
    assert.equal(v.code, 'INVALID_INPUT')
  }
  assert.equal((await api.history({ limit: 0 }, options)).code, 'INVALID_INPUT')
  assert.equal((await api.history({}, { workspaceRoot: dir, journal: 7 })).code, 'INVALID_INPUT')
})

test('API: undo refuses with FILE_CHANGED naming the file changed since, writing nothing', async () => {
  const dir = workspace({ 'a.txt': 'a\n', 'b.txt': 'b\n' })
  const options = { workspaceRoot: dir, journal: tempDir('pft-jstate-') }
  const b = await api.batchPatchFiles({ files: [{ file_path: 'a.txt', search: 'a', replace: 'A' }, { file_path: 'b.txt', search: 'b', replace: 'B' }] }, options)
  assert.equal(b.ok, true)
  fs.writeFileSync(path.join(dir, 'a.txt'), 'edited by hand\n')
  const u = await api.undo({}, options)
  assert.equal(u.ok, false)
  assert.equal(u.code, 'FILE_CHANGED')
  assert.deepEqual(u.files_changed, [path.join(dir, 'a.txt')])
  assert.equal(read(dir, 'b.txt'), 'B\n')
  assert.equal(read(dir, 'a.txt'), 'edited by hand\n')
})

test('API: journal: false records nothing', async () => {
  const dir = workspace({ 'a.txt': 'a\n' })
  const jdir = tempDir('pft-jstate-')
  assert.equal((await api.patchFile({ file_path: 'a.txt', search: 'a', replace: 'b' }, { workspaceRoot: dir, journal: false })).ok, true)
  assert.deepEqual((await api.history({}, { workspaceRoot: dir, journal: jdir })).transactions, [])
})

/** The SDK client on a server listing every tool with its output schema (helpers/mcp-client.mjs validates each result). */
function withClient(env, dir, fn) {
  return withMcpClient({ args: ['--root', dir], env, name: 'journal-test' }, fn)
}

test('MCP: history and undo through the SDK client, across a server restart', T, async () => {
  const dir = workspace({ 'm.txt': 'x = 1\n' })
  const env = cleanEnv({ PATCH_FILE_JOURNAL: tempDir('pft-jstate-') })
  await withClient(env, dir, async (client) => {
    const { tools } = await client.listTools()
    for (const name of ['history', 'undo']) assert.ok(tools.some((t) => t.name === name), name)
    assert.equal(tools.find((t) => t.name === 'history').annotations.readOnlyHint, true)
    const r = await client.callTool({ name: 'patch_file', arguments: { file_path: 'm.txt', search_block: 'x = 1', replace_block: 'x = 2' } })
    assert.equal(r.isError, false)
  })
  // A new server process reads the same journal.
  await withClient(env, dir, async (client) => {
    const h = await client.callTool({ name: 'history', arguments: { limit: 5 } })
    assert.equal(h.isError, false)
    assert.equal(h.structuredContent.transactions.length, 1)
    const id = h.structuredContent.transactions[0].id
    const u = await client.callTool({ name: 'undo', arguments: { id } })
    assert.equal(u.isError, false, JSON.stringify(u.structuredContent))
    assert.equal(u.structuredContent.undone, id)
    assert.equal(read(dir, 'm.txt'), 'x = 1\n')
    const again = await client.callTool({ name: 'undo', arguments: { id } })
    assert.equal(again.isError, true)
    assert.equal(again.structuredContent.code, 'INVALID_INPUT')
  })
})

test('MCP: a forged journal entry inside the workspace is answered as damaged; the server lives on', T, async () => {
  const dir = workspace({ 'f.txt': 'one\n' })
  // The journal inside the workspace: the agent can write its files.
  const env = cleanEnv({ PATCH_FILE_JOURNAL: path.join(dir, '.journal') })
  await withClient(env, dir, async (client) => {
    const r = await client.callTool({ name: 'patch_file', arguments: { file_path: 'f.txt', search_block: 'one', replace_block: 'two' } })
    assert.equal(r.isError, false)
    const jdir = path.join(dir, '.journal', fs.readdirSync(path.join(dir, '.journal'))[0])
    const name = fs.readdirSync(jdir).find((n) => n.endsWith('.entry'))
    const bytes = fs.readFileSync(path.join(jdir, name))
    const nl = bytes.indexOf(10)
    const line = bytes.subarray(0, nl).toString('utf8')
    // A well-formed forgery (its check, if any, recomputed) whose saved content claims 2^40 bytes.
    const at = line.lastIndexOf(',"check":"')
    const header = JSON.parse(at >= 0 ? line.slice(0, at) + '}' : line)
    header.files[0].blob = [0, 2 ** 40]
    const json = JSON.stringify(header)
    const check = createHash('sha256').update(json).digest('hex')
    const head = at >= 0 ? `${json.slice(0, -1)},"check":"${check}"}` : json
    const forged = `${head}\n` + bytes.subarray(nl + 1).toString('latin1')
    const w = await client.callTool({ name: 'write_file', arguments: { file_path: path.relative(dir, path.join(jdir, name)), content: forged } })
    assert.equal(w.isError, false, JSON.stringify(w.structuredContent))
    const u = await client.callTool({ name: 'undo', arguments: { id: header.id } })
    assert.equal(u.isError, true)
    assert.equal(u.structuredContent.code, 'JOURNAL_DAMAGED')
    assert.equal(read(dir, 'f.txt'), 'two\n')
    const h = await client.callTool({ name: 'history', arguments: { limit: 10 } })
    assert.equal(h.isError, false)
    const t = h.structuredContent.transactions.find((x) => x.id === header.id)
    assert.equal(t.damaged, true)
    assert.equal(t.undoable, false)
  })
})

function cli(args, { cwd, env }) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, env, encoding: 'utf8', timeout: 30_000 })
  if (r.error) throw r.error
  return r
}

test('CLI: history, undo [ID] and journal clear, with their exit codes', T, () => {
  const dir = workspace({ 'c.txt': 'alpha\n' })
  const env = cleanEnv({ PATCH_FILE_JOURNAL: tempDir('pft-jstate-') })
  assert.equal(cli(['patch', 'c.txt', '--search', 'alpha', '--replace', 'beta'], { cwd: dir, env }).status, 0)
  const h = cli(['history'], { cwd: dir, env })
  assert.equal(h.status, 0, h.stderr)
  assert.match(h.stdout, /^1 {2}\S+Z {2}patchFile\n {4}modified c\.txt \+1 -1\n$/)
  const hj = JSON.parse(cli(['history', 'c.txt', '--json'], { cwd: dir, env }).stdout)
  assert.equal(hj.transactions.length, 1)
  const dry = cli(['undo', '--dry-run'], { cwd: dir, env })
  assert.equal(dry.status, 0, dry.stderr)
  assert.match(dry.stdout, /-beta\n\+alpha\n/)
  assert.equal(read(dir, 'c.txt'), 'beta\n')
  // Changed since: exit 1, FILE_CHANGED, nothing written.
  fs.writeFileSync(path.join(dir, 'c.txt'), 'gamma\n')
  const refused = cli(['undo', '1'], { cwd: dir, env })
  assert.equal(refused.status, 1)
  assert.match(refused.stderr, /FILE_CHANGED/)
  assert.equal(read(dir, 'c.txt'), 'gamma\n')
  fs.writeFileSync(path.join(dir, 'c.txt'), 'beta\n')
  const u = cli(['undo', '1'], { cwd: dir, env })
  assert.equal(u.status, 0, u.stderr)
  assert.match(u.stdout, /undid transaction 1 \(as transaction 2/)
  assert.equal(read(dir, 'c.txt'), 'alpha\n')
  // Unknown id and usage errors: exit 2.
  assert.equal(cli(['undo', '77'], { cwd: dir, env }).status, 2)
  assert.equal(cli(['undo', '1', '2'], { cwd: dir, env }).status, 2)
  assert.equal(cli(['history', '--limit', 'x'], { cwd: dir, env }).status, 2)
  assert.equal(cli(['journal', 'wipe'], { cwd: dir, env }).status, 2)
  const c = cli(['journal', 'clear'], { cwd: dir, env })
  assert.equal(c.status, 0, c.stderr)
  assert.match(c.stdout, /removed 2 journaled transactions/)
  assert.match(cli(['history'], { cwd: dir, env }).stdout, /no journaled transactions/)
  // PATCH_FILE_JOURNAL=off: nothing recorded.
  const off = cleanEnv({ PATCH_FILE_JOURNAL: 'off' })
  assert.equal(cli(['patch', 'c.txt', '--search', 'alpha', '--replace', 'x'], { cwd: dir, env: off }).status, 0)
  assert.match(cli(['history'], { cwd: dir, env }).stdout, /no journaled transactions/)
})

test('PATCH_FILE_JOURNAL set to a word or a relative path: each API call is INVALID_INPUT, nothing written, no directory made under the cwd', () => {
  const dir = tempDir('pft-jrel-')
  fs.writeFileSync(path.join(dir, 'a.txt'), 'one\n')
  const script = `const api = require(${JSON.stringify(path.resolve('index.js'))})
api.patchFile({ file_path: 'a.txt', search: 'one', replace: 'two' }, { workspaceRoot: process.cwd() })
  .then((r) => process.stdout.write(JSON.stringify(r)))`
  for (const value of ['disabled', 'journal-dir']) {
    const r = spawnSync(process.execPath, ['-e', script], { cwd: dir, env: cleanEnv({ PATCH_FILE_JOURNAL: value }), encoding: 'utf8' })
    assert.equal(r.status, 0, r.stderr)
    const out = JSON.parse(r.stdout)
    assert.equal(out.code, 'INVALID_INPUT', r.stdout)
    assert.match(out.message, /PATCH_FILE_JOURNAL must be off, on or an absolute directory/)
    assert.deepEqual(fs.readdirSync(dir), ['a.txt'])
    assert.equal(fs.readFileSync(path.join(dir, 'a.txt'), 'utf8'), 'one\n')
  }
})

test('a relative PATCH_FILE_STATE_DIR is INVALID_INPUT, nothing made under the cwd; a relative XDG_STATE_HOME is ignored', () => {
  const dir = tempDir('pft-srel-')
  fs.writeFileSync(path.join(dir, 'a.txt'), 'password=hunter2\n')
  const script = `const api = require(${JSON.stringify(path.resolve('index.js'))})
api.patchFile({ file_path: 'a.txt', search: 'hunter2', replace: 'x' }, { workspaceRoot: process.cwd() })
  .then((r) => process.stdout.write(JSON.stringify(r)))`
  for (const value of ['.pft/state', '.pft-state']) {
    const r = spawnSync(process.execPath, ['-e', script], { cwd: dir, env: cleanEnv({ PATCH_FILE_STATE_DIR: value }), encoding: 'utf8' })
    assert.equal(r.status, 0, r.stderr)
    const out = JSON.parse(r.stdout)
    assert.equal(out.code, 'INVALID_INPUT', r.stdout)
    assert.match(out.message, /PATCH_FILE_STATE_DIR must be an absolute directory/)
    assert.deepEqual(fs.readdirSync(dir), ['a.txt'])
    assert.equal(fs.readFileSync(path.join(dir, 'a.txt'), 'utf8'), 'password=hunter2\n')
  }
  // XDG_STATE_HOME relative: the state goes to $HOME/.local/state (a temp
  // HOME here), never under the cwd.
  const home = tempDir('pft-shome-')
  const env = cleanEnv({ HOME: home, XDG_STATE_HOME: '.xdg' })
  delete env.PATCH_FILE_STATE_DIR
  const r = spawnSync(process.execPath, ['-e', script], { cwd: dir, env, encoding: 'utf8' })
  assert.equal(JSON.parse(r.stdout).ok, true, r.stdout + r.stderr)
  assert.deepEqual(fs.readdirSync(dir), ['a.txt'])
  assert.ok(fs.existsSync(path.join(home, '.local', 'state', 'patch-file-tool', 'journal')))
})

test('types: a consumer tells damaged entries apart under tsc --strict', () => {
  const text = `import { history, undo, type HistoryTransaction, type DamagedTransaction, type JournalDamage } from 'patch-file-tool'
export async function main(): Promise<string[]> {
  const h = await history({ limit: 5 }, { workspaceRoot: '.' })
  const out: string[] = []
  if (!h.ok) return [h.code]
  for (const t of h.transactions) {
    if (t.damaged) {
      const d: DamagedTransaction = t
      const why: JournalDamage = d.damage
      out.push(why, d.why_not_undoable)
    } else {
      const w: HistoryTransaction = t
      out.push(w.time, w.entry_point, ...w.files.map((f) => \`\${f.kind} \${f.added + f.removed}\`))
    }
  }
  const u = await undo({}, { workspaceRoot: '.' })
  if (!u.ok && u.code === 'JOURNAL_DAMAGED') out.push(u.message)
  return out
}
`
  const r = tsc(consumerProject({ 'journal.mts': text }))
  assert.equal(r.status, 0, r.output)
})

test('a journal whose totals fell behind its entries (a state file restored or edited) never deletes an entry it did not write', async () => {
  const W = tempDir('pft-jstate-rewound-')
  const o = { workspaceRoot: W, durable: false }
  for (const f of ['a', 'b', 'c', 'd', 'e', 'f']) fs.writeFileSync(path.join(W, `${f}.txt`), `${f} v0\n`)
  const { patchFile, history, undo } = require('../index.js')
  for (const f of ['a', 'b', 'c', 'd']) assert.equal((await patchFile({ file_path: `${f}.txt`, search_block: 'v0', replace_block: 'v1' }, o)).ok, true)
  const h = await history({}, o)
  const entries = () => fs.readdirSync(h.journal).filter((n) => n.endsWith('.entry')).sort()
  const before = entries()
  assert.equal(before.length, 4)
  // The next id the state says is 2: the same-sized entry of e.txt's edit would take transaction 2's name.
  fs.writeFileSync(path.join(h.journal, 'state'), '2 1 100'.padEnd(63) + '\n')
  const r = await patchFile({ file_path: 'e.txt', search_block: 'v0', replace_block: 'v1' }, o)
  assert.equal(r.ok, true)
  assert.equal(fs.readFileSync(path.join(W, 'e.txt'), 'utf8'), 'e v1\n')
  for (const n of before) assert.ok(entries().includes(n), `${n} was deleted: ${entries()}`)
  // The totals are counted again: the next edit is journaled under a new id, and transaction 2 is still undone.
  const next = await patchFile({ file_path: 'f.txt', search_block: 'v0', replace_block: 'v1' }, o)
  assert.equal(next.ok, true)
  assert.deepEqual(next.warnings ?? [], [])
  const listed = (await history({}, o)).transactions
  assert.ok(listed.every((t) => !t.damaged), JSON.stringify(listed))
  assert.equal(listed[0].files[0].file_path, 'f.txt')
  const u = await undo({ id: '2' }, o)
  assert.equal(u.ok, true, JSON.stringify(u))
  assert.equal(fs.readFileSync(path.join(W, 'b.txt'), 'utf8'), 'b v0\n')
})

test('undo while another process holds the journal\'s lock answers FILE_LOCKED (retryable), nothing undone; undone once it is free', { skip: spawnSync('flock', ['--version']).error && 'flock(1) is not installed' }, async () => {
  const W = tempDir('pft-jlock-')
  fs.writeFileSync(path.join(W, 'a.txt'), 'one\n')
  const { patchFile, history, undo } = require('../index.js')
  const o = { workspaceRoot: W, durable: false, lockWaitMs: 300 }
  assert.equal((await patchFile({ file_path: 'a.txt', search_block: 'one', replace_block: 'two' }, o)).ok, true)
  const lock = path.join((await history({}, o)).journal, 'lock')
  const holder = spawn('flock', [lock, 'sh', '-c', 'read x'], { stdio: ['pipe', 'ignore', 'inherit'] })
  const exited = new Promise((r) => holder.on('exit', r))
  try {
    for (let i = 0; spawnSync('flock', ['-n', lock, 'true']).status === 0; i++) {
      assert.ok(i < 500, 'the holder took the lock')
      await new Promise((r) => setTimeout(r, 10))
    }
    const u = await undo({}, o)
    assert.equal(u.code, 'FILE_LOCKED', JSON.stringify(u))
    assert.equal(fs.readFileSync(path.join(W, 'a.txt'), 'utf8'), 'two\n')
  } finally {
    holder.stdin.end()
    await exited
  }
  assert.equal((await undo({}, o)).ok, true)
  assert.equal(fs.readFileSync(path.join(W, 'a.txt'), 'utf8'), 'one\n')
})
