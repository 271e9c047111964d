// Stress workloads: cost bounded by the input's size whatever its shape.
//
//   replace-all   `replace_all` of 1-byte matches (`a` -> `b` over a file of
//                 `a`): peak RSS of a child process doing only that, and time.
//                 Goal: peak <= 2.5 x file size + idle.
//   edits-10k     10,000 edits in one call on a ~100 MiB file, against one
//                 edit on it. Goal: <= 2 x the time of one edit.
//   blocks-10k    the same with 10,000 SEARCH/REPLACE blocks (every other
//                 one deleting its whole line) against one block.
//   hunks-10k     the same with a Codex patch of 10,000 hunks against one.
//   shapes        input shapes whose cost once grew with the square of the
//                 input, each timed at n and 4n lines: a lazy whole-file
//                 write with a marker every 4 lines (too large to align), and
//                 tolerant blocks (`indentation`) re-indented as sent and
//                 with every line changed. Goal: 4n costs at most 4.5x n,
//                 or stays within the engine's budgets (about 0.5 s).
//
// Each measurement runs in its own child process (`node stress.mjs --child
// ...`) so that its peak RSS is its own.

import fs from 'node:fs'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const here = fileURLToPath(import.meta.url)
const MiB = 1 << 20

/** Runs `node stress.mjs --child <job>`; returns its JSON line and peak RSS (KiB, from /usr/bin/time). */
function child(job) {
  const time = fs.existsSync('/usr/bin/time')
  const args = [process.execPath, here, '--child', JSON.stringify(job)]
  const r = time
    ? spawnSync('/usr/bin/time', ['-f', 'peak_rss_kb=%M', ...args], { encoding: 'utf8' })
    : spawnSync(args[0], args.slice(1), { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`stress child failed: ${r.stderr}`)
  const out = JSON.parse(r.stdout.trim().split('\n').pop())
  const m = /peak_rss_kb=(\d+)/.exec(r.stderr || '')
  return { ...out, peak_rss_mib: m ? Number(m[1]) / 1024 : null }
}

async function runChild(job) {
  const api = require('../index.js')
  const opts = { workspaceRoot: job.dir, durable: false, journal: false, maxFileBytes: 4 * 1024 * MiB }
  if (job.kind === 'idle') return {}
  if (job.kind === 'replace-all') {
    const t = process.hrtime.bigint()
    const r = api.patchFileSync({ file_path: job.file, search_block: 'a', replace_block: 'b', replace_all: true }, opts)
    return { ok: r.ok, code: r.code, replacements: r.replacements, ms: Number(process.hrtime.bigint() - t) / 1e6 }
  }
  if (job.kind === 'edits') {
    const edit = (k, to) => ({ search: `marker_${k}_`, replace: `MARKER_${k}${to}_` })
    let t = process.hrtime.bigint()
    let r = api.patchFileSync({ file_path: job.file, edits: [edit(0, 'a')] }, opts)
    const one = Number(process.hrtime.bigint() - t) / 1e6
    if (!r.ok) return { ok: false, code: r.code }
    const edits = Array.from({ length: job.n }, (_, k) => (k === 0 ? { search: 'MARKER_0a_', replace: 'marker_0_' } : edit(k, 'b')))
    t = process.hrtime.bigint()
    r = api.patchFileSync({ file_path: job.file, edits }, opts)
    const many = Number(process.hrtime.bigint() - t) / 1e6
    return { ok: r.ok, code: r.code, one_ms: one, many_ms: many, ratio: many / one }
  }
  if (job.kind === 'blocks') {
    const line = (k) => `marker_${k}_`.padEnd(99, 'y')
    const block = (s, r) => `<<<<<<< SEARCH\n${s}\n=======\n${r === '' ? '' : r + '\n'}>>>>>>> REPLACE\n`
    let t = process.hrtime.bigint()
    let r = await api.applyEditBlocks(`${job.file}\n${block(line(0), 'changed 0')}`, opts)
    const one = Number(process.hrtime.bigint() - t) / 1e6
    if (!r.ok) return { ok: false, code: r.code }
    const blocks = Array.from({ length: job.n }, (_, k) =>
      k === 0 ? block('changed 0', line(0)) : block(line(k), k % 2 === 0 ? '' : `changed ${k}`),
    )
    const doc = `${job.file}\n${blocks.join('')}`
    t = process.hrtime.bigint()
    r = await api.applyEditBlocks(doc, opts)
    const many = Number(process.hrtime.bigint() - t) / 1e6
    return { ok: r.ok, code: r.code, verified: r.verified, one_ms: one, many_ms: many, ratio: many / one }
  }
  if (job.kind === 'hunks') {
    const line = (k) => `marker_${k}_`.padEnd(99, 'y')
    const patch = (hunks) => `*** Begin Patch\n*** Update File: ${job.file}\n${hunks.join('')}*** End Patch\n`
    let t = process.hrtime.bigint()
    let r = await api.applyPatch(patch([`@@\n-${line(0)}\n+changed 0\n`]), opts)
    const one = Number(process.hrtime.bigint() - t) / 1e6
    if (!r.ok) return { ok: false, code: r.code }
    const hunks = Array.from({ length: job.n }, (_, k) => (k === 0 ? `@@\n-changed 0\n+${line(0)}\n` : `@@\n-${line(k)}\n+changed ${k}\n`))
    const doc = patch(hunks)
    t = process.hrtime.bigint()
    r = await api.applyPatch(doc, opts)
    const many = Number(process.hrtime.bigint() - t) / 1e6
    return { ok: r.ok, code: r.code, one_ms: one, many_ms: many, ratio: many / one }
  }
  if (job.kind === 'shape') {
    const n = job.n
    const lines = Array.from({ length: n }, (_, i) => `call_${i}(arg);`)
    fs.writeFileSync(path.join(job.dir, 'a.js'), lines.map((l) => l + '\n').join(''))
    let call
    if (job.shape === 'preview') {
      // A dry run of the whole file rewritten: the preview's line diff.
      const replace = lines.map((l) => l.replace('call_', 'run_') + '\n').join('')
      call = () => api.patchFile({ file_path: 'a.js', search_block: lines.map((l) => l + '\n').join(''), replace_block: replace, dry_run: true }, { ...opts, syntax: 'off' })
    } else if (job.shape === 'stale' || job.shape === 'anchored') {
      // editLines with an anchor on every 8th line: every line changed since
      // the read (each anchor refused), or the file as read (each placed).
      const read = await api.readFile({ file_path: 'a.js', anchors: true }, opts)
      const anchors = read.content.split('\n').filter(Boolean).map((l) => l.split('|')[0])
      if (job.shape === 'stale') fs.writeFileSync(path.join(job.dir, 'a.js'), lines.map((l) => l.replace('arg', 'ARG') + '\n').join(''))
      const edits = anchors.filter((_, i) => i % 8 === 0).map((pos) => ({ pos, lines: 'x();' }))
      call = () => api.editLines({ file_path: 'a.js', edits }, { ...opts, syntax: 'off' })
    } else if (job.shape === 'markers') {
      const lazy = []
      for (let i = 0; i < n; i += 4) lazy.push('// ... existing code ...', `call_${i + 3}(arg);`, `other_${i}();`)
      call = () => api.writeFile({ file_path: 'a.js', content: lazy.join('\n') + '\n' }, { ...opts, syntax: 'off' })
    } else {
      const search = lines.map((l) => '    ' + l + '\n').join('')
      const replace = job.shape === 'reindent' ? search : lines.map((l) => '    ' + l.replace('arg', 'arg2') + '\n').join('')
      call = () => api.patchFileSync({ file_path: 'a.js', search_block: search, replace_block: replace, match: ['indentation'] }, { ...opts, syntax: 'off' })
    }
    const t = process.hrtime.bigint()
    const r = await call()
    return { ok: r.ok, code: r.code, ms: Number(process.hrtime.bigint() - t) / 1e6 }
  }
  throw new Error(`unknown job ${job.kind}`)
}

/** Input shapes that once cost the square of their size, each at `n` and `4n` lines. */
export function shapesWorkload(workDir, n) {
  const dir = path.join(workDir, 'stress-sh')
  fs.mkdirSync(dir, { recursive: true })
  const rows = []
  for (const shape of ['markers', 'reindent', 'rewrite', 'preview', 'stale', 'anchored']) {
    const a = child({ kind: 'shape', dir, shape, n })
    const b = child({ kind: 'shape', dir, shape, n: 4 * n })
    rows.push({ shape, n, small: a, large: b, ratio: b.ms / a.ms })
  }
  return { name: `Input shapes at ${n.toLocaleString('en')} and ${(4 * n).toLocaleString('en')} lines`, key: 'shapes', rows }
}

/** A file of `mib` MiB of `a`, written without holding it in memory. */
function fileOfA(dir, mib) {
  const f = path.join(dir, `a-${mib}.txt`)
  const fd = fs.openSync(f, 'w')
  const chunk = Buffer.alloc(MiB, 0x61)
  for (let i = 0; i < mib; i++) fs.writeSync(fd, chunk)
  fs.closeSync(fd)
  return path.basename(f)
}

/** ~`mib` MiB of 100-byte lines with `n` unique markers spread through it. */
function fileWithMarkers(dir, mib, n) {
  const f = path.join(dir, `m-${mib}.txt`)
  const lines = Math.floor((mib * MiB) / 100)
  const every = Math.floor(lines / n)
  const fd = fs.openSync(f, 'w')
  let buf = []
  for (let i = 0; i < lines; i++) {
    buf.push(i % every === 0 && i / every < n ? `marker_${i / every}_`.padEnd(99, 'y') + '\n' : 'x'.repeat(90) + String(i).padStart(9, '0') + '\n')
    if (buf.length === 10000) {
      fs.writeSync(fd, buf.join(''))
      buf = []
    }
  }
  fs.writeSync(fd, buf.join(''))
  fs.closeSync(fd)
  return path.basename(f)
}

/** The replace-all workload over files of `sizes` MiB. */
export function replaceAllWorkload(workDir, sizes) {
  const dir = path.join(workDir, 'stress-ra')
  fs.mkdirSync(dir, { recursive: true })
  const idle = child({ kind: 'idle', dir }).peak_rss_mib
  const rows = []
  for (const mib of sizes) {
    const file = fileOfA(dir, mib)
    const r = child({ kind: 'replace-all', dir, file })
    fs.rmSync(path.join(dir, file))
    const over = r.peak_rss_mib == null ? null : r.peak_rss_mib - idle
    rows.push({ mib, ...r, over_idle_mib: over, over_idle_x_file: over == null ? null : over / mib })
  }
  return { name: 'replace_all of 1-byte matches: peak RSS (child process) and time', key: 'replace-all', idle_rss_mib: idle, rows }
}

/** The edits workload: `n` edits in one call on a ~`mib` MiB file vs one edit. */
export function editsWorkload(workDir, mib, n) {
  const dir = path.join(workDir, 'stress-ed')
  fs.mkdirSync(dir, { recursive: true })
  const file = fileWithMarkers(dir, mib, n)
  const r = child({ kind: 'edits', dir, file, n })
  return { name: `${n.toLocaleString('en')} edits in one call on a ${mib} MiB file vs one edit`, key: 'edits-many', mib, n, ...r }
}

/** The blocks workload: `n` SEARCH/REPLACE blocks in one call vs one block. */
export function blocksWorkload(workDir, mib, n) {
  const dir = path.join(workDir, 'stress-bl')
  fs.mkdirSync(dir, { recursive: true })
  const file = fileWithMarkers(dir, mib, n)
  const r = child({ kind: 'blocks', dir, file, n })
  return { name: `${n.toLocaleString('en')} SEARCH/REPLACE blocks in one call on a ${mib} MiB file vs one block`, key: 'blocks-many', mib, n, ...r }
}

/** The hunks workload: a Codex patch of `n` hunks in one call vs one hunk. */
export function hunksWorkload(workDir, mib, n) {
  const dir = path.join(workDir, 'stress-hu')
  fs.mkdirSync(dir, { recursive: true })
  const file = fileWithMarkers(dir, mib, n)
  const r = child({ kind: 'hunks', dir, file, n })
  return { name: `A Codex patch of ${n.toLocaleString('en')} hunks on a ${mib} MiB file vs one hunk`, key: 'hunks-many', mib, n, ...r }
}

export function stressLines(w) {
  const f = (x, d = 1) => (x == null ? '' : x.toFixed(d))
  if (w.key === 'shapes') {
    return [
      ['shape', 'n ms', '4n ms', '4n / n', 'answers'].join(' | '),
      ...w.rows.map((r) => [r.shape, f(r.small.ms, 0), f(r.large.ms, 0), `${f(r.ratio, 2)}x`, `${r.small.ok ? 'ok' : r.small.code}, ${r.large.ok ? 'ok' : r.large.code}`].join(' | ')),
    ]
  }
  if (w.key === 'replace-all') {
    return [
      `idle child: ${f(w.idle_rss_mib)} MiB (goal: peak <= 2.5 x file + idle)`,
      ['file MiB', 'replacements', 'ms', 'peak MiB', 'over idle MiB', 'over idle / file'].join(' | '),
      ...w.rows.map((r) => [r.mib, r.replacements, f(r.ms, 0), f(r.peak_rss_mib), f(r.over_idle_mib), `${f(r.over_idle_x_file, 2)}x`].join(' | ')),
    ]
  }
  const what = { 'blocks-many': 'block', 'hunks-many': 'hunk' }[w.key] ?? 'edit'
  return [`one ${what} ${f(w.one_ms, 0)} ms, ${w.n} ${what}s ${f(w.many_ms, 0)} ms: ${f(w.ratio, 2)}x (goal <= 2x); peak ${f(w.peak_rss_mib)} MiB; ok: ${w.ok}`]
}

if (process.argv[2] === '--child') {
  const out = await runChild(JSON.parse(process.argv[3]))
  process.stdout.write(JSON.stringify(out) + '\n')
}
