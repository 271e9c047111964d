/* eslint-disable */
// Types of the patch-file-tool public API. napi-rs prepends this file to
// binding.d.ts (package.json `napi.dtsHeaderFile`), where the generated
// function declarations of the Rust #[napi] functions use these types;
// scripts/gen-entry.mjs copies it into index.d.ts. Types only: the values
// index.js defines in JS are declared in types/entry.d.ts.
//
// The result types at the end of this file are generated from the engine's
// Rust result types (src/result/ -> schemas/results.json ->
// scripts/gen-results.mjs; `npm run contract`), and the test suite fails when
// they are out of date. What is written by hand: the inputs (each field
// accepts several spellings, a union a Rust type does not have), the public
// names of the results (aliases of the generated types), and the generic
// types that follow a call's dry-run flag to its one result (conditional
// types, which a schema cannot express).

/** Every stable error code. New codes may be added; these never change. */
export type PatchFileErrorCode = ErrorCode

/** One search/replace edit. Each field accepts the spellings of other edit tools. */
export type PatchFileEdit = PatchFileSearch & PatchFileReplace & PatchFileCount

type PatchFilePath = { file_path: string } | { filePath: string }
/** The exact current text to replace, in any of its spellings. */
type PatchFileSearch =
  | { search_block: string }
  | { searchBlock: string }
  | { search: string }
  | { oldText: string }
  | { old_string: string }
  | { old_str: string }
/** Its replacement (`""` deletes it), in any of its spellings. */
type PatchFileReplace =
  | { replace_block: string }
  | { replaceBlock: string }
  | { replace: string }
  | { newText: string }
  | { new_string: string }
  | { new_str: string }
/** How many occurrences an edit replaces (default: exactly one). */
type PatchFileCount = {
  /** Require exactly N occurrences and replace all N (default 1). */
  expected_replacements?: number
  expectedReplacements?: number
  /** Replace every occurrence (at least one). */
  replace_all?: boolean
  replaceAll?: boolean
}

/** A difference tolerant matching may ignore (the `match` option). */
export type PatchFileTolerance = Tolerance

/** A kind of difference named by `closest_match.differences`. */
export type PatchFileDifference = Difference

/** Options common to every write. */
export interface PatchFileCommon {
  /** sha256 (hex) the file must still have; else FILE_CHANGED and nothing is written. */
  expected_sha256?: string
  expectedSha256?: string
  /**
   * 'exact' (default): byte for byte. A list of tolerances: when the block is not found exactly, match it
   * ignoring those differences; it must still occur exactly once, or nothing is written. The replacement is
   * adapted to the file's line endings and the region's indentation.
   */
  match?: 'exact' | PatchFileTolerance[]
  /** Plan only: return `diff` and a `run_id` for applyDryRun; nothing is written. */
  dry_run?: boolean
  dryRun?: boolean
}

/** Input of patchFile: a path plus one search/replace pair or `edits`. */
export type PatchFileInput = PatchFilePath & PatchFileCommon & (PatchFileEdit | { edits: PatchFileEdit[] })

export interface PatchFileOptions {
  /** Directory every path must stay inside. Default: process.cwd(). */
  workspaceRoot?: string
  workspace_root?: string
  /** fsync the file and its directory (default true). false: faster, for throw-away sandboxes. */
  durable?: boolean
  /** Refuse larger files with FILE_TOO_LARGE before reading them (default 1 GiB). */
  maxFileBytes?: number
  max_file_bytes?: number
  /** How long a dry run stays applicable, in seconds (default 300). */
  dryRunTtlSeconds?: number
  dry_run_ttl_seconds?: number
  /**
   * A file with other hard links: 'refuse' (default, HARD_LINKED_FILE), 'split' (only this name gets the new
   * content; the other names keep the old) or 'keep' (written in place: every name sees it, wherever it is).
   */
  hardLinks?: PatchFileHardLinks
  hard_links?: PatchFileHardLinks
  /**
   * An elision marker in new text (`// ... existing code ...` where lines of the file were): 'expand' (default:
   * written as the lines it stands for when they are certain, else ELIDED_CONTENT) or 'literal' (written as sent).
   */
  elisions?: 'expand' | 'literal'
  /**
   * A parse error the edit introduces in a file of a checked language (TypeScript, JavaScript, Python, Rust, Go,
   * Java, C, C++, C#, JSON, YAML, TOML, HTML, CSS, Bash, Ruby, PHP): 'warn' (default: written, and reported in the
   * result's `syntax`), 'refuse' (SYNTAX_ERROR_INTRODUCED, nothing written) or 'off'.
   */
  syntax?: 'warn' | 'refuse' | 'off'
  /**
   * How long an async call waits for a file another call or process is writing before it answers FILE_LOCKED
   * (default 10,000 ms, at most 600,000). The wait happens on the event loop, never on a thread-pool thread.
   */
  lockWaitMs?: number
  lock_wait_ms?: number
  /**
   * Async functions only: cancels the call. A call stopped before its commit answers CANCELLED and wrote nothing;
   * a commit already under way completes.
   */
  signal?: AbortSignal
  /** A time budget for the whole call (waits for busy files included); spent before the commit: CANCELLED. */
  timeoutMs?: number
  timeout_ms?: number
  /**
   * The edit journal (history / undo): `false` records nothing, a string is the journal's base directory,
   * an object sets the caps. Default: on, in the per-user state directory (or `PATCH_FILE_JOURNAL`: `off` or a
   * directory).
   */
  journal?: boolean | string | JournalOptions
  /**
   * 'full' (default): every field. 'compact' (the MCP server's): each fact once, for a model to read: paths
   * relative to the workspace root; no sha256_before, sizes, `replacements: 1`, one-entry `edits` or
   * `write_strategy: 'rename'`. Failures keep their diagnosis.
   */
  results?: 'full' | 'compact'
}

/** `options.journal` as an object. */
export interface JournalOptions {
  enabled?: boolean
  /** Base directory holding one journal per workspace (never the workspace itself unless you say so). */
  dir?: string
  directory?: string
  /** Most transactions kept per workspace (default 500); the oldest go first. */
  maxEntries?: number
  max_entries?: number
  /** Most bytes kept per workspace (default 256 MiB); the oldest go first. */
  maxBytes?: number
  max_bytes?: number
  /** Largest file whose previous content is kept (default 32 MiB); a transaction with a larger file is not undoable. */
  maxFileBytes?: number
  max_file_bytes?: number
}

export type PatchFileHardLinks = 'refuse' | 'split' | 'keep'

/** How a file was written (every successful write reports it). */
export type WriteStrategyReport = Pick<PatchDone, 'write_strategy' | 'write_strategy_reason'>

export type PatchFileEditReport = EditReport

/** The region of the file most like a search block that was not found. */
export type PatchFileClosestMatch = ClosestMatch

/** The smallest extension of an ambiguous block that occurs only once. */
export type PatchFileContextHint = ContextHint

