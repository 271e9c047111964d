// The CLI, through the real bin: every exit code, --json, text read from
// files kept byte for byte, and the workspace root rule.
import './helpers/private-state.mjs'
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { BIN, ROOT, tempDir, cleanEnv } from './helpers/mcp-raw.mjs'

const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'))

/** Runs the bin; returns {status, stdout, stderr}. */
function cli(args, { cwd, input, env = cleanEnv() } = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, input, env, encoding: 'utf8', timeout: 30_000 })
  if (r.error) throw r.error
  return { status: r.status, stdout: r.stdout, stderr: r.stderr }
}

function workspace(files) {
  const dir = tempDir('pft-cli-')
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true })
    fs.writeFileSync(path.join(dir, name), content)
  }
  return dir
}

const read = (dir, name) => fs.readFileSync(path.join(dir, name))

test('package.json bin: patch-file-tool and patch-file-mcp both run the bin', () => {
  assert.equal(pkg.bin['patch-file-tool'], 'bin/patch-file-tool.js')
  assert.equal(pkg.bin['patch-file-mcp'], 'bin/patch-file-tool.js')
  assert.ok(fs.readFileSync(BIN, 'utf8').startsWith('#!/usr/bin/env node\n'))
  assert.ok(pkg.files.includes('bin/') && pkg.files.includes('js/'))
  assert.ok(pkg.dependencies['@modelcontextprotocol/sdk'])
})

test('--help, --version and patch --help exit 0', () => {
  const h = cli(['--help'])
  assert.equal(h.status, 0)
  for (const s of ['patch', 'call', 'PATCH_FILE_WORKSPACE_ROOT', 'Exit codes', '3  I/O error']) assert.ok(h.stdout.includes(s), s)
  const v = cli(['--version'])
  assert.equal(v.status, 0)
  assert.equal(v.stdout, `${pkg.version}\n`)
  const p = cli(['patch', '--help'])
  assert.equal(p.status, 0)
  assert.match(p.stdout, /--search-file F/)
  // --match lists every tolerance the engine knows (the contract's names).
  const help = p.stdout.replace(/\s+/g, ' ')
  for (const t of JSON.parse(fs.readFileSync(path.join(ROOT, 'schemas/results.json'), 'utf8')).$defs.Tolerance.enum) assert.ok(help.includes(` ${t}`), t)
  assert.match(cli(['call', '-h']).stdout, /write_file/)
})

test('exit 0: patch FILE --search --replace prints the line number and edits the file', () => {
  const dir = workspace({ 'src/config.ts': 'a\nb\nexport const retries = 2;\n' })
  const r = cli(['patch', 'src/config.ts', '--search', 'retries = 2;', '--replace', 'retries = 3;'], { cwd: dir })
  assert.equal(r.status, 0, r.stderr)
  assert.equal(r.stdout, 'patched src/config.ts:3 (1 replacement)\n')
  assert.equal(r.stderr, '')
  assert.equal(read(dir, 'src/config.ts').toString(), 'a\nb\nexport const retries = 3;\n')
})

test('--search-file/--replace-file keep CRLF and trailing newlines exactly', () => {
  const original = 'head\r\nold line 1\r\nold line 2\r\n\r\ntail\n'
  const dir = workspace({ 'crlf.txt': original })
  const aside = tempDir('pft-cli-text-')
  fs.writeFileSync(path.join(aside, 'search'), 'old line 1\r\nold line 2\r\n\r\n')
  fs.writeFileSync(path.join(aside, 'replace'), 'new\r\n\n\r\n\r\n')
  const r = cli(['patch', 'crlf.txt', '--search-file', path.join(aside, 'search'), '--replace-file', path.join(aside, 'replace')], { cwd: dir })
  assert.equal(r.status, 0, r.stderr)
  assert.equal(r.stdout, 'patched crlf.txt:2 (1 replacement)\n')
  assert.deepEqual(read(dir, 'crlf.txt'), Buffer.from('head\r\nnew\r\n\n\r\n\r\ntail\n'))

  // A trailing newline that the file lacks there is a miss, not a fuzzy match.
  fs.writeFileSync(path.join(aside, 'search2'), 'tail\n\n')
  const miss = cli(['patch', 'crlf.txt', '--search-file', path.join(aside, 'search2'), '--replace', 'x'], { cwd: dir })
  assert.equal(miss.status, 1)
  assert.match(miss.stderr, /SEARCH_BLOCK_NOT_FOUND/)

  // --replace-file - reads the replacement from stdin, bytes kept.
  const viaStdin = cli(['patch', 'crlf.txt', '--search', 'tail\n', '--replace-file', '-'], { cwd: dir, input: 'end\r\n\r\n' })
  assert.equal(viaStdin.status, 0, viaStdin.stderr)
  assert.deepEqual(read(dir, 'crlf.txt'), Buffer.from('head\r\nnew\r\n\n\r\n\r\nend\r\n\r\n'))
})

