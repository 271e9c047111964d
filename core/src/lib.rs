//! # patch-file-core
//!
//! The engine behind the `patch-file-tool` npm package: exact-once search and
//! replace edits (and the edit formats agents use), applied atomically inside
//! a workspace sandbox, for AI coding agents. Plain Rust: it knows nothing of
//! Node-API. The addon (the `patch-file-tool` crate at the repository's root,
//! `src/`) wraps it and only converts values; its whole surface is
//! [`api::run`], the vocabulary ([`model`], [`result`], [`error`]) and
//! the words for what it cannot convert ([`api::js`]).
//!
//! ## The map
//!
//! ```text
//! core/src/
//!   lib.rs      this map and the dependency rule
//!   testing.rs  the crate's integration tests' one door inside (hidden;
//!               nothing else uses it)
//!   api/        entry points, JSON in -> typed result -> JSON out (runner.rs:
//!               the table declaring every `EntryPoint`, `run`, one door keyed
//!               by it, and the published contract; entry.rs: the start-up
//!               and panic guard they share; view.rs: the compact view):
//!               patch (patchFile,
//!               batchPatchFiles), files (readFile, writeFile), dry_run
//!               (applyDryRun), formats (applyEditBlocks, applyPatch),
//!               text_editor, edit_file (server-filesystem's shape), lines
//!               (editLines)
//!   input/      every spelling and every text format stops here: request.rs
//!               (requests by serde derive, each field's spellings declared
//!               once), fields.rs (the adapter: spellings, unknown fields,
//!               messages in the caller's words), formats/ (SEARCH/REPLACE, Codex
//!               patch, unified diff, text-editor commands -> one OpPlan)
//!   history/    the edit journal, outside the pipeline: store.rs (owner-
//!               checked, no-follow directory, keys, pruning), entry.rs (the
//!               format, read back without trusting it), record.rs (the
//!               pipeline's recorder: kept inodes instead of copies),
//!               list.rs (history, clear), undo.rs (undo as a transaction)
//!   txn/        the ONE write pipeline: Txn = resolve -> lock -> read
//!               (pipeline.rs) -> (caller matches) -> commit (commit.rs),
//!               or keep as a dry run (preview.rs); edits.rs
//!               (search/replace, whole files), ops.rs (edit-format plans),
//!               dry_run.rs (the cache and its one apply path), lines.rs
//!               (anchored line edits), diff.rs,
//!               changes.rs (what a commit changed, for its recorder)
//!   printer/    every sentence an agent reads, from the facts the layers
//!               above it name (which lines, which count, which spelling)
//!   check/      pure: what the new text of a file leaves, checked once per
//!               written file on its final content by the pipeline (every
//!               entry point and format): elision.rs (`// ... existing code
//!               ...` markers expanded when they have one reading, refused
//!               otherwise), marker.rs (what a marker line is)
//!   matching/   pure: exact.rs (exact-once planning), many.rs (many edits
//!               in one pass), plan.rs (what both plan: spans over the text),
//!               blocks.rs (SEARCH/REPLACE blocks), tolerant.rs
//!               (opt-in `match` tolerances), locate.rs (placing patch hunks),
//!               anchors.rs (line IDs, the snapshot-to-file line mapping),
//!               line_edits.rs (placing anchored line edits)
//!   io/         disk through directory handles: dir.rs (openat & co),
//!               workspace.rs (the sandbox), source.rs (the one read path),
//!               commit.rs (atomic multi-file commit), locks.rs,
//!               snapshots.rs (what reads with anchors showed)
//!   diagnose/   pure: why an edit did not land and what the file holds
//!               instead, for failed edits only
//!   likeness/   pure: how a text resembles a block (the closest region, the
//!               kinds of difference, a replacement standing, a rival place),
//!               for diagnosis and the tolerant guard
//!   codec/      pure: a file's bytes as text and back (source.rs: encodings,
//!               BOM, line endings, hashing; legacy.rs: legacy encodings)
//!   text/       pure leaf: line numbers (lines.rs), indentation, text
//!               folds, UTF-8 inside legacy text
//!   model.rs    the vocabulary: Edit, Count, FileEdits, Options, MatchMode,
//!               OpPlan / FileOp / FileAction / Block / Hunk
//!   result/     the contract: typed results and failures (Serialize), the
//!               generated schema of them (contract.rs)
//!   error.rs    codes and Failure
//! ```
//!
//! ## The dependency rule
//!
//! Layers, top to bottom; a module may use only modules on lines below its
//! own, never one on its own line or above (so there are no circles). Every
//! layer may therefore use `result`, `model` and `error`. `tests/suite/layers.rs` reads this
//! block and every `crate::` path in `core/src/` and fails on an edge that breaks
//! it.
//!
//! Within a layer, files do not use each other round a circle either: the
//! same test follows every `crate::`, `super::` and `self::` path and a
//! module's paths into its own children (re-exports included) from file to
//! file, and fails naming the circle. Test code (`#[cfg(test)]`) is left
//! out: nothing depends on it. What two files share lives in the file it
//! belongs to, or in a small module of its own (`matching/plan.rs`,
//! `text/lines.rs`, `likeness/windows.rs`, `api/entry.rs`), and a
//! `mod.rs` (and this file) holds declarations and re-exports, not what its
//! children use (`tests/suite/structure.rs` fails on a module root that defines
//! an item outside `#[cfg(test)]`).
//!
//! ```text
//! testing
//! api
//! input history
//! txn
//! matching io
//! diagnose codec
//! likeness
//! printer
//! check
//! text
//! result
//! model
//! error
//! ```
//!
//! [`api`] is the interface, with
//! the vocabulary it speaks: [`model`], [`result`] and [`error`]. Every
//! other module is private to the crate (`pub(crate)` throughout, which
//! `unreachable_pub` keeps honest); the crate's own integration tests reach
//! the few internals they test alone (fault injection, parsers, diagnosis)
//! through `testing`, a hidden module that re-exports exactly those items;
//! it stands on the top line of the rule, so nothing in the crate uses it.

#![warn(unreachable_pub)]

pub mod api;
pub(crate) mod check;
pub(crate) mod codec;
pub(crate) mod diagnose;
pub mod error;
pub(crate) mod history;
pub(crate) mod input;
pub(crate) mod io;
pub(crate) mod likeness;
pub(crate) mod matching;
pub mod model;
pub(crate) mod printer;
pub mod result;
#[doc(hidden)]
pub mod testing;
pub(crate) mod text;
pub(crate) mod txn;
