// The agent SDKs are optional peer dependencies. Their ranges must admit the
// current and the previous major of each SDK the adapters name, and the suite
// must test every major a range admits: each one is a dev dependency (the
// newest under its own name, older ones as npm aliases `<name>-v<major>`), and
// the adapter tests run against each. A range that admits a major no dev
// dependency covers fails here, and so does a new major on the registry that
// the range does not admit (checked when the registry answers; skipped
// offline), so a release of an SDK cannot silently break `npm install`.
import './helpers/private-state.mjs'
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import fs from 'node:fs'
import path from 'node:path'

const require = createRequire(import.meta.url)
const semver = require('semver')
const pkg = require('../package.json')
/** The version of the package installed as `dep` (some packages do not export their package.json). */
const versionOf = (dep) => JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '..', 'node_modules', dep, 'package.json'), 'utf8')).version

/** The majors a range admits (0.x minors below 0.1000 count as majors, as semver's caret does). */
function majorsOf(range) {
  const out = []
  for (let m = 0; m < 100; m++) {
    if (m === 0) {
      for (let n = 0; n < 1000; n++) if (semver.intersects(range, `>=0.${n}.0 <0.${n + 1}.0`)) out.push(`0.${n}`)
    } else if (semver.intersects(range, `>=${m}.0.0 <${m + 1}.0.0`)) out.push(String(m))
  }
  return out
}
const majorOf = (v) => (semver.major(v) === 0 ? `0.${semver.minor(v)}` : String(semver.major(v)))

/** The versions of `name` the dev dependencies install: itself and its `<name>-v<major>` aliases. */
function installed(name) {
  const out = []
  for (const [dep, spec] of Object.entries(pkg.devDependencies)) {
    if (dep === name) out.push(versionOf(name))
    else if (typeof spec === 'string' && spec.startsWith(`npm:${name}@`)) out.push(versionOf(dep))
  }
  return out
}

const SDKS = Object.keys(pkg.peerDependencies)

/**
 * Peers tested at one major only, and why the previous one cannot be admitted (said in docs/agent-sdks.md too).
 * Every other peer is tested at its current and its previous major (0.x: minor).
 */
const SINGLE = {
  '@langchain/openai': 'its 0.x has no tools.applyPatch, the tool createApplyPatchExecute serves (and its 1.x needs @langchain/core 1)',
}

test('every peer range admits only majors (0.x: minors) the suite installs, and two of them (the current and the previous) unless SINGLE says why not', () => {
  for (const name of SDKS) {
    const range = pkg.peerDependencies[name]
    const versions = installed(name)
    assert.ok(versions.length > 0, `${name}: no dev dependency installs it`)
    for (const v of versions) assert.ok(semver.satisfies(v, range), `${name}@${v} is installed for tests but outside the peer range ${range}`)
    const covered = new Set(versions.map(majorOf))
    // Every 0.x minor counts as a major: a range admitting one no dev dependency installs fails.
    for (const m of majorsOf(range)) {
      assert.ok(covered.has(m), `${name}: the peer range ${range} admits ${m}.x, which no dev dependency installs (add "${name}-v${m}": "npm:${name}@…")`)
    }
    if (SINGLE[name]) continue
    assert.ok(covered.size >= 2, `${name}: only ${[...covered].join(', ')} is tested; test the previous major (0.x: minor) too`)
  }
  assert.deepEqual(installed('ai').map(majorOf).sort(), ['6', '7'], 'AI SDK 6 and 7 are both tested')
})

test('the range rules hold: 0.x minors are majors, and an untested one is caught', () => {
  assert.deepEqual(majorsOf('>=0.19.0 <0.21.0'), ['0.19', '0.20'])
  assert.deepEqual(majorsOf('^0.137.0 || ^1.0.0'), ['0.137', '1'])
  assert.deepEqual(majorsOf('>=0.14.0 <0.16.0'), ['0.14', '0.15'])
  assert.equal(majorsOf('>=0.14.0 <1.0.0').length, 986, 'a range open over 0.x admits every later minor')
  for (const name of Object.keys(SINGLE)) assert.ok(SDKS.includes(name), `${name} is a peer`)
})

test('the newest release of each peer on the registry is inside its range', (t) => {
  const missing = []
  for (const name of SDKS) {
    const r = spawnSync('npm', ['view', name, 'version', '--json'], { encoding: 'utf8', timeout: 30_000 })
    if (r.status !== 0 || !r.stdout.trim()) {
      t.skip(`the npm registry did not answer for ${name} (offline?): ${String(r.stderr || r.error || '').split('\n')[0]}`)
      return
    }
    const latest = JSON.parse(r.stdout)
    if (!semver.satisfies(latest, pkg.peerDependencies[name])) missing.push(`${name}@${latest} (range ${pkg.peerDependencies[name]})`)
  }
  assert.deepEqual(missing, [], 'a new release of a peer is not admitted: test it and widen the range')
})
