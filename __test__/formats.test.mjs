// Edit formats through the public API, the CLI and the MCP server:
// applyEditBlocks, applyPatch (Codex envelope and unified diff), textEditor,
// editFile. Includes the Codex conformance scenarios (when ../shared is
// present) and unified diffs made by `git diff` on real edits, which must give
// the same bytes as `git apply`.
//
//   PFT_GIT_DIFF_ROUNDS=N   random edit rounds for the git-diff comparison (default 100; each
//                           round's edit is diffed with -U3 (git's default), -U1 and -U0)
import './helpers/private-state.mjs'
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { withClient as withMcpClient } from './helpers/mcp-client.mjs'
import { rng } from '../benchmark/workloads.mjs'
import {
  applyEditBlocks,
  applyPatch,
  textEditor,
  editFile,
  applyDryRun,
  schemas,
  PATCH_FILE_ERROR_CODES as CODES,
} from '../index.mjs'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const BIN = path.join(ROOT, 'bin', 'patch-file-tool.js')
const CONFORMANCE = path.join(ROOT, '..', 'shared', 'conformance', 'codex-apply-patch', 'run.mjs')

function tempDir(prefix = 'pft-fmt-') {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
}

function writeTree(root, tree) {
  for (const [p, content] of Object.entries(tree)) {
    const f = path.join(root, p)
    fs.mkdirSync(path.dirname(f), { recursive: true })
    fs.writeFileSync(f, content)
  }
}

/** Every regular file under `root` (except .git) as relative path -> Buffer. */
function snapshot(root) {
  const out = {}
  const walk = (dir, rel) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (e.name === '.git') continue
      const r = rel ? `${rel}/${e.name}` : e.name
      if (e.isDirectory()) walk(path.join(dir, e.name), r)
      else if (e.isFile()) out[r] = fs.readFileSync(path.join(dir, e.name))
    }
  }
  walk(root, '')
  return out
}

function sameTree(a, b) {
  const ka = Object.keys(a).sort()
  const kb = Object.keys(b).sort()
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && a[k].equals(b[k]))
}

function assertSameTree(actual, expected, what) {
  assert.deepEqual(Object.keys(actual).sort(), Object.keys(expected).sort(), `${what}: file set`)
  for (const k of Object.keys(expected)) {
    assert.ok(actual[k].equals(expected[k]), `${what}: bytes of ${k}\n got ${JSON.stringify(actual[k].toString())}\nwant ${JSON.stringify(expected[k].toString())}`)
  }
}

function cleanEnv() {
  const env = { ...process.env }
  delete env.PATCH_FILE_WORKSPACE_ROOT
  delete env.PATCH_FILE_LOG
  return env
}