/** What diagnosis adds to a failed edit. */
export type PatchFileDiagnosis = Pick<Failed, 'closest_match' | 'already_applied' | 'applied_at' | 'unique_context_hint' | 'diagnosis_incomplete'>

// ---------------------------------------------------------------------------
// Dry runs: a call with `dry_run: true` (or `dryRun: true`) answers with a
// preview and writes nothing. The result types of the calls that take it
// follow the flag as written: `true` gives the dry-run result, absent or
// `false` the write's, a `boolean` either.

/** A dry run's unified diff, or why it is missing (old and new content over 64 MiB). */
export type DryRunDiff = { diff: string; diff_omitted?: undefined } | { diff?: undefined; diff_omitted: string }

/**
 * The `run_id` that applies a dry run with applyDryRun, and for how many seconds. A planned change larger than the
 * dry-run cache (512 MiB) is not kept: `run_id` is then `null` and `message` says to repeat the call without dry_run.
 */
export type DryRunKept = { run_id: string; expires_in: number } | { run_id: null; expires_in: 0; message: string }

/** What a dry run adds to a success. */
export type DryRunPreview = { dry_run: true } & DryRunDiff & DryRunKept

/** The fields a dry run adds to a success (the generated types have them optional: written by hand below, exact). */
type Previewed = 'dry_run' | 'diff' | 'diff_omitted' | 'run_id' | 'expires_in' | 'message'

/** A success that wrote: none of the dry-run fields. */
export interface NotDryRun {
  dry_run?: undefined
  diff?: undefined
  diff_omitted?: undefined
  run_id?: undefined
  expires_in?: undefined
}

/** The dry-run flag of an input or options object, spelt either way; `D` is what it says. */
export type DryRunFlag<D extends boolean> = { dry_run?: D; dryRun?: D }

/** A result as a dry-run flag `D` gives it: `Write` (false), `Dry` (true) or either (boolean). */
export type ByDryRun<D extends boolean, Write, Dry> = [D] extends [false] ? Write : [D] extends [true] ? Dry : Write | Dry

/** A dry run asked for by either of two flags (input and options), as one flag. */
export type EitherDryRun<A extends boolean, B extends boolean> = [A] extends [false]
  ? B
  : [B] extends [false]
    ? A
    : [A] extends [true]
      ? true
      : [B] extends [true]
        ? true
        : boolean

/** The figures of a successful patchFile (written or planned). */
export type PatchFileFigures = Omit<PatchDone, Previewed>

/** A patchFile that wrote. */
export type PatchFileWritten = PatchFileFigures & NotDryRun
/** A patchFile dry run: the figures of the planned edit, its diff and the run_id that applies it. */
export type PatchFileDryRun = PatchFileFigures & DryRunPreview
export type PatchFileSuccess = PatchFileWritten | PatchFileDryRun

export type PatchFileEditFailure = EditFailure

/**
 * A failed call: nothing was written. Every field the engine may put on a failure is declared (there is no
 * index signature), so a misspelt field does not compile.
 */
export type PatchFileFailure = Failed

export type PatchFileResult = PatchFileSuccess | PatchFileFailure

/** patchFile's result for an input whose dry-run flag is `D`. */
export type PatchFileResultFor<D extends boolean> = ByDryRun<D, PatchFileWritten, PatchFileDryRun> | PatchFileFailure

/** A JSON schema for tool definitions (name, description, parameters). */
export interface PatchFileSchema {
  name: string
  description: string
  parameters: {
    type: 'object'
    properties: Record<string, Record<string, unknown>>
    required: string[]
    additionalProperties: false
  }
}

export type BatchPatchFilesInput = {
  files: Array<PatchFilePath & Omit<PatchFileCommon, 'dry_run' | 'dryRun'> & ({ edits: PatchFileEdit[] } | PatchFileEdit)>
  dry_run?: boolean
  dryRun?: boolean
}

/** The figures of one file of a batch; on a dry run, with its own diff (or why it is missing). */
export type BatchFileFigures = Omit<BatchFile, 'dry_run' | 'run_id' | 'expires_in' | 'message'>

/** batchPatchFiles wrote every file. */
export type BatchPatchFilesWritten = Omit<BatchDone, Previewed> & NotDryRun
/** A batchPatchFiles dry run: the whole diff and the run_id that applies it. */
export type BatchPatchFilesDryRun = Omit<BatchDone, Previewed> & DryRunPreview

/**
 * A failed batch: nothing was written. When files failed to plan, `files` holds each file's outcome by `index`:
 * its failure, or a file that planned but was not written because another failed.
 */
export type BatchPatchFilesFailure = Failed

export type BatchPatchFilesResult = BatchPatchFilesWritten | BatchPatchFilesDryRun | BatchPatchFilesFailure

/** batchPatchFiles's result for an input whose dry-run flag is `D`. */
export type BatchPatchFilesResultFor<D extends boolean> =
  | ByDryRun<D, BatchPatchFilesWritten, BatchPatchFilesDryRun>
  | BatchPatchFilesFailure

export type ApplyDryRunInput = { run_id: string } | { runId: string }

export type ApplyDryRunResult = AppliedRun | PatchFileFailure

export type ReadFileInput = PatchFilePath & {
  /** 0-based line to start at. */
  offset?: number
  /** Most lines to return. */
  limit?: number
  /**
   * Prefix every line with its anchor `LINE#ID|` (1-based line, two letters hashed from the line's content) for
   * editLines, and keep what was shown so that editLines can check its anchors against it.
   */
  anchors?: boolean
}

/** One anchored edit of editLines. */
export type EditLinesEdit = {
  /**
   * `replace` (the default) the line `pos` (or `pos`..`end`); `append` after / `prepend` before `pos` (no `pos`: end /
   * start of the file).
   */
  op?: 'replace' | 'append' | 'prepend'
  /** An anchor `LINE#ID` as a read with `anchors: true` shows it. */
  pos?: string
  /** replace only: the last line of the range. */
  end?: string
  /** The new lines, without line breaks (the file keeps its own); null or [] with replace deletes. */
  lines?: string | string[] | null
}

export type EditLinesInput = PatchFilePath & {
  edits: EditLinesEdit[]
  expected_sha256?: string
  expectedSha256?: string
  dry_run?: boolean
  dryRun?: boolean
}

/** The figures of a successful editLines (written or planned). */
export type EditLinesFigures = Omit<LinesDone, Previewed>
export type EditLinesWritten = EditLinesFigures & NotDryRun
export type EditLinesDryRun = EditLinesFigures & DryRunPreview
export type EditLinesResult = EditLinesWritten | EditLinesDryRun | PatchFileFailure

/** editLines's result for an input whose dry-run flag is `D`. */
export type EditLinesResultFor<D extends boolean> = ByDryRun<D, EditLinesWritten, EditLinesDryRun> | PatchFileFailure

export type ReadFileResult = ReadDone | PatchFileFailure

