/* eslint-disable */
// Types of the patch-file-tool public API. The function declarations below
// this header are generated from the Rust binding by napi-rs.

/** Every stable error code. New codes may be added; these never change. */
export type PatchFileErrorCode =
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
  | 'INTERNAL_ERROR'

/** A frozen object mapping each code name to the same string. */
export declare const PATCH_FILE_ERROR_CODES: Readonly<{ [K in PatchFileErrorCode]: K }>

/** One search/replace edit. Each field accepts the spellings of other edit tools. */
export type PatchFileEdit = (
  | { search_block: string }
  | { searchBlock: string }
  | { search: string }
  | { oldText: string }
  | { old_string: string }
) &
  (
    | { replace_block: string }
    | { replaceBlock: string }
    | { replace: string }
    | { newText: string }
    | { new_string: string }
  ) & {
    /** Require exactly N occurrences and replace all N (default 1). */
    expected_replacements?: number
    expectedReplacements?: number
    /** Replace every occurrence (at least one). */
    replace_all?: boolean
    replaceAll?: boolean
  }

type PatchFilePath = { file_path: string } | { filePath: string }
type PatchFileSearch = { search_block: string } | { searchBlock: string }
type PatchFileReplace = { replace_block: string } | { replaceBlock: string }

/** Options common to every write. */
export interface PatchFileCommon {
  /** sha256 (hex) the file must still have; else FILE_CHANGED and nothing is written. */
  expected_sha256?: string
  expectedSha256?: string
  /** Plan only: return `diff` and a `run_id` for applyDryRun; nothing is written. */
  dry_run?: boolean
  dryRun?: boolean
}

/** Input of patchFile: a path plus one search/replace pair or `edits`. */
export type PatchFileInput = PatchFilePath &
  PatchFileCommon &
  (
    | (PatchFileSearch &
        PatchFileReplace & {
          expected_replacements?: number
          expectedReplacements?: number
          replace_all?: boolean
          replaceAll?: boolean
        })
    | { edits: PatchFileEdit[] }
  )

export interface PatchFileOptions {
  /** Directory every path must stay inside. Default: process.cwd(). */
  workspaceRoot?: string
  /** fsync the file and its directory (default true). false: faster, for throw-away sandboxes. */
  durable?: boolean
  /** Refuse larger files with FILE_TOO_LARGE before reading them (default 1 GiB). */
  maxFileBytes?: number
  /** How long a dry run stays applicable, in seconds (default 300). */
  dryRunTtlSeconds?: number
}

export interface PatchFileEditReport {
  line_number: number
  replacements: number
}

export interface PatchFileSuccess {
  ok: true
  /** Absolute path of the edited file. */
  file_path: string
  /** Total occurrences replaced. */
  replacements: number
  /** 1-based line where the (first edit's) match starts. */
  line_number: number
  /** Length of the decoded text as a JS string (UTF-16 code units, BOM excluded). */
  before_chars: number
  after_chars: number
  /** Size on disk (BOM included). */
  before_bytes: number
  after_bytes: number
  edits: PatchFileEditReport[]
  /** sha256 (hex) of the bytes on disk before and after. */
  sha256_before: string
  sha256: string
  /** Present on dry runs. */
  dry_run?: true
  diff?: string
  run_id?: string
  expires_in?: number
}

export interface PatchFileEditFailure {
  index: number
  code: PatchFileErrorCode
  match_count: number
  message: string
  match_lines?: number[]
}

export interface PatchFileFailure {
  ok: false
  code: PatchFileErrorCode
  /** What went wrong and the shortest next step, written for an agent. */
  message: string
  file_path?: string
  match_count?: number
  /** 1-based start lines of the matches (SEARCH_BLOCK_AMBIGUOUS). */
  match_lines?: number[]
  /** Every failing edit of a multi-edit. */
  failed_edits?: PatchFileEditFailure[]
  /** Current sha256 of the file (FILE_CHANGED). */
  sha256?: string
  [detail: string]: unknown
}

export type PatchFileResult = PatchFileSuccess | PatchFileFailure

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

/** The `patch_file` tool schema (schemas/patch_file.schema.json). */
export declare const patchFileSchema: PatchFileSchema
/** Every tool schema shipped in schemas/, by tool name. */
export declare const schemas: Readonly<Record<string, PatchFileSchema>>

export type BatchPatchFilesInput = {
  files: Array<PatchFilePath & Omit<PatchFileCommon, 'dry_run' | 'dryRun'> & ({ edits: PatchFileEdit[] } | (PatchFileSearch & PatchFileReplace))>
  dry_run?: boolean
  dryRun?: boolean
}

export type BatchPatchFilesResult =
  | { ok: true; replacements: number; files: PatchFileSuccess[]; dry_run?: true; run_id?: string; expires_in?: number; diff?: string }
  | (PatchFileFailure & { files?: Array<PatchFileFailure | { ok: true; index: number; file_path: string; message: string }>; rolled_back?: string[] })

export type ApplyDryRunInput = { run_id: string } | { runId: string }

export type ApplyDryRunResult =
  | { ok: true; run_id: string; file_path?: string; sha256?: string; files: Array<{ file_path: string; after_bytes: number; sha256: string }> }
  | PatchFileFailure

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
      content: string
      offset: number
      lines: number
      total_lines: number
      next_offset?: number
      sha256: string
      encoding: 'utf-8' | 'utf-16le' | 'utf-16be' | 'binary-safe-bytes'
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
}

export type WriteFileResult =
  | {
      ok: true
      file_path: string
      created: boolean
      after_bytes: number
      after_chars?: number
      encoding?: string
      sha256_before: string | null
      sha256: string
      dry_run?: true
      diff?: string
      run_id?: string
      expires_in?: number
    }
  | PatchFileFailure
