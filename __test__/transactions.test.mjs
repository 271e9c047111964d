// Transactions through the JS API: multi-edit, counts, sha256 preconditions,
// dry run + applyDryRun, batches, readFile / writeFile.
import './helpers/private-state.mjs'
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { patchFile, batchPatchFiles, applyDryRun, readFile, writeFile } from '../index.mjs'

const mkroot = () => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pft-tx-')))
const opts = (root, extra = {}) => ({ workspaceRoot: root, durable: false, ...extra })
const sha = (bytes) => crypto.createHash('sha256').update(bytes).digest('hex')
const read = (root, rel) => fs.readFileSync(path.join(root, rel))
const put = (root, rel, body) => {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
  fs.writeFileSync(path.join(root, rel), body)
}
const hasGit = spawnSync('git', ['--version']).status === 0

/// Applies `diff` with real `git apply` (after `--check`) in `dir`.
function gitApply(dir, diff) {
  assert.equal(spawnSync('git', ['init', '-q'], { cwd: dir }).status, 0)
  const check = spawnSync('git', ['apply', '--check', '-'], { cwd: dir, input: diff })
  assert.equal(check.status, 0, `git apply --check: ${check.stderr}\n${diff}`)
  const apply = spawnSync('git', ['apply', '-'], { cwd: dir, input: diff })
  assert.equal(apply.status, 0, `git apply: ${apply.stderr}`)
}

// ---------------------------------------------------------------------------
// One file, many edits

test('edits[] accepts every alias; results list each edit and the total', async () => {
  const root = mkroot()
  put(root, 'a.txt', 'one\ntwo\nthree\nfour\nfive\nsix\n')
  const r = await patchFile(
    {
      file_path: 'a.txt',
      edits: [
        { search_block: 'one', replace_block: '1' },
        { searchBlock: 'two', replaceBlock: '2' },
        { search: 'three', replace: '3' },
        { oldText: 'four', newText: '4' },
        { old_string: 'five', new_string: '5' },
        { old_str: 'six', new_str: '6' },
      ],
    },
    opts(root),
  )
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(read(root, 'a.txt').toString(), '1\n2\n3\n4\n5\n6\n')
  assert.equal(r.replacements, 6)
  assert.deepEqual(r.edits, [1, 2, 3, 4, 5, 6].map((n) => ({ line_number: n, replacements: 1 })))
  assert.equal(r.line_number, 1)
})

test('edits[] together with a single pair is INVALID_INPUT and writes nothing', async () => {
  const root = mkroot()
  put(root, 'a.txt', 'x\n')
  for (const single of [
    { search_block: 'x', replace_block: 'y' },
    { oldText: 'x', newText: 'y' },
    { replace_all: true },
  ]) {
    const r = await patchFile({ file_path: 'a.txt', ...single, edits: [{ search: 'x', replace: 'z' }] }, opts(root))
    assert.equal(r.code, 'INVALID_INPUT', JSON.stringify(r))
  }
  assert.equal(read(root, 'a.txt').toString(), 'x\n')
})

test('edits apply in order, each to the result of the previous one', async () => {
  const root = mkroot()
  put(root, 'o.txt', 'alpha\nbeta\n')
  const r = await patchFile(
    {
      file_path: 'o.txt',
      edits: [
        { search: 'alpha', replace: 'gamma\ndelta' },
        { search: 'delta\nbeta', replace: 'epsilon' }, // only exists after edit 0
        { search: 'gamma', replace: 'zeta', replace_all: true },
      ],
    },
    opts(root),
  )
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(read(root, 'o.txt').toString(), 'zeta\nepsilon\n')
  assert.deepEqual(r.edits, [
    { line_number: 1, replacements: 1 },
    { line_number: 2, replacements: 1 },
    { line_number: 1, replacements: 1 },
  ])
})

