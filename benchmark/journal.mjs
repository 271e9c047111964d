#!/usr/bin/env node
// The edit journal's cost: one durable patchFile with the journal on, the same
// with `journal: false`, and floor-copy (read + write temp + fsync + rename +
// fsync dir, no search: engines.mjs), interleaved rep by rep (the order
// rotates) on the same files, so drift of the machine spreads over all of them
// and every ratio comes from one run. Medians per workload.
//
// Goals: journaled <= 1.05x unjournaled at every size; a 10 MiB edit <= 1.3x
// floor-copy with the journal on.
//
//   node benchmark/journal.mjs [--quick] [--out file.json]
//   env: PFT_BENCH_DIR=<dir>      where the files and the journal go (default: os.tmpdir()).
//        PFT_BENCH_COMPARE=<dir>  also run that (built) checkout, journal on and off, interleaved
//                                 (to measure a change before and after in one run).

import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import { createRequire } from 'node:module'
import { smallTs, writeBigFile, writeManyFiles, Toggle } from './workloads.mjs'

const require = createRequire(import.meta.url)
const args = process.argv.slice(2)
const QUICK = args.includes('--quick')
const outAt = args.indexOf('--out')
const MiB = 1024 * 1024
const CFG = QUICK
  ? { tiny: 60, seed: 60, mid: 6, big: 2, bigBytes: 32 * MiB, files: 200, filesReps: 1 }
  : { tiny: 300, seed: 300, mid: 30, big: 9, bigBytes: 200 * MiB, files: 1000, filesReps: 3 }

const base = process.env.PFT_BENCH_DIR || os.tmpdir()
const work = fs.mkdtempSync(path.join(base, 'pft-journal-bench-'))
process.on('exit', () => fs.rmSync(work, { recursive: true, force: true }))
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    fs.rmSync(work, { recursive: true, force: true })
    process.exit(130)
  })
}
const jdir = path.join(work, 'journal-state')

const builds = [{ name: '', api: require('../index.js') }]
if (process.env.PFT_BENCH_COMPARE) builds.push({ name: 'before ', api: require(path.resolve(process.env.PFT_BENCH_COMPARE, 'index.js')) })
const MODES = [...builds.flatMap((b) => [`${b.name}on`, `${b.name}off`]), 'floor']

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

async function patch(api, root, rel, toggle, journal) {
  const [e] = toggle.next()
  const r = await api.patchFile({ file_path: rel, search_block: e.search, replace_block: e.replace }, { workspaceRoot: root, journal })
  if (!r.ok) throw new Error(`${rel}: ${r.code} ${r.message}`)
  if (r.warnings) throw new Error(`${rel}: ${r.warnings.join('; ')}`)
  toggle.flip()
}

