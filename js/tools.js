'use strict'
// The one table of tools. Each entry is one tool everywhere:
//
// - the MCP server lists and runs it (js/mcp.js), the CLI's `call` command
//   runs it (js/cli.js);
// - the public JS API exports its engine function (js/api.js builds index.js
//   from this table; scripts/gen-entry.mjs writes index.mjs and index.d.ts
//   from it), and `schemas.<name>` is its schema file;
// - the agent-SDK adapters (js/adapters/) offer the tools DEFAULT_TOOLS names.
//
// Adding a tool is: its schema file, schemas/<name>.schema.json (name,
// description, parameters); one entry here; and its Rust entry point (a
// `#[napi]` function in src/binding, whose `ts_args_type`/`ts_return_type`
// name its input and result types in types/header.d.ts). README's
// Development section lists the steps.
//
// The engine (the native addon) is loaded on the first call, not when this
// table is read, so listing tools never pays for it.

const { object, int, str, bool, failure, preview, written, patched, formatFile, formatResult } = require('./output-schemas.js')

/**
 * name          MCP tool name = schema file name = key in the `schemas` export.
 * engine        the native binding's function that runs it, exported by index.js
 *               under the same name and called as engine[fn](args, options).
 * sync          (optional) the binding's synchronous variant, also exported by index.js.
 * title         short human title (MCP `title` / annotations.title).
 * hints         MCP tool annotations.
 * outputSchema  MCP `outputSchema`: the result object's fields (blocks from js/output-schemas.js).
 */
const TABLE = [
  {
    name: 'patch_file',
    engine: 'patchFile',
    sync: 'patchFileSync',
    title: 'Patch file (exact search/replace)',
    hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    outputSchema: object(patched),
  },
  {
    name: 'batch_patch_files',
    engine: 'batchPatchFiles',
    title: 'Patch several edits or files at once (all or nothing)',
    hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    outputSchema: object({
      ...failure,
      replacements: int('Occurrences replaced across all files.'),
      files: {
        type: 'array',
        description: "Each file's result (success figures, or its failure with `index`).",
        items: { type: 'object', properties: { index: int('0-based index in the request.'), ...patched } },
      },
      rolled_back: {
        type: 'array',
        items: { type: 'string' },
        description: 'Files already replaced when a later rename failed, restored to their original bytes.',
      },
      ...preview,
    }),
  },
  {
    name: 'apply_last_dry_run',
    engine: 'applyDryRun',
    title: 'Apply a previewed dry run',
    hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    outputSchema: object({
      ...failure,
      run_id: str('The applied run_id.'),
      files: {
        type: 'array',
        description: 'Every file written.',
        items: {
          type: 'object',
          properties: { file_path: str('Absolute path.'), after_bytes: int('Size on disk now.'), sha256: str('sha256 now.') },
        },
      },
    }),
  },
  {
    name: 'read_file',
    engine: 'readFile',
    title: 'Read file (with sha256 and encoding)',
    hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    outputSchema: object({
      ...failure,
      content: str('The requested lines, exactly as in the file (line endings kept).'),
      faithful: bool('true when content is exactly the file\'s text for these lines; false when bytes that are not UTF-8 are shown as U+FFFD (do not write such content back).'),
      warning: str('Present for a file that is not UTF-8 (a legacy encoding or binary-safe-bytes): what content shows and how the file is edited without losing bytes; and for a file torn by an interrupted in-place write, shown as its content before that write (the next write restores it).'),
      offset: int('0-based first line returned.'),
      lines: int('Lines returned.'),
      total_lines: int('Lines in the whole file.'),
      next_offset: int('Present when more lines follow: the offset to continue from.'),
      encoding: str('utf-8, utf-16le, utf-16be, a detected legacy encoding by its WHATWG name in lower case (shift_jis, gbk, big5, euc-kr, euc-jp, windows-1252, ...; content is decoded by it), or binary-safe-bytes (read at byte level).'),
      bom: bool('Whether the file starts with a byte order mark.'),
      line_ending: str('lf, crlf, mixed or none.'),
      bytes: int('Size on disk.'),
    }),
  },
  {
    name: 'write_file',
    engine: 'writeFile',
    title: 'Write whole file (atomic)',
    hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    outputSchema: object({
      ...failure,
      created: bool('true when the file did not exist before.'),
      after_bytes: int('Size on disk now.'),
      after_chars: int('Text length now, in UTF-16 code units.'),
      encoding: str('Encoding the file was written in (utf-8 when the input had encoding "utf-8").'),
      sha256_before: { type: ['string', 'null'], description: 'sha256 before (null for a new file).' },
      ...written,
      ...preview,
    }),
  },
  {
    name: 'edit_block',
    engine: 'applyEditBlocks',
    title: 'Apply SEARCH/REPLACE blocks (all or nothing)',
    hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    outputSchema: object(formatResult),
  },
  {
    name: 'apply_patch',
    engine: 'applyPatch',
    title: 'Apply a Codex patch or unified diff (all or nothing)',
    hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    outputSchema: object(formatResult),
  },
  {
    name: 'str_replace_based_edit_tool',
    engine: 'textEditor',
    title: 'Text editor (view, create, str_replace, insert, undo_edit)',
    hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    outputSchema: object({
      ...formatResult,
      ...formatFile.properties,
      command: str('The command that ran.'),
      kind: str('view: file or directory.'),
      content: str('view: numbered lines (cat -n style) or the directory listing.'),
      entries: { type: 'array', items: { type: 'string' }, description: 'view of a directory: the entries (directories end with /).' },
      start_line: int('view: first line shown.'),
      end_line: int('view: last line shown.'),
      total_lines: int('view: lines in the file.'),
      snippet: str('Numbered lines around the edit.'),
      removed: bool('undo_edit: the undone edit had created the file, so it was removed.'),
      undo_remaining: int('undo_edit: earlier edits of this file that can still be undone.'),
    }),
  },
  {
    name: 'edit_file',
    engine: 'editFile',
    title: 'Edit file (filesystem-server input, exact-once)',
    hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    outputSchema: object(patched),
  },
  {
    name: 'history',
    engine: 'history',
    title: 'List recent write transactions (edit journal)',
    hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    outputSchema: object({
      ...failure,
      workspace_root: str('The workspace whose journal is listed.'),
      journal: str('The journal directory (outside the workspace).'),
      enabled: bool('false when journaling is off for this call (options.journal / PATCH_FILE_JOURNAL).'),
      transactions: {
        type: 'array',
        description: 'Newest first.',
        items: {
          type: 'object',
          properties: {
            id: str('Transaction id (pass it to undo).'),
            time: str('When it was written (UTC, RFC 3339).'),
            entry_point: str('What wrote it: patchFile, batchPatchFiles, writeFile, applyPatch, applyEditBlocks, textEditor, applyDryRun, undo.'),
            undoable: bool('Whether undo can put it back now.'),
            why_not_undoable: str('Why not (too large to keep, already undone).'),
            undone_by: str('The id of the transaction that undid it.'),
            undoes: str('For an undo: the transaction it undid.'),
            redo: bool('For an undo: true when it undid an undo (a redo).'),
            damaged: bool('true: the entry does not read back whole (cut short, altered, or not the engine\'s); never acted on.'),
            damage: str('Why it is damaged: not_a_file, foreign_owner, unreadable, bad_header, wrong_length, bad_fields, kept_inode, bad_content.'),
            files: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  file_path: str('Relative to the workspace root.'),
                  kind: str('modified, created, deleted or moved.'),
                  from: str('moved: the previous path.'),
                  added: { type: ['integer', 'null'], description: 'Lines added.' },
                  removed: { type: ['integer', 'null'], description: 'Lines removed.' },
                },
              },
            },
          },
        },
      },
    }),
  },
  {
    name: 'undo',
    engine: 'undo',
    title: 'Undo a write transaction (all files or none)',
    hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    outputSchema: object({
      ...failure,
      id: str('The id of this undo in the journal (undo it to redo).'),
      undone: str('The transaction undone.'),
      redo: bool('true when the transaction undone was itself an undo.'),
      files_changed: { type: 'array', items: { type: 'string' }, description: 'FILE_CHANGED: the files that changed since the transaction.' },
      files: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            file_path: str('Absolute path.'),
            action: str('restored, removed or recreated.'),
            sha256: { type: ['string', 'null'], description: 'sha256 of the file after the undo (null: removed).' },
            diff: str('Dry run: this file\'s diff.'),
          },
        },
      },
      ...preview,
    }),
  },
]