test('an edit failing in the middle of five leaves the file byte-identical and is reported by index', async () => {
  const root = mkroot()
  const original = Buffer.from('l1 = 1;\r\nl2 = 2;\nl3 = 3;\nl4 = 4;\nl5 = 5;')
  put(root, 'm.js', original)
  const before = fs.statSync(path.join(root, 'm.js'))
  const r = await patchFile(
    {
      file_path: 'm.js',
      edits: [
        { search_block: 'l1 = 1;', replace_block: 'l1 = 10;' },
        { search_block: 'l2 = 2;', replace_block: 'l2 = 20;' },
        { search_block: 'l3 = 33;', replace_block: 'l3 = 30;' },
        { search_block: 'l4 = 4;', replace_block: 'l4 = 40;' },
        { search_block: 'l5 = 5;', replace_block: 'l5 = 50;' },
      ],
    },
    opts(root),
  )
  assert.equal(r.ok, false)
  assert.equal(r.code, 'SEARCH_BLOCK_NOT_FOUND')
  assert.equal(r.match_count, 0)
  assert.equal(r.failed_edits.length, 1)
  assert.deepEqual(
    [r.failed_edits[0].index, r.failed_edits[0].code, r.failed_edits[0].match_count],
    [2, 'SEARCH_BLOCK_NOT_FOUND', 0],
  )
  assert.match(r.failed_edits[0].message, /^edits\[2\]/)
  assert.ok(read(root, 'm.js').equals(original), 'bytes changed')
  assert.equal(fs.statSync(path.join(root, 'm.js')).ino, before.ino, 'the file was replaced')
  assert.deepEqual(fs.readdirSync(root), ['m.js'], 'temp files left')
})

test('two failing edits are both reported', async () => {
  const root = mkroot()
  put(root, 't.txt', 'a\nb\nb\nc\n')
  const r = await patchFile(
    {
      file_path: 't.txt',
      edits: [
        { search: 'a', replace: 'A' },
        { search: 'b', replace: 'B' }, // ambiguous: 2
        { search: 'c', replace: 'C' },
        { search: 'nope', replace: '' }, // not found
      ],
    },
    opts(root),
  )
  assert.equal(r.ok, false)
  assert.equal(r.code, 'SEARCH_BLOCK_AMBIGUOUS', 'the first failure gives the code')
  assert.deepEqual(
    r.failed_edits.map((f) => [f.index, f.code, f.match_count]),
    [
      [1, 'SEARCH_BLOCK_AMBIGUOUS', 2],
      [3, 'SEARCH_BLOCK_NOT_FOUND', 0],
    ],
  )
  assert.deepEqual(r.failed_edits[0].match_lines, [2, 3])
  assert.equal(read(root, 't.txt').toString(), 'a\nb\nb\nc\n')
})

test('counts: expected_replacements N exact, replace_all, both at once, mismatch', async () => {
  const root = mkroot()
  const text = 'x = 1\nx = 1\nx = 1\ny\n'
  put(root, 'c.txt', text)
  const call = (extra) => patchFile({ file_path: 'c.txt', search_block: 'x = 1', replace_block: 'x = 2', ...extra }, opts(root))

  for (const n of [1, 2, 4]) {
    const r = await call({ expected_replacements: n })
    assert.equal(r.code, 'REPLACEMENT_COUNT_MISMATCH', JSON.stringify(r))
    assert.equal(r.match_count, 3, 'the found count')
    assert.deepEqual(r.match_lines, [1, 2, 3])
    assert.equal(read(root, 'c.txt').toString(), text)
  }
  let r = await call({ expected_replacements: 2, replace_all: true })
  assert.equal(r.code, 'INVALID_INPUT')
  r = await call({ expectedReplacements: 0 })
  assert.equal(r.code, 'INVALID_INPUT')
  r = await call({})
  assert.equal(r.code, 'SEARCH_BLOCK_AMBIGUOUS', 'the default is exactly one')
  assert.equal(read(root, 'c.txt').toString(), text)

  r = await call({ expected_replacements: 3 })
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(r.replacements, 3)
  assert.deepEqual(r.edits, [{ line_number: 1, replacements: 3 }])
  assert.equal(read(root, 'c.txt').toString(), 'x = 2\nx = 2\nx = 2\ny\n')

  r = await patchFile({ file_path: 'c.txt', search: 'x = 2', replace: 'z', replaceAll: true }, opts(root))
  assert.equal(r.replacements, 3)
  assert.equal(read(root, 'c.txt').toString(), 'z\nz\nz\ny\n')
  r = await patchFile({ file_path: 'c.txt', search: 'absent', replace: 'z', replace_all: true }, opts(root))
  assert.equal(r.code, 'SEARCH_BLOCK_NOT_FOUND', 'replace_all needs at least one')
  assert.equal(r.match_count, 0)
  // Occurrences are counted without overlap.
  put(root, 'o.txt', 'aaaa')
  r = await patchFile({ file_path: 'o.txt', search: 'aa', replace: 'b', expected_replacements: 2 }, opts(root))
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(read(root, 'o.txt').toString(), 'bb')
})

// ---------------------------------------------------------------------------
// Hash preconditions

