'use strict'
// MCP `outputSchema`s: the shape of each tool's result object (its
// `structuredContent`). A result is either a success (`ok: true` plus the
// tool's figures) or a failure (`ok: false`, a stable `code`, a `message` and
// the details that help a retry), so only `ok` is required and every other
// field is described as optional. Extra fields are allowed: new engine
// versions may add some. These mirror the result types in types/header.d.ts.

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
  ...preview,
}

const object = (properties) => ({ type: 'object', properties, required: ['ok'] })

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
    offset: int('0-based first line returned.'),
    lines: int('Lines returned.'),
    total_lines: int('Lines in the whole file.'),
    next_offset: int('Present when more lines follow: the offset to continue from.'),
    encoding: str('utf-8, utf-16le, utf-16be or binary-safe-bytes.'),
    bom: bool('Whether the file starts with a byte order mark.'),
    line_ending: str('lf, crlf, mixed or none.'),
    bytes: int('Size on disk.'),
  }),
  write_file: object({
    ...failure,
    created: bool('true when the file did not exist before.'),
    after_bytes: int('Size on disk now.'),
    after_chars: int('Text length now, in UTF-16 code units.'),
    encoding: str('Encoding the file was written in.'),
    sha256_before: { type: ['string', 'null'], description: 'sha256 before (null for a new file).' },
    ...preview,
  }),
}
