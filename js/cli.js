'use strict'
// Command-line front-end. With no command it runs the MCP stdio server;
// otherwise it dispatches to one entry of COMMANDS. Adding a command is
// adding an entry: its summary/usage for --help, its parseArgs options and
// its run function, which returns the exit code.
//
// Exit codes: 0 applied (or read); 1 refused by the engine (not found,
// ambiguous, outside the workspace, binary, changed...); 2 usage error or
// INVALID_INPUT (including a workspace root that does not exist or is not a
// directory); 3 I/O error (FILE_READ_ERROR, FILE_WRITE_ERROR, and a workspace
// root that exists but cannot be opened: permissions, too many open files,
// a symlink loop); 4 the native engine cannot be loaded on this machine
// (NATIVE_ENGINE_UNAVAILABLE: js/native.js says why and what to do).

const fs = require('node:fs')
const path = require('node:path')
const { parseArgs } = require('node:util')
const { resolveRoot, engineOptions, workTree, beneath, ENV } = require('./root.js')
const engine = require('./engine.js')
const { PATCH_KEYS } = require('./workspace.js')

const PROG = 'patch-file-tool'
const EXIT = Object.freeze({ OK: 0, REFUSED: 1, USAGE: 2, IO: 3, NO_ENGINE: 4 })

class UsageError extends Error {}

function version() {
  return require('../package.json').version
}

/** Exit code of an engine result. */
function exitCodeFor(result) {
  if (result && result.ok === true) return EXIT.OK
  switch (result && result.code) {
    case 'INVALID_INPUT':
      return EXIT.USAGE
    case 'FILE_READ_ERROR':
    case 'FILE_WRITE_ERROR':
      return EXIT.IO
    default:
      return EXIT.REFUSED
  }
}

// The tolerances `--match` takes (read when the help is shown): the engine's own list (the result
// contract's `Tolerance`, which the input schemas' `match` lists repeat).
function tolerances() {
  return wrap(require('../schemas/results.json').$defs.Tolerance.enum.join(', '), 29, 80)
}

const GLOBAL_OPTIONS = {
  root: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
}

// ---------------------------------------------------------------------------
// Commands