/** floor-copy, as benchmark/engines.mjs does it for one sequential op. */
function floorCopy(file) {
  const bytes = fs.readFileSync(file)
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.floor-${randomBytes(6).toString('hex')}.tmp`)
  const fd = fs.openSync(tmp, 'wx', 0o600)
  fs.writeSync(fd, bytes)
  fs.fsyncSync(fd)
  fs.closeSync(fd)
  fs.renameSync(tmp, file)
  const d = fs.openSync(path.dirname(file), 'r')
  fs.fsyncSync(d)
  fs.closeSync(d)
}

/** Runs `one(mode)` reps times per mode, the order rotating; returns ms medians and ratios. */
async function measure(name, reps, one, goal) {
  const t = Object.fromEntries(MODES.map((m) => [m, []]))
  for (let i = 0; i < reps; i++) {
    const order = MODES.map((_, k) => MODES[(k + i) % MODES.length])
    for (const mode of order) {
      if (global.gc) global.gc()
      const t0 = process.hrtime.bigint()
      await one(mode)
      t[mode].push(Number(process.hrtime.bigint() - t0) / 1e6)
    }
  }
  const ms = Object.fromEntries(MODES.map((m) => [m, +median(t[m]).toFixed(3)]))
  const mean = Object.fromEntries(MODES.map((m) => [m, +(t[m].reduce((a, b) => a + b, 0) / t[m].length).toFixed(3)]))
  const ratio = (a, b) => +(ms[a] / ms[b]).toFixed(3)
  const row = { name, reps, ms, mean_ms: mean, on_vs_off: ratio('on', 'off'), on_vs_floor: ratio('on', 'floor'), off_vs_floor: ratio('off', 'floor'), mean_on_vs_off: +(mean.on / mean.off).toFixed(3), goal }
  if (builds.length > 1) Object.assign(row, { before_on_vs_off: ratio('before on', 'before off'), before_on_vs_floor: ratio('before on', 'floor'), on_vs_before_on: ratio('on', 'before on') })
  const times = MODES.map((m) => `${m} ${ms[m].toFixed(2).padStart(8)}`).join('  ')
  const extra = builds.length > 1 ? `  before on/off ${row.before_on_vs_off.toFixed(3)}x` : ''
  console.log(`${name.padEnd(34)} ${times} ms  on/off ${row.on_vs_off.toFixed(3)}x (means ${row.mean_on_vs_off.toFixed(3)}x)  on/floor ${row.on_vs_floor.toFixed(3)}x${extra}`)
  return row
}

/** One edit of `rel` in `root` (or a copy, for floor) in the given mode. */
function editor(root, rel, toggle) {
  return async (mode) => {
    if (mode === 'floor') return floorCopy(path.join(root, rel))
    const b = builds.find((x) => mode.startsWith(x.name) && mode.slice(x.name.length).match(/^(on|off)$/))
    await patch(b.api, root, rel, toggle, mode.endsWith('on') ? jdir : false)
  }
}

const rows = []
{
  const root = path.join(work, 'tiny')
  fs.mkdirSync(root)
  const text = Array.from({ length: 32 }, (_, i) => `const value${i} = ${i} // about thirty bytes\n`).join('')
  fs.writeFileSync(path.join(root, 'small.ts'), text)
  const toggle = new Toggle([{ a: 'const value16 = 16', b: 'const value16 = 61' }])
  rows.push(await measure(`1 KB file (${text.length} B), one edit`, CFG.tiny, editor(root, 'small.ts', toggle), '<= 1.05x off'))
}
{
  const ts = smallTs()
  const root = path.join(work, 'seed')
  fs.mkdirSync(root)
  fs.writeFileSync(path.join(root, 'fixture.ts'), ts.text)
  rows.push(await measure('1,000-line TS file, one edit', CFG.seed, editor(root, 'fixture.ts', new Toggle([ts.edit])), '<= 1.05x off'))
}
for (const [label, bytes, reps, goal] of [
  ['10 MiB file, one edit', 10 * MiB, CFG.mid, '<= 1.05x off, <= 1.3x floor'],
  [`${Math.round(CFG.bigBytes / MiB)} MiB file, one edit`, CFG.bigBytes, CFG.big, '<= 1.05x off'],
]) {
  const root = path.join(work, `big${bytes}`)
  fs.mkdirSync(root)
  const info = writeBigFile(path.join(root, 'big.ts'), bytes, 7)
  rows.push(await measure(label, reps, editor(root, 'big.ts', new Toggle([info.edit])), goal))
  fs.rmSync(root, { recursive: true, force: true })
}
{
  const root = path.join(work, 'many')
  fs.mkdirSync(root)
  const files = writeManyFiles(path.join(root, 'src'), CFG.files)
  const ed = files.map((f) => editor(root, f.rel, f.toggle))
  rows.push(
    await measure(`${CFG.files.toLocaleString('en')} files, one edit each (sequential)`, CFG.filesReps, async (mode) => {
      for (const e of ed) await e(mode)
    }),
  )
}
if (outAt >= 0) fs.writeFileSync(args[outAt + 1], JSON.stringify({ when: new Date().toISOString(), node: process.version, cpus: os.cpus().length, quick: QUICK, rows }, null, 2) + '\n')
