// Hardening seen from JavaScript: a panic inside the native engine comes back
// as an INTERNAL_ERROR result and Node keeps running; hostile input never
// throws, rejects or crashes; concurrent async calls on one file lose nothing.
//
// The panic test needs a build with the `fault-injection` feature (never the
// release addon): `npm test` names the debug library its Rust tests built in
// PFT_FAULT_ADDON (no JS test builds Rust); the test
// loads it in a child Node process and makes every read step panic through
// PFT_FAULT_PANIC. Run alone, it skips unless PFT_FAULT_ADDON names that
// library (after `cargo test --all-features`: target/debug/deps/, `lib*.so`).
import './helpers/private-state.mjs'
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { patchFile, patchFileSync, readFile, writeFile, batchPatchFiles, applyDryRun } from '../index.mjs'

const made = []
after(() => {
  for (const d of made) fs.rmSync(d, { recursive: true, force: true })
})

function tmp() {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pft-hard-')))
  made.push(d)
  return d
}

function faultAddon() {
  const lib = process.env.PFT_FAULT_ADDON
  if (!lib) return null
  assert.ok(fs.existsSync(lib), `PFT_FAULT_ADDON names no file: ${lib}`)
  const addon = path.join(tmp(), 'pft-fault.node')
  fs.copyFileSync(lib, addon)
  return addon
}

test('a panic inside the engine is an INTERNAL_ERROR result and Node keeps running', (t) => {
  const addon = faultAddon()
  if (!addon) return t.skip('no fault-injection library: run it through npm test, or set PFT_FAULT_ADDON')
  const dir = tmp()
  fs.writeFileSync(path.join(dir, 'f.txt'), 'alpha\nbeta\n')
  const child = `
    const native = require(${JSON.stringify(addon)})
    const input = { file_path: 'f.txt', search_block: 'beta', replace_block: 'BETA' }
    const opts = { workspaceRoot: ${JSON.stringify(dir)} }
    ;(async () => {
      process.env.PFT_FAULT_PANIC = 'Read'
      const sync = native.patchFileSync(input, opts)
      const asyncResult = await native.patchFile(input, opts)
      const many = await Promise.all(Array.from({ length: 8 }, () => native.readFile({ file_path: 'f.txt' }, opts)))
      delete process.env.PFT_FAULT_PANIC
      const after = await native.patchFile(input, opts)
      console.log(JSON.stringify({ sync, asyncResult, many, after, alive: true }))
    })()
  `
  const r = spawnSync(process.execPath, ['-e', child], { encoding: 'utf8' })
  assert.equal(r.status, 0, `child died: ${r.signal} ${r.stderr}`)
  const out = JSON.parse(r.stdout.trim().split('\n').pop())
  for (const res of [out.sync, out.asyncResult, ...out.many]) {
    assert.equal(res.ok, false)
    assert.equal(res.code, 'INTERNAL_ERROR')
    assert.match(res.message, /injected panic at Read/)
  }
  assert.equal(out.after.ok, true, JSON.stringify(out.after))
  assert.equal(out.alive, true)
  assert.equal(fs.readFileSync(path.join(dir, 'f.txt'), 'utf8'), 'alpha\nBETA\n')
})

test('hostile input never throws, rejects or crashes', async () => {
  const dir = tmp()
  fs.writeFileSync(path.join(dir, 'f.txt'), 'x\n')
  const passwd = fs.readFileSync('/etc/passwd', 'utf8')
  const opts = { workspaceRoot: dir }
  const cyclic = {}
  cyclic.self = cyclic
  let deep = {}
  for (let i = 0; i < 10000; i++) deep = { a: deep }
  const throwing = new Proxy({}, { get() { throw new Error('boom') }, ownKeys() { throw new Error('boom') } })
  const getter = { get file_path() { throw new Error('getter') } }
  const inputs = [
    undefined, null, 0, -1, NaN, Infinity, 1n, 'f.txt', Symbol('s'), () => 1, [], [1, 2], cyclic, deep, throwing, getter,
    { file_path: 'f.txt' }, { file_path: 'f.txt', search_block: '', replace_block: '' },
    { file_path: 'f.txt', search_block: 'x', replace_block: 'y', expected_replacements: -3 },
    { file_path: 'f.txt', search_block: 'x', replace_block: 'y', expected_replacements: 2 ** 64 },
    { file_path: '../../../../etc/passwd', search_block: 'root', replace_block: 'x' },
    { file_path: 'f.txt\0', search_block: 'x', replace_block: 'y' },
    { file_path: 'a'.repeat(100000), search_block: 'x', replace_block: 'y' },
    { file_path: 'f.txt', search_block: 'x'.repeat(1 << 20), replace_block: 'y' },
    { files: 'nope' }, { files: [cyclic] }, { edits: [null] }, { run_id: {} },
  ]
  const optionSets = [opts, undefined, null, 7, { workspaceRoot: 42 }, { workspaceRoot: '/nonexistent/x' }, { maxFileBytes: -1, workspaceRoot: dir }, throwing]
  let calls = 0
  for (const fn of [patchFile, readFile, writeFile, batchPatchFiles, applyDryRun]) {
    for (const input of inputs) {
      for (const o of [opts, ...optionSets.slice(1, 3)]) {
        const r = await fn(input, o)
        calls++
        assert.equal(typeof r, 'object')
        assert.equal(typeof r.ok, 'boolean')
        if (!r.ok) assert.notEqual(r.code, 'INTERNAL_ERROR', JSON.stringify(r))
      }
    }
  }
  for (const o of optionSets) {
    const r = patchFileSync({ file_path: 'f.txt', search_block: 'x', replace_block: 'x' }, o)
    calls++
    assert.equal(typeof r.ok, 'boolean')
  }
  assert.ok(calls > 400)
  assert.equal(fs.readFileSync('/etc/passwd', 'utf8'), passwd)
})

test('32 concurrent async edits of one file: all applied, none lost', async () => {
  const dir = tmp()
  const lines = Array.from({ length: 32 }, (_, i) => `line ${i}: todo`)
  fs.writeFileSync(path.join(dir, 'f.txt'), lines.join('\n') + '\n')
  const results = await Promise.all(
    lines.map((l, i) =>
      patchFile({ file_path: 'f.txt', search_block: l, replace_block: `line ${i}: done` }, { workspaceRoot: dir }),
    ),
  )
  for (const r of results) assert.equal(r.ok, true, JSON.stringify(r))
  const text = fs.readFileSync(path.join(dir, 'f.txt'), 'utf8')
  for (let i = 0; i < 32; i++) assert.ok(text.includes(`line ${i}: done\n`), `edit ${i} lost`)
})
