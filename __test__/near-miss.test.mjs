// Near-miss diagnosis and opt-in tolerant matching, through the public JS API.
//
// The corpus in fixtures/near-miss/ holds realistic failing edits over source
// files in several languages, each labelled (manifest.json) with its true kind
// of difference and the lines it was meant for. The first two tests measure,
// print and assert: how often `closest_match` points at the intended lines and
// names the right kind (or `already_applied` is reported), and how often
// `match: [...]` applies exactly the intended edit, with no wrong edit ever.
import './helpers/private-state.mjs'
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { patchFileSync, batchPatchFiles, patchFileSchema } from '../index.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))
const corpus = path.join(here, 'fixtures', 'near-miss')
const manifest = JSON.parse(fs.readFileSync(path.join(corpus, 'manifest.json'), 'utf8'))
const TOLERABLE = ['line_endings', 'trailing_whitespace', 'indentation', 'unicode_punctuation']

function workspace() {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pft-near-miss-')))
}

/** Copies the case's file into `root` and returns its original bytes. */
function stage(root, c) {
  const bytes = fs.readFileSync(path.join(corpus, 'files', c.file))
  fs.writeFileSync(path.join(root, c.file), bytes)
  return bytes
}

/** The file text with 1-based lines a..b (content, no final newline) replaced by `by`. */
function withLines(text, a, b, by) {
  const starts = [0]
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') starts.push(i + 1)
  const s = starts[a - 1]
  let e = b < starts.length ? starts[b] - 1 : text.length
  if (text[e - 1] === '\r') e -= 1
  return text.slice(0, s) + by + text.slice(e)
}

const pct = (n, d) => ((100 * n) / Math.max(d, 1)).toFixed(1)

test('corpus: closest_match points at the intended lines and names the kind (goal >= 90 %)', (t) => {
  const root = workspace()
  const opts = { workspaceRoot: root, durable: false }
  let right = 0
  const misses = []
  for (const c of manifest.cases) {
    const original = stage(root, c)
    const r = patchFileSync({ file_path: c.file, search_block: c.search_block, replace_block: c.replace_block }, opts)
    assert.equal(r.code, 'SEARCH_BLOCK_NOT_FOUND', `${c.id}: ${r.message}`)
    assert.deepEqual(fs.readFileSync(path.join(root, c.file)), original, `${c.id}: file changed`)
    const [a, b] = c.lines
    let ok
    if (c.kind === 'already_applied') {
      ok = r.already_applied === true && r.applied_at?.line_number === a && r.applied_at?.end_line === b
    } else {
      const m = r.closest_match
      ok =
        m?.line_number === a &&
        m?.end_line === b &&
        m.differences.includes(c.kind) &&
        (c.kind === 'content' || !m.differences.includes('content'))
    }
    if (ok) right++
    else misses.push(`${c.id} (${c.kind}, lines ${a}-${b}): ${JSON.stringify(r.closest_match ?? null)}`)
  }
  const line = `diagnosis: ${right}/${manifest.cases.length} (${pct(right, manifest.cases.length)} %) point at the intended lines with the right kind`
  console.log(line)
  t.diagnostic(line)
  for (const m of misses) t.diagnostic(`miss: ${m}`)
  assert.ok(manifest.cases.length >= 60, `corpus has ${manifest.cases.length} cases`)
  assert.ok(right / manifest.cases.length >= 0.9, line)
})

test('corpus: match tolerances apply the intended edit (goal >= 90 %), never a wrong one', (t) => {
  const root = workspace()
  const opts = { workspaceRoot: root, durable: false }
  let covered = 0
  let applied = 0
  let wrong = 0
  const misses = []
  for (const c of manifest.cases) {
    const original = stage(root, c)
    const r = patchFileSync(
      { file_path: c.file, search_block: c.search_block, replace_block: c.replace_block, match: TOLERABLE },
      opts,
    )
    const after = fs.readFileSync(path.join(root, c.file))
    const wrote = !after.equals(original)
    assert.equal(wrote, r.ok === true, `${c.id}: result and file disagree`)
    if (TOLERABLE.includes(c.kind)) {
      covered++
      const expected = withLines(original.toString('utf8'), c.lines[0], c.lines[1], c.expected)
      if (after.toString('utf8') === expected) {
        applied++
        assert.ok(r.matched_with.includes(c.kind), `${c.id}: matched_with ${r.matched_with}`)
        assert.ok(original.toString('utf8').includes(r.original_text), `${c.id}: original_text`)
      } else if (wrote) {
        wrong++
        misses.push(`${c.id}: wrote something other than the intended edit`)
      } else {
        misses.push(`${c.id}: not applied (${r.code})`)
      }
    } else if (wrote) {
      wrong++
      misses.push(`${c.id}: applied although ${c.kind} is not a tolerance`)
    }
  }
  const line = `tolerant: ${applied}/${covered} (${pct(applied, covered)} %) intended edits applied; ${wrong} wrong edits`
  console.log(line)
  t.diagnostic(line)
  for (const m of misses) t.diagnostic(`miss: ${m}`)
  assert.ok(applied / covered >= 0.9, line)
  assert.equal(wrong, 0, line)
})

