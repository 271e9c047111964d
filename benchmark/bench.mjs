#!/usr/bin/env node
// `npm run bench`: patch-file-tool against its peers and the hardware's floors.
//
//   node benchmark/bench.mjs            full run (a few minutes)
//   node benchmark/bench.mjs --quick    smaller files, fewer repetitions (< 1 minute)
//   node benchmark/bench.mjs replay     the replay of this repository's (or another's) history (see below)
//   node benchmark/bench.mjs lazy       lazy variants of its real edits: elision markers (see below)
//   node benchmark/bench.mjs syntax     the syntax guard on its real edits (see below)
//   options: --only <workload,...>  --out <file.json>  --no-rss
//   env: PFT_BENCH_DIR=<dir>  where the generated files go (default: os.tmpdir()).
//        PFT_BENCH_COMPARE=<checkout>  also run that (built) checkout, interleaved.
//        Keep it on the filesystem you care about; it is removed afterwards.
//
// Engines run in this process, interleaved round-robin (the order rotates each
// round) so drift of the machine (page cache, writeback, a noisy neighbour)
// spreads over all of them. Each workload is generated deterministically.
// Edits toggle a block between two forms, so repeated runs do the same work
// without resetting the file. Peak RSS is measured in one child process per
// engine and workload. Results: a table on stdout and JSON in
// benchmark/results/.

import './private-state.mjs'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { execFileSync, spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { loadEngine } from './engines.mjs'
import { smallTs, writeBigFile, writeManyFiles, multiEditFile, Toggle, countOf } from './workloads.mjs'
import { lockedWorkload, lockedLines } from './locked.mjs'
import { replaceAllWorkload, editsWorkload, blocksWorkload, hunksWorkload, shapesWorkload, stressLines } from './stress.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))
const args = process.argv.slice(2)
const flag = (f) => args.includes(f)
const opt = (f) => {
  const i = args.indexOf(f)
  return i >= 0 ? args[i + 1] : undefined
}

// `npm run bench -- replay`: the replay of this repository's own git history
// (core/tests/replay): every real edit through every format, and the mistakes
// agents make applied to a sample of them. It runs in Rust, optimized;
// options: --per-kind <n> (samples of each mistake, default 200), --until
// <commit> (the last commit replayed, default HEAD), --commits <n> (at most
// n commits, oldest first), --repo <clone or git dir> (another repository's
// history), --eol mixed (the mixed line-endings mode), --match <tolerances>
// (the real edits' defaultMatch, as MCP sends them: line_endings), --kinds <names> (only
// the mistakes whose names contain one of these, comma-separated: stale,elided),
// --out <file.json>; PFT_REPLAY_DUMP=<dir> writes each failing case there.
if (args[0] === 'replay') {
  const env = { ...process.env }
  if (opt('--per-kind')) env.PFT_REPLAY_PER_KIND = opt('--per-kind')
  if (opt('--until')) env.PFT_REPLAY_UNTIL = opt('--until')
  if (opt('--commits')) env.PFT_REPLAY_COMMITS = opt('--commits')
  if (opt('--repo')) env.PFT_REPLAY_REPO = path.resolve(opt('--repo'))
  if (opt('--eol')) env.PFT_REPLAY_EOL = opt('--eol')
  if (opt('--match')) env.PFT_REPLAY_MATCH = opt('--match')
  if (opt('--kinds')) env.PFT_REPLAY_KINDS = opt('--kinds')
  if (opt('--out')) env.PFT_REPLAY_OUT = path.resolve(opt('--out'))
  const cargo = ['test', '--release', '--all-features', '--test', 'replay', '--', '--ignored', '--nocapture', 'replay_full']
  const r = spawnSync('cargo', cargo, { stdio: 'inherit', env, cwd: path.resolve(here, '..') })
  process.exit(r.status ?? 1)
}

// `npm run bench -- lazy`: lazy variants of the real edits of this repository's
// history (core/tests/replay/lazy.rs): an elision marker in place of unchanged lines
// of each edit and of each whole file a commit changed; prints expanded /
// refused / wrong per kind and the false alarms on the real edits. Options:
// --cap <n> (cases of each kind at most, default 5000), --until <commit>,
// --repo <clone or git dir> (another repository's history), --out <file.json>.
if (args[0] === 'lazy') {
  const env = { ...process.env }
  if (opt('--cap')) env.PFT_LAZY_CAP = opt('--cap')
  if (opt('--until')) env.PFT_REPLAY_UNTIL = opt('--until')
  if (opt('--repo')) env.PFT_REPLAY_REPO = path.resolve(opt('--repo'))
  if (opt('--out')) env.PFT_REPLAY_OUT = path.resolve(opt('--out'))
  const cargo = ['test', '--release', '--all-features', '--test', 'replay', '--', '--ignored', '--nocapture', 'lazy_full']
  const r = spawnSync('cargo', cargo, { stdio: 'inherit', env, cwd: path.resolve(here, '..') })
  process.exit(r.status ?? 1)
}

// `npm run bench -- syntax`: the syntax guard on the history of this repository
// (or --repo <clone or git dir>) (core/tests/replay/syntax.rs): false reports on the
// real final states (each listed), the share of single-hunk intermediate states
// flagged, and breakage injected into real hunks (reported / all, reported /
// broken per the parser). Options: --cap <n> (injections of each language and
// kind at most, default 2000), --until <commit>, --commits <n> (the newest n up
// to it), --repo <path>, --out <file.json>.
if (args[0] === 'syntax') {
  const env = { ...process.env }
  if (opt('--cap')) env.PFT_SYNTAX_CAP = opt('--cap')
  if (opt('--until')) env.PFT_REPLAY_UNTIL = opt('--until')
  if (opt('--commits')) env.PFT_REPLAY_COMMITS = opt('--commits')
  if (opt('--repo')) env.PFT_REPLAY_REPO = path.resolve(opt('--repo'))
  if (opt('--out')) env.PFT_REPLAY_OUT = path.resolve(opt('--out'))
  const cargo = ['test', '--release', '--all-features', '--test', 'replay', '--', '--ignored', '--nocapture', 'syntax_full']
  const r = spawnSync('cargo', cargo, { stdio: 'inherit', env, cwd: path.resolve(here, '..') })
  process.exit(r.status ?? 1)
}

if (!global.gc && !flag('--rss-child')) {
  // Re-run with --expose-gc so engines can start on a clean heap.
  const r = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), ...args], { stdio: 'inherit' })
  process.exit(r.status ?? 1)
}

