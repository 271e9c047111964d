//! Step 4 of the pipeline (see [`crate::txn`]): [`Txn::commit`] makes every
//! write and removal durable together through `io::commit` (all files or
//! none), after creating new files' parent directories, checking hard links
//! and putting back files torn by an interrupted in-place write; hands what
//! was committed to the caller's recorder while the files are still locked
//! ([`crate::txn::changes`]); and sweeps stale temp files beside them. A
//! commit that fails is a [`CommitFailure`], naming what was rolled back.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use super::changes::{After, Before, Change, Commit, Kind, Recorder};
use super::parallel::{beside, PARALLEL_HASH_BYTES};
use super::pipeline::{locked, Txn, Write};
use crate::codec::source;
use crate::error::{ErrorCode, Failure};
use crate::io::commit::{self, Committed, DeleteJob, Extra, Kept as SetAside, Original, WriteJob};
use crate::io::dir::Meta;
use crate::io::recovery;
use crate::io::workspace::{Intent, Resolved};
use crate::model::{HardLinks, Options};
use crate::printer;

/// Temp files older than this, left by a crashed writer, are removed.
pub const STALE_TEMP_AGE: Duration = Duration::from_secs(15 * 60);

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

impl Txn<'_> {
    /// Writes and removes everything in one commit (all or none). New
    /// files' parent directories are created first. Every write's new
    /// content and every changed file's previous bytes are hashed (unless
    /// known; big content on a second thread while the commit writes), then
    /// `rec` hears of the commit ([`changes`](super::changes)) while the
    /// files are still locked; afterwards stale temp files are swept from
    /// the directories written. Its warnings say, besides what the commit
    /// met, each file written that no longer ends with the line break it
    /// ended with (unless the transaction [`restores`](Txn::restores)).
    pub(crate) fn commit(
        &self,
        writes: &[Write<'_>],
        removes: &[usize],
        opts: &Options,
        rec: &dyn Recorder,
    ) -> Result<Committed, CommitFailure> {
        // The last moment a cancellation or timeout stops the call: from
        // here on the commit completes (or rolls back) as one.
        printer::go_on(&opts.cancel).map_err(|failure| CommitFailure {
            failure,
            file_path: None,
            rolled_back: Vec::new(),
            rollback_failed: Vec::new(),
        })?;
        let split_links = self.check_links(writes, removes, opts, rec)?;
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
        // A moved file's new inode takes the attributes of the file it
        // stands for (ACLs and other extended attributes, inode flags), as
        // its owner and mode: read from the source, still in place.
        let attrs: Vec<Option<crate::io::meta::Extras>> = writes
            .iter()
            .map(|w| match &w.like {
                Some(l) => l.extras.clone(),
                None => w.perms_from.and_then(|k| {
                    let r = &self.slots[k].res;
                    let (f, _) = r.dir.open_current(&r.name).ok().flatten()?;
                    crate::io::meta::capture(&f).ok()
                }),
            })
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
        done.warnings.splice(0..0, self.recovered.iter().cloned());
        let lost = writes
            .iter()
            .filter_map(|w| self.final_break_lost(w.slot, &w.content));
        done.warnings.extend(lost);
        // Recorded with the files still locked and the originals still set
        // aside: an entry always describes a change that is on disk.
        let c = self.describe(writes, removes, &sums, &kept);
        done.warnings.extend(rec.record(&c));
        drop(c);
        drop(kept);
        done.sha256 = sums;
        // A commit whose writer died while this call ran is put back before
        // the sweep, which would otherwise take its originals for stale
        // temp files.
        done.warnings.extend(crate::io::intents::recover());
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
                .resolve_rel(
                    &s.res.rel_path,
                    Intent::Create {
                        create_dirs: s.create_dirs,
                    },
                )
                .map_err(|f| CommitFailure::single(f, s.abs()))?;
            if res.meta.is_some() {
                let f = Failure::new(
                    ErrorCode::FILE_CHANGED,
                    printer::created_meanwhile(&s.display),
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
                        printer::interrupted_write(&s.display, &e.to_string()),
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
    /// A moved file (a write whose `perms_from` slot is removed) is a new
    /// inode under its new name: the source's other names would keep the
    /// old file, so it is moved only under `hardLinks: "split"`.
    fn check_links(
        &self,
        writes: &[Write<'_>],
        removes: &[usize],
        opts: &Options,
        rec: &dyn Recorder,
    ) -> Result<Vec<bool>, CommitFailure> {
        let names_of = |k: usize| {
            let (links, held) = match self.slots[k].cur.as_ref() {
                Some((_, m)) if m.nlink > 1 => (m.nlink, rec.links_held(self.ws, m)),
                _ => (1, 0),
            };
            (links, links.saturating_sub(held).max(1))
        };
        let mut split = Vec::with_capacity(writes.len());
        for w in writes {
            let s = &self.slots[w.slot];
            if let Some(k) = w.perms_from.filter(|k| removes.contains(k)) {
                let (_, names) = names_of(k);
                if names > 1 && opts.hard_links != HardLinks::Split {
                    let src = &self.slots[k];
                    let f = Failure::new(
                        ErrorCode::HARD_LINKED_FILE,
                        printer::hard_linked_move(&src.display, names),
                    );
                    return Err(CommitFailure::single(f, src.abs()));
                }
            }
            let (links, names) = names_of(w.slot);
            if names > 1 && opts.hard_links == HardLinks::Refuse {
                let f = Failure::new(
                    ErrorCode::HARD_LINKED_FILE,
                    printer::hard_linked(&s.display, names),
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

    /// The commit as its recorder sees it (see [`changes`](super::changes)).
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
        failure.message.push_str(&printer::commit_aftermath(
            settled,
            rolled_back.len(),
            &rollback_failed,
        ));
        CommitFailure {
            failure,
            file_path: names.get(e.index).or(names.last()).cloned(),
            rolled_back,
            rollback_failed,
        }
    }
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
    // A temp left for being a moment old (its writer killed just before)
    // is looked at again by the next write here, not in a quarter hour.
    if commit::clean_stale_temps(&res.dir, STALE_TEMP_AGE) {
        SWEPT
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(res.dir.path());
    }
}
