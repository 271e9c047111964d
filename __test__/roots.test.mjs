// One meaning of the workspace root in every entry point (JS API, CLI, MCP
// server): the root string is resolved physically (symlinks followed, `..`
// applied to where they lead), the server and CLI resolve it once at start,
// and an I/O error opening the root is reported as one (FILE_READ_ERROR, CLI
// exit 3), not as bad input.
import './helpers/private-state.mjs'
import { test, afterEach } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { readFile, patchFileSync } from '../index.mjs'
import { BIN, ROOT, tempDir, cleanEnv, rawServer, killAll } from './helpers/mcp-raw.mjs'

afterEach(killAll)

const T = { timeout: 60_000 }
const LINUX = process.platform === 'linux'

function cli(args, { cwd, input = '', env = cleanEnv() } = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, input, env, encoding: 'utf8', timeout: 30_000 })
  if (r.error) throw r.error
  return { status: r.status, stdout: r.stdout, stderr: r.stderr }
}

/** Runs a shell line with "$@" = node args (for ulimit); returns {status, stdout, stderr}. */
function shNode(shell, nodeArgs, { input = '', env = cleanEnv(), cwd } = {}) {
  const r = spawnSync('sh', ['-c', `${shell} && exec "$0" "$@"`, process.execPath, ...nodeArgs], { input, env, cwd, encoding: 'utf8', timeout: 60_000 })
  if (r.error) throw r.error
  return { status: r.status, stdout: r.stdout, stderr: r.stderr }
}

async function mcpRead(args, file, { cwd, env } = {}) {
  const s = rawServer({ args, cwd, env })
  await s.initialize()
  s.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'read_file', arguments: { file_path: file } } })
  const r = await s.response(1)
  s.child.stdin.end()
  await s.exit
  return { result: JSON.parse(r.result.content[0].text), stderr: s.stderr }
}

/**
 * base/A/f.txt ("A"), base/A/sub/, base/X/f.txt ("X"), base/X/link -> ../A/sub.
 * `X/link/..` is A physically (the parent of where the link leads), X lexically.
 */
function dotDotLayout() {
  const base = tempDir('pft-roots-')
  fs.mkdirSync(path.join(base, 'A', 'sub'), { recursive: true })
  fs.mkdirSync(path.join(base, 'X'))
  fs.writeFileSync(path.join(base, 'A', 'f.txt'), 'A\n')
  fs.writeFileSync(path.join(base, 'X', 'f.txt'), 'X\n')
  fs.symlinkSync('../A/sub', path.join(base, 'X', 'link'))
  return base
}

test('the same root string with `..` after a symlink sandboxes the same directory in the API, the CLI and MCP', T, async () => {
  const base = dotDotLayout()
  const A = path.join(base, 'A')
  for (const [root, cwd] of [
    [path.join(base, 'X', 'link') + '/..', base],
    ['X/link/..', base],
  ]) {
    // The API resolves a relative root against the process's cwd.
    const here = process.cwd()
    process.chdir(cwd)
    let api
    try {
      api = await readFile({ file_path: 'f.txt' }, { workspaceRoot: root })
    } finally {
      process.chdir(here)
    }
    assert.equal(api.content, 'A\n', `API ${root}`)
    assert.equal(api.file_path, path.join(A, 'f.txt'))

    const c = cli(['call', 'read_file', '--root', root], { cwd, input: '{"file_path":"f.txt"}' })
    assert.equal(c.status, 0, c.stderr)
    const cr = JSON.parse(c.stdout)
    assert.equal(cr.content, 'A\n', `CLI ${root}`)
    assert.equal(cr.file_path, path.join(A, 'f.txt'))

    const env = cli(['call', 'read_file'], { cwd, input: '{"file_path":"f.txt"}', env: cleanEnv({ PATCH_FILE_WORKSPACE_ROOT: root }) })
    assert.equal(JSON.parse(env.stdout).content, 'A\n', `CLI env ${root}`)

    const m = await mcpRead(['--root', root], 'f.txt', { cwd })
    assert.equal(m.result.content, 'A\n', `MCP ${root}`)
    // MCP results name files relative to the root (its content shows which directory it is).
    assert.equal(m.result.file_path, 'f.txt')
    // The server names the directory it sandboxes.
    assert.ok(m.stderr.includes(`workspace root ${A}`), m.stderr)
  }
})

test('a root that is a symlink sandboxes its target in the API, the CLI and MCP', T, async () => {
  const base = dotDotLayout()
  const link = path.join(base, 'toA')
  fs.symlinkSync('A', link)
  const api = await readFile({ file_path: 'f.txt' }, { workspaceRoot: link })
  assert.equal(api.file_path, path.join(base, 'A', 'f.txt'))
  const c = JSON.parse(cli(['call', 'read_file', '--root', link], { input: '{"file_path":"f.txt"}' }).stdout)
  assert.equal(c.file_path, path.join(base, 'A', 'f.txt'))
  const m = await mcpRead(['--root', link], 'f.txt')
  assert.equal(m.result.content, 'A\n')
  assert.equal(m.result.file_path, 'f.txt')
  assert.ok(m.stderr.includes(`workspace root ${path.join(base, 'A')}`), m.stderr)
})

