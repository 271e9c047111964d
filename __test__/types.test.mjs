// The result types as a TypeScript consumer writes against them
// (__test__/fixtures/types/results.mts): a dry run's result narrows by its
// flag, a failure has no field it does not declare. The fixture type-checks
// under `tsc --strict` against index.d.ts, and each line it marks with
// @ts-expect-error is an error without the directive (and no other line is).
// And the failures the engine answers, of every kind, carry only fields
// their failure type declares (read from index.d.ts by the checker).
// The agent-SDK adapters' results likewise (fixtures/types/adapters.mts,
// compiled with the SDKs installed): they answer in the compact view unless
// their options say 'full', and what they answer is the type they declare.
import './helpers/private-state.mjs'
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { REPO, ts, consumerProject, tsc, indexDeclarations, CONSUMER_OPTIONS } from './helpers/typescript.mjs'
import { SDK_PACKAGES } from './helpers/adapter-consumer.mjs'

const FIXTURES = path.join(REPO, '__test__', 'fixtures', 'types')

/** The project options of a consumer of the adapters: the SDKs beside the package, their own d.ts not ours to check. */
const WITH_SDKS = { links: SDK_PACKAGES, compilerOptions: { skipLibCheck: true } }

/**
 * Checks the fixture `name` under tsc --strict: it compiles, and without its
 * @ts-expect-error directives exactly the lines they marked are errors.
 * Returns how many lines were marked.
 */
