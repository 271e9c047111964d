// The patchFile contract, bullet by bullet, through the public JS API
// (`../index.mjs` and `../index.js`). Each test names the behaviour it pins and
// fails if that behaviour breaks. Every failing call is checked to leave the
// file byte-identical and its directory free of temp files.
//
//   PFT_BIG_FILE_MB=200       size of the big-file test (default 50)
//   PFT_READER_READS=100000   reads made by the concurrent reader (default 3000)
import './helpers/private-state.mjs'
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import * as esm from '../index.mjs'

const { patchFile, patchFileSync, readFile, PATCH_FILE_ERROR_CODES, patchFileSchema } = esm
const here = path.dirname(fileURLToPath(import.meta.url))
const repo = path.resolve(here, '..')
const cjs = createRequire(import.meta.url)('../index.js')
const unix = process.platform !== 'win32'
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0

const CONTRACT_CODES = [
  'SEARCH_BLOCK_NOT_FOUND',
  'SEARCH_BLOCK_AMBIGUOUS',
  'INVALID_INPUT',
  'PATH_OUTSIDE_WORKSPACE',
  'TARGET_IS_DIRECTORY',
  'BINARY_FILE_REJECTED',
  'FILE_READ_ERROR',
  'FILE_WRITE_ERROR',
  'UNSUPPORTED_ENCODING',
]

// ---------------------------------------------------------------------------
// helpers

/** A fresh workspace directory (its real path, so results compare equal). */
function workspace(prefix = 'pft-contract-') {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
}

/** Writes `content` to `root/name` and returns its absolute path. */
function put(root, name, content) {
  const p = path.join(root, name)
  fs.mkdirSync(path.dirname(p), { recursive: true })
  fs.writeFileSync(p, content)
  return p
}

/** Names in a directory, sorted (temp files would show up here). */
const entries = (dir) => fs.readdirSync(dir).sort()

/** Our temp files anywhere under `dir`. */
function tempLeftovers(dir) {
  const out = []
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name)
    if (e.isDirectory() && !e.isSymbolicLink()) out.push(...tempLeftovers(p))
    else if (/\.pft-[0-9a-f]+\.tmp$/.test(e.name) || /\.tmp$/.test(e.name)) out.push(p)
  }
  return out
}

/**
 * Runs a call expected to fail with `code` and asserts that every file under
 * `root` is byte-identical (and has the same mode) afterwards and that no
 * entry was added or removed anywhere under it.
 */
async function expectFailure(root, call, code) {
  const before = snapshot(root)
  const r = await call()
  assert.equal(r.ok, false, `expected ${code}, got ${JSON.stringify(r)}`)
  assert.equal(r.code, code, r.message)
  assert.equal(typeof r.message, 'string')
  assert.ok(r.message.length > 10, 'message tells the agent something')
  assert.deepEqual(snapshot(root), before, 'files untouched, nothing created or left behind')
  return r
}

/** Path → [kind, bytes (hex), mode] of everything under `dir`, links not followed. */
function snapshot(dir, base = dir, out = {}) {
  for (const name of fs.readdirSync(dir).sort()) {
    const p = path.join(dir, name)
    const rel = path.relative(base, p)
    const st = fs.lstatSync(p)
    if (st.isSymbolicLink()) out[rel] = ['link', fs.readlinkSync(p)]
    else if (st.isDirectory()) {
      out[rel] = ['dir', st.mode & 0o7777]
      snapshot(p, base, out)
    } else out[rel] = ['file', fs.readFileSync(p).toString('hex'), st.mode & 0o7777]
  }
  return out
}

function utf16be(s) {
  const b = Buffer.from(s, 'utf16le')
  b.swap16()
  return b
}

const BOM = {
  'utf-8': Buffer.alloc(0),
  'utf-8-bom': Buffer.from([0xef, 0xbb, 0xbf]),
  'utf-16le': Buffer.from([0xff, 0xfe]),
  'utf-16be': Buffer.from([0xfe, 0xff]),
}
const ENCODE = {
  'utf-8': (s) => Buffer.from(s, 'utf8'),
  'utf-8-bom': (s) => Buffer.from(s, 'utf8'),
  'utf-16le': (s) => Buffer.from(s, 'utf16le'),
  'utf-16be': utf16be,
}
const encodeFile = (enc, s) => Buffer.concat([BOM[enc], ENCODE[enc](s)])

// ---------------------------------------------------------------------------
// exports

test('exports: ESM and CJS expose the same functions, codes and schema', () => {
  for (const name of ['patchFile', 'patchFileSync', 'PATCH_FILE_ERROR_CODES', 'patchFileSchema']) {
    assert.ok(esm[name] !== undefined, `ESM exports ${name}`)
    assert.equal(esm[name], cjs[name], `ESM and CJS share ${name}`)
  }
  assert.equal(typeof patchFile, 'function')
  assert.equal(typeof patchFileSync, 'function')
})

test('exports: PATCH_FILE_ERROR_CODES is frozen, maps each name to itself and has every contract code', () => {
  assert.ok(Object.isFrozen(PATCH_FILE_ERROR_CODES))
  for (const code of CONTRACT_CODES) assert.equal(PATCH_FILE_ERROR_CODES[code], code)
  for (const [k, v] of Object.entries(PATCH_FILE_ERROR_CODES)) assert.equal(k, v)
  assert.throws(() => {
    PATCH_FILE_ERROR_CODES.SEARCH_BLOCK_NOT_FOUND = 'changed'
  }, TypeError)
  assert.equal(PATCH_FILE_ERROR_CODES.SEARCH_BLOCK_NOT_FOUND, 'SEARCH_BLOCK_NOT_FOUND')
})

test('exports: patchFileSchema equals schemas/patch_file.schema.json and teaches the agent', () => {
  const file = JSON.parse(fs.readFileSync(path.join(repo, 'schemas', 'patch_file.schema.json'), 'utf8'))
  assert.deepEqual(patchFileSchema, file)
  assert.equal(patchFileSchema.name, 'patch_file')
  const params = patchFileSchema.parameters
  assert.equal(params.additionalProperties, false)
  // One search_block/replace_block pair, or edits[] of such pairs: only file_path is always required.
  assert.deepEqual(params.required, ['file_path'])
  assert.equal(params.properties.search_block.minLength, 1)
  assert.equal(params.properties.replace_block.type, 'string')
  const edit = params.properties.edits.items
  assert.deepEqual(edit.required, ['search_block', 'replace_block'])
  assert.equal(edit.properties.search_block.minLength, 1)
  assert.equal(edit.additionalProperties, false)
  assert.match(patchFileSchema.description, /exactly once/)
  assert.match(patchFileSchema.description, /byte for byte/)
  assert.match(patchFileSchema.description, /\bedits\b/)
  // How to retry is taught where it is needed, by the failure itself.
  const root = workspace()
  put(root, 'a.txt', 'one\n')
  const miss = patchFileSync({ file_path: 'a.txt', search_block: 'two', replace_block: 'three' }, { workspaceRoot: root })
  assert.equal(miss.code, 'SEARCH_BLOCK_NOT_FOUND')
  assert.match(miss.message, /re-?read/i)
})

test('patchFile returns a Promise; patchFileSync returns the result directly', async () => {
  const root = workspace()
  put(root, 'a.txt', 'one\n')
  const p = patchFile({ file_path: 'a.txt', search_block: 'one', replace_block: 'two' }, { workspaceRoot: root })
  assert.ok(p instanceof Promise)
  assert.equal((await p).ok, true)
  const s = patchFileSync({ file_path: 'a.txt', search_block: 'two', replace_block: 'three' }, { workspaceRoot: root })
  assert.ok(!(s instanceof Promise))
  assert.equal(s.ok, true)
  assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'three\n')
})