export type WriteFileInput = PatchFilePath & {
  content: string
  expected_sha256?: string
  expectedSha256?: string
  /** Create missing parent directories inside the workspace (default true). */
  create_dirs?: boolean
  createDirs?: boolean
  dry_run?: boolean
  dryRun?: boolean
  /**
   * `'utf-8'`: write the file as UTF-8 whatever it holds now (a UTF-16 file becomes UTF-8; a UTF-8 file
   * keeps its BOM). Required to replace a file that is not valid UTF-8 (a legacy encoding or `binary-safe-bytes`), which is
   * otherwise refused with `UNSUPPORTED_ENCODING`. Omit it to keep the file's encoding.
   */
  encoding?: 'utf-8'
  /**
   * `'as_sent'`: write the content's line breaks as sent. Omitted, an existing file whose line breaks are all LF or
   * all CRLF keeps them (LF content over a CRLF file is written with CRLF).
   */
  line_endings?: 'as_sent'
  lineEndings?: 'as_sent'
}

/** The figures of a successful writeFile (written or planned). */
export type WriteFileFigures = Omit<WriteDone, Previewed>

export type WriteFileWritten = WriteFileFigures & NotDryRun
export type WriteFileDryRun = WriteFileFigures & DryRunPreview
export type WriteFileResult = WriteFileWritten | WriteFileDryRun | PatchFileFailure

/** writeFile's result for an input whose dry-run flag is `D`. */
export type WriteFileResultFor<D extends boolean> = ByDryRun<D, WriteFileWritten, WriteFileDryRun> | PatchFileFailure

// ---------------------------------------------------------------------------
// Edit formats: applyEditBlocks, applyPatch, textEditor

/** Options of the edit-format calls: the common options plus `dryRun`. */
export interface FormatOptions extends PatchFileOptions {
  /** Plan only: return `diff` and a `run_id` for applyDryRun; nothing is written. */
  dryRun?: boolean
  dry_run?: boolean
}

/** applyEditBlocks input when not a plain string. */
export type EditBlocksInput = ({ blockContent: string } | { block_content: string } | { text: string }) & {
  dry_run?: boolean
  dryRun?: boolean
}

/**
 * One operation of OpenAI's `apply_patch` tool, given to applyPatch as structure (the agent-SDK adapters do):
 * the path is used as given and the diff is that operation's body only, never parsed as patch text.
 */
export interface ApplyPatchOperation {
  type: 'create_file' | 'update_file' | 'delete_file'
  path: string
  /** create_file: the new file's lines, each after `+`; update_file: `@@` sections of ` `, `-`, `+` lines. */
  diff?: string | null
  /** update_file only: where the file moves. */
  move_to?: string | null
  moveTo?: string | null
}

/** applyPatch input when not a plain string. */
export type ApplyPatchInput = ({ patch: string } | { input: string } | { text: string } | { operation: ApplyPatchOperation }) & {
  dry_run?: boolean
  dryRun?: boolean
}

/** What placed a hunk. */
export type HunkLocatedBy = LocatedBy

/** One file operation of a successful edit-format call. */
export type FormatFileResult = FormatFile

/** The figures of a successful edit-format call (written or planned). */
export type FormatFigures = Omit<FormatDone, Exclude<Previewed, 'message'>>

export type FormatWritten = FormatFigures & NotDryRun
export type FormatDryRun = FormatFigures & DryRunPreview
export type FormatSuccess = FormatWritten | FormatDryRun

export type FormatFailure = Failed

/** One failing file operation of an edit-format call, led by its first failing hunk or block. */
export type FormatOpFailure = OpFailure

export type FormatResult = FormatSuccess | FormatFailure

/** An edit-format call's result for a dry-run flag `D` (of the input or the options). */
export type FormatResultFor<D extends boolean> = ByDryRun<D, FormatWritten, FormatDryRun> | FormatFailure

/** The file of a text editor command: `path` (also spelt `file_path`, `filePath`). */
type TextEditorPath = { path: string } | { file_path: string } | { filePath: string }

/** A text editor command (Anthropic `str_replace_based_edit_tool` parameters; camelCase spellings accepted too). */
export type TextEditorCommand = TextEditorPath & { dry_run?: boolean; dryRun?: boolean } & (
    | { command: 'view'; view_range?: [number, number]; viewRange?: [number, number]; max_characters?: number; maxCharacters?: number }
    | ({ command: 'create' } & ({ file_text: string } | { fileText: string } | { content: string }))
    | ({ command: 'str_replace'; new_str?: string; newStr?: string } & ({ old_str: string } | { oldStr: string }))
    | ({ command: 'insert'; insert_text?: string; insertText?: string; new_str?: string; newStr?: string } & ({ insert_line: number } | { insertLine: number }))
    | { command: 'undo_edit' }
  )

/** The figures of a successful text editor edit command (written or planned): an edit, or an undo_edit. */
export type TextEditorEditFigures = Omit<EditDone, Previewed> | Omit<UndoEdit, Previewed>

export type TextEditorEdited = TextEditorEditFigures & NotDryRun
export type TextEditorDryRun = TextEditorEditFigures & DryRunPreview

/** A `view` command's result (a dry-run flag changes nothing for it). */
export type TextEditorView = Viewed

/** A failed text editor command: nothing was written. */
export type TextEditorFailure = Failed

export type TextEditorResult = TextEditorEdited | TextEditorDryRun | TextEditorView | TextEditorFailure

/** The text editor's result for command `K` and a dry-run flag `D` (of the command or the options). */
export type TextEditorResultFor<K extends TextEditorCommand['command'], D extends boolean> =
  | ('view' extends K ? TextEditorView : never)
  | ([Exclude<K, 'view'>] extends [never] ? never : ByDryRun<D, TextEditorEdited, TextEditorDryRun>)
  | TextEditorFailure

/** editFile input: the MCP filesystem server's `edit_file` shape (every oldText exact-once, all or nothing). */
export interface EditFileInput {
  path: string
  edits: Array<{ oldText: string; newText: string }>
  /** Preview: return the diff and a run_id; nothing is written. */
  dryRun?: boolean
}

/** history input: newest first, at most `limit` (default 20), only those touching `file_path` when given. */
export interface HistoryInput {
  limit?: number
  file_path?: string
  filePath?: string
  path?: string
}

/** One journaled write transaction (`damaged?: false`: written by hand, so `t.damaged` narrows the union). */
export type HistoryTransaction = Transaction & { damaged?: false; damage?: undefined }

/** Why a journal entry is damaged. */
export type JournalDamage = Damage

/** A journal entry that does not read back whole: listed, never acted on (undo answers JOURNAL_DAMAGED). */
export type DamagedTransaction = DamagedEntry & { time?: undefined; entry_point?: undefined }

/** history's result; its entries with the hand-written discriminants above, so `t.damaged` narrows. */
export type HistoryResult =
  | (Omit<HistoryDone, 'transactions'> & { transactions: Array<HistoryTransaction | DamagedTransaction> })
  | PatchFileFailure

/** undo input: the transaction id from history (default: the newest not yet undone). */
export type UndoInput = { id?: string; dry_run?: boolean; dryRun?: boolean } | string

