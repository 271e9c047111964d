#!/usr/bin/env node
// What the syntax guard (core/src/check/syntax) costs: the same patchFile with the
// guard (`syntax: "warn"`, the default) and without it (`"off"`), interleaved
// rep by rep (the order rotating) on files of their own, so every ratio comes
// from one run. Medians per workload.
//
// - seed (and seed-fast, with `durable: false`): the 1,000-line TypeScript file of the main benchmark (fixture.ts),
//   its one-line edit at line ~500 flipped back and forth: an agent's run of
//   edits on one file, where the tree of the old text is kept from the last
//   edit and the new text is parsed incrementally;
// - seed-cold: the same edit of a file whose text the process has never
//   parsed (a fresh comment line on top of each copy): a full parse, what a
//   one-shot CLI call or the first edit of a file pays;
// - txt: the seed edit of a `.txt` file (no grammar: nothing is parsed);
// - big: a one-line edit of a 200 MiB `.ts` file (32 MiB with --quick): over
//   the 4 MiB limit, not parsed (the result says `unchecked: too_large`).
//
// Goals (issue: syntax guard): <= 1.15x on the seed edit; none for unknown
// extensions; none on the big edit.
//
//   node benchmark/syntax.mjs [--quick] [--only seed,seed-fast,seed-cold,txt,big] [--out file.json]
//   env: PFT_BENCH_DIR=<dir>  where the files go (default: os.tmpdir()).

import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import { benchDir, interleaved, smallTs } from './workloads.mjs'

const require = createRequire(import.meta.url)
const args = process.argv.slice(2)
const ONLY = args.includes('--only') ? args[args.indexOf('--only') + 1].split(',') : null
const want = (k) => !ONLY || ONLY.includes(k)
const QUICK = args.includes('--quick')
const outAt = args.indexOf('--out')
const MiB = 1024 * 1024
const CFG = QUICK ? { seed: 300, cold: 100, big: 3, bigBytes: 32 * MiB } : { seed: 2000, cold: 400, big: 7, bigBytes: 200 * MiB }

const work = benchDir('pft-syntax-bench-')
process.env.PATCH_FILE_STATE_DIR = path.join(work, 'state')
const api = require('../index.js')
const root = path.join(work, 'ws')
fs.mkdirSync(root)
const MODES = ['warn', 'off']

async function call(input, mode, check, durable = true) {
  const r = await api.patchFile(input, { workspaceRoot: root, syntax: mode, durable })
  if (!r.ok) throw new Error(`${input.file_path}: ${r.code} ${r.message}`)
  if (check) check(r, mode)
  return r
}

/** Runs `one(mode, i)` reps times per mode, the order rotating; medians in ms and the ratio. */
async function measure(name, reps, one) {
  const m = await interleaved(MODES, reps, one)
  const ratio = m.warn / m.off
  console.log(`${name.padEnd(9)} with the guard ${m.warn.toFixed(3)} ms, without ${m.off.toFixed(3)} ms: ${ratio.toFixed(3)}x (+${(m.warn - m.off).toFixed(3)} ms)`)
  return { name, reps, warn_ms: m.warn, off_ms: m.off, ratio }
}

const clean = (r) => {
  if (r.syntax) throw new Error(`unexpected syntax report: ${JSON.stringify(r.syntax)}`)
}
const results = []
const ts = smallTs()
const flip = (i) => (i % 2 ? [ts.edit.b, ts.edit.a] : [ts.edit.a, ts.edit.b])

for (const [name, durable] of [['seed', true], ['seed-fast', false]]) {
  if (!want(name)) continue
  for (const m of MODES) fs.writeFileSync(path.join(root, `${name}-${m}.ts`), ts.text)
  results.push(
    await measure(name, CFG.seed, async (mode, i) => {
      const [s, r] = flip(i)
      await call({ file_path: `${name}-${mode}.ts`, search_block: s, replace_block: r }, mode, clean, durable)
    }),
  )
}

// seed-cold: every rep edits a copy whose first line is new to the process.
let copy = 0
if (want('seed-cold')) results.push(
  await measure('seed-cold', CFG.cold, async (mode) => {
    const name = `cold-${mode}-${copy++}.ts`
    fs.writeFileSync(path.join(root, name), `// copy ${copy} ${process.hrtime.bigint()}\n${ts.text}`)
    await call({ file_path: name, search_block: ts.edit.a, replace_block: ts.edit.b }, mode, clean)
  }),
)

for (const m of MODES) fs.writeFileSync(path.join(root, `seed-${m}.txt`), ts.text)
if (want('txt')) results.push(
  await measure('txt', CFG.seed, async (mode, i) => {
    const [s, r] = flip(i)
    await call({ file_path: `seed-${mode}.txt`, search_block: s, replace_block: r }, mode, clean)
  }),
)

const big = want('big') ? Buffer.alloc(CFG.bigBytes, 'const x = 1;' + ' '.repeat(67) + '\n') : null
for (const m of big ? MODES : []) {
  const b = Buffer.from(big)
  b.write('const unique1 = 1;\n', 40 * 80)
  fs.writeFileSync(path.join(root, `big-${m}.ts`), b)
}
if (big) results.push(
  await measure('big', CFG.big, async (mode, i) => {
    const [s, r] = i % 2 ? ['const unique2 = 1;\n', 'const unique1 = 1;\n'] : ['const unique1 = 1;\n', 'const unique2 = 1;\n']
    await call({ file_path: `big-${mode}.ts`, search_block: s, replace_block: r }, mode, (res, m) => {
      if (m === 'warn' && res.syntax?.unchecked !== 'too_large') throw new Error(`big: ${JSON.stringify(res.syntax)}`)
    })
  }),
)

fs.rmSync(work, { recursive: true, force: true })
if (outAt >= 0) fs.writeFileSync(args[outAt + 1], JSON.stringify({ quick: QUICK, results }, null, 2) + '\n')
