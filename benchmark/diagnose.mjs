#!/usr/bin/env node
// Cost of near-miss diagnosis, end to end through the JS API (release addon).
//
//   node benchmark/diagnose.mjs            10,000-line file + a 200 MB file
//   PFT_BENCH_BIG_MB=0 node benchmark/diagnose.mjs   skip the big file
//
// A failed patchFile call reads the file, searches it, and (only because it
// failed) diagnoses the miss. The whole failing call is timed, so each figure
// is an upper bound of what diagnosis adds; a successful dry run of the same
// file is timed for comparison. The direct timing of the diagnosis alone is
// `cargo test --release --test all -- --ignored --nocapture diagnose_bench`.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { patchFileSync } from '../index.mjs'

const RUNS = Number(process.env.PFT_BENCH_RUNS || 41)
const BIG_MB = Number(process.env.PFT_BENCH_BIG_MB ?? 200)

function source(lines) {
  const out = ["import { Request, Response } from 'express';", "import { db } from './db';", '']
  for (let i = 0; out.length < lines; i++) {
    out.push(
      `export async function handler${i}(req: Request, res: Response) {`,
      `  const id = Number(req.params.id ?? ${i});`,
      '  if (!Number.isFinite(id)) {',
      `    return res.status(400).json({ error: 'bad id for handler ${i}' });`,
      '  }',
      `  const rows = await db.query('SELECT * FROM t${i % 37} WHERE id = $1', [id]);`,
      '  if (rows.length === 0) {',
      '    return res.status(404).end();',
      '  }',
      '  return res.json(rows[0]);',
      '}',
      '',
    )
  }
  return out.join('\n') + '\n'
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b)
  return s[s.length >> 1]
}

function time(fn, runs = RUNS) {
  fn()
  const t = []
  for (let i = 0; i < runs; i++) {
    const s = performance.now()
    fn()
    t.push(performance.now() - s)
  }
  return median(t)
}

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pft-diag-bench-')))
const opts = { workspaceRoot: root, durable: false }
const text = source(10_000)
fs.writeFileSync(path.join(root, 'handlers.ts'), text)
const mid = 500
const block = [
  `export async function handler${mid}(req: Request, res: Response) {`,
  `  const id = Number(req.params.id ?? ${mid});`,
  '  if (!Number.isFinite(id)) {',
  `    return res.status(400).json({ error: 'bad id for handler ${mid}' });`,
  '  }',
].join('\n')

const cases = [
  ['success (dry run, for comparison)', block, block.replace('400', '422'), { dry_run: true }],
  ['not found: indentation', block.replaceAll('\n  ', '\n    '), 'x'],
  ['not found: line endings', block.replaceAll('\n', '\r\n'), 'x'],
  ['not found: stale content', block.replace(`?? ${mid}`, '?? 0'), 'x'],
  ['not found: no similar text', 'SELECT name FROM accounts WHERE deleted', 'x'],
  ['not found: already applied', 'status(418)', `return res.status(400).json({ error: 'bad id for handler ${mid}' });`],
  ['ambiguous: hints for 10 of 834', '    return res.status(404).end();\n', 'x'],
]

console.log(`10,000-line file (${text.length} bytes), median of ${RUNS} calls:`)
const rows = []
for (const [name, search, replace, extra] of cases) {
  let last
  const ms = time(() => {
    last = patchFileSync({ file_path: 'handlers.ts', search_block: search, replace_block: replace, ...extra }, opts)
  })
  const what = last.ok ? 'ok' : `${last.code}${last.closest_match ? ` -> lines ${last.closest_match.line_number}-${last.closest_match.end_line} ${last.closest_match.differences}` : ''}${last.already_applied ? ' already_applied' : ''}${last.unique_context_hint ? ` ${last.unique_context_hint.length} hints` : ''}`
  rows.push({ case: name, 'median ms': ms.toFixed(2), result: what })
}
console.table(rows)

if (BIG_MB > 0) {
  const copies = Math.ceil((BIG_MB * 1e6) / text.length)
  const big = path.join(root, 'big.ts')
  const fd = fs.openSync(big, 'w')
  for (let i = 0; i < copies; i++) fs.writeSync(fd, text)
  fs.closeSync(fd)
  const size = fs.statSync(big).size
  const big3 = (search, replace) => {
    let r
    const ms = time(() => {
      r = patchFileSync({ file_path: 'big.ts', search_block: search, replace_block: replace }, opts)
    }, 3)
    return [ms, r]
  }
  console.log(`\n${(size / 1e6).toFixed(0)} MB file, median of 3 calls:`)
  const out = []
  for (const [name, search] of [
    ['not found: indentation (diagnosis gives up)', block.replaceAll('\n  ', '\n    ')],
    ['not found: no similar text', 'SELECT name FROM accounts WHERE deleted'],
  ]) {
    const [ms, r] = big3(search, 'x')
    out.push({ case: name, 'median ms': ms.toFixed(1), code: r.code, diagnosis_incomplete: !!r.diagnosis_incomplete })
  }
  console.table(out)
  fs.rmSync(big)
}
fs.rmSync(root, { recursive: true, force: true })
