//! The one write pipeline. Every entry point that changes files (patchFile,
//! batchPatchFiles, writeFile, every edit format, the text editor,
//! applyDryRun) runs the same steps through a [`Txn`]:
//!
//! 1. **resolve** each path beneath the workspace root ([`Txn::add`]); the
//!    same real file named twice (by path, symlink or hard link) is
//!    reported to the caller, which words the refusal for its input;
//! 2. **lock** every file in sorted order and **read** the ones that exist
//!    ([`Txn::lock_and_read`]);
//! 3. **match**: the caller computes each file's new content in memory
//!    ([`edits`] for search/replace edits, [`ops`] for edit-format plans),
//!    as slices borrowed from what was read wherever possible; then
//!    **check**: each written file's final new text, with its old text, goes
//!    through [`crate::check::new_text`] once (elision markers expanded or
//!    refused), whatever the entry point or format;
//! 4. **commit** ([`Txn::commit`]): missing parent directories of new files
//!    are created only now, then every write and removal is made durable
//!    together (all files or none); what was committed — each file's bytes,
//!    identity and sha256 before and after, the replaced inodes set aside —
//!    is handed to the caller's recorder while the files are still locked —
//!    in this process, and by `flock` on what now stands at each name, so
//!    another process's commit of the same file waits until it is recorded
//!    ([`changes`]: the edit journal records it there, in commit order) —, stale temp files
//!    beside them are swept, and a directory fsync that failed becomes a
//!    warning; or **keep** the planned result as a dry run ([`Txn::keep_preview`])
//!    for [`dry_run::apply`], which replays it through steps 1, 2 and 4.
//!
//! Nothing is written before step 4, so a refusal anywhere earlier leaves
//! every file, and the directory tree, as it was. The pipeline records
//! nothing itself: it knows the journal only as a [`changes::Recorder`].
//!
//! This file only declares: `pipeline` holds the transaction and its files
//! (steps 1 and 2), `commit` step 4, `preview` what a dry run shows, and
//! [`dry_run`] what it keeps.

pub(crate) mod changes;
mod commit;
pub(crate) mod diff;
pub(crate) mod dry_run;
pub(crate) mod edits;
pub(crate) mod lines;
pub(crate) mod ops;
pub(crate) mod parallel;
mod pipeline;
mod preview;

pub(crate) use commit::CommitFailure;
pub use commit::STALE_TEMP_AGE;
pub(crate) use pipeline::{Added, Kept, Slot, Txn, Write};
pub(crate) use preview::{file_diff, preview, whole_diff};