if (flag('--rss-child')) {
  await rssChild(JSON.parse(fs.readFileSync(opt('--rss-child'), 'utf8')))
  process.exit(0)
}

const QUICK = flag('--quick')
const MiB = 1024 * 1024
const CFG = QUICK
  ? { big: 32 * MiB, mid: 10 * MiB, files: 200, reps: { small: 40, mid: 4, big: 2, files: 1, multi: 8 }, fast: 500 }
  : { big: 200 * MiB, mid: 10 * MiB, files: 1000, reps: { small: 200, mid: 15, big: 5, files: 3, multi: 40 }, fast: 5000 }
const bigLabel = `${Math.round(CFG.big / MiB)} MiB`

// ---------------------------------------------------------------------------
// Set-up: the work directory and its cleanup.

const base = process.env.PFT_BENCH_DIR || os.tmpdir()
const workDir = fs.mkdtempSync(path.join(base, 'pft-bench-'))
const cleanup = () => fs.rmSync(workDir, { recursive: true, force: true })
process.on('exit', cleanup)
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    cleanup()
    process.exit(130)
  })
}

function sh(cmd, argv) {
  try {
    return execFileSync(cmd, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
  } catch {
    return null
  }
}

function machine() {
  const lscpu = sh('lscpu', []) || ''
  const field = (k) => (lscpu.match(new RegExp(`^${k}:\\s*(.*)$`, 'm')) || [])[1]
  const flags = field('Flags') || ''
  return {
    cpu: field('Model name') || os.cpus()[0]?.model,
    cpus: os.cpus().length,
    hypervisor: field('Hypervisor vendor') || null,
    sha_ni: /\bsha_ni\b/.test(flags),
    avx2: /\bavx2\b/.test(flags),
    memory_gib: Math.round(os.totalmem() / 2 ** 30),
    kernel: `${os.type()} ${os.release()}`,
    node: process.version,
    filesystem: sh('stat', ['-f', '-c', '%T', workDir]),
    device: (sh('df', ['-T', workDir]) || '').split('\n')[1]?.split(/\s+/).slice(0, 2).join(' ') || null,
    bench_dir: workDir,
  }
}

// ---------------------------------------------------------------------------
// Measurement.

const ENGINE_NAMES = [...(process.env.PFT_BENCH_COMPARE ? ['patch-file-tool-compare'] : []), 'patch-file-tool', 'js-reference', 'server-filesystem', 'floor-copy', 'floor-read', 'floor-scan']
const engines = {}
for (const n of ENGINE_NAMES) engines[n] = await loadEngine(n)

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const mid = s.length >> 1
  const median = s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2
  return { median, min: s[0], max: s[s.length - 1], n: s.length, mean: s.reduce((a, b) => a + b, 0) / s.length }
}

