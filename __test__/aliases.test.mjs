// Every input alias: the engine accepts it, the docs' aliases are all in the
// list below, and a TypeScript consumer that uses each one in a call
// (__test__/fixtures/types/aliases.mts) type-checks under `tsc --strict`
// against index.d.ts, while the wrong inputs it marks with @ts-expect-error
// are each rejected by the types.
import './helpers/private-state.mjs'
import { test } from 'node:test'
import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { patchFileSync, batchPatchFiles, applyDryRun, readFile, writeFile, applyEditBlocks, applyPatch, textEditor, editFile, patchFile } from '../index.mjs'
import { REPO, consumerProject, tsc } from './helpers/typescript.mjs'

const FIXTURE = path.join(REPO, '__test__', 'fixtures', 'types', 'aliases.mts')

const SEARCH = ['search_block', 'searchBlock', 'search', 'oldText', 'old_string', 'old_str']
const REPLACE = ['replace_block', 'replaceBlock', 'replace', 'newText', 'new_string', 'new_str']
const PATH = ['file_path', 'filePath']
const SHA = ['expected_sha256', 'expectedSha256']
const EXPECTED = ['expected_replacements', 'expectedReplacements']
const ALL = ['replace_all', 'replaceAll']
const DRY = ['dry_run', 'dryRun']

/**
 * Every spelling the engine accepts, each with a call that uses it and must
 * succeed (a dry run or a read; applyDryRun applies a fresh dry run). `ws`
 * is a workspace holding f.txt = "x\n" (sha256 `sha`); `dryRun()` makes a
 * dry run of it and returns its run_id.
 */