const COMMANDS = {
  patch: {
    summary: 'Replace one exact block of text in a file (exactly once unless told otherwise)',
    usage: () => `Usage:
  ${PROG} patch FILE --search TEXT --replace TEXT [options]
  ${PROG} patch FILE --search-file F --replace-file F [options]
  ${PROG} patch --json [--root DIR] < request.json

Replaces the block only if it occurs exactly once (or as many times as
--expected-replacements says); otherwise nothing is written. FILE is relative
to the current directory and must lie inside the workspace root.

Options:
  --search TEXT              the exact current text (use --search=-x for text starting with '-')
  --replace TEXT             the replacement ('' deletes the block)
  --search-file F            read the search text from file F, bytes kept exactly
  --replace-file F           read the replacement from file F ('-' for stdin, either one)
  --expected-replacements N  require exactly N occurrences and replace all of them
  --replace-all              replace every occurrence (at least one)
  --expected-sha256 HEX      refuse (FILE_CHANGED) unless the file still has this sha256
  --match LIST               tolerate these differences (comma-separated):
${tolerances()};
                             a failure names the ones it saw
  --dry-run                  print the unified diff; write nothing
  --json                     read one request object (the patch_file MCP tool's
                             arguments) from stdin; print the result JSON on stdout
  --root DIR                 workspace root (beats ${ENV}; default: the enclosing git work tree, else cwd)`,
    options: {
      search: { type: 'string' },
      replace: { type: 'string' },
      'search-file': { type: 'string' },
      'replace-file': { type: 'string' },
      'expected-replacements': { type: 'string' },
      'replace-all': { type: 'boolean' },
      'expected-sha256': { type: 'string' },
      match: { type: 'string' },
      'dry-run': { type: 'boolean' },
      json: { type: 'boolean' },
    },
    positionals: true,
    run: runPatch,
  },
  call: {
    summary: 'Run any MCP tool (patch_file, batch_patch_files, read_file, write_file...) with JSON arguments from stdin',
    usage: () => `Usage:
  ${PROG} call TOOL [--root DIR] < arguments.json

Reads one JSON object (the tool's MCP arguments) from stdin and prints the
result JSON on stdout. Tools: ${toolNames()}.
A dry run's run_id lives in the process that made it, so apply_last_dry_run
is only useful inside the MCP server.`,
    options: {},
    positionals: true,
    run: runCall,
  },
  'apply-patch': {
    summary: 'Apply a Codex patch (*** Begin Patch) or a unified/git diff from stdin, all files or none',
    usage: `Usage:
  ${PROG} apply-patch [PATCH] [--root DIR] [--dry-run] [--json] < patch

Reads the patch from stdin (or from the file PATCH) and applies it inside the
workspace root (default: the enclosing git work tree, else the current
directory). A git diff's paths are read from the top of its work tree (run it
from there); a Codex patch's or a plain diff's from the current directory, as
Codex's apply_patch and patch read theirs: files added, deleted, moved and
updated together, or none at all. Hunks are located by their lines,
exactly first, then ignoring trailing whitespace, surrounding whitespace and
Unicode punctuation; each must match one place only.

Options:
  --dry-run   print the unified diff; write nothing
  --json      print the result object as JSON
  --root DIR  workspace root (beats ${ENV}; default: above)`,
    options: { 'dry-run': { type: 'boolean' }, json: { type: 'boolean' } },
    positionals: true,
    run: runApplyPatch,
  },
  'edit-lines': {
    summary: 'Edit lines named by LINE#ID anchors (from read --anchors), all edits or none',
    usage: `Usage:
  ${PROG} read FILE --anchors [--root DIR]
  ${PROG} edit-lines [--root DIR] < request.json

read --anchors prints FILE with each line tagged LINE#ID| and keeps what it
showed (in the per-user state, for an hour) so that edit-lines can check its
anchors against it. edit-lines reads one edit_lines request from stdin
({ "file_path", "edits": [{ "op", "pos", "end", "lines" }], "dry_run" }) and
prints the result JSON; a stale anchor is refused (ANCHOR_MISMATCH, exit 1).`,
    options: {},
    positionals: true,
    run: ({ positionals, root }) => {
      if (positionals.length) throw new UsageError('edit-lines reads its request from stdin and takes no FILE')
      return runJson(require('./tools.js').get('edit_lines'), root)
    },
  },
  read: {
    summary: 'Print a file (with --anchors: each line tagged LINE#ID| for edit-lines)',
    usage: `Usage:
  ${PROG} read FILE [--anchors] [--json] [--root DIR]`,
    options: { anchors: { type: 'boolean' }, json: { type: 'boolean' } },
    positionals: true,
    run: runRead,
  },
  history: {
    summary: 'List the recent write transactions in this workspace (the edit journal), newest first',
    usage: `Usage:
  ${PROG} history [FILE] [--limit N] [--json] [--root DIR]

Lists the transactions journaled for the workspace root (default: the
enclosing git work tree, else the current directory): id, time, entry point and each file's change. FILE: only those
touching it. The journal lives outside the workspace (PATCH_FILE_JOURNAL:
off or an absolute directory; default the per-user state directory).

Options:
  --limit N   at most N transactions (default 20)
  --json      print the result object as JSON
  --root DIR  workspace root (beats ${ENV}; default: the enclosing git work tree, else cwd)`,
    options: { limit: { type: 'string' }, json: { type: 'boolean' } },
    positionals: true,
    run: runHistory,
  },
  undo: {
    summary: 'Undo a journaled write transaction (default: the newest not yet undone), all files or none',
    usage: `Usage:
  ${PROG} undo [ID] [--dry-run] [--json] [--root DIR]

Puts every file of transaction ID (see history; default: the newest not yet
undone) back to its exact bytes and mode before it. Refused (exit 1,
FILE_CHANGED) when a file changed since; nothing is written then. Undoing an
undo's ID is a redo.

Options:
  --dry-run   print the unified diff; write nothing
  --json      print the result object as JSON
  --root DIR  workspace root (beats ${ENV}; default: the enclosing git work tree, else cwd)`,
    options: { 'dry-run': { type: 'boolean' }, json: { type: 'boolean' } },
    positionals: true,
    run: runUndo,
  },
  journal: {
    summary: "Manage this workspace's edit journal: journal clear",
    usage: `Usage:
  ${PROG} journal clear [--json] [--root DIR]

Removes every journaled transaction of the workspace (their saved previous
file contents included); later ones are recorded again unless
PATCH_FILE_JOURNAL=off.`,
    options: { json: { type: 'boolean' } },
    positionals: true,
    run: runJournal,
  },
}

async function runRead({ values, positionals, root }) {
  if (positionals.length !== 1) throw new UsageError('read takes one FILE')
  const opts = cliOptions(root)
  const input = { file_path: named(positionals[0]) }
  if (values.anchors) input.anchors = true
  const result = await engine.run(require('./tools.js').get('read_file'), input, opts)
  if (values.json || !result.ok) process.stdout.write(JSON.stringify(result) + '\n')
  else process.stdout.write(result.content)
  return exitCodeFor(result)
}

async function runHistory({ values, positionals, root }) {
  const tools = require('./tools.js')
  if (positionals.length > 1) throw new UsageError(`history takes at most one FILE, got ${positionals.length}`)
  const input = {}
  if (values.limit !== undefined) {
    if (!/^[1-9]\d*$/.test(values.limit)) throw new UsageError(`--limit needs a positive whole number, got ${JSON.stringify(values.limit)}`)
    input.limit = Number(values.limit)
  }
  const opts = cliOptions(root)
  if (positionals.length) input.file_path = named(positionals[0])
  const result = await engine.run(tools.get('history'), input, opts)
  if (values.json) {
    process.stdout.write(JSON.stringify(result) + '\n')
  } else if (result.ok) {
    if (!result.transactions.length) process.stdout.write(`no journaled transactions${result.enabled ? '' : ' (the journal is off)'}\n`)
    for (const t of result.transactions) {
      if (t.damaged) {
        process.stdout.write(`${t.id}  damaged (${t.damage}): ${t.why_not_undoable}\n`)
        continue
      }
      const state = t.undone_by ? ` (undone by ${t.undone_by})` : t.undoable ? '' : ' (not undoable)'
      process.stdout.write(`${t.id}  ${t.time}  ${t.entry_point}${t.undoes ? ` ${t.undoes}` : ''}${state}\n`)
      for (const f of t.files) {
        const lines = f.added == null ? '' : ` +${f.added} -${f.removed}`
        process.stdout.write(`    ${f.kind} ${f.from ? `${f.from} -> ` : ''}${f.file_path}${lines}\n`)
      }
    }
  } else {
    printFailure(result)
  }
  return exitCodeFor(result)
}

