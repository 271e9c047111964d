//! The entry points: each takes the caller's JSON input and options and
//! returns the result object as JSON (`ok: true` with figures, or
//! `ok: false` with a stable `code`, a `message` for the agent and the
//! details that help a retry). Input is normalized by [`crate::input`];
//! every write runs through the one pipeline in [`crate::txn`].
//!
//! Nothing here panics outward: every entry point is wrapped in
//! [`guarded`], which turns a panic into an `INTERNAL_ERROR` result.

mod dry_run;
mod edit_file;
mod files;
mod formats;
mod history;
mod patch;
mod text_editor;
mod view;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

use serde_json::Value;

use crate::error::{fail_value, ErrorCode, Failure};
use crate::input::request;
use crate::io::workspace::Workspace;
use crate::model::{Options, ResultView};

pub use dry_run::apply_dry_run;
pub use edit_file::edit_file;
pub use files::{read_file, write_file};
pub use formats::{apply_edit_blocks, apply_patch};
pub use history::{history, journal_clear, undo};
pub use patch::{batch_patch_files, patch_file};
pub use text_editor::text_editor;

/// The `CANCELLED` result of a call stopped before it wrote anything, by its
/// caller (`timeout_ms` None) or by its time budget (see
/// [`crate::model::cancelled`]).
pub fn cancelled(timeout_ms: Option<u64>) -> Value {
    fail_value(&crate::model::cancelled(timeout_ms), None)
}

/// Runs `f`, turning a panic into an `INTERNAL_ERROR` result, and gives
/// its result in the view the caller's `options` ask for (see [`view`]).
fn answer(options: Option<&Value>, f: impl FnOnce() -> Value) -> Value {
    let result = guarded(f);
    match request::options(options, cwd) {
        Ok(o) if o.results == ResultView::Compact => view::compact(result, &o.workspace_root),
        _ => result,
    }
}

/// Runs `f`, turning a panic into an `INTERNAL_ERROR` result.
pub fn guarded(f: impl FnOnce() -> Value) -> Value {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|p| {
        let what = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        fail_value(
            &Failure::new(
                ErrorCode::INTERNAL_ERROR,
                format!("internal error ({what}); nothing was written"),
            ),
            None,
        )
    })
}

/// The process's working directory: the default workspace root.
fn cwd() -> std::io::Result<PathBuf> {
    std::env::current_dir()
}

/// The start of every entry point (`entry`, its JS name): the options,
/// the request as `parse` reads it, and the open workspace; or the failure
/// result.
fn begin<R>(
    entry: &'static str,
    input: &Value,
    options: Option<&Value>,
    parse: fn(&Value) -> Result<R, Failure>,
) -> Result<(Options, R, Workspace), Value> {
    let opts = request::options(options, cwd).map_err(|f| fail_value(&f, None))?;
    // The entry point's name, for the journal.
    let opts = Options { entry, ..opts };
    let req = parse(input).map_err(|f| fail_value(&f, None))?;
    let ws = Workspace::open(&opts.workspace_root).map_err(|f| fail_value(&f, None))?;
    Ok((opts, req, ws))
}

#[cfg(test)]
mod transaction_tests;
