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

/// The addon's words for JavaScript values that are not JSON text.
pub use crate::printer::js;
pub use entry::{cancelled, failure, guarded};
// Each entry point's function (`patch_file`, `read_file`, …), made by the
// runner's table, beside `run`, `EntryPoint` and the contract.
pub use runner::*;

#[cfg(test)]
mod diagnosed_tests;
#[cfg(test)]
mod transaction_tests;