/** fsync a file that an engine left unflushed, so its writeback does not land in the next engine's timing. */
function settle(file) {
  try {
    const fd = fs.openSync(file, 'r')
    fs.fsyncSync(fd)
    fs.closeSync(fd)
  } catch {}
}

/**
 * Runs `reps` rounds; in each, every engine does `op` once (the order
 * rotates). `makeOps(engineName)` returns the list of ops for one timed
 * sample (one op, or many for the many-files workloads), `inFlight` bounds
 * how many run at once. `expect(r)` checks each outcome.
 */
async function measure({ name, engineNames, reps, makeSample, expect, inFlight = 1, bytes, perSampleOps = 1, afterOp }) {
  const samples = Object.fromEntries(engineNames.map((e) => [e, []]))
  const stalls = Object.fromEntries(engineNames.map((e) => [e, 0]))
  const notes = {}
  for (let rep = 0; rep < reps; rep++) {
    const order = engineNames.map((_, i) => engineNames[(i + rep) % engineNames.length])
    for (const en of order) {
      const eng = engines[en]
      const ops = makeSample(en)
      if (eng.prepare) for (const o of ops) eng.prepare(o.op)
      // Each engine starts on a clean heap: the garbage another engine left
      // (hundreds of MiB of strings on big files) is collected untimed.
      if (global.gc && (bytes ?? 0) * perSampleOps >= 1 << 20) global.gc()
      const h = monitorEventLoopDelay({ resolution: 1 })
      h.enable()
      const t0 = process.hrtime.bigint()
      const results = await runOps(eng, ops, inFlight)
      const t1 = process.hrtime.bigint()
      h.disable()
      stalls[en] = Math.max(stalls[en], h.max / 1e6)
      samples[en].push(Number(t1 - t0) / 1e6)
      for (let i = 0; i < ops.length; i++) {
        const r = results[i]
        const why = expect(en, r, ops[i])
        if (why !== true) {
          notes[en] = why
        }
        if (r.edited) ops[i].toggle?.flip()
        if (afterOp) afterOp(en, ops[i], r)
      }
    }
  }
  const out = { name, in_flight: inFlight, ops_per_sample: perSampleOps, bytes: bytes ?? null, engines: {} }
  for (const en of engineNames) {
    const s = stats(samples[en])
    out.engines[en] = {
      label: engines[en].label,
      ms: s,
      gb_per_s: bytes ? bytes / 1e9 / (s.median / 1e3) : null,
      max_event_loop_stall_ms: stalls[en],
      note: notes[en] ?? null,
    }
  }
  for (const en of engineNames) {
    const e = out.engines[en]
    const ratio = (other) => (out.engines[other] ? e.ms.median / out.engines[other].ms.median : null)
    e.vs_js_reference = ratio('js-reference')
    e.vs_floor_copy = ratio('floor-copy')
    e.vs_floor_scan = ratio('floor-scan')
    e.vs_floor_read = ratio('floor-read')
  }
  return out
}

async function runOps(eng, ops, inFlight) {
  const results = new Array(ops.length)
  let next = 0
  async function worker() {
    while (next < ops.length) {
      const i = next++
      results[i] = await eng.run(ops[i].op)
    }
  }
  await Promise.all(Array.from({ length: Math.min(inFlight, ops.length) }, worker))
  return results
}

