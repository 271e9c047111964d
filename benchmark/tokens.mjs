#!/usr/bin/env node
// `npm run tokens`: what an agent pays in tokens, counted with gpt-tokenizer's
// o200k_base (the GPT-4o encoding), in one run.
//
// 1. Context, per turn and per call: each MCP server is started the same way
//    (node on its entry point, over stdio, with the official SDK client) on the
//    same fixture, and measured as a client sees it: the tools/list answer (in
//    full, and its names + descriptions + input schemas, what clients put
//    before the model on every turn), the server's instructions, what the edit
//    call costs the model to write (its arguments: output tokens), and the text
//    the model reads back for a success and for a not-found. This package per
//    profile (and with --output-schemas), @modelcontextprotocol/server-filesystem
//    (a dev dependency) and @wonderwhy-er/desktop-commander (installed on first
//    use, without its install scripts, into a temp directory; see DESKTOP_COMMANDER).
// 2. Output tokens per edit, by the way the agent asks for it: the payloads are
//    produced for real (the diff is the engine's own dry-run diff, the run_id a
//    real one, the fixture the benchmark's deterministic 1,000-line TypeScript file).
//
//   node benchmark/tokens.mjs [--json <file>] [--no-peers]
//
// PFT_BENCH_DESKTOP_COMMANDER=<dir>: a directory where desktop-commander is (or
// is to be) installed, instead of the temp directory.

import { STATE_DIR } from './private-state.mjs'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { encode } from 'gpt-tokenizer/encoding/o200k_base'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { smallTs, multiEditFile } from './workloads.mjs'

const require = createRequire(import.meta.url)
const api = require('../index.js')
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const BIN = path.join(REPO, 'bin', 'patch-file-tool.js')
const PROFILES = Object.keys(require('../js/tools.js').PROFILES)

/** The desktop-commander release measured: the newest when measured; it installs on Node 20 without warnings. */
const DESKTOP_COMMANDER = '0.2.52'

const args = process.argv.slice(2)
const jsonOut = args.includes('--json') ? args[args.indexOf('--json') + 1] : null
const peers = !args.includes('--no-peers')

const tokens = (s) => encode(s).length
const json = (o) => JSON.stringify(o)

const temps = []
const tempDir = (prefix) => {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
  temps.push(d)
  return d
}
process.on('exit', () => {
  for (const d of temps) fs.rmSync(d, { recursive: true, force: true })
})

const dir = tempDir('pft-tokens-')
fs.mkdirSync(path.join(dir, 'src'))
const opts = { workspaceRoot: dir }

// The 1,000-line fixture and its one edit.
const ts = smallTs()
const file_path = 'src/fixture.ts'
fs.writeFileSync(path.join(dir, file_path), ts.text)
const after = ts.text.replace(ts.edit.a, ts.edit.b)
const payload = { file_path, search_block: ts.edit.a, replace_block: ts.edit.b }
// A near miss: the line as the model remembers it, one number off (a stale read).
const stale = ts.edit.a.replace(/\d+(?!.*\d)/, (n) => String(Number(n) - 1))
if (ts.text.includes(stale)) throw new Error('the stale block occurs in the fixture')

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
]
for (const r of rows) {
  r.tokens = tokens(r.text)
  r.chars = r.text.length
}
const fixture = { lines: ts.lines.length, chars: ts.text.length, tokens: tokens(ts.text), edit_line: ts.line }

// ---------------------------------------------------------------------------
// Context: the MCP servers as a client sees them.

/** The text a model reads back from a tools/call answer: its text blocks. */
const modelText = (answer) => (answer.content || []).filter((b) => b.type === 'text').map((b) => b.text).join('\n')

/**
 * Starts one server (node `entry` ...args, over stdio, with the SDK client),
 * measures its listing, and, when `edit` is given, one successful edit and
 * one not-found on a fresh copy of the fixture in `root`.
 */