function cases({ ws, sha, dryRun }) {
  const o = { workspaceRoot: ws }
  const pair = { file_path: 'f.txt', search_block: 'x', replace_block: 'y' }
  const c = []
  const add = (alias, where, call) => c.push({ alias, where, call })
  // patchFile: top level and inside edits[].
  for (const a of PATH) add(a, 'patchFile', () => patchFileSync({ [a]: 'f.txt', search_block: 'x', replace_block: 'y', dry_run: true }, o))
  for (const a of SEARCH) add(a, 'patchFile', () => patchFileSync({ file_path: 'f.txt', [a]: 'x', replace_block: 'y', dry_run: true }, o))
  for (const a of REPLACE) add(a, 'patchFile', () => patchFileSync({ file_path: 'f.txt', search_block: 'x', [a]: 'y', dry_run: true }, o))
  for (const a of EXPECTED) add(a, 'patchFile', () => patchFileSync({ ...pair, [a]: 1, dry_run: true }, o))
  for (const a of ALL) add(a, 'patchFile', () => patchFileSync({ ...pair, [a]: true, dry_run: true }, o))
  for (const a of SHA) add(a, 'patchFile', () => patchFileSync({ ...pair, [a]: sha, dry_run: true }, o))
  for (const a of DRY) add(a, 'patchFile', () => patchFileSync({ ...pair, [a]: true }, o))
  for (const a of SEARCH) add(a, 'patchFile edits[]', () => patchFileSync({ file_path: 'f.txt', edits: [{ [a]: 'x', replace_block: 'y' }], dry_run: true }, o))
  for (const a of REPLACE) add(a, 'patchFile edits[]', () => patchFileSync({ file_path: 'f.txt', edits: [{ search_block: 'x', [a]: 'y' }], dry_run: true }, o))
  for (const a of [...EXPECTED, ...ALL]) {
    add(a, 'patchFile edits[]', () => patchFileSync({ file_path: 'f.txt', edits: [{ search: 'x', replace: 'y', [a]: a.startsWith('expected') ? 1 : true }], dry_run: true }, o))
  }
  // batchPatchFiles: per file, and the batch's dry run.
  for (const a of [...PATH, ...SEARCH, ...REPLACE, ...SHA, ...EXPECTED, ...ALL]) {
    const value = SHA.includes(a) ? sha : EXPECTED.includes(a) ? 1 : ALL.includes(a) ? true : undefined
    const file = PATH.includes(a) ? { [a]: 'f.txt', search_block: 'x', replace_block: 'y' }
      : SEARCH.includes(a) ? { file_path: 'f.txt', [a]: 'x', replace_block: 'y' }
      : REPLACE.includes(a) ? { file_path: 'f.txt', search_block: 'x', [a]: 'y' }
      : { ...pair, [a]: value }
    add(a, 'batchPatchFiles files[]', () => batchPatchFiles({ files: [file], dry_run: true }, o))
  }
  for (const a of DRY) add(a, 'batchPatchFiles', () => batchPatchFiles({ files: [pair], [a]: true }, o))
  // applyDryRun.
  for (const a of ['run_id', 'runId']) add(a, 'applyDryRun', async () => applyDryRun({ [a]: await dryRun() }, o))
  // readFile, writeFile.
  for (const a of PATH) add(a, 'readFile', () => readFile({ [a]: 'f.txt' }, o))
  for (const a of PATH) add(a, 'writeFile', () => writeFile({ [a]: 'f.txt', content: 'z\n', dry_run: true }, o))
  for (const a of SHA) add(a, 'writeFile', () => writeFile({ file_path: 'f.txt', content: 'z\n', [a]: sha, dry_run: true }, o))
  for (const a of ['create_dirs', 'createDirs']) add(a, 'writeFile', () => writeFile({ file_path: 'new/f.txt', content: 'z\n', [a]: true, dry_run: true }, o))
  for (const a of DRY) add(a, 'writeFile', () => writeFile({ file_path: 'f.txt', content: 'z\n', [a]: true }, o))
  // Options.
  for (const a of ['workspaceRoot', 'workspace_root']) add(a, 'options', () => readFile({ file_path: 'f.txt' }, { [a]: ws }))
  for (const a of ['maxFileBytes', 'max_file_bytes']) add(a, 'options', () => readFile({ file_path: 'f.txt' }, { ...o, [a]: 1024 }))
  for (const a of ['dryRunTtlSeconds', 'dry_run_ttl_seconds']) add(a, 'options', () => patchFileSync({ ...pair, dry_run: true }, { ...o, [a]: 60 }))
  add('durable', 'options', () => patchFileSync({ ...pair, dry_run: true }, { ...o, durable: false }))
  add('cwd', 'options', () => readFile({ file_path: 'f.txt' }, { ...o, cwd: '.' }))
  // The edit formats.
  const blocks = 'f.txt\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n'
  const patch = '*** Begin Patch\n*** Update File: f.txt\n@@\n-x\n+y\n*** End Patch\n'
  for (const a of ['blockContent', 'block_content', 'text']) add(a, 'applyEditBlocks', () => applyEditBlocks({ [a]: blocks, dry_run: true }, o))
  for (const a of DRY) add(a, 'applyEditBlocks input', () => applyEditBlocks({ blockContent: blocks, [a]: true }, o))
  for (const a of DRY) add(a, 'format options', () => applyEditBlocks(blocks, { ...o, [a]: true }))
  for (const a of ['patch', 'input', 'text']) add(a, 'applyPatch', () => applyPatch({ [a]: patch, dry_run: true }, o))
  for (const a of DRY) add(a, 'applyPatch input', () => applyPatch({ patch, [a]: true }, o))
  const dry = { ...o, dryRun: true }
  for (const a of ['path', 'file_path', 'filePath']) add(a, 'textEditor', () => textEditor({ command: 'view', [a]: 'f.txt' }, o))
  for (const a of ['view_range', 'viewRange']) add(a, 'textEditor view', () => textEditor({ command: 'view', path: 'f.txt', [a]: [1, -1] }, o))
  for (const a of ['max_characters', 'maxCharacters']) add(a, 'textEditor view', () => textEditor({ command: 'view', path: 'f.txt', [a]: 100 }, o))
  for (const a of ['file_text', 'fileText', 'content']) add(a, 'textEditor create', () => textEditor({ command: 'create', path: 'n.txt', [a]: 't' }, dry))
  for (const a of ['old_str', 'oldStr']) add(a, 'textEditor str_replace', () => textEditor({ command: 'str_replace', path: 'f.txt', [a]: 'x' }, dry))
  for (const a of ['new_str', 'newStr']) add(a, 'textEditor str_replace', () => textEditor({ command: 'str_replace', path: 'f.txt', old_str: 'x', [a]: 'y' }, dry))
  for (const a of ['insert_line', 'insertLine']) add(a, 'textEditor insert', () => textEditor({ command: 'insert', path: 'f.txt', [a]: 1, insert_text: 't' }, dry))
  for (const a of ['insert_text', 'insertText', 'new_str', 'newStr']) add(a, 'textEditor insert', () => textEditor({ command: 'insert', path: 'f.txt', insert_line: 1, [a]: 't' }, dry))
  for (const a of DRY) add(a, 'textEditor input', () => textEditor({ command: 'str_replace', path: 'f.txt', old_str: 'x', [a]: true }, o))
  // editFile: server-filesystem's names (no other spellings).
  for (const a of ['path', 'edits', 'oldText', 'newText', 'dryRun']) add(a, 'editFile', () => editFile({ path: 'f.txt', edits: [{ oldText: 'x', newText: 'y' }], dryRun: true }, o))
  return c
}