const expectOk = (en, r) => (r.ok ? true : `unexpected failure: ${r.code} ${r.message ?? ''}`)
const expectCode = (code) => (en, r) => {
  if (engines[en].floor) return true
  if (en === 'server-filesystem') return r.ok ? 'edited the file' : true
  return !r.ok && r.code === code ? true : `expected ${code}, got ${r.ok ? 'ok' : r.code}`
}

/** Names of temp files (ours or js-reference's) left in `dir`. */
const tempsIn = (dir) => fs.readdirSync(dir).filter((n) => n.startsWith('.') && n.endsWith('.tmp'))

// ---------------------------------------------------------------------------
// Peak RSS, one child process per engine.

/**
 * Peak RSS of this process. On Linux, VmHWM of our own address space:
 * getrusage's maxRSS also counts the parent's RSS at the fork before exec,
 * which would charge the benchmark's own memory to every child.
 */
function peakRss() {
  try {
    const m = /^VmHWM:\s+(\d+) kB/m.exec(fs.readFileSync('/proc/self/status', 'utf8'))
    if (m) return Number(m[1]) * 1024
  } catch {}
  return process.resourceUsage().maxRSS * 1024
}

async function rssChild(job) {
  const eng = job.engine === 'idle' ? null : await loadEngine(job.engine)
  if (global.gc) global.gc()
  const idle = process.memoryUsage().rss
  let r = { ok: true }
  if (eng) {
    if (eng.prepare) eng.prepare(job.op)
    r = await eng.run(job.op)
  }
  const peak = peakRss()
  process.stdout.write(JSON.stringify({ idle_rss: idle, peak_rss: peak, ok: r.ok, code: r.code ?? null, edited: !!r.edited }))
}

function rssOf(engine, op) {
  const jobFile = path.join(workDir, `rss-job-${engine}.json`)
  fs.writeFileSync(jobFile, JSON.stringify({ engine, op }))
  const p = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--rss-child', jobFile], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  })
  fs.rmSync(jobFile, { force: true })
  if (p.status !== 0) return { error: (p.stderr || '').slice(-300) }
  return JSON.parse(p.stdout)
}

// ---------------------------------------------------------------------------
// Workloads.

const only = opt('--only')?.split(',')
const want = (w) => !only || only.includes(w)
const results = []
const t00 = Date.now()
const log = (s) => process.stderr.write(`[${((Date.now() - t00) / 1e3).toFixed(1)}s] ${s}\n`)
// PFT_BENCH_COMPARE=<checkout>: also run that build of patch-file-tool,
// interleaved with this one (before/after figures of a change).
const OURS = process.env.PFT_BENCH_COMPARE ? ['patch-file-tool', 'patch-file-tool-compare'] : ['patch-file-tool']
const EDITORS = [...OURS, 'js-reference', 'server-filesystem', 'floor-copy']

// 1. The 1,000-line TypeScript file, one edit at line ~500.
if (want('ts-1k')) {
  const ts = smallTs()
  const root = path.join(workDir, 'ts1k')
  fs.mkdirSync(root)
  fs.writeFileSync(path.join(root, 'fixture.ts'), ts.text)
  const toggle = new Toggle([ts.edit])
  log('ts-1k')
  results.push(
    await measure({
      name: `1,000-line TS file, one edit (line ${ts.line})`,
      key: 'ts-1k',
      engineNames: EDITORS,
      reps: CFG.reps.small,
      bytes: Buffer.byteLength(ts.text),
      makeSample: () => [{ op: { root, rel: 'fixture.ts', edits: toggle.next() }, toggle }],
      expect: expectOk,
    }),
  )
  results.at(-1).key = 'ts-1k'

  // durable: false, sequential, patches per second.
  log('ts-1k durable:false')
  const fast = { name: `1,000-line TS file, durable: false, sequential (${CFG.fast} patches per engine)`, key: 'durable-false', engines: {} }
  const fastEngines = [
    ['patch-file-tool', {}],
    ['patch-file-tool (sync API)', { sync: true }],
    ['js-reference', {}],
    ['floor-copy (no search, no fsync)', {}],
  ]
  for (const [label, extra] of fastEngines) {
    const eng = engines[label.split(' ')[0]]
    // warm-up
    for (let i = 0; i < 50; i++) {
      const r = await eng.run({ root, rel: 'fixture.ts', edits: toggle.next(), durable: false, ...extra })
      if (r.edited) toggle.flip()
    }
    const h = monitorEventLoopDelay({ resolution: 1 })
    h.enable()
    const t0 = process.hrtime.bigint()
    let bad = 0
    for (let i = 0; i < CFG.fast; i++) {
      const r = await eng.run({ root, rel: 'fixture.ts', edits: toggle.next(), durable: false, ...extra })
      if (r.edited) toggle.flip()
      else if (!r.ok) bad++ // floors copy without editing: not a failure
    }
    const ms = Number(process.hrtime.bigint() - t0) / 1e6
    h.disable()
    fast.engines[label] = {
      label,
      patches_per_s: (CFG.fast / ms) * 1e3,
      us_per_patch: (ms * 1e3) / CFG.fast,
      failures: bad,
      max_event_loop_stall_ms: h.max / 1e6,
    }
  }
  results.push(fast)
  settle(path.join(root, 'fixture.ts'))
}

