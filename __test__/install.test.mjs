// Installing the checkout's dependencies warns about nothing on the Node
// versions the project supports (20 and 22): no EBADENGINE (a dependency that
// declares it needs a newer Node), no install script left unapproved, no
// other npm warning. Warnings about the user's own npm configuration (an
// unknown key in ~/.npmrc) are npm's business with that file, not ours, and
// are ignored.
//
// The fresh `npm ci` runs offline from npm's cache (which the set-up's
// `npm ci` filled) in a temp copy of package.json and package-lock.json, so
// it costs about 20-40 s and no network; where the cache lacks a package it
// skips, saying so.
import './helpers/private-state.mjs'
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const require = createRequire(import.meta.url)
const temps = []
after(() => {
  for (const d of temps) fs.rmSync(d, { recursive: true, force: true })
})

/**
 * The oldest Node of each supported line that every package of the
 * development tree admits (the newest floors: @napi-rs/cli's @inquirer/*
 * and @napi-rs/wasm-runtime).
 */
const NODE_FLOORS = ['20.19.0', '22.13.0']

/**
 * The packages that are in the tree only to test the agent-SDK adapters: the
 * SDKs (the peer dependencies, and their older majors as npm aliases) and what
 * only they depend on. Some of their current majors declare a newer Node than
 * this project supports (AI SDK 7 and the `openai` 7 that @openai/agents 0.19+
 * needs ask for Node 22): that is the SDK's floor, not the package's, and a
 * user on Node 20 uses the older major, tested too. Everything else must admit
 * the floors. Read from the lock file's graph, so a package another
 * dependency also needs is not exempt.
 */
function onlyForSdkTests(lock) {
  const pkgs = lock.packages
  const resolve = (from, name) => {
    for (let dir = from; ; dir = dir.replace(/\/?node_modules\/(@[^/]+\/)?[^/]+$/, '')) {
      const k = `${dir ? `${dir}/` : ''}node_modules/${name}`
      if (pkgs[k]) return k
      if (!dir) return null
    }
  }
  const reach = (roots) => {
    const seen = new Set()
    const todo = [...roots]
    while (todo.length) {
      const k = todo.pop()
      if (!k || seen.has(k)) continue
      seen.add(k)
      const v = pkgs[k]
      for (const d of Object.keys({ ...v.dependencies, ...v.optionalDependencies, ...v.peerDependencies })) todo.push(resolve(k, d))
    }
    return seen
  }
  const root = pkgs['']
  const pkgJson = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8'))
  const sdks = Object.keys(pkgJson.peerDependencies)
  const devs = { ...root.devDependencies }
  const isSdk = (n) => sdks.includes(n) || sdks.some((s) => typeof devs[n] === 'string' && devs[n].startsWith(`npm:${s}@`))
  const tops = Object.keys({ ...root.dependencies, ...root.devDependencies })
  const others = reach(tops.filter((n) => !isSdk(n)).map((n) => `node_modules/${n}`))
  return new Set([...reach(tops.filter(isSdk).map((n) => `node_modules/${n}`))].filter((k) => !others.has(k)))
}

/** A warning about the user's own npm configuration, not about this project. */
const USER_CONFIG_WARNING = /^npm warn (Unknown (user|env|global|project|builtin|cli) config|config\b)/i

function npmCli() {
  const candidates = [
    process.env.npm_execpath,
    path.join(path.dirname(process.execPath), 'node_modules', 'npm', 'bin', 'npm-cli.js'),
    path.join(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js'),
  ]
  return candidates.find((c) => c && /npm-cli\.js$/.test(c) && fs.existsSync(c))
}

test(`every package of the lock file admits Node ${NODE_FLOORS.join(' and ')} and later on their lines`, () => {
  const semver = require('semver')
  const lock = JSON.parse(fs.readFileSync(path.join(repo, 'package-lock.json'), 'utf8'))
  const exempt = onlyForSdkTests(lock)
  for (const node of NODE_FLOORS) {
    const refused = []
    for (const [k, v] of Object.entries(lock.packages)) {
      if (!k || !v.engines || typeof v.engines.node !== 'string' || exempt.has(k)) continue
      if (!semver.satisfies(node, v.engines.node)) refused.push(`${k.replace(/^.*node_modules\//, '')}@${v.version} needs node ${v.engines.node}`)
    }
    assert.deepEqual(refused, [], `packages npm would warn about (EBADENGINE) on Node ${node}`)
  }
})

test(`a fresh npm ci prints no EBADENGINE and no other warning (Node ${process.version})`, { timeout: 240_000 }, (t) => {
  const npm = npmCli()
  if (!npm) return t.skip('npm-cli.js not found next to this node')
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pft-npm-ci-'))
  temps.push(dir)
  for (const f of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(repo, f), path.join(dir, f))
  const env = { ...process.env, npm_config_logs_dir: path.join(dir, 'npm-logs'), npm_config_update_notifier: 'false' }
  for (const k of Object.keys(env)) if (/^npm_(lifecycle|package)_/i.test(k)) delete env[k]
  const t0 = Date.now()
  const r = spawnSync(process.execPath, [npm, 'ci', '--offline', '--no-audit', '--no-fund'], { cwd: dir, env, encoding: 'utf8', maxBuffer: 64 << 20 })
  const log = `${r.stdout}\n${r.stderr}`
  if (r.status !== 0 && /ENOTCACHED|cache mode is 'only-if-cached'/.test(log)) {
    return t.skip(`npm's cache lacks packages of the lock file (run npm ci once online): ${log.split('\n').find((l) => /ENOTCACHED|only-if-cached/.test(l))}`)
  }
  assert.equal(r.status, 0, log)
  // EBADENGINE blocks of the SDK test packages (see onlyForSdkTests) are expected on Node 20; no other.
  const lock = JSON.parse(fs.readFileSync(path.join(repo, 'package-lock.json'), 'utf8'))
  const exempt = new Set([...onlyForSdkTests(lock)].map((k) => `${k.replace(/^.*node_modules\//, '')}@${lock.packages[k].version}`))
  const lines = log.split('\n')
  const kept = []
  for (let i = 0; i < lines.length; i++) {
    const block = /^npm warn EBADENGINE Unsupported engine \{$/.test(lines[i]) ? lines.slice(i, lines.indexOf('npm warn EBADENGINE }', i) + 1) : null
    const pkg = block && block.map((l) => /package: '([^']+)'/.exec(l)).find(Boolean)
    if (block && pkg && exempt.has(pkg[1]) && block.length > 1) {
      i += block.length - 1
      continue
    }
    kept.push(lines[i])
  }
  const rest = kept.join('\n')
  assert.doesNotMatch(rest, /EBADENGINE/, rest)
  const warnings = kept.filter((l) => /^npm warn/i.test(l) && !USER_CONFIG_WARNING.test(l))
  assert.deepEqual(warnings, [], 'npm warnings')
  assert.ok(fs.existsSync(path.join(dir, 'node_modules', '@napi-rs', 'cli', 'package.json')), 'the dev dependencies are installed')
  process.stdout.write(`# npm ci (offline) in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`)
})
