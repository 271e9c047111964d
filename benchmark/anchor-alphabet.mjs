#!/usr/bin/env node
// The 16 letters of the anchors' IDs (`LINE#ID|`, docs/formats.md), chosen
// for what a read with anchors costs in tokens (o200k_base).
//
// o200k_base's pre-tokenizer cuts `42#ab|  code` into `42`, `#ab`, `|` and
// the line: the number and the bar cost what they cost whatever the
// letters, so the letters only decide how many tokens `#` and the ID are.
// An ID's cost is measured in place (`7#ab|x` against `7|x`); an alphabet
// costs the mean over its 256 IDs (hashes spread lines evenly over them).
// Mixed case is allowed but two letters may not differ only in case (an
// anchor is read case-insensitively). A local search (swaps, from random
// starts with a fixed seed) finds the least mean; then each alphabet
// compared is applied to real files, with the IDs computed here from the
// documented hash (checked against the engine's on the way), and the
// prefix is measured as benchmark/anchors.mjs measures it: the tokens of the
// anchored text minus those of the plain text, per line.
//
//   node benchmark/anchor-alphabet.mjs [--restarts N]

import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { encode } from 'gpt-tokenizer/encoding/o200k_base'
import { STATE_DIR } from './private-state.mjs'

void STATE_DIR
const require = createRequire(import.meta.url)
const api = require('../index.js')
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const args = process.argv.slice(2)
const RESTARTS = Number(args.includes('--restarts') ? args[args.indexOf('--restarts') + 1] : 300)
const FILES = ['core/src/txn/mod.rs', 'js/mcp.js', 'core/src/io/workspace.rs', 'docs/formats.md']

const LETTERS = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz']
const N = LETTERS.length
const base = encode('7|x').length
const cost = LETTERS.map((a) => LETTERS.map((b) => encode(`7#${a}${b}|x`).length - base))

const meanOf = (set) => {
  let sum = 0
  for (const i of set) for (const j of set) sum += cost[i][j]
  return sum / (set.length * set.length)
}
const fold = (i) => LETTERS[i].toLowerCase()
const fits = (set) => new Set(set.map(fold)).size === set.length
const name = (set) => set.map((i) => LETTERS[i]).join('')
const of = (s) => [...s].map((c) => LETTERS.indexOf(c))

// A fixed-seed generator (mulberry32), so that every run searches alike.
let seed = 0x5eed
const random = () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

function search() {
  let best = null
  const optimal = new Set()
  for (let r = 0; r < RESTARTS; r++) {
    const set = []
    while (set.length < 16) {
      const i = Math.floor(random() * N)
      if (!set.some((j) => fold(j) === fold(i))) set.push(i)
    }
    let m = meanOf(set)
    for (let improved = true; improved; ) {
      improved = false
      for (let k = 0; k < 16; k++) {
        for (let i = 0; i < N; i++) {
          if (set.includes(i)) continue
          const t = [...set]
          t[k] = i
          if (!fits(t)) continue
          const mt = meanOf(t)
          if (mt < m) {
            set.splice(0, 16, ...t)
            m = mt
            improved = true
          }
        }
      }
    }
    const sorted = [...set].sort((a, b) => a - b)
    if (!best || m < best.mean) {
      best = { mean: m, set: sorted }
      optimal.clear()
    }
    if (m === best.mean) optimal.add(name(sorted))
  }
  return { ...best, optimal: [...optimal] }
}