async function runUndo({ values, positionals, root }) {
  const tools = require('./tools.js')
  if (positionals.length > 1) throw new UsageError(`undo takes at most one transaction ID, got ${positionals.length}`)
  const input = {}
  if (positionals.length) input.id = positionals[0]
  if (values['dry-run']) input.dry_run = true
  const result = await engine.run(tools.get('undo'), input, cliOptions(root))
  if (values.json) {
    process.stdout.write(JSON.stringify(result) + '\n')
  } else if (result.ok) {
    if (result.dry_run) process.stdout.write(result.diff || '')
    for (const f of result.files) process.stdout.write(`${result.dry_run ? 'would be ' : ''}${f.action} ${display(f.file_path)}\n`)
    process.stdout.write(
      result.dry_run
        ? `dry run: transaction ${result.undone} would be ${result.redo ? 'redone' : 'undone'}; nothing written\n`
        : `${result.redo ? 'redid' : 'undid'} transaction ${result.undone} (as transaction ${result.id}; undo it to reverse)\n`,
    )
    printNotes(result)
  } else {
    printFailure(result)
  }
  return exitCodeFor(result)
}

async function runJournal({ values, positionals, root }) {
  if (positionals.length !== 1 || positionals[0] !== 'clear') throw new UsageError('journal takes one subcommand: clear')
  const result = await require('../binding.js').journalClear({}, cliOptions(root))
  if (values.json) {
    process.stdout.write(JSON.stringify(result) + '\n')
  } else if (result.ok) {
    process.stdout.write(`removed ${result.removed} journaled transaction${result.removed === 1 ? '' : 's'} from ${result.journal}\n`)
  } else {
    printFailure(result)
  }
  return exitCodeFor(result)
}

async function runApplyPatch({ values, positionals, root }) {
  const tools = require('./tools.js')
  if (positionals.length > 1) throw new UsageError(`apply-patch takes at most one PATCH file, got ${positionals.length}`)
  const from = positionals[0]
  if ((from === undefined || from === '-') && process.stdin.isTTY) {
    process.stderr.write(`${PROG}: reading the patch from stdin (end with Ctrl-D)\n`)
  }
  let text
  if (from === undefined || from === '-') {
    text = utf8(await readStdin())
    if (text === null) throw new UsageError('the patch on stdin is not valid UTF-8 text')
  } else {
    text = await readTextFile(from, 'PATCH')
  }
  // Where the patch's paths are read from: the working directory, as Codex's
  // apply_patch and `patch` read a Codex patch's or a plain `diff -u`'s; a git
  // diff (`diff --git`) only from the top of its work tree (`gitDiffHere`).
  ;({ root } = rootOrThrow(values.root, { gitRoot: true }))
  if (isGitDiff(text)) gitDiffHere('apply-patch', root)
  const input = values['dry-run'] ? { patch: text, dry_run: true } : { patch: text }
  // The project's root (its one journal), the paths from here.
  const result = await engine.run(tools.get('apply_patch'), input, cliOptions(root))
  if (values.json) {
    process.stdout.write(JSON.stringify(result) + '\n')
  } else if (result.ok) {
    if (result.dry_run) process.stdout.write(result.diff)
    for (const f of result.files) {
      const levels = (f.hunks || []).map((h) => h.level).filter((l) => l !== 'exact')
      const how = f.hunks ? ` (${f.hunks.length} hunk${f.hunks.length === 1 ? '' : 's'}${levels.length ? `; matched ignoring ${[...new Set(levels)].join(', ')}` : ''})` : ''
      const where = f.action === 'move' ? `${display(f.file_path)} -> ${display(f.move_to)}` : display(f.file_path)
      process.stdout.write(`${result.dry_run ? 'would ' : ''}${f.action} ${where}${how}\n`)
    }
    if (result.dry_run) process.stdout.write('dry run: nothing written\n')
    printNotes(result)
  } else {
    printFailure(result)
  }
  return exitCodeFor(result)
}

function toolNames() {
  return require('./tools.js')
    .list()
    .map((t) => t.name)
    .join(', ')
}

