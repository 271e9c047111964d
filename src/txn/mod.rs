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

pub(crate) mod changes;
pub(crate) mod diff;
pub(crate) mod dry_run;
pub(crate) mod edits;
pub(crate) mod lines;
pub(crate) mod ops;
pub(crate) mod parallel;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::error::{ErrorCode, Failure};
use crate::io::commit::{self, Committed, DeleteJob, Extra, Kept as SetAside, Original, WriteJob};
use crate::io::dir::Meta;
use crate::io::locks::FileLock;
use crate::io::meta::Like;
use crate::io::recovery;
use crate::io::source::read_existing;
use crate::io::workspace::{Intent, Resolved, Workspace};
use crate::model::{HardLinks, Options};
use crate::text::source::{self, Source};
use changes::{After, Before, Change, Commit, Kind, Recorder};
use parallel::{beside, PARALLEL_HASH_BYTES};

/// Temp files older than this, left by a crashed writer, are removed.
pub const STALE_TEMP_AGE: Duration = Duration::from_secs(15 * 60);

/// The absolute path a user path names, for failures before resolution.
pub(crate) fn lexical_abs(root: &Path, user: &str) -> String {
    root.join(user).to_string_lossy().into_owned()
}

/// One file of a transaction.
pub(crate) struct Slot {
    /// The path as the caller wrote it, for messages.
    pub(crate) display: String,
    /// Where it resolved. A file that does not exist was resolved without
    /// creating anything and is resolved again (creating its parent
    /// directories) at commit.
    pub(crate) res: Resolved,
    /// Whether missing parent directories may be created at commit.
    create_dirs: bool,
    /// The file as read, when it exists and could be read.
    pub(crate) cur: Option<(Source, Meta)>,
    /// Why reading it failed, when it exists but could not be read.
    pub(crate) read_failure: Option<Failure>,
    /// sha256 of the bytes read, computed at most once.
    sha256: OnceLock<String>,
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
                format!(
                    "`{}` does not exist; check the path and retry",
                    self.display
                ),
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
    /// commit computes it: see [`Committed::sha256`]).
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

/// A commit that failed: nothing of it is in place (files already replaced
/// were restored, and named).
#[derive(Debug)]
pub(crate) struct CommitFailure {
    pub(crate) failure: Failure,
    pub(crate) file_path: Option<String>,
    pub(crate) rolled_back: Vec<String>,
    pub(crate) rollback_failed: Vec<String>,
}

impl CommitFailure {
    fn single(failure: Failure, file_path: String) -> Self {
        CommitFailure {
            failure,
            file_path: Some(file_path),
            rolled_back: Vec::new(),
            rollback_failed: Vec::new(),
        }
    }

    /// The failure as a result, with `rolled_back` and `rollback_failed`
    /// (absolute paths).
    pub(crate) fn to_failed(&self) -> Box<crate::result::Failed> {
        let mut f = crate::result::Failed::new(&self.failure, self.file_path.as_deref());
        f.rolled_back = Some(self.rolled_back.clone());
        f.rollback_failed = Some(self.rollback_failed.clone());
        Box::new(f)
    }
}

/// A transaction over the files of one call (see the module docs).
pub(crate) struct Txn<'w> {
    ws: &'w Workspace,
    pub(crate) slots: Vec<Slot>,
    by_path: HashMap<PathBuf, usize>,
    by_inode: HashMap<(u64, u64), usize>,
    locks: Vec<FileLock>,
    /// What reading found (a file torn by an interrupted in-place write,
    /// read as its content before that write), reported as warnings of a
    /// dry run.
    notes: Vec<String>,
}

impl<'w> Txn<'w> {
    pub(crate) fn new(ws: &'w Workspace) -> Self {
        Txn {
            ws,
            slots: Vec::new(),
            by_path: HashMap::new(),
            by_inode: HashMap::new(),
            locks: Vec::new(),
            notes: Vec::new(),
        }
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
        opts.cancel.check()
    }