test('closest_match.text is the exact current text: retried as search_block, every formatting near miss applies', () => {
  const root = workspace()
  const opts = { workspaceRoot: root, durable: false }
  let retried = 0
  for (const c of manifest.cases) {
    if (c.kind === 'already_applied' || c.kind === 'content') continue
    stage(root, c)
    const r = patchFileSync({ file_path: c.file, search_block: c.search_block, replace_block: c.replace_block }, opts)
    const m = r.closest_match
    if (!m || m.equally_close) continue
    // (Ended as the text it replaces: a replacement that drops the last
    // line break would join the next line to it, which is refused.)
    const replace_block = m.text.endsWith('\n') ? 'REPLACED\n' : 'REPLACED'
    const again = patchFileSync({ file_path: c.file, search_block: m.text, replace_block }, opts)
    assert.equal(again.ok, true, `${c.id}: ${again.message}`)
    assert.equal(again.line_number, m.line_number, c.id)
    retried++
  }
  assert.ok(retried >= 60, `retried ${retried}`)
})

test('ambiguous: each unique_context_hint occurs once and applies when sent back', () => {
  const root = workspace()
  const opts = { workspaceRoot: root, durable: false }
  const text = 'function a() {\n  retry();\n}\n\nfunction b() {\n  retry();\n}\n\nfunction c() {\n  log();\n  retry();\n}\n'
  fs.writeFileSync(path.join(root, 'r.js'), text)
  const r = patchFileSync({ file_path: 'r.js', search_block: '  retry();\n', replace_block: '  retry(3);\n' }, opts)
  assert.equal(r.code, 'SEARCH_BLOCK_AMBIGUOUS')
  assert.deepEqual(r.match_lines, [2, 6, 11])
  assert.match(r.message, /unique_context_hint/)
  assert.equal(r.unique_context_hint.length, 3)
  for (const h of r.unique_context_hint) {
    assert.equal(text.split(h.search_block).length - 1, 1, h.search_block)
    assert.ok(h.search_block.includes('  retry();\n'))
    assert.equal(h.lines_before + h.lines_after, 1)
  }
  const third = r.unique_context_hint[2]
  assert.deepEqual([third.match_line, third.line_number, third.search_block], [11, 10, '  log();\n  retry();\n'])
  const ok = patchFileSync(
    { file_path: 'r.js', search_block: third.search_block, replace_block: third.search_block.replace('retry()', 'retry(3)') },
    opts,
  )
  assert.equal(ok.ok, true)
  assert.equal(ok.line_number, 10)
})

test('already_applied: resending an edit that was made says so and writes nothing', () => {
  const root = workspace()
  const opts = { workspaceRoot: root, durable: false }
  fs.writeFileSync(path.join(root, 'cfg.py'), 'TIMEOUT_SECONDS = 30\nRETRIES = 2\n')
  const edit = { file_path: 'cfg.py', search_block: 'TIMEOUT_SECONDS = 30', replace_block: 'TIMEOUT_SECONDS = 60' }
  assert.equal(patchFileSync(edit, opts).ok, true)
  const again = patchFileSync(edit, opts)
  assert.equal(again.code, 'SEARCH_BLOCK_NOT_FOUND')
  assert.equal(again.already_applied, true)
  assert.deepEqual(again.applied_at, { line_number: 1, end_line: 1 })
  assert.match(again.message, /already/)
  assert.equal(fs.readFileSync(path.join(root, 'cfg.py'), 'utf8'), 'TIMEOUT_SECONDS = 60\nRETRIES = 2\n')
})

