'use strict'
// The Windows smoke test, run by a Windows node.exe (under wine here:
// scripts/cross.mjs; natively on CI's Windows runners it is covered by the
// full test suite). Loads the package through index.js with the binary named
// by NAPI_RS_NATIVE_LIBRARY_PATH, and in a fresh directory checks that the
// engine creates a file, replaces existing files (the rename over a file the
// commit had just checked: "Access is denied" when a handle to it stayed
// open), batches, and refuses paths outside the workspace (`..\`, another
// drive letter, a UNC path).
//
//   node.exe scripts/cross/windows-smoke.cjs RESULT.json
//
// Writes {checks: [{name, ok, detail}]} to RESULT.json (stdout may be no
// terminal or pipe under wine) and exits 1 if a check failed.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

const out = process.argv[2]
const checks = []
function check(name, ok, detail) {
  checks.push({ name, ok: !!ok, detail: typeof detail === 'string' ? detail : JSON.stringify(detail) })
}

async function main() {
  const api = require('../../index.js')
  check('index.js loads the native engine', typeof api.patchFile === 'function', Object.keys(api).join(','))
  const ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pft-win-')))
  const opt = { workspaceRoot: ws }
  const read = (f) => fs.readFileSync(path.join(ws, f), 'utf8')

  let r = await api.writeFile({ file_path: 'new.txt', content: 'one\r\ntwo\r\n' }, opt)
  check('writeFile creates a file', r.ok && r.created === true && read('new.txt') === 'one\r\ntwo\r\n', r)

  fs.writeFileSync(path.join(ws, 'cfg.ts'), 'export const retries = 2;\r\n')
  r = api.patchFileSync({ file_path: 'cfg.ts', search_block: 'retries = 2;', replace_block: 'retries = 3;' }, opt)
  check('patchFileSync replaces an existing file', r.ok && read('cfg.ts') === 'export const retries = 3;\r\n', r)

  r = await api.patchFile({ file_path: path.join(ws, 'cfg.ts'), search_block: 'retries = 3;', replace_block: 'retries = 4;' }, opt)
  check('patchFile replaces it again (absolute path inside the root)', r.ok && read('cfg.ts') === 'export const retries = 4;\r\n', r)

  r = await api.writeFile({ file_path: 'new.txt', content: 'three\r\n' }, opt)
  check('writeFile replaces an existing file', r.ok && r.created === false && read('new.txt') === 'three\r\n', r)

  fs.mkdirSync(path.join(ws, 'sub'))
  fs.writeFileSync(path.join(ws, 'sub', 'a.txt'), 'alpha\n')
  r = await api.batchPatchFiles(
    {
      files: [
        { file_path: 'sub\\a.txt', edits: [{ search_block: 'alpha', replace_block: 'ALPHA' }] },
        { file_path: 'cfg.ts', edits: [{ search_block: 'retries = 4;', replace_block: 'retries = 5;' }] },
      ],
    },
    opt,
  )
  check('batchPatchFiles replaces two files', r.ok && read('sub/a.txt') === 'ALPHA\n' && read('cfg.ts') === 'export const retries = 5;\r\n', r)

  const outside = path.join(path.dirname(ws), `pft-outside-${process.pid}.txt`)
  fs.writeFileSync(outside, 'secret\n')
  const drive = path.parse(ws).root.toUpperCase().startsWith('C:') ? 'D:\\escape.txt' : 'C:\\escape.txt'
  for (const [name, file_path] of [
    ['..\\ (relative escape)', `..\\${path.basename(outside)}`],
    ['../ (relative escape)', `../${path.basename(outside)}`],
    ['sub\\..\\..\\ (escape through a subdirectory)', `sub\\..\\..\\${path.basename(outside)}`],
    ['an absolute path outside the root', outside],
    ['another drive letter', drive],
    ['a UNC path', '\\\\server\\share\\x.txt'],
  ]) {
    const w = await api.writeFile({ file_path, content: 'pwned\n' }, opt)
    const p = await api.patchFile({ file_path, search_block: 'secret', replace_block: 'pwned' }, opt)
    check(`refused: ${name}`, w.code === 'PATH_OUTSIDE_WORKSPACE' && p.code === 'PATH_OUTSIDE_WORKSPACE', { write: w.code, patch: p.code, file_path })
  }
  check('the file outside the root is untouched', fs.readFileSync(outside, 'utf8') === 'secret\n', fs.readFileSync(outside, 'utf8'))
  check('no temp file left in the workspace', fs.readdirSync(ws).sort().join(',') === 'cfg.ts,new.txt,sub', fs.readdirSync(ws).join(','))
  fs.rmSync(outside, { force: true })
  fs.rmSync(ws, { recursive: true, force: true })
}

main()
  .catch((err) => check('no exception', false, String(err && err.stack ? err.stack : err)))
  .finally(() => {
    fs.writeFileSync(out, JSON.stringify({ checks }, null, 2))
    process.exitCode = checks.every((c) => c.ok) ? 0 : 1
  })