const gitOk = spawnSync('git', ['--version']).status === 0
function git(cwd, ...args) {
  const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'core.autocrlf=false', ...args], { cwd, encoding: 'buffer' })
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`)
  return r.stdout
}

// ---------------------------------------------------------------------------
// API

test('exports: applyEditBlocks, applyPatch, textEditor, editFile and their tool schemas', () => {
  for (const f of [applyEditBlocks, applyPatch, textEditor, editFile]) assert.equal(typeof f, 'function')
  for (const name of ['edit_block', 'apply_patch', 'str_replace_based_edit_tool', 'edit_file']) {
    assert.equal(schemas[name].name, name)
    assert.equal(schemas[name].parameters.additionalProperties, false)
  }
  assert.deepEqual(Object.keys(schemas.edit_file.parameters.properties).sort(), ['dryRun', 'edits', 'path'])
  assert.deepEqual(schemas.edit_file.parameters.properties.edits.items.required, ['oldText', 'newText'])
})

test('applyPatch: a Codex patch adds, deletes, moves and updates in one step, reporting each hunk', async () => {
  const dir = tempDir()
  writeTree(dir, { 'a.py': 'def f():\n    return 1\n', 'gone.txt': 'x\n', 'old/n.txt': 'n\n' })
  const patch = [
    '*** Begin Patch',
    '*** Add File: docs/new.md',
    '+# Title',
    '*** Delete File: gone.txt',
    '*** Update File: a.py',
    '@@ def f():',
    '-  return 1',
    '+    return 2',
    '*** Update File: old/n.txt',
    '*** Move to: new/n.txt',
    '*** End Patch',
    '',
  ].join('\n')
  const r = await applyPatch(patch, { workspaceRoot: dir })
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(r.format, 'apply_patch')
  assert.deepEqual(r.files.map((f) => f.action), ['add', 'delete', 'update', 'move'])
  assert.deepEqual(r.files[2].hunks, [{ index: 0, line_number: 2, level: 'surrounding_whitespace', located_by: 'content', patch_line: 6 }])
  assertSameTree(snapshot(dir), {
    'a.py': Buffer.from('def f():\n    return 2\n'),
    'docs/new.md': Buffer.from('# Title\n'),
    'new/n.txt': Buffer.from('n\n'),
  }, 'after')
})

test('applyPatch: a failing file leaves every file untouched; a malformed patch names its line', async () => {
  const dir = tempDir()
  writeTree(dir, { 'a.txt': 'a\n', 'b.txt': 'b\n' })
  const before = snapshot(dir)
  const r = await applyPatch({ patch: '*** Begin Patch\n*** Delete File: a.txt\n*** Update File: b.txt\n@@\n-zzz\n+y\n*** End Patch\n' }, { workspaceRoot: dir })
  assert.equal(r.ok, false)
  assert.equal(r.code, CODES.SEARCH_BLOCK_NOT_FOUND)
  assert.equal(r.failures[0].path, 'b.txt')
  assertSameTree(snapshot(dir), before, 'untouched')
  const p = await applyPatch('*** Begin Patch\n*** Update File: b.txt\n@@\n b\nnot a hunk line\n*** End Patch\n', { workspaceRoot: dir })
  assert.equal(p.code, CODES.PATCH_PARSE_ERROR)
  assert.equal(p.line, 5)
  assert.match(p.expected, /hunk line/)
})

test('applyPatch dry run: diff and run_id; applyDryRun then writes it, deletions and moves included', async () => {
  const dir = tempDir()
  writeTree(dir, { 'a.txt': 'a\n', 'm.txt': 'm\n' })
  const patch = '*** Begin Patch\n*** Delete File: a.txt\n*** Update File: m.txt\n*** Move to: sub/m.txt\n@@\n-m\n+M\n*** End Patch\n'
  const d = await applyPatch(patch, { workspaceRoot: dir, dryRun: true })
  assert.equal(d.ok, true, JSON.stringify(d))
  assert.equal(d.dry_run, true)
  assert.match(d.diff, /rename from m\.txt\nrename to sub\/m\.txt/)
  assert.deepEqual(Object.keys(snapshot(dir)).sort(), ['a.txt', 'm.txt'])
  const a = await applyDryRun({ run_id: d.run_id }, { workspaceRoot: dir })
  assert.equal(a.ok, true, JSON.stringify(a))
  assertSameTree(snapshot(dir), { 'sub/m.txt': Buffer.from('M\n') }, 'applied')
})

test('applyEditBlocks: fenced blocks for two files, verified after writing; an ambiguous block writes nothing', async () => {
  const dir = tempDir()
  writeTree(dir, { 'a.ts': 'const a = 1;\n', 'b.ts': 'const b = 1;\nconst b2 = 1;\n' })
  const text = 'a.ts\n```ts\n<<<<<<< SEARCH\nconst a = 1;\n=======\nconst a = 2;\n>>>>>>> REPLACE\n```\n\n```ts\nb.ts\n<<<<<<< SEARCH\nconst b2 = 1;\n=======\nconst b2 = 3;\n>>>>>>> REPLACE\n```\n'
  const r = await applyEditBlocks(text, { workspaceRoot: dir })
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(r.verified, true)
  assert.deepEqual(r.files.map((f) => f.blocks[0].verified), [true, true])
  assert.equal(fs.readFileSync(path.join(dir, 'b.ts'), 'utf8'), 'const b = 1;\nconst b2 = 3;\n')
  const before = snapshot(dir)
  const bad = await applyEditBlocks({ blockContent: 'a.ts\n<<<<<<< SEARCH\nconst a = 2;\n=======\nx\n>>>>>>> REPLACE\nb.ts\n<<<<<<< SEARCH\nconst b\n=======\nlet b\n>>>>>>> REPLACE\n' }, { workspaceRoot: dir })
  assert.equal(bad.code, CODES.SEARCH_BLOCK_AMBIGUOUS)
  assert.deepEqual(bad.match_lines, [1, 2])
  assertSameTree(snapshot(dir), before, 'untouched')
})

test('textEditor: view, str_replace, insert, undo_edit', async () => {
  const dir = tempDir()
  writeTree(dir, { 'f.txt': 'one\ntwo\nthree\n' })
  const o = { workspaceRoot: dir }
  const v = await textEditor({ command: 'view', path: 'f.txt', view_range: [2, -1] }, o)
  assert.equal(v.content, '     2\ttwo\n     3\tthree\n')
  const s = await textEditor({ command: 'str_replace', path: 'f.txt', old_str: 'two', new_str: 'TWO' }, o)
  assert.equal(s.ok, true, JSON.stringify(s))
  assert.equal(s.line_number, 2)
  assert.match(s.snippet, /2\tTWO/)
  assert.equal((await textEditor({ command: 'insert', path: 'f.txt', insert_line: 3, insert_text: 'four' }, o)).ok, true)
  assert.equal(fs.readFileSync(path.join(dir, 'f.txt'), 'utf8'), 'one\nTWO\nthree\nfour\n')
  assert.equal((await textEditor({ command: 'undo_edit', path: 'f.txt' }, o)).ok, true)
  assert.equal((await textEditor({ command: 'undo_edit', path: 'f.txt' }, o)).ok, true)
  assert.equal(fs.readFileSync(path.join(dir, 'f.txt'), 'utf8'), 'one\ntwo\nthree\n')
  const l = await textEditor({ command: 'view', path: '.' }, o)
  assert.deepEqual(l.entries, ['f.txt'])
})

test('editFile: the filesystem server input shape, exact-once and all or nothing', async () => {
  const dir = tempDir()
  writeTree(dir, { 'c.txt': 'a = 1\nb = 1\n' })
  const ok = await editFile({ path: 'c.txt', edits: [{ oldText: 'a = 1', newText: 'a = 2' }, { oldText: 'b = 1', newText: 'b = 2' }] }, { workspaceRoot: dir })
  assert.equal(ok.ok, true, JSON.stringify(ok))
  const bad = await editFile({ path: 'c.txt', edits: [{ oldText: 'a = 2', newText: 'a = 3' }, { oldText: ' = ', newText: '=' }] }, { workspaceRoot: dir })
  assert.equal(bad.code, CODES.SEARCH_BLOCK_AMBIGUOUS)
  assert.equal(fs.readFileSync(path.join(dir, 'c.txt'), 'utf8'), 'a = 2\nb = 2\n')
})

// ---------------------------------------------------------------------------
// Codex conformance scenarios through the CLI

test('Codex apply_patch conformance scenarios pass through `patch-file-tool apply-patch` (015 all-or-nothing)', { timeout: 300_000 }, (t) => {
  if (!fs.existsSync(CONFORMANCE)) {
    t.skip(`conformance fixtures not found at ${CONFORMANCE} (../shared is absent); skipped`)
    return
  }
  const r = spawnSync(process.execPath, [CONFORMANCE, '--allow-atomic-015', '-v', '--', process.execPath, BIN, 'apply-patch'], {
    encoding: 'utf8',
    env: cleanEnv(),
  })
  assert.equal(r.status, 0, r.stdout + r.stderr)
  assert.match(r.stdout, /^23 passed, 0 failed$/m, r.stdout)
})

// ---------------------------------------------------------------------------
// Unified diffs from git diff: same bytes as git apply

const WORDS = ['alpha', 'beta', 'gamma', 'return x;', '}', '{', '', '  let y = 2;', 'if (ok) {', 'naïve', 'café ☕', '// note', 'end']

function randomFile(r, eol, finalNewline) {
  const word = () => WORDS[Math.floor(r() * WORDS.length)] + (r() < 0.3 ? ` ${Math.floor(r() * 100)}` : '')
  let lines
  if (r() < 0.3) {
    // Repeated blocks (config sections, closing braces): even git's default
    // context occurs several times.
    const block = Array.from({ length: 1 + Math.floor(r() * 3) }, word)
    lines = Array.from({ length: 3 + Math.floor(r() * 6) }, () => block).flat()
  } else {
    lines = Array.from({ length: 3 + Math.floor(r() * 30) }, word)
  }
  return lines.join(eol) + (finalNewline ? eol : '')
}

function editText(r, text, eol) {
  const lines = text.split(eol)
  const final = lines[lines.length - 1] === ''
  if (final) lines.pop()
  const edits = 1 + Math.floor(r() * 4)
  for (let k = 0; k < edits; k++) {
    const i = Math.floor(r() * (lines.length + 1))
    const what = r()
    if (what < 0.35 && lines.length) lines[Math.min(i, lines.length - 1)] += ' changed'
    else if (what < 0.65) lines.splice(i, 0, `inserted ${Math.floor(r() * 1000)}`)
    else if (lines.length > 1) lines.splice(Math.min(i, lines.length - 1), 1)
  }
  const keepFinal = r() < 0.85 ? final : !final
  return lines.join(eol) + (keepFinal && lines.length ? eol : '')
}

/**
 * An independent model of how hunks are placed, to check applyPatch against:
 * per file of a git diff, each hunk's old lines (context and removed) are
 * looked for after the previous hunk; found once: placed there ("content");
 * found several times: placed at the header's line if one of the places
 * starts exactly there ("line_number"), else undecidable. The header's line
 * is shifted by how far the previous hunk of the file was found from its own
 * header line. A hunk without old lines is placed by its line. Returns the
 * `located_by` of every hunk in diff order, how many hunks the header's line
 * chose among equal places, or null when some hunk is undecidable.
 */
function modelPlacement(diff, originals) {
  const files = []
  let cur = null
  const lines = diff.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]
    if (l.startsWith('--- ')) {
      const p = l.slice(4)
      cur = p === '/dev/null' ? null : { path: p.replace(/^a\//, ''), hunks: [] }
      if (cur) files.push(cur)
      continue
    }
    const h = /^@@ -(\d+)(?:,(\d+))? \+\d+(?:,(\d+))? @@/.exec(l)
    if (!h || !cur) continue
    let oldLeft = h[2] === undefined ? 1 : Number(h[2])
    let newLeft = h[3] === undefined ? 1 : Number(h[3])
    const hunk = { oldStart: Number(h[1]), old: [], atEof: false }
    let lastOld = false
    while ((oldLeft > 0 || newLeft > 0 || lines[i + 1]?.startsWith('\\')) && i + 1 < lines.length) {
      const b = lines[++i]
      const body = b.slice(1).replace(/\r$/, '')
      if (b.startsWith('\\')) {
        if (lastOld) hunk.atEof = true
      } else if (b.startsWith('+')) {
        newLeft--
        lastOld = false
      } else {
        hunk.old.push(body)
        oldLeft--
        if (b.startsWith(' ')) newLeft--
        lastOld = true
      }
    }
    cur.hunks.push(hunk)
  }
  const locatedBy = []
  let ties = 0
  for (const { path: p, hunks } of files) {
    const text = originals[p].toString('utf8')
    const fl = text.split('\n')
    if (fl[fl.length - 1] === '') fl.pop()
    const fileLines = fl.map((x) => x.replace(/\r$/, ''))
    const n = fileLines.length
    let from = 0
    let shift = 0
    for (const h of hunks) {
      const m = h.old.length
      if (m === 0) {
        from = h.oldStart + shift
        locatedBy.push('line_number')
        continue
      }
      const places = []
      for (let q = h.atEof ? n - m : from; q <= n - m; q++) {
        if (q >= from && h.old.every((x, k) => fileLines[q + k] === x)) places.push(q)
      }
      const hinted = h.oldStart - 1 + shift
      let at
      if (places.length === 1) {
        at = places[0]
        locatedBy.push('content')
      } else if (places.includes(hinted)) {
        at = hinted
        locatedBy.push('line_number')
        ties++
      } else {
        return null
      }
      shift = at - (h.oldStart - 1)
      from = at + m
    }
  }
  return { locatedBy, ties }
}

test('unified diffs from git diff on real edits apply to the same bytes as git apply', { timeout: 600_000 }, async (t) => {
  if (!gitOk) {
    t.skip('git is not installed')
    return
  }
  const rounds = Number(process.env.PFT_GIT_DIFF_ROUNDS) || 100
  // Every round's edit is diffed with git's default context, with one line
  // of context and with none (-U0, which `git apply` takes with
  // --unidiff-zero).
  const CONTEXTS = ['-U3', '-U1', '-U0']
  const counts = Object.fromEntries(CONTEXTS.map((c) => [c, { diffs: 0, identical: 0, gitOff: 0, byLine: 0, refused: 0 }]))
  for (let round = 0; round < rounds; round++) {
    const r = rng(1000 + round)
    const base = tempDir('pft-git-')
    const repo = path.join(base, 'repo')
    fs.mkdirSync(repo)
    git(repo, 'init', '-q')
    fs.writeFileSync(path.join(repo, '.gitattributes'), '* -text\n')
    const files = {}
    const count = 2 + Math.floor(r() * 4)
    for (let i = 0; i < count; i++) {
      const eol = r() < 0.3 ? '\r\n' : '\n'
      files[`${i % 2 ? 'src/' : ''}f${i}.txt`] = { text: randomFile(r, eol, r() < 0.85), eol }
    }
    for (const [p, f] of Object.entries(files)) writeTree(repo, { [p]: f.text })
    git(repo, 'add', '-A')
    git(repo, 'commit', '-q', '-m', 'base')
    const original = snapshot(repo)
    // Real edits: change most files, maybe add, delete and rename one.
    for (const [p, f] of Object.entries(files)) {
      if (r() < 0.8) fs.writeFileSync(path.join(repo, p), editText(r, f.text, f.eol))
    }
    const names = Object.keys(files)
    if (r() < 0.4) writeTree(repo, { [`new/added${round}.txt`]: randomFile(r, '\n', true) })
    if (r() < 0.3 && names.length > 2) fs.rmSync(path.join(repo, names[0]))
    else if (r() < 0.4 && names.length > 2) {
      const from = names[names.length - 1]
      fs.mkdirSync(path.join(repo, 'moved'), { recursive: true })
      git(repo, 'mv', from, `moved/${path.basename(from)}`)
    }
    git(repo, 'add', '-A')
    const edited = snapshot(repo)
    delete edited['.gitattributes']
    for (const context of CONTEXTS) {
      const diff = git(repo, 'diff', '--cached', '-M', context, '--', '.', ':!.gitattributes')
      if (diff.length === 0) continue
      const where = `round ${round} (${context})`
      // git apply on one copy of the original, applyPatch on another.
      const byGit = path.join(base, `git${context}`)
      const byUs = path.join(base, `us${context}`)
      for (const d of [byGit, byUs]) {
        writeTree(d, original)
        fs.rmSync(path.join(d, '.gitattributes'))
      }
      const before = snapshot(byUs)
      const g = spawnSync('git', ['apply', context === '-U0' ? '--unidiff-zero' : '--verbose', '-'], { cwd: byGit, input: diff })
      assert.equal(g.status, 0, `${where}: git apply failed: ${g.stderr}`)
      counts[context].diffs++
      const res = await applyPatch(diff.toString('utf8'), { workspaceRoot: byUs, durable: false })
      const model = modelPlacement(diff.toString('utf8'), original)
      if (model) {
        assert.equal(res.ok, true, `${where}: ${JSON.stringify(res)}\n${diff}`)
        assert.equal(res.format, 'unified_diff')
        assertSameTree(snapshot(byUs), edited, `${where} vs the edited tree`)
        const got = res.files.flatMap((f) => (f.hunks ?? []).map((h) => h.located_by))
        assert.deepEqual(got, model.locatedBy, `${where}: how each hunk was located\n${diff}`)
        if (model.ties > 0) counts[context].byLine++
        if (sameTree(snapshot(byGit), edited)) {
          assertSameTree(snapshot(byUs), snapshot(byGit), `${where} vs git apply`)
          counts[context].identical++
        } else {
          // git apply --unidiff-zero cannot tie a hunk to the end of the
          // file: removing a last line that has no newline, it takes the
          // first equal line from its start line on (comparing without the
          // newline) and leaves the file other than the edit. Only that
          // case may differ from git; we give the edited bytes.
          assert.equal(context, '-U0', `${where}: git apply did not reproduce the edit\n${diff}`)
          assert.match(diff.toString('utf8'), /\n-[^\n]*\n\\ No newline at end of file/, `${where}: git apply differs\n${diff}`)
          counts[context].gitOff++
        }
      } else {
        // No place at the header's line: undecidable, refused, nothing written.
        assert.equal(res.code, CODES.SEARCH_BLOCK_AMBIGUOUS, `${where}: ${JSON.stringify(res)}\n${diff}`)
        assertSameTree(snapshot(byUs), before, `${where}: refused diff wrote nothing`)
        counts[context].refused++
      }
    }
    fs.rmSync(base, { recursive: true, force: true })
  }
  for (const c of CONTEXTS) {
    const k = counts[c]
    t.diagnostic(
      `${c}: ${k.diffs} diffs from ${rounds} rounds, ${k.identical} applied byte-identical to git apply ` +
        `(${k.byLine} needed a header's line to choose among equal places), ${k.refused} refused as undecidable` +
        (k.gitOff ? `, ${k.gitOff} where git apply itself missed the edit (a removed last line without newline) and we gave the edited bytes` : ''),
    )
    // A diff made from the file as it is always has a place at each header's
    // line, so none is undecidable, and every one git applies, we apply.
    assert.equal(k.refused, 0, `${c}: ${k.refused} diffs had a hunk with no place at its header's line`)
    assert.equal(k.identical + k.gitOff, k.diffs)
    assert.ok(k.diffs >= rounds * 0.9, `${c}: only ${k.diffs} of ${rounds} rounds made a diff`)
  }
})