/** The figures of a successful undo (done or planned). */
export type UndoFigures = Omit<Undone, Previewed | 'id'>

/** An undo that wrote, with its own id in the journal (undo it to redo) when the journal recorded it. */
export type UndoDone = UndoFigures & NotDryRun & { id?: string }
/** An undo dry run (it has no id of its own). */
export type UndoDryRun = UndoFigures & DryRunPreview & { id?: undefined }

/** A failed undo: nothing was written. */
export type UndoFailure = Failed

export type UndoResult = UndoDone | UndoDryRun | UndoFailure

/** undo's result for an input whose dry-run flag is `D`. */
export type UndoResultFor<D extends boolean> = ByDryRun<D, UndoDone, UndoDryRun> | UndoFailure

export type JournalClearResult = Cleared | PatchFileFailure

// ---- generated by scripts/gen-results.mjs from schemas/results.json: do not edit ----

export type Action = 'add' | 'update' | 'delete' | 'move'

export type AnchorProblem = 'changed' | 'several' | 'mismatch' | 'beyond_end'

/** An anchor editLines refused (ANCHOR_MISMATCH). */
export interface AnchorRefused {
  /** 0-based index of the edit. */
  edit: number
  /** The anchor as given (`LINE#ID`). */
  anchor: string
  problem: AnchorProblem
  /** The file's current lines around where the anchor pointed, tagged `LINE#ID|`, ready for the retry. */
  lines: string
}

/** One file an applied dry run wrote or removed. */
export interface AppliedFile {
  file_path: string
  created?: boolean
  deleted?: true
  after_bytes?: number
  /** null for a file the run created. */
  sha256_before: string | null
  sha256?: string
  write_strategy?: WriteStrategy
  /** With `in_place`: why a rename would have lost something. */
  write_strategy_reason?: string
}

/** A successful applyDryRun. */
export interface AppliedRun {
  ok: true
  /** The run applied. */
  run_id: string
  file_path?: string
  created?: boolean
  after_bytes?: number
  sha256_before?: string
  sha256?: string
  files: AppliedFile[]
  warnings?: string[]
}

/** A successful batchPatchFiles. */
export interface BatchDone {
  ok: true
  /** Total occurrences replaced in every file. */
  replacements: number
  files: BatchFile[]
  warnings?: string[]
  dry_run?: true
  /** Unified diff of the change (`a/` `b/` paths relative to the root). */
  diff?: string
  /** Why the diff is missing (old and new content too large to show). */
  diff_omitted?: string
  /**
   * Pass it to applyDryRun to write exactly this preview; null when the planned change was too large to keep (see
   * `message`).
   */
  run_id?: string | null
  /** Seconds the run_id stays applicable (0 when not kept). */
  expires_in?: number
  /** Why the run was not kept, and how to apply it. */
  message?: string
}

/** One file of a successful batch; on a dry run, with its own diff. */
export interface BatchFile {
  ok: true
  /** The edited file. */
  file_path: string
  /** Total occurrences replaced. */
  replacements: number
  /** 1-based line where the (first edit's) match starts. */
  line_number: number
  /** Length of the decoded text as a JS string (UTF-16 code units, BOM excluded), before and after. */
  before_chars: number
  after_chars: number
  /** Size on disk (BOM included), before and after. */
  before_bytes: number
  after_bytes: number
  edits: EditReport[]
  /** With a `match` list: every tolerance the edits needed ([] when all matched exactly). */
  matched_with?: Tolerance[]
  /** A single edit matched with tolerances: the exact original text it replaced. */
  original_text?: string
  /** sha256 (hex) of the bytes on disk before. */
  sha256_before: string
  /** sha256 (hex) of the bytes on disk after. */
  sha256: string
  /** Elision markers in the new text, written as the lines they stand for. */
  expanded?: KeptElision[]
  /**
   * The parse errors this edit introduced, or why the file was not checked (files in a checked language only;
   * absent when clean).
   */
  syntax?: SyntaxReport
  write_strategy?: WriteStrategy
  /** With `in_place`: why a rename would have lost something. */
  write_strategy_reason?: string
  /**
   * What the caller should know (durability not confirmed, a torn file read as its content before an interrupted
   * write).
   */
  warnings?: string[]
  dry_run?: true
  /** Unified diff of the change (`a/` `b/` paths relative to the root). */
  diff?: string
  /** Why the diff is missing (old and new content too large to show). */
  diff_omitted?: string
  /**
   * Pass it to applyDryRun to write exactly this preview; null when the planned change was too large to keep (see
   * `message`).
   */
  run_id?: string | null
  /** Seconds the run_id stays applicable (0 when not kept). */
  expires_in?: number
  /** Why the run was not kept, and how to apply it. */
  message?: string
}

/**
 * One file's outcome in a failed batch: its own failure, or a file that planned but was not written because another
 * failed.
 */
export type BatchOutcome =
  /** A failed call: nothing was written. */
  | {
    /** 0-based index of the file in the batch. */
    index: number
    ok: false
    code: ErrorCode
    /** What went wrong and the shortest next step, written for an agent. */
    message: string
    /** The file concerned. */
    file_path?: string
    /** How many times the search block occurs (0: not found, more than 1: ambiguous). */
    match_count?: number
    /** 1-based start lines of the matches (SEARCH_BLOCK_AMBIGUOUS). */
    match_lines?: number[]
    /** SEARCH_BLOCK_NOT_FOUND: the nearest region, when one is plausible. */
    closest_match?: ClosestMatch
    /** SEARCH_BLOCK_NOT_FOUND: the new text already stands exactly once where the old text would be: do not retry. */
    already_applied?: true
    /** Where the new text already stands. */
    applied_at?: LineRange
    /** SEARCH_BLOCK_AMBIGUOUS: per occurrence (first 10), the smallest unique extension. */
    unique_context_hint?: ContextHint[]
    /** The file was too large to diagnose within the budget. */
    diagnosis_incomplete?: true
    /** Every failing edit of a multi-edit. */
    failed_edits?: EditFailure[]
    /** Current sha256 of the file (FILE_CHANGED). */
    sha256?: string
    /** A failed commit: files already replaced that were put back. */
    rolled_back?: string[]
    /** A failed commit: files that could not be put back. */
    rollback_failed?: string[]
    /** batchPatchFiles: each file's outcome by index, when files failed to plan. */
    files?: BatchOutcome[]
    /** Edit formats: the format of the text. */
    format?: Format
    /** PATCH_PARSE_ERROR: 1-based line of the problem in the text. */
    line?: number
    /** PATCH_PARSE_ERROR: what was expected there. */
    expected?: string
    /** Edit formats: every failing file operation. */
    failures?: OpFailure[]
    /** Text editor: the command that failed. */
    command?: Command
    /** ELIDED_CONTENT: the marker refused and the lines it would delete. */
    elision?: Elision
    /** SYNTAX_ERROR_INTRODUCED: the parse errors the edit would introduce. */
    syntax?: SyntaxReport
    /** undo FILE_CHANGED: the files that changed since the transaction. */
    files_changed?: string[]
    /** undo FILE_CHANGED: the transaction that could not be undone. */
    id?: string
    /** editLines ANCHOR_MISMATCH: each anchor refused, with the current lines around it. */
    anchors?: AnchorRefused[]
  }
  | {
    ok: true
    index: number
    file_path: string
    message: string
  }

