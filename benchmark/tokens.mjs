#!/usr/bin/env node
// `npm run tokens`: how many output tokens an agent spends to make one edit,
// by the way it asks for it, counted with gpt-tokenizer's o200k_base (the
// GPT-4o encoding). The payloads are produced for real: the diff is the
// engine's own dry-run diff, the run_id a real one, the fixture the
// benchmark's deterministic 1,000-line TypeScript file.
//
//   node benchmark/tokens.mjs [--json <file>]

import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createRequire } from 'node:module'
import { encode } from 'gpt-tokenizer/encoding/o200k_base'
import { smallTs, multiEditFile } from './workloads.mjs'

const require = createRequire(import.meta.url)
const api = require('../index.js')

const args = process.argv.slice(2)
const jsonOut = args.includes('--json') ? args[args.indexOf('--json') + 1] : null

const tokens = (s) => encode(s).length
const json = (o) => JSON.stringify(o)

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pft-tokens-'))
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }))
fs.mkdirSync(path.join(dir, 'src'))
const opts = { workspaceRoot: dir }

// The 1,000-line fixture and its one edit.
const ts = smallTs()
const file_path = 'src/fixture.ts'
fs.writeFileSync(path.join(dir, file_path), ts.text)
const after = ts.text.replace(ts.edit.a, ts.edit.b)
const payload = { file_path, search_block: ts.edit.a, replace_block: ts.edit.b }

const dry = await api.patchFile({ ...payload, dry_run: true }, opts)
if (!dry.ok) throw new Error(`dry run failed: ${dry.code}`)
const hunk = dry.diff
const applied = await api.applyDryRun({ run_id: dry.run_id }, opts)
if (!applied.ok || fs.readFileSync(path.join(dir, file_path), 'utf8') !== after) throw new Error('apply failed')
fs.writeFileSync(path.join(dir, file_path), ts.text)

// The 10,000-line file and ten edits: one call vs ten calls.
const m = multiEditFile()
const multiPath = 'src/big-module.ts'
fs.writeFileSync(path.join(dir, multiPath), m.text)
const multi = { file_path: multiPath, edits: m.pairs.map((p) => ({ search_block: p.a, replace_block: p.b })) }
const singles = m.pairs.map((p) => ({ file_path: multiPath, search_block: p.a, replace_block: p.b }))
const mr = await api.patchFile(multi, opts)
if (!mr.ok || mr.replacements !== 10) throw new Error('multi-edit failed')

// What the tool answers (input tokens of the next turn): our result object
// vs server-filesystem's edit_file answer (a diff in a code fence).
fs.writeFileSync(path.join(dir, file_path), ts.text)
const ours = await api.patchFile(payload, opts)
fs.writeFileSync(path.join(dir, file_path), ts.text)
let sfsAnswer = null
try {
  const lib = await import('@modelcontextprotocol/server-filesystem/dist/lib.js')
  lib.setAllowedDirectories([fs.realpathSync(dir)])
  const valid = await lib.validatePath(path.join(fs.realpathSync(dir), file_path))
  sfsAnswer = await lib.applyFileEdits(valid, [{ oldText: ts.edit.a, newText: ts.edit.b }], true)
} catch (e) {
  sfsAnswer = null
}

const rows = [
  { group: 'one edit, 1,000-line file', what: 'full-file rewrite (the whole new file)', text: after, published: [9002, 31894] },
  { group: 'one edit, 1,000-line file', what: 'unified-diff hunk (engine dry-run diff, with headers)', text: hunk, published: [99, 339] },
  { group: 'one edit, 1,000-line file', what: 'patch_file payload (JSON arguments)', text: json(payload), published: [48, 156] },
  {
    group: 'preview then write',
    what: 'dry run, then resend the payload',
    text: json({ ...payload, dry_run: true }) + json(payload),
  },
  {
    group: 'preview then write',
    what: 'dry run, then apply_last_dry_run { run_id }',
    text: json({ ...payload, dry_run: true }) + json({ run_id: dry.run_id }),
  },
  { group: '10 edits, 10,000-line file', what: 'ten patch_file calls', text: singles.map(json).join('') },
  { group: '10 edits, 10,000-line file', what: 'one patch_file call with edits[10]', text: json(multi) },
  { group: 'tool answer (next turn input)', what: 'patch_file result object', text: json(ours) },
]
if (sfsAnswer) rows.push({ group: 'tool answer (next turn input)', what: 'server-filesystem edit_file answer (diff)', text: sfsAnswer })

for (const r of rows) {
  r.tokens = tokens(r.text)
  r.chars = r.text.length
}
const fixture = { lines: ts.lines.length, chars: ts.text.length, tokens: tokens(ts.text), edit_line: ts.line }

const pad = (s, n) => String(s).padEnd(n)
const padl = (s, n) => String(s).padStart(n)
const out = []
out.push(`Output tokens per edit, o200k_base (gpt-tokenizer). Fixture: ${fixture.lines} lines, ${fixture.chars} chars, ${fixture.tokens} tokens; edit at line ${fixture.edit_line}.`)
let group = null
for (const r of rows) {
  if (r.group !== group) {
    group = r.group
    out.push('', `## ${group}`, `${pad('payload', 56)} ${padl('tokens', 7)} ${padl('chars', 7)}   published (tokens / chars)`)
  }
  out.push(`${pad(r.what, 56)} ${padl(r.tokens, 7)} ${padl(r.chars, 7)}   ${r.published ? `${r.published[0]} / ${r.published[1]}` : ''}`)
}
const [full, diff, pay, resend, apply, tenCalls, oneCall] = rows
out.push('')
out.push(`full rewrite / patch_file payload: ${(full.tokens / pay.tokens).toFixed(0)}x tokens (published ${(9002 / 48).toFixed(0)}x)`)
out.push(`diff hunk / patch_file payload: ${(diff.tokens / pay.tokens).toFixed(2)}x tokens (published ${(99 / 48).toFixed(2)}x)`)
out.push(`apply_last_dry_run saves ${resend.tokens - apply.tokens} tokens (${(100 * (1 - apply.tokens / resend.tokens)).toFixed(0)}%) over resending`)
out.push(`one multi-edit call saves ${tenCalls.tokens - oneCall.tokens} tokens (${(100 * (1 - oneCall.tokens / tenCalls.tokens)).toFixed(0)}%) over ten calls`)
process.stdout.write(out.join('\n') + '\n')

if (jsonOut) {
  fs.mkdirSync(path.dirname(jsonOut), { recursive: true })
  fs.writeFileSync(
    jsonOut,
    JSON.stringify({ encoding: 'o200k_base', fixture, rows: rows.map(({ text, ...r }) => r) }, null, 2) + '\n',
  )
}
