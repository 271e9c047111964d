// Bounded under any input: a file held by another process never ties up
// Node's thread pool, and results too big for JavaScript are paged or
// refused with a code — the API never throws or rejects.
import './helpers/private-state.mjs'
import test from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawn, spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const api = require('../index.js')

function tmp() {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pft-bounded-')))
  return { d, done: () => fs.rmSync(d, { recursive: true, force: true }) }
}

const haveFlock = spawnSync('sh', ['-c', 'command -v flock']).status === 0

/** Resolves once `file` is flock-ed by someone else. */
async function lockedByOther(file) {
  for (let i = 0; i < 500; i++) {
    if (spawnSync('flock', ['-n', file, 'true']).status !== 0) return
    await new Promise((r) => setTimeout(r, 10))
  }
  throw new Error('the lock holder never took the lock')
}

test('a file another process holds locked does not stall unrelated work; the waiting calls finish after it lets go', { skip: !haveFlock && 'flock(1) is not installed' }, async () => {
  const { d, done } = tmp()
  try {
    const f = path.join(d, 'f.txt')
    fs.writeFileSync(f, 'a1\na2\na3\na4\na5\na6\n')
    fs.writeFileSync(path.join(d, 'g.txt'), 'other\n')
    fs.writeFileSync(path.join(d, 'big.bin'), Buffer.alloc(1 << 20, 7))
    // Holds f.txt's lock until its stdin closes.
    const holder = spawn('flock', [f, 'sh', '-c', 'read x'], { stdio: ['pipe', 'ignore', 'inherit'] })
    await lockedByOther(f)
    const opts = { workspaceRoot: d, durable: false, lockWaitMs: 60_000 }
    // More waiting calls than the pool has threads (4 by default).
    const waiting = [1, 2, 3, 4, 5, 6].map((i) =>
      api.patchFile({ file_path: 'f.txt', search_block: `a${i}\n`, replace_block: `b${i}\n` }, opts),
    )
    let settled = 0
    for (const p of waiting) p.then(() => settled++)
    // Unrelated work completes while the lock is still held.
    const unrelated = await Promise.race([
      Promise.all([
        api.patchFile({ file_path: 'g.txt', search_block: 'other', replace_block: 'done' }, opts),
        fs.promises.readFile(path.join(d, 'big.bin')),
      ]),
      new Promise((_, reject) => setTimeout(() => reject(new Error('unrelated work stalled behind the locked file')), 5000)),
    ])
    assert.equal(unrelated[0].ok, true, JSON.stringify(unrelated[0]))
    assert.equal(unrelated[1].length, 1 << 20)
    assert.equal(holder.exitCode, null, 'the lock is still held')
    assert.equal(settled, 0, 'no waiting call gave up while the lock was held')
    holder.stdin.end()
    const results = await Promise.all(waiting)
    for (const r of results) assert.equal(r.ok, true, JSON.stringify(r))
    assert.equal(fs.readFileSync(f, 'utf8'), 'b1\nb2\nb3\nb4\nb5\nb6\n')
  } finally {
    done()
  }
})

test('a signal that is not an AbortSignal, or one given to a synchronous call, is refused as such; nothing is written', async () => {
  const { d, done } = tmp()
  try {
    const f = path.join(d, 'f.txt')
    fs.writeFileSync(f, 'k = 1\n')
    const input = { file_path: 'f.txt', search_block: 'k = 1', replace_block: 'k = 2' }
    const answers = [
      await api.patchFile(input, { workspaceRoot: d, signal: 'stop' }),
      await api.patchFile(input, { workspaceRoot: d, signal: { aborted: false } }),
      api.patchFileSync(input, { workspaceRoot: d, signal: new AbortController().signal }),
    ]
    for (const r of answers) {
      assert.equal(r.code, 'INVALID_INPUT', JSON.stringify(r))
      assert.equal(r.message, 'options: `signal` must be an AbortSignal, and only the async functions take one', JSON.stringify(r))
    }
    // With a time budget too (the wrapper copies the options then).
    const timed = await api.patchFile(input, { workspaceRoot: d, signal: 'stop', timeoutMs: 60_000 })
    assert.equal(timed.code, 'INVALID_INPUT', JSON.stringify(timed))
    assert.equal(fs.readFileSync(f, 'utf8'), 'k = 1\n')
  } finally {
    done()
  }
})