async function runPatch({ values, positionals, root }) {
  const tools = require('./tools.js')
  const tool = tools.get('patch_file')
  const flags = ['search', 'replace', 'search-file', 'replace-file', 'expected-replacements', 'replace-all', 'expected-sha256', 'dry-run']
  if (values.json) {
    const extra = flags.filter((f) => values[f] !== undefined)
    if (positionals.length || extra.length) {
      throw new UsageError(`patch --json takes its request from stdin only; drop ${[...positionals, ...extra.map((f) => '--' + f)].join(' ')}`)
    }
    return runJson(tool, root)
  }
  if (positionals.length !== 1) {
    throw new UsageError(positionals.length ? `patch takes one FILE, got ${positionals.length}` : 'patch needs a FILE')
  }
  const pair = (name) => {
    const inline = values[name]
    const file = values[`${name}-file`]
    if ((inline === undefined) === (file === undefined)) {
      throw new UsageError(`give exactly one of --${name} TEXT and --${name}-file F`)
    }
    return inline !== undefined ? inline : readTextFile(file, `--${name}-file`)
  }
  if (values['search-file'] === '-' && values['replace-file'] === '-') {
    throw new UsageError('only one of --search-file and --replace-file can be - (stdin)')
  }
  const input = {
    file_path: named(positionals[0]),
    search_block: await pair('search'),
    replace_block: await pair('replace'),
  }
  if (values['expected-replacements'] !== undefined) {
    const s = values['expected-replacements']
    if (!/^\d+$/.test(s)) throw new UsageError(`--expected-replacements needs a whole number, got ${JSON.stringify(s)}`)
    input.expected_replacements = Number(s)
  }
  if (values['replace-all']) input.replace_all = true
  if (values['expected-sha256'] !== undefined) input.expected_sha256 = values['expected-sha256']
  if (values.match !== undefined) {
    const list = values.match.split(',').map((m) => m.trim()).filter(Boolean)
    if (!list.length) throw new UsageError('--match needs a comma-separated list of tolerances')
    input.match = list.length === 1 && list[0] === 'exact' ? 'exact' : list
  }
  if (values['dry-run']) input.dry_run = true

  const result = await engine.run(tool, input, cliOptions(root))
  if (result.ok) {
    const where = `${display(result.file_path)}:${result.line_number}`
    const n = `${result.replacements} replacement${result.replacements === 1 ? '' : 's'}`
    if (result.dry_run) {
      process.stdout.write(result.diff)
      process.stdout.write(`dry run: ${where} (${n}) previewed; nothing written\n`)
    } else {
      process.stdout.write(`patched ${where} (${n})\n`)
    }
    printNotes(result)
  } else {
    printFailure(result)
  }
  return exitCodeFor(result)
}

async function runCall({ positionals, root }) {
  const tools = require('./tools.js')
  if (positionals.length !== 1) throw new UsageError(`call takes one TOOL name (${toolNames()})`)
  const tool = tools.get(positionals[0])
  if (!tool) throw new UsageError(`unknown tool ${JSON.stringify(positionals[0])}; tools: ${toolNames()}`)
  return runJson(tool, root)
}

/** Reads one JSON object from stdin, runs `tool`, prints the result JSON. */
async function runJson(tool, root) {
  if (process.stdin.isTTY) process.stderr.write(`${PROG}: reading the ${tool.name} request JSON from stdin (end with Ctrl-D)\n`)
  const text = utf8(await readStdin())
  if (text === null) {
    const result = { ok: false, code: 'INVALID_INPUT', message: 'stdin is not valid UTF-8 (JSON text must be UTF-8); nothing was run' }
    process.stdout.write(JSON.stringify(result) + '\n')
    return EXIT.USAGE
  }
  let input
  try {
    input = JSON.parse(text)
  } catch (err) {
    const result = { ok: false, code: 'INVALID_INPUT', message: `stdin is not valid JSON: ${err.message}` }
    process.stdout.write(JSON.stringify(result) + '\n')
    return EXIT.USAGE
  }
  if (tool.name === 'apply_patch' && patchTexts(input).some(isGitDiff)) gitDiffHere(`call ${tool.name}`, root)
  const result = await engine.run(tool, input, cliOptions(root))
  process.stdout.write(JSON.stringify(result) + '\n')
  return exitCodeFor(result)
}

/** Every text of an apply_patch request the engine may read as its patch: the request itself, or a field that carries one. */
function patchTexts(input) {
  if (typeof input === 'string') return [input]
  if (input === null || typeof input !== 'object') return []
  return PATCH_KEYS.map((k) => input[k]).filter((t) => typeof t === 'string')
}

/** Whether a patch is a git diff (`diff --git`), not a Codex patch (a BOM read past, as the engine does). */
function isGitDiff(text) {
  const t = text.replace(/^\uFEFF/, '')
  return !/^\s*\*\*\* Begin Patch/.test(t) && /^diff --git /m.test(t)
}

/**
 * A git diff names files from the top of its work tree, as `git apply` reads
 * them; the CLI reads a patch's paths from the current directory (a Codex
 * patch's and a plain diff's, as Codex's apply_patch and `patch` do), so a git
 * diff is applied only from the top of the work tree around here (outside
 * one, from here, as `git apply` does), whatever the root. Below the top its
 * paths are ambiguous (top-relative, or `git diff --relative`), and from a
 * root above the work tree they would name other files: refused, not guessed.
 */
function gitDiffHere(command, root) {
  const here = physicalCwd()
  const top = workTree(here)
  if (top !== null && top !== here) {
    throw new UsageError(
      `a git diff names files from the top of its work tree (${top}), and this is ${here}: run ${command} from the top`,
    )
  }
  if (!beneath(here, root)) {
    throw new UsageError(`a git diff names files from ${here}, which is outside the workspace root ${root}: run ${command} inside the root`)
  }
}

// ---------------------------------------------------------------------------
// Helpers

/** The most stdin read (a request, a patch, a block): 256 MiB unless PATCH_FILE_CLI_MAX_STDIN_BYTES says. */
const MAX_STDIN_BYTES = Number(process.env.PATCH_FILE_CLI_MAX_STDIN_BYTES) || 256 * 1024 * 1024

let stdinCache = null
function readStdin() {
  if (!stdinCache) stdinCache = readWithin(process.stdin, 'stdin')
  return stdinCache
}

/**
 * Every byte of `stream` (stdin, a file, a pipe such as `<(cmd)`), read up to
 * the limit: past it the stream is let go (nothing more is held) and `what`
 * is named in the usage error, not a process that grows until it dies.
 */
