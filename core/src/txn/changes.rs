//! What a commit changed, handed to whoever records it.
//!
//! The pipeline knows nothing of the journal. It describes each commit it
//! made — every file written or removed, its bytes and identity before, its
//! sha256 before and after, and the replaced inode it set aside — and hands
//! that to the caller's [`Recorder`] while the files are still locked and
//! the set-aside originals still exist. The edit journal (`crate::history`)
//! is such a recorder (one that is off records nothing).
//! So the dependency points one way: history uses the pipeline, never the
//! reverse.

use std::path::Path;

use crate::io::commit::Aside;
use crate::io::dir::Meta;
use crate::io::workspace::Workspace;

/// Hears of every commit of a call (see the module docs).
pub(crate) trait Recorder: Sync {
    /// Records `c`, a commit that is on disk; called while its files are
    /// locked, within this process and across processes (the `flock` on
    /// what now stands at each written name), so the commits of one file
    /// are recorded in the order they were made. A failure to record never
    /// fails the write: the returned
    /// sentences go into the result's `warnings`.
    fn record(&self, c: &Commit<'_>) -> Vec<String>;

    /// How many of the hard links of the file `meta` in `ws` belong to the
    /// recorder (the journal keeps replaced inodes). The pipeline does not
    /// count those as other names of the file.
    fn links_held(&self, _ws: &Workspace, _meta: &Meta) -> u64 {
        0
    }
}

/// One commit: every file it wrote or removed.
pub(crate) struct Commit<'a> {
    pub(crate) ws: &'a Workspace,
    pub(crate) files: Vec<Change<'a>>,
}

/// What happened to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// An existing file got new content.
    Modified,
    /// A new file (perhaps a moved one: see [`Change::moved`]).
    Created,
    /// A file was removed (perhaps moved away).
    Deleted,
}

/// One file of a [`Commit`].
pub(crate) struct Change<'a> {
    /// The path relative to the root, as results show it.
    pub(crate) rel_path: &'a str,
    /// The real file's absolute path, exactly (it need not be UTF-8, which
    /// `rel_path` then renders lossily).
    pub(crate) abs_path: &'a Path,
    pub(crate) kind: Kind,
    /// A created file: the removed file it was moved from; a deleted one:
    /// where it was moved to.
    pub(crate) moved: Option<&'a str>,
    /// The file before (modified or deleted files).
    pub(crate) before: Option<Before<'a>>,
    /// The file after (modified or created files).
    pub(crate) after: Option<After<'a>>,
}

/// A file as it was before the commit.
pub(crate) struct Before<'a> {
    pub(crate) bytes: &'a [u8],
    pub(crate) meta: &'a Meta,
    pub(crate) sha256: &'a str,
    /// The replaced or removed inode itself, still whole, when the commit
    /// set it aside (not after a plain rename or an in-place write).
    pub(crate) aside: Option<&'a Aside<'a>>,
}

/// A file as the commit left it.
pub(crate) struct After<'a> {
    /// The new bytes, as the slices written in order.
    pub(crate) content: &'a [&'a [u8]],
    pub(crate) len: u64,
    pub(crate) sha256: &'a str,
}