test('sha256_before / sha256 are the hashes of the bytes on disk', async () => {
  const root = mkroot()
  const before = Buffer.from('\uFEFFconst a = "é";\r\n', 'utf8')
  put(root, 'h.js', before)
  const r = await patchFile({ file_path: 'h.js', search_block: '"é"', replace_block: '"😀"' }, opts(root))
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(r.sha256_before, sha(before))
  assert.equal(r.sha256, sha(read(root, 'h.js')))
  assert.match(r.sha256, /^[0-9a-f]{64}$/)
})

test('expected_sha256: a mismatch is FILE_CHANGED with the current sha256 and writes nothing', async () => {
  const root = mkroot()
  put(root, 's.txt', 'v1\n')
  const first = await readFile({ file_path: 's.txt' }, opts(root))
  put(root, 's.txt', 'v2\n') // someone else's change
  const r = await patchFile(
    { file_path: 's.txt', search_block: 'v', replace_block: 'w', expected_sha256: first.sha256 },
    opts(root),
  )
  assert.equal(r.ok, false)
  assert.equal(r.code, 'FILE_CHANGED')
  assert.equal(r.sha256, sha(Buffer.from('v2\n')))
  assert.equal(read(root, 's.txt').toString(), 'v2\n')
  // With the current hash (any case) it applies.
  const ok = await patchFile(
    { file_path: 's.txt', search_block: 'v', replace_block: 'w', expectedSha256: r.sha256.toUpperCase() },
    opts(root),
  )
  assert.equal(ok.ok, true, JSON.stringify(ok))
  assert.equal(read(root, 's.txt').toString(), 'w2\n')
  const bad = await patchFile({ file_path: 's.txt', search_block: 'w', replace_block: 'v', expected_sha256: 'abc' }, opts(root))
  assert.equal(bad.code, 'INVALID_INPUT')
})

test('32 concurrent single edits to distinct blocks of one file all land', async () => {
  const root = mkroot()
  const n = 32
  const block = (i, v) => `function f${i}() {\n  return ${v};\n}\n`
  put(root, 'big.js', Array.from({ length: n }, (_, i) => block(i, 'old')).join('\n'))
  const results = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      patchFile({ file_path: 'big.js', search_block: block(i, 'old'), replace_block: block(i, `new${i}`) }, opts(root)),
    ),
  )
  for (const r of results) assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(read(root, 'big.js').toString(), Array.from({ length: n }, (_, i) => block(i, `new${i}`)).join('\n'))
  // Every call saw the previous one's result: the chain of hashes is unbroken.
  const befores = new Set(results.map((r) => r.sha256_before))
  const afters = new Set(results.map((r) => r.sha256))
  assert.equal(befores.size, n)
  assert.equal([...afters].filter((h) => befores.has(h)).length, n - 1)
})

// ---------------------------------------------------------------------------
// Dry run and applyDryRun

test('dry_run writes nothing and returns a diff relative to the root, a run_id and expires_in', async () => {
  const root = mkroot()
  put(root, 'src/app.js', 'const a = 1;\nconst b = 2;\n')
  const r = await patchFile(
    { file_path: 'src/app.js', search_block: 'b = 2', replace_block: 'b = 3', dry_run: true },
    opts(root),
  )
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(r.dry_run, true)
  assert.equal(read(root, 'src/app.js').toString(), 'const a = 1;\nconst b = 2;\n')
  assert.equal(
    r.diff,
    '--- a/src/app.js\n+++ b/src/app.js\n@@ -1,2 +1,2 @@\n const a = 1;\n-const b = 2;\n+const b = 3;\n',
  )
  assert.match(r.run_id, /^dr_[A-Za-z0-9_-]{16}$/)
  assert.equal(r.expires_in, 300)
  assert.equal(r.sha256_before, sha(read(root, 'src/app.js')))
  assert.equal(r.sha256, sha(Buffer.from('const a = 1;\nconst b = 3;\n')))
  const again = await patchFile(
    { file_path: 'src/app.js', search_block: 'b = 2', replace_block: 'b = 3', dryRun: true },
    opts(root, { dryRunTtlSeconds: 42 }),
  )
  assert.equal(again.expires_in, 42)
  assert.notEqual(again.run_id, r.run_id)
  assert.deepEqual(fs.readdirSync(path.join(root, 'src')), ['app.js'])
})

