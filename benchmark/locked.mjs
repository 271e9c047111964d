// The `locked` workload: unrelated work while calls wait for a file another
// process holds locked.
//
// Node's thread pool has four threads by default. If calls waiting for a
// busy file sat on them, every other pool user of the process (another
// patchFile, fs.promises.readFile, crypto, zlib) would stall behind them.
// Measured here: the latency of an unrelated patchFile and of a 1 MiB
// fs.promises.readFile, first alone (baseline), then while eight patchFile
// calls wait for a file an `flock` child process holds. Goal: unaffected.

import fs from 'node:fs'
import path from 'node:path'
import { spawn, spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

/** Which form other.ts holds now (the edit toggles it). */
const state = { flip: false }

async function latencies(api, root, n) {
  const edit = [], read = []
  for (let i = 0; i < n; i++) {
    const [a, b] = state.flip ? ['y = 2', 'y = 1'] : ['y = 1', 'y = 2']
    state.flip = !state.flip
    let t = process.hrtime.bigint()
    const r = await api.patchFile({ file_path: 'other.ts', search_block: a, replace_block: b }, { workspaceRoot: root, durable: false })
    if (!r.ok) throw new Error(`unrelated edit failed: ${r.message}`)
    edit.push(Number(process.hrtime.bigint() - t) / 1e6)
    t = process.hrtime.bigint()
    await fs.promises.readFile(path.join(root, 'blob.bin'))
    read.push(Number(process.hrtime.bigint() - t) / 1e6)
  }
  return { edit_ms: { median: median(edit), max: Math.max(...edit) }, read_ms: { median: median(read), max: Math.max(...read) } }
}

/** Runs the workload in `workDir`; `null` where flock(1) is missing. */
export async function lockedWorkload(workDir, reps) {
  if (spawnSync('sh', ['-c', 'command -v flock']).status !== 0) return null
  const api = require('../index.js')
  const root = path.join(workDir, 'locked')
  fs.mkdirSync(root)
  fs.writeFileSync(path.join(root, 'held.ts'), Array.from({ length: 8 }, (_, i) => `h${i} = 0\n`).join(''))
  fs.writeFileSync(path.join(root, 'other.ts'), 'y = 1\n')
  state.flip = false
  fs.writeFileSync(path.join(root, 'blob.bin'), Buffer.alloc(1 << 20, 1))
  await latencies(api, root, 10) // warm-up
  const baseline = await latencies(api, root, reps)
  const held = path.join(root, 'held.ts')
  const holder = spawn('flock', [held, 'sh', '-c', 'read x'], { stdio: ['pipe', 'ignore', 'ignore'] })
  for (let i = 0; spawnSync('flock', ['-n', held, 'true']).status === 0; i++) {
    if (i > 500) throw new Error('the lock holder never took the lock')
    await new Promise((r) => setTimeout(r, 10))
  }
  const waiting = Array.from({ length: 8 }, (_, i) =>
    api.patchFile({ file_path: 'held.ts', search_block: `h${i} = 0`, replace_block: `h${i} = 1` }, { workspaceRoot: root, lockWaitMs: 120_000 }),
  )
  const whileLocked = await latencies(api, root, reps)
  holder.stdin.end()
  const done = await Promise.all(waiting)
  const landed = done.filter((r) => r.ok).length
  return {
    name: 'Unrelated calls while 8 calls wait for a file another process holds locked',
    key: 'locked',
    reps,
    baseline,
    while_locked: whileLocked,
    waiting_calls_landed: landed,
    ratio_edit: whileLocked.edit_ms.median / baseline.edit_ms.median,
    ratio_read: whileLocked.read_ms.median / baseline.read_ms.median,
  }
}

/** Report lines for the workload's result. */
export function lockedLines(w) {
  const f = (x) => x.toFixed(2)
  return [
    ['', 'unrelated patchFile median ms', 'max', '1 MiB readFile median ms', 'max'].join(' | '),
    ['alone', f(w.baseline.edit_ms.median), f(w.baseline.edit_ms.max), f(w.baseline.read_ms.median), f(w.baseline.read_ms.max)].join(' | '),
    ['8 calls waiting on a locked file', f(w.while_locked.edit_ms.median), f(w.while_locked.edit_ms.max), f(w.while_locked.read_ms.median), f(w.while_locked.read_ms.max)].join(' | '),
    `ratio (waiting / alone): patchFile ${w.ratio_edit.toFixed(2)}x, readFile ${w.ratio_read.toFixed(2)}x; waiting calls that landed after the lock was released: ${w.waiting_calls_landed}/8`,
  ]
}

// `node benchmark/locked.mjs`: this workload alone.
if (import.meta.url === `file://${process.argv[1]}`) {
  const os = await import('node:os')
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pft-locked-'))
  try {
    const w = await lockedWorkload(dir, 100)
    if (!w) console.log('flock(1) is not installed')
    else console.log([`## ${w.name}`, ...lockedLines(w)].join('\n'))
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}
