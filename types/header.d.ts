/* eslint-disable */
// Types of the patch-file-tool public API. napi-rs prepends this file to
// binding.d.ts (package.json `napi.dtsHeaderFile`), where the generated
// function declarations of the Rust #[napi] functions use these types;
// scripts/gen-entry.mjs copies it into index.d.ts. Types only: the values
// index.js defines in JS are declared in types/entry.d.ts.
//
// The result types at the end of this file are generated from the engine's
// Rust result types (src/result/ -> schemas/results.schema.json ->
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
  /** Most transactions kept per workspace (default 500); the oldest go first. */
  maxEntries?: number
  /** Most bytes kept per workspace (default 256 MiB); the oldest go first. */
  maxBytes?: number
  /** Largest file whose previous content is kept (default 32 MiB); a transaction with a larger file is not undoable. */
  maxFileBytes?: number
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
}

export type ReadFileResult =
  | {
      ok: true
      file_path: string
      /** The lines, decoded; in a file that is not valid UTF-8 each invalid byte sequence shows as U+FFFD. */
      content: string
      /**
       * `true` when `content` is exactly the file's text for these lines; `false` when it shows U+FFFD
       * for bytes that are not UTF-8 (writing it back would replace them; writeFile refuses that file).
       */
      faithful: boolean
      /**
       * Present for a file that is not UTF-8 (a legacy encoding, or `'binary-safe-bytes'`): what `content`
       * shows and how the file is edited without losing bytes; and for a file torn by an interrupted in-place
       * write, which is shown as its content before that write (the next write restores it).
       */
      warning?: string
      offset: number
      lines: number
      total_lines: number
      next_offset?: number
      /** The answer stopped at 128 MiB of whole lines; read on from next_offset. */
      truncated?: true
      message?: string
      sha256: string
      /**
       * `'utf-8'`, `'utf-16le'`, `'utf-16be'`, a detected legacy encoding by its WHATWG name in lower case
       * (`'shift_jis'`, `'gbk'`, `'big5'`, `'euc-kr'`, `'euc-jp'`, `'windows-1252'`, …; `content` is decoded
       * by it), or `'binary-safe-bytes'` (read at byte level).
       */
      encoding: 'utf-8' | 'utf-16le' | 'utf-16be' | 'binary-safe-bytes' | (string & {})
      bom: boolean
      line_ending: 'lf' | 'crlf' | 'mixed' | 'none'
      bytes: number
    }
  | PatchFileFailure

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

/** applyPatch input when not a plain string. */
export type ApplyPatchInput = ({ patch: string } | { input: string } | { text: string }) & {
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

/** The figures of a successful text editor edit command (written or planned). */
export type TextEditorEditFigures = Omit<Partial<FormatFileResult>, 'diff'> & {
  ok: true
  command: 'create' | 'str_replace' | 'insert' | 'undo_edit'
  format: 'text_editor'
  /** Numbered lines around the edit (`cat -n` style). */
  snippet?: string
  /** undo_edit: whether the file was removed (the undone edit created it). */
  removed?: boolean
  undo_remaining?: number
  warnings?: string[]
}

export type TextEditorEdited = TextEditorEditFigures & NotDryRun
export type TextEditorDryRun = TextEditorEditFigures & DryRunPreview

/** A `view` command's result (a dry-run flag changes nothing for it). */
export type TextEditorView =
  | {
      ok: true
      command: 'view'
      kind: 'file'
      file_path: string
      /** Numbered lines (`cat -n` style). */
      content: string
      start_line: number
      end_line: number
      total_lines: number
      sha256: string
      encoding: string
      line_ending: string
      truncated?: true
    }
  | { ok: true; command: 'view'; kind: 'directory'; file_path: string; entries: string[]; content: string; truncated?: true }

/** A failed text editor command: nothing was written. */
export type TextEditorFailure = FormatFailure & { command?: TextEditorCommand['command'] }

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
}

/** One journaled write transaction (`damaged?: false`: written by hand, so `t.damaged` narrows the union). */
export type HistoryTransaction = Transaction & { damaged?: false; damage?: undefined }

/** Why a journal entry is damaged. */
export type JournalDamage = Damage

/** A journal entry that does not read back whole: listed, never acted on (undo answers JOURNAL_DAMAGED). */
export type DamagedTransaction = DamagedEntry & { time?: undefined; entry_point?: undefined }

export type HistoryResult = HistoryDone | PatchFileFailure

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

// ---- generated by scripts/gen-results.mjs from schemas/results.schema.json: do not edit ----
// ---- end of generated result types ----
