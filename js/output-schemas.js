'use strict'
// Building blocks of the MCP `outputSchema`s: the shape of a tool's result
// object (its `structuredContent`). Each tool's output schema is part of its
// entry in js/tools.js, built from these blocks with `object(...)`.
//
// A result is either a success (`ok: true` plus the tool's figures) or a
// failure (`ok: false`, a stable `code`, a `message` and the details that
// help a retry), so only `ok` is required and every other field is described
// as optional. Extra fields are allowed: new engine versions may add some.
// These mirror the result types in types/header.d.ts.

const int = (description) => ({ type: 'integer', minimum: 0, description })
const str = (description) => ({ type: 'string', description })
const bool = (description) => ({ type: 'boolean', description })

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
  file_path: str('Absolute path of the file concerned.'),
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
  line_number: { type: 'integer', minimum: 1, description: '1-based line where the (first) match starts.' },
  before_chars: int('Text length before, in UTF-16 code units.'),
  after_chars: int('Text length after, in UTF-16 code units.'),
  before_bytes: int('Size on disk before.'),
  after_bytes: int('Size on disk after.'),
  edits: {
    type: 'array',
    description: 'One entry per edit, in order.',
    items: {
      type: 'object',
      properties: { line_number: { type: 'integer', minimum: 1 }, replacements: int('Occurrences replaced by this edit.') },
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
    sha256: { type: ['string', 'null'], description: 'sha256 (hex) after; null when the file is removed.' },
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
  run_id: { type: ['string', 'null'], description: 'Dry run: pass it to apply_last_dry_run to write exactly this preview (null when too large to keep).' },
}

module.exports = { object, int, str, bool, failure, preview, written, patched, formatFile, formatResult }
