// Deterministic workload generators for the benchmarks and the token counts.
//
// Everything here is a pure function of a seed: the same run on any machine
// produces byte-identical files, so figures from different machines compare
// the same work. The generated text is TypeScript-shaped and ASCII-only:
// ASCII is the best case for JS engines (V8 keeps one-byte strings), so the
// comparison is never tilted against them.

import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

/** mulberry32: a small, fast, seedable PRNG (not for security). */
export function rng(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const WORDS = [
  'user', 'account', 'order', 'item', 'config', 'retry', 'token', 'session', 'cache', 'queue', 'event', 'handler',
  'request', 'response', 'payload', 'limit', 'offset', 'cursor', 'result', 'error', 'status', 'record', 'batch',
  'schema', 'field', 'value', 'index', 'count', 'timeout', 'client', 'server', 'route', 'path', 'query', 'filter',
]
const TYPES = ['string', 'number', 'boolean', 'Date', 'string[]', 'Record<string, number>', 'unknown']

function cap(s) {
  return s[0].toUpperCase() + s.slice(1)
}

/**
 * Yields TypeScript-shaped source in blocks (arrays of lines). Block `k`
 * embeds `k` in its identifiers, so lines are mostly unique across a file,
 * as in real code, while short lines (`}`, `return result`) repeat.
 */
export function* tsBlocks(seed) {
  const r = rng(seed)
  const pick = (xs) => xs[Math.floor(r() * xs.length)]
  const name = () => pick(WORDS) + cap(pick(WORDS))
  for (let k = 0; ; k++) {
    const kind = Math.floor(r() * 4)
    const a = name()
    const b = name()
    if (kind === 0) {
      yield [
        `export interface ${cap(a)}${k} {`,
        `  id: string`,
        `  ${b}: ${pick(TYPES)}`,
        `  ${name()}?: ${pick(TYPES)}`,
        `  updatedAt: Date`,
        `}`,
        ``,
      ]
    } else if (kind === 1) {
      yield [
        `/** Returns the ${a} for a ${b} (block ${k}). */`,
        `export function get${cap(a)}${k}(${b}: ${cap(b)}, limit = ${Math.floor(r() * 100)}): ${cap(a)} | undefined {`,
        `  if (!${b}) return undefined`,
        `  const found = ${b}.items.filter((x) => x.${name()} > limit)`,
        `  return found.length > 0 ? toResult(found[0]) : undefined`,
        `}`,
        ``,
      ]
    } else if (kind === 2) {
      yield [
        `export class ${cap(a)}Service${k} {`,
        `  private readonly ${b} = new Map<string, number>()`,
        ``,
        `  async load(id: string): Promise<number> {`,
        `    const cached = this.${b}.get(id)`,
        `    if (cached !== undefined) return cached`,
        `    const value = await fetch${cap(b)}(id, { timeout: ${Math.floor(r() * 9000) + 1000} })`,
        `    this.${b}.set(id, value)`,
        `    return value`,
        `  }`,
        `}`,
        ``,
      ]
    } else {
      yield [
        `const ${a}${k}Defaults = {`,
        `  ${b}: ${Math.floor(r() * 1000)},`,
        `  enabled: ${r() < 0.5},`,
        `  label: '${a}-${k}',`,
        `} as const`,
        ``,
      ]
    }
  }
}

/** The first `n` lines of the TypeScript stream for `seed`, `\n`-terminated. */
export function tsLines(n, seed) {
  const out = []
  const header = [`// Generated benchmark fixture (seed ${seed}).`, `import { toResult } from './result'`, ``]
  out.push(...header)
  for (const block of tsBlocks(seed)) {
    for (const l of block) {
      out.push(l)
      if (out.length === n) return out
    }
  }
  return out
}

export function tsFile(n, seed) {
  return tsLines(n, seed).join('\n') + '\n'
}

/** Number of non-overlapping occurrences of `needle` in `hay` (string or Buffer). */
export function countOf(hay, needle) {
  let n = 0
  for (let i = hay.indexOf(needle); i !== -1; i = hay.indexOf(needle, i + needle.length)) n++
  return n
}

/**
 * A toggling edit: `a` and `b` differ, each occurs at most once in the file,
 * and exactly one of them is present at any time. Each call to `next()`
 * returns the edit that flips the current state, so repeated runs do the same
 * work without resetting the file.
 */
export class Toggle {
  constructor(pairs) {
    this.pairs = pairs // [{ a, b }]
    this.state = 'a'
  }
  next() {
    const fwd = this.state === 'a'
    return this.pairs.map(({ a, b }) => (fwd ? { search: a, replace: b } : { search: b, replace: a }))
  }
  flip() {
    this.state = this.state === 'a' ? 'b' : 'a'
  }
}

/**
 * The 1,000-line TypeScript fixture with its one-line edit at the first line
 * from 500 on that has a value to change. Returns { text, edit: { a, b }, line, lines }.
 */
export function smallTs(seed = 1000) {
  const lines = tsLines(1000, seed)
  // The first line from 500 on that holds a number and is unique (the
  // smallest exact block an agent would send); the edit changes that number
  // (a typical one-value fix).
  const text = lines.join('\n') + '\n'
  for (let i = 499; i < 560; i++) {
    const m = /\d+(?!.*\d)/.exec(lines[i])
    if (!m) continue
    const a = lines[i]
    if (countOf(text, a) !== 1) continue
    const b = lines[i].slice(0, m.index) + String(Number(m[0]) + 1) + lines[i].slice(m.index + m[0].length)
    if (countOf(text, b) !== 0) continue
    return { text, edit: { a, b }, line: i + 1, lines }
  }
  throw new Error('no unique block near line 500')
}

/**
 * Writes a big file of `bytes` (approximately) with markers for the edit,
 * not-found and ambiguous workloads, streaming so generation uses little memory.
 * Returns { size, edit: {a,b}, missing, ambiguous }.
 */
export function writeBigFile(file, bytes, seed) {
  const fd = fs.openSync(file, 'w')
  let size = 0
  const editAt = Math.floor(bytes * 0.99)
  const dupAt = [Math.floor(bytes * 0.1), Math.floor(bytes * 0.98)]
  const marker = (i) => [
    `export function reconcileLedger${i}(ledger: Ledger): number {`,
    `  const drift = ledger.entries.reduce((sum, e) => sum + e.amount, 0)`,
    `  return Math.abs(drift) < EPSILON ? 0 : drift`,
    `}`,
    ``,
  ]
  const edit = {
    a: `  const threshold = computeThreshold(ledger, { mode: 'strict' })\n  return threshold * 2\n`,
    b: `  const threshold = computeThreshold(ledger, { mode: 'sloppy' })\n  return threshold * 3\n`,
  }
  const ambiguous = `  const duplicate = sharedHelper(input, { retries: 3 })\n`
  // A near miss: the first line exists (in the edit block), the second differs.
  const missing = `  const threshold = computeThreshold(ledger, { mode: 'strict' })\n  return threshold * 4\n`
  let placed = { edit: false, dup: 0 }
  let chunk = []
  let chunkLen = 0
  const flush = () => {
    const buf = Buffer.from(chunk.join(''), 'utf8')
    fs.writeSync(fd, buf)
    size += buf.length
    chunk = []
    chunkLen = 0
  }
  for (const block of tsBlocks(seed)) {
    const at = size + chunkLen
    let s = block.join('\n') + '\n'
    if (!placed.edit && at >= editAt) {
      s += marker('Edit').join('\n') + '\n' + `export function applyThreshold(ledger: Ledger): number {\n${edit.a}}\n\n`
      placed.edit = true
    }
    if (placed.dup < dupAt.length && at >= dupAt[placed.dup]) {
      s += `export function shared${placed.dup}(input: Input): Output {\n${ambiguous}  return duplicate\n}\n\n`
      placed.dup++
    }
    chunk.push(s)
    chunkLen += s.length
    if (chunkLen >= 1 << 20) flush()
    if (at >= bytes && placed.edit && placed.dup === dupAt.length) break
  }
  flush()
  fs.closeSync(fd)
  return { size, edit, missing, ambiguous }
}

/**
 * Writes `count` small TypeScript files (each `lines` lines, distinct seeds)
 * under `dir` and returns their relative paths and a toggle per file.
 */
export function writeManyFiles(dir, count, lines = 200) {
  fs.mkdirSync(dir, { recursive: true })
  const files = []
  for (let i = 0; i < count; i++) {
    const ls = tsLines(lines, 50_000 + i)
    const j = Math.floor(lines / 2)
    ls[j] = `export const moduleVersion${i} = 'v1' // bench edit`
    const rel = path.join(path.basename(dir), `module${String(i).padStart(4, '0')}.ts`)
    fs.writeFileSync(path.join(dir, path.basename(rel)), ls.join('\n') + '\n')
    files.push({
      rel,
      toggle: new Toggle([{ a: `moduleVersion${i} = 'v1'`, b: `moduleVersion${i} = 'v2'` }]),
    })
  }
  return files
}

/**
 * The 10,000-line file and ten unique edits spread through it.
 * Returns { text, pairs: [{a,b}] }.
 */
export function multiEditFile(seed = 10_000) {
  const lines = tsLines(10_000, seed)
  const pairs = []
  for (let e = 0; e < 10; e++) {
    const i = 500 + e * 950
    lines[i] = `  // checkpoint ${e}: keep in sync with the schema`
    pairs.push({ a: `checkpoint ${e}: keep in sync`, b: `checkpoint ${e}: kept in sync` })
  }
  return { text: lines.join('\n') + '\n', pairs }
}

/** The median of numbers. */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

/**
 * Runs `one(mode, i)` `reps` times for each of `modes`, the order rotating
 * rep by rep (so drift in the machine's speed falls on every mode alike);
 * the median of each mode, in ms.
 */
export async function interleaved(modes, reps, one) {
  const t = Object.fromEntries(modes.map((m) => [m, []]))
  for (let i = 0; i < reps; i++) {
    const order = i % 2 ? [...modes].reverse() : modes
    for (const mode of order) {
      const s = process.hrtime.bigint()
      await one(mode, i)
      t[mode].push(Number(process.hrtime.bigint() - s) / 1e6)
    }
  }
  return Object.fromEntries(modes.map((k) => [k, median(t[k])]))
}

/** A fresh work directory under PFT_BENCH_DIR (or the system's temp), removed at exit or on a signal. */
export function benchDir(prefix) {
  const dir = fs.mkdtempSync(path.join(process.env.PFT_BENCH_DIR || os.tmpdir(), prefix))
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }))
  for (const sig of ['SIGINT', 'SIGTERM']) {
    process.on(sig, () => {
      fs.rmSync(dir, { recursive: true, force: true })
      process.exit(130)
    })
  }
  return dir
}
