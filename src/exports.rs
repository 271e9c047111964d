//! The functions the addon exports to JavaScript, one `#[napi]` one-liner
//! each: an entry point runs through `api::run` (on the libuv pool, or
//! synchronously for the `Sync` variants); the rest are the error codes,
//! the default lock wait, the cancellation tokens and a cancelled call's
//! result.

use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::convert::{sync, task, EngineTask, JsonOut};
use patch_file_core::api;
use patch_file_core::api::EntryPoint;

/// Applies one exact-once edit (or `edits`) to one file. Never rejects.
#[napi(
    ts_generic_types = "D extends boolean = false, O extends PatchFileOptions = PatchFileOptions",
    ts_args_type = "input: PatchFileInput & DryRunFlag<D>, options?: O",
    ts_return_type = "Promise<ResultsView<O, PatchFileResultFor<D>>>"
)]
pub fn patch_file(
    env: Env,
    input: Option<Unknown<'_>>,
    options: Option<Unknown<'_>>,
) -> AsyncTask<EngineTask> {
    task(&env, EntryPoint::PatchFile, input, options)
}

/// Synchronous `patchFile` (blocks the event loop; for scripts and CLIs).
#[napi(
    ts_generic_types = "D extends boolean = false, O extends PatchFileOptions = PatchFileOptions",
    ts_args_type = "input: PatchFileInput & DryRunFlag<D>, options?: O",
    ts_return_type = "ResultsView<O, PatchFileResultFor<D>>"
)]
pub fn patch_file_sync(
    env: Env,
    input: Option<Unknown<'_>>,
    options: Option<Unknown<'_>>,
) -> JsonOut {
    JsonOut(sync(&env, EntryPoint::PatchFile, input, options))
}

/// Edits many files in one all-or-nothing transaction. Never rejects.
#[napi(
    ts_generic_types = "D extends boolean = false, O extends PatchFileOptions = PatchFileOptions",
    ts_args_type = "input: BatchPatchFilesInput & DryRunFlag<D>, options?: O",
    ts_return_type = "Promise<ResultsView<O, BatchPatchFilesResultFor<D>>>"
)]
pub fn batch_patch_files(
    env: Env,
    input: Option<Unknown<'_>>,
    options: Option<Unknown<'_>>,
) -> AsyncTask<EngineTask> {
    task(&env, EntryPoint::BatchPatchFiles, input, options)
}

/// Writes exactly what a dry run previewed, once. Never rejects.
#[napi(
    ts_generic_types = "O extends PatchFileOptions = PatchFileOptions",
    ts_args_type = "input: ApplyDryRunInput | string, options?: O",
    ts_return_type = "Promise<ResultsView<O, ApplyDryRunResult>>"
)]
pub fn apply_dry_run(
    env: Env,
    input: Option<Unknown<'_>>,
    options: Option<Unknown<'_>>,
) -> AsyncTask<EngineTask> {
    task(&env, EntryPoint::ApplyDryRun, input, options)
}

/// Reads a file (or a line range of it) with its sha256 and encoding facts.
#[napi(
    ts_generic_types = "O extends PatchFileOptions = PatchFileOptions",
    ts_args_type = "input: ReadFileInput, options?: O",
    ts_return_type = "Promise<ResultsView<O, ReadFileResult>>"
)]
pub fn read_file(
    env: Env,
    input: Option<Unknown<'_>>,
    options: Option<Unknown<'_>>,
) -> AsyncTask<EngineTask> {
    task(&env, EntryPoint::ReadFile, input, options)
}

/// Atomically creates or replaces a whole file. Never rejects.
#[napi(
    ts_generic_types = "D extends boolean = false, O extends PatchFileOptions = PatchFileOptions",
    ts_args_type = "input: WriteFileInput & DryRunFlag<D>, options?: O",
    ts_return_type = "Promise<ResultsView<O, WriteFileResultFor<D>>>"
)]
pub fn write_file(
    env: Env,
    input: Option<Unknown<'_>>,
    options: Option<Unknown<'_>>,
) -> AsyncTask<EngineTask> {
    task(&env, EntryPoint::WriteFile, input, options)
}

/// Applies SEARCH/REPLACE blocks (one text, many files) exactly once each,
/// all files or none. Never rejects.
#[napi(
    ts_generic_types = "D extends boolean = false, E extends boolean = false, O extends FormatOptions = FormatOptions",
    ts_args_type = "text: string | (EditBlocksInput & DryRunFlag<D>), options?: O & DryRunFlag<E>",
    ts_return_type = "Promise<ResultsView<O, FormatResultFor<EitherDryRun<D, E>>>>"
)]
pub fn apply_edit_blocks(
    env: Env,
    text: Option<Unknown<'_>>,
    options: Option<Unknown<'_>>,
) -> AsyncTask<EngineTask> {
    task(&env, EntryPoint::ApplyEditBlocks, text, options)
}

/// Applies a Codex `*** Begin Patch` envelope or a unified / git diff, all
/// files or none. Never rejects.
#[napi(
    ts_generic_types = "D extends boolean = false, E extends boolean = false, O extends FormatOptions = FormatOptions",
    ts_args_type = "patch: string | (ApplyPatchInput & DryRunFlag<D>), options?: O & DryRunFlag<E>",
    ts_return_type = "Promise<ResultsView<O, FormatResultFor<EitherDryRun<D, E>>>>"
)]
pub fn apply_patch(
    env: Env,
    patch: Option<Unknown<'_>>,
    options: Option<Unknown<'_>>,
) -> AsyncTask<EngineTask> {
    task(&env, EntryPoint::ApplyPatch, patch, options)
}