function checkFixture(name, project = {}) {
  const text = fs.readFileSync(path.join(FIXTURES, name), 'utf8')
  const compile = (source) => {
    const dir = consumerProject({ [name]: source }, project)
    try {
      return tsc(dir)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }
  const ok = compile(text)
  // An unused @ts-expect-error is itself an error (TS2578), so passing means each one fired.
  assert.equal(ok.status, 0, ok.output)

  const lines = text.split('\n')
  const marked = lines.flatMap((l, i) => (/^\s*\/\/ @ts-expect-error/.test(l) ? [i + 2] : []))
  const stripped = lines.map((l) => (/^\s*\/\/ @ts-expect-error/.test(l) ? '//' : l)).join('\n')
  const bad = compile(stripped)
  assert.notEqual(bad.status, 0)
  assert.deepEqual([...new Set(bad.errors.map((e) => e.line))].sort((a, b) => a - b), marked, bad.output)
  return marked.length
}

test('result types: dry runs narrow by their flag and failures declare every field, under tsc --strict', () => {
  const marked = checkFixture('results.mts')
  assert.ok(marked >= 10, `${marked} @ts-expect-error lines`)
})

test('adapter types: an adapter answers in the compact view unless its options say full, so an omitted field needs a check, under tsc --strict', () => {
  const marked = checkFixture('adapters.mts', WITH_SDKS)
  assert.ok(marked >= 9, `${marked} @ts-expect-error lines`)
})

test('result types: a failure type has no index signature', () => {
  const dts = fs.readFileSync(path.join(REPO, 'index.d.ts'), 'utf8')
  assert.doesNotMatch(dts, /\[\s*\w+\s*:\s*string\s*\]\s*:\s*unknown/)
})

/**
 * The declared type of each exported type of index.d.ts, by the TypeScript
 * checker, and `undeclared(value, type)`: the paths of `value`'s fields its
 * type does not declare, nested objects and array items included (a field
 * of a union is declared when some member declares it).
 */
function declarations() {
  const { checker, exports: symbols } = indexDeclarations()
  const exports = new Map()
  for (const s of symbols) {
    if (s.flags & ts.SymbolFlags.Type) exports.set(s.name, checker.getDeclaredTypeOfSymbol(s))
  }
  const members = (t) => (t.isUnion() ? t.types.flatMap(members) : [t])
  const fieldType = (t, key) => {
    const found = members(t)
      .map((m) => checker.getPropertyOfType(m, key))
      .filter(Boolean)
      .map((p) => checker.getNonNullableType(checker.getTypeOfSymbol(p)))
    return found.length ? found : null
  }
  const undeclared = (value, types, at) => {
    if (Array.isArray(value)) {
      const items = types.flatMap(members).filter((t) => checker.isArrayType(t)).map((t) => checker.getTypeArguments(t)[0])
      return value.flatMap((v, i) => undeclared(v, items, `${at}[${i}]`))
    }
    if (value === null || typeof value !== 'object') return []
    const out = []
    for (const [k, v] of Object.entries(value)) {
      const inner = types.flatMap((t) => fieldType(t, k) ?? [])
      if (!inner.length) out.push(`${at}.${k}`)
      else out.push(...undeclared(v, inner, `${at}.${k}`))
    }
    return out
  }
  return { type: (name) => exports.get(name), undeclared: (value, name) => undeclared(value, [exports.get(name)], name) }
}

test('result types: every field of the failures the engine answers is declared by its failure type', async () => {
  const { patchFile, batchPatchFiles, applyDryRun, applyEditBlocks, applyPatch, textEditor, undo, readFile, writeFile } = await import('../index.mjs')
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pft-types-')))
  const o = { workspaceRoot: dir, journal: path.join(dir, '.journal') }
  const file = (name, text) => fs.writeFileSync(path.join(dir, name), text)
  const SRC = 'def f():\n    a = 1\n    b = 2\n    return a + b\n\ndef g():\n    a = 1\n    b = 2\n    return 0\n'
  file('f.py', SRC)
  file('g.py', SRC)
  const failures = {
    PatchFileFailure: [
      // Closest match (indentation), twice as close (equally_close), already applied, ambiguous with hints.
      await patchFile({ file_path: 'f.py', search_block: '  a = 1\n  b = 2\n', replace_block: '  a = 3\n' }, o),
      await patchFile({ file_path: 'f.py', search_block: 'def f():\n    a = 0\n', replace_block: 'def f():\n    a = 1\n' }, o),
      await patchFile({ file_path: 'f.py', search_block: '    a = 1\n', replace_block: 'x' }, o),
      await patchFile({ file_path: 'f.py', search_block: '    a = 1\n', replace_block: 'x', expected_replacements: 3 }, o),
      await patchFile({ file_path: 'f.py', edits: [{ search_block: 'nope', replace_block: '' }, { search_block: '    b = 2\n', replace_block: '' }] }, o),
      await patchFile({ file_path: 'f.py', search_block: 'a', replace_block: 'b', expected_sha256: '0'.repeat(64) }, o),
      await patchFile({ file_path: 'f.py', search_block: 'a', replace_block: 'b', match: ['indentation'] }, o),
      await patchFile({ file_path: '../out.py', search_block: 'a', replace_block: 'b' }, o),
      await patchFile({ file_path: 'f.py', serach_block: 'a', replace_block: 'b' }, o),
      await applyDryRun({ run_id: 'dr_nothing' }, o),
      await readFile({ file_path: 'missing.py' }, o),
      await writeFile({ file_path: 'f.py', content: 'x', expected_sha256: '0'.repeat(64) }, o),
    ],
    BatchPatchFilesFailure: [
      await batchPatchFiles({ files: [{ file_path: 'f.py', search_block: 'nope', replace_block: '' }, { file_path: 'g.py', search_block: 'def g', replace_block: 'def h' }] }, o),
    ],
    FormatFailure: [
      await applyPatch('*** Begin Patch\n*** Update File: f.py\n@@\n-    a = 5\n-    b = 2\n+    a = 3\n*** End Patch', o),
      await applyPatch('*** Begin Patch\n*** Frobnicate File: f.py\n*** End Patch', o),
      await applyEditBlocks('f.py\n<<<<<<< SEARCH\n    a = 1\n=======\nx\n>>>>>>> REPLACE\nf.py\n<<<<<<< SEARCH\nnope\n=======\nx\n>>>>>>> REPLACE\n', o),
    ],
    TextEditorFailure: [
      await textEditor({ command: 'str_replace', path: 'f.py', old_str: '  a = 1\n  b = 2\n', new_str: 'x' }, o),
      await textEditor({ command: 'str_replace', path: 'f.py', old_str: '    a = 1\n', new_str: 'x' }, o),
    ],
    UndoFailure: [],
  }
  // FILE_CHANGED of an undo: the files changed since, and the transaction.
  file('u.txt', 'one\n')
  assert.equal((await patchFile({ file_path: 'u.txt', search_block: 'one', replace_block: 'two' }, o)).ok, true)
  file('u.txt', 'three\n')
  failures.UndoFailure.push(await undo(undefined, o))

  const { type, undeclared } = declarations()
  const seen = new Set()
  for (const [name, results] of Object.entries(failures)) {
    assert.ok(type(name), `index.d.ts exports ${name}`)
    for (const r of results) {
      assert.equal(r.ok, false, JSON.stringify(r))
      assert.deepEqual(undeclared(r, name), [], `${name}: ${JSON.stringify(r)}`)
      const walk = (v, at) => {
        if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) (seen.add(`${at}.${k}`), walk(x, Array.isArray(v) ? at : k))
      }
      walk(r, '')
    }
  }
  // The failures above show the fields a retry needs.
  for (const f of ['.closest_match', 'closest_match.equally_close', '.already_applied', '.unique_context_hint', '.failed_edits', '.sha256',
    '.files', '.failures', 'failures.hunks', 'failures.blocks', '.line', '.expected', '.command', '.files_changed', '.id']) {
    assert.ok(seen.has(f), `some failure has ${f}: ${[...seen].join(' ')}`)
  }
  // The check is real: a field no type declares is found.
  assert.deepEqual(undeclared({ ok: false, code: 'X', message: '', closest_match: { text: '', closest: 1 } }, 'PatchFileFailure'), [
    'PatchFileFailure.closest_match.closest',
  ])
  fs.rmSync(dir, { recursive: true, force: true })
})