test('exit 1: refused by the engine (not found, ambiguous, outside the workspace, binary); code and message on stderr', () => {
  const outer = tempDir('pft-cli-outer-')
  const dir = path.join(outer, 'ws')
  fs.mkdirSync(dir)
  fs.writeFileSync(path.join(dir, 'f.txt'), 'x\nx\n')
  fs.writeFileSync(path.join(dir, 'b.bin'), Buffer.from([0, 1, 2, 120]))
  fs.writeFileSync(path.join(outer, 'secret.txt'), 'x\n')

  const nf = cli(['patch', 'f.txt', '--search', 'y', '--replace', 'z'], { cwd: dir })
  assert.equal(nf.status, 1)
  assert.equal(nf.stdout, '')
  assert.match(nf.stderr, /^patch-file-tool: SEARCH_BLOCK_NOT_FOUND: .+/)

  const amb = cli(['patch', 'f.txt', '--search', 'x', '--replace', 'z'], { cwd: dir })
  assert.equal(amb.status, 1)
  assert.match(amb.stderr, /SEARCH_BLOCK_AMBIGUOUS: .+\n {2}matches start at lines 1, 2\n/)

  const out = cli(['patch', '../secret.txt', '--search', 'x', '--replace', 'z', '--root', dir], { cwd: dir })
  assert.equal(out.status, 1)
  assert.match(out.stderr, /PATH_OUTSIDE_WORKSPACE/)
  assert.equal(fs.readFileSync(path.join(outer, 'secret.txt'), 'utf8'), 'x\n')

  const bin = cli(['patch', 'b.bin', '--search', 'x', '--replace', 'z'], { cwd: dir })
  assert.equal(bin.status, 1)
  assert.match(bin.stderr, /BINARY_FILE_REJECTED/)

  const cnt = cli(['patch', 'f.txt', '--search', 'x', '--replace', 'z', '--expected-replacements', '3'], { cwd: dir })
  assert.equal(cnt.status, 1)
  assert.match(cnt.stderr, /REPLACEMENT_COUNT_MISMATCH/)

  const sha = cli(['patch', 'f.txt', '--search', 'x\nx', '--replace', 'z', '--expected-sha256', '0'.repeat(64)], { cwd: dir })
  assert.equal(sha.status, 1)
  assert.match(sha.stderr, /FILE_CHANGED[\s\S]*current sha256 [0-9a-f]{64}/)
  assert.equal(read(dir, 'f.txt').toString(), 'x\nx\n')
})

test('--expected-replacements N and --replace-all replace every occurrence', () => {
  const dir = workspace({ 'f.txt': 'x x x\n' })
  const r = cli(['patch', 'f.txt', '--search', 'x', '--replace', 'y', '--expected-replacements', '3'], { cwd: dir })
  assert.equal(r.status, 0, r.stderr)
  assert.equal(r.stdout, 'patched f.txt:1 (3 replacements)\n')
  const a = cli(['patch', 'f.txt', '--search', 'y', '--replace', 'z', '--replace-all'], { cwd: dir })
  assert.equal(a.status, 0, a.stderr)
  assert.equal(read(dir, 'f.txt').toString(), 'z z z\n')
})

test('exit 2: usage errors and INVALID_INPUT', () => {
  const dir = workspace({ 'f.txt': 'abc\n' })
  const cases = [
    [['patch', '--search', 'a', '--replace', 'b'], /needs a FILE/],
    [['patch', 'f.txt', 'g.txt', '--search', 'a', '--replace', 'b'], /one FILE/],
    [['patch', 'f.txt', '--replace', 'b'], /exactly one of --search TEXT and --search-file F/],
    [['patch', 'f.txt', '--search', 'a', '--search-file', 'f.txt', '--replace', 'b'], /exactly one of --search/],
    [['patch', 'f.txt', '--search', 'a'], /exactly one of --replace/],
    [['patch', 'f.txt', '--search', 'a', '--replace', 'b', '--bogus'], /bogus/],
    [['patch', 'f.txt', '--search', 'a', '--replace', 'b', '--expected-replacements', 'two'], /whole number/],
    [['patch', 'f.txt', '--json'], /--json takes its request from stdin only/],
    [['frobnicate'], /unknown command "frobnicate"/],
    [['--bogus'], /bogus/],
    [['patch', 'f.txt', '--search', 'a', '--replace', 'b', '--root', path.join(dir, 'missing')], /workspace root .*missing/],
    [['call', 'nope'], /unknown tool "nope"/],
  ]
  for (const [args, re] of cases) {
    const r = cli(args, { cwd: dir, input: '' })
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`)
    assert.match(r.stderr, re, args.join(' '))
    assert.match(r.stderr, /Run 'patch-file-tool --help' for usage\./)
    assert.equal(r.stdout, '')
  }
  // INVALID_INPUT from the engine.
  const empty = cli(['patch', 'f.txt', '--search', '', '--replace', 'b'], { cwd: dir })
  assert.equal(empty.status, 2)
  assert.match(empty.stderr, /^patch-file-tool: INVALID_INPUT: /)
  const badSha = cli(['patch', 'f.txt', '--search', 'a', '--replace', 'b', '--expected-sha256', 'xyz'], { cwd: dir })
  assert.equal(badSha.status, 2)
  assert.match(badSha.stderr, /INVALID_INPUT/)
  // Search text from a file that is not UTF-8.
  fs.writeFileSync(path.join(dir, 'latin1'), Buffer.from([0x61, 0xe9, 0x0a]))
  const nonUtf8 = cli(['patch', 'f.txt', '--search-file', 'latin1', '--replace', 'b'], { cwd: dir })
  assert.equal(nonUtf8.status, 2)
  assert.match(nonUtf8.stderr, /not valid UTF-8/)
  assert.equal(read(dir, 'f.txt').toString(), 'abc\n')
})

test('exit 2: a flag that takes one value, given twice, is a usage error naming it; nothing is run', () => {
  const dir = workspace({ 'f.txt': 'alpha beta\n', 's.txt': 'beta' })
  const cases = [
    [['patch', 'f.txt', '--search', 'alpha', '--search', 'beta', '--replace', 'x'], '--search'],
    [['patch', 'f.txt', '--search=alpha', '--replace', 'x', '--replace=y'], '--replace'],
    [['patch', 'f.txt', '--search-file', 's.txt', '--search-file', 's.txt', '--replace', 'x'], '--search-file'],
    [['patch', 'f.txt', '--search', 'alpha', '--replace', 'x', '--expected-replacements', '1', '--expected-replacements', '2'], '--expected-replacements'],
    [['patch', 'f.txt', '--search', 'alpha', '--replace', 'x', '--root', '.', '--root', '.'], '--root'],
    [['history', '--limit', '1', '--limit', '2'], '--limit'],
    [['--root', '.', '--root', '.'], '--root'],
  ]
  for (const [args, flag] of cases) {
    const r = cli(args, { cwd: dir, input: '' })
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`)
    assert.ok(r.stderr.includes(`${flag} was given 2 times`), `${args.join(' ')}: ${r.stderr}`)
    assert.match(r.stderr, /Run 'patch-file-tool --help' for usage\./)
    assert.equal(r.stdout, '')
  }
  assert.equal(read(dir, 'f.txt').toString(), 'alpha beta\n')
  // A flag without a value may be repeated (it says the same thing twice).
  const twice = cli(['patch', 'f.txt', '--search', 'alpha', '--replace', 'x', '--dry-run', '--dry-run'], { cwd: dir })
  assert.equal(twice.status, 0, twice.stderr)
  assert.equal(read(dir, 'f.txt').toString(), 'alpha beta\n')
})

