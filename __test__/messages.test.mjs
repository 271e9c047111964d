// Messages in the caller's words: a failure names each field by the spelling
// the caller sent (oldText, old_string, old_str, …), an unknown field by its
// own (misspelt) name with the accepted name it is closest to, and counts
// agree with their nouns.
import './helpers/private-state.mjs'
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { patchFile, batchPatchFiles, editFile, textEditor, applyPatch, applyEditBlocks } from '../index.mjs'

function workspace(files) {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pft-messages-')))
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text)
  return { workspaceRoot: dir, journal: false }
}

const SOURCE = 'def f():\n    a = 1\n    b = 2\n    return a + b\n\ndef g():\n    return 0\n'

test('editFile: an oldText that is not found is named oldText, never search_block', async () => {
  const o = workspace({ 'f.py': SOURCE })
  const r = await editFile({ path: 'f.py', edits: [{ oldText: 'nothing like it at all', newText: 'x' }] }, o)
  assert.equal(r.ok, false)
  assert.equal(r.code, 'SEARCH_BLOCK_NOT_FOUND')
  assert.match(r.message, /^oldText was not found\. /)
  assert.doesNotMatch(r.message, /search_block|replace_block/)
  // A near miss: the diagnosis speaks of oldText too, in the message and in each detail.
  const near = await editFile({ path: 'f.py', edits: [{ oldText: '  a = 1\n  b = 2\n', newText: '  a = 3\n  b = 2\n' }] }, o)
  assert.equal(near.ok, false)
  assert.ok(near.closest_match, JSON.stringify(near))
  assert.match(near.message, /^oldText was not found exactly/)
  assert.match(near.closest_match.details.join('\n'), /in oldText/)
  assert.doesNotMatch(near.message + near.closest_match.details.join('\n'), /search_block|replace_block/)
  // Already applied: both texts named as sent.
  const again = await editFile({ path: 'f.py', edits: [{ oldText: '    a = 0\n    b = 2\n', newText: '    a = 1\n    b = 2\n' }] }, o)
  assert.equal(again.already_applied, true, JSON.stringify(again))
  assert.match(again.message, /^oldText was not found, but newText already stands exactly once/)
  assert.doesNotMatch(again.message, /search_block|replace_block/)
})

test('patchFile: each edit is named by its own spelling (old_string, search, searchBlock)', async () => {
  const o = workspace({ 'f.py': SOURCE })
  const one = await patchFile({ file_path: 'f.py', old_string: 'missing text', new_string: 'x' }, o)
  assert.match(one.message, /^old_string was not found\. /)
  const ambiguous = await patchFile({ file_path: 'f.py', search: '    return', replace: '    yield' }, o)
  assert.equal(ambiguous.code, 'SEARCH_BLOCK_AMBIGUOUS')
  assert.match(ambiguous.message, /^search occurs 2 times/)
  const count = await patchFile({ file_path: 'f.py', searchBlock: '    return', replaceBlock: '    yield', expectedReplacements: 3 }, o)
  assert.equal(count.code, 'REPLACEMENT_COUNT_MISMATCH')
  assert.match(count.message, /^expected 3 occurrences of searchBlock but found 2/)
  const multi = await patchFile({ file_path: 'f.py', edits: [{ search_block: '    a = 1\n', replace_block: '    a = 2\n' }, { old_str: 'absent', new_str: '' }] }, o)
  assert.match(multi.message, /edits\[1\]: old_str was not found/)
  assert.doesNotMatch(multi.message, /search_block/)
  // Canonical spellings keep canonical words.
  const canonical = await patchFile({ file_path: 'f.py', search_block: 'missing text', replace_block: 'x' }, o)
  assert.match(canonical.message, /^search_block was not found\. /)
})

test('input: a missing or empty field is named in the spelling of its pair', async () => {
  const o = workspace({ 'f.py': SOURCE })
  const missing = await patchFile({ file_path: 'f.py', oldText: 'a' }, o)
  assert.equal(missing.code, 'INVALID_INPUT')
  assert.match(missing.message, /`newText` is required/)
  const empty = await patchFile({ file_path: 'f.py', old_str: '', new_str: 'x' }, o)
  assert.match(empty.message, /`old_str` is empty/)
})