test('the previewed diff applies with git apply and yields exactly what applyDryRun writes', { skip: !hasGit && 'git not found' }, async () => {
  const cases = {
    lf: ['a\nb\nc\nd\ne\nf\ng\n', [{ search: 'b', replace: 'B\nB2' }, { search: 'f\n', replace: '' }]],
    crlf: ['one\r\ntwo\r\nthree\r\n', [{ search: 'two', replace: '2' }]],
    'no final newline': ['x\ny', [{ search: 'y', replace: 'z' }]],
    'add final newline': ['x\ny', [{ search: 'y', replace: 'y\n' }]],
    bom: ['\uFEFFfirst\nsecond\n', [{ search: 'first', replace: 'premier' }]],
    unicode: ['naïve → 😀\n'.repeat(3) + 'end\n', [{ search: 'end', replace: 'fin ✓' }]],
    'replace all': ['k\nv\nk\n', [{ search: 'k', replace: 'key', replace_all: true }]],
  }
  for (const [name, [text, edits]] of Object.entries(cases)) {
    const root = mkroot()
    const copy = mkroot()
    put(root, 'dir/f.txt', text)
    put(copy, 'dir/f.txt', text)
    const dry = await patchFile({ file_path: 'dir/f.txt', edits, dry_run: true }, opts(root))
    assert.equal(dry.ok, true, `${name}: ${JSON.stringify(dry)}`)
    assert.equal(read(root, 'dir/f.txt').toString(), text, `${name}: dry run wrote`)
    gitApply(copy, dry.diff)
    const applied = await applyDryRun({ run_id: dry.run_id }, opts(root))
    assert.equal(applied.ok, true, `${name}: ${JSON.stringify(applied)}`)
    assert.ok(read(copy, 'dir/f.txt').equals(read(root, 'dir/f.txt')), `${name}: git apply and applyDryRun differ`)
    assert.equal(applied.sha256, dry.sha256)
    assert.equal(applied.sha256_before, dry.sha256_before)
    assert.equal(applied.sha256, sha(read(root, 'dir/f.txt')))
    assert.equal(applied.run_id, dry.run_id)
  }
})

test('applyDryRun after the file changed writes nothing (FILE_CHANGED)', async () => {
  const root = mkroot()
  put(root, 'f.txt', 'a = 1\n')
  const dry = await patchFile({ file_path: 'f.txt', search: 'a = 1', replace: 'a = 2', dry_run: true }, opts(root))
  put(root, 'f.txt', 'a = 1\nb = 1\n')
  const r = await applyDryRun({ run_id: dry.run_id }, opts(root))
  assert.equal(r.ok, false)
  assert.equal(r.code, 'FILE_CHANGED')
  assert.equal(r.sha256, sha(Buffer.from('a = 1\nb = 1\n')))
  assert.equal(read(root, 'f.txt').toString(), 'a = 1\nb = 1\n')
})

test('applyDryRun: a second apply of the same id, and an unknown id, are RUN_ID_NOT_FOUND', async () => {
  const root = mkroot()
  put(root, 'f.txt', 'a = 1\n')
  const dry = await patchFile({ file_path: 'f.txt', search: 'a = 1', replace: 'a = 2', dry_run: true }, opts(root))
  const first = await applyDryRun({ run_id: dry.run_id }, opts(root))
  assert.equal(first.ok, true, JSON.stringify(first))
  put(root, 'f.txt', 'a = 1\n') // even with the original bytes back
  const second = await applyDryRun({ runId: dry.run_id }, opts(root))
  assert.equal(second.code, 'RUN_ID_NOT_FOUND')
  assert.equal(read(root, 'f.txt').toString(), 'a = 1\n')
  const unknown = await applyDryRun({ run_id: 'dr_AAAAAAAAAAAAAAAA' }, opts(root))
  assert.equal(unknown.code, 'RUN_ID_NOT_FOUND')
  const missing = await applyDryRun({}, opts(root))
  assert.equal(missing.code, 'INVALID_INPUT')
})

test('applyDryRun: the same id applied concurrently succeeds once', async () => {
  const root = mkroot()
  put(root, 'f.txt', 'n = 0\n')
  const dry = await patchFile({ file_path: 'f.txt', search: 'n = 0', replace: 'n = 1', dry_run: true }, opts(root))
  const rs = await Promise.all(Array.from({ length: 8 }, () => applyDryRun({ run_id: dry.run_id }, opts(root))))
  assert.equal(rs.filter((r) => r.ok).length, 1)
  assert.ok(rs.filter((r) => !r.ok).every((r) => r.code === 'RUN_ID_NOT_FOUND'))
  assert.equal(read(root, 'f.txt').toString(), 'n = 1\n')
})