async function readWithin(stream, what) {
  const parts = []
  let size = 0
  for await (const chunk of stream) {
    size += chunk.length
    if (size > MAX_STDIN_BYTES) {
      stream.destroy()
      throw new UsageError(`${what} holds more than ${MAX_STDIN_BYTES} bytes (the limit, PATCH_FILE_CLI_MAX_STDIN_BYTES); nothing was run`)
    }
    parts.push(chunk)
  }
  return Buffer.concat(parts)
}

/** The text of a --search-file/--replace-file: exact bytes, which must be UTF-8 (`-`: stdin, within its limit). */
async function readTextFile(file, flag) {
  let bytes
  try {
    bytes = file === '-' ? await readStdin() : await readWithin(fs.createReadStream(file), `${flag} ${file}`)
  } catch (err) {
    if (err instanceof UsageError) throw err
    const e = new Error(`cannot read ${flag} ${file}: ${err.code || err.message}`)
    e.code = 'FILE_READ_ERROR'
    throw e
  }
  const text = utf8(bytes)
  if (text === null) throw new UsageError(`${flag} ${file} is not valid UTF-8 text`)
  return text
}

/** `bytes` as text, exactly (a BOM kept), or null when they are not valid UTF-8: never U+FFFD for a bad byte. */
function utf8(bytes) {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes)
  } catch {
    return null
  }
}

/**
 * A FILE argument as the engine takes it: relative to the working directory
 * as the shell means it. Joined, not normalized: `link/../a.txt` goes up from
 * where `link` points (as the kernel and `cat` read it), which a textual
 * `path.resolve` would turn into another file.
 */
function named(file) {
  return path.isAbsolute(file) ? file : cwd() + path.sep + file
}

/**
 * The engine's options for a command: the root, and relative paths from the
 * working directory when it lies inside the root (a command run in a
 * subdirectory of a project names files from there, as `read FILE` does, and
 * journals and undoes in the project's one journal).
 */
function cliOptions(root) {
  const options = engineOptions(root)
  const { dir } = currentDir()
  if (dir === undefined) return options
  const here = physicalCwd()
  if (here !== root && beneath(here, root)) options.cwd = here
  return options
}

/** The working directory as the kernel resolves it (symlinks followed). */
function physicalCwd() {
  try {
    return fs.realpathSync.native(cwd())
  } catch {
    return cwd()
  }
}

/** The working directory, or the error of reading it (it was deleted). */
function currentDir() {
  try {
    return { dir: process.cwd() }
  } catch (err) {
    return { err }
  }
}

/** The working directory, or `/` when it no longer exists. */
function safeCwd() {
  return currentDir().dir ?? path.sep
}

/** The working directory, or a usage error when it no longer exists. */
function cwd() {
  const { dir, err } = currentDir()
  if (dir === undefined) {
    throw new UsageError(`the current directory cannot be read (${err.code || err.message}); run from a directory that exists`)
  }
  return dir
}

function display(abs) {
  const here = currentDir().dir
  if (here === undefined) return abs
  const rel = path.relative(here, abs)
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : abs
}

/**
 * The engine's words for a caller of the JS API (`closest_match.text`,
 * `match: [...]`), said as this CLI takes them: the closest text is printed
 * below the message, and `match` is the --match flag.
 */
function cliWords(message) {
  return message
    .replace(/closest_match\.text \(the exact current text\)/g, 'the closest current text (shown below)')
    .replace(/closest_match\.text/g, 'the closest current text (shown below)')
    .replace(/match: \[((?:"[a-z_]+"(?:, )?)+)\]/g, (_, list) => `--match ${list.replace(/"/g, '').replace(/, /g, ',')}`)
}

/**
 * What a success says beyond its one-line summary, on stderr: warnings, the
 * parse errors the edit introduced (`syntax: "warn"` writes and reports them)
 * and the elision markers expanded, each file's under its name.
 */
function printNotes(result) {
  const lines = []
  const each = [result, ...(Array.isArray(result.files) ? result.files : [])]
  for (const r of each) {
    const name = r.file_path ? display(r.file_path) : ''
    for (const w of r.warnings || []) lines.push(`${PROG}: warning: ${w}`)
    const syn = r.syntax
    for (const e of (syn && syn.errors) || []) {
      const what = e.problem === 'missing' ? `missing ${e.token}` : `unexpected ${JSON.stringify(e.token)}`
      lines.push(`${PROG}: warning: ${name}:${e.line}:${e.column}: ${syn.language} parse error the edit introduced: ${what}`)
      lines.push(`  | ${e.text}`)
    }
    if (syn && syn.more_errors) lines.push(`${PROG}: warning: ${name}: ${syn.more_errors} more parse errors`)
    for (const k of r.expanded || []) {
      lines.push(`${PROG}: note: ${name}: ${JSON.stringify(k.marker)} (line ${k.line} of the new text) kept lines ${k.kept_lines.join('-')}`)
    }
  }
  if (lines.length) process.stderr.write(lines.join('\n') + '\n')
}

