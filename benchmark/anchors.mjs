#!/usr/bin/env node
// Hash-anchored line edits (editLines) measured on this repository's own
// history, as the replay bench (core/tests/replay/) uses it:
//
// 1. Landing: every hunk of every modified text file of the last N commits
//    (`git diff -U0`), expressed as an anchored edit against a read with
//    anchors of the file before the commit; each file's hunks are one
//    editLines call, which must write the committed file byte for byte.
//    Files with mixed line endings and hunks that change the final newline
//    are set aside (counted).
// 2. Output tokens (o200k_base) of each hunk's call arguments: edit_lines
//    next to patch_file (search/replace with the least context that makes
//    the block unique, as the replay's agent edits) and apply_patch (a Codex
//    patch with that same context).
// 3. Stale and shifted anchors: read, then the file changes behind the
//    caller's back (lines inserted elsewhere: the anchored lines only
//    moved; or the anchored line itself edited), then the edit. With the
//    read's snapshot, and without one (the anchors of a read made
//    elsewhere: checked at their line numbers only).
// 4. A read with anchors against a plain read of the same file: time and
//    tokens per line.
//
//   node benchmark/anchors.mjs [--commits N] [--json FILE] [--only read] [--rounds N]
//
// --only read: part 4 alone (a few seconds). --rounds: rounds of the read timing (9), each giving one ratio
// of the same readFile call with and without `anchors: true`; the median ratio and the spread are reported.

import { STATE_DIR } from './private-state.mjs'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { encode } from 'gpt-tokenizer/encoding/o200k_base'

const require = createRequire(import.meta.url)
const api = require('../index.js')
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const args = process.argv.slice(2)
const opt = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt)
const COMMITS = Number(opt('--commits', 200))
const jsonOut = opt('--json', null)
const ONLY = opt('--only', null)
const TEXT = /\.(rs|js|mjs|cjs|ts|mts|json|md|toml|yml|yaml|sh|txt)$/
const tokens = (s) => encode(s).length
const git = (...a) => execFileSync('git', ['-C', REPO, ...a], { encoding: 'utf8', maxBuffer: 64 << 20 })
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length ? (s.length % 2 ? s[(s.length - 1) >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN
}
void STATE_DIR

/** The hunks of `git diff -U0` for one file: { a, b, old: [...], new: [...], eofChange }. */
function hunksOf(commit, file) {
  const out = []
  let cur = null
  for (const line of git('diff', '-U0', '--no-color', `${commit}^`, commit, '--', file).split('\n')) {
    const m = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line)
    if (m) {
      cur = { a: Number(m[1]), b: m[2] === undefined ? 1 : Number(m[2]), old: [], new: [], eofChange: false }
      out.push(cur)
    } else if (cur && line.startsWith('-') && !line.startsWith('---')) cur.old.push(line.slice(1))
    else if (cur && line.startsWith('+') && !line.startsWith('+++')) cur.new.push(line.slice(1))
    else if (cur && line.startsWith('\\')) cur.eofChange = true
  }
  return out
}

const split = (t) => t.split('\n').slice(0, t.endsWith('\n') ? -1 : undefined)

/** The `lines` field as sent: a string, an array when a line break could not say it, null for none. */
function linesField(lines) {
  if (lines.length === 0) return null
  if (lines[lines.length - 1] === '' || lines.some((l) => l.includes('\r'))) return lines
  return lines.join('\n')
}

/**
 * The anchored edit for a hunk, from the anchors `tags` (by 0-based line) of the old file, in its cheapest form, the
 * one the tool's description teaches: no `op` for a replace (the default), no `end` for one line.
 */
function anchoredEdit(h, tags) {
  if (h.b > 0) {
    const e = { pos: tags[h.a - 1] }
    if (h.b > 1) e.end = tags[h.a + h.b - 2]
    e.lines = linesField(h.new)
    return e
  }
  if (h.a === 0) return tags.length ? { op: 'prepend', pos: tags[0], lines: linesField(h.new) } : { op: 'append', lines: linesField(h.new) }
  return { op: 'append', pos: tags[h.a - 1], lines: linesField(h.new) }
}

