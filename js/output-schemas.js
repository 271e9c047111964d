'use strict'
// The MCP `outputSchema` of each tool: the shape of its result object (the
// `structuredContent` of a tools/call answer), keyed by tool name and built
// from the shared blocks below.
//
// A result is either a success (`ok: true` plus the tool's figures) or a
// failure (`ok: false`, a stable `code`, a `message` and the details that
// help a retry), so only `ok` is required and every other field is described
// as optional. Extra fields are allowed: new engine versions may add some.
// These mirror the result types in types/header.d.ts.
//
// The field descriptions are for maintainers and readers of this file: the
// server lists these schemas only when asked (--output-schemas), and then
// without descriptions (js/mcp.js `leanSchema`), since a client that shows
// them to a model spends its context on them. Every construct here is one
// that clients map to their own schema dialects without loss (one `type` per
// schema; a nullable value is an `anyOf` of its type and null):
// __test__/schema-portability.test.mjs checks it.

const int = (description) => ({ type: 'integer', description })
const str = (description) => ({ type: 'string', description })
const bool = (description) => ({ type: 'boolean', description })
/** A value of `schema`'s type, or null. */
const nullable = (schema, description) => ({ anyOf: [schema, { type: 'null' }], description })

const editFailure = {
  type: 'object',
  properties: {
    index: int('0-based index of the failing edit.'),
    code: str('Stable error code of this edit.'),
    match_count: int('How many times its search_block occurs.'),
    message: str('What went wrong with this edit.'),
    match_lines: { type: 'array', items: { type: 'integer' }, description: '1-based start lines of the matches.' },
  },
}

/** Fields every failure may carry. */
const failure = {
  ok: bool('true when the call succeeded; false when nothing was written and `code` says why.'),
  code: str(
    'Failure only: stable error code, e.g. SEARCH_BLOCK_NOT_FOUND, SEARCH_BLOCK_AMBIGUOUS, REPLACEMENT_COUNT_MISMATCH, FILE_CHANGED, RUN_ID_NOT_FOUND, PATH_OUTSIDE_WORKSPACE, INVALID_INPUT.',
  ),
  message: str('Failure only: what went wrong and the shortest next step.'),
  file_path: str('Path of the file concerned (relative to the workspace root in compact results).'),
  match_count: int('Failure only: how many times the search_block occurs (0: not found, >1: ambiguous).'),
  match_lines: { type: 'array', items: { type: 'integer' }, description: '1-based start lines of the matches (ambiguous).' },
  failed_edits: { type: 'array', items: editFailure, description: 'Every failing edit of a multi-edit, by index.' },
  sha256: str('Success: sha256 (hex) of the file now. FILE_CHANGED: its current sha256.'),
}

const preview = {
  dry_run: bool('Present and true on a dry run: nothing was written.'),
  diff: str('Dry run: unified diff of the change (a/ b/ paths relative to the workspace root).'),
  run_id: str('Dry run: pass it to apply_last_dry_run to write exactly this preview.'),
  expires_in: int('Dry run: seconds the run_id stays applicable.'),
}

/** How a file was written (every successful write reports it). */
const written = {
  write_strategy: {
    type: 'string',
    enum: ['rename', 'in_place'],
    description: 'rename: a new file carrying the original\'s owner, mode, ACLs, xattrs and flags replaced it; in_place: the same file was rewritten (a rename would have lost something).',
  },
  write_strategy_reason: str('in_place: why a rename would have lost something.'),
}

const patched = {
  ...failure,
  replacements: int('Occurrences replaced in total.'),
  line_number: int('1-based line where the (first) match starts.'),
  before_chars: int('Text length before, in UTF-16 code units.'),
  after_chars: int('Text length after, in UTF-16 code units.'),
  before_bytes: int('Size on disk before.'),
  after_bytes: int('Size on disk after.'),
  edits: {
    type: 'array',
    description: 'One entry per edit, in order.',
    items: {
      type: 'object',
      properties: { line_number: int('1-based line of its (first) match.'), replacements: int('Occurrences replaced by this edit.') },
    },
  },
  sha256_before: str('sha256 (hex) of the file before the edit.'),
  ...written,
  ...preview,
}

/** A tool's output schema: an object whose only required field is `ok`. */
const object = (properties) => ({ type: 'object', properties, required: ['ok'] })