/** The key of a line (docs/formats.md; `line_key` in core/src/matching/anchors.rs): a folded multiply, 16 bytes a step. */
function lineKey(bytes) {
  const M = (1n << 64n) - 1n
  const SEED = 0x2d358dccaa6c78a5n
  const MIX_A = 0x8bb84b93962eacc9n
  const MIX_B = 0x4b33a62ed433d4a3n
  const fold = (a, b) => {
    const r = a * b
    return (r & M) ^ (r >> 64n)
  }
  const n = bytes.length
  const len = BigInt(n)
  const word = (i) => bytes.readBigUInt64LE(i)
  const half = (i) => BigInt(bytes.readUInt32LE(i))
  let seed = SEED ^ len
  let a = 0n
  let b = 0n
  if (n >= 1 && n <= 3) a = (BigInt(bytes[0]) << 16n) | (BigInt(bytes[n >> 1]) << 8n) | BigInt(bytes[n - 1])
  else if (n >= 4 && n <= 7) [a, b] = [half(0), half(n - 4)]
  else if (n >= 8 && n <= 16) [a, b] = [word(0), word(n - 8)]
  else if (n > 16) {
    let i = 0
    for (; n - i > 16; i += 16) seed = fold(word(i) ^ MIX_A, word(i + 8) ^ seed)
    ;[a, b] = [word(n - 16), word(n - 8)]
  }
  return fold(fold(a ^ MIX_A, b ^ seed) ^ MIX_B, MIX_A ^ len)
}

/** The top byte of each line's key, for the text `t` (lines without their breaks; a final break ends the last line). */
function topBytes(t) {
  const lines = t.split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  return lines.map((l) => Number(lineKey(Buffer.from(l.endsWith('\r') ? l.slice(0, -1) : l)) >> 56n))
}

async function realFiles() {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pft-alphabet-')))
  const files = []
  try {
    for (const f of FILES) {
      const text = fs.readFileSync(path.join(REPO, f), 'utf8')
      const tops = topBytes(text)
      // The engine's IDs are these bytes in its alphabet.
      fs.writeFileSync(path.join(root, 'f'), text)
      const r = await api.readFile({ file_path: 'f', anchors: true }, { workspaceRoot: root, journal: false })
      const ids = r.content.split('\n').filter((l) => /^\d+#/.test(l)).map((l) => l.slice(l.indexOf('#') + 1, l.indexOf('|')))
      files.push({ text, tops, engineIds: ids })
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true })
  }
  return files
}

function prefixPerLine(files, alphabet) {
  let plain = 0
  let tagged = 0
  let lines = 0
  for (const { text, tops } of files) {
    const rows = text.split('\n')
    const last = rows[rows.length - 1] === '' ? rows.length - 1 : rows.length
    const out = rows.map((l, i) => (i < last ? `${i + 1}#${alphabet[tops[i] >> 4]}${alphabet[tops[i] & 15]}|${l}` : l))
    plain += encode(text).length
    tagged += encode(out.join('\n')).length
    lines += last
  }
  return (tagged - plain) / lines
}

const found = search()
const CURRENT = 'abcdefghijklmnop'
const files = await realFiles()
const checked = files.every(({ tops, engineIds }) =>
  tops.every((b, i) => engineIds[i] === CURRENT[b >> 4] + CURRENT[b & 15]),
)
const rows = [
  ['the engine (first 16 lowercase letters)', CURRENT],
  ['found by the search', name(found.set)],
  ['before (uppercase, chosen by hand)', 'ZPMQVRWSNKTXJBYH'],
  ['first 16 uppercase letters', 'ABCDEFGHIJKLMNOP'],
]
const oneToken = (s) => {
  const set = of(s)
  let n = 0
  for (const i of set) for (const j of set) n += cost[i][j] === 1 ? 1 : 0
  return n
}
const report = {
  restarts: RESTARTS,
  least_mean_tokens_of_hash_and_id: found.mean,
  optimal_alphabets_found: found.optimal.length,
  hash_checked_against_engine: checked,
  alphabets: rows.map(([what, a]) => ({
    what,
    alphabet: a,
    mean_tokens_of_hash_and_id: meanOf(of(a)),
    ids_of_one_token: oneToken(a),
    ids_of_three_tokens: of(a).flatMap((i) => of(a).map((j) => cost[i][j])).filter((c) => c >= 3).length,
    real_files_prefix_tokens_per_line: Number(prefixPerLine(files, a).toFixed(3)),
  })),
}
console.log(JSON.stringify(report, null, 2))
if (!checked) process.exitCode = 1