/** The least context around old lines [s, e) (0-based) that makes the block unique in `old` (at most 8 lines each side). */
function uniqueBlock(oldLines, s, e) {
  const text = oldLines.join('\n')
  const count = (needle) => text.split(needle).length - 1
  for (let c = 0; c <= 8; c++) {
    const from = Math.max(0, s - c)
    const to = Math.min(oldLines.length, e + c)
    if (to === from) continue
    const block = oldLines.slice(from, to).join('\n')
    if (block && count(block) === 1) return { from, to }
  }
  return null
}

/** patch_file and apply_patch arguments for a hunk, or null when no context makes it unique. */
function searchReplace(file, oldLines, h) {
  const s = h.b > 0 ? h.a - 1 : h.a
  const e = h.b > 0 ? h.a - 1 + h.b : h.a
  const u = uniqueBlock(oldLines, s, e)
  if (!u) return null
  const before = oldLines.slice(u.from, s)
  const after = oldLines.slice(e, u.to)
  const search = [...before, ...h.old, ...after].join('\n')
  const replace = [...before, ...h.new, ...after].join('\n')
  const patch = [
    '*** Begin Patch',
    `*** Update File: ${file}`,
    '@@',
    ...before.map((l) => ` ${l}`),
    ...h.old.map((l) => `-${l}`),
    ...h.new.map((l) => `+${l}`),
    ...after.map((l) => ` ${l}`),
    '*** End Patch',
  ].join('\n')
  return {
    patch_file: { file_path: file, search_block: search, replace_block: replace },
    apply_patch: { input: patch },
  }
}

const OPTS = (root) => ({ workspaceRoot: root, durable: false, journal: false })

async function tagsOf(root, file) {
  const r = await api.readFile({ file_path: file, anchors: true }, OPTS(root))
  if (!r.ok) throw new Error(JSON.stringify(r))
  return r.content.split('\n').filter((l, i, a) => i < a.length - 1 || l !== '').map((l) => l.slice(0, l.indexOf('|')))
}

function mixed(t) {
  const crlf = (t.match(/\r\n/g) || []).length
  const lf = (t.match(/\n/g) || []).length
  return crlf > 0 && crlf < lf
}

async function main() {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pft-anchors-')))
  if (ONLY === 'read') {
    const report = { read: await readCost(root) }
    console.log(JSON.stringify(report, null, 2))
    if (jsonOut) fs.writeFileSync(jsonOut, JSON.stringify(report, null, 2) + '\n')
    fs.rmSync(root, { recursive: true, force: true })
    return
  }
  const commits = git('log', '--no-merges', '--format=%H', '-n', String(COMMITS)).trim().split('\n').filter(Boolean)
  const land = { files: 0, hunks: 0, landed: 0, wrong: 0, refused: 0, asideMixed: 0, asideEof: 0 }
  const ratios = []
  const ratiosBig = []
  const perCall = { edit_lines: [], patch_file: [], apply_patch: [] }
  const stale = { snapshot: { moved: [0, 0, 0], changed: [0, 0, 0] }, none: { moved: [0, 0, 0], changed: [0, 0, 0] } } // [right, refused, wrong]
  let k = 0
  for (const c of commits) {
    let list
    try {
      list = git('diff-tree', '-r', '--no-commit-id', '--name-status', c).trim().split('\n').filter(Boolean)
    } catch {
      continue
    }
    for (const row of list) {
      const [status, file] = row.split('\t')
      if (status !== 'M' || !TEXT.test(file)) continue
      let oldText, newText
      try {
        oldText = git('show', `${c}^:${file}`)
        newText = git('show', `${c}:${file}`)
      } catch {
        continue
      }
      if (oldText.length > 512 << 10 || newText.length > 512 << 10) continue
      const hunks = hunksOf(c, file)
      if (!hunks.length) continue
      if (mixed(oldText)) {
        land.asideMixed += hunks.length
        continue
      }
      if (hunks.some((h) => h.eofChange)) {
        land.asideEof += hunks.length
        continue
      }
      const name = `f${k++}${path.extname(file)}`
      fs.writeFileSync(path.join(root, name), oldText)
      const tags = await tagsOf(root, name)
      const edits = hunks.map((h) => anchoredEdit(h, tags))
      land.files++
      land.hunks += hunks.length
      const r = await api.editLines({ file_path: name, edits }, OPTS(root))
      const got = fs.readFileSync(path.join(root, name), 'utf8')
      if (!r.ok) land.refused += hunks.length
      else if (got === newText) land.landed += hunks.length
      else land.wrong += hunks.length
      // Tokens per hunk, each as one call.
      const oldLines = split(oldText.replace(/\r\n/g, '\n'))
      hunks.forEach((h, i) => {
        const sr = searchReplace(name, oldLines, h)
        if (!sr) return
        const el = tokens(JSON.stringify({ file_path: name, edits: [edits[i]] }))
        const pf = tokens(JSON.stringify(sr.patch_file))
        const ap = tokens(JSON.stringify(sr.apply_patch))
        perCall.edit_lines.push(el)
        perCall.patch_file.push(pf)
        perCall.apply_patch.push(ap)
        ratios.push(el / pf)
        if (h.b >= 3) ratiosBig.push(el / pf)
      })
      // Stale and shifted: the first replace hunk of the file.
      const h = hunks.find((x) => x.b > 0)
      if (h) await staleCase(root, name, oldText, h, tags, stale)
    }
  }
  const timing = await readCost(root)
  const report = {
    commits: commits.length,
    landing: land,
    tokens: {
      hunks: ratios.length,
      median_edit_lines: median(perCall.edit_lines),
      median_patch_file: median(perCall.patch_file),
      median_apply_patch: median(perCall.apply_patch),
      median_ratio_vs_patch_file: median(ratios),
      median_ratio_vs_patch_file_3_plus_lines: median(ratiosBig),
      hunks_3_plus_lines: ratiosBig.length,
    },
    stale: {
      snapshot: { moved: named(stale.snapshot.moved), changed: named(stale.snapshot.changed) },
      without_snapshot: { moved: named(stale.none.moved), changed: named(stale.none.changed) },
    },
    read: timing,
  }
  console.log(JSON.stringify(report, null, 2))
  if (jsonOut) fs.writeFileSync(jsonOut, JSON.stringify(report, null, 2) + '\n')
  fs.rmSync(root, { recursive: true, force: true })
}