function printFailure(result) {
  const lines = [`${PROG}: ${result.code}: ${cliWords(result.message)}`]
  const c = result.closest_match
  if (c && typeof c.text === 'string') {
    const at = c.end_line && c.end_line !== c.line_number ? `lines ${c.line_number}-${c.end_line}` : `line ${c.line_number}`
    const similar = typeof c.similarity === 'number' ? `, ${Math.round(c.similarity * 100)}% similar` : ''
    lines.push(`  closest current text (${at}${similar}):`)
    for (const l of c.text.replace(/\n$/, '').split('\n')) lines.push(`  | ${l}`)
  }
  if (result.match_lines && result.match_lines.length) lines.push(`  matches start at lines ${result.match_lines.join(', ')}`)
  for (const f of result.failed_edits || []) lines.push(`  edit ${f.index}: ${f.code}: ${f.message}`)
  if (result.line && result.code === 'PATCH_PARSE_ERROR') lines.push(`  at line ${result.line}: expected ${result.expected}`)
  if (result.failures && result.failures.length > 1) for (const f of result.failures) lines.push(`  ${f.path}: ${f.code}: ${f.message}`)
  if (result.sha256 && result.code === 'FILE_CHANGED') lines.push(`  current sha256 ${result.sha256}`)
  process.stderr.write(lines.join('\n') + '\n')
}

function help() {
  const width = Math.max(...Object.keys(COMMANDS).map((n) => n.length)) + 1
  const cmds = Object.entries(COMMANDS)
    .map(([name, c]) => `  ${name.padEnd(width)} ${c.summary}`)
    .join('\n')
  return `${PROG} ${version()}: exact-once, atomic, sandboxed file edits for AI coding agents.

Usage:
  ${PROG} [--root DIR] [--tools LIST] [--output-schemas] [--full-results] [--syntax MODE]
                                run the MCP server on stdin/stdout (also: patch-file-mcp)
  ${PROG} COMMAND [options]     run one command
  ${PROG} COMMAND --help        a command's options
  ${PROG} --help | --version

MCP server options:
  --tools LIST        the tools to list, by name or profile, comma-separated
                      (beats ${TOOLS_ENV}; default: default). Profiles:
${profileHelp()}
${wrap(`Tools: ${toolNames()}.`, 22, 78)}
  --output-schemas    list each tool's output schema and answer with
                      structuredContent too (beats ${OUTPUT_SCHEMAS_ENV}=on|off;
                      default: off)
  --full-results      answer with the engine's full result objects (sizes,
                      both hashes, absolute paths) instead of the compact ones
                      (beats ${RESULTS_ENV}=full|compact)
  --syntax MODE       a parse error an edit introduces: warn (write and
                      report; default), refuse (write nothing) or off
                      (beats ${SYNTAX_ENV})

Commands:
${cmds}

Workspace root: --root DIR, else ${ENV}, else (commands) the nearest
enclosing git work tree, else the current directory; (the MCP server) the
client's MCP roots, and without them every call is refused. Resolved once to
its real path (symlinks followed, '..' applied after them). Paths outside it
are refused. A flag beats its environment variable.

Exit codes:
  0  applied
  1  refused by the engine (not found, ambiguous, outside the workspace, binary, changed...)
  2  usage error or INVALID_INPUT (including a root that does not exist or is not a directory)
  3  I/O error (FILE_READ_ERROR, FILE_WRITE_ERROR; a root that cannot be opened)
  4  the native engine cannot be loaded here: not built yet in a checkout,
     packed without it, its platform package not installed, or no binary for
     this platform (the message says which and what to do); the MCP server
     exits with 4 at start-up too
`
}

/** `text` in lines of at most `width` characters, each indented by `indent` spaces. */
function wrap(text, indent, width) {
  const lines = []
  let line = ''
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width - indent) {
      lines.push(line)
      line = word
    } else {
      line = line ? `${line} ${word}` : word
    }
  }
  if (line) lines.push(line)
  return lines.map((l) => ' '.repeat(indent) + l).join('\n')
}

/** One help line per profile: its name and its tools. */
function profileHelp() {
  const { PROFILES } = require('./tools.js')
  const width = Math.max(...Object.keys(PROFILES).map((n) => n.length)) + 1
  return Object.entries(PROFILES)
    .map(([name, list]) => `                        ${name.padEnd(width)} ${name === 'all' ? 'every tool' : list.join(', ')}`)
    .join('\n')
}

function commandUsage(cmd) {
  return typeof cmd.usage === 'function' ? cmd.usage() : cmd.usage
}

/** The workspace root, resolved once (js/root.js): {root, given}. Warnings go to stderr. */
function rootOrThrow(flag, { gitRoot = false } = {}) {
  const absolute = (p) => p !== undefined && p !== '' && path.isAbsolute(p)
  const fixed = flag !== undefined ? absolute(flag) : absolute(process.env[ENV])
  // An absolute root needs no working directory (it may have been deleted).
  const r = resolveRoot(flag, process.env, fixed ? safeCwd() : cwd(), { gitRoot })
  for (const w of r.warnings) process.stderr.write(`${PROG}: warning: ${w}\n`)
  if (r.error && r.errorKind === 'io') {
    const e = new Error(r.error)
    e.code = 'FILE_READ_ERROR'
    throw e
  }
  if (r.error) throw new UsageError(r.error)
  return r
}

// ---------------------------------------------------------------------------
// Entry point