// ---------------------------------------------------------------------------
// input

test('input: snake_case, camelCase and mixed spellings all work', async () => {
  const root = workspace()
  const file = put(root, 'cfg.ts', 'retries = 1;\n')
  const spellings = [
    { file_path: 'cfg.ts', search_block: 'retries = 1;', replace_block: 'retries = 2;' },
    { filePath: 'cfg.ts', searchBlock: 'retries = 2;', replaceBlock: 'retries = 3;' },
    { filePath: 'cfg.ts', search_block: 'retries = 3;', replaceBlock: 'retries = 4;' },
    { file_path: 'cfg.ts', searchBlock: 'retries = 4;', replace_block: 'retries = 5;' },
  ]
  for (const [i, input] of spellings.entries()) {
    const r = await patchFile(input, { workspaceRoot: root })
    assert.equal(r.ok, true, JSON.stringify(r))
    assert.equal(r.file_path, file)
    assert.equal(fs.readFileSync(file, 'utf8'), `retries = ${i + 2};\n`)
  }
  // Both spellings of one field with the same value are one field.
  const same = await patchFile(
    { file_path: 'cfg.ts', filePath: 'cfg.ts', search_block: 'retries = 5;', searchBlock: 'retries = 5;', replace_block: 'retries = 6;' },
    { workspaceRoot: root },
  )
  assert.equal(same.ok, true, JSON.stringify(same))
  assert.equal(fs.readFileSync(file, 'utf8'), 'retries = 6;\n')
})

test('INVALID_INPUT: the same field twice with different values, for each field', async () => {
  const root = workspace()
  put(root, 'a.txt', 'alpha\nbeta\n')
  put(root, 'b.txt', 'alpha\n')
  const base = { file_path: 'a.txt', search_block: 'alpha', replace_block: 'ALPHA' }
  for (const extra of [{ filePath: 'b.txt' }, { searchBlock: 'beta' }, { replaceBlock: 'other' }]) {
    const r = await expectFailure(root, () => patchFile({ ...base, ...extra }, { workspaceRoot: root }), 'INVALID_INPUT')
    const camel = Object.keys(extra)[0]
    assert.ok(r.message.includes(camel), `message names \`${camel}\`: ${r.message}`)
  }
})

test('INVALID_INPUT: missing, non-string and empty fields; nothing is touched', async () => {
  const root = workspace()
  put(root, 'a.txt', 'alpha\n')
  const ok = { file_path: 'a.txt', search_block: 'alpha', replace_block: 'beta' }
  const cases = [
    ['missing file_path', { search_block: 'alpha', replace_block: 'beta' }, 'file_path'],
    ['missing search_block', { file_path: 'a.txt', replace_block: 'beta' }, 'search_block'],
    ['missing replace_block', { file_path: 'a.txt', search_block: 'alpha' }, 'replace_block'],
    ['number file_path', { ...ok, file_path: 7 }, 'file_path'],
    ['number search_block', { ...ok, search_block: 1 }, 'search_block'],
    ['boolean replace_block', { ...ok, replace_block: false }, 'replace_block'],
    ['object search_block', { ...ok, search_block: { text: 'alpha' } }, 'search_block'],
    ['array replace_block', { ...ok, replace_block: ['beta'] }, 'replace_block'],
    ['null search_block', { ...ok, search_block: null }, 'search_block'],
    ['empty search_block', { ...ok, search_block: '' }, 'search_block'],
    ['empty searchBlock', { file_path: 'a.txt', searchBlock: '', replace_block: 'x' }, 'search'],
    ['empty file_path', { ...ok, file_path: '' }, 'file_path'],
  ]
  for (const [name, input, field] of cases) {
    const r = await expectFailure(root, () => patchFile(input, { workspaceRoot: root }), 'INVALID_INPUT')
    assert.ok(r.message.includes(field), `${name}: message names ${field}: ${r.message}`)
    const s = patchFileSync(input, { workspaceRoot: root })
    assert.equal(s.code, 'INVALID_INPUT', name)
  }
  assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'alpha\n')
})

test('patchFile never throws or rejects for junk input or options', async () => {
  const root = workspace()
  put(root, 'a.txt', 'alpha\n')
  const cyclic = { file_path: 'a.txt', search_block: 'alpha', replace_block: 'beta' }
  cyclic.self = cyclic
  let deep = {}
  const deepRoot = deep
  for (let i = 0; i < 100_000; i++) deep = deep.next = {}
  const throwingProxy = new Proxy(
    {},
    {
      get() {
        throw new Error('get trap')
      },
      ownKeys() {
        throw new Error('ownKeys trap')
      },
    },
  )
  const junk = [
    undefined,
    null,
    0,
    42,
    NaN,
    -1.5,
    'a.txt',
    '',
    true,
    () => 'a.txt',
    function named() {},
    [],
    ['a.txt', 'alpha', 'beta'],
    10n,
    Symbol('s'),
    new Date(0),
    new Map([['file_path', 'a.txt']]),
    Buffer.from('alpha'),
    {},
    cyclic,
    deepRoot,
    throwingProxy,
    { get file_path() { throw new Error('getter') }, search_block: 'alpha', replace_block: 'beta' },
    { file_path: 'a.txt', search_block: 10n, replace_block: 'beta' },
    { file_path: 'a.txt', search_block: Symbol('x'), replace_block: 'beta' },
    { file_path: 'a.txt', search_block: () => 'alpha', replace_block: 'beta' },
    { file_path: 'a.txt', search_block: 'alpha', replace_block: 'beta', expected_replacements: NaN },
    Object.create(null),
  ]
  const before = snapshot(root)
  for (const [i, j] of junk.entries()) {
    let r
    await assert.doesNotReject(async () => {
      r = await patchFile(j, { workspaceRoot: root })
    }, `input #${i}`)
    assert.equal(r.ok, false, `input #${i}`)
    assert.equal(r.code, 'INVALID_INPUT', `input #${i}: ${r.message}`)
    assert.doesNotThrow(() => {
      r = patchFileSync(j, { workspaceRoot: root })
    }, `sync input #${i}`)
    assert.equal(r.code, 'INVALID_INPUT', `sync input #${i}`)
  }
  // Junk options: never a throw; a well-formed input then fails or succeeds cleanly.
  const input = { file_path: 'a.txt', search_block: 'no such text', replace_block: 'x' }
  for (const [i, o] of [42, 'root', true, [], 10n, Symbol('o'), cyclic, throwingProxy, { workspaceRoot: 5 }, { workspaceRoot: 10n }, { maxFileBytes: -1 }].entries()) {
    let r
    await assert.doesNotReject(async () => {
      r = await patchFile(input, o)
    }, `options #${i}`)
    assert.equal(r.ok, false, `options #${i}`)
    assert.equal(r.code, 'INVALID_INPUT', `options #${i}: ${r.code} ${r.message}`)
  }
  // Extra arguments and no arguments at all.
  assert.equal((await patchFile()).code, 'INVALID_INPUT')
  assert.equal(patchFileSync().code, 'INVALID_INPUT')
  assert.deepEqual(snapshot(root), before)
})

