//! The transaction and its files: [`Txn`] resolves every path beneath the
//! workspace root, tells the same real file named twice ([`Added`]), then
//! locks every file and reads the ones that exist (steps 1 and 2 of the
//! pipeline, see [`crate::txn`]). What a commit writes ([`Write`]) and what a
//! dry run keeps ([`Kept`]) are named here, by slot.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::codec::source::{self, Source};
use crate::error::{ErrorCode, Failure};
use crate::io::dir::Meta;
use crate::io::locks::FileLock;
use crate::io::meta::Like;
use crate::io::source::read_existing;
use crate::io::workspace::{Intent, Resolved, Workspace};
use crate::model::Options;
use crate::printer;

/// One file of a transaction.
pub(crate) struct Slot {
    /// The path as the caller wrote it, for messages.
    pub(crate) display: String,
    /// Where it resolved. A file that does not exist was resolved without
    /// creating anything and is resolved again (creating its parent
    /// directories) at commit.
    pub(crate) res: Resolved,
    /// Whether missing parent directories may be created at commit.
    pub(super) create_dirs: bool,
    /// The file as read, when it exists and could be read.
    pub(crate) cur: Option<(Source, Meta)>,
    /// Why reading it failed, when it exists but could not be read.
    pub(crate) read_failure: Option<Failure>,
    /// sha256 of the bytes read, computed at most once.
    pub(super) sha256: OnceLock<String>,
}

impl Slot {
    /// Absolute path of the real file.
    pub(crate) fn abs(&self) -> String {
        self.res.abs_path.to_string_lossy().into_owned()
    }

    /// The content as read.
    pub(crate) fn source(&self) -> Option<&Source> {
        self.cur.as_ref().map(|(s, _)| s)
    }

    /// sha256 of the bytes read (`None`: the file does not exist).
    pub(crate) fn sha256(&self) -> Option<&str> {
        let (s, _) = self.cur.as_ref()?;
        Some(self.sha256.get_or_init(|| s.sha256()))
    }

    /// The file as read, or why it cannot be used: its read failure, or
    /// `FILE_READ_ERROR` when it does not exist.
    pub(crate) fn loaded(&self) -> Result<&(Source, Meta), Failure> {
        match (&self.cur, &self.read_failure) {
            (Some(c), _) => Ok(c),
            (None, Some(f)) => Err(f.clone()),
            (None, None) => Err(Failure::new(
                ErrorCode::FILE_READ_ERROR,
                printer::missing(&self.display),
            )),
        }
    }

    /// Records a sha256 already computed from the bytes read (elsewhere, in
    /// one pass with the new content's).
    pub(crate) fn know_sha256(&self, sha: &str) {
        let _ = self.sha256.set(sha.to_string());
    }
}

/// What [`Txn::add`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Added {
    /// A file not named before in this transaction, at this slot.
    New(usize),
    /// The real file of an earlier slot (same path after links, or the same
    /// inode through a hard link), here reached at `abs_path`.
    Again { slot: usize, abs_path: PathBuf },
}

/// One file to write at commit.
pub(crate) struct Write<'a> {
    pub(crate) slot: usize,
    /// The new bytes, as slices written in order.
    pub(crate) content: Vec<&'a [u8]>,
    /// The slot of a moved file whose mode a new file takes.
    pub(crate) perms_from: Option<usize>,
    /// sha256 of `content`, when the caller has it already (otherwise the
    /// commit computes it: see [`Committed::sha256`](crate::io::commit::Committed::sha256)).
    pub(crate) sha256: Option<String>,
    /// What a new file takes from the file it stands for (an undone
    /// deletion): owner, group, mode, attributes, as far as permitted.
    pub(crate) like: Option<Like>,
}

/// One file a dry run will write: [`Write`] with its bytes owned.
pub(crate) struct Kept {
    pub(crate) slot: usize,
    pub(crate) bytes: Vec<u8>,
    pub(crate) perms_from: Option<usize>,
    pub(crate) like: Option<Like>,
}