    /// Writes and removes everything in one commit (all or none). New
    /// files' parent directories are created first. Every write's new
    /// content and every changed file's previous bytes are hashed (unless
    /// known; big content on a second thread while the commit writes), then
    /// `rec` hears of the commit ([`changes`]) while the files are still
    /// locked; afterwards stale temp files are swept from the directories
    /// written.
    pub(crate) fn commit(
        &self,
        writes: &[Write<'_>],
        removes: &[usize],
        opts: &Options,
        rec: &dyn Recorder,
    ) -> Result<Committed, CommitFailure> {
        // The last moment a cancellation or timeout stops the call: from
        // here on the commit completes (or rolls back) as one.
        opts.cancel.check().map_err(|failure| CommitFailure {
            failure,
            file_path: None,
            rolled_back: Vec::new(),
            rollback_failed: Vec::new(),
        })?;
        let split_links = self.check_links(writes, opts, rec)?;
        let durable = opts.durable;
        let fresh = self.fresh_targets(writes)?;
        let res_of = |k: usize| fresh.get(&k).unwrap_or(&self.slots[k].res);
        // A file torn by an interrupted in-place write was read as its
        // content before that write; it is put back now, before anything
        // else is written (see `io::recovery`).
        let (restored, settled) = self.settle(writes, removes)?;
        let original = |k: usize| {
            self.slots[k].cur.as_ref().map(|(src, m)| Original {
                meta: restored.get(&k).copied().unwrap_or(*m),
                bytes: src.raw(),
            })
        };
        let jobs: Vec<WriteJob<'_>> = writes
            .iter()
            .zip(&split_links)
            .map(|(w, &split)| {
                let r = res_of(w.slot);
                WriteJob {
                    dir: &r.dir,
                    name: &r.name,
                    display: &self.slots[w.slot].display,
                    content: w.content.clone(),
                    original: original(w.slot),
                    split_links: split,
                }
            })
            .collect();
        let perms: Vec<Option<Meta>> = writes
            .iter()
            .map(|w| match &w.like {
                Some(l) => Some(l.meta),
                None => w
                    .perms_from
                    .and_then(|k| self.slots[k].cur.as_ref().map(|(_, m)| *m)),
            })
            .collect();
        let attrs: Vec<Option<crate::io::meta::Extras>> = writes
            .iter()
            .map(|w| w.like.as_ref().and_then(|l| l.extras.clone()))
            .collect();
        let deletes: Vec<DeleteJob<'_>> = removes
            .iter()
            .map(|&k| {
                let s = &self.slots[k];
                DeleteJob {
                    dir: &s.res.dir,
                    name: &s.res.name,
                    display: &s.display,
                    original: original(k).expect("a removed file was read"),
                }
            })
            .collect();
        let extra = Extra {
            deletes: &deletes,
            perms_from: &perms,
            attrs_from: &attrs,
        };
        let hashed: usize = writes
            .iter()
            .map(|w| w.content.iter().map(|c| c.len()).sum::<usize>())
            .sum();
        let (done, sums) = beside(
            hashed >= PARALLEL_HASH_BYTES,
            || self.hash_all(writes, removes),
            || commit::commit_keeping(&jobs, &extra, durable),
        );
        let (mut done, kept) =
            done.map_err(|e| self.commit_failure(e, writes, removes, &settled))?;
        done.warnings.splice(0..0, settled.iter().cloned());
        // Recorded with the files still locked and the originals still set
        // aside: an entry always describes a change that is on disk.
        let c = self.describe(writes, removes, &sums, &kept);
        done.warnings.extend(rec.record(&c));
        drop(c);
        drop(kept);
        done.sha256 = sums;
        for w in writes {
            sweep_stale(res_of(w.slot));
        }
        Ok(done)
    }

    /// The files to be created, resolved again just before the commit (with
    /// their directories made, if asked): `FILE_CHANGED` when another
    /// process created one meanwhile.
    fn fresh_targets(
        &self,
        writes: &[Write<'_>],
    ) -> Result<HashMap<usize, Resolved>, CommitFailure> {
        let mut fresh: HashMap<usize, Resolved> = HashMap::new();
        for w in writes {
            let s = &self.slots[w.slot];
            if s.cur.is_some() {
                continue;
            }
            let res = self
                .ws
                .resolve(
                    &s.res.rel_path,
                    Intent::Create {
                        create_dirs: s.create_dirs,
                    },
                )
                .map_err(|f| CommitFailure::single(f, s.abs()))?;
            if res.meta.is_some() {
                let f = Failure::new(
                    ErrorCode::FILE_CHANGED,
                    format!(
                        "`{}` was created by another process meanwhile; nothing was written. Retry",
                        s.display
                    ),
                );
                return Err(CommitFailure::single(f, s.abs()));
            }
            fresh.insert(w.slot, res);
        }
        Ok(fresh)
    }

    /// Settles the in-place write records of the existing files about to
    /// be written or removed ([`recovery::settle`]): a torn file is
    /// restored (its new metadata returned by slot), a record that does not
    /// apply is discarded. Returns the notes to report.
    #[allow(clippy::type_complexity)]
    fn settle(
        &self,
        writes: &[Write<'_>],
        removes: &[usize],
    ) -> Result<(HashMap<usize, Meta>, Vec<String>), CommitFailure> {
        let mut restored = HashMap::new();
        let mut notes = Vec::new();
        for k in writes.iter().map(|w| w.slot).chain(removes.iter().copied()) {
            let s = &self.slots[k];
            let Some((_, m)) = &s.cur else { continue };
            match recovery::settle(&s.res.dir, &s.res.name, m, &s.display) {
                Ok(done) => {
                    notes.extend(done.note);
                    if let Some(after) = done.restored {
                        restored.insert(k, after);
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    return Err(CommitFailure::single(locked(&s.display), s.abs()));
                }
                Err(e) => {
                    let f = Failure::new(
                        ErrorCode::FILE_WRITE_ERROR,
                        format!(
                            "`{}` holds an interrupted in-place write that could not be put back before writing \
                             ({e}); nothing was written. Retry",
                            s.display
                        ),
                    );
                    return Err(CommitFailure::single(f, s.abs()));
                }
            }
        }
        Ok((restored, notes))
    }

    /// A file with other hard links is written only as the caller says
    /// (links the recorder holds are not other names). Returns, per write,
    /// whether a replacement may split the name from its other links.
    fn check_links(
        &self,
        writes: &[Write<'_>],
        opts: &Options,
        rec: &dyn Recorder,
    ) -> Result<Vec<bool>, CommitFailure> {
        let mut split = Vec::with_capacity(writes.len());
        for w in writes {
            let s = &self.slots[w.slot];
            let (links, held) = match s.cur.as_ref() {
                Some((_, m)) if m.nlink > 1 => (m.nlink, rec.links_held(self.ws, m)),
                _ => (1, 0),
            };
            let names = links.saturating_sub(held).max(1);
            if names > 1 && opts.hard_links == HardLinks::Refuse {
                let f = Failure::new(
                    ErrorCode::HARD_LINKED_FILE,
                    format!(
                        "`{}` has {names} hard links (other names of the same file, perhaps outside the workspace); \
                         nothing was written. Retry with options.hardLinks: \"split\" to give only this name the new \
                         content (the others keep the old), or \"keep\" to write the file in place so that every \
                         name sees it",
                        s.display
                    ),
                );
                return Err(CommitFailure::single(f, s.abs()));
            }
            // Only the recorder's links besides this name: replacing the
            // name leaves the recorder its inode, as it must.
            split.push(opts.hard_links == HardLinks::Split || (links > 1 && names == 1));
        }
        Ok(split)
    }

    /// sha256 of every write's new content (known or computed), computing
    /// the previous bytes' of every changed file into its slot on the way
    /// (one pass over a shared prefix: `sha256_pair`).
    fn hash_all(&self, writes: &[Write<'_>], removes: &[usize]) -> Vec<String> {
        let sums = writes
            .iter()
            .map(|w| {
                let s = &self.slots[w.slot];
                match (&w.sha256, &s.cur) {
                    (Some(h), _) => {
                        let _ = s.sha256();
                        h.clone()
                    }
                    (None, Some((src, _))) => {
                        let need_before = s.sha256.get().is_none();
                        let (before, after) =
                            source::sha256_pair(src.raw(), &w.content, need_before);
                        if let Some(b) = before {
                            s.know_sha256(&b);
                        }
                        after
                    }
                    (None, None) => source::sha256_hex(w.content.iter().copied()),
                }
            })
            .collect();
        for &k in removes {
            let _ = self.slots[k].sha256();
        }
        sums
    }

    /// The commit as its recorder sees it (see [`changes`]).
    fn describe<'t>(
        &'t self,
        writes: &'t [Write<'_>],
        removes: &[usize],
        sums: &'t [String],
        kept: &'t SetAside<'_>,
    ) -> Commit<'t> {
        let before = |k: usize, aside| {
            let s = &self.slots[k];
            s.cur.as_ref().map(|(src, m)| Before {
                bytes: src.raw(),
                meta: m,
                sha256: s.sha256().unwrap_or_default(),
                aside,
            })
        };
        let mut files: Vec<Change<'t>> = Vec::with_capacity(writes.len() + removes.len());
        for (i, w) in writes.iter().enumerate() {
            let s = &self.slots[w.slot];
            let moved = w
                .perms_from
                .filter(|k| removes.contains(k))
                .map(|k| self.slots[k].res.rel_path.as_str());
            files.push(Change {
                rel_path: &s.res.rel_path,
                abs_path: &s.res.abs_path,
                kind: if s.cur.is_some() {
                    Kind::Modified
                } else {
                    Kind::Created
                },
                moved,
                before: before(w.slot, kept.writes.get(i).and_then(Option::as_ref)),
                after: Some(After {
                    content: &w.content,
                    len: w.content.iter().map(|c| c.len() as u64).sum(),
                    sha256: &sums[i],
                }),
            });
        }
        for (j, &k) in removes.iter().enumerate() {
            let s = &self.slots[k];
            let moved = writes
                .iter()
                .find(|w| w.perms_from == Some(k))
                .map(|w| self.slots[w.slot].res.rel_path.as_str());
            files.push(Change {
                rel_path: &s.res.rel_path,
                abs_path: &s.res.abs_path,
                kind: Kind::Deleted,
                moved,
                before: before(k, kept.deletes.get(j).and_then(Option::as_ref)),
                after: None,
            });
        }
        Commit { ws: self.ws, files }
    }

    /// A failed commit as the caller reports it: the paths of what was
    /// rolled back, and of what could not be.
    fn commit_failure(
        &self,
        e: commit::CommitError,
        writes: &[Write<'_>],
        removes: &[usize],
        settled: &[String],
    ) -> CommitFailure {
        let names: Vec<String> = writes
            .iter()
            .map(|w| self.slots[w.slot].abs())
            .chain(removes.iter().map(|&k| self.slots[k].abs()))
            .collect();
        let pick = |ix: &[usize]| ix.iter().map(|&i| names[i].clone()).collect::<Vec<_>>();
        let (rolled_back, rollback_failed) = (pick(&e.rolled_back), pick(&e.rollback_failed));
        let mut failure = e.failure;
        for n in settled {
            failure.message.push_str(&format!("; before that, {n}"));
        }
        if !rollback_failed.is_empty() {
            failure.message.push_str(&format!(
                "; WARNING: {} already-replaced file(s) could not be restored (each keeps its original content beside it as `<name>.orig` where that could be made): {}",
                rollback_failed.len(),
                rollback_failed.join(", ")
            ));
        } else if !rolled_back.is_empty() {
            failure.message.push_str(&format!(
                "; {} file(s) already replaced were restored to their original bytes",
                rolled_back.len()
            ));
        }
        CommitFailure {
            failure,
            file_path: names.get(e.index).or(names.last()).cloned(),
            rolled_back,
            rollback_failed,
        }
    }
}

/// The failure of a call that found `path` being written by another call
/// (or process) and may not wait for it.
pub(crate) fn locked(path: &str) -> Failure {
    Failure::new(
        ErrorCode::FILE_LOCKED,
        format!("`{path}` is being written by another call or process; nothing was written. Retry shortly"),
    )
}

/// The diff a dry run shows for one file. UTF-8 and byte-level files are
/// diffed as the bytes on disk, so a BOM stays part of the first line and
/// `git apply` matches the file exactly; UTF-16 and legacy-encoded files
/// are diffed as their decoded text (readable, but not applicable to their
/// bytes by `git apply`). `new_text` is the new content as UTF-8 (used for
/// decoded files only), `new_bytes` as written; `None`: the file is removed.
/// `None` when old and new together exceed [`MAX_PREVIEW_BYTES`]: such a
/// diff could not be carried to JavaScript (one string holds at most about
/// 512 MiB) and would be no use to read.
pub(crate) fn preview(
    rel: &str,
    old: Option<&Source>,
    new_text: Option<&[u8]>,
    new_bytes: Option<&[u8]>,
) -> Option<String> {
    let (a, b) = match old {
        Some(s) if s.encoding().is_decoded() => (Some(s.text()), new_text),
        Some(s) => (Some(s.raw()), new_bytes),
        None => (None, new_bytes),
    };
    if a.map_or(0, <[u8]>::len) + b.map_or(0, <[u8]>::len) > MAX_PREVIEW_BYTES {
        return None;
    }
    Some(diff::unified(rel, a, b))
}

/// Old plus new content above which a dry run shows no diff (it reports
/// `diff_omitted` instead; the planned change is still kept for
/// applyDryRun).
pub(crate) const MAX_PREVIEW_BYTES: usize = 64 << 20;

impl Txn<'_> {
    /// The dry run of a call that writes one file (slot 0): its diff, and
    /// `new_bytes` (the planned bytes, `new_text` decoded) kept under a
    /// `run_id` for `applyDryRun`.
    pub(crate) fn keep_one(
        &self,
        old: Option<&Source>,
        new_text: &[u8],
        new_bytes: Vec<u8>,
        opts: &Options,
    ) -> (crate::result::written::Preview, Vec<String>) {
        let d = preview(
            &self.slots[0].res.rel_path,
            old,
            Some(new_text),
            Some(&new_bytes),
        );
        let kept = vec![Kept {
            slot: 0,
            bytes: new_bytes,
            perms_from: None,
            like: None,
        }];
        self.keep_preview(file_diff(d, &mut None), kept, &[], opts)
    }
}

/// A file's preview as its result shows it, appended to the call's whole
/// diff in `all`; an omitted one makes the whole one omitted too.
pub(crate) fn file_diff(
    d: Option<String>,
    all: &mut Option<String>,
) -> crate::result::written::Diff {
    use crate::result::written::Diff;
    match d {
        Some(d) => {
            if let Some(a) = all.as_mut() {
                a.push_str(&d);
            }
            Diff {
                diff: Some(d),
                diff_omitted: None,
            }
        }
        None => {
            *all = None;
            Diff {
                diff: None,
                diff_omitted: Some(diff_omitted_note()),
            }
        }
    }
}

/// The whole call's diff (or why it is omitted).
pub(crate) fn whole_diff(all: Option<String>) -> crate::result::written::Diff {
    use crate::result::written::Diff;
    match all {
        Some(a) => Diff {
            diff: Some(a),
            diff_omitted: None,
        },
        None => Diff {
            diff: None,
            diff_omitted: Some(diff_omitted_note()),
        },
    }
}

/// Why a dry run's diff is missing.
pub(crate) fn diff_omitted_note() -> String {
    format!(
        "the change is too large to show as a diff (old and new content over {} MiB); the planned change is kept: \
         apply it with applyDryRun, or review the file after writing",
        MAX_PREVIEW_BYTES >> 20
    )
}

/// Removes temp files left by crashed writers in `res`'s directory, at
/// most once per directory per [`STALE_TEMP_AGE`] (the sweep lists the
/// directory).
fn sweep_stale(res: &Resolved) {
    static SWEPT: OnceLock<Mutex<HashMap<PathBuf, Instant>>> = OnceLock::new();
    let dir = res.dir.path().to_path_buf();
    {
        let mut m = SWEPT
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        if m.get(&dir)
            .is_some_and(|t| now.duration_since(*t) < STALE_TEMP_AGE)
        {
            return;
        }
        if m.len() > 4096 {
            m.clear();
        }
        m.insert(dir, now);
    }
    commit::clean_stale_temps(&res.dir, STALE_TEMP_AGE);
}