test('retargeting the root symlink while the server runs does not move its workspace', T, async () => {
  const base = tempDir('pft-roots-')
  for (const d of ['one', 'two']) {
    fs.mkdirSync(path.join(base, d))
    fs.writeFileSync(path.join(base, d, 'f.txt'), `${d}\n`)
  }
  const cur = path.join(base, 'cur')
  fs.symlinkSync('one', cur)
  const s = rawServer({ args: ['--root', cur] })
  await s.initialize()
  s.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'read_file', arguments: { file_path: 'f.txt' } } })
  assert.equal((await s.result(1)).content, 'one\n')

  // Point the root symlink elsewhere (atomically, as a deploy would).
  fs.symlinkSync('two', path.join(base, 'cur.new'))
  fs.renameSync(path.join(base, 'cur.new'), cur)
  assert.equal(fs.readFileSync(path.join(cur, 'f.txt'), 'utf8'), 'two\n')

  s.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'write_file', arguments: { file_path: 'f.txt', content: 'changed\n' } } })
  const w = await s.result(2)
  assert.equal(w.ok, true, JSON.stringify(w))
  assert.equal(w.file_path, 'f.txt')
  s.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'read_file', arguments: { file_path: 'f.txt' } } })
  assert.equal((await s.result(3)).content, 'changed\n')
  s.child.stdin.end()
  assert.equal((await s.exit).code, 0)
  assert.equal(fs.readFileSync(path.join(base, 'one', 'f.txt'), 'utf8'), 'changed\n')
  assert.equal(fs.readFileSync(path.join(base, 'two', 'f.txt'), 'utf8'), 'two\n')
})

test('`/` as the workspace root works but warns on stderr (CLI and MCP)', T, () => {
  const c = cli(['call', 'read_file', '--root', '/'], { input: '{"file_path":"pft-no-such-file-here"}' })
  assert.match(c.stderr, /warning: the workspace root is \//)
  assert.equal(JSON.parse(c.stdout).code, 'FILE_READ_ERROR')
  const m = spawnSync(process.execPath, [BIN], { env: cleanEnv({ PATCH_FILE_WORKSPACE_ROOT: '/' }), input: '', encoding: 'utf8', timeout: 30_000 })
  assert.equal(m.status, 0, m.stderr)
  assert.match(m.stderr, /warning: the workspace root is \//)
  // Not for an ordinary root.
  assert.doesNotMatch(cli(['call', 'read_file', '--root', tempDir()], { input: '{"file_path":"x"}' }).stderr, /warning/)
})

// ---------------------------------------------------------------------------
// I/O errors opening the root

test('JS API: EMFILE while opening the root is FILE_READ_ERROR naming the OS error, not INVALID_INPUT', { ...T, skip: LINUX ? false : 'Linux only' }, () => {
  const dir = tempDir()
  fs.writeFileSync(path.join(dir, 'f.txt'), 'a\n')
  const script = `
    import fs from 'node:fs'
    import { patchFileSync, readFile } from ${JSON.stringify(path.join(ROOT, 'index.mjs'))}
    const o = { workspaceRoot: ${JSON.stringify(dir)} }
    const fds = []
    try { for (;;) fds.push(fs.openSync('/dev/null', 'r')) } catch (e) { if (e.code !== 'EMFILE') throw e }
    const sync = patchFileSync({ file_path: 'f.txt', search_block: 'a', replace_block: 'b' }, o)
    const async_ = await readFile({ file_path: 'f.txt' }, o)
    for (const fd of fds) fs.closeSync(fd)
    const after = await readFile({ file_path: 'f.txt' }, o)
    console.log(JSON.stringify({ sync, async_, after }))
  `
  const r = shNode('ulimit -n 256', ['--input-type=module', '-e', script])
  assert.equal(r.status, 0, r.stderr)
  const { sync, async_, after } = JSON.parse(r.stdout)
  for (const x of [sync, async_]) {
    assert.equal(x.code, 'FILE_READ_ERROR', JSON.stringify(x))
    assert.match(x.message, /Too many open files|EMFILE/)
  }
  assert.equal(after.ok, true)
  assert.equal(after.content, 'a\n')
})

/** A preload that exhausts the process's file descriptors around its first N engine calls. */
function emfilePreload() {
  const file = path.join(tempDir(), 'emfile-preload.cjs')
  fs.writeFileSync(
    file,
    `const fs = require('node:fs')
const engine = require(${JSON.stringify(path.join(ROOT, 'js', 'engine.js'))})
const run = engine.run
let armed = Number(process.env.PFT_TEST_EMFILE_CALLS || 1)
engine.run = function (tool, args, options) {
  if (armed <= 0) return run.call(this, tool, args, options)
  armed--
  engine.warm()
  const fds = []
  try { for (;;) fds.push(fs.openSync('/dev/null', 'r')) } catch {}
  const release = () => { for (const fd of fds) fs.closeSync(fd) }
  let p
  try { p = run.call(this, tool, args, options) } catch (e) { release(); throw e }
  return Promise.resolve(p).finally(release)
}
`,
  )
  return file
}

test('CLI: EMFILE while opening the root is FILE_READ_ERROR with exit 3 (an I/O error), not exit 2', { ...T, skip: LINUX ? false : 'Linux only' }, () => {
  const dir = tempDir()
  fs.writeFileSync(path.join(dir, 'f.txt'), 'a\n')
  const r = shNode('ulimit -n 256', ['-r', emfilePreload(), BIN, 'call', 'read_file', '--root', dir], { input: '{"file_path":"f.txt"}' })
  const out = JSON.parse(r.stdout)
  assert.equal(out.code, 'FILE_READ_ERROR', r.stdout)
  assert.match(out.message, /Too many open files|EMFILE/)
  assert.equal(r.status, 3)
})

test('MCP: EMFILE while opening the root is FILE_READ_ERROR; the next call works', { ...T, skip: LINUX ? false : 'Linux only' }, async () => {
  const dir = tempDir()
  fs.writeFileSync(path.join(dir, 'f.txt'), 'a\n')
  const preload = emfilePreload()
  const s = rawServer({ args: ['--root', dir], env: cleanEnv({ NODE_OPTIONS: `-r ${preload}` }) })
  await s.initialize()
  s.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'read_file', arguments: { file_path: 'f.txt' } } })
  const first = await s.result(1)
  assert.equal(first.code, 'FILE_READ_ERROR', JSON.stringify(first))
  assert.match(first.message, /Too many open files|EMFILE/)
  s.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'read_file', arguments: { file_path: 'f.txt' } } })
  assert.equal((await s.result(2)).content, 'a\n')
  s.child.stdin.end()
  assert.equal((await s.exit).code, 0)
})