test('exit 3: I/O errors (FILE_READ_ERROR, FILE_WRITE_ERROR)', () => {
  const dir = workspace({ 'f.txt': 'hello = 1\n' })
  const missing = cli(['patch', 'nope.txt', '--search', 'a', '--replace', 'b'], { cwd: dir })
  assert.equal(missing.status, 3)
  assert.match(missing.stderr, /^patch-file-tool: FILE_READ_ERROR: /)
  const noText = cli(['patch', 'f.txt', '--search-file', 'absent', '--replace', 'b'], { cwd: dir })
  assert.equal(noText.status, 3)
  assert.match(noText.stderr, /FILE_READ_ERROR: cannot read --search-file absent/)
})

test('exit 3: FILE_WRITE_ERROR when the new content cannot be written (file size limit 0); file unchanged', { skip: process.platform === 'win32' ? 'needs ulimit' : false }, () => {
  const dir = workspace({ 'f.txt': 'hello = 1\n' })
  const script = `trap "" XFSZ; ulimit -f 0; exec "${process.execPath}" "${BIN}" patch f.txt --search "hello = 1" --replace "hello = 2"`
  const r = spawnSync('sh', ['-c', script], { cwd: dir, env: cleanEnv(), encoding: 'utf8' })
  assert.equal(r.status, 3, r.stderr)
  assert.match(r.stderr, /^patch-file-tool: FILE_WRITE_ERROR: /)
  assert.equal(read(dir, 'f.txt').toString(), 'hello = 1\n')
  assert.deepEqual(fs.readdirSync(dir), ['f.txt'])
})

test('patch --json: one request object on stdin, the result JSON on stdout, exit code from the result', () => {
  const dir = workspace({ 'j.txt': 'line one\r\nline two\r\n' })
  const ok = cli(['patch', '--json'], {
    cwd: dir,
    input: JSON.stringify({ file_path: 'j.txt', search_block: 'line two\r\n', replace_block: 'line 2\r\n' }),
  })
  assert.equal(ok.status, 0, ok.stderr)
  const res = JSON.parse(ok.stdout)
  assert.equal(res.ok, true)
  assert.equal(res.line_number, 2)
  assert.equal(res.file_path, path.join(dir, 'j.txt'))
  assert.equal(read(dir, 'j.txt').toString(), 'line one\r\nline 2\r\n')

  const refused = cli(['patch', '--json'], { cwd: dir, input: '{"file_path":"j.txt","search_block":"absent","replace_block":""}' })
  assert.equal(refused.status, 1)
  assert.equal(JSON.parse(refused.stdout).code, 'SEARCH_BLOCK_NOT_FOUND')

  const invalid = cli(['patch', '--json'], { cwd: dir, input: '{"file_path":"j.txt","search_block":"x"}' })
  assert.equal(invalid.status, 2)
  assert.equal(JSON.parse(invalid.stdout).code, 'INVALID_INPUT')

  const notJson = cli(['patch', '--json'], { cwd: dir, input: '{nope' })
  assert.equal(notJson.status, 2)
  const nj = JSON.parse(notJson.stdout)
  assert.equal(nj.code, 'INVALID_INPUT')
  assert.match(nj.message, /not valid JSON/)

  const io = cli(['patch', '--json'], { cwd: dir, input: '{"file_path":"gone.txt","search_block":"x","replace_block":""}' })
  assert.equal(io.status, 3)
  assert.equal(JSON.parse(io.stdout).code, 'FILE_READ_ERROR')

  const dry = cli(['patch', '--json'], { cwd: dir, input: '{"file_path":"j.txt","search_block":"line 2","replace_block":"two","dry_run":true}' })
  assert.equal(dry.status, 0)
  assert.match(JSON.parse(dry.stdout).diff, /^--- a\/j\.txt/)
  assert.equal(read(dir, 'j.txt').toString(), 'line one\r\nline 2\r\n')
})