test('result types: every field of a write and of a dry run is declared by its type; a dry run has its run_id and diff', async () => {
  const { patchFile, batchPatchFiles, writeFile, applyEditBlocks, applyPatch, textEditor, editFile, undo } = await import('../index.mjs')
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pft-types-')))
  const o = { workspaceRoot: dir, journal: path.join(dir, '.journal') }
  fs.writeFileSync(path.join(dir, 'f.txt'), 'a = 1\nb = 2\n')
  const edit = { file_path: 'f.txt', search_block: 'a = 1', replace_block: 'a = 2' }
  const dry = {
    PatchFileDryRun: await patchFile({ ...edit, dry_run: true }, o),
    BatchPatchFilesDryRun: await batchPatchFiles({ files: [edit], dryRun: true }, o),
    WriteFileDryRun: await writeFile({ file_path: 'f.txt', content: 'x\n', dry_run: true }, o),
    FormatDryRun: await applyPatch({ patch: '*** Begin Patch\n*** Update File: f.txt\n@@\n-a = 1\n+a = 3\n*** End Patch', dry_run: true }, o),
    TextEditorDryRun: await textEditor({ command: 'str_replace', path: 'f.txt', old_str: 'a = 1', new_str: 'a = 4', dry_run: true }, o),
  }
  const written = {
    PatchFileWritten: await patchFile(edit, o),
    BatchPatchFilesWritten: await batchPatchFiles({ files: [{ file_path: 'f.txt', search_block: 'a = 2', replace_block: 'a = 1' }] }, o),
    WriteFileWritten: await writeFile({ file_path: 'g.txt', content: 'g\n' }, o),
    FormatWritten: await applyEditBlocks('f.txt\n<<<<<<< SEARCH\na = 1\n=======\na = 5\n>>>>>>> REPLACE\n', o),
    TextEditorEdited: await textEditor({ command: 'str_replace', path: 'f.txt', old_str: 'a = 5', new_str: 'a = 6' }, o),
  }
  dry.UndoDryRun = await undo({ dry_run: true }, o)
  dry.PatchFileDryRun2 = await editFile({ path: 'f.txt', edits: [{ oldText: 'a = 6', newText: 'a = 7' }], dryRun: true }, o)
  written.UndoDone = await undo(undefined, o)
  const { undeclared } = declarations()
  for (const [name, r] of Object.entries(dry)) {
    assert.equal(r.ok, true, `${name}: ${JSON.stringify(r)}`)
    assert.deepEqual(undeclared(r, name.replace(/2$/, '')), [], `${name}: ${JSON.stringify(r)}`)
    assert.equal(r.dry_run, true, name)
    assert.equal(typeof r.run_id, 'string', name)
    assert.equal(typeof r.expires_in, 'number', name)
    assert.equal(typeof r.diff, 'string', name)
  }
  for (const [name, r] of Object.entries(written)) {
    assert.equal(r.ok, true, `${name}: ${JSON.stringify(r)}`)
    assert.deepEqual(undeclared(r, name), [], `${name}: ${JSON.stringify(r)}`)
    for (const k of ['dry_run', 'run_id', 'expires_in', 'diff', 'diff_omitted']) assert.equal(k in r, false, `${name} has no ${k}`)
  }
  fs.rmSync(dir, { recursive: true, force: true })
})