// 2. Big files: one unique edit near the end; then a miss and an ambiguous block.
async function bigWorkloads(size, key, reps, withMisses) {
  const root = path.join(workDir, key)
  fs.mkdirSync(root)
  log(`${key}: generating ${(size / MiB).toFixed(0)} MiB`)
  const info = writeBigFile(path.join(root, 'big.ts'), size, 7)
  const rel = 'big.ts'
  const toggle = new Toggle([info.edit])
  const label = `${(info.size / MiB).toFixed(0)} MiB`
  log(`${key}: edit`)
  const r = await measure({
    name: `${label} file, one unique edit near the end`,
    engineNames: [...EDITORS, 'floor-scan'],
    reps,
    bytes: info.size,
    makeSample: () => [{ op: { root, rel, edits: toggle.next() }, toggle }],
    expect: expectOk,
    afterOp: (en) => {
      if (en === 'server-filesystem') settle(path.join(root, rel))
    },
  })
  r.key = key
  results.push(r)
  if (!withMisses) {
    engines['floor-scan'].forget()
    return { root, rel, toggle, info }
  }
  log(`${key}: not found`)
  const before = tempsIn(root).length
  const nf = await measure({
    name: `${label} file, search block not found (near miss)`,
    engineNames: [...OURS, 'js-reference', 'server-filesystem', 'floor-read', 'floor-scan'],
    reps,
    bytes: info.size,
    makeSample: () => [{ op: { root, rel, edits: [{ search: info.missing, replace: 'x' }] } }],
    expect: expectCode('SEARCH_BLOCK_NOT_FOUND'),
  })
  nf.key = `${key}-not-found`
  nf.temp_files_created = tempsIn(root).length - before
  results.push(nf)
  log(`${key}: ambiguous`)
  const amb = await measure({
    name: `${label} file, ambiguous search block (2 matches, far apart)`,
    engineNames: [...OURS, 'js-reference', 'floor-read', 'floor-scan'],
    reps,
    bytes: info.size,
    makeSample: () => [{ op: { root, rel, edits: [{ search: info.ambiguous, replace: 'x' }] } }],
    expect: expectCode('SEARCH_BLOCK_AMBIGUOUS'),
  })
  amb.key = `${key}-ambiguous`
  amb.temp_files_created = tempsIn(root).length - before
  amb.note = 'server-filesystem is not run: it has no ambiguity check and would edit the first match'
  results.push(amb)
  engines['floor-scan'].forget()
  return { root, rel, toggle, info }
}

if (want('big-10m')) await bigWorkloads(CFG.mid, 'big-10m', CFG.reps.mid, false)

let big = null
if (want('big')) big = await bigWorkloads(CFG.big, 'big', CFG.reps.big, true)