test('options.workspaceRoot defaults to process.cwd()', async () => {
  const root = workspace()
  const outside = workspace('pft-outside-')
  put(root, 'src/a.txt', 'value = 1\n')
  put(outside, 'b.txt', 'value = 1\n')
  const cwd = process.cwd()
  process.chdir(root)
  try {
    for (const opts of [undefined, {}, { workspaceRoot: undefined }, null]) {
      const r = await patchFile({ file_path: 'src/a.txt', search_block: 'value = 1', replace_block: 'value = 2' }, opts ?? undefined)
      assert.equal(r.ok, true, JSON.stringify(r))
      assert.equal(r.file_path, path.join(root, 'src', 'a.txt'))
      const back = patchFileSync({ file_path: 'src/a.txt', search_block: 'value = 2', replace_block: 'value = 1' })
      assert.equal(back.ok, true)
    }
    // The default root confines too: a sibling directory is outside it.
    await expectFailure(
      outside,
      () => patchFile({ file_path: path.join(outside, 'b.txt'), search_block: 'value = 1', replace_block: 'x' }),
      'PATH_OUTSIDE_WORKSPACE',
    )
  } finally {
    process.chdir(cwd)
  }
})

// ---------------------------------------------------------------------------
// matching and results

test('success result: README example gives line 1 and 26/26/26/26 and every field', async () => {
  const root = workspace()
  const file = put(root, 'src/config.ts', 'export const retries = 2;\n')
  const r = await patchFile(
    { file_path: 'src/config.ts', search_block: 'retries = 2;', replace_block: 'retries = 3;' },
    { workspaceRoot: root },
  )
  assert.equal(r.ok, true)
  assert.equal(r.file_path, file)
  assert.ok(path.isAbsolute(r.file_path))
  assert.equal(r.replacements, 1)
  assert.equal(r.line_number, 1)
  assert.deepEqual([r.before_chars, r.after_chars, r.before_bytes, r.after_bytes], [26, 26, 26, 26])
  assert.equal(fs.readFileSync(file, 'utf8'), 'export const retries = 3;\n')
})

test('SEARCH_BLOCK_NOT_FOUND: match_count 0, a reread hint, file untouched', async () => {
  const root = workspace()
  put(root, 'a.txt', 'let x = 1;\n')
  const r = await expectFailure(
    root,
    () => patchFile({ file_path: 'a.txt', search_block: 'let x = 2;', replace_block: 'y' }, { workspaceRoot: root }),
    'SEARCH_BLOCK_NOT_FOUND',
  )
  assert.equal(r.match_count, 0)
  assert.equal(r.file_path, path.join(root, 'a.txt'))
  assert.match(r.message, /re-?read/i)
  // Matching is byte-exact: no whitespace, case or Unicode normalization.
  for (const near of ['let x = 1; ', 'let  x = 1;', 'LET x = 1;', 'let x = 1;\r\n', '\tlet x = 1;']) {
    const n = await expectFailure(
      root,
      () => patchFile({ file_path: 'a.txt', search_block: near, replace_block: 'y' }, { workspaceRoot: root }),
      'SEARCH_BLOCK_NOT_FOUND',
    )
    assert.equal(n.match_count, 0)
  }
  put(root, 'u.txt', 'caf\u00e9\n') // precomposed é
  await expectFailure(
    root,
    () => patchFile({ file_path: 'u.txt', search_block: 'cafe\u0301', replace_block: 'x' }, { workspaceRoot: root }),
    'SEARCH_BLOCK_NOT_FOUND',
  )
  // Regex metacharacters are literal text.
  put(root, 'r.txt', 'a.b\n')
  await expectFailure(
    root,
    () => patchFile({ file_path: 'r.txt', search_block: 'a.c', replace_block: 'x' }, { workspaceRoot: root }),
    'SEARCH_BLOCK_NOT_FOUND',
  )
})

test('SEARCH_BLOCK_AMBIGUOUS: match_count N, a make-it-unique hint, file untouched', async () => {
  const root = workspace()
  put(root, 'a.txt', 'x = 1\ny = 2\nx = 1\nz = 3\nx = 1\n')
  const r = await expectFailure(
    root,
    () => patchFile({ file_path: 'a.txt', search_block: 'x = 1', replace_block: 'x = 9' }, { workspaceRoot: root }),
    'SEARCH_BLOCK_AMBIGUOUS',
  )
  assert.equal(r.match_count, 3)
  assert.equal(r.file_path, path.join(root, 'a.txt'))
  assert.match(r.message, /unique|context|neighbo/i)
  // Adding context makes it unique.
  const ok = await patchFile(
    { file_path: 'a.txt', search_block: 'z = 3\nx = 1', replace_block: 'z = 3\nx = 9' },
    { workspaceRoot: root },
  )
  assert.equal(ok.ok, true)
  assert.equal(ok.line_number, 4)
  assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'x = 1\ny = 2\nx = 1\nz = 3\nx = 9\n')
})

test('non-overlapping count: "aa" occurs once in "aaa" and twice in "aaaa"', async () => {
  const root = workspace()
  put(root, 'three.txt', 'aaa')
  const r = await patchFile({ file_path: 'three.txt', search_block: 'aa', replace_block: 'b' }, { workspaceRoot: root })
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(r.replacements, 1)
  assert.equal(fs.readFileSync(path.join(root, 'three.txt'), 'utf8'), 'ba')
  put(root, 'four.txt', 'aaaa')
  const f = await expectFailure(
    root,
    () => patchFile({ file_path: 'four.txt', search_block: 'aa', replace_block: 'b' }, { workspaceRoot: root }),
    'SEARCH_BLOCK_AMBIGUOUS',
  )
  assert.equal(f.match_count, 2)
  put(root, 'five.txt', 'aaaaa')
  assert.equal(
    (await patchFile({ file_path: 'five.txt', search_block: 'aa', replace_block: 'b' }, { workspaceRoot: root })).match_count,
    2,
  )
})

test('line_number is the 1-based line where the match starts', async () => {
  const root = workspace()
  const cases = [
    ['first line', 'target\nb\nc\n', 'target', 1],
    ['third line', 'a\nb\ntarget\n', 'target', 3],
    ['mid-line', 'a\nb\nc = target;\n', 'target', 3],
    ['last line without newline', 'a\nb\nc\ntarget', 'target', 4],
    ['block starting with a newline', 'a\nb\nc\n', '\nc', 2],
    ['CRLF file', 'a\r\nb\r\ntarget\r\n', 'target', 3],
    ['lone CR is not a line break', 'a\rb\rtarget\n', 'target', 1],
    ['multi-line block', 'a\nfn f() {\n  x\n}\n', 'fn f() {\n  x\n}', 2],
    ['after blank lines', '\n\n\n\ntarget', 'target', 5],
  ]
  for (const [name, content, search, line] of cases) {
    put(root, 'f.txt', content)
    const r = await patchFile({ file_path: 'f.txt', search_block: search, replace_block: 'X' }, { workspaceRoot: root })
    assert.equal(r.ok, true, `${name}: ${JSON.stringify(r)}`)
    assert.equal(r.line_number, line, name)
  }
})