const named = ([right, refused, wrong]) => ({ right, refused, wrong, total: right + refused + wrong })

/**
 * One hunk `h` of file `name` (holding `oldText`, read with anchors `tags`): the file changes behind the caller's
 * back, then the anchored edit. `moved`: 3 lines inserted at a place outside the hunk (the anchored lines only
 * moved; the edit must land where they went). `changed`: the hunk's first line edited (the edit must be refused).
 * With the snapshot of the read, and with the anchors of a read of a copy (no snapshot of this path).
 */
async function staleCase(root, name, oldText, h, tags, stale) {
  const eol = oldText.includes('\r\n') ? '\r\n' : '\n'
  const lines = oldText.split(eol)
  const trailing = lines[lines.length - 1] === ''
  const body = trailing ? lines.slice(0, -1) : lines
  const s = h.a - 1
  const e = s + h.b
  // Insert above the hunk when there is room, else below it.
  const at = s > 0 ? Math.floor(s / 2) : Math.min(body.length, e + 1)
  const extra = ['/* inserted 1 */', '/* inserted 2 */', '/* inserted 3 */']
  const join = (ls) => ls.join(eol) + (trailing ? eol : '')
  const shifted = [...body.slice(0, at), ...extra, ...body.slice(at)]
  const off = at <= s ? extra.length : 0
  const expected = [...shifted.slice(0, s + off), ...h.new, ...shifted.slice(e + off)]
  const changedBody = body.map((l, i) => (i === s ? `${l} /* changed */` : l))
  const edit = { pos: tags[s], ...(h.b > 1 ? { end: tags[e - 1] } : {}), lines: linesField(h.new) }
  for (const mode of ['snapshot', 'none']) {
    for (const kind of ['moved', 'changed']) {
      const file = `${name}.${mode}.${kind}`
      fs.writeFileSync(path.join(root, file), oldText)
      let anchors = tags
      if (mode === 'snapshot') anchors = await tagsOf(root, file)
      const ed = { ...edit, pos: anchors[s], ...(h.b > 1 ? { end: anchors[e - 1] } : {}) }
      fs.writeFileSync(path.join(root, file), join(kind === 'moved' ? shifted : changedBody))
      const r = await api.editLines({ file_path: file, edits: [ed] }, OPTS(root))
      const got = fs.readFileSync(path.join(root, file), 'utf8')
      const tally = stale[mode][kind]
      if (!r.ok) tally[1]++
      else if (kind === 'moved' && got === join(expected)) tally[0]++
      else tally[2]++
    }
  }
}