// Peak RSS per engine, each in its own process, on the big file.
const rss = { name: `Peak RSS on the ${bigLabel} file (one child process per engine)`, key: 'rss', file_bytes: big?.info.size ?? null, rows: {} }
if (big && !flag('--no-rss')) {
  log('peak RSS')
  const idle = rssOf('idle', null)
  rss.idle_node = idle
  for (const en of [...OURS, 'js-reference', 'server-filesystem', 'floor-copy']) {
    const op = { root: big.root, rel: big.rel, edits: big.toggle.next() }
    const r = rssOf(en, op)
    if (r.edited) big.toggle.flip()
    if (en === 'server-filesystem') settle(path.join(big.root, big.rel))
    const nf = ['floor-copy'].includes(en) ? null : rssOf(en, { root: big.root, rel: big.rel, edits: [{ search: big.info.missing, replace: 'x' }] })
    rss.rows[en] = { label: engines[en].label, edit: r, not_found: nf }
  }
  for (const row of Object.values(rss.rows)) {
    for (const k of ['edit', 'not_found']) {
      const m = row[k]
      if (!m || m.error) continue
      // Over the child's own idle RSS (node + bench + that engine loaded).
      m.over_idle = m.peak_rss - m.idle_rss
      m.over_idle_minus_file = m.over_idle - big.info.size
    }
  }
  results.push(rss)
}

// Check the big file is exactly what the toggles say it should be.
if (big) {
  const text = fs.readFileSync(path.join(big.root, big.rel), 'utf8')
  const want = big.toggle.state === 'a' ? big.info.edit.a : big.info.edit.b
  const other = big.toggle.state === 'a' ? big.info.edit.b : big.info.edit.a
  if (countOf(text, want) !== 1 || countOf(text, other) !== 0 || text.length !== big.info.size) {
    throw new Error('big file content is not what the edits should have left')
  }
  fs.rmSync(big.root, { recursive: true, force: true })
}

// 3. Many small files, one edit each: sequential and 16 in flight.
if (want('files')) {
  const root = path.join(workDir, 'many')
  fs.mkdirSync(root)
  log(`files: writing ${CFG.files}`)
  const files = writeManyFiles(path.join(root, 'src'), CFG.files)
  const bytes = files.reduce((n, f) => n + fs.statSync(path.join(root, f.rel)).size, 0)
  for (const inFlight of [1, 16]) {
    log(`files x${inFlight}`)
    const r = await measure({
      name: `${CFG.files} files (200 lines each), one edit each, ${inFlight === 1 ? 'sequential' : `${inFlight} in flight`}`,
      engineNames: EDITORS,
      reps: CFG.reps.files,
      inFlight,
      perSampleOps: files.length,
      bytes,
      makeSample: () => files.map((f) => ({ op: { root, rel: f.rel, edits: f.toggle.next(), inFlight }, toggle: f.toggle })),
      expect: expectOk,
    })
    r.key = `files-x${inFlight}`
    results.push(r)
  }
  fs.rmSync(root, { recursive: true, force: true })
}

// 4. One call with 10 edits on a 10,000-line file.
if (want('multi')) {
  const m = multiEditFile()
  const root = path.join(workDir, 'multi')
  fs.mkdirSync(root)
  fs.writeFileSync(path.join(root, 'big-module.ts'), m.text)
  const toggle = new Toggle(m.pairs)
  log('multi-edit')
  const r = await measure({
    name: '10,000-line file, one call with 10 edits',
    engineNames: EDITORS,
    reps: CFG.reps.multi,
    bytes: Buffer.byteLength(m.text),
    makeSample: () => [{ op: { root, rel: 'big-module.ts', edits: toggle.next() }, toggle }],
    expect: expectOk,
  })
  r.key = 'multi-10'
  results.push(r)
}

// Cost bounded by the input whatever its shape: replace_all of 1-byte matches
// (peak RSS), many edits in one call (time against one edit). 1 GiB only
// when asked: --only replace-all-1g.
if (want('replace-all')) {
  log('replace-all')
  results.push(replaceAllWorkload(workDir, QUICK ? [10] : [10, 100]))
}
if (only && only.includes('replace-all-1g')) {
  log('replace-all 1 GiB')
  results.push(replaceAllWorkload(workDir, [1024]))
}
if (want('edits-10k')) {
  log('edits-10k')
  results.push(QUICK ? editsWorkload(workDir, 20, 2000) : editsWorkload(workDir, 100, 10000))
}
if (want('blocks-10k')) {
  log('blocks-10k')
  results.push(QUICK ? blocksWorkload(workDir, 20, 2000) : blocksWorkload(workDir, 100, 10000))
}
if (want('hunks-10k')) {
  log('hunks-10k')
  results.push(QUICK ? hunksWorkload(workDir, 20, 2000) : hunksWorkload(workDir, 100, 10000))
}