async function measure({ label, entry, args: serverArgs = [], env = {}, cwd, root, edit }) {
  fs.writeFileSync(path.join(root, file_path), ts.text)
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [entry, ...serverArgs],
    env: { PATH: process.env.PATH, PATCH_FILE_STATE_DIR: STATE_DIR, ...env },
    cwd: cwd || root,
    stderr: 'pipe',
  })
  transport.stderr?.resume()
  const client = new Client({ name: 'tokens-benchmark', version: '0' })
  await client.connect(transport)
  try {
    const { tools: listed } = await client.listTools()
    const ndi = (t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema })
    const out = {
      label,
      tools: listed.length,
      list_full: tokens(json({ tools: listed })),
      list_ndi: tokens(json(listed.map(ndi))),
      instructions: tokens(client.getInstructions() || ''),
    }
    if (edit) {
      const tool = listed.find((t) => t.name === edit.tool)
      out.edit_tool = { name: edit.tool, full: tokens(json(tool)), ndi: tokens(json(ndi(tool))) }
      const ok = edit.args(root, ts.edit.a, ts.edit.b)
      out.edit_call = tokens(json(ok))
      const success = await client.callTool({ name: edit.tool, arguments: ok })
      if (success.isError || fs.readFileSync(path.join(root, file_path), 'utf8') !== after) {
        throw new Error(`${label}: the edit did not apply: ${modelText(success).slice(0, 500)}`)
      }
      out.success = tokens(modelText(success))
      out.success_text = modelText(success)
      fs.writeFileSync(path.join(root, file_path), ts.text)
      const missing = await client.callTool({ name: edit.tool, arguments: edit.args(root, stale, ts.edit.b) })
      if (fs.readFileSync(path.join(root, file_path), 'utf8') !== ts.text) throw new Error(`${label}: the not-found call wrote`)
      out.not_found = tokens(modelText(missing))
      out.not_found_text = modelText(missing)
    }
    return out
  } finally {
    await client.close()
  }
}

const ours = (root, a, b) => ({ file_path, search_block: a, replace_block: b })
const context = []
{
  const root = tempDir('pft-tokens-ours-')
  fs.mkdirSync(path.join(root, 'src'))
  for (const profile of PROFILES) {
    const edit = profile === 'default' ? { tool: 'patch_file', args: ours } : undefined
    context.push({ server: 'patch-file-tool', profile, ...(await measure({ label: `patch-file-tool --tools ${profile}`, entry: BIN, args: ['--root', root, '--tools', profile], root, edit })) })
  }
  for (const profile of ['default', 'all']) {
    context.push({
      server: 'patch-file-tool',
      profile: `${profile} --output-schemas`,
      ...(await measure({ label: `patch-file-tool --tools ${profile} --output-schemas`, entry: BIN, args: ['--root', root, '--tools', profile, '--output-schemas'], root })),
    })
  }
}

/** desktop-commander's entry point, installed (without install scripts) on first use; or null and why not. */
function desktopCommander() {
  const where = process.env.PFT_BENCH_DESKTOP_COMMANDER || path.join(os.tmpdir(), `pft-bench-desktop-commander-${DESKTOP_COMMANDER}`)
  const entry = path.join(where, 'node_modules', '@wonderwhy-er', 'desktop-commander', 'dist', 'index.js')
  if (fs.existsSync(entry)) return { entry }
  fs.mkdirSync(where, { recursive: true })
  if (!fs.existsSync(path.join(where, 'package.json'))) fs.writeFileSync(path.join(where, 'package.json'), '{"private":true}\n')
  process.stderr.write(`installing @wonderwhy-er/desktop-commander@${DESKTOP_COMMANDER} into ${where} (--ignore-scripts)...\n`)
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
  const r = spawnSync(npm, ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error', `@wonderwhy-er/desktop-commander@${DESKTOP_COMMANDER}`], {
    cwd: where,
    encoding: 'utf8',
    shell: process.platform === 'win32',
  })
  if (r.status !== 0 || !fs.existsSync(entry)) return { why: `npm install failed: ${(r.stderr || r.error?.message || '').trim().split('\n').pop()}` }
  return { entry }
}