test('deletion: an empty replace_block removes the block', async () => {
  const root = workspace()
  const file = put(root, 'a.js', 'keep();\n// TODO remove\nalsoKeep();\n')
  const r = await patchFile({ file_path: 'a.js', search_block: '// TODO remove\n', replace_block: '' }, { workspaceRoot: root })
  assert.equal(r.ok, true)
  assert.equal(r.line_number, 2)
  assert.equal(fs.readFileSync(file, 'utf8'), 'keep();\nalsoKeep();\n')
  assert.deepEqual([r.before_bytes, r.after_bytes, r.before_chars, r.after_chars], [35, 20, 35, 20])
  // Deleting the whole content leaves an empty file.
  put(root, 'b.txt', 'only\n')
  const all = await patchFile({ filePath: 'b.txt', searchBlock: 'only\n', replaceBlock: '' }, { workspaceRoot: root })
  assert.equal(all.ok, true)
  assert.equal(all.after_bytes, 0)
  assert.equal(fs.readFileSync(path.join(root, 'b.txt')).length, 0)
})

test('multi-line blocks with indentation are replaced exactly', async () => {
  const root = workspace()
  const before = 'class A {\n  m() {\n    return 1;\n  }\n\n  n() {\n    return 1;\n  }\n}\n'
  const file = put(root, 'a.ts', before)
  const search = '  n() {\n    return 1;\n  }'
  const replace = '  n(): number {\n    const v = 2;\n    return v;\n  }'
  const r = await patchFile({ file_path: 'a.ts', search_block: search, replace_block: replace }, { workspaceRoot: root })
  assert.equal(r.ok, true)
  assert.equal(r.line_number, 6)
  const after = before.replace(search, replace)
  assert.equal(fs.readFileSync(file, 'utf8'), after)
  assert.deepEqual([r.before_chars, r.after_chars], [before.length, after.length])
  assert.deepEqual([r.before_bytes, r.after_bytes], [Buffer.byteLength(before), Buffer.byteLength(after)])
})

test('emoji and CJK: chars are UTF-16 code units, bytes are bytes on disk', async () => {
  const root = workspace()
  const before = 'const greet = "こんにちは 👋";\nconst flag = "🇯🇵";\n'
  const file = put(root, 'i18n.ts', before)
  const search = '"こんにちは 👋"'
  const replace = '"你好 🌏🚀"'
  const r = await patchFile({ file_path: 'i18n.ts', search_block: search, replace_block: replace }, { workspaceRoot: root })
  assert.equal(r.ok, true)
  const after = before.replace(search, replace)
  assert.equal(fs.readFileSync(file, 'utf8'), after)
  assert.equal(r.before_chars, before.length)
  assert.equal(r.after_chars, after.length)
  assert.equal(r.before_bytes, Buffer.byteLength(before))
  assert.equal(r.after_bytes, Buffer.byteLength(after))
  assert.notEqual(r.before_chars, r.before_bytes)
  // A search block that is one emoji, next to others.
  const r2 = await patchFile({ file_path: 'i18n.ts', search_block: '🚀', replace_block: '✨' }, { workspaceRoot: root })
  assert.equal(r2.ok, true)
  assert.equal(r2.line_number, 1)
  assert.equal(r2.after_chars, r2.before_chars - 1) // 🚀 is 2 code units, ✨ one
  assert.equal(r2.after_bytes, r2.before_bytes - 1) // 4 bytes vs 3
})

test('CRLF is strict: LF blocks do not match CRLF text, and nothing is normalized', async () => {
  const root = workspace()
  const file = put(root, 'w.txt', 'one\r\ntwo\r\nthree\r\n')
  const f = await expectFailure(
    root,
    () => patchFile({ file_path: 'w.txt', search_block: 'one\ntwo', replace_block: 'x' }, { workspaceRoot: root }),
    'SEARCH_BLOCK_NOT_FOUND',
  )
  assert.equal(f.match_count, 0)
  const r = await patchFile({ file_path: 'w.txt', search_block: 'one\r\ntwo', replace_block: 'uno\ndos' }, { workspaceRoot: root })
  assert.equal(r.ok, true)
  // The replacement's LF is written as sent; the other CRLFs stay.
  assert.deepEqual(fs.readFileSync(file), Buffer.from('uno\ndos\r\nthree\r\n'))
  // An LF file does not match a CRLF block either.
  put(root, 'u.txt', 'a\nb\n')
  await expectFailure(
    root,
    () => patchFile({ file_path: 'u.txt', search_block: 'a\r\nb', replace_block: 'x' }, { workspaceRoot: root }),
    'SEARCH_BLOCK_NOT_FOUND',
  )
  // Mixed endings survive untouched outside the edit.
  const mixed = put(root, 'm.txt', 'a\r\nb\nc\rd\r\n')
  assert.equal((await patchFile({ file_path: 'm.txt', search_block: 'c', replace_block: 'C' }, { workspaceRoot: root })).ok, true)
  assert.deepEqual(fs.readFileSync(mixed), Buffer.from('a\r\nb\nC\rd\r\n'))
})

// ---------------------------------------------------------------------------
// encodings

for (const enc of ['utf-8', 'utf-8-bom', 'utf-16le', 'utf-16be']) {
  test(`encoding ${enc}: detected, written back with the same BOM, bytes outside the edit unchanged`, async () => {
    const root = workspace()
    const prefix = 'header 漢字 😀\r\nline two\n'
    const search = 'value = "old"'
    const replace = 'value = "新しい 🚀"'
    const suffix = '\ntrailer ✓ \u00e9\r\n'
    const text = prefix + search + suffix
    const file = put(root, 'f.txt', encodeFile(enc, text))
    const r = await patchFile({ file_path: 'f.txt', search_block: search, replace_block: replace }, { workspaceRoot: root })
    assert.equal(r.ok, true, JSON.stringify(r))
    const expected = Buffer.concat([BOM[enc], ENCODE[enc](prefix), ENCODE[enc](replace), ENCODE[enc](suffix)])
    const got = fs.readFileSync(file)
    assert.ok(got.equals(expected), `${enc}: bytes differ`)
    assert.equal(r.line_number, 3)
    assert.equal(r.before_chars, text.length, 'chars exclude the BOM')
    assert.equal(r.after_chars, (prefix + replace + suffix).length)
    assert.equal(r.before_bytes, encodeFile(enc, text).length, 'bytes include the BOM')
    assert.equal(r.after_bytes, expected.length)
    // A failure leaves the encoded file byte-identical.
    await expectFailure(
      root,
      () => patchFile({ file_path: 'f.txt', search_block: 'value = "old"', replace_block: 'x' }, { workspaceRoot: root }),
      'SEARCH_BLOCK_NOT_FOUND',
    )
    // A block at the very start of the text (right after the BOM).
    const r2 = await patchFile({ file_path: 'f.txt', search_block: 'header', replace_block: 'HEAD' }, { workspaceRoot: root })
    assert.equal(r2.ok, true)
    assert.equal(r2.line_number, 1)
    assert.ok(fs.readFileSync(file).equals(encodeFile(enc, 'HEAD' + prefix.slice(6) + replace + suffix)))
  })
}

test('UTF-16 without a BOM counts as binary (NUL bytes) and is rejected untouched', async () => {
  const root = workspace()
  put(root, 'nobom.txt', Buffer.from('hello world\n', 'utf16le'))
  await expectFailure(
    root,
    () => patchFile({ file_path: 'nobom.txt', search_block: 'hello', replace_block: 'x' }, { workspaceRoot: root }),
    'BINARY_FILE_REJECTED',
  )
})