test('a root deleted under a running server is FILE_READ_ERROR (an I/O error), not INVALID_INPUT', T, async () => {
  const base = tempDir()
  const dir = path.join(base, 'ws')
  fs.mkdirSync(dir)
  const s = rawServer({ args: ['--root', dir] })
  await s.initialize()
  fs.rmdirSync(dir)
  s.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'write_file', arguments: { file_path: 'f.txt', content: 'x' } } })
  const r = await s.result(1)
  assert.equal(r.code, 'FILE_READ_ERROR', JSON.stringify(r))
  assert.match(r.message, /No such file or directory|ENOENT/)
  s.child.stdin.end()
  assert.equal((await s.exit).code, 0)
  assert.equal(fs.existsSync(dir), false)
})

test('JS API: a missing root or a symlink loop is FILE_READ_ERROR; a root that is a file stays INVALID_INPUT', T, async () => {
  const base = tempDir()
  fs.writeFileSync(path.join(base, 'file'), 'x')
  fs.symlinkSync('loop2', path.join(base, 'loop1'))
  fs.symlinkSync('loop1', path.join(base, 'loop2'))
  const input = { file_path: 'f.txt', search_block: 'a', replace_block: 'b' }
  assert.equal(patchFileSync(input, { workspaceRoot: path.join(base, 'missing') }).code, 'FILE_READ_ERROR')
  assert.equal((await readFile({ file_path: 'f.txt' }, { workspaceRoot: path.join(base, 'missing') })).code, 'FILE_READ_ERROR')
  assert.equal(patchFileSync(input, { workspaceRoot: path.join(base, 'loop1') }).code, 'FILE_READ_ERROR')
  assert.equal(patchFileSync(input, { workspaceRoot: path.join(base, 'file') }).code, 'INVALID_INPUT')
  assert.equal(patchFileSync(input, { workspaceRoot: '' }).code, 'INVALID_INPUT')
})

test('CLI: a root that does not exist or is not a directory is a usage error (exit 2); one that cannot be opened is an I/O error (exit 3)', T, () => {
  const base = tempDir()
  fs.writeFileSync(path.join(base, 'file'), 'x')
  fs.symlinkSync('loop2', path.join(base, 'loop1'))
  fs.symlinkSync('loop1', path.join(base, 'loop2'))
  const input = '{"file_path":"f.txt"}'
  const missing = cli(['call', 'read_file', '--root', path.join(base, 'missing')], { input })
  assert.equal(missing.status, 2)
  assert.match(missing.stderr, /does not exist/)
  const file = cli(['call', 'read_file', '--root', path.join(base, 'file')], { input })
  assert.equal(file.status, 2)
  assert.match(file.stderr, /not a directory/)
  const loop = cli(['call', 'read_file', '--root', path.join(base, 'loop1')], { input })
  assert.equal(loop.status, 3, loop.stderr)
  assert.match(loop.stderr, /FILE_READ_ERROR: .*ELOOP|FILE_READ_ERROR: .*symbolic links/)
})