test('input: a misspelt field is refused by its own name, with the accepted name it is closest to', async () => {
  const o = workspace({ 'f.py': SOURCE })
  const typo = await patchFile({ file_path: 'f.py', serach_block: 'a = 1', replace_block: 'a = 2' }, o)
  assert.equal(typo.code, 'INVALID_INPUT')
  assert.match(typo.message, /unknown field `serach_block` \(did you mean `search_block`\?\)/)
  assert.doesNotMatch(typo.message, /`search_block` is required/)
  const path_ = await patchFile({ file_pth: 'f.py', search_block: 'a = 1', replace_block: 'a = 2' }, o)
  assert.match(path_.message, /unknown field `file_pth` \(did you mean `file_path`\?\)/)
  const inEdits = await patchFile({ file_path: 'f.py', edits: [{ search_block: 'a = 1', replace_blok: 'a = 2' }] }, o)
  assert.match(inEdits.message, /^edits\[0\]: unknown field `replace_blok` \(did you mean `replace_block`\?\)/)
  const camel = await patchFile({ filePath: 'f.py', searchBlock: 'a = 1', replaceBlock: 'a = 2', expectedReplacement: 1 }, o)
  assert.match(camel.message, /unknown field `expectedReplacement` \(did you mean `expectedReplacements`\?\)/)
  // Nothing close: the field is named without a guess.
  const far = await patchFile({ file_path: 'f.py', search_block: 'a = 1', replace_block: 'a = 2', colour: 'red' }, o)
  assert.match(far.message, /unknown field `colour`$/)
  const batch = await batchPatchFiles({ files: [{ file_path: 'f.py', search_blok: 'a = 1', replace_block: 'a = 2' }] }, o)
  assert.match(batch.message, /^files\[0\]: unknown field `search_blok` \(did you mean `search_block`\?\)/)
  assert.equal(fs.readFileSync(path.join(o.workspaceRoot, 'f.py'), 'utf8'), SOURCE)
})

test('text editor: an old_str that is not found is said in its own words', async () => {
  const o = workspace({ 'f.py': SOURCE })
  const r = await textEditor({ command: 'str_replace', path: 'f.py', old_str: 'nothing like it', new_str: 'x' }, o)
  assert.equal(r.code, 'SEARCH_BLOCK_NOT_FOUND')
  assert.match(r.message, /^`f\.py`: old_str was not found; /)
  assert.doesNotMatch(r.message, /SEARCH text|old_str:/)
  const twice = await textEditor({ command: 'str_replace', path: 'f.py', old_str: '    return', new_str: 'x' }, o)
  assert.equal(twice.code, 'SEARCH_BLOCK_AMBIGUOUS')
  assert.match(twice.message, /^`f\.py`: old_str occurs 2 times \(lines 4, 7\)/)
  const near = await textEditor({ command: 'str_replace', path: 'f.py', old_str: '  a = 1\n  b = 2\n', new_str: 'x' }, o)
  assert.match(near.message, /^`f\.py`: old_str was not found; the closest text is lines 2-3 \(\d+% similar\), which differs in indentation/)
  assert.doesNotMatch(near.message + near.closest_match.details.join('\n'), /search_block|SEARCH text/)
  const typo = await textEditor({ command: 'str_replace', path: 'f.py', old_sr: 'a = 1', new_str: 'a = 2' }, o)
  assert.equal(typo.code, 'INVALID_INPUT')
  assert.equal(typo.message, '`old_sr` is not a parameter of `str_replace` (did you mean `old_str`?)')
  // Edit blocks keep speaking of the block by its number and line.
  const blocks = await applyEditBlocks('f.py\n<<<<<<< SEARCH\nnothing like it\n=======\nx\n>>>>>>> REPLACE\n', o)
  assert.match(blocks.message, /^`f\.py`: block 1 \(line 2\): its SEARCH text was not found/)
})