test('not UTF-8, in a legacy encoding: decoded as detected, edits write exactly their span, never U+FFFD', async () => {
  const root = workspace()
  const latin1 = (s) => Buffer.from(s, 'latin1')
  const head = Buffer.concat([latin1('name = "caf\xe9"\n'), Buffer.from([0xff, 0xc3, 0x28, 0x80, 0x0a])])
  const tail = Buffer.concat([latin1('\n# r\xe9sum\xe9 \xa9\n'), Buffer.from([0xed, 0xa0, 0x80, 0x0a])])
  const original = Buffer.concat([head, latin1('value = 1'), tail])
  const file = put(root, 'legacy.ini', original)
  const rd = await readFile({ file_path: 'legacy.ini' }, { workspaceRoot: root })
  // A single-byte code page (the detector's guess for these bytes).
  assert.match(rd.encoding, /^windows-125\d$/, JSON.stringify(rd))
  assert.equal(rd.faithful, true)
  const r = await patchFile({ file_path: 'legacy.ini', search_block: 'value = 1', replace_block: 'value = 22' }, { workspaceRoot: root })
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(r.line_number, 3)
  let got = fs.readFileSync(file)
  assert.ok(got.equals(Buffer.concat([head, latin1('value = 22'), tail])), 'only the span changed')
  assert.equal(got.indexOf(Buffer.from([0xef, 0xbf, 0xbd])), -1, 'no U+FFFD written')
  assert.equal(r.before_bytes, original.length)
  assert.equal(r.after_bytes, original.length + 1)
  // Non-ASCII text is matched decoded and written in the file's encoding.
  const e = await patchFile({ file_path: 'legacy.ini', search_block: 'r\u00e9sum\u00e9', replace_block: 'r\u00e9sum\u00e9s' }, { workspaceRoot: root })
  assert.equal(e.ok, true, JSON.stringify(e))
  got = fs.readFileSync(file)
  assert.ok(got.equals(Buffer.concat([head, latin1('value = 22'), latin1('\n# r\xe9sum\xe9s \xa9\n'), Buffer.from([0xed, 0xa0, 0x80, 0x0a])])))
  // A character the encoding lacks is refused, naming it.
  const f = await expectFailure(
    root,
    () => patchFile({ file_path: 'legacy.ini', search_block: 'value = 22', replace_block: 'value = \u2603' }, { workspaceRoot: root }),
    'UNSUPPORTED_ENCODING',
  )
  assert.ok(f.message.includes(rd.encoding), f.message)
})

test('not UTF-8 and no encoding detected (UTF-8 with stray bytes): ASCII edits at byte level, never U+FFFD', async () => {
  const root = workspace()
  const head = Buffer.concat([Buffer.from('name = "na\u00efve r\u00e9sum\u00e9"\n'), Buffer.from([0xff, 0x0a])])
  const tail = Buffer.from('\n# caf\u00e9\n')
  const original = Buffer.concat([head, Buffer.from('value = 1'), tail])
  const file = put(root, 'mixed.ini', original)
  const rd = await readFile({ file_path: 'mixed.ini' }, { workspaceRoot: root })
  assert.equal(rd.encoding, 'binary-safe-bytes', JSON.stringify(rd))
  assert.equal(rd.faithful, false)
  const r = await patchFile({ file_path: 'mixed.ini', search_block: 'value = 1', replace_block: 'value = 22' }, { workspaceRoot: root })
  assert.equal(r.ok, true, JSON.stringify(r))
  const got = fs.readFileSync(file)
  assert.ok(got.equals(Buffer.concat([head, Buffer.from('value = 22'), tail])), 'only the ASCII span changed')
  assert.equal(got.indexOf(Buffer.from([0xef, 0xbf, 0xbd])), -1, 'no U+FFFD written')
  // A block with non-ASCII characters (in search or replace) is refused.
  for (const input of [
    { file_path: 'mixed.ini', search_block: 'caf\u00e9', replace_block: 'cafe' },
    { file_path: 'mixed.ini', search_block: 'value = 22', replace_block: 'value = \u00e9' },
  ]) {
    const f = await expectFailure(root, () => patchFile(input, { workspaceRoot: root }), 'UNSUPPORTED_ENCODING')
    assert.match(f.message, /ASCII|UTF-8|encoding/i)
  }
  // ASCII text that is absent still fails as not found (not an encoding error).
  await expectFailure(
    root,
    () => patchFile({ file_path: 'mixed.ini', search_block: 'missing', replace_block: 'x' }, { workspaceRoot: root }),
    'SEARCH_BLOCK_NOT_FOUND',
  )
})

test('BINARY_FILE_REJECTED: a NUL in the first 8 KiB; a NUL after it is ordinary text', async () => {
  const root = workspace()
  put(root, 'img.png', Buffer.concat([Buffer.from('\x89PNG\r\n\x1a\n'), Buffer.alloc(16), Buffer.from('IEND text')]))
  const r = await expectFailure(
    root,
    () => patchFile({ file_path: 'img.png', search_block: 'IEND', replace_block: 'x' }, { workspaceRoot: root }),
    'BINARY_FILE_REJECTED',
  )
  assert.equal(r.file_path, path.join(root, 'img.png'))
  put(root, 'nul-at-8191.txt', Buffer.concat([Buffer.alloc(8191, 'a'), Buffer.from([0]), Buffer.from('tail')]))
  await expectFailure(
    root,
    () => patchFile({ file_path: 'nul-at-8191.txt', search_block: 'tail', replace_block: 'x' }, { workspaceRoot: root }),
    'BINARY_FILE_REJECTED',
  )
  const late = Buffer.concat([Buffer.alloc(8192, 'a'), Buffer.from([0]), Buffer.from('tail')])
  const file = put(root, 'nul-at-8192.txt', late)
  const ok = await patchFile({ file_path: 'nul-at-8192.txt', search_block: 'tail', replace_block: 'TAIL' }, { workspaceRoot: root })
  assert.equal(ok.ok, true, JSON.stringify(ok))
  assert.ok(fs.readFileSync(file).equals(Buffer.concat([Buffer.alloc(8192, 'a'), Buffer.from([0]), Buffer.from('TAIL')])))
})

// ---------------------------------------------------------------------------
// read / write failures

test('FILE_READ_ERROR: a missing file, a missing parent, a file used as a directory', async () => {
  const root = workspace()
  put(root, 'a.txt', 'x\n')
  for (const p of ['missing.txt', 'no/such/dir/a.txt', 'a.txt/child']) {
    const r = await expectFailure(
      root,
      () => patchFile({ file_path: p, search_block: 'x', replace_block: 'y' }, { workspaceRoot: root }),
      'FILE_READ_ERROR',
    )
    assert.equal(r.file_path, path.join(root, p))
  }
})

test('FILE_READ_ERROR: an unreadable file (non-root only)', { skip: !unix || isRoot ? 'root reads any file' : false }, async () => {
  const root = workspace()
  const f = put(root, 'secret.txt', 'x\n')
  fs.chmodSync(f, 0o000)
  try {
    await expectFailure(
      root,
      () => patchFile({ file_path: 'secret.txt', search_block: 'x', replace_block: 'y' }, { workspaceRoot: root }),
      'FILE_READ_ERROR',
    )
  } finally {
    fs.chmodSync(f, 0o644)
  }
})

test('TARGET_IS_DIRECTORY: a directory, the root itself, a link to a directory', async () => {
  const root = workspace()
  fs.mkdirSync(path.join(root, 'src'))
  put(root, 'src/a.txt', 'x\n')
  if (unix) fs.symlinkSync('src', path.join(root, 'src-link'))
  const paths = ['src', 'src/', '.', root, ...(unix ? ['src-link'] : [])]
  for (const p of paths) {
    await expectFailure(
      root,
      () => patchFile({ file_path: p, search_block: 'x', replace_block: 'y' }, { workspaceRoot: root }),
      'TARGET_IS_DIRECTORY',
    )
  }
})

