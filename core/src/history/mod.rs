//! The edit journal: every successful write transaction, recorded per
//! workspace outside it, listed by `history` and undone by `undo`
//! (`docs/journal.md` has the whole story).
//!
//! The journal is a store with invariants of its own, outside the write
//! pipeline: the pipeline (`crate::txn`) describes each commit it made to a
//! recorder it is handed ([`Journal`], see `txn::changes`) and knows
//! nothing more of the journal; undo runs as an ordinary transaction of that
//! pipeline. What the journal reads back it trusts only as far as it could
//! have been written by nobody else (`store`), checks whole before using
//! (`entry`), and lists as damaged otherwise.
//!
//! - `store`: where a journal lives, its key, its lock and totals, pruning;
//! - `entry`: the entry format, and reading one back without trusting it;
//! - `record`: the recorder (kept inodes instead of copies);
//! - `list`: `history` and `journalClear`;
//! - `undo`: `undo` and the text editor's `undo_edit`;
//! - `lines`: lines added and removed, timestamps.

mod entry;
mod lines;
mod list;
mod record;
mod store;
mod undo;

pub(crate) use list::{clear, history};
pub(crate) use record::Journal;
pub(crate) use undo::{undo, undo_file, FileUndo};
