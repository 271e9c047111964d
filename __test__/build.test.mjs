// `npm run build` right after a build that napi had to force (its folder of
// type definitions missing: a fresh clone, a changed dependency) compiles
// nothing: scripts/napi-build.mjs hands every build the force value the last
// one ran with, so cargo never sees NAPI_FORCE_BUILD_* go from set to unset.
// (Without it, `npm run pack:local` after `npm run build` on a fresh clone
// compiled the whole release crate again.)
//
// `npm test` builds the release addon first when it is missing (a fresh clone:
// a forced build), so the build here follows that one and must compile
// nothing; no test builds Rust. With PFT_LONG=1 the test forces a build of its
// own first (one release build of the crate, about a minute), for a checkout
// whose addon was built long ago.
import './helpers/private-state.mjs'
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const build = () =>
  spawnSync(process.execPath, ['scripts/napi-build.mjs', '--release'], {
    cwd: repo,
    encoding: 'utf8',
    env: { ...process.env, CARGO_TERM_COLOR: 'never' },
  })

test('the build after a forced build compiles nothing', { timeout: 900_000 }, (t) => {
  const napiRs = path.join(repo, 'target', 'napi-rs')
  if (!fs.existsSync(napiRs)) return t.skip('no release build here yet (target/napi-rs is missing)')
  if (process.env.PFT_LONG) {
    // Make napi force the next build, as on a fresh clone.
    for (const d of fs.readdirSync(napiRs)) fs.rmSync(path.join(napiRs, d, 'patch-file-tool'), { recursive: true, force: true })
    const forced = build()
    assert.equal(forced.status, 0, forced.stderr)
    assert.match(forced.stderr, /Compiling patch-file-tool v/, 'the first build was forced')
  }
  const next = build()
  assert.equal(next.status, 0, next.stderr)
  assert.ok(!/Compiling patch-file-tool v/.test(next.stderr), `the build after it compiled the crate again:\n${next.stderr}`)
})
