// Run by `npm test` (scripts/test.mjs) after every other suite, Rust and JS:
// the run left the checkout as it found it, and never wrote the engine's
// default per-user state. scripts/test.mjs takes the snapshot of `git status`
// before the first test and points XDG_STATE_HOME, where the default state
// directory lives on Linux and the BSDs, at an empty decoy for the whole run.
// Run any other way (`node --test __test__/`), these tests skip: there is no
// snapshot to compare with (each file's own decoy is checked by
// __test__/helpers/private-state.mjs as it exits).
import './helpers/private-state.mjs'
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { repoSnapshot, snapshotChanges } from '../scripts/repo-snapshot.mjs'
import { STATE_SUBDIR } from './helpers/private-state.mjs'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const SNAPSHOT = process.env.PFT_SUITE_SNAPSHOT
const DECOY = process.env.PFT_SUITE_DECOY_STATE

test(
  'the suite wrote nothing where the default per-user state directory would be (an empty decoy XDG_STATE_HOME)',
  { skip: DECOY ? false : 'run by npm test, which sets the decoy (Linux and the BSDs)' },
  () => {
    assert.equal(process.env.XDG_STATE_HOME, DECOY)
    const entries = fs.readdirSync(DECOY)
    assert.deepEqual(entries, [], `written under the decoy ${DECOY}: ${entries.join(', ')}${entries.includes(STATE_SUBDIR) ? ' (the engine ran without PATCH_FILE_STATE_DIR)' : ''}`)
    // The state went to the private directory instead (the suites journal their edits).
    const state = process.env.PATCH_FILE_STATE_DIR
    assert.ok(fs.existsSync(state) && fs.readdirSync(state).length > 0, `the private state directory ${state} was used`)
  },
)

test('git status is what it was when the suite started', { skip: SNAPSHOT ? false : 'run by npm test, which takes the snapshot' }, () => {
  const before = JSON.parse(fs.readFileSync(SNAPSHOT, 'utf8'))
  const after = repoSnapshot(root)
  assert.ok(after, 'git status runs')
  const changes = snapshotChanges(before, after)
  assert.deepEqual(changes, [], `the suite changed the checkout:\n${changes.join('\n')}`)
})