test('a call that cannot get the lock in lockWaitMs answers FILE_LOCKED and writes nothing', { skip: !haveFlock && 'flock(1) is not installed' }, async () => {
  const { d, done } = tmp()
  try {
    const f = path.join(d, 'f.txt')
    fs.writeFileSync(f, 'x = 1\n')
    const holder = spawn('flock', [f, 'sh', '-c', 'read x'], { stdio: ['pipe', 'ignore', 'inherit'] })
    await lockedByOther(f)
    const r = await api.patchFile({ file_path: 'f.txt', search_block: 'x = 1', replace_block: 'x = 2' }, { workspaceRoot: d, lockWaitMs: 200 })
    holder.stdin.end()
    assert.equal(r.code, 'FILE_LOCKED', JSON.stringify(r))
    assert.equal(fs.readFileSync(f, 'utf8'), 'x = 1\n')
    assert.deepEqual(fs.readdirSync(d).filter((n) => n.includes('.pft-')), [])
    // A dry run's id survives such a refusal and applies once the file is free.
    const dry = await api.patchFile({ file_path: 'f.txt', search_block: 'x = 1', replace_block: 'x = 3', dry_run: true }, { workspaceRoot: d })
    const holder2 = spawn('flock', [f, 'sh', '-c', 'read x'], { stdio: ['pipe', 'ignore', 'inherit'] })
    await lockedByOther(f)
    const busy = await api.applyDryRun({ run_id: dry.run_id }, { workspaceRoot: d, lockWaitMs: 100 })
    assert.equal(busy.code, 'FILE_LOCKED', JSON.stringify(busy))
    holder2.stdin.end()
    await new Promise((r) => holder2.on('exit', r))
    const applied = await api.applyDryRun({ run_id: dry.run_id }, { workspaceRoot: d })
    assert.equal(applied.ok, true, JSON.stringify(applied))
    assert.equal(fs.readFileSync(f, 'utf8'), 'x = 3\n')
  } finally {
    done()
  }
})

test('concurrent calls on one file in this process all land (each waits on the event loop)', async () => {
  const { d, done } = tmp()
  try {
    const n = 40
    fs.writeFileSync(path.join(d, 'c.txt'), Array.from({ length: n }, (_, i) => `v${i} = 0\n`).join(''))
    const rs = await Promise.all(
      Array.from({ length: n }, (_, i) => api.patchFile({ file_path: 'c.txt', search_block: `v${i} = 0`, replace_block: `v${i} = 1` }, { workspaceRoot: d, durable: false })),
    )
    for (const r of rs) assert.equal(r.ok, true, JSON.stringify(r))
    assert.equal(fs.readFileSync(path.join(d, 'c.txt'), 'utf8'), Array.from({ length: n }, (_, i) => `v${i} = 1\n`).join(''))
  } finally {
    done()
  }
})