/**
 * Runs `script` (an ES module body with `patchFileSync` and `root` in scope)
 * in a child process whose file-size limit is `kib` KiB, with SIGXFSZ
 * ignored so that a write past the limit fails with EFBIG instead of
 * killing the process. This makes writes fail even for root.
 */
function runWithFileSizeLimit(kib, root, script) {
  const body = `import { patchFileSync } from ${JSON.stringify(path.join(repo, 'index.mjs'))}
const root = ${JSON.stringify(root)}
${script}`
  return spawnSync('bash', ['-c', `trap '' XFSZ; ulimit -f ${kib}; exec "$0" --input-type=module -e "$1"`, process.execPath, body], {
    encoding: 'utf8',
  })
}

test('FILE_WRITE_ERROR: a write that fails (file-size limit) leaves the file and directory untouched', { skip: !unix }, async () => {
  const root = workspace()
  // 16 KiB file, 4 KiB limit: reading works, writing the temp file fails.
  const original = Buffer.from('x'.repeat(16 * 1024 - 10) + '\nvalue = 1\n').subarray(0, 16 * 1024)
  put(root, 'big.txt', original)
  fs.chmodSync(path.join(root, 'big.txt'), 0o640)
  const before = snapshot(root)
  const child = runWithFileSizeLimit(
    4,
    root,
    `const r = patchFileSync({ file_path: 'big.txt', search_block: 'value = 1', replace_block: 'value = 2' }, { workspaceRoot: root })
process.stdout.write(JSON.stringify(r))`,
  )
  assert.equal(child.status, 0, child.stderr)
  const r = JSON.parse(child.stdout)
  assert.equal(r.ok, false)
  assert.equal(r.code, 'FILE_WRITE_ERROR', r.message)
  assert.equal(r.file_path, path.join(root, 'big.txt'))
  assert.match(r.message, /unchanged|not (been )?(changed|written)/i)
  assert.deepEqual(snapshot(root), before, 'original intact, temp file removed')
})

test('FILE_WRITE_ERROR: a read-only directory (non-root only)', { skip: !unix || isRoot ? 'root may write into read-only directories' : false }, async () => {
  const root = workspace()
  put(root, 'ro/a.txt', 'value = 1\n')
  fs.chmodSync(path.join(root, 'ro'), 0o555)
  try {
    await expectFailure(
      root,
      () => patchFile({ file_path: 'ro/a.txt', search_block: 'value = 1', replace_block: 'value = 2' }, { workspaceRoot: root }),
      'FILE_WRITE_ERROR',
    )
  } finally {
    fs.chmodSync(path.join(root, 'ro'), 0o755)
  }
})

test('options.maxFileBytes: a larger file is refused with FILE_TOO_LARGE before it is read', async () => {
  const root = workspace()
  put(root, 'a.txt', 'value = 1\n'.repeat(100)) // 1000 bytes
  const r = await expectFailure(
    root,
    () => patchFile({ file_path: 'a.txt', search_block: 'value = 1\nvalue = 1\n', replace_block: 'x' }, { workspaceRoot: root, maxFileBytes: 999 }),
    'FILE_TOO_LARGE',
  )
  assert.match(r.message, /maxFileBytes/)
  // At the limit is fine (and the default is far above it).
  const last = 'value = 1\n'.repeat(99) + 'value = 2\n'
  put(root, 'b.txt', last)
  const ok = await patchFile({ file_path: 'b.txt', search_block: 'value = 2', replace_block: 'value = 3' }, { workspaceRoot: root, maxFileBytes: 1000 })
  assert.equal(ok.ok, true, JSON.stringify(ok))
})

// ---------------------------------------------------------------------------
// permissions and the atomic write

test('permissions 0640 and 0755 (and others) are kept', { skip: !unix }, async () => {
  const root = workspace()
  const old = process.umask(0o077) // a strict umask must not leak into the result
  try {
    for (const mode of [0o640, 0o755, 0o600, 0o444, 0o4755 & 0o777]) {
      const file = put(root, `m${mode.toString(8)}.sh`, '#!/bin/sh\necho 1\n')
      fs.chmodSync(file, mode)
      const r = await patchFile({ file_path: path.basename(file), search_block: 'echo 1', replace_block: 'echo 2' }, { workspaceRoot: root })
      assert.equal(r.ok, true, JSON.stringify(r))
      assert.equal(fs.statSync(file).mode & 0o7777, mode, `mode ${mode.toString(8)} kept`)
      assert.equal(fs.readFileSync(file, 'utf8'), '#!/bin/sh\necho 2\n')
    }
  } finally {
    process.umask(old)
  }
})

test('the edit replaces the file (new inode) and leaves no temp files after success or failure', async () => {
  const root = workspace()
  const file = put(root, 'a.txt', 'one\ntwo\n')
  const ino = fs.statSync(file).ino
  const r = await patchFile({ file_path: 'a.txt', search_block: 'one', replace_block: 'uno' }, { workspaceRoot: root })
  assert.equal(r.ok, true)
  if (unix) assert.notEqual(fs.statSync(file).ino, ino, 'written to a temp file and renamed over the target')
  assert.deepEqual(entries(root), ['a.txt'])
  for (const bad of [
    { file_path: 'a.txt', search_block: 'zzz', replace_block: '' },
    { file_path: 'a.txt', search_block: '\n', replace_block: '' },
    { file_path: 'b.txt', search_block: 'x', replace_block: '' },
    { file_path: 'a.txt', search_block: '' , replace_block: '' },
  ]) {
    const f = await patchFile(bad, { workspaceRoot: root })
    assert.equal(f.ok, false)
    assert.deepEqual(entries(root), ['a.txt'])
  }
  assert.deepEqual(tempLeftovers(root), [])
})

// ---------------------------------------------------------------------------
// workspace sandbox

test('sandbox: `..` traversal out of the root is refused; `..` that stays inside is fine', async () => {
  const parent = workspace('pft-parent-')
  const root = path.join(parent, 'ws')
  put(root, 'src/a.txt', 'value = 1\n')
  put(parent, 'secret.txt', 'value = 1\n')
  for (const p of ['../secret.txt', 'src/../../secret.txt', 'src/../../ws/../secret.txt', './../secret.txt', '..', 'src/../..']) {
    const r = await expectFailure(
      parent,
      () => patchFile({ file_path: p, search_block: 'value = 1', replace_block: 'pwned' }, { workspaceRoot: root }),
      'PATH_OUTSIDE_WORKSPACE',
    )
    assert.match(r.message, /outside/i)
  }
  const ok = await patchFile({ file_path: 'src/../src/./a.txt', search_block: 'value = 1', replace_block: 'value = 2' }, { workspaceRoot: root })
  assert.equal(ok.ok, true, JSON.stringify(ok))
  assert.equal(ok.file_path, path.join(root, 'src', 'a.txt'))
  assert.equal(fs.readFileSync(path.join(parent, 'secret.txt'), 'utf8'), 'value = 1\n')
})