/** A read with anchors against a plain read: time (the median of the rounds' ratios, and their spread) and tokens per line. */
async function readCost(root) {
  const lines = []
  for (let i = 0; i < 2000; i++) lines.push(i % 7 === 0 ? '}' : `    const value${i} = compute(${i}, "text ${i % 13}");`)
  const text = lines.join('\n') + '\n'
  fs.writeFileSync(path.join(root, 'read.ts'), text)
  // Plain and anchored reads alternate (which of the two goes first alternates too), so that a load that comes and
  // goes on the machine weighs on both alike. Each round gives one ratio; the figures are the median of the rounds'
  // ratios and their spread (lowest, highest), all from this one run.
  const PLAIN = { file_path: 'read.ts' }
  const ANCHORS = { file_path: 'read.ts', anchors: true }
  const once = async (input) => {
    const t0 = process.hrtime.bigint()
    await api.readFile(input, OPTS(root))
    return Number(process.hrtime.bigint() - t0) / 1e6
  }
  /** `rounds` rounds of `n` pairs; `before(k, i)` runs untimed before each read. */
  const rounds = async (count, n, before) => {
    const out = { plain: [], anchors: [], ratio: [] }
    for (let r = 0; r < count; r++) {
      const t = { plain: [], anchors: [] }
      for (let i = 0; i < n; i++) {
        for (const k of i % 2 ? ['anchors', 'plain'] : ['plain', 'anchors']) {
          if (before) before(k, r * n + i)
          t[k].push(await once(k === 'plain' ? PLAIN : ANCHORS))
        }
      }
      const p = median(t.plain)
      const a = median(t.anchors)
      out.plain.push(p)
      out.anchors.push(a)
      out.ratio.push(a / p)
    }
    return out
  }
  const ROUNDS = Number(opt('--rounds', 9))
  // The same content again (for an anchored read: the keys come from the snapshot kept of it).
  await rounds(1, 20)
  const again = await rounds(ROUNDS, 100)
  // A first read of each content (for an anchored read: hashing every line, and its snapshot kept in the process and
  // sent to the disk): the file changes before each read, only the read is timed.
  const first = await rounds(ROUNDS, 40, (k, i) => fs.writeFileSync(path.join(root, 'read.ts'), `// ${i} ${k}\n` + text))
  const plain = median(again.plain)
  const anchored = median(again.anchors)
  const plainFirst = median(first.plain)
  const anchoredFirst = median(first.anchors)
  const spread = (xs) => [Math.min(...xs), Math.max(...xs)].map((x) => Number(x.toFixed(3)))
  fs.writeFileSync(path.join(root, 'read.ts'), text)
  const a = (await api.readFile({ file_path: 'read.ts', anchors: true }, OPTS(root))).content
  let realPlain = 0
  let realAnchors = 0
  let realLines = 0
  for (const f of ['core/src/txn/mod.rs', 'js/mcp.js', 'core/src/io/workspace.rs', 'docs/formats.md']) {
    fs.copyFileSync(path.join(REPO, f), path.join(root, 'real'))
    const t = fs.readFileSync(path.join(root, 'real'), 'utf8')
    realPlain += tokens(t)
    realAnchors += tokens((await api.readFile({ file_path: 'real', anchors: true }, OPTS(root))).content)
    realLines += split(t).length
  }
  return {
    real_files_prefix_tokens_per_line: Number(((realAnchors - realPlain) / realLines).toFixed(2)),
    lines: lines.length,
    plain_ms: Number(plain.toFixed(3)),
    anchors_ms: Number(anchored.toFixed(3)),
    rounds: ROUNDS,
    time_ratio: Number(median(again.ratio).toFixed(3)),
    time_ratio_spread: spread(again.ratio),
    first_read_plain_ms: Number(plainFirst.toFixed(3)),
    first_read_anchors_ms: Number(anchoredFirst.toFixed(3)),
    first_read_time_ratio: Number(median(first.ratio).toFixed(3)),
    first_read_time_ratio_spread: spread(first.ratio),
    tokens_plain: tokens(text),
    tokens_anchors: tokens(a),
    prefix_tokens_per_line: Number(((tokens(a) - tokens(text)) / lines.length).toFixed(2)),
  }
}

await main()