/**
 * The default tool set: what an agent needs for its editing job (exact
 * edits, reading, whole-file writes, patches, undo), in listing order. The
 * other tools do the same jobs in other shapes or serve narrower needs, and
 * each one listed costs the model context on every turn. The agent-SDK
 * adapters (js/adapters/toolset.js) build their tool sets from this list.
 */
const DEFAULT_TOOLS = Object.freeze(['patch_file', 'read_file', 'write_file', 'apply_patch', 'undo'])

let engineModule = null
/** The package's public API (loads the native addon once). */
function engine() {
  if (!engineModule) engineModule = require('../index.js')
  return engineModule
}

const byName = new Map()
for (const entry of TABLE) {
  for (const key of ['name', 'engine', 'title']) {
    if (typeof entry[key] !== 'string') throw new Error(`js/tools.js: an entry has no ${key}`)
  }
  if (byName.has(entry.name)) throw new Error(`js/tools.js: ${entry.name} is listed twice`)
  const schema = require(`../schemas/${entry.name}.schema.json`)
  if (schema.name !== entry.name) throw new Error(`schemas/${entry.name}.schema.json names ${schema.name}`)
  if (!entry.outputSchema) throw new Error(`js/tools.js: no outputSchema for ${entry.name}`)
  byName.set(entry.name, Object.freeze({ ...entry, schema }))
}

for (const name of DEFAULT_TOOLS) {
  if (!byName.has(name)) throw new Error(`js/tools.js: DEFAULT_TOOLS names ${name}, which is not in the table`)
}

/** Every tool, in table order. */
function list() {
  return [...byName.values()]
}

/** The tool called `name`, or undefined. */
function get(name) {
  return byName.get(name)
}

/**
 * Runs a tool through the engine. Never throws for bad input: the engine
 * answers every input with a result object (`ok: false` + `code` on failure).
 * @param {object} tool  an entry from list()/get()
 * @param {unknown} args the tool arguments as received
 * @param {{workspaceRoot: string}} options engine options
 */
function run(tool, args, options) {
  return engine()[tool.engine](args === undefined ? {} : args, options)
}

/** Loads the engine ahead of the first call (the MCP server does at start-up); throws NATIVE_ENGINE_UNAVAILABLE. */
function warm() {
  engine()
}

module.exports = { list, get, run, warm, engine, DEFAULT_TOOLS }
