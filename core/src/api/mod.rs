//! The entry points: each takes the caller's JSON input and options and
//! returns the result object as JSON (`ok: true` with figures, or
//! `ok: false` with a stable `code`, a `message` for the agent and the
//! details that help a retry). Input is normalized by `crate::input`;
//! every write runs through the one pipeline in `crate::txn`.
//!
//! Nothing here panics outward: every entry point is wrapped in
//! [`guarded`] (in `entry.rs`), which turns a panic into an `INTERNAL_ERROR` result.

mod dry_run;
mod edit_file;
mod entry;
mod files;
mod formats;
mod history;
mod lines;
mod patch;
mod runner;
mod text_editor;
mod view;

/// The addon's words for JavaScript values that are not JSON text.
pub use crate::printer::js;
pub use dry_run::apply_dry_run;
pub use edit_file::edit_file;
pub use entry::{cancelled, failure, guarded};
pub use files::{read_file, write_file};
pub use formats::{apply_edit_blocks, apply_patch};
pub use history::{history, journal_clear, undo};
pub use lines::edit_lines;
pub use patch::{batch_patch_files, patch_file};
pub use runner::{contract, run, run_nonblocking};
pub use text_editor::text_editor;

#[cfg(test)]
mod transaction_tests;