test('match: exact by default, validated, reported; batch entries and failed edits carry the same fields', async () => {
  const root = workspace()
  const opts = { workspaceRoot: root, durable: false }
  fs.writeFileSync(path.join(root, 'w.txt'), 'alpha\r\nbeta\r\ngamma\r\n')
  const edit = { file_path: 'w.txt', search_block: 'alpha\nbeta\n', replace_block: 'alpha\nBETA\n' }
  const exact = patchFileSync(edit, opts)
  assert.equal(exact.code, 'SEARCH_BLOCK_NOT_FOUND')
  assert.deepEqual(exact.closest_match.differences, ['line_endings'])
  assert.match(exact.message, /match: \["line_endings"\]/)
  for (const bad of [['fuzzy'], 'loose', 3, ['line_endings', 'case']]) {
    const r = patchFileSync({ ...edit, match: bad }, opts)
    assert.equal(r.code, 'INVALID_INPUT', JSON.stringify(bad))
  }
  assert.equal(patchFileSync({ ...edit, match: 'exact' }, opts).code, 'SEARCH_BLOCK_NOT_FOUND')
  const dry = patchFileSync({ ...edit, match: ['line_endings'], dry_run: true }, opts)
  assert.equal(dry.ok, true)
  assert.deepEqual(dry.matched_with, ['line_endings'])
  assert.equal(dry.original_text, 'alpha\r\nbeta\r\n')
  assert.deepEqual(dry.edits[0].matched_with, ['line_endings'])
  const r = patchFileSync({ ...edit, match: ['line_endings'] }, opts)
  assert.equal(r.ok, true)
  assert.equal(fs.readFileSync(path.join(root, 'w.txt'), 'utf8'), 'alpha\r\nBETA\r\ngamma\r\n')
  // Exact match with tolerances allowed: matched_with is empty.
  const plain = patchFileSync({ file_path: 'w.txt', search_block: 'gamma', replace_block: 'GAMMA', match: ['indentation'] }, opts)
  assert.deepEqual([plain.ok, plain.matched_with, plain.original_text], [true, [], undefined])

  fs.writeFileSync(path.join(root, 'x.py'), 'def f():\n\treturn 1\n')
  const batch = await batchPatchFiles(
    {
      files: [
        { file_path: 'x.py', edits: [{ search: 'def f():\n    return 1', replace: 'def f():\n    return 2' }], match: ['indentation'] },
        { file_path: 'w.txt', edits: [{ search: 'GAMMA', replace: 'g' }, { search: 'alpha\nBETA', replace: 'a' }] },
      ],
    },
    opts,
  )
  assert.equal(batch.ok, false)
  assert.equal(batch.files[0].ok, true)
  const failed = batch.files[1].failed_edits
  assert.equal(failed.length, 1)
  assert.equal(failed[0].index, 1)
  assert.equal(failed[0].code, 'SEARCH_BLOCK_NOT_FOUND')
  assert.deepEqual(failed[0].closest_match.differences, ['line_endings'])
  assert.equal(failed[0].closest_match.text, 'alpha\r\nBETA')
  assert.equal(fs.readFileSync(path.join(root, 'x.py'), 'utf8'), 'def f():\n\treturn 1\n')
  const applied = await batchPatchFiles(
    { files: [{ file_path: 'x.py', search_block: 'def f():\n    return 1', replace_block: 'def f():\n    return 2', match: ['indentation'] }] },
    opts,
  )
  assert.equal(applied.ok, true)
  assert.deepEqual(applied.files[0].matched_with, ['indentation'])
  assert.equal(fs.readFileSync(path.join(root, 'x.py'), 'utf8'), 'def f():\n\treturn 2\n')
})

test('schema: patch_file exposes match as an optional property, exact by default', () => {
  const p = patchFileSchema.parameters
  assert.ok(p.properties.match)
  assert.ok(!p.required.includes('match'))
  // One `type`, the list: the MCP Inspector CLI parses a --tool-arg as JSON only for a property typed array or object.
  assert.equal(p.properties.match.type, 'array')
  const kinds = p.properties.match.items.enum
  assert.deepEqual([...kinds].sort(), [...TOLERABLE].sort())
  assert.match(p.properties.match.description, /\[\] for an exact match only/)
})

test('match [] is exact even where a default tolerance applies; the string "exact" is still accepted', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'pft-match-'))
  try {
    fs.writeFileSync(path.join(root, 'c.txt'), 'one\r\ntwo\r\n')
    const o = { workspaceRoot: root, defaultMatch: ['line_endings'] }
    const edit = { file_path: 'c.txt', search_block: 'one\ntwo\n', replace_block: 'x\n', dry_run: true }
    assert.equal(patchFileSync(edit, o).ok, true)
    assert.equal(patchFileSync({ ...edit, match: [] }, o).code, 'SEARCH_BLOCK_NOT_FOUND')
    assert.equal(patchFileSync({ ...edit, match: 'exact' }, o).code, 'SEARCH_BLOCK_NOT_FOUND')
  } finally {
    fs.rmSync(root, { recursive: true, force: true })
  }
})