/**
 * A program over `source` (an .mts consumer of the package, strict; `project`:
 * consumerProject's options) and its checker; asserts that the source compiles.
 */
function consumerProgram(source, project = {}) {
  const dir = consumerProject({ 'probe.mts': source }, project)
  const { options } = ts.convertCompilerOptionsFromJson({ ...CONSUMER_OPTIONS, ...project.compilerOptions }, dir)
  const file = path.join(dir, 'probe.mts')
  const program = ts.createProgram([file], options)
  const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))
  assert.deepEqual(diagnostics, [], source)
  const checker = program.getTypeChecker()
  /** The type of each `export const` / `export type` of the source, by name. */
  const declared = new Map()
  for (const st of program.getSourceFile(file).statements) {
    if (ts.isTypeAliasDeclaration(st)) declared.set(st.name.text, checker.getTypeAtLocation(st.name))
    if (ts.isVariableStatement(st)) for (const d of st.declarationList.declarations) declared.set(d.name.text, checker.getTypeAtLocation(d.name))
  }
  return { dir, checker, declared }
}

const contract = JSON.parse(fs.readFileSync(path.join(REPO, 'schemas', 'results.json'), 'utf8'))

test('compact types: Compact<T> makes optional exactly the fields the contract says a compact T may leave out', () => {
  const names = Object.keys(contract.$defs)
  const source = [
    "import type * as P from 'patch-file-tool'",
    ...names.flatMap((n) => [`export type Full_${n} = P.${n}`, `export type Compact_${n} = P.Compact<P.${n}>`]),
  ].join('\n')
  const { dir, checker, declared } = consumerProgram(source)
  const members = (t) => (t.isUnion() ? t.types : [t])
  /** Each object member's fields: name -> required. */
  const shape = (t) => members(t).filter((m) => m.flags & ts.TypeFlags.Object).map((m) =>
    Object.fromEntries(checker.getPropertiesOfType(m).map((p) => [p.name, !(p.flags & ts.SymbolFlags.Optional)])))
  let checked = 0
  for (const n of names) {
    // A union of other result types: each is checked as itself.
    if ((contract.$defs[n].anyOf ?? []).some((m) => m.$ref)) continue
    const full = shape(declared.get(`Full_${n}`))
    const compact = shape(declared.get(`Compact_${n}`))
    assert.equal(compact.length, full.length, n)
    const omitted = new Set(contract.compact.fields[n] ?? [])
    // Each member of the full type, its fields the omitted ones made optional, is a member of the compact type.
    const want = full.map((f) => Object.fromEntries(Object.entries(f).map(([k, req]) => [k, req && !omitted.has(k)])))
    const key = (s) => JSON.stringify(Object.entries(s).sort())
    assert.deepEqual(compact.map(key).sort(), want.map(key).sort(), n)
    for (const k of omitted) assert.ok(full.some((f) => f[k] === true), `${n}.${k} is required in the full type`)
    checked += omitted.size
  }
  assert.ok(checked >= 25, `${checked} omitted fields checked`)
  fs.rmSync(dir, { recursive: true, force: true })
})