if (want('shapes')) {
  log('shapes')
  results.push(shapesWorkload(workDir, QUICK ? 3000 : 12000))
}

// Unrelated calls while calls wait for a file another process holds locked.
if (want('locked')) {
  log('locked')
  const w = await lockedWorkload(workDir, QUICK ? 50 : 200)
  if (w) results.push(w)
}

// ---------------------------------------------------------------------------
// Report.

const fmtMs = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2))
const fmtX = (x) => (x == null ? '' : `${x.toFixed(2)}x`)
const fmtMiB = (b) => (b == null ? '' : `${(b / MiB).toFixed(0)}`)
const lines = []
const m = machine()
lines.push(`patch-file-tool benchmark (${QUICK ? 'quick' : 'full'}), ${new Date().toISOString()}`)
lines.push(`machine: ${m.cpu}, ${m.cpus} CPUs${m.hypervisor ? ` (${m.hypervisor})` : ''}, ${m.memory_gib} GiB, ${m.kernel}, node ${m.node}`)
lines.push(`files on: ${m.filesystem} (${m.device}); sha_ni=${m.sha_ni}`)
for (const w of results) {
  lines.push('')
  lines.push(`## ${w.name}`)
  if (w.key === 'rss') {
    lines.push(`bare idle node: ${fmtMiB(w.idle_node?.idle_rss)} MiB; file: ${fmtMiB(w.file_bytes)} MiB; "over idle" is over the child's own RSS with its engine loaded`)
    lines.push(['engine', 'idle MiB', 'edit peak MiB', 'over idle MiB', 'not-found peak MiB', 'over idle MiB'].join(' | '))
    for (const [en, row] of Object.entries(w.rows)) {
      lines.push(
        [
          row.label,
          fmtMiB(row.edit?.idle_rss),
          row.edit?.error ? 'error' : fmtMiB(row.edit?.peak_rss),
          fmtMiB(row.edit?.over_idle),
          row.not_found ? fmtMiB(row.not_found.peak_rss) : '',
          row.not_found ? fmtMiB(row.not_found.over_idle) : '',
        ].join(' | '),
      )
    }
    continue
  }
  if (['replace-all', 'edits-many', 'blocks-many', 'hunks-many', 'shapes'].includes(w.key)) {
    lines.push(...stressLines(w))
    continue
  }
  if (w.key === 'locked') {
    lines.push(...lockedLines(w))
    continue
  }
  if (w.key === 'durable-false') {
    lines.push(['engine', 'patches/s', 'us/patch', 'max loop stall ms'].join(' | '))
    for (const e of Object.values(w.engines)) {
      lines.push([e.label, e.patches_per_s.toFixed(0), e.us_per_patch.toFixed(1), e.max_event_loop_stall_ms.toFixed(1)].join(' | '))
    }
    continue
  }
  lines.push(['engine', 'median ms', 'min', 'max', 'vs js-ref', 'vs floor-copy', 'vs floor-scan', 'GB/s', 'max loop stall ms', 'note'].join(' | '))
  for (const e of Object.values(w.engines)) {
    lines.push(
      [
        e.label,
        fmtMs(e.ms.median),
        fmtMs(e.ms.min),
        fmtMs(e.ms.max),
        fmtX(e.vs_js_reference),
        fmtX(e.vs_floor_copy),
        fmtX(e.vs_floor_scan),
        e.gb_per_s == null ? '' : e.gb_per_s.toFixed(2),
        e.max_event_loop_stall_ms.toFixed(1),
        e.note ?? '',
      ].join(' | '),
    )
  }
  if (w.temp_files_created != null) lines.push(`temp files left by the failed calls: ${w.temp_files_created}`)
  if (w.note) lines.push(w.note)
}
const report = lines.join('\n')
process.stdout.write(report + '\n')

const outFile =
  opt('--out') ?? path.join(here, 'results', `bench-${QUICK ? 'quick' : 'full'}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`)
fs.mkdirSync(path.dirname(outFile), { recursive: true })
fs.writeFileSync(outFile, JSON.stringify({ mode: QUICK ? 'quick' : 'full', machine: m, config: CFG, results }, null, 2) + '\n')
log(`wrote ${path.relative(process.cwd(), outFile)}`)