// ---------------------------------------------------------------------------
// CLI

test('CLI apply-patch: stdin or file, --json, --dry-run, exit codes', () => {
  const dir = tempDir()
  writeTree(dir, { 'f.txt': 'a\nb\n' })
  const patch = '*** Begin Patch\n*** Update File: f.txt\n@@\n a\n-b\n+B\n*** End Patch\n'
  const run = (args, input) => spawnSync(process.execPath, [BIN, 'apply-patch', ...args], { cwd: dir, input, encoding: 'utf8', env: cleanEnv() })
  const dry = run(['--dry-run'], patch)
  assert.equal(dry.status, 0, dry.stderr)
  assert.match(dry.stdout, /^-b\n\+B$/m)
  assert.equal(fs.readFileSync(path.join(dir, 'f.txt'), 'utf8'), 'a\nb\n')
  const ok = run(['--json'], patch)
  assert.equal(ok.status, 0, ok.stderr)
  assert.equal(JSON.parse(ok.stdout).files[0].hunks[0].level, 'exact')
  assert.equal(fs.readFileSync(path.join(dir, 'f.txt'), 'utf8'), 'a\nB\n')
  fs.writeFileSync(path.join(dir, 'p.diff'), '--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-B\n+b2\n')
  const fromFile = run(['p.diff'], '')
  assert.equal(fromFile.status, 0, fromFile.stderr)
  assert.match(fromFile.stdout, /^update f\.txt \(1 hunk\)$/m)
  const bad = run([], '*** Begin Patch\n*** Nonsense\n*** End Patch\n')
  assert.equal(bad.status, 1)
  assert.match(bad.stderr, /PATCH_PARSE_ERROR: line 2/)
  const refused = run([], patch)
  assert.equal(refused.status, 1)
  assert.match(refused.stderr, /SEARCH_BLOCK_NOT_FOUND/)
  assert.equal(fs.readFileSync(path.join(dir, 'f.txt'), 'utf8'), 'a\nb2\n')
})