test('--dry-run prints the diff and writes nothing', () => {
  const dir = workspace({ 'd.txt': 'keep\nold\n' })
  const r = cli(['patch', 'd.txt', '--search', 'old', '--replace', 'new', '--dry-run'], { cwd: dir })
  assert.equal(r.status, 0, r.stderr)
  assert.match(r.stdout, /^--- a\/d\.txt\n\+\+\+ b\/d\.txt\n@@ [^\n]+\n keep\n-old\n\+new\n/)
  assert.match(r.stdout, /\ndry run: d\.txt:2 \(1 replacement\) previewed; nothing written\n$/)
  assert.equal(read(dir, 'd.txt').toString(), 'keep\nold\n')
})

test('workspace root: --root over PATCH_FILE_WORKSPACE_ROOT (with a warning); FILE relative to the cwd', () => {
  const a = workspace({ 'sub/f.txt': 'v1\n' })
  const b = workspace({ 'f.txt': 'v1\n' })
  // FILE is relative to the cwd; the root is a parent of it.
  const r = cli(['patch', 'f.txt', '--search', 'v1', '--replace', 'v2', '--root', a], { cwd: path.join(a, 'sub') })
  assert.equal(r.status, 0, r.stderr)
  assert.equal(read(a, 'sub/f.txt').toString(), 'v2\n')
  // --root b confines edits to b: a file of a is outside it.
  const out = cli(['patch', path.join(a, 'sub/f.txt'), '--search', 'v2', '--replace', 'v3', '--root', b], { cwd: a })
  assert.equal(out.status, 1)
  assert.match(out.stderr, /PATH_OUTSIDE_WORKSPACE/)
  // An explicit --root wins over the environment variable, and says so.
  const env = cli(['patch', path.join(a, 'sub/f.txt'), '--search', 'v2', '--replace', 'v3', '--root', a], {
    cwd: a,
    env: cleanEnv({ PATCH_FILE_WORKSPACE_ROOT: b }),
  })
  assert.equal(env.status, 0, env.stderr)
  assert.match(env.stderr, /warning: PATCH_FILE_WORKSPACE_ROOT=.* is ignored: --root is given/)
  assert.equal(read(a, 'sub/f.txt').toString(), 'v3\n')
  assert.equal(read(b, 'f.txt').toString(), 'v1\n')
  // Without --root the variable applies.
  const confined = cli(['patch', path.join(a, 'sub/f.txt'), '--search', 'v3', '--replace', 'v4'], {
    cwd: a,
    env: cleanEnv({ PATCH_FILE_WORKSPACE_ROOT: b }),
  })
  assert.equal(confined.status, 1)
  assert.match(confined.stderr, /PATH_OUTSIDE_WORKSPACE/)
})

test('workspace root: from a subdirectory of a git work tree the root is the work tree, so history and undo see every edit', () => {
  const dir = workspace({ 'src/app.js': 'let a = 1\n', 'README.md': 'r\n' })
  fs.mkdirSync(path.join(dir, '.git'))
  const sub = path.join(dir, 'src')
  const edit = cli(['patch', 'app.js', '--search', 'a = 1', '--replace', 'a = 2'], { cwd: sub })
  assert.equal(edit.status, 0, edit.stderr)
  assert.equal(read(dir, 'src/app.js').toString(), 'let a = 2\n')
  // Back at the root: the edit made from src/ is in its history, and undo takes it back.
  const h = cli(['history', '--json'], { cwd: dir })
  assert.equal(h.status, 0, h.stderr)
  const listed = JSON.parse(h.stdout)
  assert.equal(listed.transactions.length, 1, h.stdout)
  const u = cli(['undo'], { cwd: dir })
  assert.equal(u.status, 0, u.stderr)
  assert.equal(read(dir, 'src/app.js').toString(), 'let a = 1\n')
  // A path above the work tree is outside the workspace.
  const up = cli(['patch', path.join(path.dirname(dir), 'x.txt'), '--search', 'a', '--replace', 'b'], { cwd: sub })
  assert.equal(up.status, 1)
  assert.match(up.stderr, /PATH_OUTSIDE_WORKSPACE/)
  // A `.git` file (a worktree or submodule) marks a work tree too; outside any, the cwd is the root.
  const wt = workspace({ 'pkg/a.txt': 'x\n' })
  fs.writeFileSync(path.join(wt, '.git'), 'gitdir: /elsewhere\n')
  assert.equal(cli(['patch', 'a.txt', '--search', 'x', '--replace', 'y'], { cwd: path.join(wt, 'pkg') }).status, 0)
  const hw = JSON.parse(cli(['history', '--json'], { cwd: wt }).stdout)
  assert.equal(hw.transactions.length, 1)
})