test('applyDryRun: an expired id is RUN_ID_NOT_FOUND', async () => {
  const root = mkroot()
  put(root, 'f.txt', 'a = 1\n')
  const dry = await patchFile(
    { file_path: 'f.txt', search: 'a = 1', replace: 'a = 2', dry_run: true },
    opts(root, { dryRunTtlSeconds: 1 }),
  )
  assert.equal(dry.expires_in, 1)
  await new Promise((res) => setTimeout(res, 1300))
  const r = await applyDryRun({ run_id: dry.run_id }, opts(root))
  assert.equal(r.code, 'RUN_ID_NOT_FOUND')
  assert.equal(read(root, 'f.txt').toString(), 'a = 1\n')
  const bad = await patchFile(
    { file_path: 'f.txt', search: 'a = 1', replace: 'a = 2', dry_run: true },
    opts(root, { dryRunTtlSeconds: 0 }),
  )
  assert.equal(bad.code, 'INVALID_INPUT')
  const tooLong = await patchFile(
    { file_path: 'f.txt', search: 'a = 1', replace: 'a = 2', dry_run: true },
    opts(root, { dryRunTtlSeconds: 86401 }),
  )
  assert.equal(tooLong.code, 'INVALID_INPUT')
})

// ---------------------------------------------------------------------------
// batchPatchFiles

function twenty(root) {
  const files = []
  for (let i = 0; i < 20; i++) {
    const rel = `pkg${i % 4}/mod${i}.js`
    put(root, rel, `export const id = ${i};\nexport const v = 'old';\n`)
    files.push(rel)
  }
  return files
}

test('a batch of 20 files where the 20th fails writes none and reports each file', async () => {
  const root = mkroot()
  const files = twenty(root)
  const before = files.map((f) => read(root, f))
  const r = await batchPatchFiles(
    {
      files: files.map((f, i) => ({
        file_path: f,
        search_block: i === 19 ? "v = 'missing'" : "v = 'old'",
        replace_block: "v = 'new'",
      })),
    },
    opts(root),
  )
  assert.equal(r.ok, false)
  assert.equal(r.code, 'SEARCH_BLOCK_NOT_FOUND')
  assert.equal(r.files.length, 20)
  for (let i = 0; i < 19; i++) {
    assert.equal(r.files[i].ok, true)
    assert.equal(r.files[i].index, i)
    assert.equal(r.files[i].file_path, path.join(root, files[i]))
  }
  assert.deepEqual(
    [r.files[19].ok, r.files[19].index, r.files[19].code, r.files[19].match_count, r.files[19].file_path],
    [false, 19, 'SEARCH_BLOCK_NOT_FOUND', 0, path.join(root, files[19])],
  )
  files.forEach((f, i) => assert.ok(read(root, f).equals(before[i]), `${f} changed`))
  // Each failing file is reported, with its own reason.
  const r2 = await batchPatchFiles(
    {
      files: [
        { file_path: files[0], search_block: 'nope', replace_block: '' },
        { file_path: files[1], search_block: "v = 'old'", replace_block: 'x' },
        { file_path: 'missing.js', search_block: 'a', replace_block: 'b' },
        { file_path: files[3], search_block: 'export', replace_block: 'x' },
        { file_path: files[4], search_block: 'a', replace_block: 'b', expected_sha256: '0'.repeat(64) },
      ],
    },
    opts(root),
  )
  assert.deepEqual(
    r2.files.map((f) => [f.index, f.ok, f.code]),
    [
      [0, false, 'SEARCH_BLOCK_NOT_FOUND'],
      [1, true, undefined],
      [2, false, 'FILE_READ_ERROR'],
      [3, false, 'SEARCH_BLOCK_AMBIGUOUS'],
      [4, false, 'FILE_CHANGED'],
    ],
  )
  assert.equal(r2.files[4].sha256, sha(before[4]))
  files.forEach((f, i) => assert.ok(read(root, f).equals(before[i]), `${f} changed`))
})

test('a batch of 20 files applies all, with per-file figures', async () => {
  const root = mkroot()
  const files = twenty(root)
  const r = await batchPatchFiles(
    {
      files: files.map((f, i) =>
        i % 2
          ? { filePath: f, searchBlock: "v = 'old'", replaceBlock: "v = 'new'" }
          : { file_path: f, edits: [{ old_string: "v = 'old'", new_string: "v = 'new'" }], expected_sha256: sha(read(root, f)) },
      ),
    },
    opts(root),
  )
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(r.replacements, 20)
  assert.equal(r.files.length, 20)
  files.forEach((f, i) => {
    assert.equal(read(root, f).toString(), `export const id = ${i};\nexport const v = 'new';\n`)
    assert.equal(r.files[i].file_path, path.join(root, f))
    assert.equal(r.files[i].sha256, sha(read(root, f)))
    assert.deepEqual(r.files[i].edits, [{ line_number: 2, replacements: 1 }])
  })
})