// ---------------------------------------------------------------------------
// MCP tools through the SDK client

/** The SDK client on a server listing every tool with its output schema (helpers/mcp-client.mjs validates each result). */
function withClient(root, fn) {
  return withMcpClient({ args: ['--root', root], name: 'formats-test' }, fn)
}

function structured(r) {
  assert.deepEqual(JSON.parse(r.content[0].text), r.structuredContent)
  return r.structuredContent
}

test('MCP: edit_block, apply_patch, str_replace_based_edit_tool and edit_file through the SDK client', { timeout: 60_000 }, async () => {
  const dir = tempDir()
  writeTree(dir, { 'a.txt': 'one\ntwo\n', 'b.txt': 'x = 1\n', 'c.txt': 'c\n' })
  await withClient(dir, async (client) => {
    const { tools } = await client.listTools()
    for (const name of ['edit_block', 'apply_patch', 'str_replace_based_edit_tool', 'edit_file']) {
      const t = tools.find((x) => x.name === name)
      assert.ok(t, `${name} listed`)
      assert.deepEqual(t.inputSchema, schemas[name].parameters)
    }

    let r = await client.callTool({ name: 'edit_block', arguments: { blockContent: 'a.txt\n<<<<<<< SEARCH\ntwo\n=======\n2\n>>>>>>> REPLACE\n' } })
    assert.equal(r.isError, false, JSON.stringify(r))
    assert.equal(structured(r).verified, true)
    assert.equal(fs.readFileSync(path.join(dir, 'a.txt'), 'utf8'), 'one\n2\n')

    r = await client.callTool({ name: 'apply_patch', arguments: { patch: '*** Begin Patch\n*** Update File: b.txt\n@@\n-x = 1\n+x = 2\n*** Add File: d/new.txt\n+new\n*** End Patch\n' } })
    assert.equal(r.isError, false, JSON.stringify(r))
    assert.deepEqual(structured(r).files.map((f) => f.action), ['update', 'add'])
    assert.equal(fs.readFileSync(path.join(dir, 'd/new.txt'), 'utf8'), 'new\n')

    r = await client.callTool({ name: 'apply_patch', arguments: { patch: '*** Begin Patch\n*** Delete File: c.txt\n*** Update File: b.txt\n@@\n-nope\n+x\n*** End Patch\n' } })
    assert.equal(r.isError, true)
    assert.equal(structured(r).code, 'SEARCH_BLOCK_NOT_FOUND')
    assert.ok(fs.existsSync(path.join(dir, 'c.txt')), 'all or nothing')

    r = await client.callTool({ name: 'str_replace_based_edit_tool', arguments: { command: 'view', path: 'b.txt' } })
    assert.equal(structured(r).content, '     1\tx = 2\n')
    r = await client.callTool({ name: 'str_replace_based_edit_tool', arguments: { command: 'str_replace', path: 'b.txt', old_str: 'x = 2', new_str: 'x = 3' } })
    assert.equal(r.isError, false, JSON.stringify(r))
    r = await client.callTool({ name: 'str_replace_based_edit_tool', arguments: { command: 'undo_edit', path: 'b.txt' } })
    assert.equal(r.isError, false, JSON.stringify(r))
    assert.equal(fs.readFileSync(path.join(dir, 'b.txt'), 'utf8'), 'x = 2\n')

    r = await client.callTool({ name: 'edit_file', arguments: { path: 'a.txt', edits: [{ oldText: 'one', newText: '1' }], dryRun: true } })
    assert.equal(r.isError, false, JSON.stringify(r))
    assert.match(structured(r).diff, /-one\n\+1/)
    r = await client.callTool({ name: 'edit_file', arguments: { path: 'a.txt', edits: [{ oldText: 'one', newText: '1' }] } })
    assert.equal(r.isError, false, JSON.stringify(r))
    assert.equal(fs.readFileSync(path.join(dir, 'a.txt'), 'utf8'), '1\n2\n')
    r = await client.callTool({ name: 'edit_file', arguments: { path: '../outside.txt', edits: [{ oldText: 'a', newText: 'b' }] } })
    assert.equal(r.isError, true)
    assert.equal(structured(r).code, 'PATH_OUTSIDE_WORKSPACE')
  })
})