test('apply-patch reads a Codex patch\'s paths from the current directory (as Codex apply_patch does), and a git diff\'s from the top of its work tree, refused below it', () => {
  const dir = workspace({ 'src/index.ts': 'port = 3000\n', 'packages/web/src/index.ts': 'port = 3000\n' })
  fs.mkdirSync(path.join(dir, '.git'))
  const web = path.join(dir, 'packages/web')
  const patch = '*** Begin Patch\n*** Update File: src/index.ts\n@@\n-port = 3000\n+port = 8080\n*** Add File: README.md\n+# web\n*** End Patch\n'
  const r = cli(['apply-patch'], { cwd: web, input: patch })
  assert.equal(r.status, 0, r.stderr)
  assert.equal(read(web, 'src/index.ts').toString(), 'port = 8080\n')
  assert.equal(read(dir, 'src/index.ts').toString(), 'port = 3000\n', 'the work tree root file is not the one named')
  assert.ok(fs.existsSync(path.join(web, 'README.md')) && !fs.existsSync(path.join(dir, 'README.md')))
  // A git diff names files from the top of its work tree (as git apply reads it): applied from there; from below
  // it, its paths are ambiguous (`git diff` or `git diff --relative`) and it is refused, nothing written.
  const diff = 'diff --git a/src/index.ts b/src/index.ts\n--- a/src/index.ts\n+++ b/src/index.ts\n@@ -1 +1 @@\n-port = 3000\n+port = 9090\n'
  const below = cli(['apply-patch'], { cwd: web, input: diff })
  assert.equal(below.status, 2, below.stderr)
  assert.match(below.stderr, /run apply-patch from the top/)
  assert.equal(read(dir, 'src/index.ts').toString(), 'port = 3000\n')
  assert.equal(read(web, 'src/index.ts').toString(), 'port = 8080\n')
  const g = cli(['apply-patch'], { cwd: dir, input: diff })
  assert.equal(g.status, 0, g.stderr)
  assert.equal(read(dir, 'src/index.ts').toString(), 'port = 9090\n')
  assert.equal(read(web, 'src/index.ts').toString(), 'port = 8080\n')
})

test('a git diff is read from the top of its work tree whatever the root: a root above it, and call apply_patch, edit the work tree\'s file or refuse', () => {
  // A repository inside a larger root (a monorepo checkout, a home directory): the diff names pkg/'s files.
  const mono = workspace({ 'src/x.txt': 'hello\n', 'pkg/src/x.txt': 'hello\n' })
  const pkg = path.join(mono, 'pkg')
  fs.mkdirSync(path.join(pkg, '.git'))
  const diff = 'diff --git a/src/x.txt b/src/x.txt\n--- a/src/x.txt\n+++ b/src/x.txt\n@@ -1 +1 @@\n-hello\n+HELLO\n'
  for (const how of [['--root', mono], ['env']]) {
    const env = how[0] === 'env' ? { ...cleanEnv(), PATCH_FILE_WORKSPACE_ROOT: mono } : cleanEnv()
    const args = how[0] === 'env' ? ['apply-patch'] : ['apply-patch', ...how]
    const r = cli(args, { cwd: pkg, input: diff, env })
    assert.equal(r.status, 0, r.stderr)
    assert.equal(read(pkg, 'src/x.txt').toString(), 'HELLO\n', how[0])
    assert.equal(read(mono, 'src/x.txt').toString(), 'hello\n', how[0])
    fs.writeFileSync(path.join(pkg, 'src/x.txt'), 'hello\n')
  }
  // call apply_patch follows the same rule: from below the top refused, nothing written; from the top applied.
  const input = JSON.stringify({ patch: diff })
  const below = cli(['call', 'apply_patch'], { cwd: path.join(pkg, 'src'), input })
  assert.equal(below.status, 2, below.stderr)
  assert.match(below.stderr, /run call apply_patch from the top/)
  assert.equal(read(pkg, 'src/x.txt').toString(), 'hello\n')
  // Whatever field carries the diff (Codex's own `input`, `text`, the request as one string), and behind a BOM:
  // each was applied from here, to pkg/src/src/x.txt or the like, with the paths read from the wrong directory.
  fs.mkdirSync(path.join(pkg, 'src/src'))
  fs.writeFileSync(path.join(pkg, 'src/src/x.txt'), 'hello\n')
  const spellings = [{ input: diff }, { text: diff }, diff, { patch: '\uFEFF' + diff }]
  for (const request of spellings) {
    const r = cli(['call', 'apply_patch'], { cwd: path.join(pkg, 'src'), input: JSON.stringify(request) })
    assert.equal(r.status, 2, `${JSON.stringify(request).slice(0, 20)}: ${r.stdout}${r.stderr}`)
    assert.match(r.stderr, /run call apply_patch from the top/)
  }
  const bom = cli(['apply-patch'], { cwd: path.join(pkg, 'src'), input: '\uFEFF' + diff })
  assert.equal(bom.status, 2, bom.stdout + bom.stderr)
  assert.equal(read(pkg, 'src/src/x.txt').toString(), 'hello\n')
  assert.equal(read(pkg, 'src/x.txt').toString(), 'hello\n')
  fs.rmSync(path.join(pkg, 'src/src'), { recursive: true })
  const top = cli(['call', 'apply_patch', '--root', mono], { cwd: pkg, input })
  assert.equal(top.status, 0, top.stderr)
  assert.equal(read(pkg, 'src/x.txt').toString(), 'HELLO\n')
  assert.equal(read(mono, 'src/x.txt').toString(), 'hello\n')
})