test('the same file twice in one batch (also through a symlink) is INVALID_INPUT', async () => {
  const root = mkroot()
  put(root, 'a.txt', 'x\n')
  fs.symlinkSync('a.txt', path.join(root, 'link.txt'))
  const e = (p) => ({ file_path: p, search_block: 'x', replace_block: 'y' })
  for (const other of ['a.txt', './a.txt', path.join(root, 'a.txt'), 'link.txt']) {
    const r = await batchPatchFiles({ files: [e('a.txt'), e(other)] }, opts(root))
    assert.equal(r.code, 'INVALID_INPUT', `${other}: ${JSON.stringify(r)}`)
  }
  assert.equal(read(root, 'a.txt').toString(), 'x\n')
  assert.equal((await batchPatchFiles({ files: [] }, opts(root))).code, 'INVALID_INPUT')
})

test('a dry-run batch gives one run_id that applies every file', async () => {
  const root = mkroot()
  const copy = mkroot()
  const files = twenty(root).slice(0, 5)
  for (const f of files) put(copy, f, read(root, f))
  const r = await batchPatchFiles(
    { files: files.map((f) => ({ file_path: f, search_block: "'old'", replace_block: "'new'" })), dry_run: true },
    opts(root),
  )
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(r.dry_run, true)
  assert.match(r.run_id, /^dr_/)
  assert.equal(r.expires_in, 300)
  assert.equal(r.files.length, 5)
  for (const f of files) {
    assert.ok(r.diff.includes(`--- a/${f}\n+++ b/${f}\n`), f)
    assert.equal(read(root, f).toString().includes("'old'"), true, 'dry run wrote')
  }
  assert.equal(r.files[0].diff.startsWith(`--- a/${files[0]}\n`), true)
  if (hasGit) gitApply(copy, r.diff)
  const a = await applyDryRun({ run_id: r.run_id }, opts(root))
  assert.equal(a.ok, true, JSON.stringify(a))
  assert.equal(a.files.length, 5)
  files.forEach((f, i) => {
    assert.equal(read(root, f).toString().includes("'new'"), true)
    assert.equal(a.files[i].sha256, r.files[i].sha256)
    if (hasGit) assert.ok(read(copy, f).equals(read(root, f)), f)
  })
  // A change to any one file voids the whole run.
  const r2 = await batchPatchFiles(
    { files: files.map((f) => ({ file_path: f, search_block: "'new'", replace_block: "'newer'" })), dry_run: true },
    opts(root),
  )
  put(root, files[3], 'changed\n')
  const a2 = await applyDryRun({ run_id: r2.run_id }, opts(root))
  assert.equal(a2.code, 'FILE_CHANGED')
  assert.equal(a2.file_path, path.join(root, files[3]))
  for (const f of files.slice(0, 3)) assert.equal(read(root, f).toString().includes("'newer'"), false)
})

// ---------------------------------------------------------------------------
// readFile

test('readFile: offset/limit, total_lines, next_offset, sha256 of the whole file', async () => {
  const root = mkroot()
  const text = Array.from({ length: 10 }, (_, i) => `line ${i}`).join('\n') + '\n'
  put(root, 'r.txt', text)
  const r = await readFile({ file_path: 'r.txt', offset: 2, limit: 3 }, opts(root))
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(r.content, 'line 2\nline 3\nline 4\n')
  assert.equal(r.total_lines, 10)
  assert.equal(r.offset, 2)
  assert.equal(r.lines, 3)
  assert.equal(r.next_offset, 5)
  assert.equal(r.sha256, sha(Buffer.from(text)))
  assert.equal(r.file_path, path.join(root, 'r.txt'))
  const [encoding, bom, le] = [r.encoding, r.bom, r.line_ending]
  assert.deepEqual([encoding, bom, le], ['utf-8', false, 'lf'])

  const all = await readFile({ file_path: 'r.txt' }, opts(root))
  assert.equal(all.content, text)
  assert.equal(all.next_offset, undefined)
  assert.equal(all.sha256, r.sha256)
  const tail = await readFile({ file_path: 'r.txt', offset: 8, limit: 5 }, opts(root))
  assert.deepEqual([tail.content, tail.lines, tail.next_offset], ['line 8\nline 9\n', 2, undefined])
  const past = await readFile({ file_path: 'r.txt', offset: 50 }, opts(root))
  assert.deepEqual([past.content, past.lines, past.total_lines], ['', 0, 10])
  // Paging with next_offset reassembles the file.
  let off = 0
  let acc = ''
  for (;;) {
    const p = await readFile({ file_path: 'r.txt', offset: off, limit: 4 }, opts(root))
    acc += p.content
    if (p.next_offset === undefined) break
    off = p.next_offset
  }
  assert.equal(acc, text)
  assert.equal((await readFile({ file_path: 'r.txt', offset: -1 }, opts(root))).code, 'INVALID_INPUT')
  assert.equal((await readFile({ file_path: 'r.txt', limit: 0 }, opts(root))).code, 'INVALID_INPUT')
})