/// A transaction over the files of one call (see the module docs).
pub(crate) struct Txn<'w> {
    pub(super) ws: &'w Workspace,
    pub(crate) slots: Vec<Slot>,
    by_path: HashMap<PathBuf, usize>,
    by_inode: HashMap<(u64, u64), usize>,
    locks: Vec<FileLock>,
    /// What reading found (a file torn by an interrupted in-place write,
    /// read as its content before that write), reported as warnings of a
    /// dry run.
    pub(super) notes: Vec<String>,
    /// It puts back what the journal kept (an undo), not new text a caller
    /// sent: a file it leaves without a final line break is not told of.
    pub(crate) restores: bool,
    /// What putting back interrupted commits of several files did at the
    /// start (see [`crate::io::intents`]), reported as warnings.
    pub(crate) recovered: Vec<String>,
}

impl<'w> Txn<'w> {
    /// A transaction in `ws`. Commits of several files that a killed
    /// process left half-done are put back first, so that this one reads
    /// and writes whole states only.
    pub(crate) fn new(ws: &'w Workspace) -> Self {
        Txn {
            recovered: crate::io::intents::recover(),
            ws,
            slots: Vec::new(),
            by_path: HashMap::new(),
            by_inode: HashMap::new(),
            locks: Vec::new(),
            notes: Vec::new(),
            restores: false,
        }
    }

    /// What writing `new` (its bytes, in order) over the file of slot `k`
    /// says: that the file ended with a line break and no longer does
    /// (worded), a change a result reports as a warning, in a dry run too;
    /// nothing when the transaction [`restores`](Txn::restores). Each side
    /// is read in its own encoding (a write may change it: UTF-8 over
    /// UTF-16).
    pub(super) fn final_break_lost(&self, k: usize, new: &[&[u8]]) -> Option<String> {
        let s = &self.slots[k];
        let (src, _) = s.cur.as_ref().filter(|_| !self.restores)?;
        let had = source::ends_with_break(&[src.raw()]) == Some(true);
        (had && source::ends_with_break(new) == Some(false))
            .then(|| printer::final_break_lost(&s.display))
    }

    /// Resolves `path` with `intent` (which never creates anything here:
    /// `Create` is resolved as `Plan` until the commit).
    pub(crate) fn add(&mut self, path: &str, intent: Intent) -> Result<Added, Failure> {
        let (intent, create_dirs) = match intent {
            Intent::Existing => (Intent::Existing, false),
            Intent::Create { create_dirs } | Intent::Plan { create_dirs } => {
                (Intent::Plan { create_dirs }, create_dirs)
            }
        };
        let res = self.ws.resolve(path, intent)?;
        let inode = res.meta.filter(|m| m.ino != 0).map(|m| (m.dev, m.ino));
        if let Some(&k) = self
            .by_path
            .get(&res.abs_path)
            .or_else(|| inode.and_then(|i| self.by_inode.get(&i)))
        {
            return Ok(Added::Again {
                slot: k,
                abs_path: res.abs_path,
            });
        }
        let k = self.slots.len();
        self.by_path.insert(res.abs_path.clone(), k);
        if let Some(i) = inode {
            self.by_inode.insert(i, k);
        }
        self.slots.push(Slot {
            display: path.to_string(),
            res,
            create_dirs,
            cur: None,
            read_failure: None,
            sha256: OnceLock::new(),
        });
        Ok(Added::New(k))
    }

    /// Locks every slot's file (sorted, so two transactions cannot
    /// deadlock), then reads each one that exists. A read failure is kept
    /// on its slot for the caller to report. `FILE_LOCKED` when another call
    /// holds a file and this thread must not wait (see `io::locks`).
    pub(crate) fn lock_and_read(&mut self, opts: &Options) -> Result<(), Failure> {
        let paths: Vec<&Path> = self
            .slots
            .iter()
            .map(|s| s.res.abs_path.as_path())
            .collect();
        self.locks =
            FileLock::acquire_all(&paths).map_err(|b| locked(&b.path.to_string_lossy()))?;
        for s in &mut self.slots {
            if s.res.meta.is_some() {
                match read_existing(&s.res, opts, &s.display) {
                    Ok((src, meta, note)) => {
                        self.notes.extend(note);
                        s.cur = Some((src, meta));
                    }
                    Err(f) => s.read_failure = Some(f),
                }
            }
        }
        printer::go_on(&opts.cancel)
    }
}

/// The failure of a call that found `path` being written by another call
/// (or process) and may not wait for it.
pub(crate) fn locked(path: &str) -> Failure {
    Failure::new(ErrorCode::FILE_LOCKED, printer::locked(path))
}