test('from a subdirectory, every command names files from there and journals in the work tree: undo takes back a Codex patch applied there, and edit-lines edits the file read --anchors read', () => {
  const dir = workspace({ 'a.txt': 'one\ntwo\nthree\n', 'sub/a.txt': 'one\ntwo\nthree\n', 'sub/b.txt': 'b1\n' })
  fs.mkdirSync(path.join(dir, '.git'))
  const sub = path.join(dir, 'sub')
  assert.equal(cli(['patch', 'b.txt', '--search', 'b1', '--replace', 'B1'], { cwd: sub }).status, 0)
  const patch = '*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+TWO\n*** End Patch\n'
  const p = cli(['apply-patch'], { cwd: sub, input: patch })
  assert.equal(p.status, 0, p.stderr)
  assert.equal(read(dir, 'sub/a.txt').toString(), 'one\nTWO\nthree\n')
  // The patch is the newest transaction of the project's journal: undo takes it back, not the edit before it.
  const u = cli(['undo'], { cwd: sub })
  assert.equal(u.status, 0, u.stderr)
  assert.equal(read(dir, 'sub/a.txt').toString(), 'one\ntwo\nthree\n')
  assert.equal(read(dir, 'sub/b.txt').toString(), 'B1\n')
  // read --anchors reads sub/a.txt; an edit-lines request naming a.txt edits that file, not the root's a.txt.
  const shown = cli(['read', 'a.txt', '--anchors'], { cwd: sub })
  assert.equal(shown.status, 0, shown.stderr)
  const anchor = shown.stdout.split('\n')[1].split('|')[0]
  const e = cli(['edit-lines'], { cwd: sub, input: JSON.stringify({ file_path: 'a.txt', edits: [{ pos: anchor, lines: 'TWO' }] }) })
  assert.equal(e.status, 0, e.stderr + e.stdout)
  assert.equal(JSON.parse(e.stdout).verified, 'snapshot', e.stdout)
  assert.equal(read(dir, 'sub/a.txt').toString(), 'one\nTWO\nthree\n')
  assert.equal(read(dir, 'a.txt').toString(), 'one\ntwo\nthree\n')
})

test('a FILE argument is read as the shell reads it: link/../a.txt goes up from where the link points', () => {
  const dir = workspace({ 'a.txt': 'VERSION = 1\n', 'lib/a.txt': 'VERSION = 1\n', 'lib/sub/x': '' })
  fs.symlinkSync('lib/sub', path.join(dir, 'link'))
  const r = cli(['patch', 'link/../a.txt', '--search', 'VERSION = 1', '--replace', 'VERSION = 2', '--root', dir], { cwd: dir })
  assert.equal(r.status, 0, r.stderr)
  assert.equal(read(dir, 'lib/a.txt').toString(), 'VERSION = 2\n')
  assert.equal(read(dir, 'a.txt').toString(), 'VERSION = 1\n')
  const shown = cli(['read', 'link/../a.txt', '--json', '--root', dir], { cwd: dir })
  assert.equal(shown.status, 0, shown.stderr)
  assert.equal(JSON.parse(shown.stdout).content, 'VERSION = 2\n')
  const h = cli(['history', 'link/../a.txt', '--json', '--root', dir], { cwd: dir })
  assert.equal(h.status, 0, h.stderr)
  assert.equal(JSON.parse(h.stdout).transactions.length, 1, h.stdout)
})

test('a deleted working directory: an absolute --root still works, a relative or implied one is a usage error, never a stack trace', () => {
  const dir = workspace({ 'a.txt': 'one\n' })
  const gone = tempDir('pft-cli-gone-')
  const script = (args) => `cd "${gone}" && rmdir "${gone}" && exec "${process.execPath}" "${BIN}" ${args}`
  const run = (args) => spawnSync('sh', ['-c', script(args)], { env: cleanEnv(), encoding: 'utf8', timeout: 30_000 })
  const ok = run(`patch "${path.join(dir, 'a.txt')}" --search one --replace two --root "${dir}"`)
  assert.equal(ok.status, 0, ok.stderr)
  assert.equal(read(dir, 'a.txt').toString(), 'two\n')
  fs.mkdirSync(gone)
  const bad = run('patch a.txt --search two --replace three')
  assert.equal(bad.status, 2, bad.stderr)
  assert.match(bad.stderr, /current directory cannot be read/)
  assert.doesNotMatch(bad.stderr, /\n\s+at /)
  assert.equal(read(dir, 'a.txt').toString(), 'two\n')
})