test('sandbox: absolute paths inside the root work; outside are refused', async () => {
  const parent = workspace('pft-parent-')
  const root = path.join(parent, 'ws')
  const inside = put(root, 'a.txt', 'v1\n')
  const outside = put(parent, 'b.txt', 'v1\n')
  // A sibling whose name starts with the root's name is outside too.
  const sibling = put(parent, 'ws-other/c.txt', 'v1\n')
  const ok = await patchFile({ file_path: inside, search_block: 'v1', replace_block: 'v2' }, { workspaceRoot: root })
  assert.equal(ok.ok, true, JSON.stringify(ok))
  assert.equal(ok.file_path, inside)
  assert.equal(fs.readFileSync(inside, 'utf8'), 'v2\n')
  for (const p of [outside, sibling, path.join(root, '..', 'b.txt'), ...(unix ? ['/etc/hostname'] : [])]) {
    await expectFailure(
      parent,
      () => patchFile({ file_path: p, search_block: 'v1', replace_block: 'pwned' }, { workspaceRoot: root }),
      'PATH_OUTSIDE_WORKSPACE',
    )
  }
})

test('sandbox: a symlink inside the root to a file inside is followed; the link stays a link', { skip: !unix }, async () => {
  const root = workspace()
  const target = put(root, 'real/config.ts', 'retries = 1;\n')
  fs.mkdirSync(path.join(root, 'links'))
  fs.symlinkSync('../real/config.ts', path.join(root, 'links', 'rel-link.ts'))
  fs.symlinkSync(target, path.join(root, 'abs-link.ts'))
  fs.symlinkSync('real', path.join(root, 'dir-link'))
  const cases = [
    ['links/rel-link.ts', 'retries = 1;', 'retries = 2;'],
    ['abs-link.ts', 'retries = 2;', 'retries = 3;'],
    ['dir-link/config.ts', 'retries = 3;', 'retries = 4;'],
  ]
  for (const [p, s, r] of cases) {
    const res = await patchFile({ file_path: p, search_block: s, replace_block: r }, { workspaceRoot: root })
    assert.equal(res.ok, true, `${p}: ${JSON.stringify(res)}`)
    assert.equal(res.file_path, target, 'the result names the real file')
    assert.equal(fs.readFileSync(target, 'utf8'), `${r}\n`)
  }
  assert.ok(fs.lstatSync(path.join(root, 'links', 'rel-link.ts')).isSymbolicLink())
  assert.equal(fs.readlinkSync(path.join(root, 'links', 'rel-link.ts')), '../real/config.ts')
  assert.ok(fs.lstatSync(path.join(root, 'abs-link.ts')).isSymbolicLink())
  assert.equal(fs.readlinkSync(path.join(root, 'abs-link.ts')), target)
  assert.ok(fs.lstatSync(path.join(root, 'dir-link')).isSymbolicLink())
  assert.deepEqual(tempLeftovers(root), [])
})

test('sandbox: a file symlink pointing outside the root is refused, the outside file untouched', { skip: !unix }, async () => {
  const parent = workspace('pft-parent-')
  const root = path.join(parent, 'ws')
  fs.mkdirSync(root)
  const secret = put(parent, 'secret.txt', 'token = 1\n')
  fs.symlinkSync(secret, path.join(root, 'abs-out.txt'))
  fs.symlinkSync('../secret.txt', path.join(root, 'rel-out.txt'))
  fs.symlinkSync('/etc/hostname', path.join(root, 'etc.txt'))
  // A chain: inside link -> inside link -> outside.
  fs.symlinkSync('rel-out.txt', path.join(root, 'chain.txt'))
  for (const p of ['abs-out.txt', 'rel-out.txt', 'etc.txt', 'chain.txt']) {
    await expectFailure(
      parent,
      () => patchFile({ file_path: p, search_block: 'token = 1', replace_block: 'pwned' }, { workspaceRoot: root }),
      'PATH_OUTSIDE_WORKSPACE',
    )
  }
  assert.equal(fs.readFileSync(secret, 'utf8'), 'token = 1\n')
})

test('sandbox: a parent-directory symlink pointing outside the root is refused', { skip: !unix }, async () => {
  const parent = workspace('pft-parent-')
  const root = path.join(parent, 'ws')
  fs.mkdirSync(root)
  const secret = put(parent, 'outside/deep/secret.txt', 'token = 1\n')
  fs.symlinkSync(path.join(parent, 'outside'), path.join(root, 'abs-dir'))
  fs.symlinkSync('../outside', path.join(root, 'rel-dir'))
  fs.mkdirSync(path.join(root, 'sub'))
  fs.symlinkSync('../../outside/deep', path.join(root, 'sub', 'nested'))
  for (const p of ['abs-dir/deep/secret.txt', 'rel-dir/deep/secret.txt', 'sub/nested/secret.txt', path.join(root, 'rel-dir/deep/secret.txt')]) {
    await expectFailure(
      parent,
      () => patchFile({ file_path: p, search_block: 'token = 1', replace_block: 'pwned' }, { workspaceRoot: root }),
      'PATH_OUTSIDE_WORKSPACE',
    )
  }
  assert.equal(fs.readFileSync(secret, 'utf8'), 'token = 1\n')
})

test('sandbox: a workspace root reached through a symlink still works and confines', { skip: !unix }, async () => {
  const parent = workspace('pft-parent-')
  const real = path.join(parent, 'real-ws')
  put(real, 'a.txt', 'v1\n')
  put(parent, 'b.txt', 'v1\n')
  fs.symlinkSync(real, path.join(parent, 'ws-link'))
  const root = path.join(parent, 'ws-link')
  const ok = await patchFile({ file_path: path.join(root, 'a.txt'), search_block: 'v1', replace_block: 'v2' }, { workspaceRoot: root })
  assert.equal(ok.ok, true, JSON.stringify(ok))
  assert.equal(fs.readFileSync(path.join(real, 'a.txt'), 'utf8'), 'v2\n')
  await expectFailure(
    parent,
    () => patchFile({ file_path: '../b.txt', search_block: 'v1', replace_block: 'x' }, { workspaceRoot: root }),
    'PATH_OUTSIDE_WORKSPACE',
  )
})

// ---------------------------------------------------------------------------
// scale and concurrency

const BIG_MB = Number(process.env.PFT_BIG_FILE_MB || 50)

test(`a ${BIG_MB} MB file is patched correctly, off the event loop`, async () => {
  const root = workspace()
  const line = 'const value_000000 = "lorem ipsum dolor sit amet";\n' // 51 bytes
  const lines = Math.floor((BIG_MB * 1024 * 1024) / line.length)
  const half = Buffer.from(line.repeat(Math.floor(lines / 2)))
  const marker = Buffer.from('export const UNIQUE_MARKER = 1;\n')
  const original = Buffer.concat([half, marker, half])
  const file = put(root, 'big.js', original)
  // Count event-loop turns while the patch runs on the thread pool.
  let turns = 0
  let settled = false
  const events = []
  const spin = () => {
    if (settled) return
    turns++
    if (turns === 1) events.push('event loop turned')
    setImmediate(spin)
  }
  setImmediate(spin)
  const r = await patchFile(
    { file_path: 'big.js', search_block: 'UNIQUE_MARKER = 1', replace_block: 'UNIQUE_MARKER = 2' },
    { workspaceRoot: root },
  ).then((v) => {
    settled = true
    events.push('patch settled')
    return v
  })
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.deepEqual(events, ['event loop turned', 'patch settled'], 'JS kept running while the patch worked')
  assert.ok(turns > 1, `event loop turned ${turns} times during the patch`)
  assert.equal(r.line_number, Math.floor(lines / 2) + 1)
  assert.equal(r.before_bytes, original.length)
  assert.equal(r.after_bytes, original.length)
  assert.equal(r.before_chars, original.length)
  const got = fs.readFileSync(file)
  assert.equal(got.length, original.length)
  assert.ok(got.subarray(0, half.length).equals(half))
  assert.ok(got.subarray(half.length, half.length + marker.length).equals(Buffer.from('export const UNIQUE_MARKER = 2;\n')))
  assert.ok(got.subarray(half.length + marker.length).equals(half))
  assert.deepEqual(entries(root), ['big.js'])
  // An ambiguous block in the big file fails and leaves it alone.
  const f = await patchFile({ file_path: 'big.js', search_block: 'value_000000', replace_block: 'x' }, { workspaceRoot: root })
  assert.equal(f.code, 'SEARCH_BLOCK_AMBIGUOUS')
  assert.equal(f.match_count, 2 * Math.floor(lines / 2))
  assert.equal(fs.statSync(file).size, original.length)
  assert.deepEqual(entries(root), ['big.js'])
})