/// Runs one text editor command (`str_replace_based_edit_tool`: view,
/// create, str_replace, insert, undo_edit). Never rejects.
#[napi(
    ts_generic_types = "K extends TextEditorCommand['command'], D extends boolean = false, E extends boolean = false, O extends FormatOptions = FormatOptions",
    ts_args_type = "command: TextEditorCommand & { command: K } & DryRunFlag<D>, options?: O & DryRunFlag<E>",
    ts_return_type = "Promise<ResultsView<O, TextEditorResultFor<K, EitherDryRun<D, E>>>>"
)]
pub fn text_editor(
    env: Env,
    command: Option<Unknown<'_>>,
    options: Option<Unknown<'_>>,
) -> AsyncTask<EngineTask> {
    task(&env, EntryPoint::TextEditor, command, options)
}

/// Replaces, deletes or inserts lines named by the `LINE#ID` anchors of a
/// readFile with `anchors: true`, all edits or none. Never rejects.
#[napi(
    ts_generic_types = "D extends boolean = false, O extends PatchFileOptions = PatchFileOptions",
    ts_args_type = "input: EditLinesInput & DryRunFlag<D>, options?: O",
    ts_return_type = "Promise<ResultsView<O, EditLinesResultFor<D>>>"
)]
pub fn edit_lines(
    env: Env,
    input: Option<Unknown<'_>>,
    options: Option<Unknown<'_>>,
) -> AsyncTask<EngineTask> {
    task(&env, EntryPoint::EditLines, input, options)
}

/// server-filesystem's `edit_file` input (`{ path, edits: [{ oldText,
/// newText }], dryRun }`), every edit exact-once, all or nothing. Never rejects.
#[napi(
    ts_generic_types = "D extends boolean = false, O extends PatchFileOptions = PatchFileOptions",
    ts_args_type = "input: EditFileInput & { dryRun?: D }, options?: O",
    ts_return_type = "Promise<ResultsView<O, PatchFileResultFor<D>>>"
)]
pub fn edit_file(
    env: Env,
    input: Option<Unknown<'_>>,
    options: Option<Unknown<'_>>,
) -> AsyncTask<EngineTask> {
    task(&env, EntryPoint::EditFile, input, options)
}

/// Lists the workspace's journaled write transactions, newest first.
/// Never rejects.
#[napi(
    ts_generic_types = "O extends PatchFileOptions = PatchFileOptions",
    ts_args_type = "input?: HistoryInput, options?: O",
    ts_return_type = "Promise<ResultsView<O, HistoryResult>>"
)]
pub fn history(
    env: Env,
    input: Option<Unknown<'_>>,
    options: Option<Unknown<'_>>,
) -> AsyncTask<EngineTask> {
    task(&env, EntryPoint::History, input, options)
}

/// Undoes a journaled transaction (default: the newest not yet undone),
/// all files or none. Never rejects.
#[napi(
    ts_generic_types = "D extends boolean = false, O extends PatchFileOptions = PatchFileOptions",
    ts_args_type = "input?: string | ({ id?: string } & DryRunFlag<D>), options?: O",
    ts_return_type = "Promise<ResultsView<O, UndoResultFor<D>>>"
)]
pub fn undo(
    env: Env,
    input: Option<Unknown<'_>>,
    options: Option<Unknown<'_>>,
) -> AsyncTask<EngineTask> {
    task(&env, EntryPoint::Undo, input, options)
}

/// Removes every entry of the workspace's journal. Never rejects.
#[napi(
    ts_generic_types = "O extends PatchFileOptions = PatchFileOptions",
    ts_args_type = "input?: Record<string, never>, options?: O",
    ts_return_type = "Promise<ResultsView<O, JournalClearResult>>"
)]
pub fn journal_clear(
    env: Env,
    input: Option<Unknown<'_>>,
    options: Option<Unknown<'_>>,
) -> AsyncTask<EngineTask> {
    task(&env, EntryPoint::JournalClear, input, options)
}

/// Every error code, in declaration order (the JS wrapper freezes them).
#[napi(ts_return_type = "PatchFileErrorCode[]")]
pub fn error_codes() -> Vec<&'static str> {
    patch_file_core::error::ErrorCode::ALL
        .iter()
        .map(|c| c.as_str())
        .collect()
}

/// How long a call waits for a busy file by default, in ms
/// (`options.lockWaitMs`; js/calls.js does the waiting).
#[napi]
pub const DEFAULT_LOCK_WAIT_MS: u32 = patch_file_core::model::DEFAULT_LOCK_WAIT_MS as u32;
const _: () = assert!(patch_file_core::model::DEFAULT_LOCK_WAIT_MS <= u32::MAX as u64);

/// The engine's `CANCELLED` result for a call stopped before it wrote
/// anything: by its caller, or (with `timeoutMs`) by that time budget.
/// js/calls.js answers with it when it stops a call between its retries.
#[napi(ts_return_type = "PatchFileFailure")]
pub fn cancelled_result(timeout_ms: Option<i64>) -> JsonOut {
    JsonOut(api::cancelled(timeout_ms.map(|ms| ms.max(0) as u64)))
}

/// A cancellation token for one call (js/calls.js passes it as
/// `options.cancelToken`, raises it when the caller's AbortSignal fires and
/// releases it when the call is answered).
#[napi]
pub fn cancel_token() -> u32 {
    patch_file_core::model::cancel_tokens::take() as u32
}

/// Raises a cancellation token: its call stops before writing anything.
#[napi]
pub fn cancel_call(token: u32) {
    patch_file_core::model::cancel_tokens::raise(u64::from(token))
}

/// Forgets a cancellation token once its call is answered.
#[napi]
pub fn release_cancel_token(token: u32) {
    patch_file_core::model::cancel_tokens::release(u64::from(token))
}