test('call TOOL runs any tool of the table with JSON arguments (batch, read, write)', () => {
  const dir = workspace({ 'a.txt': 'one\n', 'b.txt': 'two\n' })
  const batch = cli(['call', 'batch_patch_files'], {
    cwd: dir,
    input: JSON.stringify({ files: [{ file_path: 'a.txt', search_block: 'one', replace_block: '1' }, { file_path: 'b.txt', search_block: 'nope', replace_block: '2' }] }),
  })
  assert.equal(batch.status, 1)
  assert.equal(JSON.parse(batch.stdout).files.length, 2)
  assert.equal(read(dir, 'a.txt').toString(), 'one\n')

  const w = cli(['call', 'write_file'], { cwd: dir, input: '{"file_path":"n/new.txt","content":"fresh\\r\\n"}' })
  assert.equal(w.status, 0, w.stderr)
  assert.equal(JSON.parse(w.stdout).created, true)
  const rd = cli(['call', 'read_file'], { cwd: dir, input: '{"file_path":"n/new.txt"}' })
  assert.equal(rd.status, 0)
  const res = JSON.parse(rd.stdout)
  assert.equal(res.content, 'fresh\r\n')
  assert.equal(res.line_ending, 'crlf')
})

test('stdin is read up to a limit: a larger or endless stdin is refused (exit 2), nothing is run', () => {
  const dir = workspace({ 'f.txt': 'alpha\nbeta\n' })
  const env = { ...cleanEnv(), PATCH_FILE_CLI_MAX_STDIN_BYTES: '4096' }
  const big = JSON.stringify({ file_path: 'f.txt', search_block: 'beta', replace_block: 'x'.repeat(5000) })
  const r = cli(['call', 'patch_file', '--root', dir], { cwd: dir, input: big, env })
  assert.equal(r.status, 2, r.stderr)
  assert.match(r.stderr, /more than 4096 bytes .*PATCH_FILE_CLI_MAX_STDIN_BYTES/)
  assert.equal(read(dir, 'f.txt').toString(), 'alpha\nbeta\n')
  const patch = `*** Begin Patch\n*** Update File: f.txt\n@@\n-beta\n+${'y'.repeat(5000)}\n*** End Patch\n`
  const p = cli(['apply-patch', '--root', dir], { cwd: dir, input: patch, env })
  assert.equal(p.status, 2, p.stderr)
  assert.equal(read(dir, 'f.txt').toString(), 'alpha\nbeta\n')
  // --search-file - and --replace-file - read stdin too: the same limit (it read any size).
  for (const flags of [['--search-file', '-', '--replace', 'x'], ['--search', 'beta', '--replace-file', '-']]) {
    const f = cli(['patch', 'f.txt', ...flags, '--root', dir], { cwd: dir, input: 'beta' + ' '.repeat(5000), env })
    assert.equal(f.status, 2, f.stderr)
    assert.match(f.stderr, /more than 4096 bytes/)
  }
  assert.equal(read(dir, 'f.txt').toString(), 'alpha\nbeta\n')
  // Under the limit the same call runs.
  const ok = cli(['call', 'patch_file', '--root', dir], { cwd: dir, input: JSON.stringify({ file_path: 'f.txt', search_block: 'beta', replace_block: 'gamma' }), env })
  assert.equal(ok.status, 0, ok.stderr)
  assert.equal(read(dir, 'f.txt').toString(), 'alpha\ngamma\n')
  // A producer that never stops: the CLI stops reading and exits.
  const s = spawnSync('sh', ['-c', `yes 0123456789 | "${process.execPath}" "${BIN}" call patch_file --root "${dir}"`], {
    cwd: dir,
    env: { ...env, PATCH_FILE_CLI_MAX_STDIN_BYTES: String(1 << 20) },
    encoding: 'utf8',
    timeout: 30_000,
  })
  assert.equal(s.error, undefined, 'the CLI must not read an endless stdin until the timeout')
  assert.equal(s.status, 2, s.stderr)
  assert.equal(read(dir, 'f.txt').toString(), 'alpha\ngamma\n')
  // A named file under the same limit: a large one, and an endless pipe (`<(yes)`), which the CLI read until it died.
  fs.writeFileSync(path.join(dir, 'big.txt'), 'gamma' + ' '.repeat(5000))
  const named = cli(['patch', 'f.txt', '--search-file', 'big.txt', '--replace', 'x', '--root', dir], { cwd: dir, env })
  assert.equal(named.status, 2, named.stderr)
  assert.match(named.stderr, /--search-file big\.txt holds more than 4096 bytes/)
  for (const args of [['patch', 'f.txt', '--search', 'gamma', '--replace-file', '/dev/stdin'], ['apply-patch', '/dev/stdin']]) {
    const e = spawnSync('sh', ['-c', `yes 0123456789 | "${process.execPath}" "${BIN}" ${args.join(' ')} --root "${dir}"`], {
      cwd: dir,
      env: { ...env, PATCH_FILE_CLI_MAX_STDIN_BYTES: String(1 << 20) },
      encoding: 'utf8',
      timeout: 30_000,
    })
    assert.equal(e.error, undefined, `${args[0]}: the CLI must not read an endless file until the timeout`)
    assert.equal(e.status, 2, e.stderr)
    assert.match(e.stderr, /holds more than 1048576 bytes/)
  }
  assert.equal(read(dir, 'f.txt').toString(), 'alpha\ngamma\n')
  // The limit itself must be a number of bytes: `-1` refused every stdin, `abc` was the default unsaid.
  for (const bad of ['-1', 'abc', '0']) {
    const b = cli(['read', 'f.txt', '--root', dir], { cwd: dir, env: { ...env, PATCH_FILE_CLI_MAX_STDIN_BYTES: bad } })
    assert.equal(b.status, 2, bad)
    assert.match(b.stderr, /PATCH_FILE_CLI_MAX_STDIN_BYTES must be a whole number of bytes/)
  }
})