test('readFile pages a file larger than one answer carries; a longer single line is RESULT_TOO_LARGE; nothing rejects', async () => {
  const { d, done } = tmp()
  try {
    const MiB = 1 << 20
    // 200 MiB of 64-byte lines.
    const line = 'x'.repeat(63) + '\n'
    const chunk = line.repeat(MiB / 64)
    const fd = fs.openSync(path.join(d, 'big.txt'), 'w')
    for (let i = 0; i < 200; i++) fs.writeSync(fd, chunk)
    fs.closeSync(fd)
    const first = await api.readFile({ file_path: 'big.txt' }, { workspaceRoot: d })
    assert.equal(first.ok, true, first.message)
    assert.equal(first.truncated, true)
    assert.ok(first.content.length <= 128 * MiB && first.content.length > 100 * MiB, String(first.content.length))
    assert.equal(first.content.length % 64, 0, 'whole lines only')
    assert.equal(first.next_offset, first.lines)
    const rest = await api.readFile({ file_path: 'big.txt', offset: first.next_offset }, { workspaceRoot: d })
    assert.equal(rest.ok, true, rest.message)
    assert.equal(rest.truncated, undefined)
    assert.equal(first.lines + rest.lines, rest.total_lines)
    // The text editor's view of it answers (a result or a code), never rejects.
    const view = await api.textEditor({ command: 'view', path: 'big.txt' }, { workspaceRoot: d })
    assert.equal(typeof view.ok, 'boolean')
    // One line of 130 MiB.
    fs.writeFileSync(path.join(d, 'line.txt'), Buffer.alloc(130 * MiB, 0x61))
    const long = await api.readFile({ file_path: 'line.txt' }, { workspaceRoot: d })
    assert.equal(long.code, 'RESULT_TOO_LARGE', long.message)
    // A dry run whose diff would be huge omits it and stays applicable.
    const one = Buffer.alloc(70 * MiB, 0x61)
    one[35 * MiB] = 0x5a // 'Z'
    fs.writeFileSync(path.join(d, 'one.txt'), one)
    const dry = api.patchFileSync({ file_path: 'one.txt', search_block: 'aZa', replace_block: 'aYa', dry_run: true }, { workspaceRoot: d })
    assert.equal(dry.ok, true, dry.message)
    assert.equal(dry.diff, undefined)
    assert.match(dry.diff_omitted, /too large/)
    const applied = await api.applyDryRun({ run_id: dry.run_id }, { workspaceRoot: d })
    assert.equal(applied.ok, true, applied.message)
    assert.equal(fs.readFileSync(path.join(d, 'one.txt'))[35 * MiB], 0x59)
  } finally {
    done()
  }
})

test('an AbortSignal or timeoutMs cancels a call that has not written yet; nothing is written', { skip: !haveFlock && 'flock(1) is not installed' }, async () => {
  const { d, done } = tmp()
  try {
    const f = path.join(d, 'f.txt')
    fs.writeFileSync(f, 'k = 1\n')
    const input = { file_path: 'f.txt', search_block: 'k = 1', replace_block: 'k = 2' }
    // Already aborted: not even started.
    const pre = await api.patchFile(input, { workspaceRoot: d, signal: AbortSignal.abort() })
    assert.equal(pre.code, 'CANCELLED', JSON.stringify(pre))
    // The wrapper answers with the engine's own CANCELLED result, worded once, in Rust.
    const native = require('../binding.js')
    assert.deepEqual(pre, native.cancelledResult())
    assert.match(native.cancelledResult().message, /^the call was cancelled by its caller before anything was written; nothing was written$/)
    assert.match(native.cancelledResult(100).message, /^the call took longer than its timeoutMs \(100 ms\) before anything was written/)
    assert.equal(native.DEFAULT_LOCK_WAIT_MS, 10_000)
    // Aborted while waiting for a file another process holds.
    const holder = spawn('flock', [f, 'sh', '-c', 'read x'], { stdio: ['pipe', 'ignore', 'inherit'] })
    const released = new Promise((r) => holder.on('exit', r))
    let aborted, timed
    try {
      await lockedByOther(f)
      const ac = new AbortController()
      const pending = api.patchFile(input, { workspaceRoot: d, signal: ac.signal, lockWaitMs: 60_000 })
      setTimeout(() => ac.abort(), 50)
      aborted = await pending
      assert.equal(holder.exitCode, null, 'answered while the file was still locked')
      // The time budget covers the wait too.
      timed = await api.patchFile(input, { workspaceRoot: d, timeoutMs: 100, lockWaitMs: 60_000 })
    } finally {
      holder.stdin.end()
      await released
    }
    assert.equal(aborted.code, 'CANCELLED', JSON.stringify(aborted))
    assert.equal(aborted.message, native.cancelledResult().message)
    assert.equal(timed.code, 'CANCELLED', JSON.stringify(timed))
    assert.match(timed.message, /^the call took longer than its timeoutMs \(\d+ ms\) before anything was written/)
    assert.equal(fs.readFileSync(f, 'utf8'), 'k = 1\n')
    // Not cancelled: the same call goes through.
    const ok = await api.patchFile(input, { workspaceRoot: d, signal: new AbortController().signal, timeoutMs: 60_000 })
    assert.equal(ok.ok, true, JSON.stringify(ok))
    assert.equal(fs.readFileSync(f, 'utf8'), 'k = 2\n')
  } finally {
    done()
  }
})
