// What `git status` shows of a checkout, precisely enough to tell that a
// test run changed nothing in it: the porcelain status, a hash of the
// changes to tracked files (`git diff HEAD`), and a hash of each untracked
// file. Files git ignores (target/, node_modules/, built binaries) are not
// part of it. scripts/test.mjs takes one when `npm test` starts;
// __test__/suite-end.test.mjs takes another when it ends and compares.
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { spawnSync } from 'node:child_process'

const sha256 = (buf) => crypto.createHash('sha256').update(buf).digest('hex')

/** The snapshot of the checkout at `root`, or null when it is not a git checkout (or git is missing). */
export function repoSnapshot(root) {
  const git = (...args) => spawnSync('git', args, { cwd: root, maxBuffer: 1 << 30 })
  const status = git('status', '--porcelain=v1', '-z', '--untracked-files=all')
  if (status.error || status.status !== 0) return null
  const entries = status.stdout.toString('utf8').split('\0').filter(Boolean)
  const diff = git('diff', 'HEAD', '--binary')
  const untracked = {}
  for (const e of entries) {
    if (!e.startsWith('?? ')) continue
    const rel = e.slice(3)
    try {
      untracked[rel] = sha256(fs.readFileSync(path.join(root, rel)))
    } catch (err) {
      untracked[rel] = `unreadable: ${err.code || err.message}`
    }
  }
  return { status: entries, diff: diff.status === 0 ? sha256(diff.stdout) : null, untracked }
}

/** The differences between two snapshots, as lines for a failure message ([] when equal). */
export function snapshotChanges(before, after) {
  const out = []
  const b = new Set(before.status)
  const a = new Set(after.status)
  for (const s of after.status) if (!b.has(s)) out.push(`now:  ${s}`)
  for (const s of before.status) if (!a.has(s)) out.push(`gone: ${s}`)
  if (before.diff !== after.diff) out.push('the changes to tracked files (git diff HEAD) differ')
  for (const [f, h] of Object.entries(after.untracked)) {
    if (before.untracked[f] !== undefined && before.untracked[f] !== h) out.push(`untracked ${f} changed`)
  }
  return out
}