/** Results of the edit-format tools (edit_block, apply_patch, the text editor). */
const hunkReport = {
  type: 'object',
  properties: {
    index: int('0-based index of the hunk in its file.'),
    line_number: int('1-based line of the original file where the hunk applied.'),
    level: str('How loosely its lines matched: exact, trailing_whitespace, surrounding_whitespace or unicode_punctuation.'),
    located_by: str('What placed it: content (its lines occur once), line_number (the unified header\'s line chose among equal places, or placed a hunk that only adds lines) or end_of_file.'),
    patch_line: int('1-based line of the hunk in the patch.'),
  },
}
const blockReport = {
  type: 'object',
  properties: {
    index: int('0-based index of the block in its file.'),
    line: int('1-based line of the block in the text.'),
    line_number: int('1-based line where the block matched.'),
    verified: bool('The replacement is present in the file as read back after writing.'),
  },
}
const formatFile = {
  type: 'object',
  properties: {
    path: str('The path as written in the text.'),
    file_path: str('Absolute path of the file (the source, for a move).'),
    action: str('add, update, delete, move or restore.'),
    move_to: str('Absolute destination of a move.'),
    created: bool('add: the file did not exist before.'),
    before_bytes: int('Size on disk before.'),
    after_bytes: int('Size on disk after.'),
    sha256_before: str('sha256 (hex) before.'),
    sha256: nullable({ type: 'string' }, 'sha256 (hex) after; null when the file is removed.'),
    hunks: { type: 'array', items: hunkReport, description: 'Per hunk: where it applied and the level used.' },
    blocks: { type: 'array', items: blockReport, description: 'Per SEARCH/REPLACE block: where it applied and whether it was verified.' },
    diff: str('Dry run: this file\'s unified diff.'),
    ...written,
  },
}
const formatResult = {
  ...failure,
  format: str('The format read: edit_blocks, apply_patch, unified_diff or text_editor.'),
  files: { type: 'array', items: formatFile, description: 'One entry per file operation.' },
  hunks: int('Hunks applied in all.'),
  verified: bool('edit_block: every replacement was found in the file as read back.'),
  line: int('PATCH_PARSE_ERROR: 1-based line of the problem in the text.'),
  expected: str('PATCH_PARSE_ERROR: what was expected at that line.'),
  failures: {
    type: 'array',
    description: 'Every failing file operation (nothing was written).',
    items: { type: 'object', properties: { index: int('0-based operation index.'), path: str('The path as written.'), code: str('Its code.'), message: str('What went wrong.') } },
  },
  rolled_back: { type: 'array', items: { type: 'string' }, description: 'Files restored after a failed commit.' },
  ...preview,
  run_id: nullable({ type: 'string' }, 'Dry run: pass it to apply_last_dry_run to write exactly this preview (null when too large to keep).'),
}


module.exports = {
  patch_file: object(patched),
  batch_patch_files: object({
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
  apply_last_dry_run: object({
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
  read_file: object({
    ...failure,
    content: str('The requested lines, exactly as in the file (line endings kept).'),
    faithful: bool("true when content is exactly the file's text for these lines; false when bytes that are not UTF-8 are shown as U+FFFD (do not write such content back)."),
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
  write_file: object({
    ...failure,
    created: bool('true when the file did not exist before.'),
    after_bytes: int('Size on disk now.'),
    after_chars: int('Text length now, in UTF-16 code units.'),
    encoding: str('Encoding the file was written in (utf-8 when the input had encoding "utf-8").'),
    sha256_before: nullable({ type: 'string' }, 'sha256 before (null for a new file).'),
    ...written,
    ...preview,
  }),
  edit_block: object(formatResult),
  apply_patch: object(formatResult),
  str_replace_based_edit_tool: object({
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
  edit_file: object(patched),
  history: object({
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
          damaged: bool("true: the entry does not read back whole (cut short, altered, or not the engine's); never acted on."),
          damage: str('Why it is damaged: not_a_file, foreign_owner, unreadable, bad_header, wrong_length, bad_fields, kept_inode, bad_content.'),
          files: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                file_path: str('Relative to the workspace root.'),
                kind: str('modified, created, deleted or moved.'),
                from: str('moved: the previous path.'),
                added: nullable({ type: 'integer' }, 'Lines added.'),
                removed: nullable({ type: 'integer' }, 'Lines removed.'),
              },
            },
          },
        },
      },
    },
  }),
  undo: object({
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
          sha256: nullable({ type: 'string' }, 'sha256 of the file after the undo (null: removed).'),
          diff: str("Dry run: this file's diff."),
        },
      },
    },
    ...preview,
  }),
}