test('50 concurrent patchFile calls on 50 files all succeed', async () => {
  const root = workspace()
  const n = 50
  for (let i = 0; i < n; i++) put(root, `f${i}.txt`, `file ${i}\nvalue = ${i}\nend\n`)
  const results = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      patchFile({ file_path: `f${i}.txt`, search_block: `value = ${i}`, replace_block: `value = ${i * 2}` }, { workspaceRoot: root }),
    ),
  )
  for (let i = 0; i < n; i++) {
    assert.equal(results[i].ok, true, JSON.stringify(results[i]))
    assert.equal(results[i].line_number, 2)
    assert.equal(results[i].file_path, path.join(root, `f${i}.txt`))
    assert.equal(fs.readFileSync(path.join(root, `f${i}.txt`), 'utf8'), `file ${i}\nvalue = ${i * 2}\nend\n`)
  }
  assert.equal(entries(root).length, n)
  assert.deepEqual(tempLeftovers(root), [])
})

test('concurrent calls on the same file: each applies exactly once or fails cleanly', async () => {
  const root = workspace()
  const file = put(root, 'counter.txt', 'a=0 b=0 c=0 d=0 e=0 f=0 g=0 h=0\n')
  const keys = 'abcdefgh'.split('')
  const results = await Promise.all(
    keys.map((k) => patchFile({ file_path: 'counter.txt', search_block: `${k}=0`, replace_block: `${k}=1` }, { workspaceRoot: root })),
  )
  // Edits of distinct blocks in one file are serialized, so none is lost.
  for (const r of results) assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(fs.readFileSync(file, 'utf8'), 'a=1 b=1 c=1 d=1 e=1 f=1 g=1 h=1\n')
  assert.deepEqual(entries(root), ['counter.txt'])
})

test('every integer bound a tool schema states is the engine\'s: one below it is INVALID_INPUT naming the field, the bound itself is not refused for it', async () => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pft-bounds-')))
  fs.writeFileSync(path.join(dir, 'a.txt'), 'one\ntwo\n')
  // The integer fields of read_file and history, each with the smallest call that reaches it.
  const cases = [
    ['read_file', 'offset', { file_path: 'a.txt' }, esm.readFile],
    ['read_file', 'limit', { file_path: 'a.txt' }, esm.readFile],
    ['history', 'limit', {}, esm.history],
  ]
  for (const [tool, field, base, call] of cases) {
    const schema = JSON.parse(fs.readFileSync(path.join(repo, 'schemas', `${tool}.schema.json`), 'utf8'))
    const min = schema.parameters.properties[field].minimum
    assert.equal(typeof min, 'number', `${tool}.${field} states a minimum`)
    const at = await call({ ...base, [field]: min }, { workspaceRoot: dir })
    assert.ok(at.ok || !String(at.message).includes(field), `${tool}.${field} = ${min}: ${JSON.stringify(at)}`)
    if (min > 0 || field === 'offset') {
      const below = await call({ ...base, [field]: min - 1 }, { workspaceRoot: dir })
      assert.equal(below.code, 'INVALID_INPUT', `${tool}.${field} = ${min - 1}: ${JSON.stringify(below)}`)
      assert.match(below.message, new RegExp(field))
    }
  }
})

// The last test of the file: under qemu without binfmt_misc (scripts/cross.mjs) its reader cannot be spawned and
// the run of the file ends with it, cancelling any test after it.
const READS = Number(process.env.PFT_READER_READS || 3000)

test(`a reader process reading ${READS} times during repeated patches never sees a partial file`, { skip: !unix && 'rename over an open file differs on Windows' }, async () => {
  const root = workspace()
  // ~256 KiB, the flipping block in the middle; the two versions differ in length.
  const filler = 'x'.repeat(63) + '\n'
  const pad = filler.repeat(2048)
  const A = `${pad}generation: even\n${pad}`
  const B = `${pad}generation: odd, and longer\n${pad}`
  const file = put(root, 'shared.txt', A)
  const readerSrc = `
const fs = require('node:fs')
const [file, aFile, bFile, reads] = process.argv.slice(1)
const a = fs.readFileSync(aFile)
const b = fs.readFileSync(bFile)
let bad = 0, seenA = 0, seenB = 0, changes = 0, last = null, errors = 0, firstBad = null
process.stdout.write('ready\\n')
// At least \`reads\` reads, and on until two changes were seen (bounded in time).
const until = Date.now() + 30000
for (let i = 0; i < Number(reads) || (changes < 2 && Date.now() < until); i++) {
  let buf
  try { buf = fs.readFileSync(file) } catch (e) { errors++; continue }
  let v = buf.equals(a) ? 'A' : buf.equals(b) ? 'B' : null
  if (v === null) { bad++; if (!firstBad) firstBad = buf.length; continue }
  if (v === 'A') seenA++; else seenB++
  if (last && last !== v) changes++
  last = v
}
process.stdout.write(JSON.stringify({ bad, errors, seenA, seenB, changes, firstBad }) + '\\n')
`
  // The two expected versions travel as files (outside the workspace) to keep argv small.
  const expect = workspace('pft-expect-')
  const aFile = put(expect, 'a', A)
  const bFile = put(expect, 'b', B)
  const child = spawn(process.execPath, ['-e', readerSrc, file, aFile, bFile, String(READS)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let out = ''
  let ready
  const readyP = new Promise((res) => (ready = res))
  child.stdout.on('data', (d) => {
    out += d
    if (out.includes('ready\n')) ready()
  })
  const exited = new Promise((res) => child.on('exit', res))
  let running = true
  exited.then(() => (running = false))
  await readyP
  let patches = 0
  let state = 'A'
  while (running) {
    const [s, r] = state === 'A' ? ['generation: even', 'generation: odd, and longer'] : ['generation: odd, and longer', 'generation: even']
    const res = await patchFile({ file_path: 'shared.txt', search_block: s, replace_block: r }, { workspaceRoot: root })
    assert.equal(res.ok, true, JSON.stringify(res))
    state = state === 'A' ? 'B' : 'A'
    patches++
  }
  const code = await exited
  assert.equal(code, 0)
  const stats = JSON.parse(out.split('\n').filter(Boolean).pop())
  assert.equal(stats.bad, 0, `reader saw ${stats.bad} partial/mixed files (first of ${stats.firstBad} bytes)`)
  assert.equal(stats.errors, 0, 'the file never went missing')
  assert.ok(stats.seenA + stats.seenB >= READS, `reader read ${stats.seenA + stats.seenB} times`)
  assert.ok(patches >= 2, `patched ${patches} times while the reader ran`)
  assert.ok(stats.changes >= 2, `reader saw the content change (${JSON.stringify(stats)}, ${patches} patches)`)
  assert.deepEqual(tempLeftovers(root), [])
})