const skipped = []
if (peers) {
  const root = tempDir('pft-tokens-sfs-')
  fs.mkdirSync(path.join(root, 'src'))
  context.push({
    server: 'server-filesystem',
    ...(await measure({
      label: 'server-filesystem',
      entry: require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js'),
      args: [root],
      root,
      edit: { tool: 'edit_file', args: (r, a, b) => ({ path: path.join(r, file_path), edits: [{ oldText: a, newText: b }] }) },
    })),
  })
  const dc = desktopCommander()
  if (dc.entry) {
    const dcRoot = tempDir('pft-tokens-dc-')
    fs.mkdirSync(path.join(dcRoot, 'src'))
    // Its configuration, logs and telemetry live under HOME: a temp home, telemetry off, the fixture allowed.
    const home = tempDir('pft-tokens-dc-home-')
    fs.mkdirSync(path.join(home, '.claude-server-commander'))
    fs.writeFileSync(path.join(home, '.claude-server-commander', 'config.json'), json({ allowedDirectories: [dcRoot], telemetryEnabled: false }))
    context.push({
      server: 'desktop-commander',
      ...(await measure({
        label: `desktop-commander ${DESKTOP_COMMANDER}`,
        entry: dc.entry,
        args: ['--no-onboarding'],
        env: { HOME: home, USERPROFILE: home, DESKTOP_COMMANDER_DISABLE_TELEMETRY: '1' },
        root: dcRoot,
        edit: { tool: 'edit_block', args: (r, a, b) => ({ file_path: path.join(r, file_path), old_string: a, new_string: b }) },
      })),
    })
  } else {
    skipped.push(`desktop-commander: ${dc.why}`)
  }
}

// ---------------------------------------------------------------------------
// Report

const pad = (s, n) => String(s).padEnd(n)
const padl = (s, n) => String(s).padStart(n)
const out = []
out.push('Context, o200k_base (gpt-tokenizer): tools/list per turn; the edit call written and the result read back.')
out.push(
  `${pad('server / --tools', 44)} ${padl('tools', 5)} ${padl('list: names+desc+input', 23)} ${padl('full', 6)} ${padl('instr.', 6)}   ${pad('edit tool (full / n+d+i)', 32)} ${padl('call', 5)} ${padl('success', 8)} ${padl('not found', 9)}`,
)
for (const c of context) {
  const who = c.server === 'patch-file-tool' ? `patch-file-tool ${c.profile}` : c.label
  const tool = c.edit_tool ? `${c.edit_tool.name} ${c.edit_tool.full} / ${c.edit_tool.ndi}` : ''
  out.push(
    `${pad(who, 44)} ${padl(c.tools, 5)} ${padl(c.list_ndi, 23)} ${padl(c.list_full, 6)} ${padl(c.instructions, 6)}   ${pad(tool, 32)} ${padl(c.edit_call ?? '', 5)} ${padl(c.success ?? '', 8)} ${padl(c.not_found ?? '', 9)}`,
  )
}
for (const s of skipped) out.push(`not measured: ${s}`)

out.push('', `Output tokens per edit. Fixture: ${fixture.lines} lines, ${fixture.chars} chars, ${fixture.tokens} tokens; edit at line ${fixture.edit_line}.`)
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
  const strip = ({ success_text, not_found_text, ...c }) => c
  fs.writeFileSync(
    jsonOut,
    JSON.stringify(
      { encoding: 'o200k_base', node: process.version, desktop_commander: DESKTOP_COMMANDER, fixture, context: context.map(strip), skipped, rows: rows.map(({ text, ...r }) => r) },
      null,
      2,
    ) + '\n',
  )
}