/** One SEARCH/REPLACE block that applied. */
export interface BlockReport {
  index: number
  /** 1-based line of the block in the text (0 for text-editor commands). */
  line: number
  /** 1-based line where the block matched. */
  line_number: number
  /** applyEditBlocks: the replacement is present in the file as read back after writing. */
  verified?: boolean
}

/** The journal cleared. */
export interface Cleared {
  ok: true
  /** Entries removed. */
  removed: number
  journal: string
}

/** The region of the file most like a search block that was not found. */
export interface ClosestMatch {
  /** 1-based first line of the region. */
  line_number: number
  /** 1-based last line of the region. */
  end_line: number
  /** Character similarity of the search block to the region, 0..1. */
  similarity: number
  /** The exact current text of the region: use it as the search block. */
  text: string
  /** Each kind of difference found, in a fixed order. */
  differences: Difference[]
  /** One sentence per kind (except content) about where it shows. */
  details: string[]
  /** 1-based start lines of other regions exactly as close (the block does not tell them apart). */
  equally_close?: number[]
}

export type Command = 'view' | 'create' | 'str_replace' | 'insert' | 'undo_edit'

/** The smallest extension of an ambiguous block that occurs only once. */
export interface ContextHint {
  /** 1-based line where this occurrence of the block starts. */
  match_line: number
  /** 1-based first line of the extended block. */
  line_number: number
  /** 1-based last line of the extended block. */
  end_line: number
  lines_before: number
  lines_after: number
  /** The extended block, unique in the file. */
  search_block: string
}

export type Damage =
  | 'not_a_file'
  | 'foreign_owner'
  | 'unreadable'
  | 'bad_header'
  | 'wrong_length'
  | 'bad_fields'
  | 'kept_inode'
  | 'bad_content'

/** A journal entry that does not read back whole: listed, never acted on (undo answers JOURNAL_DAMAGED). */
export interface DamagedEntry {
  id: string
  /** Always empty. */
  files: []
  undoable: boolean
  damaged: true
  damage: Damage
  why_not_undoable: string
}

export type Difference =
  | 'line_endings'
  | 'indentation'
  | 'trailing_whitespace'
  | 'invisible_characters'
  | 'unicode_punctuation'
  | 'escaping'
  | 'case'
  | 'line_numbers'
  | 'elision'
  | 'content'

/** `view` of a directory: its entries two levels deep, hidden ones skipped. */
export interface DirView {
  ok: true
  kind: DirViewKind
  file_path: string
  /** Paths relative to the directory, sorted; a directory's ends in `/`. */
  entries: string[]
  /** The entries, one a line. */
  content: string
  /** The listing stopped at its limit of entries. */
  truncated?: true
  command: ViewCommand
}

export type DirViewKind = 'directory'

export type EditCommand = 'create' | 'str_replace' | 'insert'

/** `create`, `str_replace` or `insert`, written (or planned by a dry run). */
export interface EditDone {
  ok: true
  format: Format
  /** The path as written in the text. */
  path: string
  /** The file (the source, for a move). */
  file_path?: string
  action: Action
  /** The destination of a move. */
  move_to?: string
  /** add: whether the file did not exist before. */
  created?: boolean
  before_bytes?: number
  sha256_before?: string
  after_bytes?: number
  /** sha256 of the new bytes; null when the file is removed. */
  sha256: string | null
  hunks?: HunkReport[]
  blocks?: BlockReport[]
  line_number?: number
  /** applyEditBlocks: the file read back is the bytes written. */
  read_back_matches?: boolean
  /** Elision markers in the new text, written as the lines they stand for. */
  expanded?: KeptElision[]
  /**
   * The parse errors this edit introduced, or why the file was not checked (files in a checked language only;
   * absent when clean).
   */
  syntax?: SyntaxReport
  write_strategy?: WriteStrategy
  /** With `in_place`: why a rename would have lost something. */
  write_strategy_reason?: string
  /** Unified diff of the change (`a/` `b/` paths relative to the root). */
  diff?: string
  /** Why the diff is missing (old and new content too large to show). */
  diff_omitted?: string
  warnings?: string[]
  dry_run?: true
  /**
   * Pass it to applyDryRun to write exactly this preview; null when the planned change was too large to keep (see
   * `message`).
   */
  run_id?: string | null
  /** Seconds the run_id stays applicable (0 when not kept). */
  expires_in?: number
  /** Why the run was not kept, and how to apply it. */
  message?: string
  /** The lines around the edit, numbered (4 before, 4 after), as the file reads after writing. */
  snippet?: string
  command: EditCommand
}

/** One failing edit of a multi-edit, by index. */
export interface EditFailure {
  /** 0-based index of the edit. */
  index: number
  code: ErrorCode
  /** How many times its search block occurs. */
  match_count: number
  message: string
  /** 1-based start lines of the matches. */
  match_lines?: number[]
  /** SEARCH_BLOCK_NOT_FOUND: the nearest region, when one is plausible. */
  closest_match?: ClosestMatch
  /** SEARCH_BLOCK_NOT_FOUND: the new text already stands exactly once where the old text would be: do not retry. */
  already_applied?: true
  /** Where the new text already stands. */
  applied_at?: LineRange
  /** SEARCH_BLOCK_AMBIGUOUS: per occurrence (first 10), the smallest unique extension. */
  unique_context_hint?: ContextHint[]
  /** The file was too large to diagnose within the budget. */
  diagnosis_incomplete?: true
}

/** One edit of a successful patchFile. */
export interface EditReport {
  /** 1-based line where the edit's (first) match starts. */
  line_number: number
  replacements: number
  /** With a `match` list: the tolerances this edit needed ([] when it matched exactly). */
  matched_with?: Tolerance[]
  /** The exact original text a tolerant match replaced. */
  original_text?: string
}

/** One current line an elision marker would delete. */
export interface ElidedLine {
  /** 1-based line in the current file. */
  line: number
  text: string
}

/** ELIDED_CONTENT: an elision marker of the new text and the current lines it would delete. */
export interface Elision {
  /** The marker line, trimmed. */
  marker: string
  /** 1-based line of the marker in the new text as sent. */
  line: number
  /** The current lines it would delete (the first 40), numbered. */
  deletes: ElidedLine[]
  /** How many current lines it would delete in all. */
  deleted: number
}