/** Runs the CLI with `argv` (without node and the script); sets process.exitCode. */
async function main(argv) {
  // A reader that went away (`| head -1`, a closed pipe) is no failure of the
  // command, whose work is done or refused as its exit code says: the rest of
  // its output is dropped, with no stack trace in place of that exit code.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err) => {
      if (err.code !== 'EPIPE') throw err
    })
  }
  let code
  try {
    code = await dispatch(argv)
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`${PROG}: ${err.message}\nRun '${PROG} --help' for usage.\n`)
      code = EXIT.USAGE
    } else if (err && err.code === 'NATIVE_ENGINE_UNAVAILABLE') {
      process.stderr.write(`${err.message}\n`)
      code = EXIT.NO_ENGINE
    } else if (err && err.code === 'FILE_READ_ERROR') {
      process.stderr.write(`${PROG}: FILE_READ_ERROR: ${err.message}\n`)
      code = EXIT.IO
    } else {
      process.stderr.write(`${PROG}: ${err && err.stack ? err.stack : err}\n`)
      code = EXIT.REFUSED
    }
  }
  if (code !== undefined) process.exitCode = code
}

async function dispatch(argv) {
  const name = argv[0]
  if (name !== undefined && !name.startsWith('-')) {
    const cmd = Object.prototype.hasOwnProperty.call(COMMANDS, name) ? COMMANDS[name] : undefined
    if (!cmd) throw new UsageError(`unknown command ${JSON.stringify(name)}; commands: ${Object.keys(COMMANDS).join(', ')}`)
    const { values, positionals } = parse(argv.slice(1), { ...GLOBAL_OPTIONS, ...cmd.options }, cmd.positionals)
    if (values.help) {
      process.stdout.write(commandUsage(cmd) + '\n')
      return EXIT.OK
    }
    checkEnv()
    // apply-patch chooses its default root once it has read the patch (runApplyPatch).
    const { root } = name === 'apply-patch' ? { root: undefined } : rootOrThrow(values.root, { gitRoot: true })
    return cmd.run({ values, positionals, root })
  }
  const { values } = parse(argv, { ...GLOBAL_OPTIONS, ...SERVER_OPTIONS, version: { type: 'boolean', short: 'V' } }, false)
  if (values.help) {
    process.stdout.write(help())
    return EXIT.OK
  }
  if (values.version) {
    process.stdout.write(version() + '\n')
    return EXIT.OK
  }
  const served = serverOptions(values)
  // A configured root (--root, else the variable) is the server's only root; without one, the
  // client's MCP roots (js/workspace.js), never the working directory.
  const configured = values.root !== undefined || (process.env[ENV] !== undefined && process.env[ENV] !== '')
  const { root, given } = configured ? rootOrThrow(values.root) : {}
  await require('./mcp.js').serve({ root, given, version: version(), ...served })
  return undefined // the server exits the process itself
}

/** The options of the MCP server (no command). */
const SERVER_OPTIONS = {
  tools: { type: 'string' },
  'output-schemas': { type: 'boolean' },
  'full-results': { type: 'boolean' },
  syntax: { type: 'string' },
}

const TOOLS_ENV = 'PATCH_FILE_TOOLS'
const OUTPUT_SCHEMAS_ENV = 'PATCH_FILE_OUTPUT_SCHEMAS'
const RESULTS_ENV = 'PATCH_FILE_RESULTS'
const SYNTAX_ENV = 'PATCH_FILE_SYNTAX'
const SYNTAX_MODES = ['warn', 'refuse', 'off']

/**
 * The server's tool selection, output-schema switch and result view: the flag,
 * else the environment variable, else the default (the `default` profile; no
 * output schemas; compact results). A variable overridden by a different flag
 * earns a warning on stderr; an unknown tool or profile name, or a switch
 * value that is neither on nor off, is a usage error (also in a variable a
 * flag overrides: it is still a mistake).
 */
function serverOptions(values, env = process.env) {
  const set = (name) => env[name] !== undefined && env[name] !== ''
  const warn = (text) => process.stderr.write(`${PROG}: warning: ${text}\n`)
  const tools = require('./tools.js')
  let spec = 'default'
  let from = null
  if (values.tools !== undefined) {
    spec = values.tools
    from = '--tools'
    if (set(TOOLS_ENV) && env[TOOLS_ENV] !== spec) warn(`${TOOLS_ENV}=${env[TOOLS_ENV]} is ignored: --tools ${spec} is given`)
  } else if (set(TOOLS_ENV)) {
    spec = env[TOOLS_ENV]
    from = TOOLS_ENV
  }
  const chosen = tools.select(spec)
  if (chosen.error) throw new UsageError(`${from}: ${chosen.error}`)
  let outputSchemas = false
  if (set(OUTPUT_SCHEMAS_ENV)) {
    const v = env[OUTPUT_SCHEMAS_ENV].trim().toLowerCase()
    if (['1', 'on', 'true', 'yes'].includes(v)) outputSchemas = true
    else if (['0', 'off', 'false', 'no'].includes(v)) outputSchemas = false
    else throw new UsageError(`${OUTPUT_SCHEMAS_ENV} must be on or off (or 1/0, true/false), not ${JSON.stringify(env[OUTPUT_SCHEMAS_ENV])}`)
    if (values['output-schemas'] && !outputSchemas) warn(`${OUTPUT_SCHEMAS_ENV}=${env[OUTPUT_SCHEMAS_ENV]} is ignored: --output-schemas is given`)
  }
  if (values['output-schemas'] === true) outputSchemas = true
  let results = 'compact'
  if (set(RESULTS_ENV)) {
    const v = env[RESULTS_ENV].trim().toLowerCase()
    if (v !== 'full' && v !== 'compact') {
      throw new UsageError(`${RESULTS_ENV} must be full or compact, not ${JSON.stringify(env[RESULTS_ENV])}`)
    }
    if (values['full-results'] && v !== 'full') warn(`${RESULTS_ENV}=${env[RESULTS_ENV]} is ignored: --full-results is given`)
    results = v
  }
  if (values['full-results'] === true) results = 'full'
  let syntax
  if (set(SYNTAX_ENV)) {
    syntax = env[SYNTAX_ENV].trim().toLowerCase()
    if (!SYNTAX_MODES.includes(syntax)) throw new UsageError(`${SYNTAX_ENV} must be warn, refuse or off, not ${JSON.stringify(env[SYNTAX_ENV])}`)
    if (values.syntax !== undefined && values.syntax !== syntax) warn(`${SYNTAX_ENV}=${env[SYNTAX_ENV]} is ignored: --syntax ${values.syntax} is given`)
  }
  if (values.syntax !== undefined) {
    if (!SYNTAX_MODES.includes(values.syntax)) throw new UsageError(`--syntax must be warn, refuse or off, not ${JSON.stringify(values.syntax)}`)
    syntax = values.syntax
  }
  checkEnv(env)
  return { tools: chosen.tools, outputSchemas, results, syntax }
}