test('a near miss shows the closest current text and the --match flag to use; --match applies it; a mistyped option gets the nearest one', () => {
  const dir = workspace({ 'f.js': 'let a = 1;\nlet b = 2;\n' })
  const miss = cli(['patch', 'f.js', '--search', 'let a = 1; ', '--replace', 'let a = 9;'], { cwd: dir })
  assert.equal(miss.status, 1)
  assert.match(miss.stderr, /SEARCH_BLOCK_NOT_FOUND: .*line 1 matches it except for trailing whitespace/)
  assert.match(miss.stderr, /resend the same edit with --match trailing_whitespace\./)
  assert.ok(!/closest_match|match: \[/.test(miss.stderr), miss.stderr)
  assert.match(miss.stderr, /\n {2}closest current text \(line 1, \d+% similar\):\n {2}\| let a = 1;\n$/)
  const hit = cli(['patch', 'f.js', '--search', 'let a = 1; ', '--replace', 'let a = 9;', '--match', 'trailing_whitespace'], { cwd: dir })
  assert.equal(hit.status, 0, hit.stderr)
  assert.equal(read(dir, 'f.js').toString(), 'let a = 9;\nlet b = 2;\n')
  const typo = cli(['patch', 'f.js', '--serach', 'x', '--replace', 'y'], { cwd: dir })
  assert.equal(typo.status, 2)
  assert.match(typo.stderr, /unknown option --serach; did you mean --search\?/)
  const far = cli(['history', '--zzzzzz'], { cwd: dir })
  assert.equal(far.status, 2)
  assert.match(far.stderr, /unknown option --zzzzzz \(options here: --root, --help, /)
})

test('a success prints what the result warns of on stderr: a parse error the edit introduced, a warning, markers expanded', () => {
  const dir = workspace({ 'x.js': 'function f() {\n  return 1\n}\n', 'n.txt': 'a\nb\n' })
  const broke = cli(['patch', 'x.js', '--search', '  return 1\n}\n', '--replace', '  return 1\n'], { cwd: dir })
  assert.equal(broke.status, 0, broke.stderr)
  assert.match(broke.stdout, /^patched x\.js:2/)
  assert.match(broke.stderr, /warning: x\.js:2:\d+: javascript parse error the edit introduced: missing \}/)
  const eol = cli(['patch', 'n.txt', '--search', 'b\n', '--replace', 'b'], { cwd: dir })
  assert.equal(eol.status, 0, eol.stderr)
  assert.match(eol.stderr, /warning: .*line break/)
  fs.writeFileSync(path.join(dir, 'x.js'), 'function f() {\n  const a = 1\n  const b = 2\n  const c = 3\n  return a\n}\n')
  const diff = 'diff --git a/x.js b/x.js\n--- a/x.js\n+++ b/x.js\n@@ -1,6 +1,6 @@\n function f() {\n   const a = 1\n-  const b = 2\n-  const c = 3\n+  // ... existing code ...\n   return a\n }\n+f()\n'
  const lazy = cli(['apply-patch'], { cwd: dir, input: diff })
  assert.equal(lazy.status, 0, lazy.stderr)
  assert.match(lazy.stderr, /note: x\.js: "\/\/ \.\.\. existing code \.\.\." \(line \d+ of the new text\) kept lines 3-4/)
  assert.equal(read(dir, 'x.js').toString(), 'function f() {\n  const a = 1\n  const b = 2\n  const c = 3\n  return a\n}\nf()\n')
  // The same call that warns nothing prints nothing there.
  const clean = cli(['patch', 'x.js', '--search', 'return a', '--replace', 'return a + 2'], { cwd: dir })
  assert.equal(clean.status, 0, clean.stderr)
  assert.equal(clean.stderr, '')
})

test('a write whose stdout reader is gone exits with its own code, no stack trace (it exited 1, "refused")', async () => {
  const dir = workspace({ 'e.txt': 'v1\n', 'big.txt': 'line of text\n'.repeat(200_000) })
  const run = (args) =>
    new Promise((resolve) => {
      const p = spawn(process.execPath, [BIN, ...args], { cwd: dir, env: cleanEnv() })
      p.stdout.destroy()
      let err = ''
      p.stderr.on('data', (x) => (err += x))
      p.on('close', (code) => resolve({ code, err }))
    })
  const w = await run(['patch', 'e.txt', '--search', 'v1', '--replace', 'v2'])
  assert.deepEqual(w, { code: 0, err: '' })
  assert.equal(read(dir, 'e.txt').toString(), 'v2\n')
  const r = await run(['read', 'big.txt'])
  assert.deepEqual(r, { code: 0, err: '' })
  const refused = await run(['patch', 'e.txt', '--search', 'nope', '--replace', 'x'])
  assert.equal(refused.code, 1)
  assert.match(refused.err, /SEARCH_BLOCK_NOT_FOUND/)
})
