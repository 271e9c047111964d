// The test suites keep to the repository and the system temp directory: the
// engine's per-user state of every test lives in a private temp directory
// (__test__/helpers/private-state.mjs, imported first by every test file),
// whether the suites run through `npm test`, `npm run test:js` or
// `node --test`; and what would reach the real default state directory is
// caught.
import './helpers/private-state.mjs'
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { BIN, ROOT, tempDir, cleanEnv } from './helpers/mcp-raw.mjs'
import { STATE_SUBDIR, XDG_PLATFORM } from './helpers/private-state.mjs'

const HELPER = path.join(ROOT, '__test__', 'helpers', 'private-state.mjs')
const tmp = fs.realpathSync(os.tmpdir())
/** Whether `p` lies under the system temp directory (as given, or once resolved when it exists). */
const inTmp = (p) =>
  path.resolve(p).startsWith(path.resolve(os.tmpdir()) + path.sep) || (fs.existsSync(p) && fs.realpathSync(p).startsWith(tmp + path.sep))

test('every test file imports the private-state helper before anything else', () => {
  const dir = path.join(ROOT, '__test__')
  const files = fs.readdirSync(dir).filter((f) => /\.test\.m?js$/.test(f))
  assert.ok(files.length > 10, files.join(', '))
  const lacking = files.filter((f) => {
    const first = fs
      .readFileSync(path.join(dir, f), 'utf8')
      .split('\n')
      .find((l) => /^import\b/.test(l))
    return first !== "import './helpers/private-state.mjs'"
  })
  assert.deepEqual(lacking, [], 'test files whose first import is not the helper')
})

test("the engine's state directory in the tests is a private temp directory, and the default one is a decoy", () => {
  const state = process.env.PATCH_FILE_STATE_DIR
  assert.ok(state, 'PATCH_FILE_STATE_DIR is set')
  fs.mkdirSync(state, { recursive: true })
  assert.ok(inTmp(state), `${state} is under the system temp directory ${tmp}`)
  if (XDG_PLATFORM) {
    const xdg = process.env.XDG_STATE_HOME
    assert.ok(xdg && inTmp(xdg), `XDG_STATE_HOME (${xdg}) is a decoy under ${tmp}`)
    assert.equal(fs.existsSync(path.join(xdg, STATE_SUBDIR)), false, 'nothing in the decoy so far')
  }
})

test('a CLI run the way the suites run it journals into the private state directory', () => {
  const ws = tempDir('pft-hyg-')
  fs.writeFileSync(path.join(ws, 'f.txt'), 'a = 1\n')
  const env = cleanEnv()
  const patch = spawnSync(process.execPath, [BIN, 'patch', 'f.txt', '--search', 'a = 1', '--replace', 'a = 2'], { cwd: ws, env, encoding: 'utf8' })
  assert.equal(patch.status, 0, patch.stderr)
  const history = spawnSync(process.execPath, [BIN, 'history', '--json'], { cwd: ws, env, encoding: 'utf8' })
  const h = JSON.parse(history.stdout)
  assert.equal(h.transactions.length, 1, history.stdout)
  const state = fs.realpathSync(process.env.PATCH_FILE_STATE_DIR)
  assert.ok(fs.realpathSync(h.journal).startsWith(state + path.sep), `journal ${h.journal} is under ${state}`)
  if (XDG_PLATFORM) assert.equal(fs.existsSync(path.join(process.env.XDG_STATE_HOME, STATE_SUBDIR)), false)
  fs.rmSync(ws, { recursive: true, force: true })
})

test('run on its own, the helper makes a test file fail when the engine wrote its default state', { skip: XDG_PLATFORM ? false : 'the decoy is XDG_STATE_HOME (Linux and the BSDs)' }, () => {
  const ws = tempDir('pft-hyg-')
  fs.writeFileSync(path.join(ws, 'f.txt'), 'a = 1\n')
  // A child that loads the helper as a test file does, with nothing set by npm test.
  const env = cleanEnv()
  for (const k of ['PATCH_FILE_STATE_DIR', 'XDG_STATE_HOME', 'PFT_SUITE_DECOY_STATE', 'PFT_SUITE_SNAPSHOT']) delete env[k]
  const script = (dropState, from, to) => `import ${JSON.stringify(pathToFileURL(HELPER).href)}
import { spawnSync } from 'node:child_process'
const env = { ...process.env }
${dropState ? 'delete env.PATCH_FILE_STATE_DIR' : ''}
const r = spawnSync(process.execPath, [${JSON.stringify(BIN)}, 'patch', 'f.txt', '--search', '${from}', '--replace', '${to}'], { cwd: ${JSON.stringify(ws)}, env, encoding: 'utf8' })
console.log(JSON.stringify({ status: r.status, state: process.env.PATCH_FILE_STATE_DIR, xdg: process.env.XDG_STATE_HOME }))`
  const clean = spawnSync(process.execPath, ['--input-type=module', '-e', script(false, 'a = 1', 'a = 2')], { env, encoding: 'utf8' })
  assert.equal(clean.status, 0, clean.stderr)
  const seen = JSON.parse(clean.stdout)
  assert.equal(seen.status, 0, clean.stdout)
  assert.ok(inTmp(path.dirname(seen.state)) && inTmp(seen.xdg), clean.stdout)
  assert.equal(fs.existsSync(path.dirname(seen.state)), false, 'the private directories are removed at exit')
  // A test that ran the engine without PATCH_FILE_STATE_DIR: the engine used the decoy, and the file fails.
  const dirty = spawnSync(process.execPath, ['--input-type=module', '-e', script(true, 'a = 2', 'a = 3')], { env, encoding: 'utf8' })
  assert.equal(dirty.status, 1, dirty.stdout + dirty.stderr)
  assert.equal(JSON.parse(dirty.stdout).status, 0, dirty.stdout)
  assert.match(dirty.stderr, /TEST HYGIENE: something wrote the engine's default per-user state/)
  assert.equal(fs.readFileSync(path.join(ws, 'f.txt'), 'utf8'), 'a = 3\n')
  const real = path.join(process.env.HOME || os.homedir(), '.local', 'state', STATE_SUBDIR)
  assert.ok(!dirty.stderr.includes(real), 'the real state directory was never the one written')
  fs.rmSync(ws, { recursive: true, force: true })
})