function workspace() {
  const ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pft-alias-')))
  fs.writeFileSync(path.join(ws, 'f.txt'), 'x\n')
  const sha = crypto.createHash('sha256').update('x\n').digest('hex')
  const dryRun = async () => {
    const r = await patchFile({ file_path: 'f.txt', search_block: 'x', replace_block: 'y', dry_run: true }, { workspaceRoot: ws })
    assert.equal(r.ok, true, JSON.stringify(r))
    return r.run_id
  }
  return { ws, sha, dryRun }
}

test('the engine accepts every alias of the list, and nothing else', async () => {
  const w = workspace()
  const list = cases(w)
  assert.ok(list.length >= 100, `${list.length} cases`)
  for (const { alias, where, call } of list) {
    fs.writeFileSync(path.join(w.ws, 'f.txt'), 'x\n') // an applyDryRun case writes "y"
    const r = await call()
    assert.equal(r.ok, true, `${where}: ${alias}: ${JSON.stringify(r)}`)
  }
  // An unknown spelling is refused, so the checks above are not vacuous.
  fs.writeFileSync(path.join(w.ws, 'f.txt'), 'x\n')
  for (const bad of [
    () => patchFileSync({ file_path: 'f.txt', serach_block: 'x', replace_block: 'y', dry_run: true }, { workspaceRoot: w.ws }),
    () => textEditor({ command: 'view', pathname: 'f.txt' }, { workspaceRoot: w.ws }),
    () => readFile({ file_path: 'f.txt' }, { workspaceroot: w.ws }),
  ]) {
    assert.equal((await bad()).code, 'INVALID_INPUT')
  }
})

/** The names in the first two columns of the docs' alias tables (field, aliases). */
function documentedAliases() {
  const found = new Set()
  const table = (file, header) => {
    const lines = fs.readFileSync(path.join(REPO, file), 'utf8').split('\n').map((l) => l.trim())
    const at = lines.indexOf(header)
    assert.notEqual(at, -1, `${file} has the table "${header}"`)
    let rows = 0
    for (let i = at + 2; lines[i] && lines[i].startsWith('|'); i++, rows++) {
      const [field, aliases] = lines[i].split('|').slice(1, 3)
      for (const m of `${field} ${aliases}`.matchAll(/`([A-Za-z_][A-Za-z0-9_]*)`/g)) found.add(m[1])
    }
    assert.ok(rows > 0, `${file}: rows under "${header}"`)
  }
  table('docs/core-api.md', '| field | aliases | type | meaning |')
  table('docs/core-api.md', '| option | alias | default | meaning |')
  table('docs/transactions.md', '| search text    | replacement text |')
  return found
}

test('every alias the docs list is in the list, and the fixture uses every alias of the list', () => {
  const w = { ws: '/', sha: '', dryRun: async () => '' }
  const listed = new Set(cases(w).map((c) => c.alias))
  const documented = documentedAliases()
  assert.ok(documented.size >= 20, [...documented].join(', '))
  // `edits` and `match` are fields without other spellings; the rest must be in the list.
  for (const a of documented) if (!['edits', 'match'].includes(a)) assert.ok(listed.has(a), `documented ${a} is in the list`)
  const fixture = fs.readFileSync(FIXTURE, 'utf8')
  const used = new Set([...fixture.matchAll(/([A-Za-z_][A-Za-z0-9_]*)\??:/g)].map((m) => m[1]))
  for (const a of [...listed, 'edits', 'match']) assert.ok(used.has(a), `the fixture uses ${a}`)
})

test('a consumer using every alias type-checks under tsc --strict; each @ts-expect-error marks a real error', () => {
  const text = fs.readFileSync(FIXTURE, 'utf8')
  const ok = tsc(consumerProject({ 'aliases.mts': text }))
  // An unused @ts-expect-error is itself an error (TS2578), so passing means each one fired.
  assert.equal(ok.status, 0, ok.output)

  // Without the directives, tsc reports the lines they marked, and only those.
  const lines = text.split('\n')
  const marked = lines.flatMap((l, i) => (/^\s*\/\/ @ts-expect-error/.test(l) ? [i + 2] : []))
  assert.ok(marked.length >= 15, `${marked.length} @ts-expect-error lines`)
  const stripped = lines.map((l) => (/^\s*\/\/ @ts-expect-error/.test(l) ? '//' : l)).join('\n')
  const bad = tsc(consumerProject({ 'aliases.mts': stripped }))
  assert.notEqual(bad.status, 0)
  assert.deepEqual([...new Set(bad.errors.map((e) => e.line))].sort((a, b) => a - b), marked, bad.output)
})