export type ErrorCode =
  | 'SEARCH_BLOCK_NOT_FOUND'
  | 'SEARCH_BLOCK_AMBIGUOUS'
  | 'INVALID_INPUT'
  | 'PATH_OUTSIDE_WORKSPACE'
  | 'TARGET_IS_DIRECTORY'
  | 'BINARY_FILE_REJECTED'
  | 'FILE_READ_ERROR'
  | 'FILE_WRITE_ERROR'
  | 'UNSUPPORTED_ENCODING'
  | 'REPLACEMENT_COUNT_MISMATCH'
  | 'FILE_CHANGED'
  | 'RUN_ID_NOT_FOUND'
  | 'FILE_TOO_LARGE'
  | 'PATCH_PARSE_ERROR'
  | 'RESULT_TOO_LARGE'
  | 'FILE_LOCKED'
  | 'CANCELLED'
  | 'HARD_LINKED_FILE'
  | 'INTERNAL_ERROR'
  | 'PLAN_CHECK_FAILED'
  | 'JOURNAL_DAMAGED'
  | 'ELIDED_CONTENT'
  | 'ANCHOR_MISMATCH'
  | 'SYNTAX_ERROR_INTRODUCED'

/** A failed call: nothing was written. */
export interface Failed {
  ok: false
  code: ErrorCode
  /** What went wrong and the shortest next step, written for an agent. */
  message: string
  /** The file concerned. */
  file_path?: string
  /** How many times the search block occurs (0: not found, more than 1: ambiguous). */
  match_count?: number
  /** 1-based start lines of the matches (SEARCH_BLOCK_AMBIGUOUS). */
  match_lines?: number[]
  /** SEARCH_BLOCK_NOT_FOUND: the nearest region, when one is plausible. */
  closest_match?: ClosestMatch
  /** SEARCH_BLOCK_NOT_FOUND: the new text already stands exactly once where the old text would be: do not retry. */
  already_applied?: true
  /** Where the new text already stands. */
  applied_at?: LineRange
  /** SEARCH_BLOCK_AMBIGUOUS: per occurrence (first 10), the smallest unique extension. */
  unique_context_hint?: ContextHint[]
  /** The file was too large to diagnose within the budget. */
  diagnosis_incomplete?: true
  /** Every failing edit of a multi-edit. */
  failed_edits?: EditFailure[]
  /** Current sha256 of the file (FILE_CHANGED). */
  sha256?: string
  /** A failed commit: files already replaced that were put back. */
  rolled_back?: string[]
  /** A failed commit: files that could not be put back. */
  rollback_failed?: string[]
  /** batchPatchFiles: each file's outcome by index, when files failed to plan. */
  files?: BatchOutcome[]
  /** Edit formats: the format of the text. */
  format?: Format
  /** PATCH_PARSE_ERROR: 1-based line of the problem in the text. */
  line?: number
  /** PATCH_PARSE_ERROR: what was expected there. */
  expected?: string
  /** Edit formats: every failing file operation. */
  failures?: OpFailure[]
  /** Text editor: the command that failed. */
  command?: Command
  /** ELIDED_CONTENT: the marker refused and the lines it would delete. */
  elision?: Elision
  /** SYNTAX_ERROR_INTRODUCED: the parse errors the edit would introduce. */
  syntax?: SyntaxReport
  /** undo FILE_CHANGED: the files that changed since the transaction. */
  files_changed?: string[]
  /** undo FILE_CHANGED: the transaction that could not be undone. */
  id?: string
  /** editLines ANCHOR_MISMATCH: each anchor refused, with the current lines around it. */
  anchors?: AnchorRefused[]
}

export type FileKind = 'modified' | 'created' | 'deleted' | 'moved'

/** `view` of a file: its lines numbered as `cat -n` numbers them. */
export interface FileView {
  ok: true
  kind: FileViewKind
  file_path: string
  /** The lines shown, each led by its number right-aligned to six places and a tab. */
  content: string
  /** 1-based first line shown. */
  start_line: number
  /** 1-based last line shown. */
  end_line: number
  total_lines: number
  sha256: string
  encoding: string
  line_ending: LineEnding
  /** `content` was cut at `max_characters`. */
  truncated?: true
  command: ViewCommand
}

export type FileViewKind = 'file'

export type Format = 'edit_blocks' | 'apply_patch' | 'unified_diff' | 'text_editor'

/** A successful edit-format call. */
export interface FormatDone {
  ok: true
  format: Format
  files: FormatFile[]
  /** Total hunks applied (patches). */
  hunks?: number
  /** applyEditBlocks: every replacement was found in the file as read back. */
  verified?: boolean
  warnings?: string[]
  /** Why the run was not kept, and how to apply it. */
  message?: string
  dry_run?: true
  /** Unified diff of the change (`a/` `b/` paths relative to the root). */
  diff?: string
  /** Why the diff is missing (old and new content too large to show). */
  diff_omitted?: string
  /**
   * Pass it to applyDryRun to write exactly this preview; null when the planned change was too large to keep (see
   * `message`).
   */
  run_id?: string | null
  /** Seconds the run_id stays applicable (0 when not kept). */
  expires_in?: number
}

/** One file operation of a successful edit-format call. */
export interface FormatFile {
  /** The path as written in the text. */
  path: string
  /** The file (the source, for a move). */
  file_path?: string
  action: Action
  /** The destination of a move. */
  move_to?: string
  /** add: whether the file did not exist before. */
  created?: boolean
  before_bytes?: number
  sha256_before?: string
  after_bytes?: number
  /** sha256 of the new bytes; null when the file is removed. */
  sha256: string | null
  hunks?: HunkReport[]
  blocks?: BlockReport[]
  line_number?: number
  /** applyEditBlocks: the file read back is the bytes written. */
  read_back_matches?: boolean
  /** Elision markers in the new text, written as the lines they stand for. */
  expanded?: KeptElision[]
  /**
   * The parse errors this edit introduced, or why the file was not checked (files in a checked language only;
   * absent when clean).
   */
  syntax?: SyntaxReport
  write_strategy?: WriteStrategy
  /** With `in_place`: why a rename would have lost something. */
  write_strategy_reason?: string
  /** Unified diff of the change (`a/` `b/` paths relative to the root). */
  diff?: string
  /** Why the diff is missing (old and new content too large to show). */
  diff_omitted?: string
}

/** A successful `history`. */
export interface HistoryDone {
  ok: true
  workspace_root: string
  /** The workspace's journal directory. */
  journal: string
  enabled: boolean
  /** Newest first. */
  transactions: Listed[]
}

/** One file of a journaled transaction. */
export interface HistoryFile {
  /** Relative to the workspace root. */
  file_path: string
  kind: FileKind
  /** moved: the previous path. */
  from?: string
  /** Lines added. */
  added: number
  /** Lines removed. */
  removed: number
}

export type HunkLevel = 'exact' | 'trailing_whitespace' | 'surrounding_whitespace' | 'unicode_punctuation'

/** One hunk that applied. */
export interface HunkReport {
  /** 0-based index of the hunk within its file. */
  index: number
  /** 1-based line of the original file where the hunk applied. */
  line_number: number
  level: HunkLevel
  located_by: LocatedBy
  /** 1-based line of the hunk in the patch text. */
  patch_line: number
}