const HARD_LINK_MODES = ['refuse', 'split', 'keep']
const MIN_MESSAGE_BYTES = 4096

/**
 * The settings read from the environment that every call would otherwise
 * find wrong one by one: checked at start, a usage error (exit 2).
 */
function checkEnv(env = process.env) {
  const set = (name) => env[name] !== undefined && env[name] !== ''
  const links = 'PATCH_FILE_HARD_LINKS'
  if (set(links) && !HARD_LINK_MODES.includes(env[links])) {
    throw new UsageError(`${links} must be refuse, split or keep, not ${JSON.stringify(env[links].slice(0, 64))}`)
  }
  const elisions = 'PATCH_FILE_ELISIONS'
  if (set(elisions) && !['expand', 'literal'].includes(env[elisions])) {
    throw new UsageError(`${elisions} must be expand or literal, not ${JSON.stringify(env[elisions].slice(0, 64))}`)
  }
  const journal = 'PATCH_FILE_JOURNAL'
  if (set(journal) && !/^(off|false|0|no|on|true|1|yes)$/i.test(env[journal]) && !path.isAbsolute(env[journal])) {
    throw new UsageError(`${journal} must be off, on or an absolute directory, not ${JSON.stringify(env[journal].slice(0, 64))}`)
  }
  const stdin = 'PATCH_FILE_CLI_MAX_STDIN_BYTES'
  if (set(stdin) && !/^\s*[1-9]\d*\s*$/.test(env[stdin])) {
    throw new UsageError(`${stdin} must be a whole number of bytes, at least 1, not ${JSON.stringify(env[stdin].slice(0, 64))}`)
  }
  for (const name of ['PATCH_FILE_MCP_MAX_MESSAGE_BYTES', 'PATCH_FILE_MCP_MAX_RESULT_BYTES']) {
    if (!set(name)) continue
    const v = env[name].trim()
    if (!/^\d+$/.test(v) || Number(v) < MIN_MESSAGE_BYTES) {
      throw new UsageError(`${name} must be a whole number of bytes, at least ${MIN_MESSAGE_BYTES}, not ${JSON.stringify(env[name].slice(0, 64))}`)
    }
  }
}

/** Levenshtein distance of two short strings. */
function distance(a, b) {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const cur = [i]
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
    prev = cur
  }
  return prev[b.length]
}

/** parseArgs's error in this CLI's words: an unknown option gets the nearest known one. */
function optionError(err, options) {
  const m = err && err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && /Unknown option '(-{1,2})([^']*)'/.exec(err.message)
  if (!m) return err.message
  const given = m[2].split('=')[0].slice(0, 64)
  const names = Object.keys(options)
  let best = null
  for (const n of names) {
    const d = distance(given, n)
    if (d <= Math.max(1, Math.floor(n.length / 3)) && (!best || d < best.d)) best = { n, d }
  }
  const known = names.map((n) => `--${n}`).join(', ')
  return best
    ? `unknown option ${m[1]}${given}; did you mean --${best.n}?`
    : `unknown option ${m[1]}${given} (options here: ${known}; a value starting with '-' goes as --option=-value)`
}

/**
 * parseArgs, strict; a flag that takes one value and is given more than once
 * is a usage error (parseArgs would keep the last value silently, so
 * `--search a --search b` would search for `b` alone).
 */
function parse(args, options, allowPositionals) {
  let parsed
  try {
    parsed = parseArgs({ args, options, allowPositionals, strict: true, tokens: true })
  } catch (err) {
    throw new UsageError(optionError(err, options))
  }
  const seen = new Map()
  for (const t of parsed.tokens) {
    if (t.kind !== 'option' || options[t.name].type !== 'string' || options[t.name].multiple) continue
    seen.set(t.name, (seen.get(t.name) || 0) + 1)
  }
  for (const [name, n] of seen) {
    if (n > 1) throw new UsageError(`--${name} was given ${n} times; it takes one value, give it once`)
  }
  return { values: parsed.values, positionals: parsed.positionals }
}

module.exports = { main, COMMANDS, EXIT, exitCodeFor, serverOptions }