test('readFile: encodings, BOM and line endings', async () => {
  const root = mkroot()
  const cases = [
    ['lf.txt', Buffer.from('a\nb'), 'utf-8', false, 'lf', 'a\nb', 2],
    ['crlf.txt', Buffer.from('a\r\nb\r\n'), 'utf-8', false, 'crlf', 'a\r\nb\r\n', 2],
    ['mixed.txt', Buffer.from('a\r\nb\nc'), 'utf-8', false, 'mixed', 'a\r\nb\nc', 3],
    ['none.txt', Buffer.from('just one line'), 'utf-8', false, 'none', 'just one line', 1],
    ['empty.txt', Buffer.alloc(0), 'utf-8', false, 'none', '', 0],
    ['bom.txt', Buffer.from('\uFEFFhé\n'), 'utf-8', true, 'lf', 'hé\n', 1],
    [
      'u16le.txt',
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('héllo ☃\r\nw\r\n', 'utf16le')]),
      'utf-16le',
      true,
      'crlf',
      'héllo ☃\r\nw\r\n',
      2,
    ],
    [
      'u16be.txt',
      Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('ab\n', 'utf16le').swap16()]),
      'utf-16be',
      true,
      'lf',
      'ab\n',
      1,
    ],
  ]
  for (const [name, bytes, encoding, bom, le, content, lines] of cases) {
    put(root, name, bytes)
    const r = await readFile({ filePath: name }, opts(root))
    assert.equal(r.ok, true, `${name}: ${JSON.stringify(r)}`)
    assert.deepEqual(
      [r.encoding, r.bom, r.line_ending, r.content, r.total_lines, r.sha256],
      [encoding, bom, le, content, lines, sha(bytes)],
      name,
    )
  }
})

test('readFile: same sandbox and binary rules as patching', async () => {
  const root = mkroot()
  const outside = mkroot()
  put(outside, 'secret.txt', 'secret\n')
  put(root, 'bin.dat', Buffer.from([0x50, 0x4b, 0x00, 0x01, 0x02]))
  fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'escape.txt'))
  fs.mkdirSync(path.join(root, 'd'))
  const code = async (p) => (await readFile({ file_path: p }, opts(root))).code
  assert.equal(await code('bin.dat'), 'BINARY_FILE_REJECTED')
  assert.equal(await code(path.join(outside, 'secret.txt')), 'PATH_OUTSIDE_WORKSPACE')
  assert.equal(await code(`../${path.basename(outside)}/secret.txt`), 'PATH_OUTSIDE_WORKSPACE')
  assert.equal(await code('escape.txt'), 'PATH_OUTSIDE_WORKSPACE')
  assert.equal(await code('d'), 'TARGET_IS_DIRECTORY')
  assert.equal(await code('missing.txt'), 'FILE_READ_ERROR')
  const big = await readFile({ file_path: 'bin.dat' }, opts(root, { maxFileBytes: 2 }))
  assert.equal(big.code, 'FILE_TOO_LARGE')
})

// ---------------------------------------------------------------------------
// writeFile

test('writeFile: creates (with parent directories by default) and replaces atomically', async () => {
  const root = mkroot()
  let r = await writeFile({ file_path: 'a/b/c.txt', content: 'hello\n' }, opts(root))
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(r.created, true)
  assert.equal(r.sha256_before, null)
  assert.equal(r.sha256, sha(Buffer.from('hello\n')))
  assert.equal(read(root, 'a/b/c.txt').toString(), 'hello\n')
  r = await writeFile({ file_path: 'a/b/c.txt', content: 'bye\n' }, opts(root))
  assert.equal(r.created, false)
  assert.equal(r.sha256_before, sha(Buffer.from('hello\n')))
  assert.equal(read(root, 'a/b/c.txt').toString(), 'bye\n')
  assert.deepEqual(fs.readdirSync(path.join(root, 'a/b')), ['c.txt'], 'temp files left')
  // create_dirs: false refuses a missing parent and creates nothing.
  r = await writeFile({ file_path: 'x/y.txt', content: '', create_dirs: false }, opts(root))
  assert.equal(r.ok, false)
  assert.equal(r.code, 'FILE_READ_ERROR')
  assert.equal(fs.existsSync(path.join(root, 'x')), false)
  r = await writeFile({ file_path: 'top.txt', content: '', createDirs: false }, opts(root))
  assert.equal(r.ok, true)
  // The sandbox applies.
  r = await writeFile({ file_path: '../evil.txt', content: 'x' }, opts(root))
  assert.equal(r.code, 'PATH_OUTSIDE_WORKSPACE')
})

