#!/usr/bin/env node
// Journaling overhead: patchFile with the edit journal on vs `journal: false`,
// interleaved rep by rep (the order alternates) on the same files, so drift
// of the machine spreads over both. Medians per workload; goals from issue 15:
// seed (1,000-line TS file, one edit) ≤ 10 %, 200 MiB edit ≤ 5 %.
//
//   node benchmark/journal.mjs [--quick] [--out file.json]
//   env: PFT_BENCH_DIR=<dir> where the files (and the journal) go (default: os.tmpdir()).

import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createRequire } from 'node:module'
import { smallTs, writeBigFile, writeManyFiles, Toggle } from './workloads.mjs'

const require = createRequire(import.meta.url)
const api = require('../index.js')
const args = process.argv.slice(2)
const QUICK = args.includes('--quick')
const outAt = args.indexOf('--out')
const MiB = 1024 * 1024
const CFG = QUICK ? { seed: 60, mid: 6, big: 2, bigBytes: 32 * MiB, files: 200, filesReps: 1 } : { seed: 200, mid: 15, big: 5, bigBytes: 200 * MiB, files: 1000, filesReps: 3 }

const base = process.env.PFT_BENCH_DIR || os.tmpdir()
const work = fs.mkdtempSync(path.join(base, 'pft-journal-bench-'))
process.on('exit', () => fs.rmSync(work, { recursive: true, force: true }))
const jdir = path.join(work, 'journal-state')

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

async function patch(root, rel, toggle, journal) {
  const [e] = toggle.next()
  const r = await api.patchFile({ file_path: rel, search_block: e.search, replace_block: e.replace }, { workspaceRoot: root, journal })
  if (!r.ok) throw new Error(`${rel}: ${r.code} ${r.message}`)
  if (r.warnings) throw new Error(`${rel}: ${r.warnings.join('; ')}`)
  toggle.flip()
}

/** Runs `one(journal)` reps times per mode, alternating; returns ms medians. */
async function measure(name, reps, one, extra = {}) {
  const t = { on: [], off: [] }
  for (let i = 0; i < reps; i++) {
    const order = i % 2 ? ['off', 'on'] : ['on', 'off']
    for (const mode of order) {
      const t0 = process.hrtime.bigint()
      await one(mode === 'on' ? jdir : false)
      t[mode].push(Number(process.hrtime.bigint() - t0) / 1e6)
    }
  }
  const on = median(t.on)
  const off = median(t.off)
  const row = { name, reps, journal_on_ms: +on.toFixed(3), journal_off_ms: +off.toFixed(3), overhead: +((on / off - 1) * 100).toFixed(1), ...extra }
  console.log(`${name.padEnd(52)} on ${on.toFixed(2).padStart(9)} ms  off ${off.toFixed(2).padStart(9)} ms  overhead ${row.overhead.toFixed(1).padStart(6)} %${extra.goal ? `  (goal ≤ ${extra.goal} %)` : ''}`)
  return row
}

const rows = []
{
  const ts = smallTs()
  const root = path.join(work, 'seed')
  fs.mkdirSync(root)
  fs.writeFileSync(path.join(root, 'fixture.ts'), ts.text)
  const toggle = new Toggle([ts.edit])
  rows.push(await measure('seed: 1,000-line TS file, one edit', CFG.seed, (j) => patch(root, 'fixture.ts', toggle, j), { goal: 10 }))
}
for (const [label, bytes, reps, goal] of [
  ['10 MiB file, one edit', 10 * MiB, CFG.mid, undefined],
  [`${Math.round(CFG.bigBytes / MiB)} MiB file, one edit`, CFG.bigBytes, CFG.big, 5],
]) {
  const root = path.join(work, `big${bytes}`)
  fs.mkdirSync(root)
  const info = writeBigFile(path.join(root, 'big.ts'), bytes, 7)
  const toggle = new Toggle([info.edit])
  rows.push(await measure(label, reps, (j) => patch(root, 'big.ts', toggle, j), goal ? { goal } : {}))
  fs.rmSync(root, { recursive: true, force: true })
}
{
  const root = path.join(work, 'many')
  fs.mkdirSync(root)
  const files = writeManyFiles(path.join(root, 'src'), CFG.files)
  rows.push(
    await measure(`${CFG.files.toLocaleString('en')} files, one edit each (sequential)`, CFG.filesReps, async (j) => {
      for (const f of files) await patch(root, f.rel, f.toggle, j)
    }),
  )
}
if (outAt >= 0) fs.writeFileSync(args[outAt + 1], JSON.stringify({ when: new Date().toISOString(), node: process.version, cpus: os.cpus().length, rows }, null, 2) + '\n')