/**
 * An elision marker of the new text (`// ... existing code ...`) that was expanded: written as the current lines it
 * stands for.
 */
export interface KeptElision {
  /** The marker line, trimmed. */
  marker: string
  /** 1-based line of the marker in the new text as sent. */
  line: number
  /** 1-based first and last line of the current file it kept. */
  kept_lines: number[]
}

/** One edit of a successful editLines. */
export interface LineEditReport {
  /** 1-based line of the file as written where the edit's new lines start (or where removed lines were). */
  line: number
  /** Lines removed. */
  removed: number
  /** Lines written. */
  added: number
}

export type LineEnding = 'lf' | 'crlf' | 'mixed' | 'none'

/** A 1-based range of lines. */
export interface LineRange {
  line_number: number
  end_line: number
}

/** A successful editLines (written, or planned by a dry run). */
export interface LinesDone {
  ok: true
  file_path: string
  verified: Verified
  /**
   * Anchored lines were found at other line numbers (the file changed elsewhere since the read) and the edits
   * followed them.
   */
  rebased?: true
  /** With `verified: line_numbers`: what that means for the edit. */
  note?: string
  edits: LineEditReport[]
  /** Size on disk (BOM included), before and after. */
  before_bytes: number
  after_bytes: number
  /** sha256 (hex) of the bytes on disk before. */
  sha256_before: string
  /** sha256 (hex) of the bytes on disk after. */
  sha256: string
  /** Elision markers in the new lines, written as the lines they stand for. */
  expanded?: KeptElision[]
  /**
   * The parse errors this edit introduced, or why the file was not checked (files in a checked language only;
   * absent when clean).
   */
  syntax?: SyntaxReport
  write_strategy?: WriteStrategy
  /** With `in_place`: why a rename would have lost something. */
  write_strategy_reason?: string
  warnings?: string[]
  dry_run?: true
  /** Unified diff of the change (`a/` `b/` paths relative to the root). */
  diff?: string
  /** Why the diff is missing (old and new content too large to show). */
  diff_omitted?: string
  /**
   * Pass it to applyDryRun to write exactly this preview; null when the planned change was too large to keep (see
   * `message`).
   */
  run_id?: string | null
  /** Seconds the run_id stays applicable (0 when not kept). */
  expires_in?: number
  /** Why the run was not kept, and how to apply it. */
  message?: string
}

/** An entry of `history`. */
export type Listed = Transaction | DamagedEntry

export type LocatedBy = 'content' | 'line_number' | 'end_of_file'

/** One failing file operation of an edit-format call, led by its first failing hunk or block. */
export interface OpFailure {
  /** 0-based index of the operation. */
  index: number
  /** The path as written in the text. */
  path: string
  /** 1-based line of the operation in the text. */
  line?: number
  file_path?: string
  code: ErrorCode
  message: string
  match_count?: number
  match_lines?: number[]
  /** SEARCH_BLOCK_NOT_FOUND: the nearest region, when one is plausible. */
  closest_match?: ClosestMatch
  /** SEARCH_BLOCK_NOT_FOUND: the new text already stands exactly once where the old text would be: do not retry. */
  already_applied?: true
  /** Where the new text already stands. */
  applied_at?: LineRange
  /** SEARCH_BLOCK_AMBIGUOUS: per occurrence (first 10), the smallest unique extension. */
  unique_context_hint?: ContextHint[]
  /** The file was too large to diagnose within the budget. */
  diagnosis_incomplete?: true
  /** Every failing hunk of this file (patches). */
  hunks?: StepFailure[]
  /** Every failing SEARCH/REPLACE block of this file (edit blocks, text editor). */
  blocks?: StepFailure[]
}

/** A successful patchFile (written, or planned by a dry run). */
export interface PatchDone {
  ok: true
  /** The edited file. */
  file_path: string
  /** Total occurrences replaced. */
  replacements: number
  /** 1-based line where the (first edit's) match starts. */
  line_number: number
  /** Length of the decoded text as a JS string (UTF-16 code units, BOM excluded), before and after. */
  before_chars: number
  after_chars: number
  /** Size on disk (BOM included), before and after. */
  before_bytes: number
  after_bytes: number
  edits: EditReport[]
  /** With a `match` list: every tolerance the edits needed ([] when all matched exactly). */
  matched_with?: Tolerance[]
  /** A single edit matched with tolerances: the exact original text it replaced. */
  original_text?: string
  /** sha256 (hex) of the bytes on disk before. */
  sha256_before: string
  /** sha256 (hex) of the bytes on disk after. */
  sha256: string
  /** Elision markers in the new text, written as the lines they stand for. */
  expanded?: KeptElision[]
  /**
   * The parse errors this edit introduced, or why the file was not checked (files in a checked language only;
   * absent when clean).
   */
  syntax?: SyntaxReport
  write_strategy?: WriteStrategy
  /** With `in_place`: why a rename would have lost something. */
  write_strategy_reason?: string
  /**
   * What the caller should know (durability not confirmed, a torn file read as its content before an interrupted
   * write).
   */
  warnings?: string[]
  dry_run?: true
  /** Unified diff of the change (`a/` `b/` paths relative to the root). */
  diff?: string
  /** Why the diff is missing (old and new content too large to show). */
  diff_omitted?: string
  /**
   * Pass it to applyDryRun to write exactly this preview; null when the planned change was too large to keep (see
   * `message`).
   */
  run_id?: string | null
  /** Seconds the run_id stays applicable (0 when not kept). */
  expires_in?: number
  /** Why the run was not kept, and how to apply it. */
  message?: string
}

/** A successful readFile: a range of whole lines and what an edit of the file needs to know. */
export interface ReadDone {
  ok: true
  file_path: string
  /** The lines, decoded; in a file that is not valid UTF-8 each invalid byte sequence shows as U+FFFD. */
  content: string
  /**
   * `true` when `content` is exactly the file's text for these lines; `false` when it shows U+FFFD for bytes that
   * are not UTF-8 (writing it back would replace them; writeFile refuses that file).
   */
  faithful: boolean
  /** 0-based line the range starts at. */
  offset: number
  /** Lines returned. */
  lines: number
  total_lines: number
  /** Where to read on, when lines follow the range. */
  next_offset?: number
  /** The answer stopped at 128 MiB of whole lines; read on from next_offset. */
  truncated?: true
  /** With `truncated`: what was returned and how to read on. */
  message?: string
  /**
   * Present for a file that is not UTF-8 (a legacy encoding, or `binary-safe-bytes`): what `content` shows and how
   * the file is edited without losing bytes; and for a file torn by an interrupted in-place write, which is shown
   * as its content before that write (the next write restores it).
   */
  warning?: string
  /** sha256 (hex) of the whole file's bytes on disk. */
  sha256: string
  /**
   * `utf-8`, `utf-16le`, `utf-16be`, a detected legacy encoding by its WHATWG name in lower case (`shift_jis`,
   * `windows-1252`, …; `content` is decoded by it), or `binary-safe-bytes` (read at byte level).
   */
  encoding: string
  /** Whether the file starts with a byte order mark. */
  bom: boolean
  line_ending: LineEnding
  /** Size of the whole file on disk. */
  bytes: number
}

