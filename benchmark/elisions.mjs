#!/usr/bin/env node
// What the elision check (core/src/check/) costs: the same patchFile with the check
// (`elisions: "expand"`, the default) and without it (`"literal"`),
// interleaved rep by rep (the order rotates) on the same files, so every ratio
// comes from one run. Medians per workload.
//
// - seed: a 200-line file, one-line edits whose replacement holds `...` in code
//   (`f(...args)`): the prefilter's worst case, a keyword hit whose line is
//   tested and is not a marker;
// - big: a one-line edit of a 200 MiB file (32 MiB with --quick), no marker;
// - lazy: the seed file, an edit whose replacement elides unchanged lines
//   with a marker (expanded), against the same edit spelled out (literal).
//
// Goals (issue: lazy elisions): the check adds <= 5 % to the seed edit and
// nothing measurable to the big one.
//
//   node benchmark/elisions.mjs [--quick] [--out file.json]
//   env: PFT_BENCH_DIR=<dir>  where the files go (default: os.tmpdir()).

import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import { benchDir, interleaved } from './workloads.mjs'

const require = createRequire(import.meta.url)
const args = process.argv.slice(2)
const QUICK = args.includes('--quick')
const outAt = args.indexOf('--out')
const MiB = 1024 * 1024
const CFG = QUICK ? { seed: 200, big: 3, bigBytes: 32 * MiB, lazy: 200 } : { seed: 1000, big: 7, bigBytes: 200 * MiB, lazy: 1000 }

const work = benchDir('pft-elisions-bench-')
process.env.PATCH_FILE_STATE_DIR = path.join(work, 'state')
const api = require('../index.js')
const root = path.join(work, 'ws')
fs.mkdirSync(root)
const MODES = ['expand', 'literal']

/** A 200-line JS file, one statement a line, in functions of 8. */
function seedText() {
  const out = []
  for (let f = 0; f < 25; f++) {
    out.push(`function f${f}(a, b) {`)
    for (let k = 0; k < 6; k++) out.push(`  const v${k} = a * ${f * 10 + k} + b; // step ${k} of f${f}`)
    out.push('}')
  }
  return out.join('\n') + '\n'
}

async function call(input, mode) {
  const r = await api.patchFile(input, { workspaceRoot: root, elisions: mode })
  if (!r.ok) throw new Error(`${input.file_path}: ${r.code} ${r.message}`)
  return r
}

/** Runs `one(mode, i)` reps times per mode, the order rotating; medians in ms and the ratio. */
async function measure(name, reps, one) {
  const m = await interleaved(MODES, reps, one)
  const ratio = m.expand / m.literal
  console.log(`${name.padEnd(6)} with the check ${m.expand.toFixed(3)} ms, without ${m.literal.toFixed(3)} ms: ${ratio.toFixed(3)}x`)
  return { name, reps, expand_ms: m.expand, literal_ms: m.literal, ratio }
}

const results = []

// seed: each mode edits its own copy; each rep flips line 3 between two
// spellings that both hold `...` in code.
const seed = seedText()
for (const m of MODES) fs.writeFileSync(path.join(root, `seed-${m}.js`), seed)
const A = '  const v1 = a * 1 + b; // step 1 of f0\n'
const B = '  const v1 = f(...[a, 1]) + b; // step 1 of f0\n'
results.push(
  await measure('seed', CFG.seed, async (mode, i) => {
    const [s, r] = i % 2 ? [B, A] : [A, B]
    await call({ file_path: `seed-${mode}.js`, search_block: s, replace_block: r }, mode)
  }),
)

// big: a one-line edit of a large file, no marker.
const big = Buffer.alloc(CFG.bigBytes, 'x'.repeat(79) + '\n')
for (const m of MODES) {
  const b = Buffer.from(big)
  b.write('unique line one\n', 40 * 80)
  fs.writeFileSync(path.join(root, `big-${m}.txt`), b)
}
results.push(
  await measure('big', CFG.big, async (mode, i) => {
    const [s, r] = i % 2 ? ['unique line two\n', 'unique line one\n'] : ['unique line one\n', 'unique line two\n']
    await call({ file_path: `big-${mode}.txt`, search_block: s, replace_block: r }, mode)
  }),
)

// lazy: a function's signature changed, its body elided (expanded), against
// the same edit spelled out with the check off.
for (const m of MODES) fs.writeFileSync(path.join(root, `lazy-${m}.js`), seed)
const body = seed.split('\n').slice(8, 16).join('\n') + '\n'
const lines = body.split('\n')
const lazyOf = (sig) => [sig, lines[1], '  // ... existing code ...', lines[7], ''].join('\n')
results.push(
  await measure('lazy', CFG.lazy, async (mode, i) => {
    const [from, to] = i % 2 ? ['function f1(a, c) {', 'function f1(a, b) {'] : ['function f1(a, b) {', 'function f1(a, c) {']
    const search = [from, ...lines.slice(1)].join('\n')
    const replace = mode === 'expand' ? lazyOf(to) : [to, ...lines.slice(1)].join('\n')
    const r = await call({ file_path: `lazy-${mode}.js`, search_block: search, replace_block: replace }, mode)
    if (mode === 'expand' && !(r.expanded && r.expanded.length === 1)) throw new Error(`lazy: not expanded: ${JSON.stringify(r)}`)
  }),
)
for (const m of MODES) {
  if (fs.readFileSync(path.join(root, `lazy-${m}.js`), 'utf8') !== fs.readFileSync(path.join(root, `lazy-${MODES[0]}.js`), 'utf8')) {
    throw new Error('lazy: the expanded file differs from the one spelled out')
  }
}

if (outAt >= 0) fs.writeFileSync(args[outAt + 1], JSON.stringify({ quick: QUICK, results }, null, 2) + '\n')
