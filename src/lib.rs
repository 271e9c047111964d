//! # patch-file-tool
//!
//! The engine behind the `patch-file-tool` npm package: exact-once search and
//! replace edits, applied atomically inside a workspace sandbox, for AI
//! coding agents.
//!
//! One flow serves every entry point (JS API, MCP tools, CLI, edit formats):
//!
//! ```text
//! request ──► workspace ──► source ──► plan ──► commit
//! (validate,   (resolve     (read bytes,  (match every   (temp files, fsync,
//!  normalize    beneath      detect        edit; new      rename, dir fsync,
//!  aliases)     the root     encoding)     content as     rollback; or hold
//!               via dir                    slices)        for a dry run)
//!               handles)
//! ```
//!
//! Each stage is a module that depends only on the ones to its left. The
//! core is plain Rust; [`binding`] is the only module that knows about
//! Node-API, and it only converts values.

pub mod commit;
pub mod diagnose;
pub mod diff;
pub mod dropin;
pub mod dry_run;
pub mod editor;
pub mod engine;
pub mod error;
pub mod file_ops;
pub mod formats;
pub mod fsys;
pub mod hunks;
pub mod locks;
pub mod plan;
pub mod request;
pub mod source;
pub mod tolerant;
pub mod workspace;

#[cfg(not(test))]
mod binding;