/**
 * How `value` fails to be a `type` (checker's): the required fields it
 * lacks and the fields the type does not declare, nested values included
 * (a union: the member it fits best); [] when it fits.
 */
function misfits(checker, value, type, at = '') {
  const flags = type.flags
  if (flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return []
  if (type.isUnion()) {
    let best = null
    // A value read from JSON is never undefined (an optional field's type has it).
    for (const m of type.types.filter((t) => !(t.flags & ts.TypeFlags.Undefined))) {
      const found = misfits(checker, value, m, at)
      if (!found.length) return []
      if (!best || found.length < best.length) best = found
    }
    return best
  }
  const wrong = [`${at}: ${JSON.stringify(value)?.slice(0, 80)} is not ${checker.typeToString(type)}`]
  if (value === null) return flags & ts.TypeFlags.Null ? [] : wrong
  if (type.isLiteral() || flags & ts.TypeFlags.BooleanLiteral) {
    const literal = type.isLiteral() ? type.value : type.intrinsicName === 'true'
    return value === literal ? [] : wrong
  }
  if (typeof value === 'string') return flags & ts.TypeFlags.String ? [] : wrong
  if (typeof value === 'number') return flags & ts.TypeFlags.Number ? [] : wrong
  if (typeof value === 'boolean') return flags & ts.TypeFlags.Boolean ? [] : wrong
  if (Array.isArray(value)) {
    if (checker.isTupleType(type)) {
      const items = checker.getTypeArguments(type)
      return value.length === items.length ? value.flatMap((v, i) => misfits(checker, v, items[i], `${at}[${i}]`)) : wrong
    }
    if (!checker.isArrayType(type)) return wrong
    const item = checker.getTypeArguments(type)[0]
    return value.flatMap((v, i) => misfits(checker, v, item, `${at}[${i}]`))
  }
  if (typeof value !== 'object' || !(flags & ts.TypeFlags.Object || type.isIntersection())) return wrong
  const out = []
  for (const p of checker.getPropertiesOfType(type)) {
    if (!(p.flags & ts.SymbolFlags.Optional) && !(p.name in value)) out.push(`${at}.${p.name} is missing`)
  }
  const open = checker.getIndexInfosOfType(type).length > 0
  for (const [k, v] of Object.entries(value)) {
    const p = checker.getPropertyOfType(type, k)
    if (!p) {
      if (!open) out.push(`${at}.${k} is not declared`)
      continue
    }
    out.push(...misfits(checker, v, checker.getTypeOfSymbol(p), `${at}.${k}`))
  }
  return out
}

test('compact types: what each call answers in either view is the type its options give, no field missing or undeclared', async () => {
  const api = await import('../index.mjs')
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pft-types-')))
  const put = (name, text) => fs.writeFileSync(path.join(dir, name), text)
  // Each call: [function, input]; `run_id` in an input is the run of the call before.
  const CALLS = [
    ['patchFile', { file_path: 'a.py', search_block: 'a = 1', replace_block: 'a = 2' }],
    ['patchFile', { file_path: 'a.py', edits: [{ search_block: 'a = 2', replace_block: 'a = 1' }, { search_block: 'b = 2', replace_block: 'b = 3' }] }],
    ['patchFile', { file_path: 'a.py', search_block: '  b = 3\n  return', replace_block: 'x' }],
    ['patchFileSync', { file_path: 'a.py', search_block: 'a = 1', replace_block: 'a = 5', dry_run: true }],
    ['applyDryRun', { run_id: null }],
    ['batchPatchFiles', { files: [{ file_path: 'a.py', search_block: 'a = 5', replace_block: 'a = 1' }, { file_path: 'b.txt', search_block: 'one', replace_block: 'uno' }] }],
    ['batchPatchFiles', { files: [{ file_path: 'a.py', search_block: 'a = 1', replace_block: 'a = 6' }, { file_path: 'b.txt', search_block: 'one', replace_block: '1' }] }],
    ['batchPatchFiles', { files: [{ file_path: 'a.py', search_block: 'a = 1', replace_block: 'a = 7' }], dry_run: true }],
    ['applyDryRun', { run_id: null }],
    ['writeFile', { file_path: 'c.txt', content: 'c\n' }],
    ['writeFile', { file_path: 'c.txt', content: 'cc\n', dry_run: true }],
    ['readFile', { file_path: 'b.txt' }],
    ['readFile', { file_path: 'missing.txt' }],
    ['applyPatch', '*** Begin Patch\n*** Update File: b.txt\n@@\n-uno\n+one\n*** Add File: d.txt\n+d\n*** End Patch\n'],
    ['applyPatch', { patch: '*** Begin Patch\n*** Update File: b.txt\n@@\n-one\n+eins\n*** End Patch\n', dry_run: true }],
    ['applyPatch', '*** Begin Patch\n*** Update File: b.txt\n@@\n-zwei\n+two\n*** End Patch\n'],
    ['applyEditBlocks', 'b.txt\n<<<<<<< SEARCH\nthree\n=======\ndrei\n>>>>>>> REPLACE\nb.txt\n<<<<<<< SEARCH\nzzz\n=======\nx\n>>>>>>> REPLACE\n'],
    ['applyEditBlocks', 'b.txt\n<<<<<<< SEARCH\ntwo\n=======\nzwei\n>>>>>>> REPLACE\n'],
    ['textEditor', { command: 'str_replace', path: 'b.txt', old_str: 'three', new_str: 'drei' }],
    ['textEditor', { command: 'view', path: 'b.txt' }],
    ['editFile', { path: 'b.txt', edits: [{ oldText: 'drei', newText: 'three' }] }],
    ['editLines', { file_path: 'c.txt', edits: [{ op: 'append', lines: 'z' }] }],
    ['history', {}],
    ['undo', { dry_run: true }],
    ['undo', {}],
  ]
  const names = new Set(CALLS.map(([fn]) => fn))
  for (const view of ['compact', 'full']) {
    put('a.py', 'def f():\n    a = 1\n    b = 2\n    return a + b\n')
    put('b.txt', 'one\ntwo\nthree\n')
    fs.rmSync(path.join(dir, 'c.txt'), { force: true })
    fs.rmSync(path.join(dir, 'd.txt'), { force: true })
    const o = { workspaceRoot: dir, journal: path.join(dir, `.journal-${view}`), ...(view === 'compact' ? { results: 'compact' } : {}) }
    const answers = []
    let run = null
    for (const [fn, given] of CALLS) {
      const input = given.run_id === null ? { run_id: run } : given
      const r = await api[fn](input, o)
      if (r.ok && typeof r.run_id === 'string') run = r.run_id
      answers.push([fn, input, r])
    }
    // The same calls as a consumer writes them: the types TypeScript gives their answers.
    const options = view === 'compact' ? "{ workspaceRoot: '/w', results: 'compact' }" : "{ workspaceRoot: '/w' }"
    const source = [
      "import * as api from 'patch-file-tool'",
      ...answers.map(([fn, input], i) => `export const r${i} = ${fn === 'patchFileSync' ? '' : 'await '}api.${fn}(${JSON.stringify(input)}, ${options})`),
    ].join('\n')
    const { dir: project, checker, declared } = consumerProgram(source)
    const seen = new Set()
    answers.forEach(([fn, input, r], i) => {
      seen.add(`${fn}:${r.ok}`)
      assert.deepEqual(misfits(checker, r, declared.get(`r${i}`)), [], `${view} ${fn}(${JSON.stringify(input)}): ${JSON.stringify(r)}`)
    })
    for (const fn of names) assert.ok(seen.has(`${fn}:true`), `${view}: ${fn} answered a success`)
    for (const fn of ['patchFile', 'batchPatchFiles', 'readFile', 'applyPatch', 'applyEditBlocks']) assert.ok(seen.has(`${fn}:false`), `${view}: ${fn} failed`)
    if (view === 'compact') {
      // The compact answers above leave out what the view leaves out (else the full types would fit them too).
      const [, , success] = answers[0]
      assert.equal('before_bytes' in success || 'sha256_before' in success || 'replacements' in success, false, JSON.stringify(success))
      const failure = answers.find(([fn, , r]) => fn === 'applyEditBlocks' && !r.ok)[2]
      assert.ok(failure.failures.some((f) => !('message' in f)), JSON.stringify(failure))
    }
    fs.rmSync(project, { recursive: true, force: true })
  }
  fs.rmSync(dir, { recursive: true, force: true })
})

test('adapter types: what each adapter answers (a success and a failure, in either view) is the type its d.ts declares, no field missing or undeclared', async () => {
  const { createPatchFileTools } = await import('patch-file-tool/ai-sdk')
  const langchain = await import('patch-file-tool/langchain')
  const { createTextEditor } = await import('patch-file-tool/anthropic')
  const { createEditor } = await import('patch-file-tool/openai-agents')
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pft-types-')))
  const put = (name, text) => fs.writeFileSync(path.join(dir, name), text)
  const aiCall = { toolCallId: 't', messages: [], context: {} }
  const toolCall = (name, args) => ({ type: 'tool_call', id: `c-${name}`, name, args })
  try {
    for (const view of ['compact', 'full']) {
      put('a.py', 'def f():\n    a = 1\n    b = 2\n    return a + b\n')
      put('b.txt', 'one\ntwo\nthree\n')
      fs.rmSync(path.join(dir, 'c.txt'), { force: true })
      const full = view === 'full' ? { results: 'full' } : {}
      const o = { workspaceRoot: dir, journal: path.join(dir, `.journal-${view}`), ...full }
      const ai = createPatchFileTools(o)
      const anchorTools = createPatchFileTools({ ...o, tools: 'anchors' })
      const lcTools = Object.fromEntries(langchain.createPatchFileTools(o).map((t) => [t.name, t]))
      const lcExecute = langchain.createApplyPatchExecute(o)
      const editor = createTextEditor(o)
      const agents = createEditor(o)
      const artifact = async (msg) => (assert.equal(typeof msg, 'object', String(msg)), msg.artifact)
      // Each answer: [the TypeScript type its d.ts declares (by the names of the probe below), the answer].
      const answers = [
        ['AiPatchFile', await ai.patch_file.execute({ file_path: 'a.py', search_block: 'a = 1', replace_block: 'a = 2' }, aiCall)],
        ['AiPatchFile', await ai.patch_file.execute({ file_path: 'a.py', search_block: '  b = 2\n  return', replace_block: 'x' }, aiCall)],
        ['AiWriteFile', await ai.write_file.execute({ file_path: 'c.txt', content: 'c\n' }, aiCall)],
        ['AiWriteFile', await ai.write_file.execute({ file_path: 'c.txt', content: 'x\n', expected_sha256: '0'.repeat(64) }, aiCall)],
        ['AiApplyPatch', await ai.apply_patch.execute({ patch: '*** Begin Patch\n*** Update File: b.txt\n@@\n-one\n+uno\n*** End Patch\n' }, aiCall)],
        ['AiApplyPatch', await ai.apply_patch.execute({ patch: '*** Begin Patch\n*** Update File: b.txt\n@@\n-zwei\n+two\n*** End Patch\n' }, aiCall)],
        ['AiEditLines', await anchorTools.edit_lines.execute({ file_path: 'c.txt', edits: [{ op: 'append', lines: 'z' }] }, aiCall)],
        ['AiEditLines', await anchorTools.edit_lines.execute({ file_path: 'c.txt', edits: [{ op: 'replace', pos: '9#ZZ', lines: 'z' }] }, aiCall)],
        ['LangChainPatchFile', await artifact(await lcTools.patch_file.invoke(toolCall('patch_file', { file_path: 'a.py', search_block: 'a = 2', replace_block: 'a = 1' })))],
        ['LangChainPatchFile', await artifact(await lcTools.patch_file.invoke(toolCall('patch_file', { file_path: 'a.py', search_block: 'nope', replace_block: 'x' })))],
        ['LangChainApplyPatch', await artifact(await lcExecute({ type: 'update_file', path: 'b.txt', diff: '@@\n-uno\n+one\n' }, { toolCall: { id: 'c1' } }))],
        ['LangChainApplyPatch', await artifact(await lcExecute({ type: 'update_file', path: 'b.txt', diff: '@@\n-uno\n+eins\n' }, { toolCall: { id: 'c2' } }))],
        ['LangChainApplyPatch', await artifact(await lcExecute({ type: 'create_file', path: 'd.txt', diff: 'no plus\n' }, { toolCall: { id: 'c3' } }))],
        ['AnthropicRun', await editor.run({ command: 'str_replace', path: 'b.txt', old_str: 'three', new_str: 'drei' })],
        ['AnthropicRun', await editor.run({ command: 'create', path: 'e.txt', file_text: 'e\n' })],
        ['AnthropicRun', await editor.run({ command: 'view', path: 'b.txt' })],
        ['AnthropicRun', await editor.run({ command: 'str_replace', path: 'b.txt', old_str: 'three', new_str: 'x' })],
        ['AgentsEditor', await agents.updateFile({ type: 'update_file', path: 'b.txt', diff: '@@\n-drei\n+three\n' })],
        ['AgentsEditor', await agents.updateFile({ type: 'update_file', path: 'b.txt', diff: '@@\n-drei\n+x\n' })],
      ]
      fs.rmSync(path.join(dir, 'e.txt'), { force: true })
      // The types a consumer gets for these adapters made with the same options (a literal 'full' in the full view).
      const opts = view === 'full' ? "{ workspaceRoot: '/w', results: 'full' }" : "{ workspaceRoot: '/w' }"
      const source = `import type { InferToolOutput } from 'ai'
import type { Editor } from '@openai/agents'
import { createPatchFileTools } from 'patch-file-tool/ai-sdk'
import { createTextEditor } from 'patch-file-tool/anthropic'
import type { ToolArtifacts } from 'patch-file-tool/langchain'
const ai = createPatchFileTools(${opts})
const anchors = createPatchFileTools({ ...${opts}, tools: 'anchors' })
const editor = createTextEditor(${opts})
type LangChain = ToolArtifacts<${view === 'full' ? "{ results: 'full' }" : '{}'}>
export type AiPatchFile = InferToolOutput<typeof ai.patch_file>
export type AiWriteFile = InferToolOutput<typeof ai.write_file>
export type AiApplyPatch = InferToolOutput<typeof ai.apply_patch>
export type AiEditLines = InferToolOutput<typeof anchors.edit_lines>
export type LangChainPatchFile = LangChain['patch_file']
export type LangChainApplyPatch = LangChain['apply_patch']
export type AnthropicRun = Awaited<ReturnType<typeof editor.run>>
export type AgentsEditor = Exclude<Awaited<ReturnType<Editor['updateFile']>>, void>
`
      const { dir: project, checker, declared } = consumerProgram(source, WITH_SDKS)
      try {
        const seen = new Set()
        for (const [name, r] of answers) {
          const ok = name === 'AgentsEditor' ? r.status === 'completed' : r.ok
          seen.add(`${name}:${ok}`)
          assert.ok(declared.get(name), name)
          assert.deepEqual(misfits(checker, r, declared.get(name)), [], `${view} ${name}: ${JSON.stringify(r)}`)
        }
        for (const name of new Set(answers.map(([n]) => n))) {
          assert.ok(seen.has(`${name}:true`) && seen.has(`${name}:false`), `${view}: ${name} answered a success and a failure: ${[...seen]}`)
        }
        // The check is real: the compact answers leave out fields the full types require, the full ones do not.
        const written = answers[0][1]
        assert.equal(written.ok, true, JSON.stringify(written))
        assert.equal('sha256_before' in written, view === 'full', JSON.stringify(written))
        const edited = answers.find(([n, r]) => n === 'AnthropicRun' && r.ok && r.command === 'str_replace')[1]
        assert.equal('path' in edited, view === 'full', JSON.stringify(edited))
      } finally {
        fs.rmSync(project, { recursive: true, force: true })
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})
