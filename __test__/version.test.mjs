// `npm version X` keeps every file generated from package.json in step:
// binding.js (napi-rs writes the version into its platform-package checks)
// and npm/<platform>/package.json, so that the version commit and its tag
// hold matching files and the build on the tag changes nothing.
//
// The check that binding.js is byte for byte what `napi build` writes is
// `node scripts/sync-version.mjs --check` right after a real build (npm test
// builds first when the addon is out of date); the version bump itself runs in a
// throwaway git repository holding copies of those files.
import './helpers/private-state.mjs'
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const pkg = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8'))
const temps = []
after(() => {
  for (const d of temps) fs.rmSync(d, { recursive: true, force: true })
})

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', ...opts })
  assert.equal(r.error, undefined, String(r.error))
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')}\n${r.stdout}\n${r.stderr}`)
  return r.stdout
}

function npmCli() {
  const candidates = [
    process.env.npm_execpath,
    path.join(path.dirname(process.execPath), 'node_modules', 'npm', 'bin', 'npm-cli.js'),
    path.join(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js'),
  ]
  const found = candidates.find((c) => c && /npm-cli\.js$/.test(c) && fs.existsSync(c))
  assert.ok(found, `npm-cli.js not found among ${candidates.join(', ')}`)
  return found
}

const count = (text, s) => text.split(s).length - 1

test('binding.js and npm/*/package.json are what napi-rs generates from package.json', () => {
  run(process.execPath, [path.join(repo, 'scripts', 'sync-version.mjs'), '--check'], { cwd: repo })
})

test('npm version X commits binding.js and npm/*/package.json at X, and leaves the tree clean', () => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pft-version-')))
  temps.push(dir)
  for (const f of ['package.json', 'package-lock.json', 'binding.js', '.gitignore', 'npm', 'scripts/sync-version.mjs']) {
    fs.cpSync(path.join(repo, f), path.join(dir, f), { recursive: true })
  }
  fs.symlinkSync(path.join(repo, 'node_modules'), path.join(dir, 'node_modules'), 'junction')
  const home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pft-version-home-')))
  temps.push(home)
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: 'test',
    GIT_AUTHOR_EMAIL: 'test@example.invalid',
    GIT_COMMITTER_NAME: 'test',
    GIT_COMMITTER_EMAIL: 'test@example.invalid',
    GIT_CONFIG_NOSYSTEM: '1',
    HOME: home,
    USERPROFILE: home,
  }
  delete env.npm_config_git_tag_version
  const git = (...args) => run('git', args, { cwd: dir, env })
  git('init', '-q')
  git('config', 'commit.gpgsign', 'false')
  fs.appendFileSync(path.join(dir, '.git', 'info', 'exclude'), 'node_modules\n')
  git('add', '-A')
  git('commit', '-q', '-m', 'start')

  const before = fs.readFileSync(path.join(dir, 'binding.js'), 'utf8')
  const old = pkg.version
  const next = '7.8.9'
  assert.ok(count(before, `'${old}'`) >= 8, `binding.js checks the platform packages' version ${old}`)
  run(process.execPath, [npmCli(), 'version', next, '--no-audit', '--no-fund'], { cwd: dir, env })

  assert.equal(git('status', '--porcelain'), '', 'the version commit took every change')
  assert.equal(git('tag', '--list').trim(), `v${next}`)
  const committed = git('show', '--name-only', '--format=', 'HEAD').trim().split('\n').sort()
  const expected = ['binding.js', 'package-lock.json', 'package.json', ...fs.readdirSync(path.join(dir, 'npm')).map((d) => `npm/${d}/package.json`)].sort()
  assert.deepEqual(committed, expected)

  const after = fs.readFileSync(path.join(dir, 'binding.js'), 'utf8')
  assert.equal(count(after, old), 0, `no ${old} left in binding.js`)
  assert.equal(count(after, next), count(before, old), `every version string of binding.js says ${next}`)
  assert.equal(after.replaceAll(next, old), before, 'nothing else in binding.js changed')
  for (const d of fs.readdirSync(path.join(dir, 'npm'))) {
    assert.equal(JSON.parse(fs.readFileSync(path.join(dir, 'npm', d, 'package.json'), 'utf8')).version, next, d)
  }
  run(process.execPath, [path.join(dir, 'scripts', 'sync-version.mjs'), '--check'], { cwd: dir })
})