test('apply_patch: one line was not found, two lines were not found', async () => {
  const o = workspace({ 'f.py': SOURCE })
  const one = await applyPatch('*** Begin Patch\n*** Update File: f.py\n@@\n-    a = 5\n+    a = 3\n*** End Patch', o)
  assert.match(one.message, /the 1 context\/removed line starting with `    a = 5` was not found/)
  const two = await applyPatch('*** Begin Patch\n*** Update File: f.py\n@@\n-    a = 5\n-    b = 6\n+    a = 3\n*** End Patch', o)
  assert.match(two.message, /the 2 context\/removed lines starting with `    a = 5` were not found/)
})

/** Each of `calls` ([name, call, words]) is refused with `PLAN_CHECK_FAILED` in those words, `f.js` left as `text`. */
async function refusedUnwritten(calls, o, text) {
  for (const [name, call, words] of calls) {
    const r = await call()
    assert.equal(r.ok, false, `${name}: ${JSON.stringify(r)}`)
    assert.equal(r.code, 'PLAN_CHECK_FAILED', name)
    assert.match(r.message, words, name)
    assert.equal(fs.readFileSync(path.join(o.workspaceRoot, 'f.js'), 'utf8'), text, `${name} wrote nothing`)
  }
}

test('a search that starts with a line break never joins a whitespace-only line to an indented replacement, nor leaves half a CRLF, in any format', async () => {
  const text = 'function f() {\n    x();\n    \n    y();\n}\n'
  const o = workspace({ 'f.js': text })
  const calls = [
    ['patchFile', () => patchFile({ file_path: 'f.js', search_block: '\n    y();\n', replace_block: '    z();\n' }, o), /^search_block starts with a line break, which ends line 3/],
    ['editFile', () => editFile({ path: 'f.js', edits: [{ oldText: '\n    y();\n', newText: '    z();\n' }] }, o), /^oldText starts with a line break, which ends line 3.*newText starts with indentation/],
    ['textEditor', () => textEditor({ command: 'str_replace', path: 'f.js', old_str: '\n    y();\n', new_str: '    z();\n' }, o), /old_str starts with a line break, which ends line 3/],
    ['applyEditBlocks', () => applyEditBlocks({ text: 'f.js\n<<<<<<< SEARCH\n\n    y();\n=======\n    z();\n>>>>>>> REPLACE\n' }, o), /the SEARCH text starts with a line break, which ends line 3/],
  ]
  await refusedUnwritten(calls, o, text)
  // In a CRLF file, an LF that is the LF of a CRLF: the CR would be left alone.
  const crlf = 'a();\r\n    y();\r\n'
  fs.writeFileSync(path.join(o.workspaceRoot, 'c.js'), crlf)
  const cr = await patchFile({ file_path: 'c.js', search_block: '\n    y();', replace_block: '    z();' }, o)
  assert.equal(cr.code, 'PLAN_CHECK_FAILED', JSON.stringify(cr))
  assert.match(cr.message, /^search_block starts with an LF, found as the LF of line 1's CRLF line break.*a lone CR/)
  assert.equal(fs.readFileSync(path.join(o.workspaceRoot, 'c.js'), 'utf8'), crlf)
  // Sent with the break first in both texts, it replaces line 4 and keeps line 3.
  const ok = await patchFile({ file_path: 'f.js', search_block: '\n    y();\n', replace_block: '\n    z();\n' }, o)
  assert.equal(ok.ok, true, JSON.stringify(ok))
  assert.equal(fs.readFileSync(path.join(o.workspaceRoot, 'f.js'), 'utf8'), 'function f() {\n    x();\n    \n    z();\n}\n')
})

test('a search that ends with a line break never joins the next line to a replacement that does not, in any format', async () => {
  const text = 'a();\nb();\n    c();\n'
  const o = workspace({ 'f.js': text })
  const calls = [
    ['patchFile', () => patchFile({ file_path: 'f.js', search_block: 'b();\n', replace_block: 'x();' }, o), /^search_block ends with a line break but replace_block does not, so line 3 would be joined/],
    ['edits[]', () => patchFile({ file_path: 'f.js', edits: [{ search: 'a();', replace: 'w();' }, { search: 'b();\n', replace: 'x();' }] }, o), /^edits\[1\]: search ends with a line break but replace does not, so line 3 would be joined/],
    ['batchPatchFiles', () => batchPatchFiles({ files: [{ file_path: 'f.js', search_block: 'b();\n', replace_block: 'x();' }] }, o).then((r) => ({ ...r, message: r.files[0].message })), /line 3 would be joined/],
    ['editFile', () => editFile({ path: 'f.js', edits: [{ oldText: 'b();\n', newText: 'x();' }] }, o), /oldText ends with a line break but newText does not, so line 3 would be joined/],
    ['textEditor', () => textEditor({ command: 'str_replace', path: 'f.js', old_str: 'b();\n', new_str: 'x();' }, o), /old_str ends with a line break but new_str does not, so line 3 would be joined/],
  ]
  await refusedUnwritten(calls, o, text)
  // With the break in both texts, or in neither, the line is replaced.
  for (const [search_block, replace_block] of [['b();\n', 'x();\n'], ['b();', 'x();']]) {
    fs.writeFileSync(path.join(o.workspaceRoot, 'f.js'), text)
    const r = await patchFile({ file_path: 'f.js', search_block, replace_block }, o)
    assert.equal(r.ok, true, JSON.stringify(r))
    assert.equal(fs.readFileSync(path.join(o.workspaceRoot, 'f.js'), 'utf8'), 'a();\nx();\n    c();\n')
  }
})

test('a search that ends inside the next line\'s indentation never takes that indentation away, in any format', async () => {
  const text = 'def f():\n    a()\n    b()\n'
  const o = workspace({ 'f.js': text })
  const calls = [
    ['patchFile', () => patchFile({ file_path: 'f.js', search_block: 'a()\n    ', replace_block: 'x()\n' }, o), /^search_block ends inside the indentation of line 3 and replace_block does not end with the same line break and spaces, so line 3 would lose its indentation/],
    ['edits[]', () => patchFile({ file_path: 'f.js', edits: [{ search: 'def', replace: 'def' }, { search: 'a()\n    ', replace: 'x()\n' }] }, o), /^edits\[1\]: search ends inside the indentation of line 3/],
    ['batchPatchFiles', () => batchPatchFiles({ files: [{ file_path: 'f.js', search_block: 'a()\n    ', replace_block: 'x()\n' }] }, o).then((r) => ({ ...r, message: r.files[0].message })), /line 3 would lose its indentation/],
    ['editFile', () => editFile({ path: 'f.js', edits: [{ oldText: 'a()\n    ', newText: 'x()\n' }] }, o), /^oldText ends inside the indentation of line 3 and newText/],
    ['textEditor', () => textEditor({ command: 'str_replace', path: 'f.js', old_str: 'a()\n  ', new_str: 'x()' }, o), /old_str ends inside the indentation of line 3 and new_str/],
  ]
  await refusedUnwritten(calls, o, text)
  // Ending with the same break and spaces, the line keeps its indentation.
  const r = await patchFile({ file_path: 'f.js', search_block: 'a()\n    ', replace_block: 'x()\n    ' }, o)
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(fs.readFileSync(path.join(o.workspaceRoot, 'f.js'), 'utf8'), 'def f():\n    x()\n    b()\n')
})

test('an edit that takes away the final line break is written and says so, in the full and the compact view', async () => {
  const o = workspace({ 'f.js': 'a();\nb();\n' })
  const r = await patchFile({ file_path: 'f.js', search_block: 'b();\n', replace_block: 'x();' }, { ...o, results: 'compact' })
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.deepEqual(r.warnings, ["`f.js` no longer ends with a line break (the new text's last line has none); if that was not meant, end the new text with one"])
  assert.equal(fs.readFileSync(path.join(o.workspaceRoot, 'f.js'), 'utf8'), 'a();\nx();')
})