/** A failing hunk (with `patch_line`) or SEARCH/REPLACE block (with `line`). */
export interface StepFailure {
  /** 0-based index of the hunk or block within its file. */
  index: number
  /** A hunk: its 1-based line in the patch text. */
  patch_line?: number
  /** A block: its 1-based line in the text. */
  line?: number
  code: ErrorCode
  match_count: number
  message: string
  match_lines?: number[]
  /** SEARCH_BLOCK_NOT_FOUND: the nearest region, when one is plausible. */
  closest_match?: ClosestMatch
  /** SEARCH_BLOCK_NOT_FOUND: the new text already stands exactly once where the old text would be: do not retry. */
  already_applied?: true
  /** Where the new text already stands. */
  applied_at?: LineRange
  /** SEARCH_BLOCK_AMBIGUOUS: per occurrence (first 10), the smallest unique extension. */
  unique_context_hint?: ContextHint[]
  /** The file was too large to diagnose within the budget. */
  diagnosis_incomplete?: true
}

/** One parse error of the new text. */
export interface SyntaxError {
  /** 1-based line and column (in characters) in the new text. */
  line: number
  column: number
  problem: SyntaxProblem
  /** The missing token, or the start of the text that could not be placed. */
  token: string
  /** What the parser could accept there, when it is a short list. */
  expected?: string[]
  /** The new text's line, as written (at most 200 characters). */
  text: string
}

export type SyntaxLanguage =
  | 'typescript'
  | 'tsx'
  | 'javascript'
  | 'python'
  | 'rust'
  | 'go'
  | 'java'
  | 'c'
  | 'cpp'
  | 'csharp'
  | 'json'
  | 'yaml'
  | 'toml'
  | 'html'
  | 'css'
  | 'bash'
  | 'ruby'
  | 'php'

export type SyntaxProblem = 'missing' | 'unexpected'

/** The syntax check of one file. */
export interface SyntaxReport {
  language: SyntaxLanguage
  /** The parse errors the edit introduced (the first 5): errors the file already had are not listed. */
  errors?: SyntaxError[]
  /** How many more introduced errors there are beyond those listed. */
  more_errors?: number
  /** Set when the file was not checked, and why. */
  unchecked?: Unchecked
}

/** A successful text editor call. */
export type TextEditorDone = Viewed | EditDone | UndoEdit

export type Tolerance = 'line_endings' | 'trailing_whitespace' | 'indentation' | 'unicode_punctuation'

/** One journaled write transaction. */
export interface Transaction {
  id: string
  /** UTC, RFC 3339. */
  time: string
  entry_point: string
  files: HistoryFile[]
  undoable: boolean
  why_not_undoable?: string
  undone_by?: string
  undoes?: string
  redo?: boolean
}

export type Unchecked = 'too_large' | 'timeout'

export type UndoAction = 'restored' | 'removed' | 'recreated'

export type UndoCommand = 'undo_edit'

/**
 * `undo_edit`: the file put back as it was before the last edit made through this tool (or, with a dry run, what
 * that would write).
 */
export interface UndoEdit {
  ok: true
  /** The transaction undone. */
  undone: string
  /** Whether it undid an undo. */
  redo: boolean
  file_path: string
  action: UndoAction
  /** sha256 of the bytes put back; null when the file is removed. */
  sha256: string | null
  /** Unified diff of the change (`a/` `b/` paths relative to the root). */
  diff?: string
  /** Why the diff is missing (old and new content too large to show). */
  diff_omitted?: string
  /** This undo's own transaction, when journaled. */
  id?: string
  warnings?: string[]
  dry_run?: true
  /**
   * Pass it to applyDryRun to write exactly this preview; null when the planned change was too large to keep (see
   * `message`).
   */
  run_id?: string | null
  /** Seconds the run_id stays applicable (0 when not kept). */
  expires_in?: number
  /** Why the run was not kept, and how to apply it. */
  message?: string
  /** The undone edit had created the file, so undoing it removed it. */
  removed: boolean
  /** Edits of this file through this tool still to undo. */
  undo_remaining: number
  command: UndoCommand
}

/** One file undo put back. */
export interface UndoFile {
  file_path: string
  action: UndoAction
  /** sha256 of the bytes put back; null when the file is removed. */
  sha256: string | null
  /** Unified diff of the change (`a/` `b/` paths relative to the root). */
  diff?: string
  /** Why the diff is missing (old and new content too large to show). */
  diff_omitted?: string
}

/** A successful undo (done, or planned by a dry run). */
export interface Undone {
  ok: true
  /** The transaction undone. */
  undone: string
  /** Whether it undid an undo. */
  redo: boolean
  files: UndoFile[]
  /** This undo's own transaction (undo it to redo), when journaled. */
  id?: string
  warnings?: string[]
  dry_run?: true
  /** Unified diff of the change (`a/` `b/` paths relative to the root). */
  diff?: string
  /** Why the diff is missing (old and new content too large to show). */
  diff_omitted?: string
  /**
   * Pass it to applyDryRun to write exactly this preview; null when the planned change was too large to keep (see
   * `message`).
   */
  run_id?: string | null
  /** Seconds the run_id stays applicable (0 when not kept). */
  expires_in?: number
  /** Why the run was not kept, and how to apply it. */
  message?: string
}

export type Verified = 'snapshot' | 'line_numbers'

export type ViewCommand = 'view'

/** A `view`, told apart by `kind`. */
export type Viewed = FileView | DirView

/** A successful writeFile. */
export interface WriteDone {
  ok: true
  file_path: string
  /** Whether the file did not exist before. */
  created: boolean
  after_bytes: number
  after_chars?: number
  encoding?: string
  /** null when the file is created. */
  sha256_before: string | null
  sha256: string
  /** Elision markers in the new text, written as the lines they stand for. */
  expanded?: KeptElision[]
  /**
   * The parse errors this edit introduced, or why the file was not checked (files in a checked language only;
   * absent when clean).
   */
  syntax?: SyntaxReport
  write_strategy?: WriteStrategy
  /** With `in_place`: why a rename would have lost something. */
  write_strategy_reason?: string
  warnings?: string[]
  dry_run?: true
  /** Unified diff of the change (`a/` `b/` paths relative to the root). */
  diff?: string
  /** Why the diff is missing (old and new content too large to show). */
  diff_omitted?: string
  /**
   * Pass it to applyDryRun to write exactly this preview; null when the planned change was too large to keep (see
   * `message`).
   */
  run_id?: string | null
  /** Seconds the run_id stays applicable (0 when not kept). */
  expires_in?: number
  /** Why the run was not kept, and how to apply it. */
  message?: string
}

export type WriteStrategy = 'rename' | 'in_place'

// ---- end of generated result types ----