test('writeFile: an existing file keeps its encoding, BOM and permissions', async () => {
  const root = mkroot()
  put(root, 'u16.txt', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('old\r\n', 'utf16le')]))
  let r = await writeFile({ file_path: 'u16.txt', content: 'new ☃\r\n' }, opts(root))
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(r.encoding, 'utf-16le')
  const want = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('new ☃\r\n', 'utf16le')])
  assert.ok(read(root, 'u16.txt').equals(want))
  assert.equal(r.sha256, sha(want))

  put(root, 'bom.txt', '\uFEFFold\n')
  await writeFile({ file_path: 'bom.txt', content: 'new\n' }, opts(root))
  assert.ok(read(root, 'bom.txt').equals(Buffer.from('\uFEFFnew\n')))
  await writeFile({ file_path: 'bom.txt', content: '\uFEFFnewer\n' }, opts(root))
  assert.ok(read(root, 'bom.txt').equals(Buffer.from('\uFEFFnewer\n')), 'a BOM sent along is not doubled')

  if (process.platform !== 'win32') {
    put(root, 'run.sh', '#!/bin/sh\n')
    fs.chmodSync(path.join(root, 'run.sh'), 0o751)
    r = await writeFile({ file_path: 'run.sh', content: '#!/bin/sh\necho hi\n' }, opts(root))
    assert.equal(r.ok, true)
    assert.equal(fs.statSync(path.join(root, 'run.sh')).mode & 0o7777, 0o751)
  }
})

test('writeFile: expected_sha256 and dry_run', async () => {
  const root = mkroot()
  put(root, 'w.txt', 'v1\n')
  const h1 = sha(Buffer.from('v1\n'))
  let r = await writeFile({ file_path: 'w.txt', content: 'v2\n', expected_sha256: '1'.repeat(64) }, opts(root))
  assert.equal(r.code, 'FILE_CHANGED')
  assert.equal(r.sha256, h1)
  assert.equal(read(root, 'w.txt').toString(), 'v1\n')
  r = await writeFile({ file_path: 'nope/new.txt', content: 'x', expected_sha256: h1 }, opts(root))
  assert.equal(r.code, 'FILE_CHANGED', 'a missing file has no sha256')
  assert.equal(fs.existsSync(path.join(root, 'nope')), false)
  r = await writeFile({ file_path: 'w.txt', content: 'v2\n', expected_sha256: h1 }, opts(root))
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(read(root, 'w.txt').toString(), 'v2\n')

  const dry = await writeFile({ file_path: 'w.txt', content: 'v3\n', dry_run: true }, opts(root))
  assert.equal(dry.ok, true, JSON.stringify(dry))
  assert.equal(dry.diff, '--- a/w.txt\n+++ b/w.txt\n@@ -1 +1 @@\n-v2\n+v3\n')
  assert.equal(read(root, 'w.txt').toString(), 'v2\n')
  const dnew = await writeFile({ file_path: 'n/e/w.txt', content: 'fresh\n', dry_run: true }, opts(root))
  assert.equal(dnew.diff, '--- /dev/null\n+++ b/n/e/w.txt\n@@ -0,0 +1 @@\n+fresh\n')
  assert.equal(fs.existsSync(path.join(root, 'n')), false, 'a dry run created a directory')
  if (hasGit) {
    const copy = mkroot()
    put(copy, 'w.txt', 'v2\n')
    gitApply(copy, dry.diff + dnew.diff)
    assert.equal(read(copy, 'w.txt').toString(), 'v3\n')
    assert.equal(read(copy, 'n/e/w.txt').toString(), 'fresh\n')
  }
  assert.equal((await applyDryRun({ run_id: dry.run_id }, opts(root))).ok, true)
  assert.equal((await applyDryRun(dnew.run_id, opts(root))).ok, true)
  assert.equal(read(root, 'w.txt').toString(), 'v3\n')
  assert.equal(read(root, 'n/e/w.txt').toString(), 'fresh\n')
})
